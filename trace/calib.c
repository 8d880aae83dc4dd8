// SPDX-License-Identifier: GPL-2.0
/* Page-table walk calibration: see bpf/calib.bpf.c for the method. */
#define _GNU_SOURCE /* pipe2, mremap's MREMAP_FIXED */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include <ptecheck/events.h>
#include "calib.skel.h"
#include "cli.h"
#include "calib.h"

/* End of the highest "System RAM" range in /proc/iomem (needs root). */
static int read_phys_limit(__u64 *limit)
{
	FILE *f = fopen("/proc/iomem", "re");
	char line[256];
	__u64 best = 0;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long start, end;

		if (!strstr(line, "System RAM"))
			continue;
		if (sscanf(line, " %llx-%llx", &start, &end) == 2 && end + 1 > best)
			best = end + 1;
	}
	fclose(f);
	if (best == 0)
		return -ENODATA; /* addresses hidden: not root, or kptr_restrict */
	*limit = best;
	return 0;
}

static int pfn_of(void *addr, __u64 *pfn)
{
	__u64 entry;
	int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = pread(fd, &entry, sizeof(entry), (off_t)((uintptr_t)addr / 4096) * 8);
	close(fd);
	if (n != sizeof(entry))
		return n < 0 ? -errno : -EIO;
	if (!(entry >> 63) || !(entry & ((1ULL << 55) - 1)))
		return -EPERM; /* not present, or PFN hidden without CAP_SYS_ADMIN */
	*pfn = entry & ((1ULL << 55) - 1);
	return 0;
}

/* The vmemmap bpf/calib.bpf.c found, or why not (out->vmemmap_why);
   reason: the direct map's calibration, when it failed. */
static void vmemmap_result(struct pc_walk_calib *out, const struct calib_bpf *skel,
			   const char *reason)
{
	static const char *const why[] = {
		[PC_VM_NO_STACK] = "neither a vmap'd task stack (CONFIG_VMAP_STACK) nor a pipe's "
				   "buffer gives a struct page to start from",
		[PC_VM_NO_LAYOUT] = "struct page / folio fields (compound_head or compound_info, "
				    "the folio order) not in the kernel's BTF",
		[PC_VM_NO_MATCH] = "no candidate base holds the known page's struct page",
	};
	const struct calib_result *r;

	/* Valid only once the program ran: skel is loaded then. */
	if (!out->valid) {
		snprintf(out->vmemmap_why, sizeof(out->vmemmap_why), "no direct map: %s", reason);
		return;
	}
	r = &skel->bss->result;
	if (r->vm_code == PC_VM_FOUND && r->page_size) {
		out->vmemmap = r->vmemmap;
		out->page_size = r->page_size;
		snprintf(out->vmemmap_why, sizeof(out->vmemmap_why),
			 "vmemmap at 0x%llx, %llu-byte struct page (calibrated, %u tried)",
			 (unsigned long long)r->vmemmap, (unsigned long long)r->page_size,
			 r->vm_tried);
	} else {
		snprintf(out->vmemmap_why, sizeof(out->vmemmap_why),
			 "vmemmap not found: %s (%u tried)",
			 r->vm_code < sizeof(why) / sizeof(why[0]) && why[r->vm_code]
				 ? why[r->vm_code]
				 : "the calibration said nothing",
			 r->vm_tried);
	}
}

/* Without a vmap'd stack, a pipe's page is the struct page to start from:
   one byte written fills its first buffer.  The read end, or -1. */
static int pipe_open(int fd[2])
{
	if (pipe2(fd, O_CLOEXEC))
		return -1;
	if (write(fd[1], "p", 1) == 1)
		return fd[0];
	close(fd[0]);
	fd[0] = -1;
	return -1;
}

static void pipe_close(const int fd[2])
{
	for (int i = 0; i < 2; i++)
		if (fd[i] >= 0)
			close(fd[i]);
}

static void set_rodata(struct calib_bpf *skel, const void *page, __u64 pfn, const __u64 *magic,
		       __u64 phys_limit, int pipe_fd)
{
	skel->rodata->calib_tgid = getpid();
	skel->rodata->calib_uaddr = (uintptr_t)page;
	skel->rodata->calib_pfn = pfn;
	skel->rodata->calib_magic[0] = magic[0];
	skel->rodata->calib_magic[1] = magic[1];
	skel->rodata->calib_phys_limit = phys_limit;
	skel->rodata->calib_candidates = (__u32)(phys_limit >> 30) + 2;
	skel->rodata->calib_pipe_fd = pipe_fd;
}

/* Attempts, when no candidate maps the page: its PFN is read before the
   program loads (seconds under TCG), and compaction or NUMA balancing
   may move a page, mlocked or not, meanwhile.  Seen once in a two-node
   arm64 guest: every kernel walk tier of the run lost. */
#define CALIB_ATTEMPTS 3

#ifdef PC_FAULT_INJECT
/* PTECHECK_FAULT_CALIB_MOVE=N (tests/fault/test_calib_move.sh): the page
   moves before the program looks, in the first N attempts, as compaction
   would move it: its contents to a new page mapped at the same address. */
static void fault_move_page(void *page)
{
	static int moves = -1;
	void *fresh;

	if (moves < 0)
		moves = getenv("PTECHECK_FAULT_CALIB_MOVE")
				? atoi(getenv("PTECHECK_FAULT_CALIB_MOVE"))
				: 0;
	if (moves <= 0)
		return;
	moves--;
	fresh = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (fresh == MAP_FAILED)
		return;
	memcpy(fresh, page, 4096);
	mlock(fresh, 4096);
	if (mremap(fresh, 4096, 4096, MREMAP_MAYMOVE | MREMAP_FIXED, page) == MAP_FAILED)
		munmap(fresh, 4096);
}
#else
static void fault_move_page(void *page)
{
	(void)page;
}
#endif

/* One attempt on page: loads and triggers the program; *skelp is left
   for the caller to destroy (its bss holds the result).  0 or -errno,
   reason saying why not. */
static int calibrate_once(void *page, const __u64 *magic, __u64 phys_limit,
			  struct calib_bpf **skelp, __u64 *pfn, char *reason, size_t len)
{
	struct calib_bpf *skel;
	int pipefd[2] = {-1, -1};
	int err;

	err = pfn_of(page, pfn);
	if (err) {
		snprintf(reason, len, "cannot learn a PFN from /proc/self/pagemap (%s)",
			 strerror(-err));
		return err;
	}
	skel = *skelp = calib_bpf__open();
	if (!skel) {
		err = -errno;
		snprintf(reason, len, "cannot open the calibration program (%s)", strerror(errno));
		return err;
	}
	set_rodata(skel, page, *pfn, magic, phys_limit, pipe_open(pipefd));
	err = calib_bpf__load(skel);
	if (err) {
		snprintf(reason, len, "calibration program refused by the kernel (%s)",
			 strerror(-err));
		goto out;
	}
	err = calib_bpf__attach(skel);
	if (err) {
		snprintf(reason, len, "cannot attach to raw_syscalls:sys_enter (%s)",
			 strerror(-err));
		goto out;
	}
	fault_move_page(page);
	syscall(SYS_getpgid, 0);
	if (!skel->bss->result.ran) {
		err = -ENODATA;
		snprintf(reason, len, "calibration program did not run");
	} else if (!skel->bss->result.found) {
		err = -ENOENT;
		snprintf(reason, len,
			 "no direct-map base among %u candidates maps a known page "
			 "(unsupported page-table layout?)",
			 skel->bss->result.tried);
	}
out:
	pipe_close(pipefd);
	return err;
}

int pc_calibrate_walk(struct pc_walk_calib *out, __u64 *phys_limit, char *reason, size_t len)
{
	struct calib_bpf *skel = NULL;
	__u64 magic[2], pfn = 0, now;
	int attempt, moved = 0;
	void *page;
	int err;

	memset(out, 0, sizeof(*out));
	err = read_phys_limit(phys_limit);
	if (err) {
		snprintf(reason, len, "cannot read the end of RAM from /proc/iomem (%s)",
			 strerror(-err));
		return err;
	}
	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED) {
		err = -errno;
		snprintf(reason, len, "mmap: %s", strerror(errno));
		return err;
	}
	if (getrandom(magic, sizeof(magic), 0) != sizeof(magic)) {
		magic[0] = 0x9e3779b97f4a7c15ULL ^ (__u64)getpid();
		magic[1] = 0xc2b2ae3d27d4eb4fULL ^ (__u64)(uintptr_t)page;
	}
	memcpy(page, magic, sizeof(magic));
	mlock(page, 4096);
	for (attempt = 1;; attempt++) {
		err = calibrate_once(page, magic, *phys_limit, &skel, &pfn, reason, len);
		/* Again only where the page was not where the program looked. */
		if (err != -ENOENT || attempt == CALIB_ATTEMPTS || pfn_of(page, &now) || now == pfn)
			break;
		moved++;
		calib_bpf__destroy(skel);
		skel = NULL;
	}
	if (!err) {
		out->direct_map_base = skel->bss->result.base;
		out->levels = skel->bss->result.levels;
		out->valid = 1;
		snprintf(reason, len, "%u-level page tables, direct map at 0x%llx (calibrated%s)",
			 out->levels, (unsigned long long)out->direct_map_base,
			 moved ? "; the page moved during an attempt, tried again" : "");
	} else if (moved) {
		snprintf(reason + strlen(reason), len - strlen(reason),
			 "; the page moved during %d of %d attempts", moved, attempt);
	}
	vmemmap_result(out, skel, reason);
	calib_bpf__destroy(skel);
	munmap(page, 4096);
	return err;
}

const char *pc_calib_vmemmap_why(const struct pc_walk_calib *c, const char *fallback)
{
	if (pc_calib_vmemmap_ok(c))
		return NULL;
	return c->vmemmap_why[0] ? c->vmemmap_why : fallback;
}
