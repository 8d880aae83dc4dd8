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
#include "probe.h"

static const char *const tracepoints[] = {NULL};

static void mprotect_feature_paths(const struct pc_features *f)
{
	bool have = pc_kernel_has_func("change_protection");

	f->line("mprotect (change_protection)", have,
		have ? "its large-folio batches: the batch path's mprotect histograms"
		     : "change_protection absent from BTF");
}

static void mprotect_feature_tiers(const struct pc_features *f)
{
	f->tiers("mprotect/soft-dirty, mapped",
		 "oracle:pagemap, oracle:data (userspace); no in-kernel tier yet");
}

const struct pc_trace_path pc_mprotect_trace = {
	.name = "mprotect",
	.tracepoints = tracepoints,
	.feature_paths = mprotect_feature_paths,
	.feature_tiers = mprotect_feature_tiers,
};
