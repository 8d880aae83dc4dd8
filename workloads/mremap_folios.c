// SPDX-License-Identifier: GPL-2.0
/*
 * mremap_folios: the reference loop of the mremap PTE-batching patch.
 * mmap an anonymous region at a fixed address, fill it, mremap it
 * (MAYMOVE|FIXED) to addr + size, munmap; N times; report ns per iteration.
 * Variants stress the edges of the batching: misaligned destinations,
 * partial folios, mixed PTE permissions inside a folio, shmem and file.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cli.h"
#include "workload.h"

#define PROG "mremap_folios"

#define SZ_4K  0x1000UL
#define SZ_8K  0x2000UL
#define SZ_16K 0x4000UL
#define SZ_1M  0x100000UL
#define SZ_2M  0x200000UL

enum {
	EXIT_SYSCALL = 1,
	EXIT_USAGE = 2,
	EXIT_CANNOT_RUN = PC_WL_EXIT_CANNOT_RUN,
};

enum variant {
	VAR_ALIGNED,
	VAR_MISALIGNED,
	VAR_PARTIAL,
	VAR_FORK_MIXED,
	VAR_SHMEM,
	VAR_FILE,
	VAR_SHRINK,
	NR_VARIANTS,
};

/* NULL-ended for pc_wl_lookup(). */
static const char *const variant_names[NR_VARIANTS + 1] = {
	[VAR_ALIGNED] = "aligned",	 [VAR_MISALIGNED] = "misaligned", [VAR_PARTIAL] = "partial",
	[VAR_FORK_MIXED] = "fork-mixed", [VAR_SHMEM] = "shmem",		  [VAR_FILE] = "file",
	[VAR_SHRINK] = "shrink",
};

struct config {
	struct pc_workload wl; /* --iterations, --size, --json */
	unsigned int folio_kb;
	enum variant variant;
};

/* What one run maps and moves, from the variant. */
struct plan {
	int map_flags, fd, advice;
	size_t src_off, move_len, dst_off;
	const char *alloc_stat; /* the mTHP counter to read around the run, or NULL */
};

/* What the loop measured. */
struct measure {
	uint64_t total_ns, mremap_ns;
	long long alloc_before, alloc_after;
};

static void usage(FILE *out)
{
	fprintf(out, "Usage: " PROG " [options]\n"
		     "\n"
		     "The mremap PTE-batching reference loop: mmap SIZE bytes at a fixed,\n"
		     "2 MiB-aligned address, memset them, mremap(MREMAP_MAYMOVE|MREMAP_FIXED)\n"
		     "to addr + SIZE, munmap; ITERATIONS times.  Prints ns per iteration.\n"
		     "\n"
		     "Options:\n"
		     "  --iterations N   loop count (default 10000)\n"
		     "  --size BYTES     region size, K/M/G suffixes allowed, a multiple of\n"
		     "                   4096 (default 1M)\n"
		     "  --folio 64k|4k   64k: set hugepages-64kB/enabled to \"madvise\" and\n"
		     "                   MADV_HUGEPAGE the region, so it is faulted in as\n"
		     "                   64 KiB folios; 4k: MADV_NOHUGEPAGE (default 4k, which\n"
		     "                   changes no system setting).  With SIZE >= 2 MiB and\n"
		     "                   hugepages-2048kB inheriting \"madvise\", 64k may also\n"
		     "                   get PMD-sized THPs.\n"
		     "  --variant V      aligned     the reference (default)\n"
		     "                   misaligned  destination 4 KiB past a 64 KiB boundary\n"
		     "                   partial     move [addr+8K, addr+SIZE-8K): starts and\n"
		     "                               ends inside folios\n"
		     "                   fork-mixed  fork a child that exits at once, then write\n"
		     "                               every other 4 KiB page: a folio has both\n"
		     "                               writable and read-only PTEs\n"
		     "                   shmem       MAP_SHARED|MAP_ANONYMOUS (64k also sets\n"
		     "                               hugepages-64kB/shmem_enabled to \"always\")\n"
		     "                   file        MAP_SHARED of a temporary regular file in\n"
		     "                               $TMPDIR (or /tmp)\n"
		     "                   shrink      mremap(MREMAP_MAYMOVE) to SIZE/2, which\n"
		     "                               shrinks in place: nothing moves\n"
		     "  --json           print one JSON object line instead of text\n"
		     "  --help           this text\n"
		     "\n"
		     "Every sysfs setting changed is restored on exit, including on SIGINT,\n"
		     "SIGTERM, SIGHUP and SIGQUIT.  PTECHECK_SYSFS_ROOT (default /sys) moves\n"
		     "the mTHP files, for tests.\n"
		     "\n"
		     "Exit status: 0 ok, 1 a system call failed, 2 usage, 4 cannot run here\n"
		     "(e.g. no 64 KiB mTHP, or not root for --folio 64k).\n"
		     "\n"
		     "Examples:\n"
		     "  " PROG " --folio 64k                     # the patch's measurement\n"
		     "  " PROG " --folio 4k --iterations 1000 --json\n"
		     "  " PROG " --folio 64k --variant fork-mixed --size 2M\n");
}

/* Exits EXIT_USAGE (2) with the message and a pointer to --help. */
#define usage_error(...) pc_usage_error(PROG, __VA_ARGS__)

static void own_opt(int c, char *arg, void *ctx)
{
	struct config *cfg = ctx;
	int i;

	switch (c) {
	case 'f':
		cfg->folio_kb = pc_wl_folio_kb(arg);
		break;
	case 'v':
		i = pc_wl_lookup(arg, variant_names);
		if (i < 0)
			usage_error("unknown --variant '%s'", arg);
		cfg->variant = (enum variant)i;
		break;
	}
}

static void parse_args(int argc, char **argv, struct config *cfg)
{
	static const struct option opts[] = {
		{"folio", required_argument, NULL, 'f'},
		{"variant", required_argument, NULL, 'v'},
		{NULL, 0, NULL, 0},
	};

	pc_wl_parse(&cfg->wl, argc, argv, opts, own_opt, cfg);
	if (cfg->variant == VAR_PARTIAL && cfg->wl.size <= SZ_16K)
		usage_error("--variant partial needs --size above 16K%s", "");
}

/*
 * The file is unlinked, and its private directory removed, as soon as it is
 * open: the descriptor keeps it alive, and no exit path (not even SIGKILL)
 * can leave it behind.
 */
static int open_temp_file(size_t size)
{
	char dir[PATH_MAX], path[PATH_MAX + 16];
	int fd, err;

	if (snprintf(dir, sizeof(dir), "%s/" PROG ".XXXXXX", pc_wl_tmpdir()) >= (int)sizeof(dir)) {
		errno = ENAMETOOLONG;
		pc_wl_die("temporary directory name");
	}
	if (!mkdtemp(dir))
		pc_wl_die("mkdtemp() in $TMPDIR");
	snprintf(path, sizeof(path), "%s/data", dir);
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	err = errno;
	if (fd >= 0)
		unlink(path);
	rmdir(dir);
	if (fd < 0) {
		errno = err;
		pc_wl_die("creating the temporary file");
	}
	if (ftruncate(fd, (off_t)size))
		pc_wl_die("ftruncate() of the temporary file");
	return fd;
}

/* Leaves every other page writable and the rest write-protected by fork(). */
static void fork_and_mix(char *p, size_t len)
{
	size_t off;

	pc_wl_fork_child_exits();
	for (off = 0; off < len; off += 2 * SZ_4K)
		p[off] = 2;
}

/* The sysfs knobs, mappings and offsets of the variant. */
static struct plan make_plan(const struct config *cfg)
{
	size_t size = cfg->wl.size;
	struct plan pl = {
		.map_flags = MAP_PRIVATE | MAP_ANONYMOUS,
		.fd = -1,
		.advice = cfg->folio_kb == 64 ? MADV_HUGEPAGE : MADV_NOHUGEPAGE,
		.move_len = size,
		.dst_off = size,
	};

	if (cfg->folio_kb == 64) {
		pc_wl_mthp_require(64, 0, "madvise", false);
		if (cfg->variant == VAR_SHMEM)
			pc_wl_mthp_require(64, 1, "always", false);
	}
	if (cfg->variant == VAR_SHMEM) {
		pl.map_flags = MAP_SHARED | MAP_ANONYMOUS;
	} else if (cfg->variant == VAR_FILE) {
		pl.map_flags = MAP_SHARED;
		pl.fd = open_temp_file(size);
	}
	if (cfg->variant == VAR_MISALIGNED) {
		pl.dst_off = size + SZ_4K;
	} else if (cfg->variant == VAR_PARTIAL) {
		pl.src_off = SZ_8K;
		pl.move_len = size - SZ_16K;
		/* Same offset inside the folio at the destination: only the cut folios differ. */
		pl.dst_off = size + SZ_8K;
	}
	if (cfg->folio_kb == 64 && cfg->variant != VAR_FILE)
		pl.alloc_stat = cfg->variant == VAR_SHMEM ? "shmem_alloc" : "anon_fault_alloc";
	return pl;
}

static struct measure run_loop(const struct config *cfg, const struct plan *pl)
{
	size_t size = cfg->wl.size;
	struct measure m = {.alloc_before = -1, .alloc_after = -1};
	uint64_t start;
	unsigned long i;
	char *base;

	/* System-wide counters, always of the real /sys: a hint of whether
	   64 KiB folios really formed. */
	if (pl->alloc_stat)
		m.alloc_before = pc_wl_mthp64_stat("/sys", pl->alloc_stat);
	/* 2 MiB-aligned, so every 64 KiB folio is naturally aligned.  Nothing
	   may allocate address space between here and the loop. */
	base = pc_wl_free_range(4 * size, SZ_2M);
	start = pc_wl_now_ns();
	for (i = 0; i < cfg->wl.iterations; i++) {
		char *p = pc_wl_map_at(base, size, pl->map_flags, pl->fd);

		/* EINVAL: a kernel without THP has no huge pages to refuse. */
		if (madvise(p, size, pl->advice) &&
		    !(errno == EINVAL && pl->advice == MADV_NOHUGEPAGE))
			pc_wl_die(pl->advice == MADV_HUGEPAGE ? "madvise(MADV_HUGEPAGE)"
							      : "madvise(MADV_NOHUGEPAGE)");
		memset(p, 1, size);
		if (cfg->variant == VAR_FORK_MIXED)
			fork_and_mix(p, size);
		if (cfg->variant == VAR_SHRINK) {
			/* Nothing moves: the second half is unmapped in place. */
			m.mremap_ns += pc_wl_timed_shrink(p, size, size / 2);
			if (munmap(p, size / 2))
				pc_wl_die("munmap() of the shrunk region");
			continue;
		}
		m.mremap_ns += pc_wl_timed_move(p + pl->src_off, pl->move_len, base + pl->dst_off);
		/* The partial variant leaves the cut ends behind at the source. */
		if (pl->src_off && munmap(p, size))
			pc_wl_die("munmap() of the source remainder");
		if (munmap(base + pl->dst_off, pl->move_len))
			pc_wl_die("munmap() of the destination");
	}
	m.total_ns = pc_wl_now_ns() - start;
	if (pl->alloc_stat)
		m.alloc_after = pc_wl_mthp64_stat("/sys", pl->alloc_stat);
	return m;
}

static void print_result(const struct config *cfg, const struct plan *pl, const struct measure *m)
{
	double n = (double)cfg->wl.iterations;

	if (cfg->wl.json) {
		pc_wl_json_begin();
		printf(",\"variant\":\"%s\",\"folio\":\"%uk\",\"size\":%zu,\"iterations\":%lu,"
		       "\"ns_per_iter\":%.1f,\"total_ns\":%llu,\"mremap_ns_per_iter\":%.1f}\n",
		       variant_names[cfg->variant], cfg->folio_kb, cfg->wl.size, cfg->wl.iterations,
		       (double)m->total_ns / n, (unsigned long long)m->total_ns,
		       (double)m->mremap_ns / n);
		return;
	}
	printf(PROG ": variant=%s folio=%uk size=%zu iterations=%lu: "
		    "%.1f ns/iter (mremap alone %.1f ns), total %.3f s\n",
	       variant_names[cfg->variant], cfg->folio_kb, cfg->wl.size, cfg->wl.iterations,
	       (double)m->total_ns / n, (double)m->mremap_ns / n, (double)m->total_ns / 1e9);
	if (m->alloc_before >= 0 && m->alloc_after >= 0)
		printf(PROG ": 64 KiB folios allocated system-wide during the run (%s): %lld\n",
		       pl->alloc_stat, m->alloc_after - m->alloc_before);
}

int main(int argc, char **argv)
{
	static struct config cfg = {
		.wl = {.prog = PROG,
		       .error_exit = EXIT_SYSCALL,
		       .usage = usage,
		       /* The reservation is 4 * size + 2 MiB: keep that from overflowing. */
		       .size_max = SIZE_MAX / 8,
		       .size_step = SZ_4K,
		       .size_step_text = "4096",
		       .iterations = 10000,
		       .size = SZ_1M},
		.folio_kb = 4,
		.variant = VAR_ALIGNED,
	};
	struct measure m;
	struct plan pl;

	parse_args(argc, argv, &cfg);
	pc_wl_need_4k_pages();
	pc_wl_start();
	pl = make_plan(&cfg);
	m = run_loop(&cfg, &pl);
	print_result(&cfg, &pl, &m);
	pc_wl_flush();
	if (pl.fd >= 0)
		close(pl.fd);
	return 0;
}
