// SPDX-License-Identifier: GPL-2.0
/*
 * ptecheck merge: run reports of one kernel, made in boots of their own,
 * as one report; and a suite whose kernel died as its failed result
 * (died.c).  The reports are read as the gate reads them and merged as
 * the gate merges runs (gate/evaluate.c), so what merge writes is what
 * the gate would have made of the pieces.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "gate.h"
#include "merge.h"

static void usage(FILE *f)
{
	fprintf(f, "Usage: ptecheck merge [--format text|json|tap|junit] [--output FILE]\n"
		   "                      [--suite NAME] [--died SUITE --console FILE\n"
		   "                      [--scenario NAME] [--hung SECONDS]]\n"
		   "                      [--release R --machine M] [--note TEXT]...\n"
		   "                      [REPORT.json...]\n\n"
		   "Writes the JSON reports of `ptecheck run` made on one kernel in several\n"
		   "boots (guest/vmtest's resumed suites) as one report: a check's worst\n"
		   "status wins, histograms and stats add up, notes are kept.  With --died,\n"
		   "suite SUITE did not finish: its kernel died (or, with --hung, still ran\n"
		   "after SECONDS), and the result SUITE/kernel-log [console] fails with the\n"
		   "crash line, the function it names and the kernel's reports read from the\n"
		   "console log FILE by the kernel-log rules.\n\n"
		   "Options:\n"
		   "  -f, --format F      text (default), json, tap or junit\n"
		   "  -o, --output FILE   write the report to FILE, not stdout\n"
		   "      --suite NAME    the merged report's suite (default: the first's)\n"
		   "      --died SUITE    the suite the kernel died in\n"
		   "      --console FILE  that boot's console log (with --died)\n"
		   "      --scenario NAME the scenario then running (with --died)\n"
		   "      --hung SECONDS  it hung: QEMU was stopped after SECONDS (with --died)\n"
		   "      --release R     the kernel release, with no REPORT to take it from\n"
		   "      --machine M     its machine (uname -m), likewise\n"
		   "      --note TEXT     a note for the merged report (how it was made)\n\n"
		   "Exit: as `ptecheck run`'s for the merged report (0 pass, 1 a check failed,\n"
		   "4 nothing judged); 2 bad input (an unreadable report, reports of another\n"
		   "kernel or scale, a usage error); 3 the report could not be written.\n");
}

#define MAX_NOTES 8

struct merge_args {
	const char *output, *suite, *release, *machine;
	const char *notes[MAX_NOTES];
	int n_notes;
	struct pc_death death;
	int fmt;
};

static void parse_args(int argc, char **argv, struct merge_args *a)
{
	static const struct option opts[] = {
		{"format", required_argument, NULL, 'f'},
		{"output", required_argument, NULL, 'o'},
		{"suite", required_argument, NULL, 's'},
		{"died", required_argument, NULL, 'd'},
		{"console", required_argument, NULL, 'c'},
		{"scenario", required_argument, NULL, 'S'},
		{"hung", required_argument, NULL, 'H'},
		{"release", required_argument, NULL, 'r'},
		{"machine", required_argument, NULL, 'm'},
		{"note", required_argument, NULL, 'n'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *prog = "ptecheck merge";
	unsigned long v;
	int c;

	while ((c = getopt_long(argc, argv, "f:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			a->fmt = pc_format_parse(optarg);
			if (a->fmt < 0)
				pc_usage_error(prog,
					       "--format: '%s' is not text, json, tap or junit",
					       optarg);
			break;
		case 'o':
			a->output = optarg;
			break;
		case 's':
			a->suite = optarg;
			break;
		case 'd':
			a->death.suite = optarg;
			break;
		case 'c':
			a->death.console = optarg;
			break;
		case 'S':
			a->death.scenario = optarg;
			break;
		case 'H':
			if (!pc_parse_ulong(optarg, &v) || !v || v > 86400 * 365)
				pc_usage_error(prog, "--hung: '%s' is not a number of seconds",
					       optarg);
			a->death.hung_s = (unsigned int)v;
			break;
		case 'r':
			a->release = optarg;
			break;
		case 'm':
			a->machine = optarg;
			break;
		case 'n':
			if (a->n_notes == MAX_NOTES)
				pc_usage_error(prog, "--note: at most %d", MAX_NOTES);
			a->notes[a->n_notes++] = optarg;
			break;
		case 'h':
			usage(stdout);
			exit(PC_EXIT_PASS);
		default:
			fprintf(stderr, "Try 'ptecheck merge --help'.\n");
			exit(PC_EXIT_USAGE);
		}
	}
	if (!a->death.suite && (a->death.console || a->death.scenario || a->death.hung_s))
		pc_usage_error(prog, "--console, --scenario and --hung describe a --died suite");
	if (a->death.suite && !a->death.console)
		pc_usage_error(prog, "--died needs the console log (--console FILE)");
	if (optind == argc && !a->death.suite)
		pc_usage_error(prog, "nothing to merge: no REPORT and no --died");
	if (optind == argc && (!a->release || !a->machine))
		pc_usage_error(prog, "with no REPORT, --release and --machine name the kernel");
}

/* What the gate's merge leaves to us: the run's own facts. */
static void merge_facts(struct pc_report *m, const struct pc_report *r)
{
	if (strcmp(r->started, m->started) < 0)
		snprintf(m->started, sizeof(m->started), "%s", r->started);
	m->duration_s += r->duration_s;
	m->partial |= r->partial;
	for (int i = 0; i < r->n_stats; i++)
		m->stats[i] = pc_sat_add(m->stats[i], r->stats[i]);
	m->n_stats = m->n_stats > r->n_stats ? m->n_stats : r->n_stats;
	for (int i = 0; i < r->n_notes; i++) {
		int k = 0;

		while (k < m->n_notes && strcmp(m->notes[k], r->notes[i]))
			k++;
		if (k == m->n_notes)
			pc_report_note(m, "%s", r->notes[i]);
	}
	/* The tracing object as the first boot that loaded it saw it; what
	   any boot's kernel refused, each line once. */
	if (!m->bpf.loaded && r->bpf.loaded) {
		m->bpf.loaded = true;
		m->bpf.load_ms = r->bpf.load_ms;
		m->bpf.attach_ms = r->bpf.attach_ms;
		m->bpf.n_progs = r->bpf.n_progs;
		memcpy(m->bpf.progs, r->bpf.progs, sizeof(m->bpf.progs));
	}
	for (int i = 0; i < r->bpf.n_refused && m->bpf.n_refused < PC_REPORT_REFUSED; i++) {
		int k = 0;

		while (k < m->bpf.n_refused && strcmp(m->bpf.refused[k], r->bpf.refused[i]))
			k++;
		if (k == m->bpf.n_refused)
			snprintf(m->bpf.refused[m->bpf.n_refused++], sizeof(m->bpf.refused[0]),
				 "%s", r->bpf.refused[i]);
	}
}

/* Reads and merges each report into m; 0 or an exit code. */
static int merge_files(struct pc_report *m, char **files, int n)
{
	char err[PC_GATE_ERR_MAX];

	for (int i = 0; i < n; i++) {
		struct pc_report *r;
		int rc = PC_EXIT_USAGE;

		if (pc_gate_report_load(files[i], true, &r, err, sizeof(err))) {
			pc_err(0, "%s: %s", files[i], err);
			return PC_EXIT_USAGE;
		}
		if (i == 0) {
			snprintf(m->kernel_release, sizeof(m->kernel_release), "%s",
				 r->kernel_release);
			snprintf(m->machine, sizeof(m->machine), "%s", r->machine);
			snprintf(m->started, sizeof(m->started), "%s", r->started);
			m->scale = r->scale;
			if (!m->suite[0])
				snprintf(m->suite, sizeof(m->suite), "%s", r->suite);
		}
		if (strcmp(r->kernel_release, m->kernel_release) || strcmp(r->machine, m->machine))
			pc_err(0,
			       "%s: a report of kernel %s (%s), %s is of %s (%s): one kernel's "
			       "reports merge",
			       files[i], r->kernel_release, r->machine, files[0], m->kernel_release,
			       m->machine);
		else if (r->scale != m->scale)
			pc_err(0, "%s: a run at scale %u, %s at %u: the workloads differ", files[i],
			       r->scale, files[0], m->scale);
		else if (pc_gate_merge_report(m, r, files[i], files[0], err, sizeof(err)))
			pc_err(0, "%s", err);
		else
			rc = 0;
		if (!rc)
			merge_facts(m, r);
		pc_report_free(r);
		if (rc)
			return rc;
	}
	return 0;
}

int pc_cmd_merge(int argc, char **argv)
{
	struct merge_args a = {.fmt = PC_FORMAT_TEXT};
	struct pc_report *m;
	char err[512];
	FILE *out = stdout;
	int code;

	parse_args(argc, argv, &a);
	m = pc_report_new("run", a.suite ? a.suite : "");
	if (!m) {
		pc_err(ENOMEM, "merge");
		return PC_EXIT_ERROR;
	}
	if (a.release)
		snprintf(m->kernel_release, sizeof(m->kernel_release), "%s", a.release);
	if (a.machine)
		snprintf(m->machine, sizeof(m->machine), "%s", a.machine);
	if (!m->suite[0] && optind == argc)
		snprintf(m->suite, sizeof(m->suite), "%s", a.death.suite);
	code = merge_files(m, argv + optind, argc - optind);
	for (int i = 0; i < a.n_notes; i++)
		pc_report_note(m, "%s", a.notes[i]);
	if (!code && a.death.suite && pc_merge_death(m, &a.death, err, sizeof(err))) {
		pc_err(0, "%s", err);
		code = PC_EXIT_USAGE;
	}
	/* Every input read before the output is opened: a refused merge
	   leaves no report behind. */
	if (!code && a.output && !(out = pc_open_report_said(a.output)))
		code = PC_EXIT_USAGE;
	if (!code) {
		code = pc_report_exit_code(m);
		if (pc_report_write(m, a.fmt, out)) {
			pc_err(errno, "cannot write the report");
			code = PC_EXIT_ERROR;
		}
		if (out != stdout && fclose(out)) {
			pc_err(errno, "cannot write %s", a.output);
			code = PC_EXIT_ERROR;
		}
	}
	pc_report_free(m);
	return code;
}
