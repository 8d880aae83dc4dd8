/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The two loops the overhead and export tables measure (bench/loops.c):
 * the tight mremap loop on 64 KiB folios, and the fault loop on one tmpfs
 * file of 4 KiB folios made once for every run.  One definition, so both
 * tables time the same experiment.
 */
#ifndef PTECHECK_BENCH_LOOPS_H
#define PTECHECK_BENCH_LOOPS_H

#include <stdbool.h>
#include "runner.h"
#include "side.h"

/* A slowdown below this is no overhead: the traced runs were faster than
   the bare ones, so the sides differ by more than the tracer. */
#define PC_BENCH_RATIO_MIN 0.97

/* A table's part: its rows of a loop, and which of them are selected. */
struct pc_bench_loops {
	/* The rows of loop wname against its bare side (after one discarded
	   warm-up run; bare->cmd the loop's command, bare->wl its last run). */
	void (*rows)(struct pc_bench *b, const char *wname, struct pc_bench_side *bare);
	bool (*selected)(const struct pc_bench *b, const char *wname);
	/* Every selected row of loop wname skipped, with why. */
	void (*skip)(struct pc_bench *b, const char *wname, const char *why);
};

/* Runs the table's rows of both loops. */
void pc_bench_loops(struct pc_bench *b, const struct pc_bench_loops *t);

#endif
