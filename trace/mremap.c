// SPDX-License-Identifier: GPL-2.0
/*
 * The mremap path's part of a tracing session (bpf/mremap.bpf.c per call,
 * bpf/mremap_batch.bpf.c per batch): its hook groups, results, histograms
 * and `ptecheck features` lines.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>
#include "ptecheck.skel.h"
#include "load.h"
#include "probe.h"
#include "session.h"

/* The path's hook groups, in groups[] order. */
enum { PER_CALL, PER_BATCH };

/* The per-call checks judged against the walk (tiers syscall-walk, fexit). */
static const __u32 per_call[] = {PC_CHK_MOVED, PC_CHK_ADBITS, PC_CHK_PERMS, PC_CHK_PMD_MOVE};
#define N_PER_CALL (sizeof(per_call) / sizeof(per_call[0]))

/*
 * Which prototype move_page_tables has: one struct pagetable_move_control
 * pointer (v6.15+), or (vma, old_addr, new_vma, new_addr, len, ...).
 * Returns 1 for the struct form, 0 for the legacy one, -1 when unknown.
 */
static int mpt_prototype(char *why, size_t len)
{
	const struct btf *btf = pc_vmlinux_btf();
	const struct btf_type *fn, *proto, *t;
	const struct btf_param *params;
	int id;

	if (!btf)
		return -1;
	id = btf__find_by_name_kind(btf, "move_page_tables", BTF_KIND_FUNC);
	if (id < 0)
		return -1;
	fn = btf__type_by_id(btf, id);
	proto = fn ? btf__type_by_id(btf, fn->type) : NULL;
	if (!proto || !btf_is_func_proto(proto))
		return -1;
	params = btf_params(proto);
	if (btf_vlen(proto) == 1) {
		t = btf__type_by_id(btf, params[0].type);
		while (t && (btf_is_ptr(t) || btf_is_mod(t) || btf_is_typedef(t)))
			t = btf__type_by_id(btf, t->type);
		if (t && btf_is_struct(t) &&
		    strcmp(btf__name_by_offset(btf, t->name_off), "pagetable_move_control") == 0)
			return 1;
	}
	if (btf_vlen(proto) >= 5)
		return 0;
	snprintf(why, len, "move_page_tables has an unknown prototype (%u parameters)",
		 btf_vlen(proto));
	return -1;
}

static void per_call_programs(const struct ptecheck_bpf *skel, struct pc_hook_progs *p)
{
	*p = (struct pc_hook_progs){
		.fentry = {skel->progs.mremap_mpt_entry, skel->progs.mremap_mpt_exit},
		.legacy = {skel->progs.mremap_mpt_legacy_entry, skel->progs.mremap_mpt_legacy_exit},
	};
}

static void per_batch_programs(const struct ptecheck_bpf *skel, struct pc_hook_progs *p)
{
	*p = (struct pc_hook_progs){
		.fentry = {skel->progs.mremap_clear_fentry, skel->progs.mremap_clear_fexit,
			   skel->progs.mremap_set_fexit},
		.kprobe = {skel->progs.mremap_clear_kprobe, skel->progs.mremap_clear_kretprobe,
			   skel->progs.mremap_set_kprobe, skel->progs.mremap_set_kretprobe},
	};
}

static const struct pc_hook_group groups[] = {
	/* fentry only: without it the syscall-walk tier covers the same. */
	[PER_CALL] = {.name = "mremap per call (move_page_tables)",
		      .funcs = {"move_page_tables"},
		      .needs_fexit = {true},
		      .needs_walk = true,
		      .prototype = mpt_prototype,
		      .programs = per_call_programs},
	[PER_BATCH] = {.name = "mremap per batch (arm64 contpte_*)",
		       .funcs = {"contpte_get_and_clear_full_ptes", "contpte_set_ptes"},
		       .needs_fexit = {true, true},
		       .kprobe_fallback = true,
		       .programs = per_batch_programs},
};

static void mremap_configure(struct pc_session *s)
{
	const struct pc_hook_choice *batch = pc_session_hook(s, &pc_mremap_trace, PER_BATCH);

	s->skel->rodata->mr_walk_enabled = s->walk_enabled;
	s->skel->rodata->mr_batch_hooks = batch->mech != PC_MECH_NONE;
	s->skel->rodata->mr_batch_tier = pc_hook_tier(batch->mech);
}

/* Without both syscall tracepoints nothing of any path is worth tracing. */
static int mremap_ready(struct pc_session *s)
{
	const char *why;

	if (pc_session_attached(s, s->skel->progs.syscalls_enter) &&
	    pc_session_attached(s, s->skel->progs.syscalls_exit))
		return 0;
	/* The one that is not attached says why: refused, or not attached. */
	why = pc_session_prog_why(s, s->skel->progs.syscalls_enter, NULL);
	if (!why)
		why = pc_session_prog_why(s, s->skel->progs.syscalls_exit, NULL);
	snprintf(s->load_error, sizeof(s->load_error), "%s",
		 why ? why : "cannot attach to raw_syscalls:sys_{enter,exit}");
	return -ENOENT;
}

/* Tier kernel:syscall-walk: the range at sys_enter against sys_exit. */
static void syscall_results(struct pc_session *s, struct pc_report *r)
{
	__u64 in_place = pc_session_stat(s, PC_STAT_CALLS_IN_PLACE);
	char none[160];

	/* A call that moved nothing is not a move: say so where none moved. */
	snprintf(none, sizeof(none), "nothing to judge: no eligible entry in any traced mremap");
	if (in_place)
		snprintf(none + strlen(none), sizeof(none) - strlen(none),
			 " (%llu moved nothing: a shrink or a grow in place)",
			 (unsigned long long)in_place);
	for (size_t i = 0; i < N_PER_CALL; i++) {
		struct pc_result *res = pc_session_result(s, r, per_call[i], PC_TIER_SYSCALL_WALK);

		if (!res)
			continue;
		if (pc_load_sys_refused(s, PC_SYS_MREMAP)) {
			pc_result_set(res, PC_STATUS_SKIP, "%s",
				      pc_load_sys_refused(s, PC_SYS_MREMAP));
			continue;
		}
		if (!s->walk_enabled) {
			pc_result_set(res, PC_STATUS_SKIP, "page-table walk unavailable: %s",
				      s->walk_reason);
			continue;
		}
		pc_session_judge(s, res, per_call[i], PC_TIER_SYSCALL_WALK,
				 per_call[i] == PC_CHK_PMD_MOVE ? "PMD extents" : "entries", none);
		if (per_call[i] == PC_CHK_ADBITS && res->status != PC_STATUS_FAIL &&
		    !s->disturbance_complete) {
			/* Without seeing every reclaim path a lost bit proves nothing. */
			pc_result_set(res, PC_STATUS_SKIP,
				      "cannot observe concurrent reclaim/writeback (%s missing)",
				      s->missing_disturbance);
		}
	}
}

/* Tier kernel:fexit: around move_page_tables, and ad-bits per batch there
   too when the batch hooks are fentry/fexit ones. */
static void fexit_results(struct pc_session *s, struct pc_report *r)
{
	const struct pc_hook_choice *mpt = pc_session_hook(s, &pc_mremap_trace, PER_CALL);
	const struct pc_hook_choice *bat = pc_session_hook(s, &pc_mremap_trace, PER_BATCH);
	bool mpt_live = pc_session_hook_live(s, &pc_mremap_trace, PER_CALL);
	bool bat_fentry =
		pc_session_hook_live(s, &pc_mremap_trace, PER_BATCH) && bat->mech == PC_MECH_FENTRY;

	for (size_t i = 0; i < N_PER_CALL; i++) {
		bool with_batches = per_call[i] == PC_CHK_ADBITS && bat_fentry;
		struct pc_result *res = pc_session_result(s, r, per_call[i], PC_TIER_FEXIT);

		if (!res)
			continue;
		if (!mpt_live && !with_batches) {
			pc_result_set(res, PC_STATUS_SKIP, "no fexit on move_page_tables: %s",
				      mpt->reason);
			continue;
		}
		pc_session_judge(
			s, res, per_call[i], PC_TIER_FEXIT,
			per_call[i] == PC_CHK_PMD_MOVE ? "PMD extents"
			: with_batches && mpt_live     ? "entries and batches"
			: with_batches		       ? "batches"
						       : "entries",
			"nothing to judge: no eligible entry in any traced move_page_tables");
	}
}

/* The per-batch checks (arm64 contpte_*): mremap/batch, and ad-bits per
   batch through kprobes on a tier line of its own. */
static void batch_results(struct pc_session *s, struct pc_report *r)
{
	const struct pc_hook_choice *bat = pc_session_hook(s, &pc_mremap_trace, PER_BATCH);
	bool live = pc_session_hook_live(s, &pc_mremap_trace, PER_BATCH);
	__u32 tier = pc_hook_tier(live ? bat->mech : PC_MECH_FENTRY);
	struct pc_result *res;

	if (live && bat->mech == PC_MECH_KPROBE) {
		res = pc_session_result(s, r, PC_CHK_ADBITS, PC_TIER_KPROBE);
		if (res)
			pc_session_judge(s, res, PC_CHK_ADBITS, PC_TIER_KPROBE, "batches",
					 "no batch of 2 or more PTEs in any traced mremap");
	}
	res = pc_session_result(s, r, PC_CHK_BATCH, tier);
	if (!res)
		return;
	if (!live) {
		pc_result_set(res, PC_STATUS_SKIP,
			      "no per-batch hook here: %s (mremap batches pass no other "
			      "out-of-line function; on x86 they are 1 PTE by design)",
			      bat->reason);
		return;
	}
	pc_session_judge(s, res, PC_CHK_BATCH, tier, "batch facts",
			 "no batch of 2 or more PTEs in any traced mremap: this kernel moved every "
			 "PTE on its own (see the batch histogram)");
}

static void mremap_results(struct pc_session *s, struct pc_report *r)
{
	pc_session_poll(s, 0);
	syscall_results(s, r);
	fexit_results(s, r);
	batch_results(s, r);
}

static const char *tlb_why(const struct pc_session *s)
{
	return pc_session_prog_why(s, s->skel->progs.mremap_tlb_flush,
				   "tracepoint tlb:tlb_flush not attached");
}

/* The latency is mremap's syscall handler's own measure. */
static const char *sys_why(const struct pc_session *s)
{
	return pc_load_sys_refused(s, PC_SYS_MREMAP);
}

static const char *walk_why(const struct pc_session *s)
{
	if (pc_load_sys_refused(s, PC_SYS_MREMAP))
		return pc_load_sys_refused(s, PC_SYS_MREMAP);
	return s->walk_enabled ? NULL : s->walk_reason[0] ? s->walk_reason : "no page-table walk";
}

/* Batches of one PTE are derived from the PTEs the walk saw moved. */
static const char *batch_why(const struct pc_session *s)
{
	const char *why = pc_session_hook_why(s, &pc_mremap_trace, PER_BATCH);

	return why ? why : walk_why(s);
}

static const struct pc_trace_hist hists[] = {
	{PC_HIST_MREMAP_LATENCY_NS, PC_HIST_LOG2, "mremap/latency", "mremap latency", "ns",
	 "raw tracepoint raw_syscalls:sys_{enter,exit}, mremap", sys_why},
	{PC_HIST_MREMAP_TLB_FLUSHES, PC_HIST_LINLOG, "mremap/tlb-flushes",
	 "mremap TLB flushes per call", "flushes", "tracepoint tlb:tlb_flush inside mremap",
	 tlb_why},
	{PC_HIST_MREMAP_PTES_MOVED, PC_HIST_LINLOG, "mremap/ptes-moved",
	 "mremap present PTEs moved per call", "PTEs", "page-table walk at syscall entry/exit",
	 walk_why},
	{PC_HIST_MREMAP_PMDS_MOVED, PC_HIST_LINLOG, "mremap/pmds-moved",
	 "mremap PMD-level moves per call", "PMDs", "page-table walk at syscall entry/exit",
	 walk_why},
	{PC_HIST_BATCH_MREMAP, PC_HIST_LINLOG, "mremap/batch", "mremap PTEs per batch", "PTEs",
	 "contpte_set_ptes per batch of 2+; batches of 1 = PTEs moved minus those", batch_why,
	 "mremap", "contpte_set_ptes"},
};

static const char *const tracepoints[] = {
	"raw_syscalls/sys_enter",
	"raw_syscalls/sys_exit",
	"tlb/tlb_flush",
	NULL,
};

static const struct pc_feature_hook feature_hooks[] = {
	{"mremap", "move_page_tables"},
	{"mremap", "move_normal_pmd"},
	{"arm64 contpte", "contpte_get_and_clear_full_ptes"},
	{"arm64 contpte", "contpte_set_ptes"},
};

/* move_normal_pmd is inlined in many kernels (BTF exists since v5.2, after
   PMD-level moves came in v4.20): the walk sees the move then. */
static void mremap_feature_paths(const struct pc_features *f)
{
	const char *pmd = "move_normal_pmd";

	if (!pc_kernel_has_func("move_normal_pmd"))
		pmd = !pc_vmlinux_btf() ? "no kernel BTF: cannot tell"
		      : f->walk_ok
			      ? "move_normal_pmd inlined here; the move is observed by the "
				"page-table walk"
			      : "move_normal_pmd inlined here; without the page-table walk the "
				"move is not observed";
	f->line("mremap PMD-level move (v4.20+)", pc_vmlinux_btf() != NULL, pmd);
}

static void mremap_feature_tiers(const struct pc_features *f)
{
	const struct pc_hook_choice *mpt = &f->hooks[PER_CALL], *bat = &f->hooks[PER_BATCH];
	char tiers[400];

	snprintf(tiers, sizeof(tiers), "oracle (pagemap, data-loss, COW)%s%s",
		 f->walk_ok ? " + kernel:syscall-walk" : "",
		 mpt->mech ? " + kernel:fexit (move_page_tables)" : "");
	f->tiers("mremap/moved, ad-bits, perms", tiers);
	snprintf(tiers, sizeof(tiers), "%s%s",
		 f->walk_ok ? "kernel:syscall-walk" : "skip: page-table walk unavailable",
		 mpt->mech ? " + kernel:fexit" : "");
	f->tiers("mremap/pmd-move", tiers);
	f->tiers("mremap/folio-intact", "oracle:kpageflags");
	if (bat->mech) {
		snprintf(tiers, sizeof(tiers), "%s (contpte_*)",
			 pc_tier_name(pc_hook_tier(bat->mech)));
		f->tiers("mremap/batch, per-batch ad-bits", tiers);
	} else {
		snprintf(tiers, sizeof(tiers), "skip: %s", bat->reason);
		f->tiers("mremap/batch", tiers);
	}
}

const struct pc_trace_path pc_mremap_trace = {
	.name = "mremap",
	.groups = groups,
	.n_groups = sizeof(groups) / sizeof(groups[0]),
	.configure = mremap_configure,
	.ready = mremap_ready,
	.results = mremap_results,
	.hist_table = hists,
	.n_hist_table = sizeof(hists) / sizeof(hists[0]),
	.tracepoints = tracepoints,
	.feature_hooks = feature_hooks,
	.n_feature_hooks = sizeof(feature_hooks) / sizeof(feature_hooks[0]),
	.feature_paths = mremap_feature_paths,
	.feature_tiers = mremap_feature_tiers,
};
