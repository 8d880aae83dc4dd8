// SPDX-License-Identifier: GPL-2.0
/*
 * ptecheck gate, JUnit XML: per group a testsuite of the rules (a
 * testcase per rule) and a testsuite of the checks (a testcase per check
 * and tier, as the candidate ran it beside the baseline); what GitLab,
 * Jenkins and GitHub test reporters show.  JUnit has no warning: a rule
 * that warns passes, with "WARN: reason" first in its output and the
 * suite's "warnings" property naming it (docs/gate.md).  The subset
 * written is tests/data/junit.xsd.
 */
#include "gate_output.h"

struct tally {
	int tests, failures, skipped, warnings;
};

static struct tally rules_tally(const struct pc_gate_group *grp)
{
	struct tally t = {.tests = PC_GATE_RULE__COUNT};

	for (int r = 0; r < PC_GATE_RULE__COUNT; r++) {
		t.failures += grp->rules[r].verdict == PC_GATE_FAIL;
		t.skipped += grp->rules[r].verdict == PC_GATE_NOT_JUDGED;
		t.warnings += grp->rules[r].verdict == PC_GATE_WARN;
	}
	return t;
}

/* A check the candidate's reports lack was not run there: skipped. */
static struct tally checks_tally(const struct pc_gate_group *grp)
{
	struct tally t = {.tests = grp->n_rows};

	for (int k = 0; k < grp->n_rows; k++) {
		t.failures += grp->rows[k].cand == PC_GATE_ST_FAIL;
		t.skipped += grp->rows[k].cand == PC_GATE_ST_SKIP ||
			     grp->rows[k].cand == PC_GATE_ST_MISSING;
	}
	return t;
}

static void xml_findings(struct pc_out *o, const struct pc_gate_rule_result *rr)
{
	int k;

	for (k = 0; k < rr->n_findings; k++) {
		const struct pc_gate_finding *f = &rr->findings[k];

		pc_outf(o, "%s %s\n", f->problem ? "!" : "-", ESC_XML(f->text));
		if (f->evidence)
			pc_outf(o, "    evidence: %s\n", ESC_XML(f->evidence));
	}
	for (k = 0; k < rr->n_improvements; k++)
		pc_outf(o, "+ %s\n", ESC_XML(rr->improvements[k]));
}

static void open_suite(struct pc_out *o, const char *label, const char *what, struct tally t)
{
	pc_outf(o,
		"  <testsuite name=\"ptecheck gate %s%s\" tests=\"%d\" failures=\"%d\" "
		"errors=\"0\" skipped=\"%d\">\n",
		ESC_XML(label), what, t.tests, t.failures, t.skipped);
}

static void side_properties(struct pc_out *o, const char *side, const struct pc_gate_side *s)
{
	char rel[512];

	pc_gate_releases(s, rel, sizeof(rel));
	pc_outf(o, "      <property name=\"%s.kernel\" value=\"%s\"/>\n", side, ESC_XML(rel));
	pc_outf(o, "      <property name=\"%s.runs\" value=\"%d\"/>\n", side, s->n_runs);
}

/* "N" or "N: rule, rule": the rules that warned. */
static void warnings_property(struct pc_out *o, const struct pc_gate_group *grp, int n)
{
	int k = 0;

	pc_outf(o, "      <property name=\"warnings\" value=\"%d", n);
	for (int r = 0; r < PC_GATE_RULE__COUNT; r++)
		if (grp->rules[r].verdict == PC_GATE_WARN)
			pc_outf(o, "%s%s", k++ ? ", " : ": ", pc_gate_rule_name(r));
	pc_outf(o, "\"/>\n");
}

static void properties(struct pc_out *o, const struct pc_gate_result *g,
		       const struct pc_gate_group *grp, int warnings)
{
	pc_outf(o, "    <properties>\n");
	pc_outf(o, "      <property name=\"decision\" value=\"%s\"/>\n", pc_gate_decision(g));
	side_properties(o, "candidate", &grp->cand);
	if (grp->has_baseline)
		side_properties(o, "baseline", &grp->base);
	warnings_property(o, grp, warnings);
	pc_outf(o, "    </properties>\n");
}

/* Jenkins shows the message, GitLab the text: both say why. */
static void skipped(struct pc_out *o, const char *what, const char *why)
{
	const char *w = ESC_XML(why);

	pc_outf(o, "      <skipped message=\"%s%s\">%s%s</skipped>\n", what, w, what, w);
}

/* Dots separate packages in reporters' trees: machine.suite.scaleN. */
static void open_case(struct pc_out *o, const struct pc_gate_group *grp, const char *sub,
		      const char *name)
{
	pc_outf(o,
		"    <testcase classname=\"ptecheck.gate.%s.%s.scale%u%s\" name=\"%s\" "
		"time=\"0\">\n",
		ESC_XML(grp->machine), ESC_XML(grp->suite), grp->scale, sub, ESC_XML(name));
}

static void rule_case(struct pc_out *o, const struct pc_gate_group *grp, int r)
{
	const struct pc_gate_rule_result *rr = &grp->rules[r];

	open_case(o, grp, "", pc_gate_rule_name(r));
	if (rr->verdict == PC_GATE_FAIL) {
		pc_outf(o, "      <failure type=\"%s\" message=\"%s\">", pc_gate_rule_name(r),
			ESC_XML(pc_gate_first_problem(rr)));
		xml_findings(o, rr);
		pc_outf(o, "</failure>\n");
	} else if (rr->verdict == PC_GATE_NOT_JUDGED) {
		skipped(o, "not judged: ", rr->not_judged ? rr->not_judged : "");
	}
	pc_outf(o, "      <system-out>");
	if (rr->verdict == PC_GATE_WARN)
		pc_outf(o, "WARN: %s (reported; the policy does not fail the gate on it)\n",
			ESC_XML(pc_gate_first_problem(rr)));
	pc_outf(o, "verdict: %s\n", pc_gate_verdict_name(rr->verdict));
	xml_findings(o, rr);
	pc_outf(o, "</system-out>\n    </testcase>\n");
}

/* The candidate's result of the row (its worst run), NULL if it has none. */
static const struct pc_result *cand_result(const struct pc_gate_group *grp,
					   const struct pc_gate_check_row *row)
{
	return pc_report_find_result(grp->cand.merged, row->check, row->tier);
}

static void check_case(struct pc_out *o, const struct pc_gate_group *grp,
		       const struct pc_gate_check_row *row)
{
	const struct pc_result *res = cand_result(grp, row);
	const char *summary = res && res->summary[0] ? res->summary : "no reason given";
	const char *base = pc_gate_status_name(row->base);
	char name[128];

	snprintf(name, sizeof(name), "%s [%s]", row->check, row->tier);
	open_case(o, grp, ".checks", name);
	switch (row->cand) {
	case PC_GATE_ST_PASS:
		break;
	case PC_GATE_ST_SKIP:
		skipped(o, "skipped in the candidate: ", summary);
		break;
	case PC_GATE_ST_MISSING:
		skipped(o, "not in the candidate's reports", "");
		break;
	default:
		pc_outf(o, "      <failure type=\"check\" message=\"failed in the candidate: %s\">",
			ESC_XML(summary));
		pc_outf(o, "%s\n</failure>\n", ESC_XML(summary));
		break;
	}
	pc_outf(o, "      <system-out>candidate: %s\nbaseline: %s\n%s\n</system-out>\n",
		pc_gate_status_name(row->cand), grp->has_baseline ? base : "none",
		ESC_XML(summary));
	pc_outf(o, "    </testcase>\n");
}

static void group_suites(struct pc_out *o, const struct pc_gate_result *g,
			 const struct pc_gate_group *grp)
{
	struct tally rt = rules_tally(grp), ct = checks_tally(grp);
	char label[160];

	pc_gate_group_label(grp, label, sizeof(label));
	open_suite(o, label, "", rt);
	properties(o, g, grp, rt.warnings);
	for (int r = 0; r < PC_GATE_RULE__COUNT; r++)
		rule_case(o, grp, r);
	pc_outf(o, "  </testsuite>\n");
	open_suite(o, label, ": checks", ct);
	for (int k = 0; k < grp->n_rows; k++)
		check_case(o, grp, &grp->rows[k]);
	pc_outf(o, "  </testsuite>\n");
}

void pc_gate_write_junit(struct pc_out *o, const void *what)
{
	const struct pc_gate_result *g = what;
	int i, tests = 0, failures = 0;

	for (i = 0; i < g->n_groups; i++) {
		struct tally rt = rules_tally(&g->groups[i]), ct = checks_tally(&g->groups[i]);

		tests += rt.tests + ct.tests;
		failures += rt.failures + ct.failures;
	}
	/* Skips are counted per testsuite: Jenkins' xUnit schema refuses them here. */
	pc_outf(o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	pc_outf(o,
		"<testsuites name=\"ptecheck gate: %s\" tests=\"%d\" failures=\"%d\" "
		"errors=\"0\">\n",
		pc_gate_decision(g), tests, failures);
	for (i = 0; i < g->n_groups; i++)
		group_suites(o, g, &g->groups[i]);
	pc_outf(o, "</testsuites>\n");
}
