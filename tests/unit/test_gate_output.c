// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of `ptecheck gate`'s outputs (gate/output*.c) and command
 * (gate/gate.c): the five formats carry the decision and every rule, with
 * untrusted text escaped, and the command's exit codes and output files.
 * Prints kselftest-style TAP; exits 0 if all passed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <unistd.h>
#include <jansson.h>
#include "gate_fixture.h"

static char tmpdir[] = "/tmp/test_gate_output.XXXXXX";

/* ---- outputs ---------------------------------------------------------------- */

static void test_outputs(void)
{
	struct gate g;
	char *s;
	const char *batch, *latency;
	json_t *root;

	if (gate_noship(&g)) {
		tap_skip("no result to render");
		gate_free(&g);
		return;
	}

	s = render_gate(g.res, PC_GATE_FMT_TEXT);
	TAP_CHECK(s && !strncmp(s, "DO NOT SHIP\n", 12), "text: decision first");
	TAP_CHECK(s && strstr(s, "FAIL        invariant-failure") &&
			  strstr(s, "FAIL        batching-regression") &&
			  strstr(s, "coverage-loss") && strstr(s, "performance-regression"),
		  "text: every rule named");
	TAP_CHECK(s && !strstr(s, "\nok 99"), "text: a newline in a summary makes no line");
	free(s);

	s = render_gate(g.res, PC_GATE_FMT_TAP);
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

	s = render_gate(g.res, PC_GATE_FMT_JUNIT);
	TAP_CHECK(s && strstr(s, "<testsuites name=\"ptecheck gate: DO NOT SHIP\" tests=\"7\" "
				 "failures=\"3\" errors=\"0\">"),
		  "junit: totals of 4 rules and 3 checks, no skipped (Jenkins xUnit refuses it)");
	TAP_CHECK(s &&
			  strstr(s,
				 "<testsuite name=\"ptecheck gate aarch64 suite mremap scale 1\" "
				 "tests=\"4\" failures=\"2\" errors=\"0\" skipped=\"1\">") &&
			  strstr(s,
				 "<testsuite name=\"ptecheck gate aarch64 suite mremap scale 1: "
				 "checks\" tests=\"3\" failures=\"1\" errors=\"0\" skipped=\"1\">"),
		  "junit: a testsuite of the rules and one of the checks, each with its counts");
	TAP_CHECK(s && strstr(s, "<failure type=\"invariant-failure\" message=\"") &&
			  strstr(s, "<skipped message=\"not judged: need"),
		  "junit: failure and skipped elements");
	TAP_CHECK(
		s &&
			strstr(s,
			       "<testcase classname=\"ptecheck.gate.aarch64.mremap.scale1.checks\" "
			       "name=\"mremap/moved [oracle:pagemap]\" time=\"0\">\n"
			       "      <failure type=\"check\" message=\"failed in the candidate: "
			       "&lt;b&gt;") &&
			strstr(s,
			       "name=\"mremap/perms [kernel:fexit]\" time=\"0\">\n      <skipped "
			       "message=\"skipped in the candidate: no fexit here\">skipped in "
			       "the candidate: no fexit here</skipped>") &&
			strstr(s, "name=\"mremap/batch [kernel:kprobe]\" time=\"0\">\n      "
				  "<system-out>candidate: pass\nbaseline: pass\n"),
		"junit: each check a testcase: failed, skipped with why, passed");
	TAP_CHECK(s && strstr(s, "&lt;b&gt;&amp;&quot;x&#39;") && !strstr(s, "<b>"),
		  "junit: text escaped");
	TAP_CHECK(s && strstr(s, "<property name=\"warnings\" value=\"0\"/>") &&
			  !strstr(s, "WARN: "),
		  "junit: no warning, none said");
	free(s);
	s = render_gate(g.res, PC_GATE_FMT_JSON);
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

	s = render_gate(g.res, PC_GATE_FMT_HTML);
	TAP_CHECK(s && strstr(s, "<h1 class=\"noship\">DO NOT SHIP</h1>") && strstr(s, "<svg") &&
			  strstr(s, "&lt;b&gt;") && !strstr(s, "<b>") && !strstr(s, "<script") &&
			  !strstr(s, "src=") && !strstr(s, "href="),
		  "html: decision, inline SVG, escaped, no script");
	TAP_CHECK(s && strstr(s, "<td>mremap/moved</td><td>oracle:pagemap</td><td "
				 "class=\"pass\">pass</td><td class=\"fail\">fail</td>"),
		  "html: checks table, baseline vs candidate");
	TAP_CHECK(s && strstr(s,
			      "<td class=\"skip\">skip<div class=\"why\">no fexit here</div></td>"),
		  "html: a skip with its reason");
	batch = s ? strstr(s, "<section class=\"hists batch\">") : NULL;
	TAP_CHECK(batch &&
			  strstr(batch, "<h4>" BATCH_NAME
					"</h4><p><code class=\"id\">mremap/batch</code>") &&
			  strstr(batch, "<div class=\"chart baseline\">") &&
			  strstr(batch, "<div class=\"chart candidate\">") &&
			  strstr(batch, "<section class=\"hists latency\">") >
				  strstr(batch, "<div class=\"chart candidate\">"),
		  "html: the batch histogram in the batch section, both sides");
	latency = batch ? strstr(batch, "<section class=\"hists latency\">") : NULL;
	TAP_CHECK(latency && strstr(latency, "<div class=\"hist\" data-id=\"mremap/latency\">") &&
			  strstr(batch, "<h4>mremap latency</h4>") > latency,
		  "html: the latency histogram in its own section only");
	free(s);
	gate_free(&g);
}

#define FORK	"fork PTEs per batch (contpte_set_ptes)"
#define FORK_D	"fork PTEs per large-folio run (derived)"
#define MUNMAP	"munmap PTEs per batch (folio_pte_batch)"
#define FORK_RE "batching regressed: " FORK " share of batches of 16 PTEs or more"

/*
 * Per-path histograms: the fork share regression in every format, and the
 * HTML page's batch histograms grouped per path, fork's two together
 * though the reports interleave them with munmap's.
 */
static void test_paths(void)
{
	__u64 b[17] = {[8] = 5, [16] = 95}, c[17] = {[12] = 40, [16] = 60};
	struct pc_report *rb = mk("x86_64", "mremap", 1), *rc = mk("x86_64", "mremap", 1);
	const char *fork, *munmap, *derived;
	struct gate g;
	char *s;

	gate_init(&g);
	add_batch_hist(rb, FORK, b, 17);
	add_batch_hist(rb, MUNMAP, b, 17);
	add_batch_hist(rb, FORK_D, b, 17);
	add_batch_hist(rc, FORK, c, 17);
	add_batch_hist(rc, MUNMAP, b, 17);
	add_batch_hist(rc, FORK_D, b, 17);
	add_base(&g, rb);
	add_cand(&g, rc);
	if (gate_run(&g)) {
		tap_skip("no result to render");
		gate_free(&g);
		return;
	}
	s = render_gate(g.res, PC_GATE_FMT_TEXT);
	TAP_CHECK(
		s && strstr(s,
			    "because batching-regression on x86_64 suite mremap scale 1: " FORK_RE),
		"text: the fork share regression is the reason");
	free(s);
	s = render_gate(g.res, PC_GATE_FMT_JSON);
	TAP_CHECK(s && strstr(s, "\"text\": \"" FORK_RE) &&
			  strstr(s, "\"evidence\": \"batches of 16 PTEs or more: 95 of 100 -> 60 "
				    "of 100") &&
			  strstr(s, "\"batch_min_batches\": 10") &&
			  strstr(s, "\"share_noise_default_pp\": 10"),
		  "json: the finding, its evidence and the new policy keys");
	free(s);
	s = render_gate(g.res, PC_GATE_FMT_JUNIT);
	TAP_CHECK(s && strstr(s, "<failure type=\"batching-regression\" message=\"" FORK_RE),
		  "junit: the fork share regression is the failure");
	free(s);
	s = render_gate(g.res, PC_GATE_FMT_HTML);
	fork = s ? strstr(s, "<h4 class=\"path\">fork</h4>") : NULL;
	munmap = s ? strstr(s, "<h4 class=\"path\">munmap</h4>") : NULL;
	derived = s ? strstr(s, "data-id=\"fork/batch/derived\"><h4>" FORK_D "</h4>") : NULL;
	TAP_CHECK(fork && munmap && derived && fork < derived && derived < munmap &&
			  !strstr(fork + 1, "<h4 class=\"path\">fork</h4>") &&
			  strstr(munmap,
				 "data-id=\"munmap/batch/folio_pte_batch\"><h4>" MUNMAP "</h4>"),
		  "html: one subheading per path, fork's histograms together under it");
	free(s);
	gate_free(&g);
}

/* Where neither side judged a kernel tier, the first line says the
   decision rests on the oracles only; where one did, it is the decision. */
static void test_headline(void)
{
	struct pc_report *b = mk("x86_64", "mremap", 1), *c = mk("x86_64", "mremap", 1);
	struct gate g;
	char *s;

	set_status(b, "mremap/batch", "kernel:kprobe", PC_STATUS_SKIP, "no kprobes");
	set_status(c, "mremap/batch", "kernel:kprobe", PC_STATUS_SKIP, "no kprobes");
	gate_init(&g);
	add_base(&g, b);
	add_cand(&g, c);
	gate_run(&g);
	s = render_gate(g.res, PC_GATE_FMT_TEXT);
	TAP_CHECK(s && !strncmp(s,
				"SHIP (neither side judged any kernel tier: the userspace "
				"oracles only)\n",
				69),
		  "text: no kernel tier on either side, said in the first line");
	free(s);
	s = render_gate(g.res, PC_GATE_FMT_TAP);
	TAP_CHECK(s && strstr(s, "# ptecheck gate: SHIP (neither side judged any kernel tier"),
		  "tap: said in the header comment");
	free(s);
	gate_free(&g);
	gate_init(&g);
	add_base(&g, mk("x86_64", "mremap", 1));
	add_cand(&g, mk("x86_64", "mremap", 1));
	gate_run(&g);
	s = render_gate(g.res, PC_GATE_FMT_TEXT);
	TAP_CHECK(s && !strncmp(s, "SHIP\n", 5), "text: a kernel tier judged: the decision alone");
	free(s);
	gate_free(&g);
}

/* A warning passes (it does not fail the gate) and is said in every format. */
static void test_warn(void)
{
	struct gate g;
	char *s;

	if (gate_warn(&g) || rule(&g, 0, PC_GATE_RULE_COVERAGE)->verdict != PC_GATE_WARN) {
		tap_skip("the fixture gives no warning");
		gate_free(&g);
		return;
	}
	s = render_gate(g.res, PC_GATE_FMT_JUNIT);
	TAP_CHECK(s && strstr(s, "<testsuites name=\"ptecheck gate: SHIP\"") &&
			  strstr(s, "<property name=\"warnings\" value=\"1: coverage-loss\"/>"),
		  "junit warn: the decision, and the suite names the rule that warned");
	TAP_CHECK(s && strstr(s, "name=\"coverage-loss\" time=\"0\">\n      <system-out>WARN: ") &&
			  strstr(s, "(reported; the policy does not fail the gate on it)\nverdict: "
				    "warn\n"),
		  "junit warn: a passed testcase whose output starts with WARN and the reason");
	TAP_CHECK(s && strstr(s, "<skipped message=\"skipped in the candidate: no kprobes "
				 "&lt;here&gt;\">"),
		  "junit warn: the check the candidate skipped, skipped with why");
	free(s);
	s = render_gate(g.res, PC_GATE_FMT_TAP);
	TAP_CHECK(s && strstr(s, ": coverage-loss (warning, see above)\n"), "tap warn: said");
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
	test_outputs();
	test_paths();
	test_headline();
	test_warn();
	test_command();
	rmdir(tmpdir);
	return tap_finish();
}
