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
#include "calib.h"
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

/* Why the fexit tier cannot judge here, or NULL (the vmemmap: the pages'
   exclusivity is read through it). */
static const char *cow_why(const struct pc_session *s)
{
	const char *why = pc_session_hook_why(s, &pc_fork_trace, COW);

	return why ? why
		   : pc_calib_vmemmap_why(&s->calib,
					  "no vmemmap: the pages of PTEs cannot be read");
}

static void fork_configure(struct pc_session *s)
{
	s->skel->rodata->fk_enabled =
		pc_session_hook(s, &pc_fork_trace, COW)->mech != PC_MECH_NONE &&
		pc_calib_vmemmap_ok(&s->calib);
}

/* Tier kernel:fexit of fork/cow. */
static void fork_results(struct pc_session *s, struct pc_report *r)
{
	struct pc_result *res = pc_session_result(s, r, PC_CHK_FORK_COW, PC_TIER_FEXIT);
	const char *why = cow_why(s);

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
	char tiers[400];

	f->tiers("fork/dirty, rmap", "oracle:data-loss, oracle:kpagecount");
	snprintf(tiers, sizeof(tiers), "oracle:cow, oracle:write-fault%s%s",
		 f->hooks[COW].mech ? " + kernel:fexit" : "; kernel:fexit skips: ",
		 f->hooks[COW].mech ? "" : f->hooks[COW].reason);
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
