// SPDX-License-Identifier: GPL-2.0
/*
 * ptecheck gate: the CI step "may we ship this kernel?".  Loads the
 * candidate and baseline reports and the policy, applies the rules
 * (evaluate.c) and writes the decision (output.c).  Exit 0 ship,
 * 1 do not ship, 2 bad input; never a pass on input it could not judge.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "report.h"
#include "gate.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: ptecheck gate [--baseline FILE]... [--policy FILE]\n"
		"                     [--format text|json|tap|junit|html] [--output FILE]\n"
		"                     [--junit FILE] [--html FILE] [--tap FILE] [--json FILE]\n"
		"                     CANDIDATE.json...\n\n"
		"Decides whether a candidate kernel may ship, from JSON reports of\n"
		"`ptecheck run --format json` on the kernel shipped today (--baseline) and on\n"
		"the candidate.  Reports are grouped by (kernel.machine, suite, scale); the\n"
		"reports of a group are repeated runs.  Each candidate group is compared with\n"
		"the baseline group of the same machine, suite and scale.\n\n"
		"Rules (docs/gate.md):\n"
		"  invariant-failure       a check failed in a candidate report (always fails)\n"
		"  coverage-loss           a check tier that passed in the baseline is skipped\n"
		"                          or missing (policy coverage_loss, default report)\n"
		"  batching-regression     mean batch size dropped by more than\n"
		"                          batching_tolerance_pct (default 10; fails)\n"
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
		"  -h, --help            this help\n\n"
		"Exit status: 0 ship, 1 do not ship, 2 bad input (unreadable or invalid\n"
		"report or policy, different workloads, no baseline for a machine, a partial\n"
		"report) or usage error, or an output that could not be written.\n");
}

enum { OPT_JUNIT = 256, OPT_HTML, OPT_TAP, OPT_JSON };

struct extra_out {
	enum pc_gate_format fmt;
	const char *path;
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

int pc_cmd_gate(int argc, char **argv)
{
	static const struct option opts[] = {
		{"baseline", required_argument, NULL, 'b'},
		{"policy", required_argument, NULL, 'p'},
		{"format", required_argument, NULL, 'f'},
		{"output", required_argument, NULL, 'o'},
		{"junit", required_argument, NULL, OPT_JUNIT},
		{"html", required_argument, NULL, OPT_HTML},
		{"tap", required_argument, NULL, OPT_TAP},
		{"json", required_argument, NULL, OPT_JSON},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct pc_gate_input in = {0};
	struct pc_gate_result *g = NULL;
	struct extra_out extra[8];
	const char *policy = NULL, *output = NULL;
	char err[PC_GATE_ERR_MAX];
	int c, i, fmt = PC_GATE_FMT_TEXT, n_extra = 0, ret = PC_GATE_EXIT_BAD_INPUT;

	optind = 0; /* glibc: full re-initialisation (tests call this repeatedly) */
	while ((c = getopt_long(argc, argv, "b:p:f:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'b':
			if (push_path(&in.base_files, &in.n_base, optarg))
				goto oom;
			break;
		case 'p':
			policy = optarg;
			break;
		case 'f':
			fmt = pc_gate_format_parse(optarg);
			if (fmt < 0) {
				pc_err(0,
				       "gate: unknown format '%s' (text, json, tap, junit, html)",
				       optarg);
				goto out;
			}
			break;
		case 'o':
			output = optarg;
			break;
		case OPT_JUNIT:
		case OPT_HTML:
		case OPT_TAP:
		case OPT_JSON:
			if (n_extra >= (int)(sizeof(extra) / sizeof(extra[0]))) {
				pc_err(0, "gate: too many output files");
				goto out;
			}
			extra[n_extra].fmt = c == OPT_JUNIT  ? PC_GATE_FMT_JUNIT
					     : c == OPT_HTML ? PC_GATE_FMT_HTML
					     : c == OPT_TAP  ? PC_GATE_FMT_TAP
							     : PC_GATE_FMT_JSON;
			extra[n_extra++].path = optarg;
			break;
		case 'h':
			usage(stdout);
			ret = PC_GATE_EXIT_SHIP;
			goto out;
		default:
			usage(stderr);
			goto out;
		}
	}
	for (i = optind; i < argc; i++)
		if (push_path(&in.cand_files, &in.n_cand, argv[i]))
			goto oom;
	if (!in.n_cand) {
		pc_err(0, "gate: no candidate report given");
		usage(stderr);
		goto out;
	}

	pc_gate_policy_default(&in.policy);
	if (policy && pc_gate_policy_load(&in.policy, policy, err, sizeof(err))) {
		pc_err(0, "gate: %s: %s", policy, err);
		goto out;
	}
	/* Both sides first, so every bad file is named in one run. */
	c = load_all(in.base_files, in.n_base, in.policy.allow_partial, &in.base);
	if (load_all(in.cand_files, in.n_cand, in.policy.allow_partial, &in.cand) || c)
		goto out;
	if (pc_gate_evaluate(&in, &g, err, sizeof(err))) {
		pc_err(0, "gate: %s", err);
		goto out;
	}
	ret = g->ship ? PC_GATE_EXIT_SHIP : PC_GATE_EXIT_NO_SHIP;
	/* An output CI expects but cannot read must not look like a pass. */
	if (write_to(g, fmt, output))
		ret = PC_GATE_EXIT_BAD_INPUT;
	for (i = 0; i < n_extra; i++)
		if (write_to(g, extra[i].fmt, extra[i].path))
			ret = PC_GATE_EXIT_BAD_INPUT;
	goto out;
oom:
	pc_err(ENOMEM, "gate");
out:
	pc_gate_result_free(g);
	free_all(in.base, in.n_base);
	free_all(in.cand, in.n_cand);
	free(in.base_files);
	free(in.cand_files);
	return ret;
}
