/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One side of a row of `ptecheck bench` (a workload, bare or under a
 * tracer) and a row's pairs: the two sides run alternately, A B, B A ...,
 * or (overhead rows) each traced run between two bare runs, each pair
 * giving one ratio.
 */
#ifndef PTECHECK_BENCH_SIDE_H
#define PTECHECK_BENCH_SIDE_H

#include "runner.h"

/* What a side's workload runs under. */
enum pc_bench_wrap {
	PC_BENCH_BARE,
	PC_BENCH_HIST,
	PC_BENCH_WATCH,
	PC_BENCH_EMPTY,
	PC_BENCH_BPFTRACE
};

struct pc_bench_side {
	const char *label;
	enum pc_bench_wrap wrap;
	const struct pc_bench_argv *cmd; /* the workload */
	const char *metric;		 /* key of its --json line */
	bool rate;			 /* the metric grows when faster (pages/s) */
	const char *unit, *per;		 /* the metric's, in the report: "ns", "/mremap" */
	/* the last run */
	double value;
	json_t *wl; /* its --json line (the caller's to json_decref) */
	long long instructions;
	/* sums over the measured runs */
	long long dropped, state_full, state_lost, violations, runs;
	json_t *failed; /* the first failed results of hist/watch, as evidence */
	double detach_s;
	int links; /* PC_BENCH_EMPTY: programs attached */
};

/* Runs one side once: 0 with s->value set, or -1 with why. */
int pc_bench_run_side(struct pc_bench *b, struct pc_bench_side *s, char *why, size_t len);

struct pc_bench_series {
	/* a: one more for pc_bench_bracket()'s last bare run */
	double a[PC_BENCH_MAX_REPEAT + 1], b[PC_BENCH_MAX_REPEAT], r[PC_BENCH_MAX_REPEAT];
	long long ia[PC_BENCH_MAX_REPEAT], ib[PC_BENCH_MAX_REPEAT];
	int n;
	struct pc_bench_stats ratio; /* of r[] */
};

/*
 * The pairs of a row: a warm-up run of warmup sides (0, a only or both),
 * discarded, then b->o.repeat pairs of sa and sb.  Sets the row's ratios
 * (kind k) and its sides "a" and "b": 0.  When a run fails the row is
 * finished as skipped with the reason: -1.  The last run of each side
 * stays in its wl.
 */
int pc_bench_pairs(struct pc_bench *b, json_t *row, struct pc_bench_side *sa,
		   struct pc_bench_side *sb, enum pc_bench_kind k, int warmup,
		   struct pc_bench_series *ser);

/*
 * The runs of an overhead row: bare, traced, bare, traced, ..., bare
 * (b->o.repeat traced runs and one bare run more), each traced run's
 * slowdown taken against the mean (in time) of the bare runs just before
 * and just after it: a drift of the machine's speed over the row cancels
 * in every ratio, and no side always runs first.  Sets the row's ratios,
 * "a" (the bare runs) and "b": 0, or -1 with the row finished as skipped.
 */
int pc_bench_bracket(struct pc_bench *b, json_t *row, struct pc_bench_side *bare,
		     struct pc_bench_side *traced, struct pc_bench_series *ser);

/* The instruction ratio (A / B) of the pairs, or why it is not counted. */
void pc_bench_row_instructions(const struct pc_bench *b, json_t *row,
			       const struct pc_bench_series *s);

#endif
