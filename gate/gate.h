/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ptecheck gate: may we ship this kernel?  Compares JSON reports of
 * `ptecheck run` from the kernel shipped today (baseline) with those of a
 * candidate, per (machine, suite, scale), under four named rules:
 * invariant-failure, coverage-loss, batching-regression and
 * performance-regression (docs/gate.md).
 *
 *	gate.c		the command
 *	input.c		reading files and JSON fields (gate_input.h)
 *	parse.c		loading and validating a report
 *	policy.c	the policy
 *	evaluate.c	grouping, merging repeated runs, applying the rules
 *	rules.c		invariant-failure, coverage-loss; findings (gate_rules.h)
 *	rules_batch.c	batching-regression, against the measured noise
 *	rules_perf.c	performance-regression
 *	noise.c		--noise: the noise of repeated runs of one kernel
 *	output.c	choosing a writer (gate_output.h): output_text.c,
 *			output_tap.c, output_junit.c, output_json.c, output_html.c
 */
#ifndef PTECHECK_GATE_H
#define PTECHECK_GATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "report.h"

/* Exit codes of `ptecheck gate` (a contract with CI scripts). */
enum pc_gate_exit {
	PC_GATE_EXIT_SHIP = 0,
	PC_GATE_EXIT_NO_SHIP = 1,
	PC_GATE_EXIT_BAD_INPUT = 2, /* also usage errors and unwritable outputs */
};

#define PC_GATE_ERR_MAX		 1024
#define PC_GATE_MAX_BATCH_NAMES	 32
#define PC_GATE_REPORT_MAX_BYTES (64u << 20) /* a real report is ~50 KiB */
#define PC_GATE_POLICY_MAX_BYTES (1u << 20)
#define PC_GATE_MAX_RESULTS	 4096 /* per report; a run has ~60 */
#define PC_GATE_MAX_HISTS	 256

/* The noise floor of one run for the histograms whose id matches name
   (an id or an fnmatch pattern, report/hist_id.c). */
struct pc_gate_floor {
	char name[64];
	double pct; /* in % or points, as the policy key says */
};

/* What a rule does when it finds something. */
enum pc_gate_action { PC_GATE_ACTION_REPORT = 0, PC_GATE_ACTION_FAIL };

struct pc_gate_policy {
	enum pc_gate_action coverage_loss;	    /* default report */
	enum pc_gate_action batching_regression;    /* default fail */
	enum pc_gate_action performance_regression; /* default fail */
	double batching_tolerance_pct;		    /* default 10 */
	double perf_threshold_pct;		    /* default 25 */
	int perf_min_runs;			    /* default 3 */
	bool allow_partial;			    /* default false */
	bool allow_no_baseline;			    /* default false */
	char latency_histogram[64];		    /* an id, default "mremap/latency" */
	int n_batch_names;
	char batch_names[PC_GATE_MAX_BATCH_NAMES][64]; /* id patterns */
	/* Of those, the defaults' exceptions (gate/policy.c; NULL-ended):
	   cleared by a policy's batch_histograms, which judges what it names. */
	const char *const *unjudged;
	int batch_min_batches; /* batches a histogram needs per side to be judged */
	/* The noise of one run of one kernel (docs/gate.md, "Noise"): per
	   batch histogram, the change of its mean in % and of its share of
	   batches reaching the baseline's mode in points; per folio order, the
	   change of the share of full batches in points. */
	int n_noise, n_share_noise;
	struct pc_gate_floor noise[PC_GATE_MAX_BATCH_NAMES];	   /* pct: % */
	struct pc_gate_floor share_noise[PC_GATE_MAX_BATCH_NAMES]; /* pct: points */
	double noise_default_pct;	    /* a batch histogram without its own floor */
	double share_noise_default_pp;	    /* the same for its share */
	char order_all[64], order_full[64]; /* order_histograms' ids; "" = not judged */
	double order_noise_pp;
	int order_min_batches; /* batches of an order per side to judge it */
	/* Standard errors of a statistic's own counts within which a drop
	   is noise (gate/sampling.c); 0: the floors alone. */
	double batch_sampling_sigmas;
};

void pc_gate_policy_default(struct pc_gate_policy *p);
/*
 * Parses a policy (JSON) over the defaults.  0, or -1 with a message in
 * err naming the key (unknown keys and wrong types are errors).
 */
int pc_gate_policy_parse(struct pc_gate_policy *p, const char *buf, size_t len, char *err,
			 size_t errlen);
int pc_gate_policy_load(struct pc_gate_policy *p, const char *path, char *err, size_t errlen);
/* True if the histogram of that id is a batch histogram under the policy:
   one whose mean and mode share are judged, or one of the order histograms. */
bool pc_gate_is_batch_hist(const struct pc_gate_policy *p, const char *id);
/* True if the mean and the mode share of the histogram of that id are
   judged (batch_histograms: every per-path batch histogram by default). */
bool pc_gate_is_mean_hist(const struct pc_gate_policy *p, const char *id);
/* The noise floor of one run for the mean of histogram id, in %. */
double pc_gate_noise_floor(const struct pc_gate_policy *p, const char *id);
/* The same for its share of batches reaching the baseline's mode, in points. */
double pc_gate_share_noise_floor(const struct pc_gate_policy *p, const char *id);

/*
 * Parses and validates one report of `ptecheck run` into a pc_report
 * (results, histograms in slots, metadata; notes and stats are validated but
 * not kept).  A partial report is refused unless allow_partial.  0, or -1
 * with a message in err (without the file name; the caller adds it).
 */
int pc_gate_report_parse(const char *buf, size_t len, bool allow_partial, struct pc_report **out,
			 char *err, size_t errlen);
int pc_gate_report_load(const char *path, bool allow_partial, struct pc_report **out, char *err,
			size_t errlen);
/* Reads a whole regular file (at most max bytes); malloc'ed, NUL-terminated. */
char *pc_gate_read_file(const char *path, size_t max, size_t *len, char *err, size_t errlen);

/* ---- evaluation ---------------------------------------------------------- */

enum pc_gate_rule_id {
	PC_GATE_RULE_INVARIANT = 0, /* invariant-failure */
	PC_GATE_RULE_COVERAGE,	    /* coverage-loss */
	PC_GATE_RULE_BATCHING,	    /* batching-regression */
	PC_GATE_RULE_PERF,	    /* performance-regression */
	PC_GATE_RULE__COUNT,
};

enum pc_gate_verdict {
	PC_GATE_PASS = 0,   /* nothing found */
	PC_GATE_WARN,	    /* found, reported, the policy does not fail on it */
	PC_GATE_FAIL,	    /* fails the gate */
	PC_GATE_NOT_JUDGED, /* could not be judged (why in not_judged) */
};

/* A check's merged status; MISSING: not in any report of the group. */
enum pc_gate_status {
	PC_GATE_ST_PASS = 0,
	PC_GATE_ST_SKIP,
	PC_GATE_ST_MISSING,
	PC_GATE_ST_FAIL,
};

struct pc_gate_finding {
	bool problem;	/* a reason against shipping (or a warning); else context */
	char *text;	/* one line */
	char *evidence; /* NULL or one line */
};

struct pc_gate_rule_result {
	enum pc_gate_rule_id rule;
	enum pc_gate_verdict verdict;
	char *not_judged; /* why (NOT_JUDGED), else NULL */
	int n_findings, cap_findings;
	struct pc_gate_finding *findings; /* reasons, warnings, notes */
	int n_improvements, cap_improvements;
	char **improvements;
};

struct pc_gate_check_row {
	char check[48], tier[48];
	enum pc_gate_status base, cand;
};

struct pc_gate_side {
	int n_runs;
	const char **files;	       /* borrowed from the input */
	const struct pc_report **runs; /* borrowed from the input */
	struct pc_report *merged;      /* results: worst status; histograms summed */
};

struct pc_gate_group {
	char machine[65], suite[PC_SUITE_LIST_MAX];
	unsigned int scale;
	bool has_baseline;
	struct pc_gate_side base, cand;
	int n_rows;
	struct pc_gate_check_row *rows;
	struct pc_gate_rule_result rules[PC_GATE_RULE__COUNT];
};

struct pc_gate_input {
	struct pc_gate_policy policy;
	int n_base, n_cand;
	const char **base_files, **cand_files;
	struct pc_report **base, **cand;
};

struct pc_gate_result {
	bool ship;
	const struct pc_gate_policy *policy;
	int n_groups;
	struct pc_gate_group *groups;
};

/*
 * Merges run r (read from file) into report into, as the gate merges the
 * repeated runs of a side: a check's worst status wins with that run's
 * summary and evidence, each scenario variant's worst too, histograms add
 * up.  0, or -1 with err (out of memory; a histogram of another kind than
 * the one in first_file, made by another ptecheck version).
 */
int pc_gate_merge_report(struct pc_report *into, const struct pc_report *r, const char *file,
			 const char *first_file, char *err, size_t errlen);
/*
 * Groups the reports and applies the rules.  0 with *out filled, or -1 with
 * a message in err when the input cannot be judged (different workloads, no
 * baseline for a group, a baseline without a candidate): exit 2.
 */
int pc_gate_evaluate(const struct pc_gate_input *in, struct pc_gate_result **out, char *err,
		     size_t errlen);
void pc_gate_result_free(struct pc_gate_result *g);

const char *pc_gate_rule_name(enum pc_gate_rule_id id);
const char *pc_gate_verdict_name(enum pc_gate_verdict v);
const char *pc_gate_status_name(enum pc_gate_status s);

/* ---- output -------------------------------------------------------------- */

enum pc_gate_format {
	PC_GATE_FMT_TEXT = 0,
	PC_GATE_FMT_JSON,
	PC_GATE_FMT_TAP,
	PC_GATE_FMT_JUNIT,
	PC_GATE_FMT_HTML,
};

/* "text", "json", "tap", "junit", "html" -> format; -1 if unknown. */
int pc_gate_format_parse(const char *s);
/* 0, or -errno if writing failed. */
int pc_gate_write(const struct pc_gate_result *g, enum pc_gate_format fmt, FILE *f);

/*
 * --noise: prints the spread of the batching rule's statistics over the
 * runs in->cand (repeated runs of one kernel) beside the policy's floors.
 * 0 all within, 1 one exceeds its floor, -1 with err on bad input.
 */
int pc_gate_noise(const struct pc_gate_input *in, FILE *out, char *err, size_t errlen);

int pc_cmd_gate(int argc, char **argv);

#endif
