// SPDX-License-Identifier: GPL-2.0
/*
 * The zap path's part of a tracing session: its tiers (bpf/zap.bpf.c:
 * zap/rmap and zap/dirty, the large page-cache folios a zap unmaps, read
 * before and after it: at a munmap's or MADV_DONTNEED's entry and exit,
 * the syscall-walk tier; at fentry and fexit of unmap_page_range, the hook
 * tier, which sees the exit's zap too), their results and the path's
 * `features` lines.  The suite's oracles (verify/zap*.c: RssAnon/RssShmem
 * and VmSwap, kpagecount and kpageflags after the zap) judge every zap
 * check on every kernel; the batch path counts its batches
 * (munmap/batch/<source>, madvise-dontneed/batch/<source>,
 * exit/batch/<source>: trace/batch.c).
 */
#include <stdio.h>
#include "probe.h"
#include "ptecheck.skel.h"
#include "report.h"
#include "walk_part.h"

#define FUNC   "unmap_page_range"
#define FUNC_7 "__zap_vma_range" /* its name in v7.2 (linux-source-7.2), same arguments */

/* One function or the other is in a kernel: each its own group, tried. */
enum { RANGE, RANGE_7 };

static void range_programs(const struct ptecheck_bpf *skel, struct pc_hook_progs *p)
{
	*p = (struct pc_hook_progs){
		.fentry = {skel->progs.zap_range_fentry, skel->progs.zap_range_fexit}};
}

static void range_7_programs(const struct ptecheck_bpf *skel, struct pc_hook_progs *p)
{
	*p = (struct pc_hook_progs){
		.fentry = {skel->progs.zap_vrange_fentry, skel->progs.zap_vrange_fexit}};
}

/* fentry and fexit only: the fexit reads the folios the fentry noted, by
   the arguments a kretprobe does not have. */
static const struct pc_hook_group groups[] = {
	[RANGE] = {.name = "zap per range (" FUNC ")",
		   .funcs = {FUNC},
		   .needs_fexit = {true},
		   .needs_walk = true,
		   .programs = range_programs},
	[RANGE_7] = {.name = "zap per range (" FUNC_7 ")",
		     .funcs = {FUNC_7},
		     .needs_fexit = {true},
		     .needs_walk = true,
		     .programs = range_7_programs},
};

/* The group that attached, or -1. */
static int live_group(const struct pc_session *s)
{
	for (int g = RANGE; g <= RANGE_7; g++)
		if (pc_session_hook(s, &pc_zap_trace, g)->mech != PC_MECH_NONE)
			return g;
	return -1;
}

/* Why the hook tier cannot judge here, or NULL. */
static const char *hook_why(const struct pc_session *s)
{
	static char why[700];
	int g = live_group(s);

	if (g >= 0)
		return pc_session_hook_walk_why(s, &pc_zap_trace, g);
	snprintf(why, sizeof(why), "%s; %s", pc_session_hook_why(s, &pc_zap_trace, RANGE),
		 pc_session_hook_why(s, &pc_zap_trace, RANGE_7));
	return why;
}

static void zap_configure(struct pc_session *s)
{
	pc_walk_part_configure(s, PC_SYS_ZAP);
	s->skel->rodata->zp_hook_enabled = pc_session_hook_walk_on(s, &pc_zap_trace, RANGE) ||
					   pc_session_hook_walk_on(s, &pc_zap_trace, RANGE_7);
}

/* Tier tier of check; zap/dirty skips where writeback goes unseen (a
   folio cleaned by it proves nothing). */
static void zap_result(struct pc_session *s, struct pc_report *r, __u32 check, __u32 tier,
		       const char *none)
{
	struct pc_result *res =
		pc_walk_tier_result(s, r, PC_SYS_ZAP, check, tier, FUNC " or " FUNC_7,
				    tier == PC_TIER_FEXIT ? hook_why(s) : NULL, "folios", none);

	if (check == PC_CHK_ZAP_DIRTY)
		pc_walk_needs_disturbance(s, res);
}

/* Both tiers of zap/rmap and zap/dirty (one result at a time: adding one
   may move the others). */
static void zap_results(struct pc_session *s, struct pc_report *r)
{
	static const __u32 tiers[] = {PC_TIER_SYSCALL_WALK, PC_TIER_FEXIT};

	for (size_t t = 0; t < sizeof(tiers) / sizeof(tiers[0]); t++) {
		zap_result(s, r, PC_CHK_ZAP_RMAP, tiers[t],
			   "nothing to judge: no large page-cache folio, its file mapped by this "
			   "process alone, in a traced zap of one of ptecheck's scenarios (or no "
			   "_large_mapcount: before v6.11)");
		zap_result(s, r, PC_CHK_ZAP_DIRTY, tiers[t],
			   "nothing to judge: no clean page-cache folio whose zapped PTE was dirty "
			   "in a traced zap of one of ptecheck's scenarios");
	}
}

static const struct pc_feature_hook feature_hooks[] = {
	{"zap", FUNC, "zap/rmap, dirty: each range a zap unmaps, the exit's included"},
	{"zap", FUNC_7, "the same, by its v7.2 name"},
};

static void zap_feature_tiers(const struct pc_features *f)
{
	const struct pc_hook_choice *h = &f->hooks[f->hooks[RANGE_7].mech ? RANGE_7 : RANGE];
	char tiers[480];

	f->tiers("zap/rss", "oracle:status-rss");
	for (int k = 0; k < 2; k++) {
		pc_walk_part_tiers_text(f, PC_SYS_ZAP,
					k ? "oracle:kpageflags" : "oracle:kpagecount", tiers,
					sizeof(tiers));
		pc_hook_tier_append(tiers, sizeof(tiers), h);
		f->tiers(k ? "zap/dirty" : "zap/rmap", tiers);
	}
}

const struct pc_trace_path pc_zap_trace = {
	.name = "zap",
	.oracle =
		&(const struct pc_oracle_features){
			/* In every kernel's BTF; unmap_page_range left in v7.2. */
			.func = "unmap_vmas",
			.label = "zap (unmap_vmas)",
			.have = "its large-folio batches: the batch path's munmap, "
				"madvise-dontneed and exit histograms",
		},
	.groups = groups,
	.n_groups = sizeof(groups) / sizeof(groups[0]),
	.configure = zap_configure,
	.results = zap_results,
	.feature_hooks = feature_hooks,
	.n_feature_hooks = sizeof(feature_hooks) / sizeof(feature_hooks[0]),
	.feature_tiers = zap_feature_tiers,
};
