// SPDX-License-Identifier: GPL-2.0
/*
 * The batching rule compares like with like (gate/like.c): a scenario
 * that judged on one side only is left out of both sides' sums and named,
 * so a candidate whose big-batch scenario skipped is no "batching
 * regressed" (the wolf cry of run-wide sums), while a real regression in
 * a scenario both ran still fails.  Reports without per-scenario
 * histograms are judged run-wide only when both sides judged the same
 * scenarios.  And --noise measures the same sums the rule compares.
 */
#include "gate_fixture.h"

#define HIST	"fork PTEs per batch (folio_pte_batch)"
#define HIST_ID "fork/batch/folio_pte_batch"

/* A scenario: its name, whether it judged, and its batches: n of size k. */
struct scen {
	const char *name;
	bool judged;
	int k;
	__u64 n;
};

/* A run of suite "fork" whose scenarios are sc[n]: a variant each in
   fork/cow, the run-wide histogram their sum; with_scens: and each one's
   histogram (schema 7). */
static struct pc_report *run_of(const struct scen *sc, int n, bool with_scens)
{
	struct pc_report *r = mk("x86_64", "fork", 1);
	struct pc_result *res = pc_report_add_result(r, "fork/cow", "oracle:cow", false);
	struct pc_hist_report *h = pc_report_add_hist(
		r, HIST_ID, HIST, "PTEs", "kernel: folio_pte_batch", true, PC_HIST_LINLOG);

	pc_report_hist_batch(h, "fork", "folio_pte_batch");
	for (int i = 0; i < n; i++) {
		struct pc_hist_report one = *h;

		pc_result_add_variant(res, sc[i].name,
				      sc[i].judged ? PC_STATUS_PASS : PC_STATUS_SKIP,
				      sc[i].judged ? "judged" : "no large folios", 1, 0);
		h->slots[sc[i].k] += sc[i].n;
		if (!with_scens)
			continue;
		memset(one.slots, 0, sizeof(one.slots));
		one.slots[sc[i].k] = sc[i].n;
		pc_report_scenario(r, "fork", sc[i].name, true)->judged = sc[i].judged;
		if (sc[i].n)
			pc_scenario_hists_add(pc_report_scenario(r, "fork", sc[i].name, false),
					      &one);
	}
	res->status = PC_STATUS_PASS;
	pc_result_summarize_variants(res);
	return r;
}

/* The batching rule's result (an empty one when the gate did not run). */
static const struct pc_gate_rule_result *batching(struct gate *g)
{
	static const struct pc_gate_rule_result none = {.verdict = PC_GATE_PASS};

	return g->res ? &g->res->groups[0].rules[PC_GATE_RULE_BATCHING] : &none;
}

/* Does a finding of rr contain text? */
static bool said(const struct pc_gate_rule_result *rr, const char *text)
{
	for (int i = 0; i < rr->n_findings; i++)
		if (strstr(rr->findings[i].text, text))
			return true;
	return rr->not_judged && strstr(rr->not_judged, text);
}

static void test_skipped_scenario(void)
{
	const struct scen base[] = {{"big", true, 16, 100}, {"small", true, 1, 100}};
	const struct scen cand[] = {{"big", false, 16, 0}, {"small", true, 1, 100}};
	struct gate g;

	/* Run-wide, the mean drops 8.5 -> 1.0: a wolf cry on a healthy kernel. */
	gate_init(&g);
	g.in.policy.coverage_loss = PC_GATE_ACTION_REPORT;
	add_base(&g, run_of(base, 2, true));
	add_cand(&g, run_of(cand, 2, true));
	TAP_CHECK(gate_run(&g) == 0 && batching(&g)->verdict == PC_GATE_PASS && g.res->ship,
		  "a scenario skipped in the candidate: no batching regression (like with like)");
	TAP_CHECK(said(batching(&g), "summed over the 1 scenarios judged in every run") &&
			  said(batching(&g), "1 in the baseline (fork/big)"),
		  "the rule says what it compared and names the scenario left out");
	gate_free(&g);

	/* The same reports without per-scenario histograms: not judged. */
	gate_init(&g);
	g.in.policy.coverage_loss = PC_GATE_ACTION_REPORT;
	add_base(&g, run_of(base, 2, false));
	add_cand(&g, run_of(cand, 2, false));
	TAP_CHECK(gate_run(&g) == 0 && batching(&g)->verdict == PC_GATE_NOT_JUDGED &&
			  said(batching(&g), "judged different scenarios (only in the baseline: "
					     "big; only in the candidate: none)"),
		  "without per-scenario histograms, a different mix is not judged, named (%s)",
		  batching(&g)->not_judged ? batching(&g)->not_judged : "");
	gate_free(&g);
}

static void test_real_regression(void)
{
	const struct scen base[] = {{"big", true, 16, 100}, {"small", true, 1, 100}};
	const struct scen cand[] = {{"big", true, 8, 100}, {"small", true, 1, 100}};
	const struct scen cand_gone[] = {
		{"big", true, 8, 100}, {"small", true, 1, 100}, {"new", true, 16, 50}};
	struct gate g;

	gate_init(&g);
	add_base(&g, run_of(base, 2, true));
	add_cand(&g, run_of(cand, 2, true));
	TAP_CHECK(gate_run(&g) == 0 && batching(&g)->verdict == PC_GATE_FAIL && !g.res->ship &&
			  said(batching(&g), "batching regressed: " HIST " mean 8.5 -> 4.5"),
		  "batches of 16 -> 8 in a scenario both ran: still a regression");
	gate_free(&g);

	/* A scenario only the candidate ran (a newer ptecheck) does not hide it. */
	gate_init(&g);
	add_base(&g, run_of(base, 2, true));
	add_cand(&g, run_of(cand_gone, 3, true));
	TAP_CHECK(gate_run(&g) == 0 && batching(&g)->verdict == PC_GATE_FAIL &&
			  said(batching(&g), "1 in the candidate (fork/new)") &&
			  said(batching(&g), "mean 8.5 -> 4.5"),
		  "a candidate-only scenario is left out, the regression still found");
	gate_free(&g);

	gate_init(&g);
	add_base(&g, run_of(base, 2, false));
	add_cand(&g, run_of(cand, 2, false));
	TAP_CHECK(gate_run(&g) == 0 && batching(&g)->verdict == PC_GATE_FAIL &&
			  said(batching(&g), "run-wide histograms"),
		  "without per-scenario histograms and the same mix: judged run-wide, said so");
	gate_free(&g);
}

static void test_nothing_common(void)
{
	const struct scen base[] = {{"big", true, 16, 100}};
	const struct scen cand[] = {{"big", false, 16, 0}};
	struct gate g;

	gate_init(&g);
	g.in.policy.coverage_loss = PC_GATE_ACTION_REPORT;
	add_base(&g, run_of(base, 1, true));
	add_cand(&g, run_of(cand, 1, true));
	TAP_CHECK(gate_run(&g) == 0 && batching(&g)->verdict == PC_GATE_NOT_JUDGED &&
			  said(batching(&g), "no scenario judged a check in every run of both"),
		  "no scenario judged on both sides: not judged");
	gate_free(&g);
}

/* --noise measures the sums the rule compares: a scenario that judged in
   one run only is out of them, so its events are no spread. */
static void test_noise(void)
{
	const struct scen one[] = {{"big", true, 16, 100}, {"flaky", true, 1, 300}};
	const struct scen two[] = {{"big", true, 16, 100}, {"flaky", false, 1, 0}};
	struct gate g;
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	int rc;

	gate_init(&g);
	add_cand(&g, run_of(one, 2, true));
	add_cand(&g, run_of(two, 2, true));
	g.in.cand = g.cand;
	g.in.cand_files = g.cf;
	rc = pc_gate_noise(&g.in, out, g.err, sizeof(g.err));
	fclose(out);
	TAP_CHECK(rc == 0 && strstr(buf, "like with like: the 1 scenarios judged in every run") &&
			  strstr(buf, "spread   0.00%"),
		  "--noise over the common scenarios: no spread from the flaky one");
	free(buf);
	gate_free(&g);
}

/* The gate's loader refuses scenario histograms it cannot place. */
static void test_parse(void)
{
	static const struct {
		const char *from, *to, *want;
	} edits[] = {
		{"\"id\": \"" HIST_ID "\",\n          \"kind\"",
		 "\"id\": \"nope\",\n          \"kind\"", "is none of the report's histograms"},
		{"\"kind\": \"linlog\",\n          \"buckets\"",
		 "\"kind\": \"log2\",\n          \"buckets\"", "\"log2\", but the histogram"},
		{"[\n              16,", "[\n              33,",
		 "no bucket of a linlog histogram starts at 33"},
	};
	const struct scen sc[] = {{"big", true, 16, 100}};
	struct pc_report *r = run_of(sc, 1, true), *out;
	char *js = to_json(r), err[PC_GATE_ERR_MAX];

	TAP_CHECK(js && !pc_gate_report_parse(js, strlen(js), false, &out, err, sizeof(err)) &&
			  out->n_scens == 1 && out->scens[0].judged &&
			  pc_scenario_hist(&out->scens[0], HIST_ID)->slots[16] == 100,
		  "scenario histograms read back whole");
	if (out)
		pc_report_free(out);
	for (size_t i = 0; js && i < sizeof(edits) / sizeof(edits[0]); i++) {
		char *p = strstr(js, edits[i].from), *bad;

		if (!p) {
			TAP_CHECK(false, "edit %zu: '%s' not in the JSON", i, edits[i].from);
			continue;
		}
		bad = malloc(strlen(js) + strlen(edits[i].to) + 1);
		sprintf(bad, "%.*s%s%s", (int)(p - js), js, edits[i].to, p + strlen(edits[i].from));
		out = NULL;
		TAP_CHECK(pc_gate_report_parse(bad, strlen(bad), false, &out, err, sizeof(err)) &&
				  strstr(err, edits[i].want),
			  "refused: %s (%s)", edits[i].want, err);
		pc_report_free(out);
		free(bad);
	}
	free(js);
	pc_report_free(r);
}

int main(void)
{
	tap_plan(0);
	test_skipped_scenario();
	test_real_regression();
	test_nothing_common();
	test_noise();
	test_parse();
	return tap_finish();
}
