// SPDX-License-Identifier: GPL-2.0
/*
 * The start-exit rows of `ptecheck bench`: the whole wall time of
 * `ptecheck hist -- true` and `ptecheck watch -- true` against bpftrace
 * tracing /bin/true with one probe, run alternately, as the user sees it
 * (fork to reap: load, attach, the command, detach, exit).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include "start_exit.h"
#include "tracers.h"

static const char bpftrace_probe[] = "tracepoint:syscalls:sys_enter_mremap { @n = count(); }";

/* One run of argv: its wall time into *wall, or -1 with why. */
static int wall_time(struct pc_bench *b, char *const argv[], double *wall, char *why, size_t len)
{
	struct pc_bench_child c;
	int err = pc_bench_run(b, argv, 60.0, &c), ok;

	if (err) {
		snprintf(why, len, "%s did not start: %s", argv[0], strerror(-err));
		return -1;
	}
	/* watch and hist exit 4 here: nothing of the paths judged with `true`. */
	ok = WIFEXITED(c.status) && (WEXITSTATUS(c.status) == 0 || WEXITSTATUS(c.status) == 4);
	if (!ok)
		snprintf(why, len, "%s failed (wait status %d): %.200s", argv[0], c.status, c.err);
	*wall = c.wall_s;
	pc_bench_child_free(&c);
	return ok ? 0 : -1;
}

static void start_exit_row(struct pc_bench *b, const char *cmd, const char *bt)
{
	char name[32], title[160], why[300];
	char *pc_argv[] = {b->exe, (char *)cmd, "--", "/bin/true", NULL};
	char *bt_argv[] = {(char *)bt, "-e", (char *)bpftrace_probe, "-c", "/bin/true", NULL};
	double a[PC_BENCH_MAX_REPEAT], v[PC_BENCH_MAX_REPEAT], r[PC_BENCH_MAX_REPEAT], warm;
	struct pc_bench_stats s;
	json_t *row;
	int n = b->o.repeat;

	snprintf(name, sizeof(name), "start-exit-%s", cmd);
	if (!pc_bench_selected(b, name))
		return;
	snprintf(title, sizeof(title),
		 "`ptecheck %s -- true` wall time / bpftrace's with one probe and -c /bin/true",
		 cmd);
	row = pc_bench_row_new(name, "overhead", title, PC_BENCH_SLOWDOWN);
	if (!bt) {
		pc_bench_row_finish(b, row, PC_BENCH_SKIPPED,
				    "bpftrace not installed (Debian: apt-get install bpftrace)");
		return;
	}
	/* A warm-up of each, discarded: the first load reads BTF from disk. */
	if (wall_time(b, bt_argv, &warm, why, sizeof(why)) ||
	    wall_time(b, pc_argv, &warm, why, sizeof(why))) {
		pc_bench_row_finish(b, row, PC_BENCH_SKIPPED, why);
		return;
	}
	for (int i = 0; i < n; i++) {
		char *const *argv[2] = {bt_argv, pc_argv};
		double *wall[2] = {&a[i], &v[i]};

		/* A B, then B A: neither side always runs second. */
		for (int k = 0; k < 2; k++) {
			int side = (i + k) % 2;

			if (wall_time(b, argv[side], wall[side], why, sizeof(why))) {
				pc_bench_row_finish(b, row, PC_BENCH_SKIPPED, why);
				return;
			}
		}
		r[i] = v[i] / a[i];
	}
	pc_bench_row_ratios(row, r, n);
	pc_bench_row_side(row, "a", "bpftrace", a, n, "s", "");
	pc_bench_row_side(row, "b", cmd, v, n, "s", "");
	pc_bench_stats(r, n, &s);
	pc_bench_row_target(row, "at most bpftrace's wall time (the issue's target)", 1.0,
			    s.median);
	pc_bench_row_finish(b, row, PC_BENCH_MEASURED, NULL);
}

void pc_bench_start_exit(struct pc_bench *b)
{
	const char *bt = pc_bench_bpftrace_path();

	start_exit_row(b, "hist", bt);
	start_exit_row(b, "watch", bt);
}
