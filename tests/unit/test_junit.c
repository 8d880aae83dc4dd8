// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of the JUnit XML of run and watch reports
 * (report/report_junit.c): a testcase per check and tier, skipped and
 * failure elements with the reason and evidence, the counts, the
 * properties, per-scenario testcases with -v, and text of any bytes made
 * XML 1.0.  Prints kselftest-style TAP; exits 0 if all passed.
 *
 * With a directory argument, also writes there the fixtures (these
 * reports' JUnit and JSON, and gate results' JUnit and JSON) that
 * tests/unit/junit_parse.sh gives a JUnit parser and xmllint.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <ptecheck/events.h>
#include "gate_fixture.h"

/* Kernel-log bytes: controls XML 1.0 forbids, invalid UTF-8, U+FFFE, U+FFFF, markup. */
#define HOSTILE                                                                                    \
	"BUG: Bad page map \x01\x02\x0b\x0c\x1b[1m \x7f \xff\xfe "                                 \
	"\xef\xbf\xbe\xef\xbf\xbf ]]> <script>&amp;\"'"

static void fixed(struct pc_report *r)
{
	snprintf(r->kernel_release, sizeof(r->kernel_release), "7.2.13-test");
	snprintf(r->machine, sizeof(r->machine), "aarch64");
	snprintf(r->started, sizeof(r->started), "2026-12-01T19:00:00Z");
	r->duration_s = 3.5;
	r->scale = 2;
}

/* A run: a pass with scenarios, two failures with evidence, skips. */
static struct pc_report *run_report(bool verbose)
{
	struct pc_report *r = pc_report_new("run", "mremap");
	struct pc_result *res;

	fixed(r);
	r->verbose = verbose;
	res = pc_report_add_result(r, "mremap/moved", "oracle:pagemap", false);
	pc_result_set(res, PC_STATUS_PASS, "anon-64k: 256 slots moved");
	res->checked = 256;
	pc_result_add_variant(res, "anon-64k", PC_STATUS_PASS, "judged", 128, 0);
	pc_result_add_variant(res, "perms-soft-dirty", PC_STATUS_SKIP, "no <CONFIG_MEM_SOFT_DIRTY>",
			      0, 0);
	res = pc_report_add_result(r, "mremap/perms", "oracle:cow", false);
	pc_result_set(res, PC_STATUS_FAIL, "2 of 256 PTEs lost <write> & \"dirty\"");
	res->checked = 256;
	res->violations = 9;
	pc_result_add_evidence(res, 4242, 0x7f0000001000, 0x7f0000201000, 0x8000000101,
			       0x8000000001, "dirty bit lost: page 3");
	pc_result_add_variant(res, "anon-64k", PC_STATUS_FAIL, "judged", 128, 0);
	pc_result_add_variant(res, "anon-4k", PC_STATUS_PASS, "judged", 128, 0);
	res = pc_report_add_result(r, "mremap/kernel-log", PC_TIER_KMSG, false);
	pc_result_set(res, PC_STATUS_FAIL, "1 splat");
	res->violations = 1;
	pc_result_add_log_evidence(res, 4242, "bad-page-map: mremap_folios",
				   HOSTILE "\nCPU: 1 PID: 4242 Comm: mremap_folios");
	res = pc_report_add_result(r, "mremap/batch", "kernel:fexit", true);
	pc_result_set(res, PC_STATUS_SKIP, "no fexit <here>");
	pc_report_add_result(r, "mremap/pmd-move", "kernel:fexit", true);
	pc_report_note(r, "a note: " HOSTILE);
	r->n_stats = PC_STAT__COUNT;
	r->stats[PC_STAT_CALLS] = 12;
	r->stats[PC_STAT_EVENTS_DROPPED] = 2;
	return r;
}

/* Only the kernel log was read: exit 4, and the JUnit says why. */
static struct pc_report *kmsg_report(void)
{
	struct pc_report *r = pc_report_new("run", "contpte");

	fixed(r);
	pc_result_set(pc_report_add_result(r, "contpte/kernel-log", PC_TIER_KMSG, false),
		      PC_STATUS_PASS, "no splat");
	pc_result_set(pc_report_add_result(r, "contpte/fold", "kernel:fexit", true), PC_STATUS_SKIP,
		      "not arm64");
	return r;
}

static struct pc_report *empty_report(void)
{
	struct pc_report *r = pc_report_new("watch", "live");

	fixed(r);
	return r;
}

/* Every byte is one XML 1.0 allows: no C0 control but \n, no U+FFFE/U+FFFF. */
static bool xml_chars(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p < 0x20 && *p != '\n')
			return false;
		if (p[0] == 0xef && p[1] == 0xbf && (p[2] == 0xbe || p[2] == 0xbf))
			return false;
	}
	return true;
}

static void test_run(void)
{
	struct pc_report *r = run_report(false);
	char *s = render_report(r, PC_FORMAT_JUNIT);

	TAP_CHECK(s && !strncmp(s, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", 39),
		  "junit: XML declaration");
	TAP_CHECK(s && strstr(s, "<testsuites name=\"ptecheck run\" tests=\"5\" failures=\"2\" "
				 "errors=\"0\" time=\"3.500\">"),
		  "junit: totals, no skipped on testsuites");
	TAP_CHECK(s && strstr(s, "<testsuite name=\"ptecheck run suite mremap\" tests=\"5\" "
				 "failures=\"2\" errors=\"0\" skipped=\"2\" time=\"3.500\" "
				 "timestamp=\"2026-12-01T19:00:00Z\">"),
		  "junit: the testsuite's counts, time and timestamp");
	TAP_CHECK(s && strstr(s, "<property name=\"kernel.release\" value=\"7.2.13-test\"/>") &&
			  strstr(s, "<property name=\"kernel.machine\" value=\"aarch64\"/>") &&
			  strstr(s, "<property name=\"suite\" value=\"mremap\"/>") &&
			  strstr(s, "<property name=\"scale\" value=\"2\"/>") &&
			  strstr(s, "<property name=\"exit_code\" value=\"1\"/>"),
		  "junit: kernel, machine, suite, scale and exit code as properties");
	TAP_CHECK(s && strstr(s, "<testcase classname=\"ptecheck.mremap\" name=\"moved "
				 "[oracle:pagemap]\">\n      <system-out>tier oracle:pagemap "
				 "(derived)\nanon-64k: 256 slots moved\n"),
		  "junit: a passed check: class ptecheck.PATH, name CHECK [TIER]");
	TAP_CHECK(s &&
			  strstr(s, "scenario skip  perms-soft-dirty: no "
				    "&lt;CONFIG_MEM_SOFT_DIRTY&gt;\n") &&
			  strstr(s, "scenario pass  anon-64k: judged\n"),
		  "junit: the scenarios in the output, a skipped one with why");
	TAP_CHECK(s && strstr(s, "<failure type=\"oracle:cow\" message=\"2 of 256 PTEs lost "
				 "&lt;write&gt; &amp; &quot;dirty&quot;\">2 of 256"),
		  "junit: failure with the summary as message and text");
	TAP_CHECK(s && strstr(s, "checked 256, violations 9, inconclusive 0\n"
				 "pid 4242 addr 0x7f0000001000 -> 0x7f0000201000: expected "
				 "0x8000000101 seen 0x8000000001 (dirty bit lost: page 3)\n"
				 "... 8 more not shown\n</failure>"),
		  "junit: the failure's counts and evidence (pid, address, expected, seen, what)");
	TAP_CHECK(s && strstr(s, "pid 4242: bad-page-map: mremap_folios\n| BUG: Bad page map ") &&
			  strstr(s, "| CPU: 1 PID: 4242 Comm: mremap_folios\n</failure>"),
		  "junit: kernel-log evidence, each line");
	TAP_CHECK(s && strstr(s, "]]&gt; &lt;script&gt;&amp;amp;&quot;&#39;") &&
			  !strstr(s, "<script") && xml_chars(s),
		  "junit: evidence escaped, controls, U+FFFE and U+FFFF gone");
	TAP_CHECK(
		s &&
			strstr(s,
			       "name=\"batch [kernel:fexit]\">\n      <skipped message=\"no fexit "
			       "&lt;here&gt;\">no fexit &lt;here&gt;</skipped>") &&
			strstr(s, "name=\"pmd-move [kernel:fexit]\">\n      <skipped "
				  "message=\"skipped\">skipped</skipped>"),
		"junit: skipped with the reason as message and text (GitLab shows the text)");
	TAP_CHECK(s && strstr(s, "note: a note: BUG") && strstr(s, "  events_dropped   2\n") &&
			  strstr(s, "warning: 2 violation records dropped"),
		  "junit: notes, stats and their warnings in the suite's output");
	TAP_CHECK(s && !strstr(s, ": scenarios\""), "junit: no per-scenario testsuite without -v");
	free(s);
	pc_report_free(r);
}

static void test_verbose(void)
{
	struct pc_report *r = run_report(true);
	char *s = render_report(r, PC_FORMAT_JUNIT);

	TAP_CHECK(s && strstr(s, "<testsuites name=\"ptecheck run\" tests=\"9\" failures=\"3\""),
		  "junit -v: totals count the scenarios too");
	TAP_CHECK(s && strstr(s, "<testsuite name=\"ptecheck run suite mremap: scenarios\" "
				 "tests=\"4\" failures=\"1\" errors=\"0\" skipped=\"1\" "
				 "timestamp=\"2026-12-01T19:00:00Z\">"),
		  "junit -v: a testsuite of the scenarios, its time not counted twice");
	TAP_CHECK(s &&
			  strstr(s, "name=\"moved [oracle:pagemap] / anon-64k\">\n      "
				    "<system-out>anon-64k: judged</system-out>\n    </testcase>") &&
			  strstr(s, "name=\"moved [oracle:pagemap] / perms-soft-dirty\">\n      "
				    "<skipped message=\"no &lt;CONFIG_MEM_SOFT_DIRTY&gt;\">") &&
			  strstr(s, "name=\"perms [oracle:cow] / anon-64k\">\n      <failure "
				    "type=\"oracle:cow\" message=\"anon-64k: judged\">"),
		  "junit -v: a testcase per scenario: passed, skipped with why, failed");
	free(s);
	pc_report_free(r);
}

static void test_edges(void)
{
	struct pc_report *r = kmsg_report();
	char *s = render_report(r, PC_FORMAT_JUNIT);

	TAP_CHECK(
		s && strstr(s, "<property name=\"exit_code\" value=\"4\"/>") &&
			strstr(s, "no invariant check ran: only the kernel log was read (exit 4)"),
		"junit: a run that checked nothing says why it exits 4");
	TAP_CHECK(s && strstr(s, "<testcase classname=\"ptecheck.contpte\" name=\"kernel-log "
				 "[oracle:kmsg]\">"),
		  "junit: the kernel-log check a testcase of its path");
	free(s);
	pc_report_free(r);
	r = empty_report();
	r->partial = true;
	s = render_report(r, PC_FORMAT_JUNIT);
	TAP_CHECK(s && strstr(s, "tests=\"0\" failures=\"0\" errors=\"0\" skipped=\"0\"") &&
			  strstr(s, "<property name=\"partial\" value=\"true\"/>") &&
			  strstr(s, "<system-out>interrupted: results so far\n"),
		  "junit: no results, interrupted: zero tests, said");
	free(s);
	pc_report_free(r);
	TAP_CHECK(pc_format_parse("junit") == PC_FORMAT_JUNIT, "\"junit\" is a format");
}

/* ---- fixtures for the parser test ------------------------------------------ */

static int write_file(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;
	int ret = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f || !text)
		ret = -(errno ? errno : ENOMEM);
	else if (fputs(text, f) == EOF)
		ret = -errno;
	if (f && fclose(f) && !ret)
		ret = -errno;
	return ret;
}

static int write_report(const char *dir, const char *name, struct pc_report *r)
{
	char xml[64], json[64];
	char *x = render_report(r, PC_FORMAT_JUNIT), *j = render_report(r, PC_FORMAT_JSON);
	int ret;

	snprintf(xml, sizeof(xml), "%s.xml", name);
	snprintf(json, sizeof(json), "%s.json", name);
	ret = write_file(dir, xml, x);
	if (!ret)
		ret = write_file(dir, json, j);
	free(x);
	free(j);
	pc_report_free(r);
	return ret;
}

static int write_gate(const char *dir, const char *name, int (*fixture)(struct gate *))
{
	char xml[64], json[64], *x = NULL, *j = NULL;
	struct gate g;
	int ret = fixture(&g);

	snprintf(xml, sizeof(xml), "%s.xml", name);
	snprintf(json, sizeof(json), "%s.json", name);
	if (!ret) {
		x = render_gate(g.res, PC_GATE_FMT_JUNIT);
		j = render_gate(g.res, PC_GATE_FMT_JSON);
		ret = write_file(dir, xml, x);
	}
	if (!ret)
		ret = write_file(dir, json, j);
	free(x);
	free(j);
	gate_free(&g);
	return ret;
}

static void write_fixtures(const char *dir)
{
	TAP_CHECK(write_report(dir, "run", run_report(false)) == 0, "fixture run written");
	TAP_CHECK(write_report(dir, "run-v", run_report(true)) == 0, "fixture run-v written");
	TAP_CHECK(write_report(dir, "kmsg", kmsg_report()) == 0, "fixture kmsg written");
	TAP_CHECK(write_report(dir, "empty", empty_report()) == 0, "fixture empty written");
	TAP_CHECK(write_gate(dir, "gate-noship", gate_noship) == 0, "fixture gate-noship written");
	TAP_CHECK(write_gate(dir, "gate-warn", gate_warn) == 0, "fixture gate-warn written");
}

int main(int argc, char **argv)
{
	tap_plan(0);
	test_run();
	test_verbose();
	test_edges();
	if (argc > 1)
		write_fixtures(argv[1]);
	return tap_finish();
}
