// SPDX-License-Identifier: GPL-2.0
/*
 * The zap path's part of a tracing session.  Its checks are judged by the
 * suite's oracles (verify/zap*.c: /proc/self/status RSS, kpagecount);
 * its batches are counted by the batch path (munmap/batch/<source>,
 * madvise-dontneed/batch/<source>, exit/batch/<source>: trace/batch.c).
 * No program of its own yet: `features` says the checks are oracle-only.
 */
#include "path.h"

const struct pc_trace_path pc_zap_trace = {
	.name = "zap",
	.oracle =
		&(const struct pc_oracle_features){
			.func = "unmap_page_range",
			.label = "zap (unmap_page_range)",
			.have = "its large-folio batches: the batch path's munmap, "
				"madvise-dontneed and exit histograms",
			.checks = "zap/rss, rmap",
			.tiers = "oracle:status-rss, oracle:kpagecount (userspace); no in-kernel "
				 "tier yet",
		},
};
