// SPDX-License-Identifier: GPL-2.0
/*
 * One side of a row (the workload, bare or under ptecheck hist/watch, the
 * empty BPF programs or bpftrace) run as a child whose own --json line
 * gives the figure, and the pairs of a row.  Nothing here judges a timing.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include "side.h"
#include "tracers.h"

/* Keeps the first few failed results of a report (a watch saw a violation). */
static void keep_failed(struct pc_bench_side *s, json_t *report)
{
	json_t *r;
	size_t i;

	json_array_foreach(json_object_get(report, "results"), i, r)
	{
		const char *st = json_string_value(json_object_get(r, "status"));

		if (!st || strcmp(st, "fail"))
			continue;
		if (!s->failed)
			s->failed = json_array();
		if (json_array_size(s->failed) < 4)
			json_array_append(s->failed, r);
	}
}

/* The counts of a hist/watch report (its stdout) added to the side's. */
static void add_report(struct pc_bench_side *s, const char *out)
{
	json_t *report = json_loads(out, 0, NULL), *st;

	if (!report)
		return;
	st = json_object_get(report, "stats");
	s->dropped += json_integer_value(json_object_get(st, "events_dropped"));
	s->state_full += json_integer_value(json_object_get(st, "state_full"));
	s->state_lost += json_integer_value(json_object_get(st, "state_lost"));
	s->violations +=
		json_integer_value(json_object_get(json_object_get(report, "summary"), "failed"));
	keep_failed(s, report);
	json_decref(report);
}

/* A side's command line: the workload under its tracer. */
struct side_cmd {
	struct pc_bench_argv a;
	char prog[1024], cmdline[2048]; /* bpftrace's program and command */
	char *bpftrace[6];
	char *const *argv;
};

static int side_cmd(const struct pc_bench *b, const struct pc_bench_side *s, struct side_cmd *c,
		    char *why, size_t len)
{
	const char *bt;

	memset(&c->a, 0, sizeof(c->a));
	c->argv = c->a.v;
	if (s->wrap == PC_BENCH_BPFTRACE) {
		bt = pc_bench_bpftrace_path();
		if (!bt) {
			snprintf(why, len,
				 "bpftrace not installed (Debian: apt-get install bpftrace)");
			return -1;
		}
		pc_bench_bpftrace_prog(c->prog, sizeof(c->prog));
		pc_bench_argv_join(s->cmd, c->cmdline, sizeof(c->cmdline));
		/* argv[] by hand: the program and command exceed an argument's 256 bytes. */
		c->bpftrace[0] = (char *)bt;
		c->bpftrace[1] = "-e";
		c->bpftrace[2] = c->prog;
		c->bpftrace[3] = "-c";
		c->bpftrace[4] = c->cmdline;
		c->bpftrace[5] = NULL;
		c->argv = c->bpftrace;
		return 0;
	}
	if (s->wrap == PC_BENCH_HIST || s->wrap == PC_BENCH_WATCH) {
		pc_bench_argv_add(&c->a, "%s", b->exe);
		pc_bench_argv_add(&c->a, "%s", s->wrap == PC_BENCH_HIST ? "hist" : "watch");
		pc_bench_argv_add(&c->a, "--format");
		pc_bench_argv_add(&c->a, "json");
		pc_bench_argv_add(&c->a, "--");
	}
	for (int i = 0; i < s->cmd->n; i++)
		pc_bench_argv_add(&c->a, "%s", s->cmd->v[i]);
	return 0;
}

/* The side's figure from its finished child: 0, or -1 with why. */
static int side_result(struct pc_bench_side *s, const struct pc_bench_child *c, char *why,
		       size_t len)
{
	char line[200];
	json_t *v;

	s->instructions = c->instructions;
	/* hist/watch: the report on stderr, the command's stdout its own. */
	s->wl = pc_bench_workload_json(c->err);
	if (!s->wl)
		s->wl = pc_bench_workload_json(c->out);
	if (!s->wl) {
		int st = c->status;

		if (WIFEXITED(st) && WEXITSTATUS(st) == 4 && s->wrap == PC_BENCH_BARE)
			snprintf(why, len, "cannot run here: %s",
				 pc_bench_first_line(c->err, line, sizeof(line)));
		else
			snprintf(why, len, "%s: %s %d, no result line: %s", s->label,
				 WIFEXITED(st) ? "exit" : "signal",
				 WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st),
				 pc_bench_first_line(c->err && *c->err ? c->err : c->out, line,
						     sizeof(line)));
		return -1;
	}
	v = json_object_get(s->wl, s->metric);
	s->value = json_number_value(v);
	if (!json_is_number(v) || s->value <= 0) {
		snprintf(why, len, "%s: no positive \"%s\" in the workload's result", s->label,
			 s->metric);
		return -1;
	}
	if (s->wrap == PC_BENCH_HIST || s->wrap == PC_BENCH_WATCH)
		add_report(s, c->out);
	return 0;
}

int pc_bench_run_side(struct pc_bench *b, struct pc_bench_side *s, char *why, size_t len)
{
	struct pc_bench_empty e = {0};
	struct pc_bench_child c;
	struct side_cmd cmd;
	int rc;

	json_decref(s->wl);
	s->wl = NULL;
	if (side_cmd(b, s, &cmd, why, len))
		return -1;
	if (s->wrap == PC_BENCH_EMPTY && pc_bench_empty_attach(&e, why, len)) {
		pc_bench_empty_detach(&e);
		return -1;
	}
	rc = pc_bench_run(b, cmd.argv, PC_BENCH_CHILD_TIMEOUT_S, &c);
	if (s->wrap == PC_BENCH_EMPTY) {
		double t0 = pc_bench_now();

		s->links = e.n;
		pc_bench_empty_detach(&e);
		s->detach_s = pc_bench_now() - t0;
	}
	if (rc) {
		snprintf(why, len, "%s: cannot start %s: %s", s->label, s->cmd->v[0],
			 strerror(-rc));
		return -1;
	}
	rc = side_result(s, &c, why, len);
	pc_bench_child_free(&c);
	if (!rc)
		s->runs++;
	return rc;
}

/* Ratio of one pair of figures va, vb (rates when rate): speedup of b over a,
   or slowdown of b (traced) against a (bare). */
static double pair_ratio(bool rate, double va, double vb, enum pc_bench_kind k)
{
	double ta = rate ? 1 / va : va, tb = rate ? 1 / vb : vb;

	return k == PC_BENCH_SPEEDUP ? ta / tb : tb / ta;
}

/* pc_bench_pairs() but the row: 0, or -1 with why. */
static int run_pairs(struct pc_bench *b, struct pc_bench_side *sa, struct pc_bench_side *sb,
		     enum pc_bench_kind k, int warmup, struct pc_bench_series *ser, char *why,
		     size_t len)
{
	char w[400];

	memset(ser, 0, sizeof(*ser));
	if (warmup >= 1 && pc_bench_run_side(b, sa, why, len))
		return -1;
	if (warmup >= 2 && pc_bench_run_side(b, sb, why, len))
		return -1;
	sa->dropped = sa->state_full = sa->state_lost = sa->violations = sa->runs = 0;
	sb->dropped = sb->state_full = sb->state_lost = sb->violations = sb->runs = 0;
	/* A B, then B A, ...: a side that always ran second would gain
	   whatever the first leaves warm (measured: 0.90 for bare against
	   bare, when the floor attached nothing). */
	for (int i = 0; i < b->o.repeat; i++) {
		struct pc_bench_side *first = i % 2 ? sb : sa, *second = i % 2 ? sa : sb;

		if (pc_bench_run_side(b, first, w, sizeof(w)) ||
		    pc_bench_run_side(b, second, w, sizeof(w))) {
			snprintf(why, len, "pair %d: %s", i + 1, w);
			return -1;
		}
		ser->a[i] = sa->value;
		ser->b[i] = sb->value;
		ser->ia[i] = sa->instructions;
		ser->ib[i] = sb->instructions;
		ser->r[i] = pair_ratio(sa->rate, sa->value, sb->value, k);
		ser->n = i + 1;
	}
	return 0;
}

/* The mean, in time, of two figures of a side: the time per page of two rates. */
static double mean_of(bool rate, double v0, double v1)
{
	return rate ? 2 / (1 / v0 + 1 / v1) : (v0 + v1) / 2;
}

/* pc_bench_bracket() but the row: 0, or -1 with why. */
static int run_bracket(struct pc_bench *b, struct pc_bench_side *bare, struct pc_bench_side *t,
		       struct pc_bench_series *ser, char *why, size_t len)
{
	char w[400];

	memset(ser, 0, sizeof(*ser));
	t->dropped = t->state_full = t->state_lost = t->violations = t->runs = 0;
	if (pc_bench_run_side(b, bare, w, sizeof(w))) {
		snprintf(why, len, "first bare run: %s", w);
		return -1;
	}
	ser->a[0] = bare->value;
	for (int i = 0; i < b->o.repeat; i++) {
		if (pc_bench_run_side(b, t, w, sizeof(w)) ||
		    pc_bench_run_side(b, bare, w, sizeof(w))) {
			snprintf(why, len, "pair %d: %s", i + 1, w);
			return -1;
		}
		ser->b[i] = t->value;
		ser->a[i + 1] = bare->value;
		ser->r[i] = pair_ratio(bare->rate, mean_of(bare->rate, ser->a[i], ser->a[i + 1]),
				       t->value, PC_BENCH_SLOWDOWN);
		ser->n = i + 1;
	}
	return 0;
}

/* The row's ratios, its sides (na values of a) and their statistics in ser. */
static void series_to_row(json_t *row, const struct pc_bench_side *sa,
			  const struct pc_bench_side *sb, int na, struct pc_bench_series *ser)
{
	pc_bench_row_ratios(row, ser->r, ser->n);
	pc_bench_row_side(row, "a", sa->label, ser->a, na, sa->unit, sa->per);
	pc_bench_row_side(row, "b", sb->label, ser->b, ser->n, sb->unit, sb->per);
	pc_bench_stats(ser->r, ser->n, &ser->ratio);
}

int pc_bench_pairs(struct pc_bench *b, json_t *row, struct pc_bench_side *sa,
		   struct pc_bench_side *sb, enum pc_bench_kind k, int warmup,
		   struct pc_bench_series *ser)
{
	char why[512];

	if (run_pairs(b, sa, sb, k, warmup, ser, why, sizeof(why))) {
		pc_bench_row_finish(b, row, PC_BENCH_SKIPPED, why);
		return -1;
	}
	series_to_row(row, sa, sb, ser->n, ser);
	return 0;
}

int pc_bench_bracket(struct pc_bench *b, json_t *row, struct pc_bench_side *bare,
		     struct pc_bench_side *traced, struct pc_bench_series *ser)
{
	char why[512];

	if (run_bracket(b, bare, traced, ser, why, sizeof(why))) {
		pc_bench_row_finish(b, row, PC_BENCH_SKIPPED, why);
		return -1;
	}
	series_to_row(row, bare, traced, ser->n + 1, ser);
	return 0;
}

void pc_bench_row_instructions(const struct pc_bench *b, json_t *row,
			       const struct pc_bench_series *s)
{
	double r[PC_BENCH_MAX_REPEAT];
	struct pc_bench_stats st;

	for (int i = 0; i < s->n; i++) {
		if (s->ia[i] <= 0 || s->ib[i] <= 0) {
			json_object_set_new(
				row, "instructions",
				json_string(b->instr_why[0] ? b->instr_why : "not counted"));
			return;
		}
		r[i] = (double)s->ia[i] / (double)s->ib[i];
	}
	pc_bench_stats(r, s->n, &st);
	json_object_set_new(row, "instructions",
			    json_pack("{s:s, s:f, s:f, s:f}", "ratio_of", "instructions A / B",
				      "median", st.median, "min", st.min, "max", st.max));
}
