// SPDX-License-Identifier: GPL-2.0
/* Readers of /proc/PID/{pagemap,smaps,status,clear_refs} and /proc/kpage{flags,count}. */
#define _GNU_SOURCE
#include <errno.h>
#include <sys/mman.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/kernel-page-flags.h>

#include "procmm.h"

static int proc_path(char *buf, size_t len, pid_t pid, const char *file)
{
	int n;

	if (pid > 0)
		n = snprintf(buf, len, "/proc/%d/%s", (int)pid, file);
	else
		n = snprintf(buf, len, "/proc/self/%s", file);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* Reads up to len bytes at off, retrying short reads and EINTR: bytes or -errno. */
static ssize_t pread_upto(int fd, void *buf, size_t len, off_t off)
{
	char *p = buf;
	size_t done = 0;

	while (done < len) {
		ssize_t r = pread(fd, p + done, len - done, off + (off_t)done);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (r == 0)
			break; /* past the last PFN */
		done += (size_t)r;
	}
	return (ssize_t)done;
}

/* Exactly len bytes, or -ERANGE when the file ends first. */
static int pread_full(int fd, void *buf, size_t len, off_t off)
{
	ssize_t r = pread_upto(fd, buf, len, off);

	if (r < 0)
		return (int)r;
	return (size_t)r == len ? 0 : -ERANGE;
}

static int read_u64s(const char *path, __u64 index, size_t n, __u64 *out)
{
	int fd, ret;

	if (n == 0)
		return 0;
	if (index > (__u64)INT64_MAX / 8)
		return -ERANGE;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = pread_full(fd, out, n * sizeof(*out), (off_t)(index * sizeof(*out)));
	close(fd);
	return ret;
}

int pc_pagemap_read(pid_t pid, __u64 addr, size_t npages, __u64 *out)
{
	char path[64];
	int ret;

	if (addr & (PC_PAGE_SIZE - 1))
		return -EINVAL;
	ret = proc_path(path, sizeof(path), pid, "pagemap");
	if (ret)
		return ret;
	return read_u64s(path, addr >> PC_PAGE_SHIFT, npages, out);
}

struct pc_pte pc_pagemap_to_pte(__u64 entry)
{
	struct pc_pte p = {.raw = entry};

	if (entry & PC_PM_PRESENT) {
		p.kind = PC_PTE_PRESENT;
		p.pfn = entry & PC_PM_PFN_MASK;
	} else if (entry & PC_PM_SWAP) {
		__u64 frame = entry & PC_PM_PFN_MASK;

		p.kind = PC_PTE_SWAP;
		/* The frame of a swap entry is its type | offset << 5
		   (MAX_SWAPFILES_SHIFT); without PFNs it reads 0, and a uffd-wp
		   marker looks like a swap entry with the uffd-wp bit. */
		p.uffd_wp_marker = (entry & PC_PM_UFFD_WP) &&
				   (!frame || pc_is_uffd_wp_marker(frame & 31, frame >> 5));
	} else {
		p.kind = PC_PTE_NONE;
	}
	return p;
}

void pc_pagemap_to_ptes(const __u64 *entries, size_t n, struct pc_pte *out)
{
	for (size_t i = 0; i < n; i++)
		out[i] = pc_pagemap_to_pte(entries[i]);
}

bool pc_pagemap_pfns_visible(const __u64 *entries, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((entries[i] & PC_PM_PRESENT) && (entries[i] & PC_PM_PFN_MASK))
			return true;
	return false;
}

size_t pc_pagemap_count_present(const __u64 *entries, size_t n)
{
	size_t c = 0;

	for (size_t i = 0; i < n; i++)
		c += !!(entries[i] & PC_PM_PRESENT);
	return c;
}

int pc_kpagecount_read(__u64 pfn, size_t n, __u64 *out)
{
	return read_u64s("/proc/kpagecount", pfn, n, out);
}

int pc_kpageflags_read(__u64 pfn, size_t n, __u64 *out)
{
	return read_u64s("/proc/kpageflags", pfn, n, out);
}

#define KPF_HEAD_BIT PC_KPF(KPF_COMPOUND_HEAD)
#define KPF_TAIL_BIT PC_KPF(KPF_COMPOUND_TAIL)

/* The folio search on an open /proc/kpageflags, with a caller's buffer. */
static int folio_of_pfn_fd(int fd, __u64 pfn, __u64 *buf, __u64 *head_out, __u64 *nr_out)
{
	__u64 flags, head, first, nr;
	size_t n, i, got;
	ssize_t r;
	int ret;

	ret = pread_full(fd, &flags, sizeof(flags), (off_t)(pfn * 8));
	if (ret)
		return ret;
	if (!(flags & (KPF_HEAD_BIT | KPF_TAIL_BIT))) {
		*head_out = pfn;
		*nr_out = 1;
		return 0;
	}

	head = pfn;
	if (!(flags & KPF_HEAD_BIT)) {
		/* A tail: the head is the nearest HEAD below, all TAILs between. */
		first = pfn >= PC_FOLIO_MAX_PAGES - 1 ? pfn - (PC_FOLIO_MAX_PAGES - 1) : 0;
		n = (size_t)(pfn - first);
		if (n == 0)
			return -ESTALE;
		ret = pread_full(fd, buf, n * 8, (off_t)(first * 8));
		if (ret)
			return ret;
		for (i = n; i-- > 0;) {
			if (buf[i] & KPF_HEAD_BIT)
				break;
			if (!(buf[i] & KPF_TAIL_BIT))
				return -ESTALE; /* a tail with no head: changed meanwhile */
		}
		if (i == (size_t)-1)
			return first == 0 ? -ESTALE : -ERANGE;
		head = first + i;
	}

	/* Count the head and the tails after it; one more slot sees the end. */
	r = pread_upto(fd, buf, (PC_FOLIO_MAX_PAGES + 1) * 8, (off_t)(head * 8));
	if (r < 0)
		return (int)r;
	got = (size_t)r / 8;
	if (got == 0)
		return -ERANGE;
	for (i = got; i <= PC_FOLIO_MAX_PAGES; i++)
		buf[i] = 0; /* no PFN past the last: the folio ends there */
	if (!(buf[0] & KPF_HEAD_BIT))
		return -ESTALE;
	for (nr = 1; nr <= PC_FOLIO_MAX_PAGES; nr++)
		if (!(buf[nr] & KPF_TAIL_BIT) || (buf[nr] & KPF_HEAD_BIT))
			break;
	if (nr > PC_FOLIO_MAX_PAGES)
		return -ERANGE;
	/* Folios are naturally sized; anything else is a torn read. */
	if (nr & (nr - 1))
		return -ESTALE;
	if (pfn >= head + nr)
		return -ESTALE;
	*head_out = head;
	*nr_out = nr;
	return 0;
}

static __u32 order_of(__u64 nr)
{
	__u32 o = 0;

	while ((1ULL << o) < nr)
		o++;
	return o;
}

/* /proc/kpageflags open, and the folio search's buffer in *buf: fd or -errno. */
static int folio_search_open(__u64 **buf)
{
	int fd, ret;

	*buf = malloc((PC_FOLIO_MAX_PAGES + 1) * sizeof(**buf));
	if (!*buf)
		return -ENOMEM;
	fd = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		free(*buf);
		return ret;
	}
	return fd;
}

int pc_folio_of_pfn(__u64 pfn, __u64 *head, __u32 *order)
{
	__u64 *buf, h, nr;
	int fd, ret;

	fd = folio_search_open(&buf);
	if (fd < 0)
		return fd;
	ret = folio_of_pfn_fd(fd, pfn, buf, &h, &nr);
	close(fd);
	free(buf);
	if (ret)
		return ret;
	if (head)
		*head = h;
	if (order)
		*order = order_of(nr);
	return 0;
}

int pc_folio_orders(const __u64 *pfns, size_t n, __u32 *orders)
{
	__u64 *buf, head = 0, nr = 0;
	__u32 order = 0;
	int fd, ret = 0;

	fd = folio_search_open(&buf);
	if (fd < 0)
		return fd;
	for (size_t i = 0; i < n; i++) {
		if (pfns[i] == 0) {
			orders[i] = PC_FOLIO_ORDER_NONE;
			continue;
		}
		/* Pages of the folio found last need no second look. */
		if (nr == 0 || pfns[i] < head || pfns[i] >= head + nr) {
			ret = folio_of_pfn_fd(fd, pfns[i], buf, &head, &nr);
			if (ret)
				break;
			order = order_of(nr);
		}
		orders[i] = order;
	}
	close(fd);
	free(buf);
	return ret;
}

/* hist[order] += 1 for a folio of run pages (orders past max counted at max). */
static void census_add(unsigned long long *hist, unsigned int max_order, size_t run)
{
	unsigned int order = 0;

	while ((2UL << order) <= run && order < max_order)
		order++;
	hist[order]++;
}

/* The kpageflags of pm's pages, one read per run of physically contiguous pages. */
static int census_flags(int kf_fd, const __u64 *pm, size_t npages, __u64 *flags, char *why,
			size_t why_len)
{
	size_t i, j;
	int ret;

	for (i = 0; i < npages; i = j) {
		__u64 pfn = pm[i] & PC_PM_PFN_MASK;

		if (!(pm[i] & PC_PM_PRESENT) || !pfn) {
			snprintf(why, why_len,
				 "no PFNs in /proc/self/pagemap (needs CAP_SYS_ADMIN)");
			return -EPERM;
		}
		for (j = i + 1; j < npages && (pm[j] & PC_PM_PRESENT) &&
				(pm[j] & PC_PM_PFN_MASK) == pfn + (j - i);
		     j++)
			;
		ret = pread_full(kf_fd, flags + i, (j - i) * sizeof(*flags),
				 (off_t)(pfn * sizeof(*flags)));
		if (ret) {
			snprintf(why, why_len, "reading /proc/kpageflags: %s", strerror(-ret));
			return ret;
		}
	}
	return 0;
}

int pc_folio_census(const void *addr, size_t npages, size_t page_size, unsigned long long *hist,
		    unsigned int max_order, char *why, size_t why_len)
{
	size_t i, run = 0;
	__u64 *pm, *flags;
	int pm_fd, kf_fd, ret;

	memset(hist, 0, sizeof(*hist) * (max_order + 1));
	pm = malloc(npages * sizeof(*pm));
	flags = malloc(npages * sizeof(*flags));
	pm_fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	kf_fd = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);
	if (!pm || !flags || pm_fd < 0 || kf_fd < 0) {
		ret = -errno;
		snprintf(why, why_len, "%s: %s",
			 !pm || !flags ? "malloc"
			 : pm_fd < 0   ? "/proc/self/pagemap"
				       : "/proc/kpageflags",
			 strerror(-ret));
		goto out;
	}
	ret = pread_full(pm_fd, pm, npages * sizeof(*pm),
			 (off_t)((uintptr_t)addr / page_size * sizeof(*pm)));
	if (ret) {
		snprintf(why, why_len, "reading /proc/self/pagemap: %s", strerror(-ret));
		goto out;
	}
	ret = census_flags(kf_fd, pm, npages, flags, why, why_len);
	if (ret)
		goto out;
	/* A head starts a folio, its tails extend it. */
	for (i = 0; i <= npages; i++) {
		if (i < npages && (flags[i] & KPF_TAIL_BIT) && run) {
			run++;
			continue;
		}
		if (run)
			census_add(hist, max_order, run);
		run = i < npages ? 1 : 0;
	}
out:
	if (pm_fd >= 0)
		close(pm_fd);
	if (kf_fd >= 0)
		close(kf_fd);
	free(pm);
	free(flags);
	return ret;
}

static void smaps_field(struct pc_smaps *s, const char *key, __u64 v)
{
	static const struct {
		const char *key;
		size_t off;
	} map[] = {
		{"Size", offsetof(struct pc_smaps, size_kb)},
		{"KernelPageSize", offsetof(struct pc_smaps, kernel_page_kb)},
		{"Rss", offsetof(struct pc_smaps, rss_kb)},
		{"Pss", offsetof(struct pc_smaps, pss_kb)},
		{"Shared_Clean", offsetof(struct pc_smaps, shared_clean_kb)},
		{"Shared_Dirty", offsetof(struct pc_smaps, shared_dirty_kb)},
		{"Private_Clean", offsetof(struct pc_smaps, private_clean_kb)},
		{"Private_Dirty", offsetof(struct pc_smaps, private_dirty_kb)},
		{"Referenced", offsetof(struct pc_smaps, referenced_kb)},
		{"Anonymous", offsetof(struct pc_smaps, anonymous_kb)},
		{"LazyFree", offsetof(struct pc_smaps, lazyfree_kb)},
		{"AnonHugePages", offsetof(struct pc_smaps, anon_huge_kb)},
		{"ShmemPmdMapped", offsetof(struct pc_smaps, shmem_pmd_kb)},
		{"FilePmdMapped", offsetof(struct pc_smaps, file_pmd_kb)},
		{"Swap", offsetof(struct pc_smaps, swap_kb)},
		{"Locked", offsetof(struct pc_smaps, locked_kb)},
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		if (strcmp(key, map[i].key) == 0) {
			*(__u64 *)((char *)s + map[i].off) = v;
			return;
		}
	}
}

/* "start-end perms ..." starts with a lower-case hex digit; fields do not. */
static bool smaps_header(const char *line, __u64 *start, __u64 *end)
{
	unsigned long long a, b;

	if (!((line[0] >= '0' && line[0] <= '9') || (line[0] >= 'a' && line[0] <= 'f')))
		return false;
	if (sscanf(line, "%llx-%llx ", &a, &b) != 2)
		return false;
	*start = a;
	*end = b;
	return true;
}

int pc_smaps_read(pid_t pid, __u64 addr, struct pc_smaps *out)
{
	char path[64], *line = NULL, key[64];
	size_t cap = 0;
	bool in = false, found = false;
	unsigned long long v;
	__u64 start, end;
	FILE *f;
	int ret;

	ret = proc_path(path, sizeof(path), pid, "smaps");
	if (ret)
		return ret;
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		if (smaps_header(line, &start, &end)) {
			if (found)
				break; /* the next VMA: ours is complete */
			in = addr >= start && addr < end;
			if (in) {
				found = true;
				memset(out, 0, sizeof(*out));
				out->start = start;
				out->end = end;
				out->thp_eligible = -1;
			}
			continue;
		}
		if (!in)
			continue;
		if (strncmp(line, "VmFlags:", 8) == 0) {
			char *p = line + 8;

			while (*p == ' ')
				p++;
			snprintf(out->vmflags, sizeof(out->vmflags), "%s", p);
			out->vmflags[strcspn(out->vmflags, "\n")] = 0;
		} else if (sscanf(line, "THPeligible: %llu", &v) == 1) {
			out->thp_eligible = (int)v;
		} else if (sscanf(line, "%63[^:]: %llu kB", key, &v) == 2) {
			smaps_field(out, key, v);
		}
	}
	ret = ferror(f) ? -EIO : 0;
	free(line);
	fclose(f);
	if (ret)
		return ret;
	return found ? 0 : -ENOENT;
}

int pc_clear_refs(void)
{
	int fd, ret = 0;

	fd = open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (write(fd, "1", 1) != 1) {
		if (errno != EINTR) {
			ret = -errno;
			break;
		}
	}
	close(fd);
	return ret;
}

/* The number after "key:" in a /proc status text, or -ENODATA. */
static int status_field(const char *text, const char *key, __u64 *out)
{
	size_t kl = strlen(key);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		unsigned long long v;

		if (strncmp(p, key, kl) == 0 && p[kl] == ':' &&
		    sscanf(p + kl + 1, " %llu", &v) == 1) {
			*out = v;
			return 0;
		}
	}
	return -ENODATA;
}

int pc_status_rss_read(pid_t pid, struct pc_status_rss *out)
{
	char path[64], buf[4096];
	size_t done = 0;
	int fd, ret;

	ret = proc_path(path, sizeof(path), pid, "status");
	if (ret)
		return ret;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (done < sizeof(buf) - 1) {
		ssize_t r = read(fd, buf + done, sizeof(buf) - 1 - done);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			ret = -errno;
			close(fd);
			return ret;
		}
		if (r == 0)
			break;
		done += (size_t)r;
	}
	close(fd);
	buf[done] = 0;
	memset(out, 0, sizeof(*out));
	ret = status_field(buf, "RssAnon", &out->anon_kb);
	if (!ret)
		ret = status_field(buf, "RssFile", &out->file_kb);
	if (!ret)
		ret = status_field(buf, "RssShmem", &out->shmem_kb);
	if (!ret)
		ret = status_field(buf, "VmSwap", &out->swap_kb);
	return ret;
}

/* One mapping of /proc/self/maps: its range, permissions ("rw-p") and
   path ("" for an anonymous one). */
struct own_map {
	unsigned long lo, hi;
	char perms[8];
	const char *path;
};

/*
 * Calls fn on every mapping of this process, in address order (with
 * stop_on_error, until fn first returns nonzero).  0, fn's first
 * nonzero, or -errno when the maps cannot be read.
 */
static int each_own_map(int (*fn)(const struct own_map *m), bool stop_on_error)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[4096];
	int err = 0, rc;

	if (!f)
		return -errno;
	while ((!err || !stop_on_error) && fgets(line, sizeof(line), f)) {
		struct own_map m = {0};
		int path = 0;

		/* "lo-hi perms offset dev inode   path" */
		if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %n", &m.lo, &m.hi, m.perms, &path) < 3 ||
		    !path || m.hi <= m.lo)
			continue;
		line[strcspn(line, "\n")] = '\0';
		m.path = line + path;
		rc = fn(&m);
		if (rc && !err)
			err = rc;
	}
	fclose(f);
	return err;
}

static int lock_file_map(const struct own_map *m)
{
	if (m->path[0] != '/')
		return 0;
	return mlock((void *)m->lo, m->hi - m->lo) ? -errno : 0;
}

int pc_mlock_file_maps(void)
{
	return each_own_map(lock_file_map, true);
}

void pc_fork_copies(const void *p, size_t len, bool copies)
{
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t lo = ((uintptr_t)p + pg - 1) & ~(pg - 1), hi = ((uintptr_t)p + len) & ~(pg - 1);

	if (p && hi > lo)
		madvise((void *)lo, hi - lo, copies ? MADV_DOFORK : MADV_DONTFORK);
}

static int small_folios(const struct own_map *m)
{
	/* Anonymous (no path, or the heap's or the stack's name), private
	   and writable: memory of ptecheck's own. */
	if ((m->path[0] && strcmp(m->path, "[heap]") && strcmp(m->path, "[stack]")) ||
	    m->perms[1] != 'w' || m->perms[3] != 'p')
		return 0;
	return madvise((void *)m->lo, m->hi - m->lo, MADV_NOHUGEPAGE) ? -errno : 0;
}

int pc_own_memory_small_folios(void)
{
	return each_own_map(small_folios, false);
}

int pc_mlock(const void *p, size_t len)
{
	return syscall(SYS_mlock, p, len) ? -errno : 0;
}

int pc_munlock(const void *p, size_t len)
{
	return syscall(SYS_munlock, p, len) ? -errno : 0;
}
