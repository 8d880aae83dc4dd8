// SPDX-License-Identifier: GPL-2.0
/*
 * The overhead table of `ptecheck bench`: a workload bare against the same
 * workload under ptecheck hist, ptecheck watch, empty BPF programs on the
 * same hooks and a bpftrace one-liner, the events hist/watch lost, and
 * the time a tracing session takes to load and attach.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "loops.h"
#include "overhead.h"
#include "scratchfs.h"
#include "start_exit.h"
#include "session.h"
#include "side.h"
#include "tracefs.h"
#include "tracers.h"

static const char *const wrap_names[] = {
	[PC_BENCH_HIST] = "hist",
	[PC_BENCH_WATCH] = "watch",
	[PC_BENCH_EMPTY] = "empty-bpf",
	[PC_BENCH_BPFTRACE] = "bpftrace",
};

static const char *const titles[] = {
	[PC_BENCH_HIST] = "ptecheck hist -- CMD (histograms)",
	[PC_BENCH_WATCH] = "ptecheck watch -- CMD (all checks)",
	[PC_BENCH_EMPTY] = "empty BPF programs on the same tracepoints (the floor)",
	[PC_BENCH_BPFTRACE] = "the same histograms as a bpftrace one-liner",
};

/* A new row of workload wname under tracer w, named as overhead_rows[] says. */
static json_t *tracer_row(const char *wname, enum pc_bench_wrap w)
{
	char name[96], title[200];

	snprintf(name, sizeof(name), "overhead-%s-%s", wname, wrap_names[w]);
	snprintf(title, sizeof(title), "%s: %s", wname, titles[w]);
	return pc_bench_row_new(name, "overhead", title, PC_BENCH_SLOWDOWN);
}

struct tracer_result {
	bool measured;
	double median;
};

/* hist/watch: the events they lost over the traced runs, and what they found. */
static void lost_note(json_t *row, const struct pc_bench_side *t)
{
	long long lost = t->dropped + t->state_full + t->state_lost;
	char note[400];

	json_object_set_new(row, "lost",
			    json_pack("{s:I, s:I, s:I, s:I, s:I, s:b}", "events_dropped",
				      t->dropped, "state_full", t->state_full, "state_lost",
				      t->state_lost, "runs", t->runs, "violations", t->violations,
				      "target_met", lost == 0));
	snprintf(note, sizeof(note),
		 "lost events over %lld runs: events_dropped %lld, state_full %lld, "
		 "state_lost %lld (target: zero, %s)%s",
		 t->runs, t->dropped, t->state_full, t->state_lost, lost ? "NOT met" : "met",
		 t->violations ? "; the traced runs reported violations: see \"failed\"" : "");
	json_object_set_new(row, "note", json_string(note));
	if (t->failed)
		json_object_set(row, "failed", t->failed);
}

/* What a row says beside its ratio, by tracer. */
static void tracer_notes(json_t *row, const struct pc_bench_side *t, double median)
{
	char note[400], prog[1024];

	switch (t->wrap) {
	case PC_BENCH_HIST:
		pc_bench_row_target(row,
				    "within 5 % of bare and below bpftrace (the issue's target)",
				    1.05, median);
		lost_note(row, t);
		break;
	case PC_BENCH_WATCH:
		pc_bench_row_target(row, "within 25 % of bare (the issue's target)", 1.25, median);
		lost_note(row, t);
		break;
	case PC_BENCH_EMPTY:
		snprintf(note, sizeof(note),
			 "the floor: what any BPF program on these %d tracepoints costs "
			 "(detaching them took %.2f s after each run, not timed)",
			 t->links, t->detach_s);
		json_object_set_new(row, "note", json_string(note));
		json_object_set_new(row, "links", json_integer(t->links));
		break;
	case PC_BENCH_BPFTRACE:
		pc_bench_bpftrace_prog(prog, sizeof(prog));
		json_object_set_new(row, "program", json_string(prog));
		break;
	case PC_BENCH_BARE:
		break;
	}
}

/* The fault loop: the folios of the file the last bare and traced runs faulted
   (one file, so they must agree) and the pages a fault mapped. */
static void folio_extra(json_t *row, const json_t *bare, const json_t *traced)
{
	char cb[160], ct[160];
	bool large;

	pc_bench_census_text(bare, cb, sizeof(cb), &large);
	pc_bench_census_text(traced, ct, sizeof(ct), &large);
	json_object_set_new(
		row, "extra",
		json_pack("{s:s, s:s, s:f, s:f}", "folios_bare", cb, "folios_traced", ct,
			  "pages_per_fault_bare",
			  json_number_value(json_object_get(bare, "pages_per_fault")),
			  "pages_per_fault_traced",
			  json_number_value(json_object_get(traced, "pages_per_fault"))));
}

static void overhead_row(struct pc_bench *b, const char *wname, struct pc_bench_side *bare,
			 enum pc_bench_wrap wrap, struct tracer_result *res)
{
	struct pc_bench_side t = {.label = wrap_names[wrap],
				  .wrap = wrap,
				  .cmd = bare->cmd,
				  .metric = bare->metric,
				  .rate = bare->rate,
				  .unit = bare->unit,
				  .per = bare->per};
	struct pc_bench_series ser;
	char name[96];
	json_t *row;

	memset(res, 0, sizeof(*res));
	snprintf(name, sizeof(name), "overhead-%s-%s", wname, wrap_names[wrap]);
	if (!pc_bench_selected(b, name))
		return;
	row = tracer_row(wname, wrap);
	json_object_set_new(row, "ratio_of",
			    json_string(bare->rate ? "pages/s bare / pages/s traced"
						   : "loop time traced / loop time bare"));
	if (pc_bench_bracket(b, row, bare, &t, &ser))
		goto out;
	tracer_notes(row, &t, ser.ratio.median);
	if (bare->rate)
		folio_extra(row, bare->wl, t.wl);
	pc_bench_row_finish(b, row, PC_BENCH_MEASURED, NULL);
	res->measured = true;
	res->median = ser.ratio.median;
out:
	json_decref(t.wl);
	json_decref(t.failed);
}

/* Finds the row named in b->rows. */
static json_t *find_row(struct pc_bench *b, const char *name)
{
	size_t i;
	json_t *row;

	json_array_foreach(b->rows, i, row)
	{
		if (!strcmp(json_string_value(json_object_get(row, "name")), name))
			return row;
	}
	return NULL;
}

/* The hist row's "below bpftrace", judged once both are measured. */
static void judge_below_bpftrace(struct pc_bench *b, const char *wname,
				 const struct tracer_result *res)
{
	char name[96];
	json_t *row, *below;

	snprintf(name, sizeof(name), "overhead-%s-hist", wname);
	row = find_row(b, name);
	if (!row || !res[PC_BENCH_HIST].measured)
		return;
	below = res[PC_BENCH_BPFTRACE].measured
			? json_boolean(res[PC_BENCH_HIST].median < res[PC_BENCH_BPFTRACE].median)
			: json_null();
	json_object_set_new(row, "below_bpftrace", below);
	if (json_is_boolean(below))
		json_object_set_new(
			row, "target_met",
			json_boolean(json_is_true(below) && res[PC_BENCH_HIST].median <= 1.05));
}

/* Below this, the floor says the traced runs ran faster than the bare ones:
   the two sides were not the same experiment, and no ratio of them is an
   overhead. */
/* Every row of the workload invalid when its floor reads below PC_BENCH_RATIO_MIN. */
static void judge_floor(struct pc_bench *b, const char *wname, const struct tracer_result *res)
{
	char name[96], why[200];
	json_t *row;

	if (!res[PC_BENCH_EMPTY].measured || res[PC_BENCH_EMPTY].median >= PC_BENCH_RATIO_MIN)
		return;
	snprintf(why, sizeof(why),
		 "the floor (empty BPF programs) reads %.2f, below %.2f: traced runs faster "
		 "than bare ones, so the sides differ by more than the tracer",
		 res[PC_BENCH_EMPTY].median, PC_BENCH_RATIO_MIN);
	for (int w = PC_BENCH_HIST; w <= PC_BENCH_BPFTRACE; w++) {
		snprintf(name, sizeof(name), "overhead-%s-%s", wname, wrap_names[w]);
		row = find_row(b, name);
		if (!row)
			continue;
		json_object_set_new(row, "invalid", json_string(why));
		if (json_object_get(row, "target_met"))
			json_object_set_new(row, "target_met", json_null());
	}
}

/* True when a row of workload wname is selected. */
static bool workload_selected(const struct pc_bench *b, const char *wname)
{
	char name[96];

	for (int w = PC_BENCH_HIST; w <= PC_BENCH_BPFTRACE; w++) {
		snprintf(name, sizeof(name), "overhead-%s-%s", wname, wrap_names[w]);
		if (pc_bench_selected(b, name))
			return true;
	}
	return false;
}

/* The rows of one workload, bare against each tracer. */
static void overhead_workload(struct pc_bench *b, const char *wname, struct pc_bench_side *bare)
{
	struct tracer_result res[PC_BENCH_BPFTRACE + 1];

	for (int w = PC_BENCH_HIST; w <= PC_BENCH_BPFTRACE; w++)
		overhead_row(b, wname, bare, (enum pc_bench_wrap)w, &res[w]);
	judge_below_bpftrace(b, wname, res);
	judge_floor(b, wname, res);
}

/* Opens and closes n sessions as watch and as hist: the times in open_w, close_w, open_h. */
static int session_times(int n, double *open_w, double *close_w, double *open_h, int *links,
			 char *why, size_t len)
{
	for (int i = 0; i < n; i++) {
		for (int watch = 0; watch < 2; watch++) {
			struct pc_session_opts so = {.filter_mode = PC_FILTER_TRACKED,
						     .want_walk = watch};
			struct pc_session s;
			double t0 = pc_bench_now(), t1;
			int err = pc_session_open(&s, &so);

			t1 = pc_bench_now();
			if (err) {
				snprintf(why, len, "session open: %s", s.load_error);
				return -1;
			}
			*links = s.n_links;
			pc_session_close(&s);
			if (watch) {
				open_w[i] = t1 - t0;
				close_w[i] = pc_bench_now() - t1;
			} else {
				open_h[i] = t1 - t0;
			}
		}
	}
	return 0;
}

/* In-process session open (load+attach) and close (detach) times. */
static void load_attach(struct pc_bench *b)
{
	double open_h[PC_BENCH_MAX_REPEAT], open_w[PC_BENCH_MAX_REPEAT];
	double close_w[PC_BENCH_MAX_REPEAT];
	int n = b->o.quick ? 1 : 3, links = 0;
	struct pc_bench_stats sh, sw, sc;
	char why[300], note[600];
	json_t *row;

	if (!pc_bench_selected(b, "load-attach"))
		return;
	row = pc_bench_row_new("load-attach", "overhead",
			       "load+attach of everything: pc_session_open as ptecheck watch "
			       "(calibration, all programs) and hist",
			       PC_BENCH_SECONDS);
	pc_tracefs_ensure();
	if (session_times(n, open_w, close_w, open_h, &links, why, sizeof(why))) {
		pc_bench_row_finish(b, row, PC_BENCH_SKIPPED, why);
		return;
	}
	pc_bench_stats(open_w, n, &sw);
	pc_bench_stats(open_h, n, &sh);
	pc_bench_stats(close_w, n, &sc);
	pc_bench_row_ratios(row, open_w, n);
	json_object_set_new(row, "hist_open_s", json_real(sh.median));
	json_object_set_new(row, "detach_s", json_real(sc.median));
	json_object_set_new(row, "links", json_integer(links));
	pc_bench_row_target(row, "load+attach within 0.3 s (the issue's target)", 0.3, sw.median);
	snprintf(note, sizeof(note),
		 "watch open %.3f s, hist open %.3f s (medians of %d); closing the session "
		 "(detaching %d links) takes %.2f s more, not part of the target; "
		 "the start-exit rows time the whole command",
		 sw.median, sh.median, n, links, sc.median);
	json_object_set_new(row, "note", json_string(note));
	pc_bench_row_finish(b, row, PC_BENCH_MEASURED, NULL);
}

/* Every selected row of workload wname skipped, with why. */
static void skip_workload(struct pc_bench *b, const char *wname, const char *why)
{
	char name[96];

	for (int w = PC_BENCH_HIST; w <= PC_BENCH_BPFTRACE; w++) {
		snprintf(name, sizeof(name), "overhead-%s-%s", wname, wrap_names[w]);
		if (pc_bench_selected(b, name))
			pc_bench_row_finish(b, tracer_row(wname, (enum pc_bench_wrap)w),
					    PC_BENCH_SKIPPED, why);
	}
}

static const struct pc_bench_loops overhead_loops = {
	.rows = overhead_workload,
	.selected = workload_selected,
	.skip = skip_workload,
};

static void overhead(struct pc_bench *b)
{
	pc_bench_loops(b, &overhead_loops);
	load_attach(b);
	pc_bench_start_exit(b);
}

static const char *const overhead_rows[] = {
	"overhead-mremap-folios-hist",
	"overhead-mremap-folios-watch",
	"overhead-mremap-folios-empty-bpf",
	"overhead-mremap-folios-bpftrace",
	"overhead-filemap-fault-hist",
	"overhead-filemap-fault-watch",
	"overhead-filemap-fault-empty-bpf",
	"overhead-filemap-fault-bpftrace",
	"load-attach",
	"start-exit-hist",
	"start-exit-watch",
	NULL,
};

const struct pc_bench_table pc_bench_overhead = {
	.name = "overhead",
	.heading = "Overhead of the checks: slowdown vs bare (time traced / time bare), median "
		   "[min..max] of the per-pair ratios",
	.rows = overhead_rows,
	.run = overhead,
};
