// SPDX-License-Identifier: GPL-2.0
/*
 * The mlock path's part of a tracing session: its tiers (bpf/mlock.bpf.c:
 * mlock/folios, every anonymous folio an mlock's range held whole before
 * and after is mlocked: at the syscall's entry and exit, and in guests at
 * fentry and fexit of mlock_pte_range), their results and the path's
 * `features` lines.  The suite's oracles (verify/mlock*.c:
 * kpageflags' KPF_MLOCKED, smaps Locked) judge both checks on every
 * kernel; the batch path counts its steps (mlock/batch/<source>,
 * munlock/batch/<source>: trace/batch.c).
 */
#include <stdio.h>
#include "probe.h"
#include "ptecheck.skel.h"
#include "report.h"
#include "walk_part.h"

#define FUNC "mlock_pte_range"

enum { RANGE };

static void range_programs(const struct ptecheck_bpf *skel, struct pc_hook_progs *p)
{
	*p = (struct pc_hook_progs){
		.fentry = {skel->progs.mlock_range_fentry, skel->progs.mlock_range_fexit}};
}

/* fentry and fexit: the fexit reads again what the fentry read. */
static const struct pc_hook_group groups[] = {
	[RANGE] = {.name = "mlock per range (" FUNC ")",
		   .funcs = {FUNC},
		   .needs_fexit = {true},
		   .needs_walk = true,
		   .programs = range_programs},
};

static void mlock_configure(struct pc_session *s)
{
	pc_walk_part_configure(s, PC_SYS_MLOCK);
	s->skel->rodata->ml_hook_enabled = pc_session_hook_walk_on(s, &pc_mlock_trace, RANGE);
}

#define NONE "nothing to judge: no anonymous folio held whole by a traced mlock"

/* Tiers kernel:syscall-walk and kernel:fexit of mlock/folios (one result
   at a time: adding one may move the others). */
static void mlock_results(struct pc_session *s, struct pc_report *r)
{
	pc_walk_tier_result(s, r, PC_SYS_MLOCK, PC_CHK_MLOCK_FOLIOS, PC_TIER_SYSCALL_WALK, FUNC,
			    NULL, "folios", NONE " of one unlocked VMA");
	pc_walk_tier_result(s, r, PC_SYS_MLOCK, PC_CHK_MLOCK_FOLIOS, PC_TIER_FEXIT, FUNC,
			    pc_session_hook_walk_why(s, &pc_mlock_trace, RANGE), "folios",
			    NONE "'s " FUNC);
}

static const struct pc_feature_hook feature_hooks[] = {
	{"mlock", FUNC, "mlock/folios: each PMD's range mlock_pte_range locks"},
};

static void mlock_feature_tiers(const struct pc_features *f)
{
	char tiers[480];

	pc_walk_part_tiers_text(f, PC_SYS_MLOCK, "oracle:kpageflags", tiers, sizeof(tiers));
	pc_hook_tier_append(tiers, sizeof(tiers), &f->hooks[RANGE]);
	f->tiers("mlock/folios", tiers);
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
	.groups = groups,
	.n_groups = sizeof(groups) / sizeof(groups[0]),
	.configure = mlock_configure,
	.results = mlock_results,
	.feature_hooks = feature_hooks,
	.n_feature_hooks = sizeof(feature_hooks) / sizeof(feature_hooks[0]),
	.feature_tiers = mlock_feature_tiers,
};
