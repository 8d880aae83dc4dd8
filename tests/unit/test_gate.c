// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of `ptecheck gate` (loader/gate*.c): the report and policy
 * loaders on good and bad input, each rule tripped and not tripped, the
 * five output formats and the command's exit codes.  Reports are built with
 * the real writer (pc_report_write JSON) and edited as JSON where a test
 * needs a broken one.  Prints kselftest-style TAP; exits 0 if all passed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <jansson.h>
#include "gate.h"
#include "report.h"
#include "tap.h"

static char tmpdir[] = "/tmp/test_gate.XXXXXX";

/* ---- building reports ------------------------------------------------------ */

static struct pc_report *mk(const char *machine, const char *suite, unsigned int scale)
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

static void set_status(struct pc_report *r, const char *check, const char *tier, enum pc_status st,
		       const char *summary)
{
	struct pc_result *res = pc_report_find_result(r, check, tier);

	if (!res)
		res = pc_report_add_result(r, check, tier, true);
	pc_result_set(res, st, "%s", summary);
}

static void remove_result(struct pc_report *r, const char *check, const char *tier)
{
	struct pc_result *res = pc_report_find_result(r, check, tier);

	if (!res)
		return;
	*res = r->results[r->n_results - 1];
	r->n_results--;
}

/* A linlog histogram; vals[i] batches of size i (i <= 16). */
static void add_batch_hist(struct pc_report *r, const char *name, const __u64 *vals, int n)
{
	struct pc_hist_report *h = pc_report_add_hist(r, name, "PTEs", "kernel: contpte_set_ptes",
						      true, PC_HIST_LINLOG);
	int i;

	for (i = 0; i < n && i < PC_HIST_SLOTS; i++)
		h->slots[i] = vals[i];
}

/* A log2 latency histogram with all n samples in slot k. */
static void add_latency(struct pc_report *r, int k, __u64 n)
{
	struct pc_hist_report *h = pc_report_add_hist(r, "mremap latency", "ns",
						      "tracepoint syscalls", true, PC_HIST_LOG2);

	h->slots[k] = n;
}

static char *to_json(const struct pc_report *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	if (pc_report_write(r, PC_FORMAT_JSON, f)) {
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	return buf;
}

/* Through JSON and the gate's loader: what `ptecheck gate` would see. */
static struct pc_report *roundtrip(struct pc_report *r)
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

/* Parses text; returns 0 if accepted, else -1 with the message in err. */
static int parse_text(const char *js, bool allow_partial, char *err, size_t errlen)
{
	struct pc_report *r = NULL;
	int ret = pc_gate_report_parse(js, strlen(js), allow_partial, &r, err, errlen);

	pc_report_free(r);
	return ret;
}

/* A valid report as JSON text, edited by fn (may be NULL). */
static char *edited(void (*fn)(json_t *root))
{
	struct pc_report *r = mk("x86_64", "mremap", 1);
	char *js = to_json(r), *out;
	json_t *root = json_loads(js, 0, NULL);

	pc_report_free(r);
	free(js);
	if (fn)
		fn(root);
	out = json_dumps(root, JSON_PRESERVE_ORDER);
	json_decref(root);
	return out;
}

/* The loader refuses the edit with a message containing want. */
static void expect_bad(void (*fn)(json_t *root), const char *want, const char *what)
{
	char err[PC_GATE_ERR_MAX] = "";
	char *js = edited(fn);
	int ret = parse_text(js, false, err, sizeof(err));

	if (!tap_result(ret == -1 && strstr(err, want) != NULL, "bad input refused: %s", what))
		tap_diag("ret %d, message '%s', wanted '%s'", ret, err, want);
	free(js);
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

static void gate_init(struct gate *g)
{
	memset(g, 0, sizeof(*g));
	pc_gate_policy_default(&g->in.policy);
}

static void add_base(struct gate *g, struct pc_report *r)
{
	static const char *names[] = {"base0.json", "base1.json", "base2.json", "base3.json",
				      "base4.json", "base5.json", "base6.json", "base7.json"};

	g->bf[g->in.n_base] = names[g->in.n_base];
	g->base[g->in.n_base++] = roundtrip(r);
}

static void add_cand(struct gate *g, struct pc_report *r)
{
	static const char *names[] = {"cand0.json", "cand1.json", "cand2.json", "cand3.json",
				      "cand4.json", "cand5.json", "cand6.json", "cand7.json"};

	g->cf[g->in.n_cand] = names[g->in.n_cand];
	g->cand[g->in.n_cand++] = roundtrip(r);
}

static int gate_run(struct gate *g)
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

static void gate_free(struct gate *g)
{
	int i;

	pc_gate_result_free(g->res);
	for (i = 0; i < g->in.n_base; i++)
		pc_report_free(g->base[i]);
	for (i = 0; i < g->in.n_cand; i++)
		pc_report_free(g->cand[i]);
}

static const struct pc_gate_rule_result *rule(struct gate *g, int grp, enum pc_gate_rule_id id)
{
	static struct pc_gate_rule_result none = {.verdict = -1};

	if (!g->res || grp >= g->res->n_groups)
		return &none;
	return &g->res->groups[grp].rules[id];
}

static bool has_finding(const struct pc_gate_rule_result *rr, bool problem, const char *text)
{
	int i;

	for (i = 0; i < rr->n_findings; i++)
		if (rr->findings[i].problem == problem && strstr(rr->findings[i].text, text))
			return true;
	return false;
}

static bool has_evidence(const struct pc_gate_rule_result *rr, const char *text)
{
	int i;

	for (i = 0; i < rr->n_findings; i++)
		if (rr->findings[i].evidence && strstr(rr->findings[i].evidence, text))
			return true;
	return false;
}

static bool has_improvement(const struct pc_gate_rule_result *rr, const char *text)
{
	int i;

	for (i = 0; i < rr->n_improvements; i++)
		if (strstr(rr->improvements[i], text))
			return true;
	return false;
}

static char *render(const struct pc_gate_result *res, enum pc_gate_format fmt)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	if (pc_gate_write(res, fmt, f)) {
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	return buf;
}

/* ---- rule tests ---------------------------------------------------------------- */

static void test_invariant(void)
{
	struct gate g;
	struct pc_report *c;
	struct pc_result *res;

	gate_init(&g);
	add_base(&g, mk("x86_64", "mremap", 1));
	add_cand(&g, mk("x86_64", "mremap", 1));
	TAP_CHECK(gate_run(&g) == 0 && g.res->ship, "clean candidate: ship");
	TAP_CHECK_EQ(rule(&g, 0, PC_GATE_RULE_INVARIANT)->verdict, PC_GATE_PASS,
		     "invariant-failure passes without failures");
	gate_free(&g);

	gate_init(&g);
	add_base(&g, mk("x86_64", "mremap", 1));
	c = mk("x86_64", "mremap", 1);
	res = pc_report_find_result(c, "mremap/moved", "oracle:pagemap");
	pc_result_set(res, PC_STATUS_FAIL, "1 pfn changed");
	res->violations = 1;
	pc_result_add_evidence(res, 42, 0x7f0000001000ULL, 0x7f0000101000ULL, 0x1234, 0x5678,
			       "pfn changed");
	add_cand(&g, c);
	TAP_CHECK(gate_run(&g) == 0 && !g.res->ship, "failing check: do not ship");
	TAP_CHECK_EQ(rule(&g, 0, PC_GATE_RULE_INVARIANT)->verdict, PC_GATE_FAIL,
		     "invariant-failure fails");
	TAP_CHECK(has_finding(rule(&g, 0, PC_GATE_RULE_INVARIANT), true,
			      "mremap/moved [oracle:pagemap] failed on x86_64"),
		  "reason names check, tier and machine");
	TAP_CHECK(has_finding(rule(&g, 0, PC_GATE_RULE_INVARIANT), true, "1 pfn changed"),
		  "reason quotes the summary");
	TAP_CHECK(has_evidence(rule(&g, 0, PC_GATE_RULE_INVARIANT),
			       "pid 42 addr 0x7f0000001000 -> 0x7f0000101000"),
		  "first evidence is quoted");
	gate_free(&g);

	/* Repeated runs: a failure in one of three is a failure. */
	gate_init(&g);
	add_base(&g, mk("x86_64", "mremap", 1));
	add_cand(&g, mk("x86_64", "mremap", 1));
	c = mk("x86_64", "mremap", 1);
	set_status(c, "mremap/batch", "kernel:kprobe", PC_STATUS_FAIL, "count mismatch");
	add_cand(&g, c);
	add_cand(&g, mk("x86_64", "mremap", 1));
	TAP_CHECK(gate_run(&g) == 0 && !g.res->ship &&
			  has_finding(rule(&g, 0, PC_GATE_RULE_INVARIANT), true, "1 of 3 runs"),
		  "failure in 1 of 3 repeated runs: do not ship");
	gate_free(&g);
}

static void test_coverage(void)
{
	struct gate g;
	struct pc_report *c;

	gate_init(&g);
	add_base(&g, mk("x86_64", "mremap", 1));
	c = mk("x86_64", "mremap", 1);
	set_status(c, "mremap/batch", "kernel:kprobe", PC_STATUS_SKIP, "no kprobes here");
	add_cand(&g, c);
	TAP_CHECK(gate_run(&g) == 0 && g.res->ship, "coverage loss alone ships (default policy)");
	TAP_CHECK_EQ(rule(&g, 0, PC_GATE_RULE_COVERAGE)->verdict, PC_GATE_WARN,
		     "coverage-loss reported as a warning");
	TAP_CHECK(has_finding(rule(&g, 0, PC_GATE_RULE_COVERAGE), true,
			      "mremap/batch [kernel:kprobe] passed in the baseline, skipped in the "
			      "candidate: no kprobes here"),
		  "coverage-loss names the check and the reason");
	gate_free(&g);

	gate_init(&g);
	g.in.policy.coverage_loss = PC_GATE_ACTION_FAIL;
	add_base(&g, mk("x86_64", "mremap", 1));
	c = mk("x86_64", "mremap", 1);
	remove_result(c, "mremap/batch", "kernel:kprobe");
	add_cand(&g, c);
	TAP_CHECK(gate_run(&g) == 0 && !g.res->ship, "coverage_loss: fail, missing check fails");
	TAP_CHECK(has_finding(rule(&g, 0, PC_GATE_RULE_COVERAGE), true, "missing in the candidate"),
		  "missing check is named as missing");
	gate_free(&g);

	gate_init(&g);
	add_base(&g, mk("x86_64", "mremap", 1));
	c = mk("x86_64", "mremap", 1);
	set_status(c, "mremap/perms", "kernel:fexit", PC_STATUS_PASS, "256 checked");
	add_cand(&g, c);
	TAP_CHECK(gate_run(&g) == 0 && g.res->ship &&
			  rule(&g, 0, PC_GATE_RULE_COVERAGE)->verdict == PC_GATE_PASS &&
			  has_improvement(
				  rule(&g, 0, PC_GATE_RULE_COVERAGE),
				  "coverage gained: mremap/perms [kernel:fexit] skip -> pass"),
		  "coverage gained is an improvement");
	gate_free(&g);
}

static const char *batch_name = "mremap PTEs per batch";

static void test_batching(void)
{
	__u64 b16[17] = {[16] = 100}, c8[17] = {[8] = 100}, c15[17] = {[15] = 100};
	__u64 ones[17] = {[1] = 100}, c32[17] = {[1] = 6, [4] = 2, [9] = 2};
	struct gate g;
	struct pc_report *b, *c;

	gate_init(&g);
	b = mk("aarch64", "mremap", 1);
	add_batch_hist(b, batch_name, b16, 17);
	c = mk("aarch64", "mremap", 1);
	add_batch_hist(c, batch_name, c8, 17);
	add_base(&g, b);
	add_cand(&g, c);
	TAP_CHECK(gate_run(&g) == 0 && !g.res->ship, "batch mean 16 -> 8: do not ship");
	TAP_CHECK_EQ(rule(&g, 0, PC_GATE_RULE_BATCHING)->verdict, PC_GATE_FAIL,
		     "batching-regression fails");
	TAP_CHECK(has_finding(rule(&g, 0, PC_GATE_RULE_BATCHING), true,
			      "batching regressed: mremap PTEs per batch mean 16.0 -> 8.0"),
		  "regression names histogram and means");
	TAP_CHECK(has_evidence(rule(&g, 0, PC_GATE_RULE_BATCHING),
			       "largest baseline bucket 16 PTEs: 100.0% of 100 -> 0.0% of 100"),
		  "largest-bucket share is evidence");
	gate_free(&g);

	gate_init(&g);
	g.in.policy.batching_regression = PC_GATE_ACTION_REPORT;
	b = mk("aarch64", "mremap", 1);
	add_batch_hist(b, batch_name, b16, 17);
	c = mk("aarch64", "mremap", 1);
	add_batch_hist(c, batch_name, c8, 17);
	add_base(&g, b);
	add_cand(&g, c);
	TAP_CHECK(gate_run(&g) == 0 && g.res->ship &&
			  rule(&g, 0, PC_GATE_RULE_BATCHING)->verdict == PC_GATE_WARN,
		  "batching_regression: report only warns");
	gate_free(&g);

	gate_init(&g);
	b = mk("aarch64", "mremap", 1);
	add_batch_hist(b, batch_name, b16, 17);
	c = mk("aarch64", "mremap", 1);
	add_batch_hist(c, batch_name, c15, 17);
	add_base(&g, b);
	add_cand(&g, c);
	TAP_CHECK(gate_run(&g) == 0 && g.res->ship &&
			  rule(&g, 0, PC_GATE_RULE_BATCHING)->verdict == PC_GATE_PASS,
		  "batch mean 16 -> 15 is within the 10%% tolerance");
	gate_free(&g);

	gate_init(&g);
	b = mk("x86_64", "mremap", 1);
	add_batch_hist(b, batch_name, ones, 17);
	c = mk("x86_64", "mremap", 1);
	add_batch_hist(c, batch_name, c32, 17);
	add_base(&g, b);
	add_cand(&g, c);
	TAP_CHECK(gate_run(&g) == 0 && g.res->ship &&
			  rule(&g, 0, PC_GATE_RULE_BATCHING)->verdict == PC_GATE_PASS,
		  "batch mean 1 -> 3.2 ships");
	TAP_CHECK(has_improvement(rule(&g, 0, PC_GATE_RULE_BATCHING),
				  "batching improved: mremap PTEs per batch mean 1.0 -> 3.2"),
		  "batch mean 1 -> 3.2 is an improvement");
	gate_free(&g);

	/* Only in the candidate: improvement; only in the baseline: coverage loss. */
	gate_init(&g);
	b = mk("x86_64", "mremap", 1);
	add_batch_hist(b, "filemap PTEs per set_pte_range", ones, 17);
	c = mk("x86_64", "mremap", 1);
	add_batch_hist(c, batch_name, c32, 17);
	add_base(&g, b);
	add_cand(&g, c);
	TAP_CHECK(gate_run(&g) == 0 && g.res->ship, "histograms on one side only ship");
	TAP_CHECK(has_improvement(rule(&g, 0, PC_GATE_RULE_BATCHING),
				  "batching improved: mremap PTEs per batch now observed"),
		  "histogram only in the candidate is an improvement");
	TAP_CHECK(has_finding(rule(&g, 0, PC_GATE_RULE_COVERAGE), true,
			      "\"filemap PTEs per set_pte_range\" has 100 events in the baseline"),
		  "histogram only in the baseline is coverage loss");
	TAP_CHECK_EQ(rule(&g, 0, PC_GATE_RULE_BATCHING)->verdict, PC_GATE_NOT_JUDGED,
		     "no histogram in both: batching not judged");
	gate_free(&g);

	/* Newly visible but unbatched (mean 1) is a finding, not an improvement. */
	gate_init(&g);
	add_base(&g, mk("aarch64", "mremap", 1));
	c = mk("aarch64", "mremap", 1);
	add_batch_hist(c, batch_name, ones, 17);
	add_cand(&g, c);
	TAP_CHECK(gate_run(&g) == 0 && g.res->ship &&
			  !has_improvement(rule(&g, 0, PC_GATE_RULE_BATCHING), batch_name) &&
			  has_finding(rule(&g, 0, PC_GATE_RULE_BATCHING), false, "no batching"),
		  "histogram newly observed with mean 1: reported, not an improvement");
	gate_free(&g);

	/* Repeated runs whose spreads overlap: baseline runs 16 and 8, candidate
	   runs 8 and 8: the mean drops by a third, but within the baseline's own
	   spread (as folio_pte_batch swings 41 -> 19 on one kernel). */
	{
		__u64 r1[17] = {[16] = 100}, r2[17] = {[8] = 100};

		gate_init(&g);
		b = mk("aarch64", "mremap", 1);
		add_batch_hist(b, batch_name, r1, 17);
		add_base(&g, b);
		b = mk("aarch64", "mremap", 1);
		add_batch_hist(b, batch_name, r2, 17);
		add_base(&g, b);
		c = mk("aarch64", "mremap", 1);
		add_batch_hist(c, batch_name, r2, 17);
		add_cand(&g, c);
		c = mk("aarch64", "mremap", 1);
		add_batch_hist(c, batch_name, r2, 17);
		add_cand(&g, c);
		TAP_CHECK(gate_run(&g) == 0 && g.res->ship &&
				  has_finding(rule(&g, 0, PC_GATE_RULE_BATCHING), false,
					      "within the runs' spread"),
			  "2 runs a side, spreads overlap: within the spread, ships");
		gate_free(&g);

		gate_init(&g);
		for (int k = 0; k < 2; k++) {
			b = mk("aarch64", "mremap", 1);
			add_batch_hist(b, batch_name, r1, 17);
			add_base(&g, b);
			c = mk("aarch64", "mremap", 1);
			add_batch_hist(c, batch_name, r2, 17);
			add_cand(&g, c);
		}
		TAP_CHECK(gate_run(&g) == 0 && !g.res->ship,
			  "2 runs a side, 16 -> 8 with no overlap: do not ship");
		gate_free(&g);
	}

	/* A name outside the policy's list is not a batch histogram. */
	gate_init(&g);
	snprintf(g.in.policy.batch_names[0], sizeof(g.in.policy.batch_names[0]), "nothing");
	g.in.policy.n_batch_names = 1;
	b = mk("aarch64", "mremap", 1);
	add_batch_hist(b, batch_name, b16, 17);
	c = mk("aarch64", "mremap", 1);
	add_batch_hist(c, batch_name, c8, 17);
	add_base(&g, b);
	add_cand(&g, c);
	TAP_CHECK(gate_run(&g) == 0 && g.res->ship, "batch histogram names come from the policy");
	gate_free(&g);
}

/* Three runs each side; latency slot per run and duration per run. */
static void perf_case(struct gate *g, const int *bk, const double *bd, int nb, const int *ck,
		      const double *cd, int nc)
{
	int i;

	gate_init(g);
	for (i = 0; i < nb; i++) {
		struct pc_report *r = mk("x86_64", "mremap", 1);

		add_latency(r, bk[i], 11);
		r->duration_s = bd[i];
		add_base(g, r);
	}
	for (i = 0; i < nc; i++) {
		struct pc_report *r = mk("x86_64", "mremap", 1);

		add_latency(r, ck[i], 11);
		r->duration_s = cd[i];
		add_cand(g, r);
	}
	gate_run(g);
}

static void test_perf(void)
{
	const int k_overlap_b[] = {10, 11, 10}, k_overlap_c[] = {11, 10, 11};
	const int k10[] = {10, 10, 10}, k12[] = {12, 12, 12};
	const double d2[] = {2.0, 2.1, 2.2}, d2b[] = {2.1, 2.0, 2.2};
	const double d3[] = {3.0, 3.1, 3.2}, d1[] = {1.0, 1.1, 1.2};
	struct gate g;

	perf_case(&g, k_overlap_b, d2, 3, k_overlap_c, d2b, 3);
	TAP_CHECK(g.ret == 0 && g.res->ship &&
			  rule(&g, 0, PC_GATE_RULE_PERF)->verdict == PC_GATE_PASS,
		  "latency median 1024 -> 2048 with overlapping runs: not a regression");
	TAP_CHECK(has_finding(rule(&g, 0, PC_GATE_RULE_PERF), false, "runs overlap"),
		  "overlap is stated");
	gate_free(&g);

	perf_case(&g, k10, d2, 3, k12, d2b, 3);
	TAP_CHECK(g.ret == 0 && !g.res->ship &&
			  rule(&g, 0, PC_GATE_RULE_PERF)->verdict == PC_GATE_FAIL,
		  "latency 1024 -> 4096 in all runs: regression, do not ship");
	TAP_CHECK(has_finding(rule(&g, 0, PC_GATE_RULE_PERF), true,
			      "slower: mremap latency median 1024 -> 4096 ns"),
		  "latency regression names the medians");
	TAP_CHECK(has_evidence(rule(&g, 0, PC_GATE_RULE_PERF),
			       "candidate best 4096 > baseline worst 1024"),
		  "disjoint spread is evidence");
	gate_free(&g);

	perf_case(&g, k10, d2, 3, k10, d3, 3);
	TAP_CHECK(g.ret == 0 && !g.res->ship &&
			  has_finding(rule(&g, 0, PC_GATE_RULE_PERF), true,
				      "slower: run duration median 2.1 -> 3.1 s"),
		  "duration 2.1 s -> 3.1 s, disjoint: regression");
	gate_free(&g);

	perf_case(&g, k12, d2, 3, k10, d1, 3);
	TAP_CHECK(g.ret == 0 && g.res->ship &&
			  has_improvement(rule(&g, 0, PC_GATE_RULE_PERF),
					  "faster: mremap latency median 4096 -> 1024") &&
			  has_improvement(rule(&g, 0, PC_GATE_RULE_PERF), "faster: run duration"),
		  "faster is an improvement");
	gate_free(&g);

	perf_case(&g, k10, d2, 1, k12, d3, 1);
	TAP_CHECK(g.ret == 0 && g.res->ship &&
			  rule(&g, 0, PC_GATE_RULE_PERF)->verdict == PC_GATE_NOT_JUDGED &&
			  strstr(rule(&g, 0, PC_GATE_RULE_PERF)->not_judged,
				 "need >= 3 runs per side"),
		  "single run: not judged (need >= 3 runs per side), never fails");
	gate_free(&g);

	perf_case(&g, k10, d2, 3, k12, d3, 3);
	g.in.policy.performance_regression = PC_GATE_ACTION_REPORT;
	pc_gate_result_free(g.res);
	g.res = NULL;
	gate_run(&g);
	TAP_CHECK(g.ret == 0 && g.res->ship &&
			  rule(&g, 0, PC_GATE_RULE_PERF)->verdict == PC_GATE_WARN,
		  "performance_regression: report only warns");
	gate_free(&g);
}

/* ---- grouping and bad input -------------------------------------------------- */

static void test_groups(void)
{
	__u64 b16[17] = {[16] = 100}, c8[17] = {[8] = 100};
	struct gate g;
	struct pc_report *r;

	/* Two machines: each compared with its own baseline. */
	gate_init(&g);
	add_base(&g, mk("x86_64", "mremap", 1));
	r = mk("aarch64", "mremap", 1);
	add_batch_hist(r, batch_name, b16, 17);
	add_base(&g, r);
	r = mk("aarch64", "mremap", 1);
	add_batch_hist(r, batch_name, c8, 17);
	add_cand(&g, r);
	add_cand(&g, mk("x86_64", "mremap", 1));
	TAP_CHECK(gate_run(&g) == 0 && g.res->n_groups == 2 && !g.res->ship,
		  "two machines, two groups; aarch64 batching regression fails the gate");
	TAP_CHECK(!strcmp(g.res->groups[0].machine, "aarch64") &&
			  rule(&g, 0, PC_GATE_RULE_BATCHING)->verdict == PC_GATE_FAIL &&
			  rule(&g, 1, PC_GATE_RULE_BATCHING)->verdict == PC_GATE_NOT_JUDGED,
		  "the regression is on aarch64 only");
	gate_free(&g);

	gate_init(&g);
	add_base(&g, mk("x86_64", "mremap", 1));
	add_cand(&g, mk("x86_64", "mremap", 1));
	add_cand(&g, mk("aarch64", "mremap", 1));
	TAP_CHECK(gate_run(&g) == -1 && strstr(g.err, "no baseline for aarch64"),
		  "no baseline for a machine: bad input");
	gate_free(&g);

	gate_init(&g);
	g.in.policy.allow_no_baseline = true;
	add_base(&g, mk("x86_64", "mremap", 1));
	add_cand(&g, mk("x86_64", "mremap", 1));
	add_cand(&g, mk("aarch64", "mremap", 1));
	TAP_CHECK(gate_run(&g) == 0 && g.res->ship &&
			  rule(&g, 1, PC_GATE_RULE_COVERAGE)->verdict == PC_GATE_NOT_JUDGED &&
			  rule(&g, 1, PC_GATE_RULE_INVARIANT)->verdict == PC_GATE_PASS,
		  "allow_no_baseline: only invariant-failure judged there");
	gate_free(&g);

	gate_init(&g);
	add_base(&g, mk("x86_64", "mremap", 1));
	add_base(&g, mk("aarch64", "mremap", 1));
	add_cand(&g, mk("x86_64", "mremap", 1));
	TAP_CHECK(gate_run(&g) == -1 && strstr(g.err, "has no candidate report"),
		  "a baseline without a candidate: bad input (no silent pass)");
	gate_free(&g);

	gate_init(&g);
	add_base(&g, mk("x86_64", "filemap", 1));
	add_cand(&g, mk("x86_64", "mremap", 1));
	TAP_CHECK(gate_run(&g) == -1 &&
			  strstr(g.err, "different workloads: suite mremap scale 1 vs suite "
					"filemap scale 1"),
		  "different suites: bad input");
	gate_free(&g);

	gate_init(&g);
	add_base(&g, mk("x86_64", "mremap", 1));
	add_cand(&g, mk("x86_64", "mremap", 4));
	TAP_CHECK(gate_run(&g) == -1 &&
			  strstr(g.err, "different workloads: suite mremap scale 4 vs suite "
					"mremap scale 1"),
		  "different scales: bad input");
	gate_free(&g);
}

static void set_schema_version(json_t *r)
{
	json_object_set_new(r, "schema_version", json_integer(2));
}
static void set_schema(json_t *r)
{
	json_object_set_new(r, "schema", json_string("ptecheck-features"));
}
static void set_command(json_t *r)
{
	json_object_set_new(r, "command", json_string("watch"));
}
static void empty_results(json_t *r)
{
	json_object_set_new(r, "results", json_array());
	json_object_set_new(json_object_get(r, "summary"), "passed", json_integer(0));
	json_object_set_new(json_object_get(r, "summary"), "skipped", json_integer(0));
}
static void set_partial(json_t *r)
{
	json_object_set_new(r, "partial", json_true());
}
static void drop_kernel(json_t *r)
{
	json_object_del(r, "kernel");
}
static void status_int(json_t *r)
{
	json_object_set_new(json_array_get(json_object_get(r, "results"), 0), "status",
			    json_integer(0));
}
static void negative_count(json_t *r)
{
	json_object_set_new(json_array_get(json_object_get(r, "results"), 1), "checked",
			    json_integer(-5));
}
static void bad_summary(json_t *r)
{
	json_object_set_new(json_object_get(r, "summary"), "failed", json_integer(3));
}
static void long_check(json_t *r)
{
	char name[200];

	memset(name, 'a', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	json_object_set_new(json_array_get(json_object_get(r, "results"), 0), "check",
			    json_string(name));
}
static void bad_bucket(json_t *r)
{
	json_t *h = json_object(), *bs = json_array(), *b = json_object();

	json_object_set_new(h, "name", json_string("x per batch"));
	json_object_set_new(h, "unit", json_string("PTEs"));
	json_object_set_new(h, "source", json_string("s"));
	json_object_set_new(h, "in_kernel", json_true());
	json_object_set_new(h, "kind", json_string("log2"));
	json_object_set_new(b, "low", json_integer(3));
	json_object_set_new(b, "high", json_integer(5));
	json_object_set_new(b, "count", json_integer(1));
	json_array_append_new(bs, b);
	json_object_set_new(h, "buckets", bs);
	json_object_set_new(h, "total", json_integer(1));
	json_array_append_new(json_object_get(r, "histograms"), h);
}
static void many_evidence(json_t *r)
{
	json_t *ev = json_array();
	int i;

	for (i = 0; i < 9; i++)
		json_array_append_new(ev, json_object());
	json_object_set_new(json_array_get(json_object_get(r, "results"), 0), "evidence", ev);
}
static void duration_string(json_t *r)
{
	json_object_set_new(r, "duration_s", json_string("2"));
}

static void test_bad_reports(void)
{
	char err[PC_GATE_ERR_MAX] = "";
	char *js = edited(NULL), *cut;
	int ret;

	TAP_CHECK(parse_text(js, false, err, sizeof(err)) == 0, "the writer's report is accepted");
	cut = strndup(js, strlen(js) / 2);
	ret = parse_text(cut, false, err, sizeof(err));
	TAP_CHECK(ret == -1 && strstr(err, "truncated file") && strstr(err, "line 1"),
		  "truncated: named, with line and column");
	tap_diag("%s", err);
	free(cut);
	free(js);
	ret = parse_text("{\"schema\": \"ptecheck-report\",, }", false, err, sizeof(err));
	TAP_CHECK(ret == -1 && strstr(err, "malformed JSON at line 1 column"), "malformed JSON");
	tap_diag("%s", err);
	ret = parse_text("", false, err, sizeof(err));
	TAP_CHECK(ret == -1 && strstr(err, "empty file"), "empty file");
	ret = parse_text("[1, 2]", false, err, sizeof(err));
	TAP_CHECK(ret == -1 && strstr(err, "not a ptecheck report"), "JSON array: not a report");
	ret = parse_text("{\"a\": 1, \"a\": 2}", false, err, sizeof(err));
	TAP_CHECK(ret == -1 && strstr(err, "malformed JSON"), "duplicate keys refused");
	ret = parse_text("{\"schema\": \"ptecheck-report\", \"schema_version\": 1, \"command\": "
			 "\"run\", \"tool_version\": \"1.0.0\", \"checked\": "
			 "99999999999999999999999}",
			 false, err, sizeof(err));
	TAP_CHECK(ret == -1 && strstr(err, "too big"), "integer past 64 bits refused");

	expect_bad(set_schema_version,
		   "schema_version 2 is not supported (this ptecheck reads "
		   "schema_version 1)",
		   "other schema version");
	expect_bad(set_schema, "not a ptecheck report: schema \"ptecheck-features\"",
		   "other schema name");
	expect_bad(set_command, "a report of `ptecheck watch`", "command watch");
	expect_bad(empty_results, "empty report: no results", "empty results");
	expect_bad(set_partial, "partial report", "partial");
	expect_bad(drop_kernel, "kernel: missing required field", "missing field");
	expect_bad(status_int, "results[0].status: expected a string, got an integer",
		   "wrong type");
	expect_bad(negative_count, "results[1].checked: negative count -5", "negative count");
	expect_bad(bad_summary, "summary says", "summary disagrees with results");
	expect_bad(long_check, "results[0].check: string too long", "over-long check name");
	expect_bad(bad_bucket, "3..5 is not a log2 bucket", "bucket bounds of no slot");
	expect_bad(many_evidence, "9 items, at most 8", "more evidence than the schema allows");
	expect_bad(duration_string, "duration_s: expected a number", "duration as a string");

	js = edited(set_partial);
	TAP_CHECK(parse_text(js, true, err, sizeof(err)) == 0,
		  "partial accepted with allow_partial");
	free(js);
}

static int pol_parse(struct pc_gate_policy *p, const char *js, char *err, size_t errlen)
{
	return pc_gate_policy_parse(p, js, strlen(js), err, errlen);
}

static void test_policy(void)
{
	struct pc_gate_policy p;
	char err[PC_GATE_ERR_MAX] = "";
	const char *full = "{\"coverage_loss\": \"fail\", \"batching_regression\": \"report\","
			   " \"performance_regression\": \"report\", "
			   "\"batching_tolerance_pct\": 5, \"perf_threshold_pct\": 50.5, "
			   "\"perf_min_runs\": 5, \"allow_partial\": true, "
			   "\"allow_no_baseline\": true, \"batch_histograms\": [\"per batch\"], "
			   "\"latency_histogram\": \"mremap latency\"}";
	int ret;

	pc_gate_policy_default(&p);
	TAP_CHECK(p.coverage_loss == PC_GATE_ACTION_REPORT &&
			  p.batching_regression == PC_GATE_ACTION_FAIL &&
			  p.performance_regression == PC_GATE_ACTION_FAIL &&
			  p.batching_tolerance_pct == 10 && p.perf_threshold_pct == 25 &&
			  p.perf_min_runs == 3 && !p.allow_partial && !p.allow_no_baseline &&
			  p.n_batch_names == 3,
		  "default policy as documented");
	TAP_CHECK(pc_gate_is_batch_hist(&p, "mremap PTEs per batch") &&
			  pc_gate_is_batch_hist(&p, "filemap PTEs per set_pte_range") &&
			  !pc_gate_is_batch_hist(&p, "folio_pte_batch() nr outside mremap") &&
			  pc_gate_is_batch_hist(&p, "pages per folio_add_file_rmap_ptes") &&
			  !pc_gate_is_batch_hist(&p, "mremap latency"),
		  "default batch histograms: the scenarios' own paths, not folio_pte_batch()");
	ret = pc_gate_policy_parse(&p, full, strlen(full), err, sizeof(err));
	TAP_CHECK(ret == 0 && p.coverage_loss == PC_GATE_ACTION_FAIL && p.perf_min_runs == 5 &&
			  p.perf_threshold_pct == 50.5 && p.n_batch_names == 1 && p.allow_partial,
		  "every policy key parses");
	pc_gate_policy_default(&p);
	ret = pol_parse(&p, "{\"coverage_los\": \"fail\"}", err, sizeof(err));
	TAP_CHECK(ret == -1 && strstr(err, "unknown policy key \"coverage_los\""),
		  "unknown policy key names the key");
	ret = pol_parse(&p, "{\"perf_min_runs\": \"3\"}", err, sizeof(err));
	TAP_CHECK(ret == -1 && strstr(err, "\"perf_min_runs\": expected an integer"),
		  "wrong type names the key");
	ret = pol_parse(&p, "{\"batching_tolerance_pct\": -1}", err, sizeof(err));
	TAP_CHECK(ret == -1 && strstr(err, "out of range"), "negative tolerance refused");
	ret = pol_parse(&p, "{\"coverage_loss\": \"maybe\"}", err, sizeof(err));
	TAP_CHECK(ret == -1 && strstr(err, "expected \"fail\" or \"report\""), "bad action");
	ret = pol_parse(&p, "{\"coverage_loss\": \"fail\"", err, sizeof(err));
	TAP_CHECK(ret == -1 && strstr(err, "truncated"), "truncated policy");
	TAP_CHECK(p.coverage_loss == PC_GATE_ACTION_REPORT, "a refused policy changes nothing");
}

/* ---- outputs ---------------------------------------------------------------- */

static void test_outputs(void)
{
	__u64 b16[17] = {[16] = 100}, c8[17] = {[8] = 100};
	struct pc_report *b, *c;
	struct pc_result *res;
	struct gate g;
	char *s;
	json_t *root;

	gate_init(&g);
	b = mk("aarch64", "mremap", 1);
	add_batch_hist(b, batch_name, b16, 17);
	c = mk("aarch64", "mremap", 1);
	add_batch_hist(c, batch_name, c8, 17);
	res = pc_report_find_result(c, "mremap/moved", "oracle:pagemap");
	pc_result_set(res, PC_STATUS_FAIL, "<b>&\"x'\n# fake\nok 99 forged # line");
	add_base(&g, b);
	add_cand(&g, c);
	if (gate_run(&g)) {
		tap_skip("no result to render");
		gate_free(&g);
		return;
	}

	s = render(g.res, PC_GATE_FMT_TEXT);
	TAP_CHECK(s && !strncmp(s, "DO NOT SHIP\n", 12), "text: decision first");
	TAP_CHECK(s && strstr(s, "FAIL        invariant-failure") &&
			  strstr(s, "FAIL        batching-regression") &&
			  strstr(s, "coverage-loss") && strstr(s, "performance-regression"),
		  "text: every rule named");
	TAP_CHECK(s && !strstr(s, "\nok 99"), "text: a newline in a summary makes no line");
	free(s);

	s = render(g.res, PC_GATE_FMT_TAP);
	TAP_CHECK(s && !strncmp(s, "TAP version 13\n1..4\n", 20), "tap: header and plan");
	TAP_CHECK(s && strstr(s, "not ok 1 aarch64 suite mremap scale 1: invariant-failure\n") &&
			  strstr(s, "not ok 3 aarch64 suite mremap scale 1: batching-regression") &&
			  strstr(s, "ok 4 aarch64 suite mremap scale 1: performance-regression # "
				    "SKIP need >= 3 runs"),
		  "tap: one test per rule, SKIP with reason");
	TAP_CHECK(s && !strstr(s, "\nok 99"), "tap: no forged test line");
	TAP_CHECK(s && strstr(s, "\n# Totals: pass:1 fail:2 skip:1\n"),
		  "tap: totals of what is counted, no constant xfail, xpass or error");
	free(s);

	s = render(g.res, PC_GATE_FMT_JUNIT);
	TAP_CHECK(s && strstr(s, "<testsuites name=\"ptecheck gate: DO NOT SHIP\" tests=\"4\" "
				 "failures=\"2\" errors=\"0\" skipped=\"1\">"),
		  "junit: totals");
	TAP_CHECK(s && strstr(s, "<failure type=\"invariant-failure\" message=\"") &&
			  strstr(s, "<skipped message=\"not judged: need"),
		  "junit: failure and skipped elements");
	TAP_CHECK(s && strstr(s, "&lt;b&gt;&amp;&quot;x&#39;") && !strstr(s, "<b>"),
		  "junit: text escaped");
	free(s);

	s = render(g.res, PC_GATE_FMT_JSON);
	root = s ? json_loads(s, 0, NULL) : NULL;
	TAP_CHECK(root &&
			  !strcmp(json_string_value(json_object_get(root, "decision")),
				  "do-not-ship") &&
			  json_array_size(json_object_get(root, "rules")) == 4 &&
			  json_is_array(json_object_get(root, "improvements")) &&
			  json_array_size(json_object_get(root, "groups")) == 1,
		  "json: decision, rules, improvements, groups");
	json_decref(root);
	free(s);

	s = render(g.res, PC_GATE_FMT_HTML);
	TAP_CHECK(s && strstr(s, "<h1 class=\"noship\">DO NOT SHIP</h1>") && strstr(s, "<svg") &&
			  strstr(s, "&lt;b&gt;") && !strstr(s, "<b>") && !strstr(s, "<script") &&
			  !strstr(s, "src=") && !strstr(s, "href="),
		  "html: decision, inline SVG, escaped, no script");
	TAP_CHECK(s && strstr(s, "<td>mremap/moved</td><td>oracle:pagemap</td><td "
				 "class=\"pass\">pass</td><td class=\"fail\">fail</td>"),
		  "html: checks table, baseline vs candidate");
	free(s);
	gate_free(&g);
}

/* ---- the command ---------------------------------------------------------------- */

static char *write_tmp(const char *name, const char *text)
{
	char *path;
	FILE *f;

	if (asprintf(&path, "%s/%s", tmpdir, name) < 0)
		return NULL;
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
	return path;
}

static int cmd(const char *a0, ...)
{
	char *argv[32];
	int argc = 0;
	va_list ap;
	const char *s;

	argv[argc++] = (char *)"gate";
	va_start(ap, a0);
	for (s = a0; s && argc < 31; s = va_arg(ap, const char *))
		argv[argc++] = (char *)s;
	va_end(ap);
	argv[argc] = NULL;
	return pc_cmd_gate(argc, argv);
}

static bool file_has(const char *path, const char *text)
{
	char err[128];
	size_t len;
	char *s = pc_gate_read_file(path, 1 << 20, &len, err, sizeof(err));
	bool ok = s && strstr(s, text);

	free(s);
	return ok;
}

static void test_command(void)
{
	struct pc_report *r = mk("x86_64", "mremap", 1);
	char *good_js = to_json(r), *bad_js, *out, *junit, *html, *tapf, *jsonf;
	char *good, *fail, *trunc, *pol, *badpol, *missing;

	pc_report_free(r);
	r = mk("x86_64", "mremap", 1);
	set_status(r, "mremap/moved", "oracle:pagemap", PC_STATUS_FAIL, "pfn changed");
	bad_js = to_json(r);
	pc_report_free(r);
	good = write_tmp("good.json", good_js);
	fail = write_tmp("fail.json", bad_js);
	good_js[strlen(good_js) / 3] = '\0';
	trunc = write_tmp("trunc.json", good_js);
	pol = write_tmp("policy.json", "{\"coverage_loss\": \"fail\"}");
	badpol = write_tmp("badpolicy.json", "{\"coverage_loss\": \"fail\", \"speed\": 1}");
	if (asprintf(&out, "%s/out.txt", tmpdir) < 0 || asprintf(&junit, "%s/j.xml", tmpdir) < 0 ||
	    asprintf(&html, "%s/g.html", tmpdir) < 0 || asprintf(&tapf, "%s/g.tap", tmpdir) < 0 ||
	    asprintf(&jsonf, "%s/g.json", tmpdir) < 0 ||
	    asprintf(&missing, "%s/nonexistent.json", tmpdir) < 0)
		return;

	TAP_CHECK_EQ(cmd("--baseline", good, "--output", out, "--junit", junit, "--html", html,
			 "--tap", tapf, "--json", jsonf, good, NULL),
		     0, "cmd: same report both sides: exit 0");
	TAP_CHECK(file_has(out, "SHIP\n") && file_has(junit, "<testsuites") &&
			  file_has(html, "<h1 class=\"ship\">SHIP</h1>") &&
			  file_has(tapf, "TAP version 13") &&
			  file_has(jsonf, "\"decision\": \"ship\""),
		  "cmd: every output file written");
	TAP_CHECK_EQ(cmd("-b", good, "--format", "junit", "-o", out, fail, NULL), 1,
		     "cmd: failing candidate: exit 1");
	TAP_CHECK(file_has(out, "<failure type=\"invariant-failure\""),
		  "cmd: --format junit --output");
	TAP_CHECK_EQ(cmd("-b", good, "-o", out, trunc, NULL), 2, "cmd: truncated file: exit 2");
	TAP_CHECK_EQ(cmd("-b", good, "-o", out, missing, NULL), 2, "cmd: unreadable file: exit 2");
	TAP_CHECK_EQ(cmd("-b", good, "-o", out, tmpdir, NULL), 2, "cmd: a directory: exit 2");
	TAP_CHECK_EQ(cmd("-b", good, "--policy", badpol, "-o", out, good, NULL), 2,
		     "cmd: unknown policy key: exit 2");
	TAP_CHECK_EQ(cmd("-b", good, "--policy", pol, "-o", out, good, NULL), 0,
		     "cmd: valid policy: exit 0");
	TAP_CHECK_EQ(cmd("-b", good, "--format", "xml", good, NULL), 2, "cmd: unknown format: 2");
	TAP_CHECK_EQ(cmd("-b", good, NULL), 2, "cmd: no candidate: exit 2");
	TAP_CHECK_EQ(cmd("-o", out, good, NULL), 2, "cmd: no baseline at all: exit 2");
	TAP_CHECK_EQ(cmd("-b", good, "-o", "/nonexistent-dir/x", good, NULL), 2,
		     "cmd: unwritable output: exit 2, never a silent pass");

	unlink(good);
	unlink(fail);
	unlink(trunc);
	unlink(pol);
	unlink(badpol);
	unlink(out);
	unlink(junit);
	unlink(html);
	unlink(tapf);
	unlink(jsonf);
	free(good);
	free(fail);
	free(trunc);
	free(pol);
	free(badpol);
	free(out);
	free(junit);
	free(html);
	free(tapf);
	free(jsonf);
	free(missing);
	free(good_js);
	free(bad_js);
}

int main(void)
{
	tap_plan(0);
	if (!mkdtemp(tmpdir)) {
		tap_diag("mkdtemp: %s", strerror(errno));
		return TAP_EXIT_FAIL;
	}
	test_invariant();
	test_coverage();
	test_batching();
	test_perf();
	test_groups();
	test_bad_reports();
	test_policy();
	test_outputs();
	test_command();
	rmdir(tmpdir);
	return tap_finish();
}
