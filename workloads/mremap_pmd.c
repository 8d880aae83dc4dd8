// SPDX-License-Identifier: GPL-2.0
/*
 * mremap_pmd: the cost of one mremap() of a large PTE-mapped region to a
 * 2 MiB-aligned destination (the kernel can move whole page tables, one
 * PMD entry each) against a destination 4 KiB off (every PTE is moved).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sysinfo.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "privilege.h"
#include "settings.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

#define PROG "mremap_pmd"

#define SZ_4K 0x1000UL
#define SZ_1M 0x100000UL
#define SZ_2M 0x200000UL
#define SZ_1G 0x40000000UL

enum {
	EXIT_SYSCALL = 1,
	EXIT_USAGE = 2,
	EXIT_CANNOT_RUN = 4,
};

enum mode {
	MODE_ALIGNED = 1,
	MODE_MISALIGNED = 2,
	MODE_BOTH = MODE_ALIGNED | MODE_MISALIGNED,
};

struct config {
	unsigned long iterations;
	size_t size;
	enum mode mode;
	bool json;
};

struct stats {
	uint64_t median;
	uint64_t min;
};

static int fixed_flag = MAP_FIXED_NOREPLACE;

static void usage(FILE *out)
{
	fprintf(out, "Usage: " PROG " [options]\n"
		     "\n"
		     "Times one mremap(MREMAP_MAYMOVE|MREMAP_FIXED) of a PTE-mapped region to\n"
		     "a 2 MiB-aligned destination, where the kernel can move a whole page\n"
		     "table per PMD entry, and to the same destination + 4 KiB, where it must\n"
		     "move every PTE.  Each iteration maps the region, writes one byte per\n"
		     "4 KiB page, times only the mremap() call, and unmaps it.\n"
		     "\n"
		     "Options:\n"
		     "  --size BYTES       region size, K/M/G suffixes allowed, a multiple of\n"
		     "                     2 MiB (default 1G).  Needs 2 * size of MemAvailable.\n"
		     "  --mode M           aligned, misaligned or both (default both)\n"
		     "  --iterations N     mremap calls per mode (default 10)\n"
		     "  --folio 4k         the only choice: the region gets MADV_NOHUGEPAGE so it\n"
		     "                     stays mapped by 4 KiB PTEs.  A PMD-mapped THP would\n"
		     "                     be moved as a huge PMD (aligned) or split\n"
		     "                     (misaligned), which is a different path.\n"
		     "  --json             print one JSON object line instead of text\n"
		     "  --help             this text\n"
		     "\n"
		     "Prints, per mode, the median and the minimum ns per mremap() call and,\n"
		     "for both, the ratio misaligned/aligned of the medians.  No system\n"
		     "setting is changed.\n"
		     "\n"
		     "Exit status: 0 ok, 1 a system call failed, 2 usage, 4 cannot run here\n"
		     "(e.g. not enough available memory).\n"
		     "\n"
		     "Examples:\n"
		     "  " PROG "                           # 1 GiB, both modes\n"
		     "  " PROG " --size 64M --iterations 5 --json\n"
		     "  " PROG " --mode misaligned --size 256M\n");
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
		{"mode", required_argument, NULL, 'm'},
		{"folio", required_argument, NULL, 'f'},
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			if (!pc_parse_ulong(optarg, &cfg->iterations) || !cfg->iterations)
				usage_error("--iterations wants a positive integer, not '%s'",
					    optarg);
			break;
		case 's':
			/* The reservation is 2 * size + 6 MiB: keep that from overflowing. */
			if (!pc_parse_size(optarg, SIZE_MAX / 4, &cfg->size))
				usage_error("--size wants BYTES[K|M|G], not '%s'", optarg);
			break;
		case 'm':
			if (!strcmp(optarg, "aligned"))
				cfg->mode = MODE_ALIGNED;
			else if (!strcmp(optarg, "misaligned"))
				cfg->mode = MODE_MISALIGNED;
			else if (!strcmp(optarg, "both"))
				cfg->mode = MODE_BOTH;
			else
				usage_error("--mode wants aligned, misaligned or both, not '%s'",
					    optarg);
			break;
		case 'f':
			if (strcmp(optarg, "4k") && strcmp(optarg, "4K"))
				usage_error("--folio: only 4k is supported (the region must stay "
					    "PTE-mapped), not '%s'",
					    optarg);
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
	/* A partial last PMD would be moved PTE by PTE even when aligned. */
	if (!cfg->size || cfg->size % SZ_2M)
		usage_error("--size must be a non-zero multiple of 2 MiB%s", "");
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts))
		die_errno("clock_gettime(CLOCK_MONOTONIC)");
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* MemAvailable counts reclaimable cache; sysinfo() is the fallback for old kernels. */
static uint64_t available_bytes(void)
{
	char line[256];
	unsigned long long kb;
	struct sysinfo si;
	FILE *f;

	f = fopen("/proc/meminfo", "re");
	if (f) {
		while (fgets(line, sizeof(line), f)) {
			if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) {
				fclose(f);
				return (uint64_t)kb * 1024;
			}
		}
		fclose(f);
	}
	if (sysinfo(&si))
		die_errno("sysinfo()");
	return ((uint64_t)si.freeram + si.bufferram) * si.mem_unit;
}

/*
 * src and the aligned destination are 2 MiB aligned; the 2 MiB gap keeps
 * them apart and leaves room for the +4 KiB destination.  The reservation is
 * dropped so that mremap() never has to unmap a placeholder in the timing.
 */
static char *choose_base(size_t size)
{
	size_t len = 2 * size + 3 * SZ_2M;
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

static char *map_at(char *base, size_t len)
{
	const int flags = MAP_PRIVATE | MAP_ANONYMOUS;
	char *p;

	p = mmap(base, len, PROT_READ | PROT_WRITE, flags | fixed_flag, -1, 0);
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
		p = mmap(base, len, PROT_READ | PROT_WRITE, flags | fixed_flag, -1, 0);
		if (p == MAP_FAILED)
			die_errno("mmap(MAP_FIXED) of the source region");
	}
	return p;
}

/* One sample: map, populate with 4 KiB pages, time the move alone, unmap. */
static uint64_t time_one_move(char *src, char *dst, size_t size)
{
	uint64_t t0, t1;
	size_t off;
	char *p, *q;

	p = map_at(src, size);
	/* Keeps every THP size away, so only PTEs (and page tables) move. */
	if (madvise(p, size, MADV_NOHUGEPAGE) && errno != EINVAL)
		die_errno("madvise(MADV_NOHUGEPAGE)");
	/* A write, not a read: a read would map the shared zero page. */
	for (off = 0; off < size; off += SZ_4K)
		p[off] = 1;

	t0 = now_ns();
	q = mremap(p, size, size, MREMAP_MAYMOVE | MREMAP_FIXED, dst);
	t1 = now_ns();
	if (q == MAP_FAILED)
		die_errno("mremap(MREMAP_MAYMOVE|MREMAP_FIXED)");
	if (q != dst) {
		fprintf(stderr, PROG ": mremap() moved to %p, not %p\n", (void *)q, (void *)dst);
		exit(EXIT_SYSCALL);
	}
	if (munmap(q, size))
		die_errno("munmap() of the destination");
	return t1 - t0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static struct stats summarize(uint64_t *samples, unsigned long n)
{
	struct stats st;

	qsort(samples, n, sizeof(*samples), cmp_u64);
	st.min = samples[0];
	st.median = n % 2 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
	return st;
}

int main(int argc, char **argv)
{
	struct config cfg = {
		.iterations = 10,
		.size = SZ_1G,
		.mode = MODE_BOTH,
	};
	uint64_t *aligned_ns, *misaligned_ns, avail;
	struct stats al = {0}, mis = {0};
	char *base, *dst;
	unsigned long i;
	double ratio = 0;

	parse_args(argc, argv, &cfg);
	if (sysconf(_SC_PAGESIZE) != (long)SZ_4K) {
		fprintf(stderr, PROG ": needs 4 KiB base pages, this kernel uses %ld\n",
			sysconf(_SC_PAGESIZE));
		return EXIT_CANNOT_RUN;
	}
	avail = available_bytes();
	if (avail / 2 < cfg.size) {
		fprintf(stderr,
			PROG ": needs 2 * size = %zu MiB of available memory, MemAvailable is "
			     "%llu MiB; try a smaller --size\n",
			2 * cfg.size / SZ_1M, (unsigned long long)(avail / SZ_1M));
		return EXIT_CANNOT_RUN;
	}

	/* Nothing is changed today; installed so a future setting is restored too. */
	pc_settings_install_handlers();
	/* Least privilege (docs/robustness.md): keep what the workload and
	   the undo of its settings need (PFNs, mounts, mlock), shed the rest. */
	errno = -pc_caps_limit_if_privileged(PC_CAPS_SCENARIO);
	if (errno)
		die_errno("dropping capabilities");

	/* Allocated before choose_base(): nothing may map memory after it. */
	aligned_ns = calloc(cfg.iterations, sizeof(*aligned_ns));
	misaligned_ns = calloc(cfg.iterations, sizeof(*misaligned_ns));
	if (!aligned_ns || !misaligned_ns)
		die_errno("calloc() of the samples");

	base = choose_base(cfg.size);
	dst = base + cfg.size + SZ_2M;
	/* Interleaved, so drift (other load, memory fragmentation) hits both modes alike. */
	for (i = 0; i < cfg.iterations; i++) {
		if (cfg.mode & MODE_ALIGNED)
			aligned_ns[i] = time_one_move(base, dst, cfg.size);
		if (cfg.mode & MODE_MISALIGNED)
			misaligned_ns[i] = time_one_move(base, dst + SZ_4K, cfg.size);
	}
	if (cfg.mode & MODE_ALIGNED)
		al = summarize(aligned_ns, cfg.iterations);
	if (cfg.mode & MODE_MISALIGNED)
		mis = summarize(misaligned_ns, cfg.iterations);
	if (cfg.mode == MODE_BOTH && al.median)
		ratio = (double)mis.median / (double)al.median;

	if (cfg.json) {
		printf("{\"workload\":\"mremap_pmd\",\"mode\":\"%s\",\"folio\":\"4k\",\"size\":%zu,"
		       "\"iterations\":%lu",
		       cfg.mode == MODE_BOTH	  ? "both"
		       : cfg.mode == MODE_ALIGNED ? "aligned"
						  : "misaligned",
		       cfg.size, cfg.iterations);
		if (cfg.mode & MODE_ALIGNED)
			printf(",\"aligned_median_ns\":%llu,\"aligned_min_ns\":%llu",
			       (unsigned long long)al.median, (unsigned long long)al.min);
		if (cfg.mode & MODE_MISALIGNED)
			printf(",\"misaligned_median_ns\":%llu,\"misaligned_min_ns\":%llu",
			       (unsigned long long)mis.median, (unsigned long long)mis.min);
		if (cfg.mode == MODE_BOTH)
			printf(",\"ratio_misaligned_aligned\":%.2f", ratio);
		printf("}\n");
	} else {
		printf("mremap_pmd: size=%zu folio=4k iterations=%lu (ns per mremap call)\n",
		       cfg.size, cfg.iterations);
		if (cfg.mode & MODE_ALIGNED)
			printf("  aligned    (PMD-level): median %llu ns, min %llu ns\n",
			       (unsigned long long)al.median, (unsigned long long)al.min);
		if (cfg.mode & MODE_MISALIGNED)
			printf("  misaligned (PTE-level): median %llu ns, min %llu ns\n",
			       (unsigned long long)mis.median, (unsigned long long)mis.min);
		if (cfg.mode == MODE_BOTH)
			printf("  ratio misaligned/aligned (medians): %.2f\n", ratio);
	}
	if (fflush(stdout))
		die_errno("writing the result");
	free(aligned_ns);
	free(misaligned_ns);
	return 0;
}
