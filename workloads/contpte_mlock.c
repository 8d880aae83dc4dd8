// SPDX-License-Identifier: GPL-2.0
/*
 * contpte_mlock: the mlock reference loop for arm64 contiguous PTEs.  Fill a
 * buffer of 64 KiB anonymous folios (mTHP), then N times: mlock it, read and
 * write one byte per page, munlock it.  On arm64 each 64 KiB folio is 16
 * PTEs with the CONT bit, and mlock/munlock walk them in batches.  Reports
 * the time per iteration and how many 64 KiB folios formed.
 *
 * --pattern NAME instead puts one pattern of access/dirty bits into every
 * other 16-entry block (as the contpte suite's scenarios do), reclaims with
 * MADV_PAGEOUT and verifies that every byte written survived.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <ptecheck/contpte_patterns.h>

#include "procmm.h"
#include "cli.h"
#include "settings.h"
#include "workload.h"

#ifndef MADV_COLD
#define MADV_COLD 20
#endif
#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif

#define PROG "contpte_mlock"

#define SZ_4K  0x1000UL
#define SZ_64K 0x10000UL
#define SZ_1M  0x100000UL
#define CONT   16 /* PTEs per 64 KiB block with 4 KiB pages */

/* The patterns' encoding (ptecheck/contpte_patterns.h). */
#define NONE PC_CP_NONE
#define ALL  PC_CP_ALL

enum {
	EXIT_DATA = 1, /* --pattern or the loop read back other bytes */
	EXIT_USAGE = 2,
	EXIT_SYSCALL = 3,
	EXIT_CANNOT_RUN = PC_WL_EXIT_CANNOT_RUN,
};

struct pattern {
	const char *name;
	int dirty; /* entry written after MADV_FREE: 0..15, ALL or NONE */
	int young; /* entry young at the check: 0..15, ALL or NONE */
};

/* The contpte suite's patterns, one per scenario of verify/contpte.c. */
static const struct pattern patterns[] = {
#define PATTERN(name, dirty, young, what) {name, dirty, young},
	PC_CONTPTE_PATTERNS(PATTERN)
#undef PATTERN
};
#define NR_PATTERNS (sizeof(patterns) / sizeof(patterns[0]))

struct config {
	struct pc_workload wl; /* --iterations, --size, --json */
	size_t align;
	const struct pattern *pattern;
	unsigned int folio_kb; /* 64, or 4: the baseline of `ptecheck bench` */
};

static void usage(FILE *out)
{
	fprintf(out, "Usage: " PROG " [options]\n"
		     "\n"
		     "The mlock loop over 64 KiB folios (arm64: contiguous PTEs).  Sets\n"
		     "hugepages-64kB/enabled to \"madvise\" (and hugepages-2048kB/enabled to\n"
		     "\"never\", so PMD THPs do not take the folios' place), allocates SIZE\n"
		     "bytes with posix_memalign(), MADV_HUGEPAGE, touches every page, then\n"
		     "ITERATIONS times: mlock, read and write one byte per page, munlock.\n"
		     "Prints the time per iteration (mean, median) and how many 64 KiB folios\n"
		     "formed (pagemap + /proc/kpageflags as root; else why not), and verifies\n"
		     "every byte at the end.\n"
		     "\n"
		     "Options:\n"
		     "  --size BYTES     buffer size, K/M/G suffixes, a multiple of 64K\n"
		     "                   (default 256M)\n"
		     "  --iterations N   loop count (default 500)\n"
		     "  --align A        page: posix_memalign to 4 KiB (the buffer's ends cut\n"
		     "                   folios; default); 64k: to 64 KiB\n"
		     "  --pattern NAME   instead of the loop: put one access pattern into\n"
		     "                   every other 64 KiB block (MADV_FREE, clear_refs, then\n"
		     "                   write/read the entries named), reclaim with\n"
		     "                   MADV_PAGEOUT and verify that every written byte\n"
		     "                   survived.  NAME: dirty-K, young-K (K = 0, 1, 7, 15),\n"
		     "                   dirty-7-young-1, dirty-1-young-7, dirty-15-young-0,\n"
		     "                   dirty-0-young-15, dirty-young-7, all-clean,\n"
		     "                   all-young-dirty\n"
		     "  --folio 64k|4k   64k: the above (default); 4k: change no setting and\n"
		     "                   MADV_NOHUGEPAGE the buffer, so it stays 4 KiB pages\n"
		     "                   (the baseline the 64 KiB loop is compared with)\n"
		     "  --json           print one JSON object line instead of text\n"
		     "  --help           this text\n"
		     "\n"
		     "Every sysfs setting changed is restored on exit, including on SIGINT,\n"
		     "SIGTERM, SIGHUP and SIGQUIT.  PTECHECK_SYSFS_ROOT (default /sys) moves\n"
		     "the mTHP files, for tests.\n"
		     "\n"
		     "Exit status: 0 ok, 1 data read back differs from what was written,\n"
		     "2 usage, 3 a system call failed, 4 cannot run here (no 64 KiB mTHP,\n"
		     "not root, mlock refused).\n"
		     "\n"
		     "Examples:\n"
		     "  " PROG "                                # the reference loop\n"
		     "  " PROG " --align 64k --iterations 100 --json\n"
		     "  " PROG " --size 16M --pattern dirty-7-young-1\n");
}

/* Exits EXIT_USAGE (2) with the message and a pointer to --help. */
#define usage_error(...) pc_usage_error(PROG, __VA_ARGS__)

static void __attribute__((noreturn)) cannot_run(const char *what)
{
	fprintf(stderr, PROG ": cannot run here: %s\n", what);
	exit(EXIT_CANNOT_RUN);
}

static const char *const align_choices[] = {"page|4k|4K", "64k|64K", NULL};

static void own_opt(int c, char *arg, void *ctx)
{
	struct config *cfg = ctx;
	size_t i;

	switch (c) {
	case 'a':
		cfg->align = pc_wl_choice("--align", arg, align_choices) ? SZ_64K : SZ_4K;
		break;
	case 'p':
		for (i = 0; i < NR_PATTERNS; i++)
			if (!strcmp(arg, patterns[i].name))
				break;
		if (i == NR_PATTERNS)
			usage_error("unknown --pattern '%s' (see --help)", arg);
		cfg->pattern = &patterns[i];
		break;
	case 'f':
		cfg->folio_kb = pc_wl_folio_kb(arg);
		break;
	}
}

static void parse_args(int argc, char **argv, struct config *cfg)
{
	static const struct option opts[] = {
		{"align", required_argument, NULL, 'a'},
		{"pattern", required_argument, NULL, 'p'},
		{"folio", required_argument, NULL, 'f'},
		{NULL, 0, NULL, 0},
	};

	pc_wl_parse(&cfg->wl, argc, argv, opts, own_opt, cfg);
	if (cfg->pattern && cfg->wl.size < 4 * SZ_64K)
		usage_error("--pattern needs --size of at least 256K%s", "");
	if (cfg->pattern && cfg->folio_kb != 64)
		usage_error("--pattern needs 64 KiB folios (not --folio 4k)%s", "");
}

static __u8 pat(size_t page, __u8 salt)
{
	__u8 b = (__u8)(page * 31 + salt);

	return b ? b : 1;
}

#define SALT_A 0x11
#define SALT_B 0x77

/* ---- folio census --------------------------------------------------------- */

struct census {
	long folios_64k; /* -1: not counted, see why */
	long folios_pmd;
	long small_pages;
	const char *why;
	long long stat_delta; /* hugepages-64kB/stats/anon_fault_alloc, -1 unknown */
};

/* 64 KiB folios: 16 present pages, PFNs in a row from a 16-aligned one, order 4. */
static void count_folios(const char *p, size_t size, struct census *c)
{
	size_t n = size / SZ_4K;
	__u64 *pm = calloc(n, sizeof(*pm)), *pfn = calloc(n, sizeof(*pfn));
	__u32 *order = calloc(n, sizeof(*order));
	int err;

	c->folios_64k = c->folios_pmd = c->small_pages = -1;
	if (!pm || !pfn || !order) {
		c->why = "out of memory for the pagemap";
		goto out;
	}
	err = pc_pagemap_read(0, (__u64)(uintptr_t)p, n, pm);
	if (err) {
		c->why = "/proc/self/pagemap unreadable";
		goto out;
	}
	if (!pc_pagemap_pfns_visible(pm, n)) {
		c->why = "PFNs hidden by pagemap (not root)";
		goto out;
	}
	if (access("/proc/kpageflags", R_OK)) {
		c->why = "/proc/kpageflags not readable (not root)";
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		pfn[i] = (pm[i] & PC_PM_PRESENT) ? pm[i] & PC_PM_PFN_MASK : 0;
	err = pc_folio_orders(pfn, n, order);
	if (err) {
		c->why = "kpageflags walk failed (a folio changed meanwhile)";
		goto out;
	}
	c->folios_64k = c->folios_pmd = c->small_pages = 0;
	for (size_t i = 0; i < n; i++) {
		bool ok = pfn[i] && pfn[i] % CONT == 0 && i + CONT <= n;

		for (size_t k = 0; ok && k < CONT; k++)
			ok = pfn[i + k] == pfn[i] + k && order[i + k] == 4;
		if (ok) {
			c->folios_64k++;
			i += CONT - 1;
			continue;
		}
		if (order[i] == 9 && pfn[i] % 512 == 0)
			c->folios_pmd++;
		else if (order[i] == 0)
			c->small_pages++;
	}
	c->why = NULL;
out:
	free(pm);
	free(pfn);
	free(order);
}

/* ---- the setup shared by both modes ------------------------------------- */

/* 64 KiB anonymous folios, and no PMD-sized THP to take their place. */
static void want_64k_folios(void)
{
	int err = pc_wl_mthp_set(64, 0, "madvise");

	if (err == -ENOENT)
		cannot_run("no 64 KiB anonymous mTHP in this kernel (hugepages-64kB missing)");
	if (err) {
		fprintf(stderr, PROG ": cannot run here: hugepages-64kB/enabled: %s\n",
			strerror(-err));
		exit(EXIT_CANNOT_RUN);
	}
	/* Absent is fine: no PMD THPs then either. */
	err = pc_mthp_set(2048, 0, "never");
	if (err && err != -ENOENT) {
		errno = -err;
		pc_wl_die("writing \"never\" to hugepages-2048kB/enabled");
	}
}

static char *setup(const struct config *cfg)
{
	void *p = NULL;
	int err;

	pc_wl_need_4k_pages();
	pc_wl_start();
	if (cfg->folio_kb == 64)
		want_64k_folios();
	err = posix_memalign(&p, cfg->align, cfg->wl.size);
	if (err) {
		errno = err;
		pc_wl_die("posix_memalign()");
	}
	if (cfg->folio_kb == 64) {
		if (madvise(p, cfg->wl.size, MADV_HUGEPAGE))
			pc_wl_die("madvise(MADV_HUGEPAGE)");
	} else if (madvise(p, cfg->wl.size, MADV_NOHUGEPAGE) && errno != EINVAL) {
		/* EINVAL: a kernel without THP has no huge pages to refuse. */
		pc_wl_die("madvise(MADV_NOHUGEPAGE)");
	}
	return p;
}

/* ---- the mlock loop ----------------------------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void mlock_or_die(char *p, size_t size, bool lock)
{
	if (!(lock ? mlock(p, size) : munlock(p, size)))
		return;
	if (lock && (errno == EPERM || errno == ENOMEM || errno == EAGAIN)) {
		fprintf(stderr, PROG ": cannot run here: mlock(%zu bytes): %s (RLIMIT_MEMLOCK?)\n",
			size, strerror(errno));
		exit(EXIT_CANNOT_RUN);
	}
	pc_wl_die(lock ? "mlock()" : "munlock()");
}

static void print_census(const struct config *cfg, const struct census *c, bool json)
{
	if (json) {
		if (c->folios_64k >= 0)
			printf(",\"folios_64k\":%ld,\"folios_pmd\":%ld,\"small_pages\":%ld",
			       c->folios_64k, c->folios_pmd, c->small_pages);
		else
			printf(",\"folios_64k\":null,\"folios_why\":\"%s\"", c->why);
		printf(",\"mthp_64k_allocs\":%lld", c->stat_delta);
		return;
	}
	if (c->folios_64k >= 0)
		printf(PROG ": %ld of %zu possible 64 KiB folios formed (%ld PMD THPs, %ld small "
			    "pages)\n",
		       c->folios_64k, cfg->wl.size / SZ_64K, c->folios_pmd, c->small_pages);
	else
		printf(PROG ": 64 KiB folios not counted: %s; system-wide 64 KiB allocations "
			    "during the fill: %lld\n",
		       c->why, c->stat_delta);
}

static int run_loop(const struct config *cfg, char *p)
{
	size_t npages = cfg->wl.size / SZ_4K, bad = 0;
	uint64_t *t = calloc(cfg->wl.iterations, sizeof(*t)), sum = 0, t0;
	const char *root = getenv("PTECHECK_SYSFS_ROOT");
	long long before = pc_wl_mthp64_stat(root, "anon_fault_alloc"), after;
	struct census c;

	if (!t)
		pc_wl_die("calloc()");
	for (size_t i = 0; i < npages; i++)
		p[i * SZ_4K] = (char)pat(i, SALT_A);
	after = pc_wl_mthp64_stat(root, "anon_fault_alloc");
	c.stat_delta = before >= 0 && after >= 0 ? after - before : -1;
	count_folios(p, cfg->wl.size, &c);

	for (unsigned long it = 0; it < cfg->wl.iterations; it++) {
		t0 = pc_wl_now_ns();
		mlock_or_die(p, cfg->wl.size, true);
		for (size_t i = 0; i < npages; i++) {
			volatile char *q = p + i * SZ_4K;

			*q = (char)(*q + 1);
		}
		mlock_or_die(p, cfg->wl.size, false);
		t[it] = pc_wl_now_ns() - t0;
		sum += t[it];
	}
	for (size_t i = 0; i < npages; i++)
		bad += (__u8)p[i * SZ_4K] != (__u8)(pat(i, SALT_A) + cfg->wl.iterations);
	qsort(t, cfg->wl.iterations, sizeof(*t), cmp_u64);

	if (cfg->wl.json) {
		pc_wl_json_begin();
		printf(",\"mode\":\"mlock\",\"folio\":\"%uk\","
		       "\"align\":%zu,\"size\":%zu,\"iterations\":%lu,\"mean_ns\":%.1f,"
		       "\"median_ns\":%llu,\"bytes_lost\":%zu",
		       cfg->folio_kb, cfg->align, cfg->wl.size, cfg->wl.iterations,
		       (double)sum / cfg->wl.iterations,
		       (unsigned long long)t[cfg->wl.iterations / 2], bad);
		print_census(cfg, &c, true);
		printf("}\n");
	} else {
		printf(PROG
		       ": folio=%uk align=%s size=%zu iterations=%lu: mlock+r/w+munlock %.1f us "
		       "mean, %.1f us median per iteration\n",
		       cfg->folio_kb, cfg->align == SZ_64K ? "64k" : "page", cfg->wl.size,
		       cfg->wl.iterations, (double)sum / cfg->wl.iterations / 1e3,
		       (double)t[cfg->wl.iterations / 2] / 1e3);
		print_census(cfg, &c, false);
		printf(PROG ": %zu of %zu pages read back other bytes than written\n", bad, npages);
	}
	free(t);
	pc_wl_flush();
	return bad ? EXIT_DATA : 0;
}

/* ---- one access pattern ------------------------------------------------------ */

static void madvise_or_die(char *p, size_t len, int advice, const char *name)
{
	if (!madvise(p, len, advice))
		return;
	if (errno == EINVAL) {
		fprintf(stderr, PROG ": cannot run here: %s unsupported by this kernel\n", name);
		exit(EXIT_CANNOT_RUN);
	}
	pc_wl_die(name);
}

/* PROT_READ and back: rewrites every block from its gathered bits, flushes the TLB. */
static void bounce(char *p, size_t len)
{
	if (mprotect(p, len, PROT_READ) || mprotect(p, len, PROT_READ | PROT_WRITE))
		pc_wl_die("mprotect()");
}

static long long referenced_pages(const char *p, size_t len)
{
	__u64 addr = (__u64)(uintptr_t)p, end = addr + len, kb = 0;

	while (addr < end) {
		struct pc_smaps sm;

		if (pc_smaps_read(0, addr, &sm) || sm.end <= addr)
			return -1;
		kb += sm.referenced_kb;
		addr = sm.end;
	}
	return (long long)(kb / 4);
}

/* What one pattern did and what survived it. */
struct pattern_result {
	size_t nblocks, written, lost, garbage, controls, discarded, touched;
	long long ref_idle, ref_after; /* smaps Referenced pages, -1: not read */
};

/* From MADV_FREE to the touches: the pattern's dirty and young entries. */
static void apply_pattern(const struct config *cfg, char *p, char *first, struct pattern_result *r)
{
	const struct pattern *pt = cfg->pattern;
	bool cold = pt->dirty >= 0 && pt->dirty < CONT && pt->young != pt->dirty;
	int err;

	madvise_or_die(p, cfg->wl.size, MADV_FREE, "MADV_FREE");
	err = pc_clear_refs();
	if (err) {
		errno = -err;
		pc_wl_die("writing /proc/self/clear_refs");
	}
	bounce(p, cfg->wl.size); /* clear_refs does not flush the TLB */
	if (!cold)
		r->ref_idle = referenced_pages(p, cfg->wl.size);
	for (size_t b = 0; b < r->nblocks; b += 2)
		for (int k = 0; k < CONT; k++)
			if (pt->dirty == ALL || pt->dirty == k)
				memset(first + (b * CONT + k) * SZ_4K, pat(b * CONT + k, SALT_B),
				       SZ_4K);
	if (cold) {
		/* The write set young too: take it back, keep dirty. */
		madvise_or_die(p, cfg->wl.size, MADV_COLD, "MADV_COLD");
		r->ref_idle = referenced_pages(p, cfg->wl.size);
	}
	for (size_t b = 0; b < r->nblocks && pt->young != NONE; b += 2)
		for (int k = 0; k < CONT; k++)
			if (pt->young == ALL || pt->young == k) {
				(void)*(volatile char *)(first + (b * CONT + k) * SZ_4K + 100);
				r->touched++;
			}
	if (pt->young != NONE) {
		bounce(p, cfg->wl.size);
		r->ref_after = referenced_pages(p, cfg->wl.size);
	}
}

/* After MADV_PAGEOUT: every written page kept, every clean one old or zero. */
static void check_pattern(const struct pattern *pt, const char *first, struct pattern_result *r)
{
	for (size_t b = 0; b < r->nblocks; b++) {
		bool pattern = b % 2 == 0, zero = true;

		for (int k = 0; k < CONT; k++) {
			const __u8 *q = (const __u8 *)first + (b * CONT + k) * SZ_4K;
			bool w = pattern && (pt->dirty == ALL || pt->dirty == k);
			__u8 want = w		? pat(b * CONT + k, SALT_B)
				    : q[0] == 0 ? 0
						: pat(b * CONT + k, SALT_A);
			size_t j;

			for (j = 0; j < SZ_4K && q[j] == want; j++)
				;
			zero = zero && !w && want == 0 && j == SZ_4K;
			r->written += w;
			if (j < SZ_4K) {
				if (w)
					r->lost++;
				else
					r->garbage++;
			}
		}
		if (!pattern || pt->dirty == NONE) {
			r->controls++;
			r->discarded += zero;
		}
	}
}

static void print_pattern(const struct config *cfg, const struct pattern_result *r,
			  const struct census *c)
{
	const struct pattern *pt = cfg->pattern;

	if (cfg->wl.json) {
		pc_wl_json_begin();
		printf(",\"mode\":\"pattern\",\"pattern\":\"%s\","
		       "\"align\":%zu,\"size\":%zu,\"blocks\":%zu,\"pages_written\":%zu,"
		       "\"pages_lost\":%zu,\"pages_garbled\":%zu,\"controls\":%zu,"
		       "\"controls_discarded\":%zu,\"touched\":%zu,\"referenced_before\":%lld,"
		       "\"referenced_after\":%lld",
		       pt->name, cfg->align, cfg->wl.size, r->nblocks, r->written, r->lost,
		       r->garbage, r->controls, r->discarded, r->touched, r->ref_idle,
		       r->ref_after);
		print_census(cfg, c, true);
		printf("}\n");
		return;
	}
	printf(PROG ": pattern %s over %zu blocks: %zu pages redirtied after MADV_FREE, "
		    "%zu lost after MADV_PAGEOUT; %zu clean pages neither old nor zero\n",
	       pt->name, r->nblocks, r->written, r->lost, r->garbage);
	printf(PROG ": control: %zu of %zu clean blocks discarded%s\n", r->discarded, r->controls,
	       r->discarded ? "" : " (a lost dirty bit could not have shown)");
	if (pt->young != NONE)
		printf(PROG ": smaps Referenced: %lld pages before the touches, %lld after "
			    "(%zu touched)\n",
		       r->ref_idle, r->ref_after, r->touched);
	print_census(cfg, c, false);
}

static int run_pattern(const struct config *cfg, char *p)
{
	char *first = (char *)(((uintptr_t)p + SZ_64K - 1) & ~(SZ_64K - 1));
	struct pattern_result r = {
		.nblocks = (size_t)(p + cfg->wl.size - first) / SZ_64K,
		.ref_idle = -1,
		.ref_after = -1,
	};
	struct census c;

	for (size_t i = 0; i < r.nblocks * CONT; i++)
		memset(first + i * SZ_4K, pat(i, SALT_A), SZ_4K);
	c.stat_delta = -1;
	count_folios(first, r.nblocks * SZ_64K, &c);
	apply_pattern(cfg, p, first, &r);
	madvise_or_die(p, cfg->wl.size, MADV_PAGEOUT, "MADV_PAGEOUT");
	check_pattern(cfg->pattern, first, &r);
	print_pattern(cfg, &r, &c);
	pc_wl_flush();
	return r.lost || r.garbage ? EXIT_DATA : 0;
}

int main(int argc, char **argv)
{
	static struct config cfg = {
		.wl = {.prog = PROG,
		       .error_exit = EXIT_SYSCALL,
		       .usage = usage,
		       .size_max = SIZE_MAX / 4,
		       .size_step = SZ_64K,
		       .size_step_text = "64K",
		       .iterations = 500,
		       .size = 256 * SZ_1M},
		.align = SZ_4K,
		.folio_kb = 64,
	};
	char *p;
	int code;

	parse_args(argc, argv, &cfg);
	p = setup(&cfg);
	code = cfg.pattern ? run_pattern(&cfg, p) : run_loop(&cfg, p);
	free(p);
	return code;
}
