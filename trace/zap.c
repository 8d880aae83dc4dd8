// SPDX-License-Identifier: GPL-2.0
/*
 * The zap path's part of a tracing session: its syscall-walk tier
 * (bpf/zap.bpf.c: zap/rmap and zap/dirty, the large page-cache folios a
 * munmap or MADV_DONTNEED unmaps, read at the call's entry and exit), its
 * results and its `features` lines.  The suite's oracles (verify/zap*.c:
 * RssAnon/RssShmem, kpagecount and kpageflags after the zap) judge every
 * zap check on every kernel; the batch path counts its batches (munmap/batch/<source>,
 * madvise-dontneed/batch/<source>, exit/batch/<source>: trace/batch.c).
 */
#include "report.h"
#include "walk_part.h"

static void zap_configure(struct pc_session *s)
{
	pc_walk_part_configure(s, PC_SYS_ZAP);
}

/* Tier kernel:syscall-walk of zap/rmap and zap/dirty. */
static void zap_results(struct pc_session *s, struct pc_report *r)
{
	/* One result at a time: adding one may move the others. */
	struct pc_result *rmap = pc_session_result(s, r, PC_CHK_ZAP_RMAP, PC_TIER_SYSCALL_WALK),
			 *dirty;

	if (rmap && !pc_walk_part_skipped(s, rmap, PC_SYS_ZAP))
		pc_session_judge(s, rmap, PC_CHK_ZAP_RMAP, PC_TIER_SYSCALL_WALK, "folios",
				 "nothing to judge: no large page-cache folio, mapped by this "
				 "process alone, in a traced munmap or MADV_DONTNEED (or no "
				 "_large_mapcount: before v6.11)");
	dirty = pc_session_result(s, r, PC_CHK_ZAP_DIRTY, PC_TIER_SYSCALL_WALK);
	if (!dirty || pc_walk_part_skipped(s, dirty, PC_SYS_ZAP))
		return;
	pc_session_judge(s, dirty, PC_CHK_ZAP_DIRTY, PC_TIER_SYSCALL_WALK, "folios",
			 "nothing to judge: no clean page-cache folio whose zapped PTE was "
			 "dirty in a traced munmap or MADV_DONTNEED");
	/* A folio cleaned by writeback unseen proves nothing. */
	if (dirty->status != PC_STATUS_FAIL && !s->disturbance_complete)
		pc_result_set(dirty, PC_STATUS_SKIP,
			      "cannot observe concurrent reclaim/writeback (%s missing)",
			      s->missing_disturbance);
}

static void zap_feature_tiers(const struct pc_features *f)
{
	f->tiers("zap/rss", "oracle:status-rss");
	pc_walk_part_tiers(f, PC_SYS_ZAP, "zap/rmap", "oracle:kpagecount");
	pc_walk_part_tiers(f, PC_SYS_ZAP, "zap/dirty", "oracle:kpageflags");
}

const struct pc_trace_path pc_zap_trace = {
	.name = "zap",
	.oracle =
		&(const struct pc_oracle_features){
			.func = "unmap_page_range",
			.label = "zap (unmap_page_range)",
			.have = "its large-folio batches: the batch path's munmap, "
				"madvise-dontneed and exit histograms",
		},
	.configure = zap_configure,
	.results = zap_results,
	.feature_tiers = zap_feature_tiers,
};
