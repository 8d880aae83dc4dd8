/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every row of `ptecheck bench` is measured with: the bench's state,
 * child processes and their command lines, statistics, where the timings
 * come from, and the row objects of the report.
 */
#ifndef PTECHECK_BENCH_RUNNER_H
#define PTECHECK_BENCH_RUNNER_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

#define PC_BENCH_MAX_REPEAT 51
/* The longest a child may take before it is ended (TERM, then KILL). */
#define PC_BENCH_CHILD_TIMEOUT_S 900.0

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
	const char *fs_dir; /* --fs-dir: filemap-fault's files there, not on loop devices */
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

/* True when row name is selected by --only (a name or a prefix before '-'). */
bool pc_bench_selected(const struct pc_bench *b, const char *name);

/* A table of rows: its name in the report, the rows it may add, how. */
struct pc_bench_table {
	const char *name;		 /* "figures": each row's "table" */
	const char *heading;		 /* the text report's line above its rows */
	const char *const *rows;	 /* the names of its rows, NULL-terminated */
	void (*run)(struct pc_bench *b); /* appends its selected rows to b->rows */
};

/* Child processes ----------------------------------------------------------- */

/* A command line of up to PC_BENCH_ARGV_MAX arguments of 255 bytes each. */
#define PC_BENCH_ARGV_MAX 40
struct pc_bench_argv {
	int n;
	char *v[PC_BENCH_ARGV_MAX + 1]; /* NULL-terminated */
	char buf[PC_BENCH_ARGV_MAX][256];
};

void pc_bench_argv_add(struct pc_bench_argv *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The workload name of b's workloads directory with the arguments that
   follow (NULL-terminated), into a. */
void pc_bench_workload_argv(const struct pc_bench *b, struct pc_bench_argv *a, const char *name,
			    ...) __attribute__((sentinel));
/* The arguments joined by spaces, as one shell-like command. */
void pc_bench_argv_join(const struct pc_bench_argv *a, char *buf, size_t len);

/* One child process: argv[0] a path; stdout and stderr captured. */
struct pc_bench_child {
	int status;		/* wait status, or -1 if it could not start */
	double wall_s;		/* fork to reap, CLOCK_MONOTONIC */
	char *out, *err;	/* NUL-terminated captures (malloc'ed) */
	long long instructions; /* retired instructions of the child tree, or -1 */
};

/* Runs argv (NULL-terminated) pinned to b->o.cpu; 0, or -errno (not started). */
int pc_bench_run(struct pc_bench *b, char *const argv[], double timeout_s,
		 struct pc_bench_child *c);
void pc_bench_child_free(struct pc_bench_child *c);
/* The first line of text starting with {"workload" parsed, or NULL. */
json_t *pc_bench_workload_json(const char *text);
/* The first non-empty line of text, trimmed, into buf. */
const char *pc_bench_first_line(const char *text, char *buf, size_t len);

/* CLOCK_MONOTONIC in seconds. */
double pc_bench_now(void);

/* What the rows share ------------------------------------------------------ */

/* A directory of a row's own under parent (NULL: $TMPDIR, or /tmp) for its
   scratch filesystems or files: 0, or -1 with why (dir is then empty). */
int pc_bench_mkdtemp(const char *parent, char *dir, size_t len, char *why, size_t why_len);
/* "4K x 16384" from a filemap_fault result's folio census, or "unknown";
   large: a folio larger than 4 KiB was seen. */
void pc_bench_census_text(const json_t *wl, char *buf, size_t len, bool *large);

/* Row objects ------------------------------------------------------------- */

json_t *pc_bench_row_new(const char *name, const char *table, const char *title,
			 enum pc_bench_kind kind);
/* Appends the row after setting status/counters; reason may be NULL. */
void pc_bench_row_finish(struct pc_bench *b, json_t *row, enum pc_bench_status st,
			 const char *reason);
/* The row's median, min, max, pairs and ratios from r[0..n). */
void pc_bench_row_ratios(json_t *row, const double *r, int n);
/* The row's side key ("a", "b"): its label, median and values in unit. */
void pc_bench_row_side(json_t *row, const char *key, const char *label, const double *v, int n,
		       const char *unit, const char *per);
/* The patches' figure; ratio <= 0: none to compare with. */
void pc_bench_row_reference(json_t *row, const char *text, double ratio);
/* The target: value <= max. */
void pc_bench_row_target(json_t *row, const char *text, double max, double value);

#endif
