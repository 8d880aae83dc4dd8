// SPDX-License-Identifier: GPL-2.0
/*
 * The contpte suite: arm64 contiguous PTEs.  With 4 KiB pages a naturally
 * aligned 64 KiB folio is mapped by 16 PTEs with the CONT bit, and hardware
 * (FEAT_HAFDBS) may set the access or dirty bit in any one of the 16.  So
 * every read of such a PTE gathers the bits of all 16 (contpte_ptep_get, an
 * early-exit loop), and every batched clear gathers them into the PTE it
 * returns (contpte_get_and_clear_full_ptes).  A wrong early exit loses a
 * bit; a lost dirty bit is lost data.
 *
 * Each scenario puts one pattern of bits into every other 16-entry block of
 * a region of 64 KiB folios, one scenario per branch of the gather loop
 * (<ptecheck/contpte_patterns.h>):
 *
 *   dirty-K            dirty only in entry K, young nowhere (K = 0, 1, 7, 15)
 *   young-K            young only in entry K, dirty nowhere
 *   dirty-K-young-J    dirty only in K, young only in J (J before and after K)
 *   dirty-young-K      dirty and young in entry K only
 *   all-clean          control: no bit anywhere
 *   all-young-dirty    control: both bits in every entry
 *
 * and judges with two userspace oracles (contpte/gather: contpte_gather.c).
 * The mlock scenarios replay the reference workload (contpte/mlock:
 * contpte_mlock.c).  This file holds the suite table; contpte_int.h says
 * where the rest is.
 *
 * Zero false positives: as in the mremap suite, a violation is measured
 * again on fresh mappings and fails only when all PC_ATTEMPTS attempts show
 * it with no reclaim, migration or split counted meanwhile.  A probe that
 * could not have failed (not arm64, no 64 KiB folios, nothing discarded,
 * clear_refs ineffective) is a SKIP that says why.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "contpte_int.h"

/* NULL on arm64 with 4 KiB pages, else why the suite cannot run here. */
static const char *not_here(char *buf, size_t len)
{
	struct utsname u;

	if (uname(&u))
		snprintf(u.machine, sizeof(u.machine), "unknown: uname: %s", strerror(errno));
	if (strcmp(u.machine, "aarch64") != 0) {
		snprintf(buf, len, "contpte exists only on arm64 (this is %s)", u.machine);
		return buf;
	}
	if (sysconf(_SC_PAGESIZE) != (long)PAGE) {
		/* 16 KiB and 64 KiB pages have other block sizes; not modelled. */
		snprintf(buf, len, "contpte blocks of 16 PTEs need 4 KiB pages (this kernel: %ld)",
			 sysconf(_SC_PAGESIZE));
		return buf;
	}
	return NULL;
}

static void report_skip_one(struct pc_scenario_ctx *ctx, __u32 check, const char *tier,
			    const char *why)
{
	struct pc_oracle_msg msg;

	pc_oracle_msg_init(&msg, ctx->scenario, check, tier);
	pc_oracle_skip(&msg, "%s", why);
	pc_oracle_report(ctx, &msg);
}

/* The checks a scenario reports, for the skips before any attempt. */
static void report_skip(struct pc_scenario_ctx *ctx, pc_measure_fn m, const void *data,
			const char *why)
{
	const struct cp_pattern *p = data;

	if (m == cp_measure_mlock) {
		report_skip_one(ctx, PC_CHK_CP_MLOCK, TIER_DATA, why);
		report_skip_one(ctx, PC_CHK_CP_MLOCK, TIER_KPAGEFLAGS, why);
		return;
	}
	if (p->dirty != PC_CP_NONE || p->young == PC_CP_NONE)
		report_skip_one(ctx, PC_CHK_CP_GATHER, TIER_DATA_LOSS, why);
	if (p->young != PC_CP_NONE)
		report_skip_one(ctx, PC_CHK_CP_GATHER, TIER_REFERENCED, why);
}

static int run_measure(struct pc_scenario_ctx *ctx, pc_measure_fn m, const void *data)
{
	char buf[160];
	const char *why = not_here(buf, sizeof(buf));

	if (!why && !ctx->mthp_anon_64k)
		why = "64 KiB anonymous mTHP not enabled (hugepages-64kB/enabled)";
	if (why) {
		report_skip(ctx, m, data, why);
		return 0;
	}
	return pc_attempts_run(ctx, m, data);
}

static int run_pattern(struct pc_scenario_ctx *ctx, const void *data)
{
	return run_measure(ctx, cp_measure_pattern, data);
}

static int run_mlock(struct pc_scenario_ctx *ctx, const void *data)
{
	return run_measure(ctx, cp_measure_mlock, data);
}

/* ---- the scenarios -------------------------------------------------------- */

/* 64 pattern + 64 control blocks (8 MiB) at scale 1; 2 MiB at --scale 4. */
#define PAT(d, y) (&(const struct cp_pattern){.dirty = (d), .young = (y), .full = 128})

static const struct cp_mlock ml_aligned = {.full = 128, .iterations = 20};
static const struct cp_mlock ml_misaligned = {.full = 128, .iterations = 20, .misaligned = true};
static const struct cp_mlock ml_refold = {.full = 128, .iterations = 8, .refold = true};

#define PATTERN(name, dirty, young, what) {name, what, 0, run_pattern, PAT(dirty, young)},
/* clang-format off */
static const struct pc_scenario scenarios[] = {
	PC_CONTPTE_PATTERNS(PATTERN)
	{"mlock", "mlock, read+write a byte per page, munlock, N times (64 KiB-aligned)",
	 0, run_mlock, &ml_aligned},
	{"mlock-misaligned", "the same, locking [start+4K, end-4K): VMAs split inside folios",
	 0, run_mlock, &ml_misaligned},
	{"refold", "mlock rounds that also unfold each block (page 15 read-only) and refold it",
	 0, run_mlock, &ml_refold},
};
/* clang-format on */
#undef PATTERN

const struct pc_suite pc_contpte_suite = {
	.name = "contpte",
	.description = "arm64 contiguous PTEs: access/dirty gathering, fold/unfold, mlock",
	.scenarios = scenarios,
	.n_scenarios = sizeof(scenarios) / sizeof(scenarios[0]),
};
