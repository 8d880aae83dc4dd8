// SPDX-License-Identifier: GPL-2.0
/*
 * The batch path's part of a tracing session (bpf/batch*.bpf.c): no checks,
 * only the histograms of PTEs per batch of every path that batches, one per
 * (source, context) pair (include/ptecheck/batch.h), and the `ptecheck
 * features` lines saying which sources this kernel has.
 */
#include <stdio.h>
#include <string.h>
#include "batch.h"
#include "batch_walk.h"
#include "ptecheck.skel.h"
#include "probe.h"
#include "session.h"

/* The path's hook groups, in groups[] order: one per kernel source. */
enum { FPB, RMAP, CP_SET, CP_CLEAR, CP_WRPROTECT, CP_PROT, CP_YOUNG_DIRTY };

static const char *const ctx_names[PC_BCTX__COUNT] = {
	[PC_BCTX_MUNMAP] = "munmap",
	[PC_BCTX_MMAP] = "mmap/brk",
	[PC_BCTX_EXIT] = "exit",
	[PC_BCTX_EXEC] = "execve",
	[PC_BCTX_FORK] = "fork",
	[PC_BCTX_MPROTECT] = "mprotect",
	[PC_BCTX_MLOCK] = "mlock",
	[PC_BCTX_MUNLOCK] = "munlock",
	[PC_BCTX_MADV_DONTNEED] = "madvise DONTNEED",
	[PC_BCTX_MADV_FREE] = "madvise FREE",
	[PC_BCTX_MADV_COLD] = "madvise COLD",
	[PC_BCTX_MADV_PAGEOUT] = "madvise PAGEOUT",
	[PC_BCTX_MADV_COLLAPSE] = "madvise COLLAPSE",
	[PC_BCTX_MADV_OTHER] = "madvise other",
	[PC_BCTX_MREMAP] = "mremap",
	[PC_BCTX_MEMPOLICY] = "mempolicy",
	[PC_BCTX_KHUGEPAGED] = "khugepaged",
	[PC_BCTX_RECLAIM] = "reclaim",
	[PC_BCTX_FAULT] = "page fault",
	[PC_BCTX_KTHREAD] = "kernel thread",
	[PC_BCTX_OTHER_SYSCALL] = "other syscall",
};

/* A source: its name in histogram titles, what it counts, its group. */
struct batch_source {
	const char *label;  /* "folio_pte_batch" */
	const char *source; /* the histogram's source line */
	int group;	    /* in groups[], -1: not a hook (the derived source) */
	const char *absent; /* `features`, when its functions are not out of line */
};

/* The arm64 helpers are reached from set_ptes() & co. only for nr > 1. */
#define CP_NR_NOTE " (a batch of 1 takes the inline path: not seen)"

static const struct batch_source sources[PC_BSRC__COUNT] = {
	[PC_BSRC_FPB] = {"folio_pte_batch", "folio_pte_batch return value, by the caller's context",
			 FPB, "its batch sizes not observable"},
	[PC_BSRC_RMAP_REMOVE] = {"folio_remove_rmap_ptes",
				 "folio_remove_rmap_ptes nr (zap: munmap, exit, MADV_DONTNEED)",
				 RMAP, "zap's rmap batches not observable"},
	[PC_BSRC_CP_SET] = {"contpte_set_ptes", "contpte_set_ptes nr" CP_NR_NOTE, CP_SET,
			    "arm64 only: set_ptes batches not observable"},
	[PC_BSRC_CP_CLEAR] = {"contpte_*clear_full_ptes",
			      "contpte_get_and_clear_full_ptes and contpte_clear_full_ptes "
			      "nr" CP_NR_NOTE,
			      CP_CLEAR, "arm64 only: zap's PTE clears not observable"},
	[PC_BSRC_CP_WRPROTECT] = {"contpte_wrprotect_ptes", "contpte_wrprotect_ptes nr" CP_NR_NOTE,
				  CP_WRPROTECT, "arm64 only: fork's write-protect not observable"},
	[PC_BSRC_CP_PROT] = {"modify_prot_start_ptes",
			     "arm64 modify_prot_start_ptes nr (every batch, 1 included)", CP_PROT,
			     "arm64 with batched mprotect only: mprotect batches not observable"},
	[PC_BSRC_CP_YOUNG_DIRTY] = {"contpte_clear_young_dirty_ptes",
				    "contpte_clear_young_dirty_ptes nr" CP_NR_NOTE, CP_YOUNG_DIRTY,
				    "arm64 only: MADV_FREE's batches not observable"},
	[PC_BSRC_WALK] = {"derived",
			  "page-table walk at syscall entry: PTE runs of one large folio (not "
			  "folio_pte_batch's result)",
			  -1},
};

const char *pc_batch_ctx_name(__u32 ctx)
{
	return ctx < PC_BCTX__COUNT && ctx_names[ctx] ? ctx_names[ctx] : "?";
}

static void fpb_programs(const struct ptecheck_bpf *skel, struct pc_hook_progs *p)
{
	*p = (struct pc_hook_progs){
		.fentry = {skel->progs.batch_fpb_fexit},
		.kprobe = {skel->progs.batch_fpb_kretprobe},
	};
}

/* A helper's programs: bpf/batch_helpers.bpf.c, one fentry and one kprobe. */
#define HELPER_PROGRAMS(fn, prog)                                                                  \
	static void fn(const struct ptecheck_bpf *skel, struct pc_hook_progs *p)                   \
	{                                                                                          \
		*p = (struct pc_hook_progs){.fentry = {skel->progs.prog##_fentry},                 \
					    .kprobe = {skel->progs.prog##_kprobe}};                \
	}
HELPER_PROGRAMS(rmap_programs, batch_rmap)
HELPER_PROGRAMS(cp_set_programs, batch_cp_set)
HELPER_PROGRAMS(cp_wrprotect_programs, batch_cp_wrprotect)
HELPER_PROGRAMS(cp_prot_programs, batch_cp_prot)
HELPER_PROGRAMS(cp_young_dirty_programs, batch_cp_young_dirty)

static void cp_clear_programs(const struct ptecheck_bpf *skel, struct pc_hook_progs *p)
{
	*p = (struct pc_hook_progs){
		.fentry = {skel->progs.batch_cp_get_clear_fentry,
			   skel->progs.batch_cp_clear_fentry},
		.kprobe = {skel->progs.batch_cp_get_clear_kprobe,
			   skel->progs.batch_cp_clear_kprobe},
	};
}

/* A helper read at entry: fentry, else kprobes (pte_t by value may be
   refused by the trampoline). */
#define HELPER_GROUP(title, progs, ...)                                                            \
	{                                                                                          \
		.name = "batch sizes (" title ")", .funcs = {__VA_ARGS__},                         \
		.kprobe_fallback = true, .programs = progs                                         \
	}

static const struct pc_hook_group groups[] = {
	[FPB] = {.name = "batch sizes (folio_pte_batch)",
		 .funcs = {"folio_pte_batch"},
		 .needs_fexit = {true},
		 .kprobe_fallback = true,
		 .programs = fpb_programs},
	[RMAP] = HELPER_GROUP("folio_remove_rmap_ptes", rmap_programs, "folio_remove_rmap_ptes"),
	[CP_SET] = HELPER_GROUP("contpte_set_ptes", cp_set_programs, "contpte_set_ptes"),
	[CP_CLEAR] = HELPER_GROUP("contpte_*clear_full_ptes", cp_clear_programs,
				  "contpte_get_and_clear_full_ptes", "contpte_clear_full_ptes"),
	[CP_WRPROTECT] = HELPER_GROUP("contpte_wrprotect_ptes", cp_wrprotect_programs,
				      "contpte_wrprotect_ptes"),
	[CP_PROT] =
		HELPER_GROUP("modify_prot_start_ptes", cp_prot_programs, "modify_prot_start_ptes"),
	[CP_YOUNG_DIRTY] = HELPER_GROUP("contpte_clear_young_dirty_ptes", cp_young_dirty_programs,
					"contpte_clear_young_dirty_ptes"),
};

/* Why source src cannot be measured in session s; NULL when it can. */
static const char *source_why(const struct pc_session *s, __u32 src)
{
	if (!sources[src].label)
		return "not measured by this build";
	if (src == PC_BSRC_WALK)
		return pc_batch_walk_why(s);
	return pc_session_hook_why(s, &pc_batch_trace, sources[src].group);
}

/* The histogram name of (src, ctx), per the contract the gate matches. */
void pc_batch_hist_name(__u32 src, __u32 ctx, char *buf, size_t len)
{
	if (src == PC_BSRC_WALK)
		snprintf(buf, len, "%s PTEs per large-folio run (derived)", pc_batch_ctx_name(ctx));
	else
		snprintf(buf, len, "%s PTEs per batch (%s)", pc_batch_ctx_name(ctx),
			 src < PC_BSRC__COUNT && sources[src].label ? sources[src].label : "?");
}

void pc_batch_hist_id(__u32 src, __u32 ctx, char *buf, size_t len)
{
	pc_hist_batch_id(buf, len, pc_batch_ctx_name(ctx),
			 src < PC_BSRC__COUNT && sources[src].label ? sources[src].label : "?");
}

/* Source src's histograms: every context it saw a batch in, none other. */
static void source_hists(struct pc_session *s, struct pc_report *r, __u32 src)
{
	char name[96], id[PC_HIST_ID_MAX];

	for (__u32 ctx = 0; ctx < PC_BCTX__COUNT; ctx++) {
		struct pc_trace_hist t = {PC_BATCH_HIST(PC_HIST_BATCH_FIRST, src, ctx),
					  PC_HIST_LINLOG,
					  id,
					  name,
					  "PTEs",
					  sources[src].source,
					  NULL,
					  pc_batch_ctx_name(ctx),
					  sources[src].label};
		int first = r->n_hists;
		__u64 total = 0;

		pc_batch_hist_name(src, ctx, name, sizeof(name));
		pc_batch_hist_id(src, ctx, id, sizeof(id));
		pc_session_hists(s, r, &t, 1);
		for (int i = first; i < r->n_hists; i++)
			total += pc_hist_report_total(&r->hists[i]);
		if (!total)
			r->n_hists = first; /* a context without batches says nothing */
	}
}

static void batch_hists(struct pc_session *s, struct pc_report *r)
{
	if (!s->loaded)
		return;
	for (__u32 src = 0; src < PC_BSRC__COUNT; src++) {
		const char *why = source_why(s, src);

		if (!why)
			source_hists(s, r, src);
		else if (sources[src].label && !strcmp(r->command, "hist"))
			pc_report_note(r, "not shown: batch histograms (%s): %s",
				       sources[src].label, why);
		if (src == PC_BSRC_WALK)
			pc_batch_walk_note(s, r); /* when it walked */
	}
}

static const char *const tracepoints[] = {NULL};

static const struct pc_feature_hook feature_hooks[] = {
	{"batching", "folio_pte_batch"},
	{"batching", "folio_remove_rmap_ptes"},
	/* contpte_set_ptes, contpte_get_and_clear_full_ptes: mremap lists them. */
	{"arm64 contpte", "contpte_clear_full_ptes"},
	{"arm64 contpte", "contpte_wrprotect_ptes"},
	{"arm64 contpte", "modify_prot_start_ptes"},
	{"arm64 contpte", "contpte_clear_young_dirty_ptes"},
};

/* "LABEL out of line" per kernel source: its functions, or which is absent
   (a named skip: the source's histograms are not shown). */
static void batch_feature_paths(const struct pc_features *f)
{
	char what[96], detail[200];

	for (__u32 src = 0; src < PC_BSRC__COUNT; src++) {
		const struct pc_hook_group *g;
		const char *missing = NULL;
		size_t used = 0;

		if (!sources[src].label || sources[src].group < 0)
			continue;
		g = &groups[sources[src].group];
		for (int i = 0; g->funcs[i] && !missing; i++) {
			if (!pc_kernel_has_func(g->funcs[i]))
				missing = g->funcs[i];
			used += snprintf(detail + used,
					 used < sizeof(detail) ? sizeof(detail) - used : 0, "%s%s",
					 i ? ", " : "", g->funcs[i]);
		}
		if (missing)
			snprintf(detail, sizeof(detail), "%s absent or inlined: %s", missing,
				 sources[src].absent);
		snprintf(what, sizeof(what), "%s out of line", sources[src].label);
		f->line(what, !missing, detail);
	}
	pc_batch_walk_feature(f);
}

static void batch_feature_tiers(const struct pc_features *f)
{
	char tiers[400];
	size_t used = 0;

	for (__u32 src = 0; src < PC_BSRC__COUNT; src++) {
		const struct pc_hook_choice *c;

		if (!sources[src].label || sources[src].group < 0)
			continue;
		c = &f->hooks[sources[src].group];
		used += snprintf(tiers + used, used < sizeof(tiers) ? sizeof(tiers) - used : 0,
				 "%s%s: %s", used ? "; " : "", sources[src].label,
				 c->mech ? pc_tier_name(pc_hook_tier(c->mech)) : "none");
	}
	f->tiers("batch histograms (no checks)", tiers);
}

const struct pc_trace_path pc_batch_trace = {
	.name = "batch",
	.groups = groups,
	.n_groups = sizeof(groups) / sizeof(groups[0]),
	.configure = pc_batch_walk_configure,
	.hists = batch_hists,
	.tracepoints = tracepoints,
	.feature_hooks = feature_hooks,
	.n_feature_hooks = sizeof(feature_hooks) / sizeof(feature_hooks[0]),
	.feature_paths = batch_feature_paths,
	.feature_tiers = batch_feature_tiers,
};
