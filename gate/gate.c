// SPDX-License-Identifier: GPL-2.0
/*
 * ptecheck gate: the CI step "may we ship this kernel?".  Loads the
 * candidate and baseline reports and the policy, applies the rules
 * (evaluate.c) and writes the decision (output.c).  Exit 0 ship,
 * 1 do not ship, 2 bad input; never a pass on input it could not judge.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "cli.h"
#include "report.h"
#include "gate.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: ptecheck gate [--baseline FILE]... [--policy FILE]\n"
		"                     [--format text|json|tap|junit|html] [--output FILE]\n"
		"                     [--junit FILE] [--html FILE] [--tap FILE] [--json FILE]\n"
		"                     CANDIDATE.json...\n"
		"       ptecheck gate --noise [--policy FILE] RUN.json...\n\n"
		"Decides whether a candidate kernel may ship, from JSON reports of\n"
		"`ptecheck run --format json` on the kernel shipped today (--baseline) and on\n"
		"the candidate.  Reports are grouped by (kernel.machine, suite, scale); the\n"
		"reports of a group are repeated runs.  Each candidate group is compared with\n"
		"the baseline group of the same machine, suite and scale.\n\n"
		"Rules (docs/gate.md):\n"
		"  invariant-failure       a check failed in a candidate report (always fails)\n"
		"  coverage-loss           a check tier that passed in the baseline is skipped\n"
		"                          or missing (policy coverage_loss, default fail)\n"
		"  batching-regression     mremap's mean batch size, or per folio order the\n"
		"                          share of fault-around batches mapping all they\n"
		"                          could, dropped by more than batching_tolerance_pct\n"
		"                          (10) and the measured noise of the runs (fails)\n"
		"  performance-regression  median mremap latency or run duration slower by more\n"
		"                          than perf_threshold_pct (25) with no overlap of runs;\n"
		"                          needs perf_min_runs (3) runs per side (fails)\n\n"
		"Options:\n"
		"  -b, --baseline FILE   a baseline report (repeat for runs and machines)\n"
		"  -p, --policy FILE     policy (JSON, docs/gate.md); default: built-in\n"
		"  -f, --format F        stdout format: text (default), json, tap, junit, html\n"
		"  -o, --output FILE     write that format to FILE instead of stdout\n"
		"      --junit FILE      also write JUnit XML to FILE (likewise --html, --tap,\n"
		"      --html FILE       --json); one call gives CI every format\n"
		"      --tap FILE\n"
		"      --json FILE\n"
		"      --noise           measure: the spread of the batching statistics over\n"
		"                        repeated runs of one kernel (RUN.json...), beside\n"
		"                        the policy's noise floors; exit 1 if one exceeds\n"
		"  -h, --help            this help\n\n"
		"Exit status: 0 ship, 1 do not ship, 2 bad input (unreadable or invalid\n"
		"report or policy, different workloads, no baseline for a machine, a partial\n"
		"report) or usage error, or an output that could not be written.\n");
	fprintf(f,
		"With --noise: 0 every spread within its floor, 1 one exceeds it, 2 as above.\n");
}

/* --junit, --html, --tap, --json: OPT_EXTRA + the format. */
#define OPT_EXTRA 256
#define OPT_NOISE 512
#define MAX_EXTRA 8

struct gate_args {
	struct pc_gate_input in; /* the file names; the reports once loaded */
	const char *policy, *output;
	bool noise; /* --noise: measure, do not gate */
	int fmt, n_extra;
	struct {
		enum pc_gate_format fmt;
		const char *path;
	} extra[MAX_EXTRA];
};

static int push_path(const char ***arr, int *n, const char *path)
{
	const char **p = realloc(*arr, (size_t)(*n + 1) * sizeof(**arr));

	if (!p)
		return -1;
	p[(*n)++] = path;
	*arr = p;
	return 0;
}

/* Loads every file, so that one run reports every bad file at once. */
static int load_all(const char **files, int n, bool allow_partial, struct pc_report ***out)
{
	char err[PC_GATE_ERR_MAX];
	int i, bad = 0;

	*out = calloc((size_t)n + 1, sizeof(**out));
	if (!*out) {
		pc_err(ENOMEM, "gate");
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (pc_gate_report_load(files[i], allow_partial, &(*out)[i], err, sizeof(err))) {
			pc_err(0, "gate: %s: %s", files[i], err);
			bad++;
		}
	}
	return bad ? -1 : 0;
}

static void free_all(struct pc_report **arr, int n)
{
	int i;

	for (i = 0; arr && i < n; i++)
		pc_report_free(arr[i]);
	free(arr);
}

static int write_to(const struct pc_gate_result *g, enum pc_gate_format fmt, const char *path)
{
	FILE *f;
	int ret;

	if (!path) {
		ret = pc_gate_write(g, fmt, stdout);
		if (ret)
			pc_err(ret, "gate: cannot write to stdout");
		return ret;
	}
	f = pc_open_report(path);
	if (!f) {
		pc_err(errno, "gate: %s: cannot create", path);
		return -1;
	}
	ret = pc_gate_write(g, fmt, f);
	if (fclose(f) != 0 && !ret)
		ret = -(errno ? errno : EIO);
	if (ret)
		pc_err(ret, "gate: %s: cannot write", path);
	return ret;
}

/* Can path take a report?  Asked before anything is judged or printed, so
   an output that cannot be written (a directory, a missing folder) never
   follows a decision on stdout: 0, or -1 with the reason said.  Nothing is
   truncated here, and a file made only to ask is removed. */
static int writable(const char *path)
{
	struct stat st;
	bool existed;
	int fd;

	if (!path)
		return 0;
	existed = stat(path, &st) == 0;
	if (existed && S_ISDIR(st.st_mode)) {
		pc_err(EISDIR, "gate: %s", path);
		return -1;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0) {
		pc_err(errno, "gate: %s: cannot create", path);
		return -1;
	}
	close(fd);
	if (!existed)
		unlink(path);
	return 0;
}

/* 0 to go on; else the command is done: 1 after --help, -1 on a usage error. */
static int parse_args(int argc, char **argv, struct gate_args *a)
{
	static const struct option opts[] = {
		{"baseline", required_argument, NULL, 'b'},
		{"policy", required_argument, NULL, 'p'},
		{"format", required_argument, NULL, 'f'},
		{"output", required_argument, NULL, 'o'},
		{"junit", required_argument, NULL, OPT_EXTRA + PC_GATE_FMT_JUNIT},
		{"html", required_argument, NULL, OPT_EXTRA + PC_GATE_FMT_HTML},
		{"tap", required_argument, NULL, OPT_EXTRA + PC_GATE_FMT_TAP},
		{"json", required_argument, NULL, OPT_EXTRA + PC_GATE_FMT_JSON},
		{"noise", no_argument, NULL, OPT_NOISE},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c, i;

	a->fmt = PC_GATE_FMT_TEXT;
	optind = 0; /* glibc: full re-initialisation (tests call this repeatedly) */
	while ((c = getopt_long(argc, argv, "b:p:f:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'b':
			if (push_path(&a->in.base_files, &a->in.n_base, optarg))
				goto oom;
			break;
		case 'p':
			a->policy = optarg;
			break;
		case 'f':
			a->fmt = pc_gate_format_parse(optarg);
			if (a->fmt < 0) {
				pc_err(0,
				       "gate: unknown format '%s' (text, json, tap, junit, html)",
				       optarg);
				return -1;
			}
			break;
		case 'o':
			a->output = optarg;
			break;
		case OPT_EXTRA + PC_GATE_FMT_JUNIT:
		case OPT_EXTRA + PC_GATE_FMT_HTML:
		case OPT_EXTRA + PC_GATE_FMT_TAP:
		case OPT_EXTRA + PC_GATE_FMT_JSON:
			if (a->n_extra >= MAX_EXTRA) {
				pc_err(0, "gate: too many output files");
				return -1;
			}
			a->extra[a->n_extra].fmt = c - OPT_EXTRA;
			a->extra[a->n_extra++].path = optarg;
			break;
		case OPT_NOISE:
			a->noise = true;
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			usage(stderr);
			return -1;
		}
	}
	for (i = optind; i < argc; i++)
		if (push_path(&a->in.cand_files, &a->in.n_cand, argv[i]))
			goto oom;
	if (!a->in.n_cand) {
		pc_err(0, "gate: no %s report given", a->noise ? "run" : "candidate");
		usage(stderr);
		return -1;
	}
	if (a->noise && (a->in.n_base || a->n_extra || a->output || a->fmt != PC_GATE_FMT_TEXT)) {
		pc_err(0, "gate: --noise takes the runs of one kernel and --policy only");
		return -1;
	}
	return 0;
oom:
	pc_err(ENOMEM, "gate");
	return -1;
}

/* Loads, judges and writes: the exit status. */
static int run_gate(struct gate_args *a, struct pc_gate_result **g)
{
	struct pc_gate_input *in = &a->in;
	char err[PC_GATE_ERR_MAX];
	int i, bad, ret;

	bad = writable(a->output);
	for (i = 0; i < a->n_extra; i++)
		bad = writable(a->extra[i].path) || bad;
	if (bad)
		return PC_GATE_EXIT_BAD_INPUT;
	pc_gate_policy_default(&in->policy);
	if (a->policy && pc_gate_policy_load(&in->policy, a->policy, err, sizeof(err))) {
		pc_err(0, "gate: %s: %s", a->policy, err);
		return PC_GATE_EXIT_BAD_INPUT;
	}
	/* Both sides first, so every bad file is named in one run. */
	bad = load_all(in->base_files, in->n_base, in->policy.allow_partial, &in->base);
	if (load_all(in->cand_files, in->n_cand, in->policy.allow_partial, &in->cand) || bad)
		return PC_GATE_EXIT_BAD_INPUT;
	if (a->noise) {
		ret = pc_gate_noise(in, stdout, err, sizeof(err));
		if (ret < 0)
			pc_err(0, "gate: %s", err);
		return ret < 0 ? PC_GATE_EXIT_BAD_INPUT : ret;
	}
	if (pc_gate_evaluate(in, g, err, sizeof(err))) {
		pc_err(0, "gate: %s", err);
		return PC_GATE_EXIT_BAD_INPUT;
	}
	ret = (*g)->ship ? PC_GATE_EXIT_SHIP : PC_GATE_EXIT_NO_SHIP;
	/* An output CI expects but cannot read must not look like a pass. */
	if (write_to(*g, a->fmt, a->output))
		ret = PC_GATE_EXIT_BAD_INPUT;
	for (i = 0; i < a->n_extra; i++)
		if (write_to(*g, a->extra[i].fmt, a->extra[i].path))
			ret = PC_GATE_EXIT_BAD_INPUT;
	return ret;
}

int pc_cmd_gate(int argc, char **argv)
{
	struct gate_args a = {0};
	struct pc_gate_result *g = NULL;
	int ret = parse_args(argc, argv, &a);

	if (ret)
		ret = ret > 0 ? PC_GATE_EXIT_SHIP : PC_GATE_EXIT_BAD_INPUT;
	else
		ret = run_gate(&a, &g);
	pc_gate_result_free(g);
	free_all(a.in.base, a.in.n_base);
	free_all(a.in.cand, a.in.n_cand);
	free(a.in.base_files);
	free(a.in.cand_files);
	return ret;
}
