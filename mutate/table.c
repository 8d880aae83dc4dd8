// SPDX-License-Identifier: GPL-2.0
/*
 * The self-test's table (judge.h): text for people, JSON for scripts,
 * through report/'s writers so a failed write is an error.
 */
#include <errno.h>
#include <string.h>
#include "clean.h"
#include "json_out.h"
#include "out.h"
#include "judge.h"

struct table {
	const char *arch;
	const struct pc_mutate_control *c;
	const struct pc_mutate_row *rows;
	int n;
};

static void names_text(struct pc_out *o, const char (*names)[48], int n)
{
	for (int i = 0; i < n; i++)
		pc_outf(o, "%s%s", i ? " " : "", names[i]);
}

static void row_text(struct pc_out *o, const struct pc_mutate_row *r)
{
	pc_outf(o, "%-32s %-6s  %-12s ", r->m.name, r->caught ? "caught" : "missed",
		r->decision[0] ? r->decision : "-");
	names_text(o, r->m.expect, r->m.n_expect);
	pc_outf(o, "\n    bug: %s\n", r->m.bug);
	if (pc_mutant_is_real(&r->m))
		pc_outf(o, "    reintroduces: %s, fixed in %s\n", r->m.reintroduces, r->m.fixed_in);
	for (int f = 0; f < r->run.n_failed; f++)
		pc_outf(o, "    failed: %s [%s]: %s\n", r->run.failed[f].check,
			r->run.failed[f].tier, r->run.failed[f].evidence);
	if (r->gate_evidence[0])
		pc_outf(o, "    gate: %s\n", r->gate_evidence);
	if (r->run.note[0])
		pc_outf(o, "    note: %s\n", r->run.note);
	pc_outf(o, "    %s: %s\n", r->caught ? "caught by" : "missed", r->reason);
}

static void write_text(struct pc_out *o, const void *what)
{
	const struct table *t = what;
	int caught = 0;

	pc_outf(o, "control (%s%s%s): %s: %s\n\n", t->arch, t->c->run.release[0] ? ", " : "",
		t->c->run.release, t->c->clean ? "clean" : "NOT CLEAN", t->c->reason);
	if (t->n)
		pc_outf(o, "%-32s %-6s  %-12s %s\n", "MUTANT", "RESULT", "GATE", "EXPECTED");
	for (int i = 0; i < t->n; i++) {
		row_text(o, &t->rows[i]);
		caught += t->rows[i].caught;
	}
	pc_outf(o, "%s%d mutants: %d caught, %d missed; control %s; self-test %s\n",
		t->n ? "\n" : "", t->n, caught, t->n - caught, t->c->clean ? "clean" : "not clean",
		pc_mutate_exit_code(t->c, t->rows, t->n) == PC_MUTATE_OK ? "OK" : "NOT OK");
}

static json_t *jtext(const char *s)
{
	return pc_jstr(s, strlen(s), PC_CLEAN_LINE);
}

static json_t *names_json(struct pc_jb *b, const char (*names)[48], int n)
{
	json_t *a = json_array();

	for (int i = 0; i < n; i++)
		pc_jpush(b, a, jtext(names[i]));
	return a;
}

static json_t *run_json(struct pc_jb *b, const struct pc_mutate_run *run)
{
	json_t *o = json_object(), *failed = json_array();

	pc_jset(b, o, "report", json_boolean(run->have_report));
	pc_jset(b, o, "why", run->have_report ? json_null() : jtext(run->why));
	pc_jset(b, o, "note", run->note[0] ? jtext(run->note) : json_null());
	pc_jset(b, o, "kernel_release", jtext(run->release));
	pc_jset(b, o, "runs", json_integer(run->n_reports));
	pc_jset(b, o, "passed", json_integer(run->pass));
	pc_jset(b, o, "failed", json_integer(run->fail));
	pc_jset(b, o, "skipped", json_integer(run->skip));
	for (int f = 0; f < run->n_failed; f++) {
		json_t *fo = json_object();

		pc_jset(b, fo, "check", jtext(run->failed[f].check));
		pc_jset(b, fo, "tier", jtext(run->failed[f].tier));
		pc_jset(b, fo, "evidence", jtext(run->failed[f].evidence));
		pc_jpush(b, failed, fo);
	}
	pc_jset(b, o, "failures", failed);
	return o;
}

static json_t *row_json(struct pc_jb *b, const struct pc_mutate_row *r)
{
	json_t *o = json_object(), *gate = json_object();

	pc_jset(b, o, "mutant", jtext(r->m.name));
	pc_jset(b, o, "bug", jtext(r->m.bug));
	pc_jset(b, o, "class", jtext(r->m.bug_class));
	pc_jset(b, o, "breaks", names_json(b, r->m.breaks, r->m.n_breaks));
	pc_jset(b, o, "expect", names_json(b, r->m.expect, r->m.n_expect));
	pc_jset(b, o, "arch", jtext(r->m.arch));
	pc_jset(b, o, "reintroduces", jtext(r->m.reintroduces));
	pc_jset(b, o, "fixed_in", pc_mutant_is_real(&r->m) ? jtext(r->m.fixed_in) : json_null());
	pc_jset(b, o, "source", jtext(r->m.source));
	pc_jset(b, o, "trigger", jtext(r->m.trigger));
	pc_jset(b, o, "run", run_json(b, &r->run));
	pc_jset(b, gate, "decision", r->decision[0] ? jtext(r->decision) : json_null());
	pc_jset(b, gate, "failed_rules", names_json(b, r->rules, r->n_rules));
	pc_jset(b, gate, "evidence", r->gate_evidence[0] ? jtext(r->gate_evidence) : json_null());
	pc_jset(b, o, "gate", gate);
	pc_jset(b, o, "result", json_string(r->caught ? "caught" : "missed"));
	pc_jset(b, o, "reason", jtext(r->reason));
	return o;
}

static void write_json(struct pc_out *o, const void *what)
{
	const struct table *t = what;
	struct pc_jb b = {0};
	json_t *root = json_object(), *control = json_object(), *rows = json_array();
	int caught = 0;

	pc_jset(&b, root, "schema", json_string("ptecheck-mutate"));
	pc_jset(&b, root, "schema_version", json_integer(1));
	pc_jset(&b, root, "arch", jtext(t->arch));
	pc_jset(&b, control, "clean", json_boolean(t->c->clean));
	pc_jset(&b, control, "reason", jtext(t->c->reason));
	pc_jset(&b, control, "run", run_json(&b, &t->c->run));
	pc_jset(&b, root, "control", control);
	for (int i = 0; i < t->n; i++) {
		pc_jpush(&b, rows, row_json(&b, &t->rows[i]));
		caught += t->rows[i].caught;
	}
	pc_jset(&b, root, "mutants", rows);
	pc_jset(&b, root, "caught", json_integer(caught));
	pc_jset(&b, root, "missed", json_integer(t->n - caught));
	pc_jset(&b, root, "exit_code", json_integer(pc_mutate_exit_code(t->c, t->rows, t->n)));
	pc_out_json(o, &b, root);
}

int pc_mutate_write(FILE *f, enum pc_mutate_format fmt, const char *arch,
		    const struct pc_mutate_control *c, const struct pc_mutate_row *rows, int n)
{
	static pc_writer_fn *const writers[] = {
		[PC_MUTATE_TEXT] = write_text, [PC_MUTATE_JSON] = write_json};
	const struct table t = {arch, c, rows, n};
	int ret = pc_out_write(f, writers, PC_NAMES_N(writers), fmt, &t);

	return ret ? ret : pc_mutate_exit_code(c, rows, n);
}
