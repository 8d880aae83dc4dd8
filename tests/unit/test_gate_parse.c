// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of `ptecheck gate`'s loaders (gate/input.c, parse.c,
 * policy.c) on good and bad input: the writer's report is accepted, each
 * kind of broken one (edited as JSON) is refused with a message naming the
 * field, and the policy's keys and defaults are as documented.
 * Prints kselftest-style TAP; exits 0 if all passed.
 */
#define _GNU_SOURCE
#include <jansson.h>
#include "gate_fixture.h"

/* ---- reports ----------------------------------------------------------------- */

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

static int version_to_set = PC_REPORT_SCHEMA_VERSION + 1;

static void set_schema_version(json_t *r)
{
	json_object_set_new(r, "schema_version", json_integer(version_to_set));
}
static void set_schema(json_t *r)
{
	json_object_set_new(r, "schema", json_string("ptecheck-features"));
}
#define ALL_SUITES "mremap,filemap,contpte,mprotect,zap,mlock,fork,madvise,reclaim"
static void all_suites(json_t *r)
{
	json_object_set_new(r, "suite", json_string(ALL_SUITES));
}
/* Every suite once and one more: 69 characters, past the report's 63. */
static void long_suite(json_t *r)
{
	json_object_set_new(r, "suite", json_string(ALL_SUITES ",mremap"));
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

	json_object_set_new(h, "id", json_string("x/batch"));
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
/* results[0] gets one in-kernel evidence whose stack is given by key, val. */
static void stack_evidence(json_t *r, const char *key, json_t *val)
{
	json_t *ev = json_pack("{s:i, s:s, s:s, s:s, s:s, s:s}", "pid", 1, "addr", "0x1",
			       "new_addr", "0x0", "expected", "0x0", "seen", "0x0", "what", "x");

	json_object_set_new(ev, key, val);
	json_object_set_new(json_array_get(json_object_get(r, "results"), 0), "evidence",
			    json_pack("[o]", ev));
}
static void frame_bad_addr(json_t *r)
{
	stack_evidence(r, "kernel_stack", json_pack("[{s:s}]", "addr", "ffffffff81000000"));
}
static void stack_errno_zero(json_t *r)
{
	stack_evidence(r, "kernel_stack_errno", json_integer(0));
}

/* A histogram of no events with batch labels ctx and src, appended to r. */
static void batch_hist(json_t *r, const char *ctx, const char *src)
{
	json_t *h = json_object(), *bt = json_object();

	json_object_set_new(h, "id", json_string("fork/batch/folio_pte_batch"));
	json_object_set_new(h, "name", json_string("fork PTEs per batch (folio_pte_batch)"));
	json_object_set_new(h, "unit", json_string("PTEs"));
	json_object_set_new(h, "source", json_string("s"));
	json_object_set_new(h, "in_kernel", json_true());
	json_object_set_new(h, "kind", json_string("linlog"));
	json_object_set_new(bt, "context", json_string(ctx));
	json_object_set_new(bt, "source", json_string(src));
	json_object_set_new(h, "batch", bt);
	json_object_set_new(h, "buckets", json_array());
	json_object_set_new(h, "total", json_integer(0));
	json_array_append_new(json_object_get(r, "histograms"), h);
}
static void batch_labels(json_t *r)
{
	batch_hist(r, "fork", "folio_pte_batch");
}
/* A title where the id goes: what a hand-edited report might carry. */
static void title_as_id(json_t *r)
{
	batch_hist(r, "fork", "folio_pte_batch");
	json_object_set_new(json_array_get(json_object_get(r, "histograms"), 0), "id",
			    json_string("fork PTEs per batch"));
}
/* A report of schema 7: no ids, which the loader derives from the titles. */
static void schema7_hists(json_t *r)
{
	json_t *hs;

	batch_hist(r, "madvise DONTNEED", "contpte_*clear_full_ptes");
	batch_hist(r, "x", "y");
	hs = json_object_get(r, "histograms");
	json_object_set_new(json_array_get(hs, 1), "name", json_string("mremap latency"));
	json_object_del(json_array_get(hs, 1), "batch");
	batch_hist(r, "x", "y");
	json_object_set_new(json_array_get(hs, 2), "name", json_string("Something, new"));
	json_object_del(json_array_get(hs, 2), "batch");
	for (size_t i = 0; i < json_array_size(hs); i++)
		json_object_del(json_array_get(hs, i), "id");
	json_object_set_new(r, "schema_version", json_integer(7));
}
static void batch_empty_context(json_t *r)
{
	batch_hist(r, "", "folio_pte_batch");
}

/* Each edit of a valid report, a part of the message refusing it, and what it is. */
static const struct {
	void (*fn)(json_t *root);
	const char *want, *what;
} edits[] = {
	{set_schema_version,
	 "schema_version 10 is not supported (this ptecheck reads schema_version 1 to 9)",
	 "other schema version"},
	{set_schema, "not a ptecheck report: schema \"ptecheck-features\"", "other schema name"},
	{long_suite, "suite: string too long (69 bytes, at most 63)", "a suite list past 63"},
	{set_command, "a report of `ptecheck watch`", "command watch"},
	{empty_results, "empty report: no results", "empty results"},
	{set_partial, "partial report", "partial"},
	{drop_kernel, "kernel: missing required field", "missing field"},
	{status_int, "results[0].status: expected a string, got an integer", "wrong type"},
	{negative_count, "results[1].checked: negative count -5", "negative count"},
	{bad_summary, "summary says", "summary disagrees with results"},
	{long_check, "results[0].check: string too long", "over-long check name"},
	{bad_bucket, "3..5 is not a log2 bucket", "bucket bounds of no slot"},
	{many_evidence, "9 items, at most 8", "more evidence than the schema allows"},
	{duration_string, "duration_s: expected a number", "duration as a string"},
	{frame_bad_addr, "results[0].evidence[0].kernel_stack[0].addr", "a frame address not hex"},
	{stack_errno_zero, "results[0].evidence[0].kernel_stack_errno: expected an errno",
	 "a stack errno of 0"},
	{batch_empty_context, "histograms[0].batch.context: empty", "a batch label empty"},
	{title_as_id, "histograms[0].id: \"fork PTEs per batch\" is no histogram id",
	 "a title where the id goes"},
};

static void test_bad_reports(void)
{
	struct pc_report *r = NULL;
	char err[PC_GATE_ERR_MAX] = "";
	char *js = edited(NULL), *cut;
	size_t i;
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

	for (i = 0; i < sizeof(edits) / sizeof(edits[0]); i++)
		expect_bad(edits[i].fn, edits[i].want, edits[i].what);

	js = edited(set_partial);
	TAP_CHECK(parse_text(js, true, err, sizeof(err)) == 0,
		  "partial accepted with allow_partial");
	free(js);
	js = edited(batch_labels);
	if (pc_gate_report_parse(js, strlen(js), false, &r, err, sizeof(err)) == 0) {
		TAP_CHECK(r->n_hists == 1 && !strcmp(r->hists[0].batch_ctx, "fork") &&
				  !strcmp(r->hists[0].batch_src, "folio_pte_batch"),
			  "a histogram's batch labels are read back");
	} else {
		tap_result(false, "a histogram's batch labels are read back");
		tap_diag("%s", err);
	}
	pc_report_free(r);
	r = NULL;
	free(js);
	js = edited(schema7_hists);
	r = NULL;
	err[0] = '\0';
	TAP_CHECK(
		!pc_gate_report_parse(js, strlen(js), false, &r, err, sizeof(err)) &&
			r->n_hists == 3 &&
			!strcmp(r->hists[0].id, "madvise-dontneed/batch/contpte_clear_full_ptes") &&
			!strcmp(r->hists[1].id, "mremap/latency") &&
			!strcmp(r->hists[2].id, "legacy/something-new"),
		"schema 7: ids from the batch labels, the titles of then, else legacy/%s", err);
	pc_report_free(r);
	r = NULL;
	free(js);
	/* Every suite named once: 62 characters, read whole. */
	js = edited(all_suites);
	r = NULL;
	err[0] = '\0';
	ret = pc_gate_report_parse(js, strlen(js), false, &r, err, sizeof(err));
	TAP_CHECK(!ret && !strcmp(r->suite, ALL_SUITES),
		  "a list of every suite as the report's suite, read whole (%s)",
		  ret ? err : r->suite);
	pc_report_free(r);
	r = NULL;
	free(js);
	/* Every version the gate ever read is still read; 3 added scenarios. */
	for (version_to_set = 1; version_to_set <= 3; version_to_set++) {
		js = edited(set_schema_version);
		err[0] = '\0';
		TAP_CHECK(parse_text(js, false, err, sizeof(err)) == 0,
			  "schema_version %d accepted%s%s", version_to_set, err[0] ? ": " : "",
			  err);
		free(js);
	}
	version_to_set = PC_REPORT_SCHEMA_VERSION + 1;
}

/* ---- the policy ------------------------------------------------------------- */

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
			   "\"allow_no_baseline\": true, \"batch_histograms\": [\"*/batch/*\"], "
			   "\"batch_noise_pct\": {\"*/batch/*\": 3.5}, \"noise_default_pct\": 7, "
			   "\"order_histograms\": [\"f/all\", \"f/full\"], \"order_noise_pp\": 4, "
			   "\"order_min_batches\": 50, \"batch_min_batches\": 20, "
			   "\"batch_share_noise_pp\": {\"fork/*/*\": 4.5}, "
			   "\"share_noise_default_pp\": 6, \"batch_sampling_sigmas\": 2.5, "
			   "\"latency_histogram\": \"mremap/latency\"}";
	int ret;

	pc_gate_policy_default(&p);
	TAP_CHECK(p.coverage_loss == PC_GATE_ACTION_FAIL &&
			  p.batching_regression == PC_GATE_ACTION_FAIL &&
			  p.performance_regression == PC_GATE_ACTION_FAIL &&
			  p.batching_tolerance_pct == 10 && p.perf_threshold_pct == 25 &&
			  p.perf_min_runs == 3 && !p.allow_partial && !p.allow_no_baseline &&
			  p.n_batch_names == 2 && p.order_min_batches == 20 &&
			  p.batch_min_batches == 10 && p.n_share_noise == 1 &&
			  pc_gate_share_noise_floor(&p, "madvise-dontneed/batch/x") == 50 &&
			  p.share_noise_default_pp == 10 && p.batch_sampling_sigmas == 3 &&
			  !strcmp(p.latency_histogram, "mremap/latency"),
		  "default policy as documented");
	TAP_CHECK(pc_gate_is_mean_hist(&p, "fork/batch/contpte_set_ptes") &&
			  pc_gate_is_mean_hist(&p, "madvise-free/batch/folio_pte_batch") &&
			  pc_gate_is_mean_hist(&p, "munmap/batch/derived") &&
			  pc_gate_is_batch_hist(&p, "khugepaged/batch/folio_pte_batch"),
		  "default judged histograms: every per-path batch histogram, kernel and derived");
	TAP_CHECK(!pc_gate_is_mean_hist(&p, "madvise-dontneed/batch/folio_pte_batch") &&
			  !pc_gate_is_mean_hist(&p, "madvise-dontneed/batch/derived") &&
			  !pc_gate_is_mean_hist(&p, "exit/batch/folio_pte_batch") &&
			  !pc_gate_is_mean_hist(&p, "exit/batch/derived"),
		  "but for madvise DONTNEED's and exit's, whose shape differs between boots of "
		  "one kernel");
	TAP_CHECK(pc_gate_is_mean_hist(&p, "mremap/batch") &&
			  !pc_gate_is_mean_hist(&p, "filemap/batch") &&
			  !pc_gate_is_batch_hist(&p, "legacy/folio_pte_batch-nr-outside-mremap") &&
			  !pc_gate_is_batch_hist(&p, "mremap/latency"),
		  "default mean-judged histograms: mremap's, not fault-around's raw mean nor "
		  "folio_pte_batch()");
	TAP_CHECK(pc_gate_is_batch_hist(&p, "filemap/large-order") &&
			  pc_gate_is_batch_hist(&p, "filemap/full-order") &&
			  !pc_gate_is_mean_hist(&p, "filemap/large-order"),
		  "fault-around batches are judged per folio order, not by their mean");
	TAP_CHECK(pc_gate_noise_floor(&p, "mremap/batch") > 0 &&
			  pc_gate_noise_floor(&p, "mremap/batch") < p.batching_tolerance_pct &&
			  pc_gate_noise_floor(&p, "mremap/batch/contpte_set_ptes") ==
				  pc_gate_noise_floor(&p, "mremap/batch") &&
			  pc_gate_noise_floor(&p, "mremap/batch/folio_pte_batch") ==
				  p.noise_default_pct &&
			  pc_gate_noise_floor(&p, "something/new") == p.noise_default_pct,
		  "noise floors: measured for mremap's batches, the default for others");
	ret = pc_gate_policy_parse(&p, full, strlen(full), err, sizeof(err));
	TAP_CHECK(ret == 0 && p.coverage_loss == PC_GATE_ACTION_FAIL && p.perf_min_runs == 5 &&
			  p.perf_threshold_pct == 50.5 && p.n_batch_names == 1 && p.allow_partial &&
			  p.n_noise == 1 && p.noise[0].pct == 3.5 && p.noise_default_pct == 7 &&
			  !strcmp(p.order_all, "f/all") && !strcmp(p.order_full, "f/full") &&
			  p.order_noise_pp == 4 && p.order_min_batches == 50 &&
			  p.batch_min_batches == 20 && p.n_share_noise == 1 &&
			  pc_gate_share_noise_floor(&p, "fork/batch/x") == 4.5 &&
			  pc_gate_share_noise_floor(&p, "munmap/batch/x") == 6 &&
			  p.batch_sampling_sigmas == 2.5 &&
			  pc_gate_is_mean_hist(&p, "madvise-dontneed/batch/x") &&
			  pc_gate_is_mean_hist(&p, "exit/batch/x") &&
			  !pc_gate_is_mean_hist(&p, "mremap/batch"),
		  "every policy key parses (batch_histograms judges what it names)");
	ret = pol_parse(&p, "{\"batch_histograms\": [\"PTEs per batch\"]}", err, sizeof(err));
	TAP_CHECK(ret == -1 && strstr(err, "\"PTEs per batch\" is no histogram id") &&
			  strstr(err, "batch_histograms"),
		  "a title where an id goes (a policy of before schema 8) is refused, naming the "
		  "key");
	ret = pol_parse(&p, "{\"latency_histogram\": \"mremap latency\"}", err, sizeof(err));
	TAP_CHECK(ret == -1 && strstr(err, "latency_histogram"),
		  "latency_histogram names an id too");
	ret = pol_parse(&p, "{\"order_histograms\": []}", err, sizeof(err));
	TAP_CHECK(ret == 0 && !p.order_all[0] && !pc_gate_is_batch_hist(&p, "filemap/large-order"),
		  "order_histograms [] turns the per-order judgement off");
	ret = pol_parse(&p, "{\"order_histograms\": [\"f/all\"]}", err, sizeof(err));
	TAP_CHECK(ret == -1 && strstr(err, "order_histograms"),
		  "order_histograms with one name is refused, naming the key");
	ret = pol_parse(&p, "{\"batch_noise_pct\": {\"x/y\": -1}}", err, sizeof(err));
	TAP_CHECK(ret == -1 && strstr(err, "batch_noise_pct"),
		  "a negative noise floor is refused, naming the key");
	ret = pol_parse(&p, "{\"batch_share_noise_pp\": {\"x/y\": 101}}", err, sizeof(err));
	TAP_CHECK(ret == -1 && strstr(err, "\"batch_share_noise_pp\": 101 out of range [0, 100]"),
		  "a share floor over 100 points is refused, naming the key");
	ret = pol_parse(&p, "{\"batch_sampling_sigmas\": 11}", err, sizeof(err));
	TAP_CHECK(ret == -1 && strstr(err, "batch_sampling_sigmas"),
		  "batch_sampling_sigmas over 10 is refused, naming the key");
	ret = pol_parse(&p, "{\"batch_min_batches\": 0}", err, sizeof(err));
	TAP_CHECK(ret == -1 && strstr(err, "batch_min_batches"),
		  "batch_min_batches 0 is refused, naming the key");
	pc_gate_policy_default(&p);
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
	ret = pol_parse(&p, "{\"coverage_loss\": \"report\"", err, sizeof(err));
	TAP_CHECK(ret == -1 && strstr(err, "truncated"), "truncated policy");
	TAP_CHECK(p.coverage_loss == PC_GATE_ACTION_FAIL, "a refused policy changes nothing");
}

int main(void)
{
	tap_plan(0);
	test_bad_reports();
	test_policy();
	return tap_finish();
}
