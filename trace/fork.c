// SPDX-License-Identifier: GPL-2.0
/*
 * The fork path's part of a tracing session: its hook tier
 * (bpf/fork.bpf.c: fork/cow [kernel:fexit], the parent's writable
 * anonymous PTEs of every VMA fork copied map exclusive pages), its
 * results and its `features` lines.  The suite's oracles (verify/fork*.c:
 * data read back after reclaim, kpagecount, the child's view of the
 * parent's writes) judge its checks on every kernel; the batch path
 * counts its batches (fork/batch/<source>: trace/batch.c).
 */
#include <stdio.h>
#include "walk_part.h"
#include "load.h"
#include "probe.h"
#include "ptecheck.skel.h"
#include "report.h"
#include "session.h"

#define FUNC "copy_page_range"

enum { COW };

static void cow_programs(const struct ptecheck_bpf *skel, struct pc_hook_progs *p)
{
	*p = (struct pc_hook_progs){.fentry = {skel->progs.fork_copy_fexit}};
}

/* fexit only: it reads the PTEs copy_page_range left, with its arguments;
   a kretprobe has neither. */
static const struct pc_hook_group groups[] = {
	[COW] = {.name = "fork per VMA (" FUNC ")",
		 .funcs = {FUNC},
		 .needs_fexit = {true},
		 .needs_walk = true,
		 .programs = cow_programs},
};

static void fork_configure(struct pc_session *s)
{
	s->skel->rodata->fk_enabled = pc_session_hook_walk_on(s, &pc_fork_trace, COW);
}

/* Tier kernel:fexit of fork/cow. */
static void fork_results(struct pc_session *s, struct pc_report *r)
{
	struct pc_result *res = pc_session_result(s, r, PC_CHK_FORK_COW, PC_TIER_FEXIT);
	/* the pages' exclusivity is read through the vmemmap */
	const char *why = pc_session_hook_walk_why(s, &pc_fork_trace, COW);

	if (!res)
		return;
	if (why)
		pc_result_set(res, PC_STATUS_SKIP, "no fexit on " FUNC ": %s", why);
	else
		pc_session_judge(s, res, PC_CHK_FORK_COW, PC_TIER_FEXIT, "entries",
				 "nothing to judge: no PTE of an anonymous folio in a VMA a traced "
				 "fork copied");
}

static const struct pc_feature_hook feature_hooks[] = {
	{"fork", FUNC, "fork/cow: the parent's PTEs after each VMA's copy"},
};

static void fork_feature_tiers(const struct pc_features *f)
{
	char tiers[400] = "oracle:cow, oracle:write-fault";

	f->tiers("fork/dirty, rmap", "oracle:data-loss, oracle:kpagecount");
	pc_hook_tier_append(tiers, sizeof(tiers), &f->hooks[COW]);
	f->tiers("fork/cow", tiers);
}

const struct pc_trace_path pc_fork_trace = {
	.name = "fork",
	.oracle =
		&(const struct pc_oracle_features){
			.func = FUNC,
			.label = "fork (" FUNC ")",
			.have = "its large-folio batches: the batch path's fork histograms",
		},
	.groups = groups,
	.n_groups = sizeof(groups) / sizeof(groups[0]),
	.configure = fork_configure,
	.results = fork_results,
	.feature_hooks = feature_hooks,
	.n_feature_hooks = sizeof(feature_hooks) / sizeof(feature_hooks[0]),
	.feature_tiers = fork_feature_tiers,
};
