// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of per-scenario results: oracle verdicts merged as `ptecheck
 * run` merges them (pc_run_merge_verdict), the variants' model
 * (report/variant.c) and what the writers give of them.  Many scenarios
 * with long words judge one check: none vanishes from -v text, TAP or
 * JSON, and the check's own line is short and never cut inside a word;
 * --stress rounds stay coherent; prove reads the TAP; the JSON validates
 * against docs/report-schema.json.
 * Prints kselftest-style TAP; exits 0 if all passed.
 */
#define _GNU_SOURCE
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "gate.h"
#include "render.h"
#include "run.h"
#include "tap.h"

#define N_SCEN	  30
#define FAILING	  7 /* s07 fails */
#define SKIPPED_A 3 /* s03 and s20 do not run */
#define SKIPPED_B 20
#define MARK	  "... (each scenario: -v, JSON)"
#define WORDS	  200 /* an oracle's summary, with its NUL */

static void verdict(struct pc_report *r, const char *scenario, enum pc_status st, __u64 checked,
		    __u64 violations, const char *summary)
{
	struct pc_oracle_msg m = {.check = PC_CHK_MOVED,
				  .status = st,
				  .pid = 42,
				  .checked = checked,
				  .violations = violations};

	snprintf(m.tier, sizeof(m.tier), "oracle:pagemap");
	snprintf(m.scenario, sizeof(m.scenario), "%s", scenario);
	snprintf(m.summary, sizeof(m.summary), "%s", summary);
	pc_run_merge_verdict(r, &m);
}

/* Scenario i's words: as long as an oracle's can be, an address near the end. */
static void words(int i, char *buf)
{
	const size_t sz = WORDS;
	int n = snprintf(buf, sz,
			 "256 slots 0x7f9e7e4%05x->0x7f9e7e840000, 256 present at entry: %d "
			 "violations; old range: 0 of 256 still mapped; large folios seen",
			 i, i == FAILING ? 2 : 0);

	while (n + 6 < (int)sz - 1)
		n += snprintf(buf + n, sz - n, " word%d", i % 10);
	snprintf(buf + n, sz - n, " 0x%x", 0xabc0 + i);
}

static void reason(int i, char *buf)
{
	const size_t sz = WORDS;
	snprintf(buf, sz, "scenario %d cannot run here: no ext4 scratch filesystem (losetup: %s)",
		 i, i == SKIPPED_A ? "no loop device" : "permission denied");
}

static enum pc_status status_of(int i)
{
	if (i == FAILING)
		return PC_STATUS_FAIL;
	return i == SKIPPED_A || i == SKIPPED_B ? PC_STATUS_SKIP : PC_STATUS_PASS;
}

static struct pc_report *many_scenarios(void)
{
	struct pc_report *r = pc_report_new("run", "mremap");
	char name[16], text[WORDS];

	for (int i = 0; i < N_SCEN; i++) {
		enum pc_status st = status_of(i);

		snprintf(name, sizeof(name), "s%02d", i);
		if (st == PC_STATUS_SKIP)
			reason(i, text);
		else
			words(i, text);
		verdict(r, name, st, st == PC_STATUS_SKIP ? 0 : 256, i == FAILING ? 2 : 0, text);
	}
	return r;
}

/* summary is full, or full cut at a boundary and marked where the whole is. */
static bool whole_or_cut_well(const char *summary, const char *full)
{
	size_t n = strlen(summary), keep = n > strlen(MARK) ? n - strlen(MARK) : 0;

	if (!strcmp(summary, full))
		return true;
	if (!keep || strcmp(summary + keep, MARK) || strncmp(summary, full, keep) ||
	    !strchr(" ,;:", full[keep])) {
		tap_diag("'%s' is not '%s' cut at a boundary", summary, full);
		return false;
	}
	return true;
}

/* The check's line: short and true, cut (if at all) at a boundary and marked. */
static void check_summary(const struct pc_result *res)
{
	char full[1024], text[WORDS];

	words(FAILING, text);
	snprintf(full, sizeof(full),
		 "judged by 28 scenarios: 7168 checked, 2 violations; 2 not run; first failure, "
		 "s07: %s",
		 text);
	TAP_CHECK(res->status == PC_STATUS_FAIL && res->checked == 28 * 256 && res->violations == 2,
		  "the check fails with every scenario's counts");
	TAP_CHECK(strlen(res->summary) < sizeof(res->summary) &&
			  whole_or_cut_well(res->summary, full),
		  "its line: how many judged what, the first failure's words: '%.80s...'",
		  res->summary);
}

/* A line that cannot hold the first failure's words whole: cut at a word, marked. */
static void test_cut_summary(void)
{
	static const char name[] = "a-scenario-name-of-31-bytes-xyz";
	struct pc_report *r = pc_report_new("run", "mremap");
	char text[WORDS], full[1024];
	const char *sum;

	words(FAILING, text);
	verdict(r, name, PC_STATUS_FAIL, 1000000000000000000ULL, 1000000000000000000ULL, text);
	sum = r->results[0].summary;
	snprintf(full, sizeof(full),
		 "judged by 1 scenario: 1000000000000000000 checked, 1000000000000000000 "
		 "violations; first failure, %s: %s",
		 name, text);
	TAP_CHECK(strlen(full) >= sizeof(r->results[0].summary) && strcmp(sum, full) &&
			  whole_or_cut_well(sum, full),
		  "too long a line is cut at a word's end and marked: '...%s'",
		  sum + strlen(sum) - 40);
	pc_report_free(r);
}

/* -v text: one line per scenario, each whole; without -v, what ran and what not. */
static void check_text(struct pc_report *r)
{
	char line[512], text[WORDS];
	bool all = true;
	char *s;
	int ret;

	r->verbose = true;
	s = render(r, PC_FORMAT_TEXT, &ret);
	for (int i = 0; s && i < N_SCEN; i++) {
		enum pc_status st = status_of(i);

		if (st == PC_STATUS_SKIP)
			reason(i, text);
		else
			words(i, text);
		snprintf(line, sizeof(line), "      %-4s  s%02d: %s", pc_status_name(st), i, text);
		if (!has_line(s, line)) {
			tap_diag("missing: %s", line);
			all = false;
		}
	}
	TAP_CHECK(s && !ret && all, "-v text: each of %d scenarios on its own line, whole", N_SCEN);
	TAP_CHECK(s && !strstr(s, "variants run:"), "-v text: no variants lines besides");
	free(s);
	r->verbose = false;
	s = render(r, PC_FORMAT_TEXT, &ret);
	TAP_CHECK(s && strstr(s, "      variants run: 28 of 30: s00, s01, s02, s04,") &&
			  strstr(s, "      not run: s20: scenario 20 cannot run here") &&
			  !strstr(s, "      pass  s00"),
		  "text: the short line, then what ran and what did not");
	free(s);
}

static void write_file(const char *path, const char *s)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(s, f);
		fclose(f);
	}
}

/* prove (Debian's perl) on TAP written to a file: its exit status, -1 without prove. */
static int prove(const char *tap)
{
	char path[] = "/tmp/test_scenarios.XXXXXX", cmd[256];
	int fd, st;

	if (system("command -v prove >/dev/null") != 0)
		return -1;
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	close(fd);
	write_file(path, tap);
	snprintf(cmd, sizeof(cmd), "prove -e cat %s >/dev/null 2>&1", path);
	st = system(cmd);
	unlink(path);
	return st;
}

/* -v TAP: the scenarios as a subtest of their check, before its test point. */
static void check_tap(struct pc_report *r)
{
	char line[512], text[WORDS];
	char *s;
	int ret, st;

	r->verbose = true;
	s = render(r, PC_FORMAT_TAP, &ret);
	words(0, text);
	snprintf(line, sizeof(line), "    ok 1 - s00: %s", text);
	TAP_CHECK(s && has_line(s, "    # Subtest: mremap/moved [oracle:pagemap]") &&
			  has_line(s, "    1..30") && has_line(s, line) &&
			  has_line_prefix(s, "    not ok 8 - s07: 256 slots") &&
			  has_line(s, "    ok 4 - s03 # SKIP scenario 3 cannot run here: no ext4 "
				      "scratch filesystem (losetup: no loop device)"),
		  "-v TAP: a subtest, its plan first, a point per scenario");
	TAP_CHECK(s && strstr(s, "    ok 30 - s29: ") &&
			  strstr(s, "    ok 30 - s29: ") < strstr(s, "\nnot ok 1 mremap/moved"),
		  "-v TAP: the subtest before its check's test point");
	st = s ? prove(s) : 0;
	if (st < 0)
		tap_skip("prove not installed (Debian's perl)");
	else
		TAP_CHECK(st != 0, "prove reads the subtests, and the check's failure fails it");
	free(s);
	r->results[0].status = PC_STATUS_PASS;
	r->results[0].variants[FAILING].status = PC_STATUS_PASS;
	s = render(r, PC_FORMAT_TAP, &ret);
	st = s ? prove(s) : -1;
	if (st >= 0)
		TAP_CHECK(st == 0, "prove passes the same TAP once every scenario passed");
	free(s);
	r->results[0].status = PC_STATUS_FAIL;
	r->results[0].variants[FAILING].status = PC_STATUS_FAIL;
	r->verbose = false;
}

/* JSON: a scenarios array per result, each whole; the gate reads it back. */
static void check_json(struct pc_report *r)
{
	struct pc_report *back = NULL;
	char text[WORDS], err[256];
	json_t *root, *sc;
	bool all = true;
	char *s;
	int ret, valid;

	s = render(r, PC_FORMAT_JSON, &ret);
	root = s ? json_loads(s, 0, NULL) : NULL;
	sc = json_object_get(json_array_get(json_object_get(root, "results"), 0), "scenarios");
	TAP_CHECK(json_array_size(sc) == N_SCEN, "JSON: %zu scenarios of %d", json_array_size(sc),
		  N_SCEN);
	for (int i = 0; i < (int)json_array_size(sc); i++) {
		json_t *o = json_array_get(sc, i);
		enum pc_status st = status_of(i);
		const char *key = st == PC_STATUS_SKIP ? "reason" : "summary";

		if (st == PC_STATUS_SKIP)
			reason(i, text);
		else
			words(i, text);
		if (!json_is_string(json_object_get(o, key)) ||
		    strcmp(json_string_value(json_object_get(o, key)), text) ||
		    strcmp(json_string_value(json_object_get(o, "status")), pc_status_name(st)) ||
		    json_integer_value(json_object_get(o, "checked")) !=
			    (st == PC_STATUS_SKIP ? 0 : 256) ||
		    json_integer_value(json_object_get(o, "rounds")) != 1) {
			char *d = json_dumps(o, JSON_COMPACT);

			tap_diag("scenario %d: %s", i, d ? d : "?");
			free(d);
			all = false;
		}
	}
	TAP_CHECK(all, "JSON: each scenario's status, counts and whole words");
	json_decref(root);
	TAP_CHECK(s && pc_gate_report_parse(s, strlen(s), false, &back, err, sizeof(err)) == 0 &&
			  pc_result_n_variants(&back->results[0]) == N_SCEN,
		  "the gate reads it, every variant kept");
	pc_report_free(back);
	valid = s ? schema_check(s, __FILE__) : 1;
	if (valid < 0)
		tap_skip("python3-jsonschema not installed, or the tree unknown");
	else
		TAP_CHECK(valid == 0, "JSON validates against docs/report-schema.json");
	free(s);
}

/* --stress: one scenario judged in several rounds stays one, coherent. */
static void test_rounds(void)
{
	struct pc_report *r = pc_report_new("run", "mremap");
	const struct pc_variant *v, *w;
	char *s;
	int ret;

	verdict(r, "anon-64k", PC_STATUS_PASS, 256, 0, "round 1: 256 compared");
	/* A round that gave up after comparing some judged nothing: its
	   counts are neither the scenario's nor the check's. */
	verdict(r, "anon-4k", PC_STATUS_SKIP, 30, 0, "probe inconclusive");
	verdict(r, "anon-64k", PC_STATUS_FAIL, 256, 1, "round 2: PFN changed at 0x7f0000001000");
	verdict(r, "anon-64k", PC_STATUS_PASS, 256, 0, "round 3: 256 compared");
	verdict(r, "anon-4k", PC_STATUS_PASS, 128, 0, "round 2: 128 compared");
	v = pc_result_find_variant(&r->results[0], "anon-64k");
	w = pc_result_find_variant(&r->results[0], "anon-4k");
	TAP_CHECK(v && v->status == PC_STATUS_FAIL && v->rounds == 3 && v->judged == 3 &&
			  v->checked == 768 && v->violations == 1 &&
			  !strcmp(v->summary, "round 2: PFN changed at 0x7f0000001000"),
		  "rounds: fail over pass, counts summed, the failing round's words");
	TAP_CHECK(w && w->status == PC_STATUS_PASS && w->rounds == 2 && w->judged == 1 &&
			  !w->why[0] && !strcmp(w->summary, "round 2: 128 compared"),
		  "rounds: one that ran once is run, its skip reason dropped");
	TAP_CHECK(!strcmp(r->results[0].summary,
			  "judged by 2 scenarios: 896 checked, 1 violation; first failure, "
			  "anon-64k: round 2: PFN changed at 0x7f0000001000"),
		  "rounds: the check's line: '%s'", r->results[0].summary);
	r->verbose = true;
	s = render(r, PC_FORMAT_TEXT, &ret);
	TAP_CHECK(
		s &&
			has_line(s, "      fail  anon-64k: judged in 3 of 3 rounds, 768 checked, 1 "
				    "violation; first failing round: round 2: PFN changed at "
				    "0x7f0000001000") &&
			has_line(s, "      pass  anon-4k: judged in 1 of 2 rounds, 128 checked, 0 "
				    "violations; first round: round 2: 128 compared"),
		"-v text: how many rounds judged each");
	free(s);
	pc_report_free(r);
}

/* None ran: the reason, once when all agree. */
static void test_not_run(void)
{
	struct pc_report *r = pc_report_new("run", "mremap");
	struct pc_result *res = pc_report_add_result(r, "mremap/moved", "oracle:pagemap", false);

	pc_result_add_variant(res, "a", PC_STATUS_SKIP, "no mTHP", 0, 0);
	pc_result_summarize_variants(res);
	TAP_CHECK(!strcmp(res->summary, "not run (a): no mTHP"), "one not run: '%s'", res->summary);
	pc_result_add_variant(res, "b", PC_STATUS_SKIP, "no mTHP", 0, 0);
	pc_result_summarize_variants(res);
	TAP_CHECK(!strcmp(res->summary, "not run in 2 scenarios: no mTHP"),
		  "all not run for one reason: '%s'", res->summary);
	pc_result_add_variant(res, "c", PC_STATUS_SKIP, "no swap", 0, 0);
	pc_result_summarize_variants(res);
	TAP_CHECK(!strcmp(res->summary, "not run in 3 scenarios; first, a: no mTHP"),
		  "not run for several reasons: '%s'", res->summary);
	pc_report_free(r);
}

/* Text cut to fit: at a space or a character, marked. */
static void test_fit(void)
{
	struct pc_result res = {0};
	char buf[24], big[600];
	struct pc_report *r;

	TAP_CHECK(!pc_text_fit(buf, sizeof(buf), "short enough", "") &&
			  !strcmp(buf, "short enough"),
		  "fit: what fits is copied");
	TAP_CHECK(pc_text_fit(buf, sizeof(buf), "moved at 0x7f9e7e480000 then", "") &&
			  !strcmp(buf, "moved at..."),
		  "fit: an address is dropped whole, not cut to look real: '%s'", buf);
	TAP_CHECK(
		pc_text_fit(
			buf, sizeof(buf),
			"x\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9",
			"") &&
			!strcmp(buf, "x\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9..."),
		"fit: one long word is cut between characters: '%s'", buf);
	memset(big, 'x', sizeof(big));
	memcpy(big + 305, " 0x7f9e7e480000 tail", 20);
	big[sizeof(big) - 1] = 0;
	pc_result_set(&res, PC_STATUS_PASS, "%s", big);
	TAP_CHECK(strlen(res.summary) == 308 && !strcmp(res.summary + 305, "..."),
		  "a result's summary too long is cut at a space and marked");
	pc_result_add_evidence(&res, 1, 0, 0, 0, 0, big + 150);
	TAP_CHECK(res.n_evidence == 1 && !strcmp(res.evidence[0].what + 155, "..."),
		  "evidence too long: cut at a space, marked");
	r = pc_report_new("run", "mremap");
	pc_report_note(r, "%s %s", big, big);
	TAP_CHECK(r->n_notes == 1 && strlen(r->notes[0]) == 323 &&
			  !strcmp(r->notes[0] + 305, " 0x7f9e7e480000..."),
		  "a note too long: cut at a space, marked");
	pc_report_free(r);
}

int main(void)
{
	struct pc_report *r;

	tap_plan(0);
	r = many_scenarios();
	TAP_CHECK(r->n_results == 1 && pc_result_n_variants(&r->results[0]) == N_SCEN &&
			  !r->n_notes,
		  "%d scenarios on one check: one result, every variant kept", N_SCEN);
	check_summary(&r->results[0]);
	check_text(r);
	check_tap(r);
	check_json(r);
	pc_report_free(r);
	test_cut_summary();
	test_rounds();
	test_not_run();
	test_fit();
	return tap_finish();
}
