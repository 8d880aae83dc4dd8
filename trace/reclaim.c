// SPDX-License-Identifier: GPL-2.0
/*
 * The reclaim path's part of a tracing session: its syscall-walk tier
 * (bpf/reclaim.bpf.c: reclaim/dirty, the dirty PTEs of lazyfree folios an
 * MADV_PAGEOUT of ptecheck's own scenarios must keep mapped), its results
 * and its `features` lines.  The suite's oracles (verify/reclaim*.c: data
 * read back and RSS after MADV_PAGEOUT) judge both checks on every
 * kernel; the batch path counts its batches (reclaim/batch/<source>:
 * trace/batch.c).
 */
#include "report.h"
#include "walk_part.h"

static void reclaim_configure(struct pc_session *s)
{
	pc_walk_part_configure(s, PC_SYS_RECLAIM);
}

/* Tier kernel:syscall-walk of reclaim/dirty. */
static void reclaim_results(struct pc_session *s, struct pc_report *r)
{
	pc_walk_tier_result(s, r, PC_SYS_RECLAIM, PC_CHK_RECLAIM_DIRTY, PC_TIER_SYSCALL_WALK, NULL,
			    NULL, "entries",
			    "nothing to judge: no dirty PTE of a lazyfree folio in an MADV_PAGEOUT "
			    "of ptecheck's own scenarios (others may map MAP_DROPPABLE memory, "
			    "discarded dirty by design)");
}

static void reclaim_feature_tiers(const struct pc_features *f)
{
	pc_walk_part_tiers(f, PC_SYS_RECLAIM, "reclaim/dirty", "oracle:data-loss");
	f->tiers("reclaim/rss", "oracle:status-rss");
}

const struct pc_trace_path pc_reclaim_trace = {
	.name = "reclaim",
	.oracle =
		&(const struct pc_oracle_features){
			.func = "try_to_unmap_one",
			.label = "reclaim (try_to_unmap_one's batched unmap)",
			.have = "its large-folio batches: the batch path's reclaim histograms",
		},
	.configure = reclaim_configure,
	.results = reclaim_results,
	.feature_tiers = reclaim_feature_tiers,
};
