// SPDX-License-Identifier: GPL-2.0
/*
 * The reclaim path's part of a tracing session.  Its checks are judged by
 * the suite's oracles (verify/reclaim*.c: data read back and RSS after
 * MADV_PAGEOUT); its batches are counted by the batch path
 * (reclaim/batch/<source>: trace/batch.c).  No program of its own yet.
 */
#include "path.h"

const struct pc_trace_path pc_reclaim_trace = {
	.name = "reclaim",
	.oracle =
		&(const struct pc_oracle_features){
			.func = "try_to_unmap_one",
			.label = "reclaim (try_to_unmap_one's batched unmap)",
			.have = "its large-folio batches: the batch path's reclaim histograms",
			.checks = "reclaim/dirty, rss",
			.tiers = "oracle:data-loss, oracle:status-rss (userspace); no in-kernel "
				 "tier yet",
		},
};
