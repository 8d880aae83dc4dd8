// SPDX-License-Identifier: GPL-2.0
/*
 * The madvise path's part of a tracing session: its tiers
 * (bpf/madvise.bpf.c: madvise/range, the PTEs next to a MADV_FREE range
 * read at the call's entry and exit, and in guests next to each PMD's part
 * of it at fentry and fexit of madvise_free_pte_range), their results and
 * its `features` lines.  The suite's oracles (verify/madvise*.c: smaps LazyFree, data
 * read back after reclaim) judge both checks on every kernel; the batch
 * path counts MADV_FREE's batches (madvise-free/batch/<source>).
 */
#include <stdio.h>
#include "probe.h"
#include "ptecheck.skel.h"
#include "report.h"
#include "walk_part.h"

#define FUNC "madvise_free_pte_range"

enum { FREE };

static void free_programs(const struct ptecheck_bpf *skel, struct pc_hook_progs *p)
{
	*p = (struct pc_hook_progs){
		.fentry = {skel->progs.madvise_free_fentry, skel->progs.madvise_free_fexit}};
}

/* fentry and fexit: the fexit reads again what the fentry read. */
static const struct pc_hook_group groups[] = {
	[FREE] = {.name = "madvise FREE per PMD (" FUNC ")",
		  .funcs = {FUNC},
		  .needs_fexit = {true},
		  .needs_walk = true,
		  .programs = free_programs},
};

static void madvise_configure(struct pc_session *s)
{
	pc_walk_part_configure(s, PC_SYS_MADVISE);
	s->skel->rodata->mv_hook_enabled = pc_session_hook_walk_on(s, &pc_madvise_trace, FREE);
}

#define NONE "nothing to judge: no dirty PTE of an anonymous folio next to "

/* Tiers kernel:syscall-walk and kernel:fexit of madvise/range: a dirty
   bit lost while reclaim or writeback ran unseen proves nothing (one
   result at a time: adding one may move the other). */
static void madvise_results(struct pc_session *s, struct pc_report *r)
{
	struct pc_result *res =
		pc_walk_tier_result(s, r, PC_SYS_MADVISE, PC_CHK_MADV_RANGE, PC_TIER_SYSCALL_WALK,
				    NULL, NULL, "entries", NONE "a traced MADV_FREE range");

	pc_walk_needs_disturbance(s, res);
	res = pc_walk_tier_result(s, r, PC_SYS_MADVISE, PC_CHK_MADV_RANGE, PC_TIER_FEXIT, FUNC,
				  pc_session_hook_walk_why(s, &pc_madvise_trace, FREE), "entries",
				  NONE "a traced " FUNC "'s part of a range");
	pc_walk_needs_disturbance(s, res);
}

static const struct pc_feature_hook feature_hooks[] = {
	{"madvise", FUNC, "madvise/range: the entries next to each PMD's part of a MADV_FREE"},
};

static void madvise_feature_tiers(const struct pc_features *f)
{
	char tiers[480];

	f->tiers("madvise/lazyfree", "oracle:smaps");
	pc_walk_part_tiers_text(f, PC_SYS_MADVISE, "oracle:smaps, oracle:data-loss", tiers,
				sizeof(tiers));
	pc_hook_tier_append(tiers, sizeof(tiers), &f->hooks[FREE]);
	f->tiers("madvise/range", tiers);
}

const struct pc_trace_path pc_madvise_trace = {
	.name = "madvise",
	.oracle =
		&(const struct pc_oracle_features){
			.func = FUNC,
			.label = "madvise FREE",
			.have = FUNC ": its large-folio batches in the batch path's madvise-free "
				     "histograms",
		},
	.groups = groups,
	.n_groups = sizeof(groups) / sizeof(groups[0]),
	.configure = madvise_configure,
	.results = madvise_results,
	.feature_hooks = feature_hooks,
	.n_feature_hooks = sizeof(feature_hooks) / sizeof(feature_hooks[0]),
	.feature_tiers = madvise_feature_tiers,
};
