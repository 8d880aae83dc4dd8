// SPDX-License-Identifier: GPL-2.0
/*
 * The reclaim suite: what the batched unmap of lazyfree large folios
 * keeps and takes (docs/checks.md, "The reclaim checks").
 *
 *   dirty-POS   64 KiB lazyfree folios (MADV_FREE: every PTE clean), one
 *               entry of every other folio written again (dirty) at POS
 *               (first, second, middle, last), the others left clean as
 *               the control; MADV_PAGEOUT over the range: the written
 *               pages read back, RssAnon by the pages taken
 *               (verify/reclaim_lazyfree.c)
 *
 *   dirty-misaligned-POS   the same, the range first moved 4 KiB off a
 *               64 KiB boundary (pc_range_misalign): arm64 folds no block,
 *               whose clear would unfold it and spread the dirty bit
 *
 *   write-restore-POS   64 KiB folios whose entry POS alone went through
 *               a fork (the rest left out of it), so it alone is read-only
 *               and not exclusive; lazyfree, one writable entry dirtied;
 *               MADV_PAGEOUT puts the batch back: entry POS must stay
 *               read-only (reclaim/write, verify/reclaim_restore.c;
 *               29f40594a281's state).  No first: a batch that begins
 *               read-only and clean is one a correct kernel may discard
 *               on its own, leaving nothing put back to judge
 *
 *   bounds-vma-split   64 KiB lazyfree folios each across a VMA boundary
 *               (MADV_RANDOM over their second halves), reclaimed by the
 *               node's LRU reclaim: reclaim/bounds in the hook tier,
 *               reclaim/rss here (verify/reclaim_bounds.c; ddd05742b45b's
 *               state)
 *
 *   dirty-16k-POS   16 KiB folios (the run's 64 KiB off and 16 KiB on
 *               around it, PC_NEEDS_MTHP_16K): first, second and last
 *
 * A first-entry position cannot lose the bit to a batch that keeps only
 * its first entry's: the control that passes on a kernel whose others
 * fail.
 */
#include "reclaim_int.h"

static int run_lazyfree(struct pc_scenario_ctx *ctx, const void *data)
{
	return pc_attempts_run(ctx, rc_measure_lazyfree, data);
}

static int run_restore(struct pc_scenario_ctx *ctx, const void *data)
{
	return pc_attempts_run(ctx, rc_measure_restore, data);
}

static int run_bounds(struct pc_scenario_ctx *ctx, const void *data)
{
	return pc_attempts_run(ctx, rc_measure_bounds, data);
}

#define RC(pos)	    (&(const struct rc_scenario){(pos), false, 64})
#define RC_MIS(pos) (&(const struct rc_scenario){(pos), true, 64})
#define RC_16K(pos) (&(const struct rc_scenario){(pos), false, 16})

/* clang-format off */
static const struct pc_scenario scenarios[] = {
	{"dirty-first", "the dirty entry first in its lazyfree folio: the control", 0,
	 run_lazyfree, RC(PC_POS_FIRST)},
	{"dirty-second", "the dirty entry second: the folio kept, its data through reclaim", 0,
	 run_lazyfree, RC(PC_POS_SECOND)},
	{"dirty-middle", "the dirty entry in the middle (8 of 16)", 0, run_lazyfree,
	 RC(PC_POS_MIDDLE)},
	{"dirty-last", "the dirty entry last (15 of 16)", 0, run_lazyfree, RC(PC_POS_LAST)},
	{"dirty-misaligned-first", "the folios 4 KiB off 64 KiB (never folded), the dirty "
	 "entry first: the control", 0, run_lazyfree, RC_MIS(PC_POS_FIRST)},
	{"dirty-misaligned-second", "4 KiB off 64 KiB, the dirty entry second", 0, run_lazyfree,
	 RC_MIS(PC_POS_SECOND)},
	{"dirty-misaligned-middle", "4 KiB off 64 KiB, the dirty entry in the middle", 0,
	 run_lazyfree, RC_MIS(PC_POS_MIDDLE)},
	{"dirty-misaligned-last", "4 KiB off 64 KiB, the dirty entry last", 0, run_lazyfree,
	 RC_MIS(PC_POS_LAST)},
	{"write-restore-second", "entry 1 alone not exclusive (the others left out of a fork), "
	 "lazyfree, entry 0 dirtied: reclaim puts the batch back, entry 1 read-only",
	 0, run_restore, RC(PC_POS_SECOND)},
	{"write-restore-middle", "entry 8 alone not exclusive", 0, run_restore,
	 RC(PC_POS_MIDDLE)},
	{"write-restore-last", "entry 15 alone not exclusive", 0, run_restore, RC(PC_POS_LAST)},
	{"bounds-vma-split", "64 KiB lazyfree folios, each across a VMA boundary (MADV_RANDOM "
	 "over its second half), taken by the node's reclaim: each VMA's unmap takes its own "
	 "half (reclaim/bounds, the hook tier)", 0, run_bounds, RC(PC_POS_FIRST)},
	{"dirty-16k-first", "16 KiB lazyfree folios, the dirty entry first: the control",
	 PC_NEEDS_MTHP_16K, run_lazyfree, RC_16K(PC_POS_FIRST)},
	{"dirty-16k-second", "16 KiB lazyfree folios, the dirty entry second (batches of 4)",
	 PC_NEEDS_MTHP_16K, run_lazyfree, RC_16K(PC_POS_SECOND)},
	{"dirty-16k-last", "16 KiB lazyfree folios, the dirty entry last (4 of 4)",
	 PC_NEEDS_MTHP_16K, run_lazyfree, RC_16K(PC_POS_LAST)},
};
/* clang-format on */

const struct pc_suite pc_reclaim_suite = {
	.name = "reclaim",
	.description = "reclaim's batched unmap of lazyfree folios: dirty bits and RSS",
	.scenarios = scenarios,
	.n_scenarios = sizeof(scenarios) / sizeof(scenarios[0]),
};
