/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the unit tests of `ptecheck gate` share (test_gate_rules.c,
 * test_gate_parse.c, test_gate_output.c): reports built with the real
 * model and writer, read back by the gate's loader as `ptecheck gate`
 * would see them, and a gate over them with its rule results.
 */
#ifndef PTECHECK_TEST_GATE_FIXTURE_H
#define PTECHECK_TEST_GATE_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gate.h"
#include "gate_input.h"
#include "render.h"
#include "report.h"
#include "tap.h"

#define BATCH_NAME "mremap PTEs per batch"

/* ---- building reports ------------------------------------------------------ */

static inline struct pc_report *mk(const char *machine, const char *suite, unsigned int scale)
{
	struct pc_report *r = pc_report_new("run", suite);
	struct pc_result *res;

	snprintf(r->machine, sizeof(r->machine), "%s", machine);
	snprintf(r->kernel_release, sizeof(r->kernel_release), "6.1.0-test");
	r->scale = scale;
	r->duration_s = 2.0;
	res = pc_report_add_result(r, "mremap/moved", "oracle:pagemap", false);
	pc_result_set(res, PC_STATUS_PASS, "256 slots moved");
	res->checked = 256;
	res = pc_report_add_result(r, "mremap/batch", "kernel:kprobe", true);
	pc_result_set(res, PC_STATUS_PASS, "716 batch facts judged");
	res->checked = 716;
	res = pc_report_add_result(r, "mremap/perms", "kernel:fexit", true);
	pc_result_set(res, PC_STATUS_SKIP, "no fexit here");
	return r;
}

static inline void set_status(struct pc_report *r, const char *check, const char *tier,
			      enum pc_status st, const char *summary)
{
	struct pc_result *res = pc_report_find_result(r, check, tier);

	if (!res)
		res = pc_report_add_result(r, check, tier, true);
	pc_result_set(res, st, "%s", summary);
}

static inline void remove_result(struct pc_report *r, const char *check, const char *tier)
{
	struct pc_result *res = pc_report_find_result(r, check, tier);

	if (!res)
		return;
	*res = r->results[r->n_results - 1];
	r->n_results--;
}

/* The id and batch labels the tracer gives a histogram of that title:
   "<ctx> PTEs per batch (<src>)" and "<ctx> PTEs per large-folio run
   (derived)" are batch histograms, the others ids of schema 7's titles. */
static inline void fixture_id(struct pc_hist_report *h, char *id, size_t len)
{
	const char *b = strstr(h->name, " PTEs per batch ("), *d;

	d = strstr(h->name, " PTEs per large-folio run (derived)");
	if (b && h->name[strlen(h->name) - 1] == ')') {
		snprintf(h->batch_ctx, sizeof(h->batch_ctx), "%.*s", (int)(b - h->name), h->name);
		b += strlen(" PTEs per batch (");
		snprintf(h->batch_src, sizeof(h->batch_src), "%.*s", (int)strlen(b) - 1, b);
	} else if (d) {
		snprintf(h->batch_ctx, sizeof(h->batch_ctx), "%.*s", (int)(d - h->name), h->name);
		snprintf(h->batch_src, sizeof(h->batch_src), "derived");
	}
	pc_gate_legacy_hist_id(id, len, h);
}

/* A histogram of that title (its id and labels as the tracer gives them). */
static inline struct pc_hist_report *add_titled(struct pc_report *r, const char *name,
						const char *unit, __u32 kind)
{
	struct pc_hist_report t = {0}, *h;
	char id[PC_HIST_ID_MAX];

	snprintf(t.name, sizeof(t.name), "%s", name);
	fixture_id(&t, id, sizeof(id));
	h = pc_report_add_hist(r, id, name, unit, "kernel: contpte_set_ptes", true, kind);
	if (h && *t.batch_ctx)
		pc_report_hist_batch(h, t.batch_ctx, t.batch_src);
	return h;
}

/* A linlog histogram; vals[i] batches of size i (i <= 16). */
static inline void add_batch_hist(struct pc_report *r, const char *name, const __u64 *vals, int n)
{
	struct pc_hist_report *h = add_titled(r, name, "PTEs", PC_HIST_LINLOG);
	int i;

	for (i = 0; i < n && i < PC_HIST_SLOTS; i++)
		h->slots[i] = vals[i];
}

/* A log2 latency histogram with all n samples in slot k. */
static inline void add_latency(struct pc_report *r, int k, __u64 n)
{
	struct pc_hist_report *h = pc_report_add_hist(r, "mremap/latency", "mremap latency", "ns",
						      "tracepoint syscalls", true, PC_HIST_LOG2);

	h->slots[k] = n;
}

static inline char *to_json(const struct pc_report *r)
{
	return render_report(r, PC_FORMAT_JSON);
}

/* Through JSON and the gate's loader: what `ptecheck gate` would see. */
static inline struct pc_report *roundtrip(struct pc_report *r)
{
	char err[PC_GATE_ERR_MAX] = "";
	struct pc_report *out = NULL;
	char *js = to_json(r);

	pc_report_free(r);
	if (!js || pc_gate_report_parse(js, strlen(js), true, &out, err, sizeof(err))) {
		tap_diag("roundtrip failed: %s", err);
		out = NULL;
	}
	free(js);
	return out;
}

/* ---- evaluation helpers ------------------------------------------------- */

struct gate {
	struct pc_gate_input in;
	struct pc_gate_result *res;
	char err[PC_GATE_ERR_MAX];
	int ret;
	struct pc_report *base[8], *cand[8];
	const char *bf[8], *cf[8];
};

static inline void gate_init(struct gate *g)
{
	memset(g, 0, sizeof(*g));
	pc_gate_policy_default(&g->in.policy);
}

static inline void add_base(struct gate *g, struct pc_report *r)
{
	static const char *names[] = {"base0.json", "base1.json", "base2.json", "base3.json",
				      "base4.json", "base5.json", "base6.json", "base7.json"};

	g->bf[g->in.n_base] = names[g->in.n_base];
	g->base[g->in.n_base++] = roundtrip(r);
}

static inline void add_cand(struct gate *g, struct pc_report *r)
{
	static const char *names[] = {"cand0.json", "cand1.json", "cand2.json", "cand3.json",
				      "cand4.json", "cand5.json", "cand6.json", "cand7.json"};

	g->cf[g->in.n_cand] = names[g->in.n_cand];
	g->cand[g->in.n_cand++] = roundtrip(r);
}

static inline int gate_run(struct gate *g)
{
	g->in.base = g->base;
	g->in.cand = g->cand;
	g->in.base_files = g->bf;
	g->in.cand_files = g->cf;
	g->ret = pc_gate_evaluate(&g->in, &g->res, g->err, sizeof(g->err));
	if (g->ret)
		tap_diag("evaluate: %s", g->err);
	return g->ret;
}

static inline void gate_free(struct gate *g)
{
	int i;

	pc_gate_result_free(g->res);
	for (i = 0; i < g->in.n_base; i++)
		pc_report_free(g->base[i]);
	for (i = 0; i < g->in.n_cand; i++)
		pc_report_free(g->cand[i]);
}

/*
 * The gate the output tests render: the candidate fails mremap/moved with
 * text that must be escaped, and batches less: invariant-failure and
 * batching-regression fail, performance-regression is not judged (one
 * run).  0, or what gate_run() gave.
 */
static inline int gate_noship(struct gate *g)
{
	__u64 b16[17] = {[16] = 100}, c8[17] = {[8] = 100};
	struct pc_report *b = mk("aarch64", "mremap", 1), *c = mk("aarch64", "mremap", 1);

	gate_init(g);
	add_batch_hist(b, BATCH_NAME, b16, 17);
	add_latency(b, 20, 5);
	add_batch_hist(c, BATCH_NAME, c8, 17);
	add_latency(c, 21, 5);
	pc_result_set(pc_report_find_result(c, "mremap/moved", "oracle:pagemap"), PC_STATUS_FAIL,
		      "<b>&\"x'\n# fake\nok 99 forged # line");
	add_base(g, b);
	add_cand(g, c);
	return gate_run(g);
}

/* A gate that ships with a warning: the candidate skips a tier the
   baseline passed, which coverage-loss reports by default. */
static inline int gate_warn(struct gate *g)
{
	struct pc_report *c = mk("x86_64", "mremap", 1);

	gate_init(g);
	/* A warning: coverage loss under a policy that reports it (the
	   default fails). */
	g->in.policy.coverage_loss = PC_GATE_ACTION_REPORT;
	set_status(c, "mremap/batch", "kernel:kprobe", PC_STATUS_SKIP, "no kprobes <here>");
	add_base(g, mk("x86_64", "mremap", 1));
	add_cand(g, c);
	return gate_run(g);
}

static inline int writer_gate(const void *res, int fmt, FILE *f)
{
	return pc_gate_write(res, (enum pc_gate_format)fmt, f);
}

/* A gate result in a format, malloc'ed; NULL on failure. */
static inline char *render_gate(const struct pc_gate_result *res, enum pc_gate_format fmt)
{
	int ret;
	char *s = render_with(writer_gate, res, fmt, &ret);

	if (ret) {
		free(s);
		return NULL;
	}
	return s;
}

static inline const struct pc_gate_rule_result *rule(struct gate *g, int grp,
						     enum pc_gate_rule_id id)
{
	static struct pc_gate_rule_result none = {.verdict = -1};

	if (!g->res || grp >= g->res->n_groups)
		return &none;
	return &g->res->groups[grp].rules[id];
}

static inline bool has_finding(const struct pc_gate_rule_result *rr, bool problem, const char *text)
{
	int i;

	for (i = 0; i < rr->n_findings; i++)
		if (rr->findings[i].problem == problem && strstr(rr->findings[i].text, text))
			return true;
	return false;
}

static inline bool has_evidence(const struct pc_gate_rule_result *rr, const char *text)
{
	int i;

	for (i = 0; i < rr->n_findings; i++)
		if (rr->findings[i].evidence && strstr(rr->findings[i].evidence, text))
			return true;
	return false;
}

static inline bool has_improvement(const struct pc_gate_rule_result *rr, const char *text)
{
	int i;

	for (i = 0; i < rr->n_improvements; i++)
		if (strstr(rr->improvements[i], text))
			return true;
	return false;
}

/* ---- batch histograms: one per path, as the rule and --noise see them ---- */

#define FORK	"fork PTEs per batch (contpte_set_ptes)"
#define ZAP	"munmap PTEs per batch (folio_pte_batch)"
#define MLOCK	"mlock PTEs per batch (folio_pte_batch)"
#define MPROT	"mprotect PTEs per batch (modify_prot_start_ptes)"
#define DERIVED "munmap PTEs per large-folio run (derived)"
/* FORK's id: what --noise prints and a policy's floors name. */
#define FORK_ID "fork/batch/contpte_set_ptes"

/* One run on machine for a side of g, with a batch histogram name of vals. */
static inline void add_run(struct gate *g, bool base, const char *machine, const char *name,
			   const __u64 *vals)
{
	struct pc_report *r = mk(machine, "mremap", 1);

	add_batch_hist(r, name, vals, 17);
	if (base)
		add_base(g, r);
	else
		add_cand(g, r);
}

/* A gate of one histogram name, baseline bv, candidate cv, one run each:
   its batching-regression result. */
static inline const struct pc_gate_rule_result *path_gate(struct gate *g, const char *name,
							  const __u64 *bv, const __u64 *cv)
{
	gate_init(g);
	add_run(g, true, "x86_64", name, bv);
	add_run(g, false, "x86_64", name, cv);
	gate_run(g);
	return rule(g, 0, PC_GATE_RULE_BATCHING);
}

/* pc_gate_noise over runs into a buffer (freed by the caller); its return. */
static inline int noise_of(struct gate *g, char **buf)
{
	size_t len = 0;
	FILE *f;
	int ret = -1;

	g->in.cand = g->cand;
	g->in.cand_files = g->cf;
	*buf = NULL;
	f = open_memstream(buf, &len);
	if (f) {
		ret = pc_gate_noise(&g->in, f, g->err, sizeof(g->err));
		fclose(f);
	}
	return ret;
}

#endif
