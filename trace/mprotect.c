// SPDX-License-Identifier: GPL-2.0
/*
 * The mprotect path's part of a tracing session.  Its checks are judged
 * by the suite's oracles (verify/mprotect*.c: pagemap's soft-dirty bits
 * and PFNs, the data read back) on every kernel; its batches are counted
 * by the batch path (mprotect/batch/<source>: trace/batch.c).  No program
 * of its own yet, so no in-kernel result: `features` says so rather than
 * a tier that does not exist.
 */
#include "path.h"

const struct pc_trace_path pc_mprotect_trace = {
	.name = "mprotect",
	.oracle =
		&(const struct pc_oracle_features){
			.func = "change_protection",
			.label = "mprotect (change_protection)",
			.have = "its large-folio batches: the batch path's mprotect histograms",
			.checks = "mprotect/soft-dirty, mapped",
			.tiers = "oracle:pagemap, oracle:data (userspace); no in-kernel tier yet",
		},
};
