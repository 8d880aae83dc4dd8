// SPDX-License-Identifier: GPL-2.0
/*
 * The TAP writer, for kselftest-style harnesses: one test point per result
 * (SKIP with its reason; with -v, its scenarios as a subtest before it), the counts and evidence of
 * a failure as YAML-ish diagnostics, histograms, notes and stats as "# " lines, and the totals.
 */
#include "clean.h"
#include "report_writers.h"

static void failure_lines(struct pc_out *o, const struct pc_result *res)
{
	char buf[PC_CLEAN_MAX];
	int j, ne = pc_result_n_evidence(res);

	pc_outf(o, "# in_kernel: %s\n", res->in_kernel ? "true" : "false");
	pc_outf(o, "# checked: %llu\n", (unsigned long long)res->checked);
	pc_outf(o, "# violations: %llu\n", (unsigned long long)res->violations);
	pc_outf(o, "# inconclusive: %llu\n", (unsigned long long)res->inconclusive);
	if (ne)
		pc_outf(o, "# evidence:\n");
	for (j = 0; j < ne; j++) {
		const struct pc_evidence *ev = &res->evidence[j];

		pc_outf(o,
			"#   - {pid: %d, addr: 0x%llx, new_addr: 0x%llx, expected: 0x%llx, "
			"seen: 0x%llx, what: \"%s\"}\n",
			ev->pid, (unsigned long long)ev->addr, (unsigned long long)ev->new_addr,
			(unsigned long long)ev->expected, (unsigned long long)ev->seen,
			pc_clean(buf, sizeof(buf), ev->what, sizeof(ev->what), PC_CLEAN_DQUOTE));
		pc_text_log_lines(o, ev, "#     ", PC_CLEAN_LINE);
		pc_text_stack(o, ev, j ? ev - 1 : NULL, "#     ", PC_CLEAN_LINE);
	}
	if (ne && res->violations > (__u64)ne)
		pc_outf(o, "# evidence_not_shown: %llu\n",
			(unsigned long long)(res->violations - ne));
}

/*
 * -v: the check's scenarios as a subtest before its test point, indented
 * 4 spaces under "# Subtest:" with the plan first: KTAP (kselftest, KUnit)
 * wants the plan there, TAP 14 allows it, and TAP 13 parsers such as
 * prove pass indented lines over.
 */
static void subtest(struct pc_out *o, const struct pc_result *res)
{
	int n = pc_result_n_variants(res);
	char buf[PC_CLEAN_MAX];

	if (!n)
		return;
	pc_outf(o, "    # Subtest: %s",
		pc_clean(buf, sizeof(buf), res->name, sizeof(res->name), PC_CLEAN_TAP));
	pc_outf(o, " [%s]\n",
		pc_clean(buf, sizeof(buf), res->tier, sizeof(res->tier), PC_CLEAN_TAP));
	pc_outf(o, "    1..%d\n", n);
	for (int i = 0; i < n; i++) {
		const struct pc_variant *v = &res->variants[i];
		enum pc_status st = pc_variant_status(v);

		if (st == PC_STATUS_SKIP) {
			pc_outf(o, "    ok %d - %s", i + 1,
				pc_clean(buf, sizeof(buf), v->scenario, sizeof(v->scenario),
					 PC_CLEAN_TAP));
			pc_clean(buf, sizeof(buf), v->why, sizeof(v->why), PC_CLEAN_LINE);
			pc_outf(o, " # SKIP%s%s\n", buf[0] ? " " : "", buf);
			continue;
		}
		pc_outf(o, "    %s %d - %s\n", st == PC_STATUS_FAIL ? "not ok" : "ok", i + 1,
			pc_variant_words(v, buf, sizeof(buf), PC_CLEAN_TAP));
	}
}

static void test_point(struct pc_out *o, const struct pc_result *res, int num, bool verbose)
{
	enum pc_status st = pc_result_status(res);
	char buf[PC_CLEAN_MAX];

	if (verbose)
		subtest(o, res);

	/* '#' in a name would start a directive: escape everything. */
	pc_outf(o, "%s %d %s", st == PC_STATUS_FAIL ? "not ok" : "ok", num,
		pc_clean(buf, sizeof(buf), res->name, sizeof(res->name), PC_CLEAN_TAP));
	pc_outf(o, " [%s]", pc_clean(buf, sizeof(buf), res->tier, sizeof(res->tier), PC_CLEAN_TAP));
	pc_clean(buf, sizeof(buf), res->summary, sizeof(res->summary),
		 st == PC_STATUS_SKIP ? PC_CLEAN_LINE : PC_CLEAN_TAP);
	if (st == PC_STATUS_SKIP)
		pc_outf(o, " # SKIP%s%s\n", buf[0] ? " " : "", buf);
	else
		pc_outf(o, "%s%s\n", buf[0] ? " " : "", buf);
	if (!verbose)
		pc_text_variants(o, res, "# ");
	if (st == PC_STATUS_FAIL)
		failure_lines(o, res);
}

void pc_report_write_tap(struct pc_out *o, const void *what)
{
	const struct pc_report *r = what;
	int i, pass, fail, skip;
	const char *why;

	pc_outf(o, "TAP version 13\n");
	pc_outf(o, "1..%d\n", r->n_results);
	pc_outf(o, "# ptecheck %.*s suite %.*s on %.*s %.*s\n", FLD(r->command), FLD(r->suite),
		FLD(r->kernel_release), FLD(r->machine));
	pc_outf(o, "# started %.*s, %.3f s%s\n", FLD(r->started), pc_report_duration(r),
		r->partial ? ", interrupted: partial results" : "");
	for (i = 0; i < r->n_results; i++)
		test_point(o, &r->results[i], i + 1, r->verbose);
	for (i = 0; i < r->n_hists; i++) {
		pc_outf(o, "#\n");
		pc_text_hist(o, &r->hists[i], "# ");
	}
	pc_text_notes(o, r, "# ");
	pc_text_stats(o, r, "# ");
	if (r->partial)
		pc_outf(o, "# interrupted: results so far\n");
	/* What is counted, no more: a report has no xfail, xpass or error. */
	pc_report_count(r, &pass, &fail, &skip);
	pc_outf(o, "# Totals: pass:%d fail:%d skip:%d\n", pass, fail, skip);
	why = pc_report_skip_why(r);
	if (why)
		pc_outf(o, "# %s\n", why);
}
