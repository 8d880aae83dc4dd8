// SPDX-License-Identifier: GPL-2.0
/*
 * The mlock path's part of a tracing session: its syscall-walk tier
 * (bpf/mlock.bpf.c: mlock/folios, every anonymous folio an mlock's range
 * held whole before and after the call is mlocked when it returns), its
 * results and its `features` lines.  The suite's oracles (verify/mlock*.c:
 * kpageflags' KPF_MLOCKED, smaps Locked) judge both checks on every
 * kernel; the batch path counts its steps (mlock/batch/<source>,
 * munlock/batch/<source>: trace/batch.c).
 */
#include "report.h"
#include "walk_part.h"

static void mlock_configure(struct pc_session *s)
{
	pc_walk_part_configure(s, PC_SYS_MLOCK);
}

/* Tier kernel:syscall-walk of mlock/folios. */
static void mlock_results(struct pc_session *s, struct pc_report *r)
{
	struct pc_result *res = pc_session_result(s, r, PC_CHK_MLOCK_FOLIOS, PC_TIER_SYSCALL_WALK);

	if (res && !pc_walk_part_skipped(s, res, PC_SYS_MLOCK))
		pc_session_judge(s, res, PC_CHK_MLOCK_FOLIOS, PC_TIER_SYSCALL_WALK, "folios",
				 "nothing to judge: no anonymous folio held whole by a traced "
				 "mlock of one unlocked VMA");
}

static void mlock_feature_tiers(const struct pc_features *f)
{
	pc_walk_part_tiers(f, PC_SYS_MLOCK, "mlock/folios", "oracle:kpageflags");
	f->tiers("mlock/locked", "oracle:smaps");
}

const struct pc_trace_path pc_mlock_trace = {
	.name = "mlock",
	.oracle =
		&(const struct pc_oracle_features){
			.func = "mlock_folio",
			.label = "mlock (mlock_pte_range)",
			.have = "its large-folio steps: the batch path's mlock and munlock "
				"histograms",
		},
	.configure = mlock_configure,
	.results = mlock_results,
	.feature_tiers = mlock_feature_tiers,
};
