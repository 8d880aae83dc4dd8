// SPDX-License-Identifier: GPL-2.0
/*
 * The fork path's part of a tracing session.  Its checks are judged by
 * the suite's oracles (verify/fork*.c: data read back after reclaim,
 * kpagecount); its batches are counted by the batch path
 * (fork/batch/<source>: trace/batch.c).  No program of its own yet.
 */
#include "path.h"

const struct pc_trace_path pc_fork_trace = {
	.name = "fork",
	.oracle =
		&(const struct pc_oracle_features){
			.func = "copy_page_range",
			.label = "fork (copy_page_range)",
			.have = "its large-folio batches: the batch path's fork histograms",
			.checks = "fork/dirty, rmap",
			.tiers = "oracle:data-loss, oracle:kpagecount (userspace); no in-kernel "
				 "tier yet",
		},
};
