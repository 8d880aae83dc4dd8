// SPDX-License-Identifier: GPL-2.0
/*
 * The zap path's part of a tracing session.  Its checks are judged by the
 * suite's oracles (verify/zap*.c: /proc/self/status RSS, kpagecount);
 * its batches are counted by the batch path (munmap/batch/<source>,
 * madvise-dontneed/batch/<source>, exit/batch/<source>: trace/batch.c).
 * No program of its own yet: `features` says the checks are oracle-only.
 */
#include "path.h"
#include "probe.h"

static const char *const tracepoints[] = {NULL};

static void zap_feature_paths(const struct pc_features *f)
{
	bool have = pc_kernel_has_func("zap_pte_range") || pc_kernel_has_func("unmap_page_range");

	f->line("zap (unmap_page_range)", have,
		have ? "its large-folio batches: the batch path's munmap, madvise-dontneed and "
		       "exit histograms"
		     : "unmap_page_range absent from BTF");
}

static void zap_feature_tiers(const struct pc_features *f)
{
	f->tiers("zap/rss, rmap",
		 "oracle:status-rss, oracle:kpagecount (userspace); no in-kernel tier yet");
}

const struct pc_trace_path pc_zap_trace = {
	.name = "zap",
	.tracepoints = tracepoints,
	.feature_paths = zap_feature_paths,
	.feature_tiers = zap_feature_tiers,
};
