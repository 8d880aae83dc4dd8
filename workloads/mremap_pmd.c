// SPDX-License-Identifier: GPL-2.0
/*
 * mremap_pmd: the cost of one mremap() of a large PTE-mapped region to a
 * 2 MiB-aligned destination (the kernel can move whole page tables, one
 * PMD entry each) against a destination 4 KiB off (every PTE is moved).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include "cli.h"
#include "workload.h"

#define PROG "mremap_pmd"

#define SZ_4K 0x1000UL
#define SZ_1M 0x100000UL
#define SZ_2M 0x200000UL
#define SZ_1G 0x40000000UL

enum {
	EXIT_SYSCALL = 1,
	EXIT_USAGE = 2,
	EXIT_CANNOT_RUN = PC_WL_EXIT_CANNOT_RUN,
};

/* A bit per destination; --mode's choice i is mode i + 1. */
enum mode {
	MODE_ALIGNED = 1,
	MODE_MISALIGNED = 2,
	MODE_BOTH = MODE_ALIGNED | MODE_MISALIGNED,
};

static const char *const mode_names[] = {"aligned", "misaligned", "both", NULL};

/* The two destinations, as the results name them. */
static const struct dest {
	enum mode bit;
	size_t off; /* from the 2 MiB-aligned destination */
	const char *text;
} dests[] = {
	{MODE_ALIGNED, 0, "aligned    (PMD-level)"},
	{MODE_MISALIGNED, SZ_4K, "misaligned (PTE-level)"},
};
#define NR_DESTS (sizeof(dests) / sizeof(dests[0]))

struct config {
	struct pc_workload wl; /* --iterations, --size, --json */
	enum mode mode;
};

struct stats {
	uint64_t median;
	uint64_t min;
};

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

static void own_opt(int c, char *arg, void *ctx)
{
	struct config *cfg = ctx;

	switch (c) {
	case 'm':
		cfg->mode = (enum mode)(pc_wl_choice("--mode", arg, mode_names) + 1);
		break;
	case 'f':
		if (strcmp(arg, "4k") && strcmp(arg, "4K"))
			usage_error("--folio: only 4k is supported (the region must stay "
				    "PTE-mapped), not '%s'",
				    arg);
		break;
	}
}

static void parse_args(int argc, char **argv, struct config *cfg)
{
	static const struct option opts[] = {
		{"mode", required_argument, NULL, 'm'},
		{"folio", required_argument, NULL, 'f'},
		{NULL, 0, NULL, 0},
	};

	pc_wl_parse(&cfg->wl, argc, argv, opts, own_opt, cfg);
	/* A partial last PMD would be moved PTE by PTE even when aligned. */
	if (!cfg->wl.size || cfg->wl.size % SZ_2M)
		usage_error("--size must be a non-zero multiple of 2 MiB%s", "");
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
		pc_wl_die("sysinfo()");
	return ((uint64_t)si.freeram + si.bufferram) * si.mem_unit;
}

/* One sample: map, populate with 4 KiB pages, time the move alone, unmap. */
static uint64_t time_one_move(char *src, char *dst, size_t size)
{
	uint64_t ns;
	size_t off;
	char *p;

	p = pc_wl_map_at(src, size, MAP_PRIVATE | MAP_ANONYMOUS, -1);
	/* Keeps every THP size away, so only PTEs (and page tables) move. */
	if (madvise(p, size, MADV_NOHUGEPAGE) && errno != EINVAL)
		pc_wl_die("madvise(MADV_NOHUGEPAGE)");
	/* A write, not a read: a read would map the shared zero page. */
	for (off = 0; off < size; off += SZ_4K)
		p[off] = 1;
	ns = pc_wl_timed_move(p, size, dst);
	if (munmap(dst, size))
		pc_wl_die("munmap() of the destination");
	return ns;
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

/* Exits EXIT_CANNOT_RUN unless the region fits twice in available memory. */
static void need_memory(size_t size)
{
	uint64_t avail = available_bytes();

	if (avail / 2 >= size)
		return;
	fprintf(stderr,
		PROG ": needs 2 * size = %zu MiB of available memory, MemAvailable is "
		     "%llu MiB; try a smaller --size\n",
		2 * size / SZ_1M, (unsigned long long)(avail / SZ_1M));
	exit(EXIT_CANNOT_RUN);
}

/* Per destination the mode asks for: the median and minimum ns of its moves. */
static void measure(const struct config *cfg, struct stats st[NR_DESTS])
{
	unsigned long n = cfg->wl.iterations, i;
	uint64_t *samples[NR_DESTS];
	char *base, *dst;
	size_t d;

	/* Allocated before the free range is chosen: nothing may map memory after it. */
	for (d = 0; d < NR_DESTS; d++) {
		samples[d] = calloc(n, sizeof(*samples[d]));
		if (!samples[d])
			pc_wl_die("calloc() of the samples");
	}
	/* src and the aligned destination are 2 MiB aligned; the 2 MiB gap keeps
	   them apart and leaves room for the +4 KiB destination. */
	base = pc_wl_free_range(2 * cfg->wl.size + 2 * SZ_2M, SZ_2M);
	dst = base + cfg->wl.size + SZ_2M;
	/* Interleaved, so drift (other load, memory fragmentation) hits both modes alike. */
	for (i = 0; i < n; i++)
		for (d = 0; d < NR_DESTS; d++)
			if (cfg->mode & dests[d].bit)
				samples[d][i] =
					time_one_move(base, dst + dests[d].off, cfg->wl.size);
	for (d = 0; d < NR_DESTS; d++) {
		st[d] = (struct stats){0};
		if (cfg->mode & dests[d].bit)
			st[d] = summarize(samples[d], n);
		free(samples[d]);
	}
}

static void print_result(const struct config *cfg, const struct stats st[NR_DESTS])
{
	double ratio = 0;
	size_t d;

	if (cfg->mode == MODE_BOTH && st[0].median)
		ratio = (double)st[1].median / (double)st[0].median;
	if (cfg->wl.json) {
		pc_wl_json_begin();
		printf(",\"mode\":\"%s\",\"folio\":\"4k\",\"size\":%zu,\"iterations\":%lu",
		       mode_names[cfg->mode - 1], cfg->wl.size, cfg->wl.iterations);
	} else {
		printf(PROG ": size=%zu folio=4k iterations=%lu (ns per mremap call)\n",
		       cfg->wl.size, cfg->wl.iterations);
	}
	for (d = 0; d < NR_DESTS; d++) {
		if (!(cfg->mode & dests[d].bit))
			continue;
		if (cfg->wl.json)
			printf(",\"%s_median_ns\":%llu,\"%s_min_ns\":%llu", mode_names[d],
			       (unsigned long long)st[d].median, mode_names[d],
			       (unsigned long long)st[d].min);
		else
			printf("  %s: median %llu ns, min %llu ns\n", dests[d].text,
			       (unsigned long long)st[d].median, (unsigned long long)st[d].min);
	}
	if (cfg->mode == MODE_BOTH && cfg->wl.json)
		printf(",\"ratio_misaligned_aligned\":%.2f", ratio);
	else if (cfg->mode == MODE_BOTH)
		printf("  ratio misaligned/aligned (medians): %.2f\n", ratio);
	if (cfg->wl.json)
		printf("}\n");
}

int main(int argc, char **argv)
{
	static struct config cfg = {
		.wl = {.prog = PROG,
		       .error_exit = EXIT_SYSCALL,
		       .usage = usage,
		       /* The reservation is 2 * size + 6 MiB: keep that from overflowing. */
		       .size_max = SIZE_MAX / 4,
		       .iterations = 10,
		       .size = SZ_1G},
		.mode = MODE_BOTH,
	};
	struct stats st[NR_DESTS];

	parse_args(argc, argv, &cfg);
	pc_wl_need_4k_pages();
	need_memory(cfg.wl.size);
	/* Nothing is changed today; started so a future setting is restored too. */
	pc_wl_start();
	measure(&cfg, st);
	print_result(&cfg, st);
	pc_wl_flush();
	return 0;
}
