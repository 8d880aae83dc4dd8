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
enum { FPB };

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
};

static const struct batch_source sources[PC_BSRC__COUNT] = {
	[PC_BSRC_FPB] = {"folio_pte_batch", "folio_pte_batch return value, by the caller's context",
			 FPB},
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

static const struct pc_hook_group groups[] = {
	[FPB] = {.name = "batch sizes (folio_pte_batch)",
		 .funcs = {"folio_pte_batch"},
		 .needs_fexit = {true},
		 .kprobe_fallback = true,
		 .programs = fpb_programs},
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

/* Source src's histograms: every context it saw a batch in, none other. */
static void source_hists(struct pc_session *s, struct pc_report *r, __u32 src)
{
	char name[96];

	for (__u32 ctx = 0; ctx < PC_BCTX__COUNT; ctx++) {
		struct pc_trace_hist t = {PC_BATCH_HIST(PC_HIST_BATCH_FIRST, src, ctx),
					  PC_HIST_LINLOG,
					  name,
					  "PTEs",
					  sources[src].source,
					  NULL};
		int first = r->n_hists;
		__u64 total = 0;

		pc_batch_hist_name(src, ctx, name, sizeof(name));
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
};

static void batch_feature_paths(const struct pc_features *f)
{
	f->line("folio_pte_batch out of line", pc_kernel_has_func("folio_pte_batch"),
		pc_kernel_has_func("folio_pte_batch")
			? "folio_pte_batch"
			: "folio_pte_batch absent or inlined: its batch sizes not observable");
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
