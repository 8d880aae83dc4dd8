// SPDX-License-Identifier: GPL-2.0
/*
 * The madvise path's part of a tracing session: its syscall-walk tier
 * (bpf/madvise.bpf.c: madvise/range, the PTEs next to a MADV_FREE range
 * read at the call's entry and exit), its results and its `features`
 * lines.  The suite's oracles (verify/madvise*.c: smaps LazyFree, data
 * read back after reclaim) judge both checks on every kernel; the batch
 * path counts MADV_FREE's batches (madvise-free/batch/<source>).
 */
#include "report.h"
#include "walk_part.h"

#define FUNC "madvise_free_pte_range"

static void madvise_configure(struct pc_session *s)
{
	pc_walk_part_configure(s, PC_SYS_MADVISE);
}

/* Tier kernel:syscall-walk of madvise/range: a dirty bit lost while
   reclaim or writeback ran unseen proves nothing. */
static void madvise_results(struct pc_session *s, struct pc_report *r)
{
	struct pc_result *res = pc_walk_tier_result(
		s, r, PC_SYS_MADVISE, PC_CHK_MADV_RANGE, PC_TIER_SYSCALL_WALK, NULL, NULL,
		"entries",
		"nothing to judge: no dirty PTE of an anonymous folio next to a traced MADV_FREE "
		"range");

	pc_walk_needs_disturbance(s, res);
}

static void madvise_feature_tiers(const struct pc_features *f)
{
	f->tiers("madvise/lazyfree", "oracle:smaps");
	pc_walk_part_tiers(f, PC_SYS_MADVISE, "madvise/range", "oracle:smaps, oracle:data-loss");
}

const struct pc_trace_path pc_madvise_trace = {
	.name = "madvise",
	.oracle =
		&(const struct pc_oracle_features){
			.func = FUNC,
			.label = "madvise FREE",
			.have = FUNC ": its large-folio batches in the batch path's madvise-free "
				     "histograms",
		},
	.configure = madvise_configure,
	.results = madvise_results,
	.feature_tiers = madvise_feature_tiers,
};
