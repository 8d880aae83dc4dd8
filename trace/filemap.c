// SPDX-License-Identifier: GPL-2.0
/*
 * The filemap path's part of a tracing session (bpf/filemap.bpf.c): its
 * hook groups, results, histograms and `ptecheck features` lines.
 */
#include <stdio.h>
#include "ptecheck.skel.h"
#include "probe.h"
#include "session.h"

/* The path's hook groups, in groups[] order. */
enum { BATCHES, RMAP };

static void batch_programs(const struct ptecheck_bpf *skel, struct pc_hook_progs *p)
{
	*p = (struct pc_hook_progs){
		.fentry = {skel->progs.filemap_map_fentry, skel->progs.filemap_map_fexit,
			   skel->progs.filemap_set_fentry, skel->progs.filemap_set_fexit},
		.kprobe = {skel->progs.filemap_map_kprobe, skel->progs.filemap_map_kretprobe,
			   skel->progs.filemap_set_kprobe, skel->progs.filemap_set_kretprobe},
	};
}

static void rmap_programs(const struct ptecheck_bpf *skel, struct pc_hook_progs *p)
{
	*p = (struct pc_hook_progs){
		.fentry = {skel->progs.filemap_rmap_fentry, skel->progs.filemap_rmap_fexit},
		.kprobe = {skel->progs.filemap_rmap_kprobe, skel->progs.filemap_rmap_kretprobe},
	};
}

static const struct pc_hook_group groups[] = {
	[BATCHES] = {.name = "fault-around batches (set_pte_range)",
		     .funcs = {"set_pte_range", "filemap_map_pages"},
		     .needs_fexit = {true, true},
		     .kprobe_fallback = true,
		     .programs = batch_programs},
	/* The rmap programs continue what the set_pte_range ones begin. */
	[RMAP] = {.name = "fault-around rmap (folio_add_file_rmap_ptes)",
		  .funcs = {"folio_add_file_rmap_ptes"},
		  .needs_fexit = {true},
		  .kprobe_fallback = true,
		  .needs_previous = true,
		  .programs = rmap_programs},
};

static void filemap_configure(struct pc_session *s)
{
	s->skel->rodata->filemap_tier =
		pc_hook_tier(pc_session_hook(s, &pc_filemap_trace, BATCHES)->mech);
}

static void filemap_results(struct pc_session *s, struct pc_report *r)
{
	static const __u32 checks[] = {PC_CHK_FM_BOUNDS, PC_CHK_FM_PTES_SET, PC_CHK_FM_RMAP};
	const struct pc_hook_choice *fm = pc_session_hook(s, &pc_filemap_trace, BATCHES);
	bool live = pc_session_hook_live(s, &pc_filemap_trace, BATCHES);
	__u32 tier = pc_hook_tier(live ? fm->mech : PC_MECH_FENTRY);

	pc_session_poll(s, 0);
	for (size_t i = 0; i < sizeof(checks) / sizeof(checks[0]); i++) {
		struct pc_result *res = pc_session_result(s, r, checks[i], tier);

		if (!res)
			continue;
		if (!live && !pc_kernel_has_func("set_pte_range")) {
			/* A fact about this kernel, not a missing permission. */
			pc_result_set(
				res, PC_STATUS_SKIP,
				"this kernel has no set_pte_range: no folio-based fault-around, "
				"it maps one page per call (see the fault-around window "
				"histogram)");
			continue;
		}
		if (!live) {
			pc_result_set(res, PC_STATUS_SKIP, "no hook on set_pte_range: %s",
				      fm->reason);
			continue;
		}
		if (checks[i] == PC_CHK_FM_RMAP &&
		    !pc_session_hook_live(s, &pc_filemap_trace, RMAP)) {
			pc_result_set(res, PC_STATUS_SKIP,
				      "no hook on folio_add_file_rmap_ptes: %s",
				      pc_session_hook(s, &pc_filemap_trace, RMAP)->reason);
			continue;
		}
		pc_session_judge(s, res, checks[i], tier,
				 checks[i] == PC_CHK_FM_PTES_SET ? "entries" : "batches",
				 "nothing to judge: no fault-around batch in any traced process");
	}
}

static const char *window_why(const struct pc_session *s)
{
	return pc_session_prog_why(s, s->skel->progs.filemap_window,
				   "tracepoint filemap:mm_filemap_map_pages not attached");
}

static const char *batches_why(const struct pc_session *s)
{
	return pc_session_hook_why(s, &pc_filemap_trace, BATCHES);
}

static const char *rmap_why(const struct pc_session *s)
{
	return pc_session_hook_why(s, &pc_filemap_trace, RMAP);
}

static const struct pc_trace_hist hists[] = {
	{PC_HIST_FAULTAROUND_PAGES, PC_HIST_LINLOG, "filemap/window",
	 "fault-around window per filemap_map_pages call", "pages",
	 "tracepoint filemap:mm_filemap_map_pages", window_why},
	{PC_HIST_FM_SET_PTE_RANGE_NR, PC_HIST_LINLOG, "filemap/batch",
	 "fault-around PTEs per set_pte_range", "PTEs", "set_pte_range nr", batches_why,
	 "fault-around", "set_pte_range"},
	{PC_HIST_FM_RMAP_NR, PC_HIST_LINLOG, "filemap/rmap",
	 "file rmap pages per folio_add_file_rmap_ptes", "pages", "folio_add_file_rmap_ptes nr",
	 rmap_why},
	{PC_HIST_FM_FOLIO_ORDER, PC_HIST_LINLOG, "filemap/folio-order",
	 "fault-around batches by folio order", "order",
	 "set_pte_range folio (0: 4 KiB, 4: 64 KiB, 9: 2 MiB)", batches_why},
	{PC_HIST_FM_LARGE_ORDER, PC_HIST_LINLOG, "filemap/large-order",
	 "fault-around large-folio batches, by order", "order",
	 "set_pte_range, folios of 2+ pages, scenarios that keep file sizes", batches_why},
	{PC_HIST_FM_FULL_ORDER, PC_HIST_LINLOG, "filemap/full-order",
	 "fault-around batches mapping all they could, by order", "order",
	 "those that reached the folio, window, VMA, table or EOF end", batches_why},
};

static const char *const tracepoints[] = {"filemap/mm_filemap_map_pages", NULL};

static const struct pc_feature_hook feature_hooks[] = {
	{"filemap", "filemap_map_pages"},
	{"filemap", "set_pte_range"},
	{"filemap", "folio_add_file_rmap_ptes"},
};

static void filemap_feature_paths(const struct pc_features *f)
{
	bool batches = pc_kernel_has_func("set_pte_range");
	bool rmap = pc_kernel_has_func("folio_add_file_rmap_ptes");

	f->line("folio-based fault-around (v6.4+)", batches,
		batches ? "set_pte_range" : "set_pte_range absent: fault-around maps page by page");
	f->line("batched file rmap", rmap,
		rmap ? "folio_add_file_rmap_ptes"
		     : "folio_add_file_rmap_ptes absent: no batched rmap");
}

static void filemap_feature_tiers(const struct pc_features *f)
{
	f->tiers("filemap/batch-bounds, ptes-set",
		 f->hooks[BATCHES].mech ? "oracle (pagemap, sigbus, data) + kernel (set_pte_range)"
					: "oracle (pagemap, sigbus, data)");
	f->tiers("filemap/rmap-count",
		 f->hooks[RMAP].mech ? "oracle:kpagecount + kernel (folio_add_file_rmap_ptes)"
				     : "oracle:kpagecount");
	f->tiers("filemap/rss-count", "oracle:status-rss");
}

const struct pc_trace_path pc_filemap_trace = {
	.name = "filemap",
	.groups = groups,
	.n_groups = sizeof(groups) / sizeof(groups[0]),
	.configure = filemap_configure,
	.results = filemap_results,
	.hist_table = hists,
	.n_hist_table = sizeof(hists) / sizeof(hists[0]),
	.tracepoints = tracepoints,
	.feature_hooks = feature_hooks,
	.n_feature_hooks = sizeof(feature_hooks) / sizeof(feature_hooks[0]),
	.feature_paths = filemap_feature_paths,
	.feature_tiers = filemap_feature_tiers,
};
