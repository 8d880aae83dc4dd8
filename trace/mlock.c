// SPDX-License-Identifier: GPL-2.0
/*
 * The mlock path's part of a tracing session.  Its checks are judged by
 * the suite's oracles (verify/mlock*.c: kpageflags' KPF_MLOCKED, smaps
 * Locked); its batches are counted by the batch path (mlock/batch/<source>,
 * munlock/batch/<source>: trace/batch.c).  No program of its own yet.
 */
#include "path.h"
#include "probe.h"

static const char *const tracepoints[] = {NULL};

static void mlock_feature_paths(const struct pc_features *f)
{
	bool have = pc_kernel_has_func("mlock_folio");

	f->line("mlock (mlock_pte_range)", have,
		have ? "its large-folio steps: the batch path's mlock and munlock histograms"
		     : "mlock_folio absent from BTF");
}

static void mlock_feature_tiers(const struct pc_features *f)
{
	f->tiers("mlock/folios, locked",
		 "oracle:kpageflags, oracle:smaps (userspace); no in-kernel tier yet");
}

const struct pc_trace_path pc_mlock_trace = {
	.name = "mlock",
	.tracepoints = tracepoints,
	.feature_paths = mlock_feature_paths,
	.feature_tiers = mlock_feature_tiers,
};
