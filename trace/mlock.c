// SPDX-License-Identifier: GPL-2.0
/*
 * The mlock path's part of a tracing session.  Its checks are judged by
 * the suite's oracles (verify/mlock*.c: kpageflags' KPF_MLOCKED, smaps
 * Locked); its batches are counted by the batch path (mlock/batch/<source>,
 * munlock/batch/<source>: trace/batch.c).  No program of its own yet.
 */
#include "path.h"

const struct pc_trace_path pc_mlock_trace = {
	.name = "mlock",
	.oracle =
		&(const struct pc_oracle_features){
			.func = "mlock_folio",
			.label = "mlock (mlock_pte_range)",
			.have = "its large-folio steps: the batch path's mlock and munlock "
				"histograms",
			.checks = "mlock/folios, locked",
			.tiers = "oracle:kpageflags, oracle:smaps (userspace); no in-kernel tier "
				 "yet",
		},
};
