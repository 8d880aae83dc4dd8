// SPDX-License-Identifier: GPL-2.0
/*
 * The JSON writer, for tools: docs/report-schema.json (schema_version
 * PC_REPORT_SCHEMA_VERSION).  Counts saturate at 2^63-1; addresses and raw
 * values, which use all 64 bits, are hex strings.
 */
#include "clean.h"
#include "json_out.h"
#include "report_writers.h"

#ifndef PTECHECK_VERSION
#define PTECHECK_VERSION "0.0.0"
#endif

#define JSTR(field) pc_jstr((field), sizeof(field), PC_CLEAN_UTF8)

static json_t *jhex(__u64 v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)v);
	return json_string(buf);
}

/* Kernel-log evidence: one string per line. */
static json_t *json_lines(struct pc_jb *b, const struct pc_evidence *ev)
{
	json_t *lines = json_array();
	const char *p = ev->lines;
	const char *end = p + strnlen(p, sizeof(ev->lines));

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		pc_jpush(b, lines, pc_jstr(p, n, PC_CLEAN_UTF8));
		p += n + 1;
	}
	return lines;
}

/* An in-kernel violation's stack: frames innermost first, "sym" where
   kallsyms named the frame; or the errno that kept it from being taken. */
static void json_stack(struct pc_jb *b, json_t *e, const struct pc_evidence *ev)
{
	int n = ev->n_frames < PC_EVIDENCE_FRAMES ? ev->n_frames : PC_EVIDENCE_FRAMES;
	json_t *frames;

	if (ev->stack_err) {
		pc_jset(b, e, "kernel_stack_errno", json_integer(ev->stack_err));
		return;
	}
	if (n <= 0)
		return;
	frames = json_array();
	for (int i = 0; i < n; i++) {
		json_t *f = json_object();

		pc_jset(b, f, "addr", jhex(ev->frames[i].addr));
		if (ev->frames[i].sym[0])
			pc_jset(b, f, "sym", JSTR(ev->frames[i].sym));
		pc_jpush(b, frames, f);
	}
	pc_jset(b, e, "kernel_stack", frames);
	if (ev->stack_note[0])
		pc_jset(b, e, "kernel_stack_note", JSTR(ev->stack_note));
}

static json_t *json_evidence(struct pc_jb *b, const struct pc_evidence *ev)
{
	json_t *e = json_object();

	pc_jset(b, e, "pid", json_integer(ev->pid));
	pc_jset(b, e, "addr", jhex(ev->addr));
	pc_jset(b, e, "new_addr", jhex(ev->new_addr));
	pc_jset(b, e, "expected", jhex(ev->expected));
	pc_jset(b, e, "seen", jhex(ev->seen));
	pc_jset(b, e, "what", JSTR(ev->what));
	if (ev->lines[0])
		pc_jset(b, e, "lines", json_lines(b, ev));
	json_stack(b, e, ev);
	return e;
}

/*
 * Every scenario variant: as "variants" lists them (scenario, status, a
 * skip's reason), or in full as "scenarios" does (its rounds, counts and
 * own words too).
 */
static json_t *json_variant_list(struct pc_jb *b, const struct pc_result *res, bool full)
{
	json_t *vs = json_array();

	for (int i = 0; i < pc_result_n_variants(res); i++) {
		const struct pc_variant *v = &res->variants[i];
		enum pc_status st = pc_variant_status(v);
		json_t *o = json_object();

		pc_jset(b, o, full ? "name" : "scenario", JSTR(v->scenario));
		pc_jset(b, o, "status", json_string(pc_status_name(st)));
		if (full) {
			pc_jset(b, o, "rounds", json_integer(v->rounds));
			pc_jset(b, o, "rounds_judged", json_integer(v->judged));
			pc_jset(b, o, "checked", pc_juint(v->checked));
			pc_jset(b, o, "violations", pc_juint(v->violations));
		}
		if (st == PC_STATUS_SKIP)
			pc_jset(b, o, "reason", JSTR(v->why));
		else if (full)
			pc_jset(b, o, "summary", JSTR(v->summary));
		pc_jpush(b, vs, o);
	}
	return vs;
}

static json_t *json_result(struct pc_jb *b, const struct pc_result *res)
{
	json_t *o = json_object(), *evs = json_array();
	int i, ne = pc_result_n_evidence(res);

	pc_jset(b, o, "check", JSTR(res->name));
	pc_jset(b, o, "tier", JSTR(res->tier));
	pc_jset(b, o, "in_kernel", json_boolean(res->in_kernel));
	pc_jset(b, o, "status", json_string(pc_status_name(pc_result_status(res))));
	pc_jset(b, o, "summary", JSTR(res->summary));
	pc_jset(b, o, "checked", pc_juint(res->checked));
	pc_jset(b, o, "violations", pc_juint(res->violations));
	pc_jset(b, o, "inconclusive", pc_juint(res->inconclusive));
	for (i = 0; i < ne; i++)
		pc_jpush(b, evs, json_evidence(b, &res->evidence[i]));
	pc_jset(b, o, "evidence", evs);
	pc_jset(b, o, "variants", json_variant_list(b, res, false));
	pc_jset(b, o, "scenarios", json_variant_list(b, res, true));
	return o;
}

/* --by: whose events a histogram holds (docs/report-schema.json). */
static json_t *json_hist_key(struct pc_jb *b, const struct pc_hist_report *h)
{
	json_t *o = json_object();

	pc_jset(b, o, "by", json_string(pc_hist_by_name(h->by)));
	if (h->unattributed) {
		pc_jset(b, o, "unattributed", json_true());
		return o;
	}
	if (h->by == PC_BY_PID)
		pc_jset(b, o, "pid", json_integer(h->pid));
	pc_jset(b, o, "comm", JSTR(h->comm));
	return o;
}

static json_t *json_hist(struct pc_jb *b, const struct pc_hist_report *h)
{
	json_t *o = json_object(), *buckets = json_array();
	int first, last, i;
	__u64 lo, hi;

	pc_jset(b, o, "id", JSTR(h->id));
	pc_jset(b, o, "name", JSTR(h->name));
	pc_jset(b, o, "unit", JSTR(h->unit));
	pc_jset(b, o, "source", JSTR(h->source));
	pc_jset(b, o, "in_kernel", json_boolean(h->in_kernel));
	pc_jset(b, o, "kind", json_string(h->kind == PC_HIST_LINLOG ? "linlog" : "log2"));
	if (*h->batch_ctx) {
		json_t *bt = json_object();

		pc_jset(b, bt, "context", JSTR(h->batch_ctx));
		pc_jset(b, bt, "source", JSTR(h->batch_src));
		pc_jset(b, o, "batch", bt);
	}
	if (pc_hist_by_name(h->by))
		pc_jset(b, o, "key", json_hist_key(b, h));
	if (pc_hist_report_range(h, &first, &last)) {
		for (i = first; i <= last; i++) {
			json_t *bk = json_object();

			pc_hist_report_bounds(h, i, &lo, &hi);
			pc_jset(b, bk, "low", pc_juint(lo));
			pc_jset(b, bk, "high", pc_juint(hi));
			pc_jset(b, bk, "count", pc_juint(h->slots[i]));
			pc_jpush(b, buckets, bk);
		}
	}
	pc_jset(b, o, "buckets", buckets);
	pc_jset(b, o, "total", pc_juint(pc_hist_report_total(h)));
	return o;
}

/* One scenario's histograms: id, kind and the non-empty buckets as
   [low, count] (title, unit, source and batch are the run-wide one's). */
static json_t *json_scenario(struct pc_jb *b, const struct pc_scenario_hists *sc)
{
	json_t *o = json_object(), *hs = json_array();

	pc_jset(b, o, "suite", JSTR(sc->suite));
	pc_jset(b, o, "scenario", JSTR(sc->scenario));
	pc_jset(b, o, "judged", json_boolean(sc->judged));
	for (int i = 0; i < sc->n_hists; i++) {
		const struct pc_hist_report *h = &sc->hists[i];
		json_t *ho = json_object(), *bk = json_array();
		__u64 lo, hi;

		pc_jset(b, ho, "id", JSTR(h->id));
		pc_jset(b, ho, "kind", json_string(h->kind == PC_HIST_LINLOG ? "linlog" : "log2"));
		for (int k = 0; k < PC_HIST_SLOTS; k++) {
			json_t *pair;

			if (!h->slots[k])
				continue;
			pc_hist_report_bounds(h, k, &lo, &hi);
			pair = json_array();
			pc_jpush(b, pair, pc_juint(lo));
			pc_jpush(b, pair, pc_juint(h->slots[k]));
			pc_jpush(b, bk, pair);
		}
		pc_jset(b, ho, "buckets", bk);
		pc_jpush(b, hs, ho);
	}
	pc_jset(b, o, "histograms", hs);
	return o;
}

/* Header, kernel and summary: what the run was and how it ended. */
static void json_header(struct pc_jb *b, json_t *root, const struct pc_report *r)
{
	json_t *o = json_object();
	int pass, fail, skip;

	pc_jset(b, root, "schema", json_string("ptecheck-report"));
	pc_jset(b, root, "schema_version", json_integer(PC_REPORT_SCHEMA_VERSION));
	pc_jset(b, root, "tool_version", json_string(PTECHECK_VERSION));
	pc_jset(b, root, "command", JSTR(r->command));
	pc_jset(b, root, "suite", JSTR(r->suite));
	pc_jset(b, o, "release", JSTR(r->kernel_release));
	pc_jset(b, o, "machine", JSTR(r->machine));
	pc_jset(b, root, "kernel", o);
	pc_jset(b, root, "started", JSTR(r->started));
	pc_jset(b, root, "duration_s", json_real(pc_report_duration(r)));
	if (r->scale)
		pc_jset(b, root, "scale", json_integer(r->scale));
	if (r->sample_every > 1)
		pc_jset(b, root, "sample_every", json_integer(r->sample_every));
	pc_jset(b, root, "partial", json_boolean(r->partial));

	pc_report_count(r, &pass, &fail, &skip);
	o = json_object();
	pc_jset(b, o, "passed", json_integer(pass));
	pc_jset(b, o, "failed", json_integer(fail));
	pc_jset(b, o, "skipped", json_integer(skip));
	pc_jset(b, o, "exit_code", json_integer(pc_report_exit_code(r)));
	pc_jset(b, root, "summary", o);
}

/* The tracing object: its load, each program's verified instructions,
   and what the kernel refused. */
static json_t *json_bpf(struct pc_jb *b, const struct pc_report_bpf *bpf)
{
	json_t *o = json_object(), *a = json_array(), *p;

	pc_jset(b, o, "loaded", json_boolean(bpf->loaded));
	pc_jset(b, o, "load_ms", json_real(bpf->load_ms));
	pc_jset(b, o, "attach_ms", json_real(bpf->attach_ms));
	for (int i = 0; i < bpf->n_progs; i++) {
		p = json_object();
		pc_jset(b, p, "name", JSTR(bpf->progs[i].name));
		pc_jset(b, p, "verified_insns", json_integer(bpf->progs[i].verified_insns));
		pc_jpush(b, a, p);
	}
	pc_jset(b, o, "programs", a);
	a = json_array();
	for (int i = 0; i < bpf->n_refused; i++)
		pc_jpush(b, a, pc_jstr(bpf->refused[i], PC_NOTE_MAX, PC_CLEAN_UTF8));
	pc_jset(b, o, "refused", a);
	return o;
}

static json_t *json_report(struct pc_jb *b, const struct pc_report *r)
{
	json_t *root = json_object(), *o, *a;
	int i, n;
	char buf[32];

	json_header(b, root, r);
	a = json_array();
	for (i = 0; i < r->n_results; i++)
		pc_jpush(b, a, json_result(b, &r->results[i]));
	pc_jset(b, root, "results", a);

	a = json_array();
	for (i = 0; i < r->n_hists; i++)
		pc_jpush(b, a, json_hist(b, &r->hists[i]));
	pc_jset(b, root, "histograms", a);

	n = pc_report_n_stats(r);
	if (n) {
		o = json_object();
		for (i = 0; i < n; i++)
			pc_jset(b, o, pc_report_stat_name(i, buf, sizeof(buf)),
				pc_juint(r->stats[i]));
		pc_jset(b, root, "stats", o);
	}

	if (r->n_scens) {
		a = json_array();
		for (i = 0; i < r->n_scens; i++)
			pc_jpush(b, a, json_scenario(b, &r->scens[i]));
		pc_jset(b, root, "scenario_histograms", a);
	}

	if (r->bpf.loaded || r->bpf.n_refused)
		pc_jset(b, root, "bpf", json_bpf(b, &r->bpf));

	a = json_array();
	for (i = 0; i < r->n_notes; i++)
		pc_jpush(b, a, pc_jstr(r->notes[i], PC_NOTE_MAX, PC_CLEAN_UTF8));
	pc_jset(b, root, "notes", a);
	return root;
}

void pc_report_write_json(struct pc_out *o, const void *what)
{
	struct pc_jb b = {.failed = false};

	pc_out_json(o, &b, json_report(&b, what));
}
