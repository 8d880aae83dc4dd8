/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ptecheck bench: the figures of the original patches, each a ratio of two
 * sides measured alternately in one run, and the overhead of the checks.
 * bench.c runs the command (options, child processes, output);
 * bench_rows.c defines the rows and how each is measured.
 */
#ifndef PTECHECK_BENCH_H
#define PTECHECK_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

#define PC_BENCH_MAX_REPEAT 51

enum pc_bench_status {
	PC_BENCH_MEASURED = 0,
	PC_BENCH_SKIPPED,	 /* could not run here: reason says why (exit 3) */
	PC_BENCH_NOT_APPLICABLE, /* not for this architecture: reason says where */
};

/* speedup: time A / time B; slowdown: time traced / time bare; seconds: a time. */
enum pc_bench_kind { PC_BENCH_SPEEDUP, PC_BENCH_SLOWDOWN, PC_BENCH_SECONDS };

struct pc_bench_stats {
	int n;
	double median, min, max;
};

/* Median, min and max of v[0..n) (n > 0); v is left untouched. */
void pc_bench_stats(const double *v, int n, struct pc_bench_stats *out);

/* Where timings come from: "host", "virtualized" or "emulated" (TCG). */
struct pc_bench_platform {
	const char *kind;
	char why[160];
};
void pc_bench_detect_platform(struct pc_bench_platform *p);

struct pc_bench_opts {
	bool quick;
	int repeat; /* pairs per row */
	int cpu;    /* CPU the children are pinned to, or -1 */
	const char *only;
};

/* One child process: argv[0] a path; stdout and stderr captured. */
struct pc_bench_child {
	int status;		/* wait status, or -1 if it could not start */
	double wall_s;		/* fork to reap, CLOCK_MONOTONIC */
	char *out, *err;	/* NUL-terminated captures (malloc'ed) */
	long long instructions; /* retired instructions of the child tree, or -1 */
};

struct pc_bench {
	struct pc_bench_opts o;
	struct pc_bench_platform platform;
	char exe[4096];	      /* this ptecheck */
	char workloads[4096]; /* its workloads directory */
	char instr_why[120];  /* why instructions are not counted, if not */
	json_t *rows;	      /* array of row objects */
	int n_measured, n_skipped, n_na;
};

/* Runs argv (NULL-terminated) pinned to b->o.cpu; 0, or -errno (not started). */
int pc_bench_run(struct pc_bench *b, char *const argv[], double timeout_s,
		 struct pc_bench_child *c);
void pc_bench_child_free(struct pc_bench_child *c);
/* The first line of text starting with {"workload" parsed, or NULL. */
json_t *pc_bench_workload_json(const char *text);
/* The first non-empty line of text, trimmed, into buf. */
const char *pc_bench_first_line(const char *text, char *buf, size_t len);

/* True when row name is selected by --only (a name or a prefix before '-'). */
bool pc_bench_selected(const struct pc_bench *b, const char *name);

/* Row objects (bench.c) --------------------------------------------------- */

json_t *pc_bench_row_new(const char *name, const char *table, const char *title,
			 enum pc_bench_kind kind);
/* Appends the row after setting status/counters; reason may be NULL. */
void pc_bench_row_finish(struct pc_bench *b, json_t *row, enum pc_bench_status st,
			 const char *reason);

/* The rows (bench_rows.c); each appends to b->rows.  Names: NULL-terminated. */
extern const char *const pc_bench_row_names[];
void pc_bench_figures(struct pc_bench *b);
void pc_bench_overhead(struct pc_bench *b);

int pc_cmd_bench(int argc, char **argv);

#endif
