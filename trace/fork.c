// SPDX-License-Identifier: GPL-2.0
/*
 * The fork path's part of a tracing session.  Its checks are judged by
 * the suite's oracles (verify/fork*.c: data read back after reclaim,
 * kpagecount); its batches are counted by the batch path
 * (fork/batch/<source>: trace/batch.c).  No program of its own yet.
 */
#include "path.h"
#include "probe.h"

static const char *const tracepoints[] = {NULL};

static void fork_feature_paths(const struct pc_features *f)
{
	bool have = pc_kernel_has_func("copy_page_range");

	f->line("fork (copy_page_range)", have,
		have ? "its large-folio batches: the batch path's fork histograms"
		     : "copy_page_range absent from BTF");
}

static void fork_feature_tiers(const struct pc_features *f)
{
	f->tiers("fork/dirty, rmap",
		 "oracle:data-loss, oracle:kpagecount (userspace); no in-kernel tier yet");
}

const struct pc_trace_path pc_fork_trace = {
	.name = "fork",
	.tracepoints = tracepoints,
	.feature_paths = fork_feature_paths,
	.feature_tiers = fork_feature_tiers,
};
