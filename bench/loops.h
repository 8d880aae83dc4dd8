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

/* A table's part: its rows of a loop, and which of them are selected. */
struct pc_bench_loops {
	/* The rows of loop wname: its command, figure metric, and whether
	   the figure is a rate (pages/s) or a time. */
	void (*rows)(struct pc_bench *b, const char *wname, const struct pc_bench_argv *cmd,
		     const char *metric, bool rate);
	bool (*selected)(const struct pc_bench *b, const char *wname);
	/* Every selected row of loop wname skipped, with why. */
	void (*skip)(struct pc_bench *b, const char *wname, const char *why);
};

/* Runs the table's rows of both loops. */
void pc_bench_loops(struct pc_bench *b, const struct pc_bench_loops *t);

#endif
