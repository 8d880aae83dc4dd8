// SPDX-License-Identifier: GPL-2.0
/*
 * The JUnit XML writer, for the test reporters of Jenkins and GitLab
 * (docs/ci/README.md, "JUnit"): one testcase per result (check and tier), a
 * skipped element with the reason, a failure element with the evidence;
 * with -v a second testsuite with a testcase per scenario variant.  The
 * subset written is tests/data/junit.xsd.  Every string is cleaned to XML
 * 1.0 characters (control characters become spaces, U+FFFE and U+FFFF '?')
 * and escaped: evidence can hold any byte of the kernel log.
 */
#include "clean.h"
#include "report_writers.h"

#define XML_HOW		   (PC_CLEAN_XML | PC_CLEAN_NONCHAR)
#define XML(buf, src, max) pc_clean((buf), sizeof(buf), (src), (max), XML_HOW)
#define XFLD(buf, fld)	   XML(buf, fld, sizeof(fld))

struct counts {
	int tests, failures, skipped;
};

static void count(struct counts *c, enum pc_status st)
{
	c->tests++;
	c->failures += st == PC_STATUS_FAIL;
	c->skipped += st == PC_STATUS_SKIP;
}

static struct counts result_counts(const struct pc_report *r)
{
	struct counts c = {0};

	for (int i = 0; i < r->n_results; i++)
		count(&c, pc_result_status(&r->results[i]));
	return c;
}

static struct counts variant_counts(const struct pc_report *r)
{
	struct counts c = {0};

	for (int i = 0; i < r->n_results; i++)
		for (int k = 0; k < pc_result_n_variants(&r->results[i]); k++)
			count(&c, pc_variant_status(&r->results[i].variants[k]));
	return c;
}

/*
 * The testcase's classname and name: "mremap/moved" in tier
 * "oracle:pagemap" is class "ptecheck.mremap", test "moved
 * [oracle:pagemap]" (reporters group tests by class); a name without a
 * path is of the report's suite.  Unique as the results' (name, tier)
 * are; stable across runs, so reporters keep each check's history.
 */
static void open_case(struct pc_out *o, const struct pc_report *r, const struct pc_result *res,
		      const char *scenario)
{
	size_t n = strnlen(res->name, sizeof(res->name));
	const char *slash = memchr(res->name, '/', n), *test = slash ? slash + 1 : res->name;
	char buf[PC_CLEAN_MAX];

	pc_outf(o, "    <testcase classname=\"ptecheck.%s\"",
		slash ? XML(buf, res->name, (size_t)(slash - res->name)) : XFLD(buf, r->suite));
	pc_outf(o, " name=\"%s", XML(buf, test, n - (size_t)(test - res->name)));
	pc_outf(o, " [%s]", XFLD(buf, res->tier));
	if (scenario)
		pc_outf(o, " / %s", XML(buf, scenario, sizeof(res->variants[0].scenario)));
	pc_outf(o, "\">\n");
}

/* Reporters show the skipped element's message (Jenkins) or its text (GitLab). */
static void skipped(struct pc_out *o, const char *why, size_t max)
{
	char buf[PC_CLEAN_MAX];

	XML(buf, why, max);
	pc_outf(o, "      <skipped message=\"%s\">%s</skipped>\n", buf, buf);
}

static void failure(struct pc_out *o, const struct pc_result *res)
{
	char buf[PC_CLEAN_MAX], tier[PC_CLEAN_MAX];

	XFLD(buf, res->summary);
	pc_outf(o, "      <failure type=\"%s\" message=\"%s\">", XFLD(tier, res->tier), buf);
	if (buf[0])
		pc_outf(o, "%s\n", buf);
	pc_text_counts(o, res, "");
	pc_text_evidence(o, res, "", XML_HOW);
	pc_outf(o, "</failure>\n");
}

/* What was judged, for every status: the summary, the counts, the scenarios. */
static void system_out(struct pc_out *o, const struct pc_result *res)
{
	char buf[PC_CLEAN_MAX];

	pc_outf(o, "      <system-out>tier %s (%s)\n", XFLD(buf, res->tier),
		res->in_kernel ? "kernel" : "derived");
	if (res->summary[0])
		pc_outf(o, "%s\n", XFLD(buf, res->summary));
	pc_text_counts(o, res, "");
	for (int k = 0; k < pc_result_n_variants(res); k++) {
		const struct pc_variant *v = &res->variants[k];

		pc_outf(o, "scenario %s  %s\n", pc_status_name(pc_variant_status(v)),
			pc_variant_words(v, buf, sizeof(buf), XML_HOW));
	}
	pc_outf(o, "</system-out>\n");
}

static void result_case(struct pc_out *o, const struct pc_report *r, const struct pc_result *res)
{
	enum pc_status st = pc_result_status(res);

	open_case(o, r, res, NULL);
	if (st == PC_STATUS_SKIP)
		skipped(o, res->summary[0] ? res->summary : "skipped", sizeof(res->summary));
	else if (st == PC_STATUS_FAIL)
		failure(o, res);
	system_out(o, res);
	pc_outf(o, "    </testcase>\n");
}

/* A scenario variant holds its status and, skipped, why: the evidence is the result's. */
static void variant_case(struct pc_out *o, const struct pc_report *r, const struct pc_result *res,
			 const struct pc_variant *v)
{
	enum pc_status st = pc_variant_status(v);
	char buf[PC_CLEAN_MAX], tier[PC_CLEAN_MAX];

	open_case(o, r, res, v->scenario);
	if (st == PC_STATUS_SKIP) {
		skipped(o, v->why[0] ? v->why : "not run", sizeof(v->why));
	} else if (st == PC_STATUS_FAIL) {
		pc_variant_words(v, buf, sizeof(buf), XML_HOW);
		pc_outf(o, "      <failure type=\"%s\" message=\"%s\">", XFLD(tier, res->tier),
			buf);
		pc_outf(o, "%s\n(the evidence is in the check's testcase)\n</failure>\n", buf);
	} else {
		pc_outf(o, "      <system-out>%s</system-out>\n",
			pc_variant_words(v, buf, sizeof(buf), XML_HOW));
	}
	pc_outf(o, "    </testcase>\n");
}

static void property(struct pc_out *o, const char *name, const char *value, size_t max)
{
	char buf[PC_CLEAN_MAX];

	pc_outf(o, "      <property name=\"%s\" value=\"%s\"/>\n", name, XML(buf, value, max));
}

static void properties(struct pc_out *o, const struct pc_report *r)
{
	char num[16];

	pc_outf(o, "    <properties>\n");
	property(o, "command", r->command, sizeof(r->command));
	property(o, "suite", r->suite, sizeof(r->suite));
	property(o, "kernel.release", r->kernel_release, sizeof(r->kernel_release));
	property(o, "kernel.machine", r->machine, sizeof(r->machine));
	snprintf(num, sizeof(num), "%u", r->scale);
	property(o, "scale", num, sizeof(num));
	property(o, "partial", r->partial ? "true" : "false", 6);
	snprintf(num, sizeof(num), "%d", pc_report_exit_code(r));
	property(o, "exit_code", num, sizeof(num));
	pc_outf(o, "    </properties>\n");
}

/* The suite's own output: why it exits 4, notes, stats, an interruption. */
static void suite_out(struct pc_out *o, const struct pc_report *r)
{
	const char *why = pc_report_skip_why(r);
	char buf[PC_CLEAN_MAX];

	pc_outf(o, "    <system-out>");
	if (r->partial)
		pc_outf(o, "interrupted: results so far\n");
	if (why)
		pc_outf(o, "%s\n", why);
	for (int i = 0; i < r->n_notes; i++)
		pc_outf(o, "note: %s\n", XML(buf, r->notes[i], PC_NOTE_MAX));
	/* Stat names and numbers only: nothing to escape. */
	pc_text_stats(o, r, "");
	pc_outf(o, "</system-out>\n");
}

/* The scenarios' testsuite has no time of its own: reporters add suites' times. */
static void open_suite(struct pc_out *o, const struct pc_report *r, bool scenarios, struct counts c)
{
	char cmd[PC_CLEAN_MAX], suite[PC_CLEAN_MAX];

	pc_outf(o,
		"  <testsuite name=\"ptecheck %s suite %s%s\" tests=\"%d\" failures=\"%d\" "
		"errors=\"0\" skipped=\"%d\"",
		XFLD(cmd, r->command), XFLD(suite, r->suite), scenarios ? ": scenarios" : "",
		c.tests, c.failures, c.skipped);
	if (!scenarios)
		pc_outf(o, " time=\"%.3f\"", pc_report_duration(r));
	pc_outf(o, " timestamp=\"%s\">\n", XFLD(suite, r->started));
}

void pc_report_write_junit(struct pc_out *o, const void *what)
{
	const struct pc_report *r = what;
	struct counts c = result_counts(r), v = {0};
	char cmd[PC_CLEAN_MAX];

	if (r->verbose)
		v = variant_counts(r);
	/* No skipped count here: Jenkins' xUnit schema refuses it on testsuites. */
	pc_outf(o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	pc_outf(o,
		"<testsuites name=\"ptecheck %s\" tests=\"%d\" failures=\"%d\" errors=\"0\" "
		"time=\"%.3f\">\n",
		XFLD(cmd, r->command), c.tests + v.tests, c.failures + v.failures,
		pc_report_duration(r));
	open_suite(o, r, false, c);
	properties(o, r);
	for (int i = 0; i < r->n_results; i++)
		result_case(o, r, &r->results[i]);
	suite_out(o, r);
	pc_outf(o, "  </testsuite>\n");
	if (r->verbose) {
		open_suite(o, r, true, v);
		for (int i = 0; i < r->n_results; i++)
			for (int k = 0; k < pc_result_n_variants(&r->results[i]); k++)
				variant_case(o, r, &r->results[i], &r->results[i].variants[k]);
		pc_outf(o, "  </testsuite>\n");
	}
	pc_outf(o, "</testsuites>\n");
}
