// SPDX-License-Identifier: GPL-2.0
/*
 * The madvise path's part of a tracing session.  Its checks are judged by
 * the suite's oracles (verify/madvise*.c: smaps LazyFree, data read back
 * after reclaim); its batches are counted by the batch path
 * (madvise/batch/<source>: trace/batch.c).  No program of its own yet.
 */
#include "path.h"

const struct pc_trace_path pc_madvise_trace = {
	.name = "madvise",
	.oracle =
		&(const struct pc_oracle_features){
			.func = "madvise_free_pte_range",
			.label = "madvise (MADV_FREE: madvise_free_pte_range)",
			.have = "its large-folio batches: the batch path's madvise histograms",
			.checks = "madvise/lazyfree, range",
			.tiers =
				"oracle:smaps, oracle:data-loss (userspace); no in-kernel tier yet",
		},
};
