// SPDX-License-Identifier: GPL-2.0
/*
 * The mprotect path's part of a tracing session: its tiers
 * (bpf/mprotect.bpf.c: mprotect/write, every writable anonymous PTE of a
 * range made writable maps an exclusive page; mprotect/soft-dirty and
 * uffd-wp, each entry's bit kept: at mprotect's entry and exit, and in
 * guests at fentry and fexit of change_protection), their results and
 * the path's `features` lines.  The suite's oracles (verify/mprotect*.c:
 * pagemap's soft-dirty bits and PFNs, the data read back, write faults)
 * judge its checks on every kernel; the batch path counts its batches
 * (mprotect/batch/<source>: trace/batch.c).
 */
#include <stdio.h>
#include "probe.h"
#include "ptecheck.skel.h"
#include "report.h"
#include "walk_part.h"

#define FUNC "change_protection"

enum { CHANGE };

static void change_programs(const struct ptecheck_bpf *skel, struct pc_hook_progs *p)
{
	*p = (struct pc_hook_progs){
		.fentry = {skel->progs.mprotect_change_fentry, skel->progs.mprotect_change_fexit}};
}

/* fentry and fexit: the fexit reads again what the fentry read. */
static const struct pc_hook_group groups[] = {
	[CHANGE] = {.name = "mprotect per range (" FUNC ")",
		    .funcs = {FUNC},
		    .needs_fexit = {true},
		    .needs_walk = true,
		    .programs = change_programs},
};

static void mprotect_configure(struct pc_session *s)
{
	pc_walk_part_configure(s, PC_SYS_MPROTECT);
	s->skel->rodata->mp_hook_enabled = pc_session_hook_walk_on(s, &pc_mprotect_trace, CHANGE);
}

/* Tier tier of check, nothing judged: why. */
static void tier_result(struct pc_session *s, struct pc_report *r, __u32 check, __u32 tier,
			const char *none)
{
	pc_walk_tier_result(s, r, PC_SYS_MPROTECT, check, tier, FUNC,
			    tier == PC_TIER_FEXIT
				    ? pc_session_hook_walk_why(s, &pc_mprotect_trace, CHANGE)
				    : NULL,
			    "entries", none);
}

/* Both tiers of mprotect/write, soft-dirty and uffd-wp (one result at a
   time: adding one may move the others). */
static void mprotect_results(struct pc_session *s, struct pc_report *r)
{
	static const __u32 tiers[] = {PC_TIER_SYSCALL_WALK, PC_TIER_FEXIT};

	for (size_t t = 0; t < sizeof(tiers) / sizeof(tiers[0]); t++) {
		tier_result(s, r, PC_CHK_MP_WRITE, tiers[t],
			    "nothing to judge: no writable PTE of an anonymous folio in a traced "
			    "protection change that granted write");
		tier_result(s, r, PC_CHK_MP_SOFT_DIRTY, tiers[t],
			    "nothing to judge: no soft-dirty PTE in a traced protection change "
			    "(x86 only; judged in ptecheck's own scenarios)");
		tier_result(s, r, PC_CHK_MP_UFFD_WP, tiers[t],
			    "nothing to judge: no uffd-wp-protected PTE in a traced protection "
			    "change (judged in ptecheck's own scenarios)");
	}
}

static const struct pc_feature_hook feature_hooks[] = {
	{"mprotect", FUNC, "mprotect/write, soft-dirty, uffd-wp: each VMA's range it changes"},
};

/* A check's tiers: oracles, the syscall walk's, the hook's. */
static void tiers_line(const struct pc_features *f, const char *check, const char *oracles)
{
	char tiers[480];

	pc_walk_part_tiers_text(f, PC_SYS_MPROTECT, oracles, tiers, sizeof(tiers));
	pc_hook_tier_append(tiers, sizeof(tiers), &f->hooks[CHANGE]);
	f->tiers(check, tiers);
}

static void mprotect_feature_tiers(const struct pc_features *f)
{
	tiers_line(f, "mprotect/soft-dirty, uffd-wp", "oracle:pagemap");
	f->tiers("mprotect/mapped", "oracle:pagemap, oracle:data");
	tiers_line(f, "mprotect/write", "oracle:write-fault");
}

const struct pc_trace_path pc_mprotect_trace = {
	.name = "mprotect",
	.oracle =
		&(const struct pc_oracle_features){
			.func = FUNC,
			.label = "mprotect (" FUNC ")",
			.have = "its large-folio batches: the batch path's mprotect histograms",
		},
	.groups = groups,
	.n_groups = sizeof(groups) / sizeof(groups[0]),
	.configure = mprotect_configure,
	.results = mprotect_results,
	.feature_hooks = feature_hooks,
	.n_feature_hooks = sizeof(feature_hooks) / sizeof(feature_hooks[0]),
	.feature_tiers = mprotect_feature_tiers,
};
