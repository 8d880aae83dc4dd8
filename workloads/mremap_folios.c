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
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "privilege.h"
#include "settings.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

#define PROG "mremap_folios"

#define SZ_4K  0x1000UL
#define SZ_8K  0x2000UL
#define SZ_16K 0x4000UL
#define SZ_1M  0x100000UL
#define SZ_2M  0x200000UL

enum {
	EXIT_SYSCALL = 1,
	EXIT_USAGE = 2,
	EXIT_CANNOT_RUN = 4,
};

enum variant {
	VAR_ALIGNED,
	VAR_MISALIGNED,
	VAR_PARTIAL,
	VAR_FORK_MIXED,
	VAR_SHMEM,
	VAR_FILE,
	NR_VARIANTS,
};

static const char *const variant_names[NR_VARIANTS] = {
	[VAR_ALIGNED] = "aligned",	 [VAR_MISALIGNED] = "misaligned", [VAR_PARTIAL] = "partial",
	[VAR_FORK_MIXED] = "fork-mixed", [VAR_SHMEM] = "shmem",		  [VAR_FILE] = "file",
};

struct config {
	unsigned long iterations;
	size_t size;
	unsigned int folio_kb;
	enum variant variant;
	bool json;
};

/* MAP_FIXED_NOREPLACE until a kernel shows it does not know the flag. */
static int fixed_flag = MAP_FIXED_NOREPLACE;

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

static void __attribute__((noreturn)) die_errno(const char *what)
{
	pc_die_errno(PROG, EXIT_SYSCALL, what);
}

static void parse_args(int argc, char **argv, struct config *cfg)
{
	static const struct option opts[] = {
		{"iterations", required_argument, NULL, 'i'},
		{"size", required_argument, NULL, 's'},
		{"folio", required_argument, NULL, 'f'},
		{"variant", required_argument, NULL, 'v'},
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c, i;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			if (!pc_parse_ulong(optarg, &cfg->iterations) || !cfg->iterations)
				usage_error("--iterations wants a positive integer, not '%s'",
					    optarg);
			break;
		case 's':
			/* The reservation is 4 * size + 2 MiB: keep that from overflowing. */
			if (!pc_parse_size(optarg, SIZE_MAX / 8, &cfg->size))
				usage_error("--size wants BYTES[K|M|G], not '%s'", optarg);
			break;
		case 'f':
			if (!strcmp(optarg, "64k") || !strcmp(optarg, "64K"))
				cfg->folio_kb = 64;
			else if (!strcmp(optarg, "4k") || !strcmp(optarg, "4K"))
				cfg->folio_kb = 4;
			else
				usage_error("--folio wants 64k or 4k, not '%s'", optarg);
			break;
		case 'v':
			for (i = 0; i < NR_VARIANTS; i++)
				if (!strcmp(optarg, variant_names[i]))
					break;
			if (i == NR_VARIANTS)
				usage_error("unknown --variant '%s'", optarg);
			cfg->variant = (enum variant)i;
			break;
		case 'j':
			cfg->json = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			/* getopt_long() has already named the bad option. */
			fprintf(stderr, "Try '" PROG " --help'.\n");
			exit(EXIT_USAGE);
		}
	}
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
	if (cfg->size < SZ_4K || cfg->size % SZ_4K)
		usage_error("--size must be a multiple of 4096 and at least 4096%s", "");
	if (cfg->variant == VAR_PARTIAL && cfg->size <= SZ_16K)
		usage_error("--variant partial needs --size above 16K%s", "");
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts))
		die_errno("clock_gettime(CLOCK_MONOTONIC)");
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* An mTHP knob we cannot change means this machine cannot run the variant. */
static void set_mthp(unsigned int size_kb, int shmem, const char *mode)
{
	const char *file = shmem ? "shmem_enabled" : "enabled";
	int err = pc_mthp_set(size_kb, shmem, mode);

	if (!err)
		return;
	if (err == -ENOENT || err == -EACCES || err == -EPERM || err == -EROFS) {
		fprintf(stderr, PROG ": %u KiB mTHP unavailable here: hugepages-%ukB/%s: %s\n",
			size_kb, size_kb, file, strerror(-err));
		exit(EXIT_CANNOT_RUN);
	}
	fprintf(stderr, PROG ": writing \"%s\" to hugepages-%ukB/%s: %s\n", mode, size_kb, file,
		strerror(-err));
	exit(EXIT_SYSCALL);
}

/*
 * The file is unlinked, and its private directory removed, as soon as it is
 * open: the descriptor keeps it alive, and no exit path (not even SIGKILL)
 * can leave it behind.
 */
static int open_temp_file(size_t size)
{
	const char *tmp = getenv("TMPDIR");
	char dir[PATH_MAX], path[PATH_MAX + 16];
	int fd, err;

	if (!tmp || !*tmp)
		tmp = "/tmp";
	if (snprintf(dir, sizeof(dir), "%s/" PROG ".XXXXXX", tmp) >= (int)sizeof(dir)) {
		errno = ENAMETOOLONG;
		die_errno("temporary directory name");
	}
	if (!mkdtemp(dir))
		die_errno("mkdtemp() in $TMPDIR");
	snprintf(path, sizeof(path), "%s/data", dir);
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	err = errno;
	if (fd >= 0)
		unlink(path);
	rmdir(dir);
	if (fd < 0) {
		errno = err;
		die_errno("creating the temporary file");
	}
	if (ftruncate(fd, (off_t)size))
		die_errno("ftruncate() of the temporary file");
	return fd;
}

/*
 * The base is chosen, not left to the kernel: 2 MiB alignment makes every
 * 64 KiB folio naturally aligned and keeps the layout identical from run to
 * run.  The reservation is dropped again because the reference mremaps into
 * an empty destination; unmapping a placeholder there would be timed too.
 */
static char *choose_base(size_t size)
{
	size_t len = 4 * size + SZ_2M;
	char *res;
	uintptr_t base;

	res = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (res == MAP_FAILED)
		die_errno("mmap() of the address reservation");
	base = ((uintptr_t)res + SZ_2M - 1) & ~(SZ_2M - 1);
	if (munmap(res, len))
		die_errno("munmap() of the address reservation");
	return (char *)base;
}

static char *map_at(char *base, size_t len, int flags, int fd)
{
	char *p;

	p = mmap(base, len, PROT_READ | PROT_WRITE, flags | fixed_flag, fd, 0);
	if (p == MAP_FAILED) {
		if (errno == EEXIST)
			fprintf(stderr,
				PROG ": something else got mapped inside the reserved range\n");
		die_errno("mmap() of the source region");
	}
	if (p != base) {
		/* Before 4.17 the flag is only a hint; the range was ours, so MAP_FIXED is safe. */
		if (munmap(p, len))
			die_errno("munmap() of a misplaced mapping");
		fixed_flag = MAP_FIXED;
		p = mmap(base, len, PROT_READ | PROT_WRITE, flags | fixed_flag, fd, 0);
		if (p == MAP_FAILED)
			die_errno("mmap(MAP_FIXED) of the source region");
	}
	return p;
}

/* Leaves every other page writable and the rest write-protected by fork(). */
static void fork_and_mix(char *p, size_t len)
{
	pid_t pid;
	int status;
	size_t off;

	pid = fork();
	if (pid < 0)
		die_errno("fork()");
	if (pid == 0)
		_exit(0); /* not exit(): the parent owns the settings */
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			die_errno("waitpid()");
	for (off = 0; off < len; off += 2 * SZ_4K)
		p[off] = 2;
}

/* System-wide mTHP counters: a hint of whether 64 KiB folios really formed. */
static long long mthp_stat(const char *name)
{
	char path[128], buf[32];

	snprintf(path, sizeof(path), "/sys/kernel/mm/transparent_hugepage/hugepages-64kB/stats/%s",
		 name);
	if (pc_read_file(path, buf, sizeof(buf)))
		return -1;
	return strtoll(buf, NULL, 10);
}

int main(int argc, char **argv)
{
	struct config cfg = {
		.iterations = 10000,
		.size = SZ_1M,
		.folio_kb = 4,
		.variant = VAR_ALIGNED,
	};
	int map_flags = MAP_PRIVATE | MAP_ANONYMOUS, fd = -1, advice;
	const char *alloc_stat = NULL;
	long long alloc_before = -1, alloc_after = -1;
	uint64_t start, end, t0, t1, mremap_ns = 0;
	size_t src_off = 0, move_len, dst_off;
	unsigned long i;
	char *base;

	parse_args(argc, argv, &cfg);
	if (sysconf(_SC_PAGESIZE) != (long)SZ_4K) {
		fprintf(stderr, PROG ": needs 4 KiB base pages, this kernel uses %ld\n",
			sysconf(_SC_PAGESIZE));
		return EXIT_CANNOT_RUN;
	}

	/* Before anything is changed, so that every exit path restores. */
	pc_settings_install_handlers();
	/* Least privilege (docs/robustness.md): keep what the workload and
	   the undo of its settings need (PFNs, mounts, mlock), shed the rest. */
	errno = -pc_caps_limit_if_privileged(PC_CAPS_SCENARIO);
	if (errno)
		die_errno("dropping capabilities");
	if (cfg.folio_kb == 64) {
		set_mthp(64, 0, "madvise");
		if (cfg.variant == VAR_SHMEM)
			set_mthp(64, 1, "always");
	}
	advice = cfg.folio_kb == 64 ? MADV_HUGEPAGE : MADV_NOHUGEPAGE;

	if (cfg.variant == VAR_SHMEM) {
		map_flags = MAP_SHARED | MAP_ANONYMOUS;
	} else if (cfg.variant == VAR_FILE) {
		map_flags = MAP_SHARED;
		fd = open_temp_file(cfg.size);
	}

	move_len = cfg.size;
	dst_off = cfg.size;
	if (cfg.variant == VAR_MISALIGNED) {
		dst_off = cfg.size + SZ_4K;
	} else if (cfg.variant == VAR_PARTIAL) {
		src_off = SZ_8K;
		move_len = cfg.size - SZ_16K;
		/* Same offset inside the folio at the destination: only the cut folios differ. */
		dst_off = cfg.size + SZ_8K;
	}

	if (cfg.folio_kb == 64 && cfg.variant != VAR_FILE)
		alloc_stat = cfg.variant == VAR_SHMEM ? "shmem_alloc" : "anon_fault_alloc";
	if (alloc_stat)
		alloc_before = mthp_stat(alloc_stat);

	/* Nothing may allocate address space between here and the loop. */
	base = choose_base(cfg.size);
	start = now_ns();
	for (i = 0; i < cfg.iterations; i++) {
		char *p = map_at(base, cfg.size, map_flags, fd), *q;

		/* EINVAL: a kernel without THP has no huge pages to refuse. */
		if (madvise(p, cfg.size, advice) && !(errno == EINVAL && advice == MADV_NOHUGEPAGE))
			die_errno(advice == MADV_HUGEPAGE ? "madvise(MADV_HUGEPAGE)"
							  : "madvise(MADV_NOHUGEPAGE)");
		memset(p, 1, cfg.size);
		if (cfg.variant == VAR_FORK_MIXED)
			fork_and_mix(p, cfg.size);

		t0 = now_ns();
		q = mremap(p + src_off, move_len, move_len, MREMAP_MAYMOVE | MREMAP_FIXED,
			   base + dst_off);
		t1 = now_ns();
		if (q == MAP_FAILED)
			die_errno("mremap(MREMAP_MAYMOVE|MREMAP_FIXED)");
		if (q != base + dst_off) {
			fprintf(stderr, PROG ": mremap() moved to %p, not %p\n", (void *)q,
				(void *)(base + dst_off));
			exit(EXIT_SYSCALL);
		}
		mremap_ns += t1 - t0;

		/* The partial variant leaves the cut ends behind at the source. */
		if (src_off && munmap(p, cfg.size))
			die_errno("munmap() of the source remainder");
		if (munmap(q, move_len))
			die_errno("munmap() of the destination");
	}
	end = now_ns();
	if (alloc_stat)
		alloc_after = mthp_stat(alloc_stat);

	if (cfg.json) {
		printf("{\"workload\":\"mremap_folios\",\"variant\":\"%s\",\"folio\":\"%uk\","
		       "\"size\":%zu,\"iterations\":%lu,\"ns_per_iter\":%.1f,\"total_ns\":%llu,"
		       "\"mremap_ns_per_iter\":%.1f}\n",
		       variant_names[cfg.variant], cfg.folio_kb, cfg.size, cfg.iterations,
		       (double)(end - start) / (double)cfg.iterations,
		       (unsigned long long)(end - start),
		       (double)mremap_ns / (double)cfg.iterations);
	} else {
		printf("mremap_folios: variant=%s folio=%uk size=%zu iterations=%lu: "
		       "%.1f ns/iter (mremap alone %.1f ns), total %.3f s\n",
		       variant_names[cfg.variant], cfg.folio_kb, cfg.size, cfg.iterations,
		       (double)(end - start) / (double)cfg.iterations,
		       (double)mremap_ns / (double)cfg.iterations, (double)(end - start) / 1e9);
		if (alloc_before >= 0 && alloc_after >= 0)
			printf("mremap_folios: 64 KiB folios allocated system-wide during the run "
			       "(%s): %lld\n",
			       alloc_stat, alloc_after - alloc_before);
	}
	if (fflush(stdout))
		die_errno("writing the result");
	if (fd >= 0)
		close(fd);
	return 0;
}
