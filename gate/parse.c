// SPDX-License-Identifier: GPL-2.0
/*
 * ptecheck gate: loading a report of `ptecheck run`.  Everything in it is
 * checked against docs/report-schema.json (types, ranges, bucket bounds,
 * the summary against the results), array sizes are capped, and any doubt
 * is bad input rather than a guess.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include "cli.h"
#include "gate_input.h"
#include "json_out.h"

/* Optional kernel-log lines: an array of strings, joined with '\n' and
   cut at the field's size (free text). */
static int get_lines(struct pc_field_ctx *c, json_t *e, struct pc_evidence *ev)
{
	json_t *lines = json_object_get(e, "lines"), *v;
	size_t i, used = 0;

	ev->lines[0] = 0;
	if (!lines)
		return 0;
	if (!json_is_array(lines)) {
		FERR(c, "lines", "expected an array, got %s", pc_json_type(lines));
		return -1;
	}
	json_array_foreach(lines, i, v)
	{
		if (!json_is_string(v)) {
			FERR(c, "lines", "item %zu: expected a string, got %s", i, pc_json_type(v));
			return -1;
		}
		if (used + 2 >= sizeof(ev->lines))
			continue;
		if (used)
			ev->lines[used++] = '\n';
		pc_u8copy(ev->lines + used, sizeof(ev->lines) - used, json_string_value(v),
			  strnlen(json_string_value(v), json_string_length(v)));
		used += strlen(ev->lines + used);
	}
	return 0;
}

/* One frame of kernel_stack: addr, and sym where kallsyms named it. */
static int get_frame(struct pc_field_ctx *c, json_t *f, size_t i, struct pc_frame *fr)
{
	size_t wl = strlen(c->where);
	int rc;

	if (!json_is_object(f)) {
		FERR(c, "kernel_stack", "item %zu: expected an object, got %s", i, pc_json_type(f));
		return -1;
	}
	snprintf(c->where + wl, sizeof(c->where) - wl, ".kernel_stack[%zu]", i);
	rc = pc_field_hex(c, f, "addr", &fr->addr);
	fr->sym[0] = 0;
	if (!rc && json_object_get(f, "sym"))
		rc = pc_field_str(c, f, "sym", fr->sym, sizeof(fr->sym), false);
	c->where[wl] = '\0';
	return rc;
}

/* Optional kernel stack of in-kernel evidence: its frames (and why they
   have no names), or the errno that kept it from being taken. */
static int get_stack(struct pc_field_ctx *c, json_t *e, struct pc_evidence *ev)
{
	json_t *frames = json_object_get(e, "kernel_stack"), *err, *f;
	size_t i;

	err = json_object_get(e, "kernel_stack_errno");
	if (err && (!json_is_integer(err) || json_integer_value(err) < 1 ||
		    json_integer_value(err) > INT_MAX || frames)) {
		FERR(c, "kernel_stack_errno", "expected an errno (an integer >= 1) and no frames");
		return -1;
	}
	ev->stack_err = err ? (int)json_integer_value(err) : 0;
	if (!frames)
		return 0;
	if (!json_is_array(frames) || json_array_size(frames) > PC_EVIDENCE_FRAMES) {
		FERR(c, "kernel_stack", "expected an array of at most %d frames",
		     PC_EVIDENCE_FRAMES);
		return -1;
	}
	json_array_foreach(frames, i, f)
	{
		if (get_frame(c, f, i, &ev->frames[ev->n_frames]))
			return -1;
		ev->n_frames++;
	}
	if (!json_object_get(e, "kernel_stack_note"))
		return 0;
	return pc_field_str(c, e, "kernel_stack_note", ev->stack_note, sizeof(ev->stack_note),
			    false);
}

static int parse_evidence(struct pc_field_ctx *c, json_t *e, struct pc_evidence *ev)
{
	json_t *pid;

	if (pc_field_not_object(c, e))
		return -1;
	pid = pc_field_need(c, e, "pid");
	if (!pid)
		return -1;
	if (!json_is_integer(pid)) {
		FERR(c, "pid", "expected an integer, got %s", pc_json_type(pid));
		return -1;
	}
	/* A pid outside int is printed clamped; it is evidence, not a key. */
	if (json_integer_value(pid) > INT_MAX || json_integer_value(pid) < INT_MIN)
		ev->pid = json_integer_value(pid) < 0 ? INT_MIN : INT_MAX;
	else
		ev->pid = (int)json_integer_value(pid);
	if (pc_field_hex(c, e, "addr", &ev->addr) ||
	    pc_field_hex(c, e, "new_addr", &ev->new_addr) ||
	    pc_field_hex(c, e, "expected", &ev->expected) || pc_field_hex(c, e, "seen", &ev->seen))
		return -1;
	if (pc_field_str(c, e, "what", ev->what, sizeof(ev->what), false))
		return -1;
	if (get_lines(c, e, ev))
		return -1;
	return get_stack(c, e, ev);
}

static int parse_status(struct pc_field_ctx *c, json_t *o, enum pc_status *st)
{
	char s[8];

	if (pc_field_str(c, o, "status", s, sizeof(s), false))
		return -1;
	if (!strcmp(s, "pass"))
		*st = PC_STATUS_PASS;
	else if (!strcmp(s, "fail"))
		*st = PC_STATUS_FAIL;
	else if (!strcmp(s, "skip"))
		*st = PC_STATUS_SKIP;
	else {
		FERR(c, "status", "expected \"pass\", \"fail\" or \"skip\"");
		return -1;
	}
	return 0;
}

/* Schema 2's scenario variants of a result (schema 1 has none). */
static int parse_variants(struct pc_field_ctx *c, json_t *o, struct pc_result *res)
{
	json_t *vs = json_object_get(o, "variants"), *v;
	size_t i, wl = strlen(c->where);

	if (!vs)
		return 0;
	vs = pc_field_typed(c, o, "variants", JSON_ARRAY);
	if (!vs)
		return -1;
	if (json_array_size(vs) > PC_MAX_VARIANTS) {
		FERR(c, "variants", "%zu items, at most %d", json_array_size(vs), PC_MAX_VARIANTS);
		return -1;
	}
	json_array_foreach(vs, i, v)
	{
		struct pc_variant *pv = &res->variants[res->n_variants];

		snprintf(c->where + wl, sizeof(c->where) - wl, ".variants[%zu]", i);
		if (pc_field_not_object(c, v) ||
		    pc_field_str(c, v, "scenario", pv->scenario, sizeof(pv->scenario), true) ||
		    parse_status(c, v, &pv->status))
			return -1;
		if (pv->status == PC_STATUS_SKIP &&
		    pc_field_str(c, v, "reason", pv->why, sizeof(pv->why), false))
			return -1;
		/* Two of one name would count one scenario twice. */
		if (pc_result_find_variant(res, pv->scenario)) {
			FERR(c, "scenario", "\"%s\" twice", pv->scenario);
			return -1;
		}
		c->where[wl] = '\0';
		res->n_variants++;
	}
	return 0;
}

/* Schema 3's "scenarios": each variant in full (its rounds, counts and
   own words), kept so that a report read can be written again whole
   (ptecheck merge).  Without it, a variant judged once. */
static int parse_scenarios(struct pc_field_ctx *c, json_t *o, struct pc_result *res)
{
	json_t *ss = json_object_get(o, "scenarios"), *v;
	size_t i, wl = strlen(c->where);
	char name[sizeof(res->variants[0].scenario)];
	__u64 rounds, judged;

	for (int k = 0; k < res->n_variants; k++) {
		res->variants[k].rounds = 1;
		res->variants[k].judged = res->variants[k].status != PC_STATUS_SKIP;
	}
	if (!ss)
		return 0;
	ss = pc_field_typed(c, o, "scenarios", JSON_ARRAY);
	if (!ss)
		return -1;
	json_array_foreach(ss, i, v)
	{
		struct pc_variant *pv;

		snprintf(c->where + wl, sizeof(c->where) - wl, ".scenarios[%zu]", i);
		if (pc_field_not_object(c, v) ||
		    pc_field_str(c, v, "name", name, sizeof(name), true))
			return -1;
		pv = (struct pc_variant *)pc_result_find_variant(res, name);
		if (!pv) {
			FERR(c, "name", "\"%s\" is not among the variants", name);
			return -1;
		}
		if (pc_field_count(c, v, "rounds", &rounds) ||
		    pc_field_count(c, v, "rounds_judged", &judged) ||
		    pc_field_count(c, v, "checked", &pv->checked) ||
		    pc_field_count(c, v, "violations", &pv->violations) ||
		    (json_object_get(v, "summary") &&
		     pc_field_str(c, v, "summary", pv->summary, sizeof(pv->summary), false)))
			return -1;
		pv->rounds = rounds > UINT_MAX ? UINT_MAX : (unsigned int)rounds;
		pv->judged = judged > UINT_MAX ? UINT_MAX : (unsigned int)judged;
		c->where[wl] = '\0';
	}
	return 0;
}

static int parse_result(struct pc_field_ctx *c, json_t *o, struct pc_report *r)
{
	char name[48], tier[48];
	struct pc_result *res;
	enum pc_status st;
	json_t *evs, *e;
	bool in_kernel;
	size_t i;

	if (pc_field_not_object(c, o))
		return -1;
	if (pc_field_str(c, o, "check", name, sizeof(name), true) ||
	    pc_field_str(c, o, "tier", tier, sizeof(tier), true) ||
	    pc_field_bool(c, o, "in_kernel", &in_kernel) || parse_status(c, o, &st))
		return -1;
	if (!name[0]) {
		FERR(c, "check", "empty check name");
		return -1;
	}
	res = pc_report_add_result(r, name, tier, in_kernel);
	if (!res) {
		pc_set_err(c->err, c->errlen, "out of memory");
		return -1;
	}
	res->status = st;
	if (pc_field_str(c, o, "summary", res->summary, sizeof(res->summary), false) ||
	    pc_field_count(c, o, "checked", &res->checked) ||
	    pc_field_count(c, o, "violations", &res->violations) ||
	    pc_field_count(c, o, "inconclusive", &res->inconclusive))
		return -1;
	evs = pc_field_typed(c, o, "evidence", JSON_ARRAY);
	if (!evs)
		return -1;
	if (json_array_size(evs) > PC_MAX_EVIDENCE) {
		FERR(c, "evidence", "%zu items, at most %d", json_array_size(evs), PC_MAX_EVIDENCE);
		return -1;
	}
	json_array_foreach(evs, i, e)
	{
		size_t wl = strlen(c->where);

		snprintf(c->where + wl, sizeof(c->where) - wl, ".evidence[%zu]", i);
		if (parse_evidence(c, e, &res->evidence[res->n_evidence]))
			return -1;
		c->where[wl] = '\0';
		res->n_evidence++;
	}
	return parse_variants(c, o, res) || parse_scenarios(c, o, res) ? -1 : 0;
}

static int check_summary(struct pc_field_ctx *c, json_t *root, const struct pc_report *r)
{
	__u64 passed, failed, skipped, exit_code;
	int np, nf, ns;
	json_t *s;

	s = pc_field_typed(c, root, "summary", JSON_OBJECT);
	if (!s)
		return -1;
	snprintf(c->where, sizeof(c->where), "summary");
	if (pc_field_count(c, s, "passed", &passed) || pc_field_count(c, s, "failed", &failed) ||
	    pc_field_count(c, s, "skipped", &skipped) ||
	    pc_field_count(c, s, "exit_code", &exit_code))
		return -1;
	c->where[0] = '\0';
	pc_report_count(r, &np, &nf, &ns);
	/* A summary that disagrees with the results is an edited report. */
	if (passed != (__u64)np || failed != (__u64)nf || skipped != (__u64)ns) {
		pc_set_err(c->err, c->errlen,
			   "summary says %llu passed, %llu failed, %llu skipped, but the results "
			   "have %d, %d, %d",
			   (unsigned long long)passed, (unsigned long long)failed,
			   (unsigned long long)skipped, np, nf, ns);
		return -1;
	}
	/* 3 (schema 6): the kernel refused a program of ptecheck's own. */
	if (exit_code != 0 && exit_code != 1 && exit_code != 3 && exit_code != 4) {
		pc_set_err(c->err, c->errlen, "summary.exit_code: expected 0, 1, 3 or 4");
		return -1;
	}
	return 0;
}

/* The tracing object's programs (schema 6): each one's verified
   instructions, for the mutation judge's budget. */
static int parse_bpf_programs(struct pc_field_ctx *c, json_t *b, struct pc_report *r)
{
	json_t *a = json_object_get(b, "programs"), *p;
	size_t i;

	if (!a)
		return 0;
	if (!json_is_array(a)) {
		pc_set_err(c->err, c->errlen, "bpf.programs: expected an array");
		return -1;
	}
	json_array_foreach(a, i, p)
	{
		__u64 insns;

		snprintf(c->where, sizeof(c->where), "bpf.programs[%zu]", i);
		if (!json_is_object(p) || pc_field_count(c, p, "verified_insns", &insns)) {
			if (!json_is_object(p))
				pc_set_err(c->err, c->errlen,
					   "bpf.programs[%zu]: expected an object", i);
			return -1;
		}
		if (r->bpf.n_progs >= PC_REPORT_PROGS)
			continue;
		if (pc_field_str(c, p, "name", r->bpf.progs[r->bpf.n_progs].name,
				 sizeof(r->bpf.progs[0].name), false))
			return -1;
		r->bpf.progs[r->bpf.n_progs++].verified_insns =
			insns > UINT32_MAX ? UINT32_MAX : (__u32)insns;
	}
	return 0;
}

/* The tracing object (schema 6, optional): its refusals, each line kept,
   and its programs' instructions; its times are not the gate's. */
/* A time in ms: a finite number >= 0, else 0 (read, not judged). */
static double ms_field(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	double ms = json_is_number(v) ? json_number_value(v) : 0;

	return isfinite(ms) && ms >= 0 ? ms : 0;
}

static int parse_bpf(struct pc_field_ctx *c, json_t *root, struct pc_report *r)
{
	json_t *b = json_object_get(root, "bpf"), *a, *v;
	size_t i;

	if (!b)
		return 0;
	snprintf(c->where, sizeof(c->where), "bpf");
	if (!json_is_object(b) || !(a = pc_field_typed(c, b, "refused", JSON_ARRAY))) {
		if (!json_is_object(b))
			pc_set_err(c->err, c->errlen, "bpf: expected an object, got %s",
				   pc_json_type(b));
		return -1;
	}
	json_array_foreach(a, i, v)
	{
		if (!json_is_string(v)) {
			pc_set_err(c->err, c->errlen, "bpf.refused[%zu]: expected a string", i);
			return -1;
		}
		if (r->bpf.n_refused < PC_REPORT_REFUSED)
			pc_u8copy(r->bpf.refused[r->bpf.n_refused++], sizeof(r->bpf.refused[0]),
				  json_string_value(v), json_string_length(v));
	}
	if (parse_bpf_programs(c, b, r))
		return -1;
	r->bpf.loaded = r->bpf.n_progs > 0;
	/* The load and attach times, kept (ptecheck merge writes them). */
	r->bpf.load_ms = ms_field(b, "load_ms");
	r->bpf.attach_ms = ms_field(b, "attach_ms");
	c->where[0] = '\0';
	return 0;
}

/* The notes, kept (ptecheck merge writes them again). */
static int parse_notes(struct pc_field_ctx *c, json_t *root, struct pc_report *r)
{
	json_t *a = pc_field_typed(c, root, "notes", JSON_ARRAY), *v;
	size_t i;

	if (!a)
		return -1;
	json_array_foreach(a, i, v)
	{
		if (!json_is_string(v)) {
			pc_set_err(c->err, c->errlen, "notes[%zu]: expected a string, got %s", i,
				   pc_json_type(v));
			return -1;
		}
		pc_report_note(r, "%s", json_string_value(v));
	}
	return 0;
}

/* The stats, kept by name; one this ptecheck does not name is checked and
   left out. */
static int parse_stats(struct pc_field_ctx *c, json_t *root, struct pc_report *r)
{
	json_t *s = json_object_get(root, "stats"), *v;
	const char *key;
	char buf[32];

	if (!s)
		return 0;
	if (!json_is_object(s)) {
		pc_set_err(c->err, c->errlen, "stats: expected an object, got %s", pc_json_type(s));
		return -1;
	}
	json_object_foreach(s, key, v)
	{
		if (!json_is_integer(v) || json_integer_value(v) < 0) {
			pc_set_err(c->err, c->errlen, "stats.%.63s: expected a count", key);
			return -1;
		}
		for (int i = 0; i < PC_STAT__COUNT; i++) {
			if (strcmp(pc_report_stat_name(i, buf, sizeof(buf)), key))
				continue;
			r->stats[i] = (__u64)json_integer_value(v);
			r->n_stats = r->n_stats > i ? r->n_stats : i + 1;
		}
	}
	return 0;
}

/* A report of this schema and version, or a message saying what it is. */
static int check_schema(struct pc_field_ctx *c, json_t *root)
{
	char schema[32];
	json_t *v;

	if (!json_is_object(root)) {
		pc_set_err(c->err, c->errlen,
			   "not a ptecheck report: the JSON is %s, not an object",
			   pc_json_type(root));
		return -1;
	}
	v = json_object_get(root, "schema");
	if (!v || !json_is_string(v)) {
		pc_set_err(c->err, c->errlen,
			   "not a ptecheck report: no \"schema\": \"ptecheck-report\"");
		return -1;
	}
	pc_u8copy(schema, sizeof(schema), json_string_value(v),
		  strnlen(json_string_value(v), json_string_length(v)));
	if (strcmp(schema, "ptecheck-report") != 0 ||
	    json_string_length(v) != strlen("ptecheck-report")) {
		pc_set_err(c->err, c->errlen,
			   "not a ptecheck report: schema \"%s\", expected \"ptecheck-report\"",
			   schema);
		return -1;
	}
	v = pc_field_need(c, root, "schema_version");
	if (!v)
		return -1;
	if (!json_is_integer(v)) {
		pc_set_err(c->err, c->errlen, "schema_version: expected an integer, got %s",
			   pc_json_type(v));
		return -1;
	}
	/* 1 lacks only the results' variants. */
	if (json_integer_value(v) < 1 || json_integer_value(v) > PC_REPORT_SCHEMA_VERSION) {
		pc_set_err(
			c->err, c->errlen,
			"schema_version %lld is not supported (this ptecheck reads schema_version "
			"1 to %d)",
			(long long)json_integer_value(v), PC_REPORT_SCHEMA_VERSION);
		return -1;
	}
	c->schema = (int)json_integer_value(v);
	return 0;
}

/* What ran where: command, suite, kernel; the gate keys groups by them. */
static int parse_identity(struct pc_field_ctx *c, json_t *root, struct pc_report *r)
{
	char command[16], tool[32];
	json_t *k;

	if (pc_field_str(c, root, "command", command, sizeof(command), false))
		return -1;
	if (strcmp(command, "run") != 0) {
		pc_set_err(c->err, c->errlen,
			   "a report of `ptecheck %s`, the gate compares reports of `ptecheck run`",
			   command);
		return -1;
	}
	snprintf(r->command, sizeof(r->command), "run");
	if (pc_field_str(c, root, "tool_version", tool, sizeof(tool), false) ||
	    pc_field_str(c, root, "suite", r->suite, sizeof(r->suite), true) ||
	    pc_field_str(c, root, "started", r->started, sizeof(r->started), false))
		return -1;
	k = pc_field_typed(c, root, "kernel", JSON_OBJECT);
	if (!k)
		return -1;
	snprintf(c->where, sizeof(c->where), "kernel");
	if (pc_field_str(c, k, "release", r->kernel_release, sizeof(r->kernel_release), true) ||
	    pc_field_str(c, k, "machine", r->machine, sizeof(r->machine), true))
		return -1;
	c->where[0] = '\0';
	if (!r->machine[0] || !r->suite[0]) {
		pc_set_err(c->err, c->errlen, "empty %s",
			   r->machine[0] ? "suite" : "kernel.machine");
		return -1;
	}
	return 0;
}

/* How the run went: duration, scale (optional), partial. */
static int parse_run(struct pc_field_ctx *c, json_t *root, struct pc_report *r)
{
	json_t *v = pc_field_need(c, root, "duration_s");

	if (!v)
		return -1;
	if (!json_is_number(v) || !isfinite(json_number_value(v)) || json_number_value(v) < 0) {
		pc_set_err(c->err, c->errlen, "duration_s: expected a number >= 0");
		return -1;
	}
	r->duration_s = json_number_value(v);
	/* Optional in the schema (not a run); a run always writes it. */
	v = json_object_get(root, "scale");
	if (!v) {
		r->scale = 1;
	} else if (!json_is_integer(v) || json_integer_value(v) < 1 ||
		   json_integer_value(v) > UINT_MAX) {
		pc_set_err(c->err, c->errlen, "scale: expected an integer >= 1");
		return -1;
	} else {
		r->scale = (unsigned int)json_integer_value(v);
	}
	return pc_field_bool(c, root, "partial", &r->partial);
}

typedef int parse_item_fn(struct pc_field_ctx *c, json_t *o, struct pc_report *r);

/* The array root.key ("results", "histograms": the word for its items too) of
   at most max items, at least one if need_one, each read by fn. */
static int parse_items(struct pc_field_ctx *c, json_t *root, const char *key, size_t max,
		       bool need_one, parse_item_fn *fn, struct pc_report *r)
{
	json_t *a = pc_field_typed(c, root, key, JSON_ARRAY), *o;
	size_t i;

	if (!a)
		return -1;
	if (need_one && json_array_size(a) == 0) {
		pc_set_err(c->err, c->errlen, "empty report: no %s", key);
		return -1;
	}
	if (json_array_size(a) > max) {
		pc_set_err(c->err, c->errlen, "%s: %zu %s, at most %zu", key, json_array_size(a),
			   key, max);
		return -1;
	}
	json_array_foreach(a, i, o)
	{
		snprintf(c->where, sizeof(c->where), "%s[%zu]", key, i);
		if (fn(c, o, r))
			return -1;
	}
	c->where[0] = '\0';
	return 0;
}

static int parse_report(json_t *root, bool allow_partial, struct pc_report *r,
			struct pc_field_ctx *c)
{
	if (check_schema(c, root) || parse_identity(c, root, r) || parse_run(c, root, r) ||
	    parse_items(c, root, "results", PC_GATE_MAX_RESULTS, true, parse_result, r) ||
	    parse_items(c, root, "histograms", PC_GATE_MAX_HISTS, false, pc_gate_parse_hist, r) ||
	    pc_gate_parse_scenario_hists(c, root, r) || parse_bpf(c, root, r) ||
	    check_summary(c, root, r) || parse_notes(c, root, r) || parse_stats(c, root, r))
		return -1;
	/* Last: a partial report is otherwise valid, say only that. */
	if (r->partial && !allow_partial) {
		pc_set_err(
			c->err, c->errlen,
			"partial report (the run was interrupted); set \"allow_partial\": true in "
			"the policy to gate on it anyway");
		return -1;
	}
	return 0;
}

int pc_gate_report_parse(const char *buf, size_t len, bool allow_partial, struct pc_report **out,
			 char *err, size_t errlen)
{
	struct pc_field_ctx c = {.err = err, .errlen = errlen};
	struct pc_report *r;
	json_t *root;

	*out = NULL;
	root = pc_gate_json_load(buf, len, err, errlen);
	if (!root)
		return -1;
	r = pc_report_new("run", "");
	if (!r) {
		json_decref(root);
		pc_set_err(err, errlen, "out of memory");
		return -1;
	}
	if (parse_report(root, allow_partial, r, &c)) {
		json_decref(root);
		pc_report_free(r);
		return -1;
	}
	json_decref(root);
	*out = r;
	return 0;
}

int pc_gate_report_load(const char *path, bool allow_partial, struct pc_report **out, char *err,
			size_t errlen)
{
	size_t len;
	char *buf;
	int ret;

	*out = NULL;
	buf = pc_gate_read_file(path, PC_GATE_REPORT_MAX_BYTES, &len, err, errlen);
	if (!buf)
		return -1;
	ret = pc_gate_report_parse(buf, len, allow_partial, out, err, errlen);
	free(buf);
	return ret;
}
