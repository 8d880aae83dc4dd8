// SPDX-License-Identifier: GPL-2.0
/*
 * The arm64 contpte path's part of a tracing session (bpf/contpte.bpf.c):
 * its hook groups, results, histograms and `ptecheck features` lines.
 */
#include <stdio.h>
#include <string.h>
#include <bpf/bpf.h>
#include "load.h"
#include "contpte_ptl.h"
#include "ptecheck.skel.h"
#include "probe.h"
#include "session.h"

/* The path's hook groups, in groups[] order. */
enum { BLOCKS, CLEAR_YOUNG };

#define KPROBES_ONLY "most of these functions pass pte_t by value"

static void block_programs(const struct ptecheck_bpf *skel, struct pc_hook_progs *p)
{
	*p = (struct pc_hook_progs){
		.kprobe = {skel->progs.contpte_get_kprobe, skel->progs.contpte_get_kretprobe,
			   skel->progs.contpte_fold_kprobe, skel->progs.contpte_fold_kretprobe,
			   skel->progs.contpte_unfold_kprobe, skel->progs.contpte_unfold_kretprobe},
	};
}

static void young_programs(const struct ptecheck_bpf *skel, struct pc_hook_progs *p)
{
	*p = (struct pc_hook_progs){
		.kprobe = {skel->progs.contpte_young_kprobe, skel->progs.contpte_young_kretprobe},
	};
}

static const struct pc_hook_group groups[] = {
	[BLOCKS] = {.name = "arm64 contpte (gather, fold, unfold)",
		    .funcs = {"contpte_ptep_get", "__contpte_try_fold", "__contpte_try_unfold"},
		    .kprobes_only = KPROBES_ONLY,
		    .programs = block_programs},
	/* The v6.16+ name. */
	[CLEAR_YOUNG] = {.name = "arm64 contpte clear-young",
			 .funcs = {"contpte_test_and_clear_young_ptes"},
			 .kprobes_only = KPROBES_ONLY,
			 .programs = young_programs},
};

/* Where the gather is judged: under the page-table lock read from the
   table's struct page when that calibrates here, else inside the locked
   syscalls.  Decided once the contpte hooks are chosen. */
static void contpte_configure(struct pc_session *s)
{
	/* Without the gather's hooks the locked syscalls' span judges
	   nothing: no program at every syscall for it. */
	if (pc_session_hook(s, &pc_contpte_trace, BLOCKS)->mech == PC_MECH_NONE) {
		s->skel->rodata->sys_contpte = false;
		return;
	}
	pc_contpte_judging_apply(pc_contpte_judging(), s->skel);
}

static bool judged_by_lock(void)
{
	return pc_contpte_judging()->ptl;
}

/* The syscalls whose page walks hold the page-table lock, where
   contpte_ptep_get is judged: all of them are seen to begin and end. */
static bool locked_walks_traced(const struct pc_session *s)
{
	return !pc_load_sys_refused(s, PC_SYS_CONTPTE) &&
	       !pc_session_missing(s, s->skel->progs.syscalls_enter) &&
	       !pc_session_missing(s, s->skel->progs.syscalls_exit);
}

/* Why check cannot be judged here, or NULL. */
static const char *skip_reason(struct pc_session *s, __u32 check, char *buf, size_t len)
{
	const struct pc_hook_choice *blocks = pc_session_hook(s, &pc_contpte_trace, BLOCKS);
	bool live = pc_session_hook_live(s, &pc_contpte_trace, BLOCKS);

	if (!live && !pc_kernel_has_func("contpte_ptep_get"))
		return "this kernel has no contpte_ptep_get: contiguous PTEs exist only on arm64 "
		       "kernels with CONFIG_ARM64_CONTPTE";
	if (!live)
		snprintf(buf, len, "no hook on the contpte functions: %s", blocks->reason);
	else if (check == PC_CHK_CP_YOUNG &&
		 !pc_session_hook_live(s, &pc_contpte_trace, CLEAR_YOUNG))
		snprintf(buf, len, "no hook on clear-young: %s",
			 pc_session_hook(s, &pc_contpte_trace, CLEAR_YOUNG)->reason);
	else if (check == PC_CHK_CP_GATHER && !judged_by_lock() && !locked_walks_traced(s))
		snprintf(buf, len,
			 "the raw_syscalls tracepoints that mark the locked walks of mlock, "
			 "munlock and madvise did not attach (%s)",
			 s->missing_tracepoints);
	else
		return NULL;
	return buf;
}

static const char *const ctx_labels[] = {
#define CTX_LABEL(id, label) [PC_CP_CTX_##id] = label,
	PC_CONTPTE_CONTEXTS(CTX_LABEL)
#undef CTX_LABEL
};

/*
 * The locked reads per context into what ("contpte_ptep_get reads under
 * the page-table lock (smaps 3, pagemap 40)"); returns the violations
 * counted in contexts that a read with the lock free refuted: those are
 * inconclusive, as the lock was not proven held for them.
 */
static __u64 lock_reads(struct pc_session *s, char *what, size_t len, char *refuted, size_t rlen)
{
	int fd = bpf_map__fd(s->skel->maps.cp_reads);
	size_t n = (size_t)snprintf(what, len, "contpte_ptep_get reads under the page-table lock");
	size_t r = 0;
	__u64 rv = 0, unreadable = 0;
	int shown = 0;

	refuted[0] = 0;
	for (__u32 c = 0; c < PC_CP_CTX__COUNT && n < len && r < rlen; c++) {
		struct pc_cp_reads v = {0};

		if (bpf_map_lookup_elem(fd, &c, &v))
			continue;
		unreadable += v.unreadable;
		if (v.judged)
			n += (size_t)snprintf(what + n, len - n, "%s%s %llu", shown++ ? ", " : " (",
					      ctx_labels[c], (unsigned long long)v.judged);
		if (v.refuted) {
			r += (size_t)snprintf(refuted + r, rlen - r, "%s%s", r ? ", " : "",
					      ctx_labels[c]);
			rv += v.violations;
		}
	}
	if (unreadable && n < len)
		n += (size_t)snprintf(what + n, len - n, "%slock word unreadable in %llu",
				      shown++ ? "; " : " (", (unsigned long long)unreadable);
	if (shown && n < len)
		snprintf(what + n, len - n, ")");
	return rv;
}

/* contpte/gather judged under the lock: refuted contexts' violations are
   inconclusive, and the summary says which contexts were refuted. */
static void judge_gather_locked(struct pc_session *s, struct pc_result *res)
{
	char what[200], refuted[120];
	__u64 rv = lock_reads(s, what, sizeof(what), refuted, sizeof(refuted));

	pc_session_judge(s, res, PC_CHK_CP_GATHER, PC_TIER_KPROBE, what,
			 "nothing to judge: no contpte_ptep_get read by a caller holding the "
			 "page-table lock in any traced process");
	if (!refuted[0])
		return;
	if (rv > res->violations)
		rv = res->violations;
	/* Not judged after all (include/ptecheck/counts.h). */
	res->violations -= rv;
	res->checked -= rv;
	res->inconclusive += rv;
	if (res->violations == 0)
		res->n_evidence = 0;
	pc_result_set(res,
		      res->violations ? PC_STATUS_FAIL
		      : res->checked  ? PC_STATUS_PASS
				      : PC_STATUS_SKIP,
		      "%llu of %llu judged reads violate the invariant; %llu inconclusive: read "
		      "with the lock free by %s, which then were judged no more",
		      (unsigned long long)res->violations, (unsigned long long)res->checked,
		      (unsigned long long)res->inconclusive, refuted);
}

static void contpte_results(struct pc_session *s, struct pc_report *r)
{
	static const __u32 checks[] = {PC_CHK_CP_GATHER, PC_CHK_CP_FOLD, PC_CHK_CP_YOUNG};
	static const char *const what[] = {"contpte_ptep_get calls in locked walks",
					   "folds, folded and unfolded entries",
					   "clear-young calls"};

	pc_session_poll(s, 0);
	if (pc_session_hook_live(s, &pc_contpte_trace, BLOCKS))
		pc_report_note(r, "contpte/gather judged: %s", pc_contpte_judging()->how);
	for (size_t i = 0; i < sizeof(checks) / sizeof(checks[0]); i++) {
		struct pc_result *res = pc_session_result(s, r, checks[i], PC_TIER_KPROBE);
		char buf[400];
		const char *why;

		if (!res)
			continue;
		why = skip_reason(s, checks[i], buf, sizeof(buf));
		if (why)
			pc_result_set(res, PC_STATUS_SKIP, "%s", why);
		else if (checks[i] == PC_CHK_CP_GATHER && judged_by_lock())
			judge_gather_locked(s, res);
		else
			pc_session_judge(s, res, checks[i], PC_TIER_KPROBE, what[i],
					 "nothing to judge: no such call in any traced process's "
					 "locked walk");
	}
}

static const char *blocks_why(const struct pc_session *s)
{
	return pc_session_hook_why(s, &pc_contpte_trace, BLOCKS);
}

static const char *young_why(const struct pc_session *s)
{
	return pc_session_hook_why(s, &pc_contpte_trace, CLEAR_YOUNG);
}

static const struct pc_trace_hist hists[] = {
	{PC_HIST_CP_GATHER_READS, PC_HIST_LINLOG, "contpte/gather-reads",
	 "contpte_ptep_get: entries the gather loop reads", "entries",
	 "derived from the block at entry (loop stops once young and dirty seen)", blocks_why},
	{PC_HIST_CP_YOUNG_NR, PC_HIST_LINLOG, "contpte/clear-young",
	 "contpte_test_and_clear_young_ptes nr", "PTEs", "kprobe argument", young_why},
};

static const char *const tracepoints[] = {NULL};

static const struct pc_feature_hook feature_hooks[] = {
	{"arm64 contpte", "contpte_ptep_get"},
};

static void contpte_feature_paths(const struct pc_features *f)
{
	bool have = pc_kernel_has_func("contpte_ptep_get");

	f->line("arm64 contpte (v6.9+)", have,
		have ? "contpte_ptep_get"
		     : "contpte_ptep_get absent: not arm64, or no contpte support");
}

static void contpte_feature_tiers(const struct pc_features *f)
{
	const struct pc_cp_judging *j = f->hooks[BLOCKS].mech ? pc_contpte_judging() : NULL;

	if (j)
		f->line("contpte/gather under the page-table lock", j->ptl, j->how);
	f->tiers("contpte/gather, fold, clear-young",
		 f->hooks[BLOCKS].mech			  ? "kernel:kprobe (contpte_*) + oracles"
		 : pc_kernel_has_func("contpte_ptep_get") ? "oracles only (no kprobes here)"
							  : "skip: no contiguous PTEs in this "
							    "kernel (arm64 only)");
}

const struct pc_trace_path pc_contpte_trace = {
	.name = "contpte",
	.groups = groups,
	.n_groups = sizeof(groups) / sizeof(groups[0]),
	.configure = contpte_configure,
	.results = contpte_results,
	.hist_table = hists,
	.n_hist_table = sizeof(hists) / sizeof(hists[0]),
	.tracepoints = tracepoints,
	.feature_hooks = feature_hooks,
	.n_feature_hooks = sizeof(feature_hooks) / sizeof(feature_hooks[0]),
	.feature_paths = contpte_feature_paths,
	.feature_tiers = contpte_feature_tiers,
};
