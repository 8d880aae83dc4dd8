// SPDX-License-Identifier: GPL-2.0
/*
 * The exporter table of `ptecheck bench` (docs/fleet.md, "What it costs"):
 * the tight mremap loop and the fault loop bare against the same loop
 * under `ptecheck export -- CMD`, with histograms only, with the checks
 * at export's default (1 in 16 windows judged) and judging every window.  The figure is
 * the loop's own (its --json line), so the exporter's start and stop are
 * not in it; each run under the exporter is bracketed by bare runs, as the
 * overhead rows' are (bench/side.h), on the same loops (bench/loops.c).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include "export.h"
#include "loops.h"
#include "side.h"

/* What the exporter judges in a row. */
struct export_mode {
	const char *name;   /* the row name's last part */
	const char *what;   /* the title's */
	const char *sample; /* --sample's N, or NULL: the default (1 in 16) */
	double target;	    /* the issue's, slowdown at most; 0: it sets none */
};

static const struct export_mode modes[] = {
	/* Next to no window judged and no derived walk made: what the hooks
	   and the histograms they feed cost. */
	{"hist-only", "histograms only (--sample 1000000: walks next to none)", "1000000", 1.03},
	/* The targets are for histograms only and the default
	   sampling: this row says what sampling saves. */
	{"checks", "every window judged (--sample 1)", "1", 0},
	{"sample-16", "1 in 16 windows judged (the default)", NULL, 1.10},
};
#define N_MODES (sizeof(modes) / sizeof(modes[0]))

static void row_name(char *buf, size_t len, const char *wname, const struct export_mode *m)
{
	snprintf(buf, len, "export-%s-%s", wname, m->name);
}

static void export_row(struct pc_bench *b, const char *wname, struct pc_bench_side *bare,
		       const struct export_mode *m)
{
	struct pc_bench_side t = {.label = "export",
				  .wrap = PC_BENCH_BARE, /* the exporter is the command */
				  .metric = bare->metric,
				  .rate = bare->rate,
				  .unit = bare->unit,
				  .per = bare->per};
	char name[96], title[200], target[120];
	struct pc_bench_series ser;
	struct pc_bench_argv cmd = {0};
	json_t *row;

	row_name(name, sizeof(name), wname, m);
	if (!pc_bench_selected(b, name))
		return;
	snprintf(title, sizeof(title), "%s: ptecheck export -- CMD, %s", wname, m->what);
	row = pc_bench_row_new(name, "export", title, PC_BENCH_SLOWDOWN);
	json_object_set_new(row, "ratio_of",
			    json_string(bare->rate ? "pages/s bare / pages/s under export"
						   : "loop time under export / loop time bare"));
	pc_bench_argv_add(&cmd, "%s", b->exe);
	pc_bench_argv_add(&cmd, "export");
	/* Port 0: the kernel's pick at the bind, which no one can take first
	   (nothing here scrapes it). */
	pc_bench_argv_add(&cmd, "--listen");
	pc_bench_argv_add(&cmd, "127.0.0.1:0");
	if (m->sample) {
		pc_bench_argv_add(&cmd, "--sample");
		pc_bench_argv_add(&cmd, "%s", m->sample);
	}
	pc_bench_argv_add(&cmd, "--");
	for (int i = 0; i < bare->cmd->n; i++)
		pc_bench_argv_add(&cmd, "%s", bare->cmd->v[i]);
	t.cmd = &cmd;
	if (!pc_bench_bracket(b, row, bare, &t, &ser)) {
		if (m->target) {
			snprintf(target, sizeof(target),
				 "within %.0f %% of bare (the issue's target)",
				 (m->target - 1) * 100);
			pc_bench_row_target(row, target, m->target, ser.ratio.median);
		}
		/* As the overhead table's floor: faster under the exporter than
		   bare is not an overhead, the sides differed by more. */
		if (ser.ratio.median < PC_BENCH_RATIO_MIN) {
			json_object_set_new(row, "invalid",
					    json_string("faster under the exporter than bare: the "
							"sides differ by more than the exporter"));
			json_object_set_new(row, "target_met", json_null());
		}
		pc_bench_row_finish(b, row, PC_BENCH_MEASURED, NULL);
	}
	json_decref(t.wl);
}

/* The rows of one loop: bare against each mode. */
static void export_workload(struct pc_bench *b, const char *wname, struct pc_bench_side *bare)
{
	for (size_t m = 0; m < N_MODES; m++)
		export_row(b, wname, bare, &modes[m]);
}

static bool export_selected(const struct pc_bench *b, const char *wname)
{
	char name[96];

	for (size_t m = 0; m < N_MODES; m++) {
		row_name(name, sizeof(name), wname, &modes[m]);
		if (pc_bench_selected(b, name))
			return true;
	}
	return false;
}

static void export_skip(struct pc_bench *b, const char *wname, const char *why)
{
	char name[96], title[200];

	for (size_t m = 0; m < N_MODES; m++) {
		row_name(name, sizeof(name), wname, &modes[m]);
		if (!pc_bench_selected(b, name))
			continue;
		snprintf(title, sizeof(title), "%s: ptecheck export -- CMD, %s", wname,
			 modes[m].what);
		pc_bench_row_finish(b, pc_bench_row_new(name, "export", title, PC_BENCH_SLOWDOWN),
				    PC_BENCH_SKIPPED, why);
	}
}

/* The same loops as the overhead table's (bench/loops.c). */
static const struct pc_bench_loops export_loops = {
	.rows = export_workload,
	.selected = export_selected,
	.skip = export_skip,
};

static void export_table(struct pc_bench *b)
{
	pc_bench_loops(b, &export_loops);
}

static const char *const export_rows[] = {
	"export-mremap-folios-hist-only",
	"export-mremap-folios-checks",
	"export-mremap-folios-sample-16",
	"export-filemap-fault-hist-only",
	"export-filemap-fault-checks",
	"export-filemap-fault-sample-16",
	NULL,
};

const struct pc_bench_table pc_bench_export = {
	.name = "export",
	.heading = "Cost of ptecheck export: slowdown vs bare (loop time under export / bare), "
		   "median [min..max] of the per-pair ratios",
	.rows = export_rows,
	.run = export_table,
};
