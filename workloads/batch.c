// SPDX-License-Identifier: GPL-2.0
/*
 * batch: a workload of known shape for the batch histograms (`ptecheck
 * hist`).  N 64 KiB anonymous folios (mTHP), counted from pagemap and
 * kpageflags, then in order: fork (the child exits at once), mprotect
 * PROT_READ and back, mlock and munlock, MADV_DONTNEED of the first half,
 * munmap of the rest.  Each step covers every PTE of the region it is
 * given, and the kernel batches a large folio's PTEs at most to the
 * folio's end: each step should give one batch of 16 per order-4 folio in
 * its region.  Prints what it made, for a test to assert the histograms
 * from.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cli.h"
#include "procmm.h"
#include "settings.h"
#include "workload.h"

#ifndef MLOCK_ONFAULT
#define MLOCK_ONFAULT 1
#endif

#define PROG "batch"

#define SZ_4K	   0x1000UL
#define SZ_64K	   0x10000UL
#define SZ_128K	   0x20000UL
#define SZ_2M	   0x200000UL
#define MAX_ORDER  10 /* the census counts larger folios here */
#define ORDER_64K  4
#define N_SIZES_KB 9 /* mTHP sizes 8 KiB .. 2 MiB */

enum {
	EXIT_SYSCALL = 1,
	EXIT_USAGE = 2,
	EXIT_CANNOT_RUN = PC_WL_EXIT_CANNOT_RUN,
};

/* The steps, in the order they run; each the PTEs of its range. */
enum step {
	ST_FAULT,
	ST_FORK,
	ST_MPROTECT,
	ST_MLOCK,
	ST_MUNLOCK,
	ST_DONTNEED,
	ST_MUNMAP,
	NR_STEPS,
};

static const char *const step_names[NR_STEPS] = {
	[ST_FAULT] = "fault",	[ST_FORK] = "fork",	  [ST_MPROTECT] = "mprotect",
	[ST_MLOCK] = "mlock",	[ST_MUNLOCK] = "munlock", [ST_DONTNEED] = "madvise_dontneed",
	[ST_MUNMAP] = "munmap",
};

/* What the runs made: the folios found and the PTEs each step covered. */
struct shape {
	unsigned long long orders[MAX_ORDER + 1]; /* folios by order, whole region */
	unsigned long long half_order4[2];	  /* order-4 folios in each half */
	unsigned long long ptes[NR_STEPS];
	unsigned long long calls[NR_STEPS]; /* system calls made */
	char why[160];			    /* set when the census failed */
};

static void usage(FILE *out)
{
	fprintf(out, "Usage: " PROG " [options]\n"
		     "\n"
		     "A workload of known shape for `ptecheck hist`: map SIZE bytes of anonymous\n"
		     "memory 2 MiB-aligned, MADV_HUGEPAGE, write every page, so that it is\n"
		     "faulted in as 64 KiB folios (hugepages-64kB/enabled set to \"madvise\",\n"
		     "every other mTHP size to \"never\"), count the folios of each order\n"
		     "(pagemap + /proc/kpageflags), then in order:\n"
		     "  fork              a child that exits at once (copies every PTE)\n"
		     "  mprotect          PROT_READ, then PROT_READ|PROT_WRITE (two calls)\n"
		     "  mlock, munlock    mlock2(MLOCK_ONFAULT), so that mlock does not write-\n"
		     "                    fault the pages fork made copy-on-write, then munlock\n"
		     "  madvise_dontneed  MADV_DONTNEED of the first half\n"
		     "  munmap            munmap of the region, the second half left of it\n"
		     "ITERATIONS times, each on a fresh mapping.  Prints the folios of order 4\n"
		     "found, in all and in each half, the folios by order, and the PTEs each\n"
		     "step covered.\n"
		     "\n"
		     "Options:\n"
		     "  --size BYTES     region size, K/M/G suffixes, a multiple of 128K\n"
		     "                   (default 1M: 16 folios)\n"
		     "  --iterations N   how many times (default 1)\n"
		     "  --json           print one JSON object line instead of key=value lines\n"
		     "  --help           this text\n"
		     "\n" PC_WL_HELP_RESTORES "\n"
		     "Exit status: 0 ok, 1 a system call failed, 2 usage, 4 cannot run here\n"
		     "(no 64 KiB mTHP, not root, mlock refused).\n"
		     "\n"
		     "Examples:\n"
		     "  ptecheck hist --format json -- " PROG " --json\n"
		     "  " PROG " --size 4M --iterations 10\n");
}

static void __attribute__((noreturn)) cannot_run(const char *what, int err)
{
	fprintf(stderr, PROG ": cannot run here: %s: %s\n", what, strerror(err));
	exit(EXIT_CANNOT_RUN);
}

/* 64 KiB anonymous folios and no other size: a known shape. */
static void only_64k_folios(void)
{
	int err = pc_wl_mthp_set(64, 0, "madvise");

	if (err)
		cannot_run("hugepages-64kB/enabled (no 64 KiB anonymous mTHP?)", -err);
	for (unsigned int i = 0, kb = 8; i < N_SIZES_KB; i++, kb *= 2) {
		if (kb == 64)
			continue;
		err = pc_mthp_set(kb, 0, "never");
		if (err && err != -ENOENT) {
			errno = -err;
			pc_wl_die("writing \"never\" to an mTHP size's enabled");
		}
	}
}

/* Order-4 folios in [p, p + len), adding every order to orders when set. */
static long long census(struct shape *sh, const char *p, size_t len, bool whole)
{
	unsigned long long hist[MAX_ORDER + 1];
	int err = pc_folio_census(p, len / SZ_4K, SZ_4K, hist, MAX_ORDER, sh->why, sizeof(sh->why));

	if (err)
		return -1;
	for (int o = 0; whole && o <= MAX_ORDER; o++)
		sh->orders[o] += hist[o];
	return (long long)hist[ORDER_64K];
}

static void step_done(struct shape *sh, enum step st, size_t len, unsigned int calls)
{
	sh->ptes[st] += len / SZ_4K;
	sh->calls[st] += calls;
}

/* One run on a fresh mapping; false when the census failed (sh->why). */
static bool run_once(struct shape *sh, size_t size)
{
	char *p =
		pc_wl_map_at(pc_wl_free_range(size, SZ_2M), size, MAP_PRIVATE | MAP_ANONYMOUS, -1);
	size_t half = size / 2;
	long long first, second;

	if (madvise(p, size, MADV_HUGEPAGE))
		pc_wl_die("madvise(MADV_HUGEPAGE)");
	for (size_t off = 0; off < size; off += SZ_4K)
		p[off] = 1;
	step_done(sh, ST_FAULT, size, 0);
	first = census(sh, p, half, false);
	second = census(sh, p + half, half, false);
	if (first < 0 || second < 0 || census(sh, p, size, true) < 0)
		return false;
	sh->half_order4[0] += (unsigned long long)first;
	sh->half_order4[1] += (unsigned long long)second;

	pc_wl_fork_child_exits();
	step_done(sh, ST_FORK, size, 1);
	if (mprotect(p, size, PROT_READ) || mprotect(p, size, PROT_READ | PROT_WRITE))
		pc_wl_die("mprotect()");
	step_done(sh, ST_MPROTECT, 2 * size, 2);
	if (mlock2(p, size, MLOCK_ONFAULT)) {
		if (errno == EPERM || errno == ENOMEM || errno == EAGAIN || errno == ENOSYS)
			cannot_run("mlock2() (RLIMIT_MEMLOCK?)", errno);
		pc_wl_die("mlock2()");
	}
	step_done(sh, ST_MLOCK, size, 1);
	if (munlock(p, size))
		pc_wl_die("munlock()");
	step_done(sh, ST_MUNLOCK, size, 1);
	if (madvise(p, half, MADV_DONTNEED))
		pc_wl_die("madvise(MADV_DONTNEED)");
	step_done(sh, ST_DONTNEED, half, 1);
	/* The whole region: what is left of it is the second half. */
	if (munmap(p, size))
		pc_wl_die("munmap()");
	step_done(sh, ST_MUNMAP, half, 1);
	return true;
}

static void print_json(const struct shape *sh, size_t size, unsigned long iterations, bool ok)
{
	pc_wl_json_begin();
	printf(",\"size\":%zu,\"iterations\":%lu", size, iterations);
	if (!ok) {
		printf(",\"folios_order4\":null,\"folios_why\":\"%s\"}\n", sh->why);
		return;
	}
	printf(",\"folios_order4\":%llu,\"folios_order4_first_half\":%llu,"
	       "\"folios_order4_second_half\":%llu,\"folios_by_order\":[",
	       sh->orders[ORDER_64K], sh->half_order4[0], sh->half_order4[1]);
	for (int o = 0; o <= MAX_ORDER; o++)
		printf("%s%llu", o ? "," : "", sh->orders[o]);
	printf("],\"steps\":{");
	for (int st = 0; st < NR_STEPS; st++)
		printf("%s\"%s\":{\"ptes\":%llu,\"calls\":%llu}", st ? "," : "", step_names[st],
		       sh->ptes[st], sh->calls[st]);
	printf("}}\n");
}

static void print_text(const struct shape *sh, size_t size, unsigned long iterations, bool ok)
{
	printf(PROG ": size=%zu iterations=%lu\n", size, iterations);
	if (!ok) {
		printf(PROG ": folios_order4=unknown (%s)\n", sh->why);
		return;
	}
	printf(PROG ": folios_order4=%llu first_half=%llu second_half=%llu\n",
	       sh->orders[ORDER_64K], sh->half_order4[0], sh->half_order4[1]);
	printf(PROG ": folios_by_order=");
	for (int o = 0; o <= MAX_ORDER; o++)
		printf("%s%llu", o ? "," : "", sh->orders[o]);
	printf("\n");
	for (int st = 0; st < NR_STEPS; st++)
		printf(PROG ": %s ptes=%llu calls=%llu\n", step_names[st], sh->ptes[st],
		       sh->calls[st]);
}

int main(int argc, char **argv)
{
	static const struct option no_opts[] = {{NULL, 0, NULL, 0}};
	static struct pc_workload wl = {.prog = PROG,
					.error_exit = EXIT_SYSCALL,
					.usage = usage,
					.size_max = SIZE_MAX / 4,
					.size_step = SZ_128K,
					.size_step_text = "128K",
					.iterations = 1,
					.size = 16 * SZ_64K};
	struct shape sh = {{0}};
	bool ok = true;

	pc_wl_parse(&wl, argc, argv, no_opts, NULL, NULL);
	pc_wl_need_4k_pages();
	pc_wl_start();
	only_64k_folios();
	for (unsigned long i = 0; i < wl.iterations && ok; i++)
		ok = run_once(&sh, wl.size);
	if (wl.json)
		print_json(&sh, wl.size, wl.iterations, ok);
	else
		print_text(&sh, wl.size, wl.iterations, ok);
	pc_wl_flush();
	return ok ? 0 : EXIT_CANNOT_RUN;
}
