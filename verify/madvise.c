// SPDX-License-Identifier: GPL-2.0
/*
 * The madvise suite: what MADV_FREE's batches clear, inside and outside
 * the advised range (docs/checks.md, "The madvise checks").
 *
 *   free-POS   pairs of 64 KiB folios A, B, all lazyfree; then page POS of
 *              A written (its entry alone dirty, the first old and clean
 *              unless POS is first), every page of B read and its page POS
 *              written; MADV_FREE again over all of the pair but B's page
 *              POS (verify/madvise_free.c)
 *
 * POS is first, second, middle or last: where the dirty entry lies in A's
 * batch (first: the control a batch that does not merge the bits cannot
 * fail) and where the kept page lies in B, next to the advice's end.
 */
#include "madvise_int.h"

static int run_free(struct pc_scenario_ctx *ctx, const void *data)
{
	return pc_attempts_run(ctx, mv_measure_free, data);
}

#define MV(pos) (&(const struct mv_scenario){(pos)})

/* clang-format off */
static const struct pc_scenario scenarios[] = {
	{"free-first", "A's dirty entry first (the control), B's first page kept out", 0,
	 run_free, MV(PC_POS_FIRST)},
	{"free-second", "A's dirty entry second, B's second page kept out", 0, run_free,
	 MV(PC_POS_SECOND)},
	{"free-middle", "A's dirty entry in the middle (8 of 16), B's page 8 kept out", 0,
	 run_free, MV(PC_POS_MIDDLE)},
	{"free-last", "A's dirty entry last (15 of 16), B's last page kept out", 0, run_free,
	 MV(PC_POS_LAST)},
};
/* clang-format on */

const struct pc_suite pc_madvise_suite = {
	.name = "madvise",
	.description = "MADV_FREE's large-folio batches: every advised page freed, no other",
	.scenarios = scenarios,
	.n_scenarios = sizeof(scenarios) / sizeof(scenarios[0]),
};
