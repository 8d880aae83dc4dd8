// SPDX-License-Identifier: GPL-2.0
/*
 * ptecheck gate, JUnit XML: a testsuite per group, a testcase per rule;
 * what GitLab, Jenkins and GitHub test reporters show.
 */
#include "gate_output.h"

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

void pc_gate_write_junit(struct pc_out *o, const void *what)
{
	const struct pc_gate_result *g = what;
	int i, r, nfail = 0, nskip = 0;
	char label[160], rel[512];

	for (i = 0; i < g->n_groups; i++)
		for (r = 0; r < PC_GATE_RULE__COUNT; r++) {
			nfail += g->groups[i].rules[r].verdict == PC_GATE_FAIL;
			nskip += g->groups[i].rules[r].verdict == PC_GATE_NOT_JUDGED;
		}
	pc_outf(o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	pc_outf(o,
		"<testsuites name=\"ptecheck gate: %s\" tests=\"%d\" failures=\"%d\" errors=\"0\" "
		"skipped=\"%d\">\n",
		pc_gate_decision(g), g->n_groups * PC_GATE_RULE__COUNT, nfail, nskip);
	for (i = 0; i < g->n_groups; i++) {
		const struct pc_gate_group *grp = &g->groups[i];
		int gf = 0, gs = 0;

		for (r = 0; r < PC_GATE_RULE__COUNT; r++) {
			gf += grp->rules[r].verdict == PC_GATE_FAIL;
			gs += grp->rules[r].verdict == PC_GATE_NOT_JUDGED;
		}
		pc_gate_group_label(grp, label, sizeof(label));
		pc_outf(o,
			"  <testsuite name=\"ptecheck gate %s\" tests=\"%d\" failures=\"%d\" "
			"errors=\"0\" skipped=\"%d\">\n",
			ESC_XML(label), PC_GATE_RULE__COUNT, gf, gs);
		pc_outf(o, "    <properties>\n");
		pc_outf(o, "      <property name=\"decision\" value=\"%s\"/>\n",
			pc_gate_decision(g));
		pc_gate_releases(&grp->cand, rel, sizeof(rel));
		pc_outf(o, "      <property name=\"candidate.kernel\" value=\"%s\"/>\n",
			ESC_XML(rel));
		pc_outf(o, "      <property name=\"candidate.runs\" value=\"%d\"/>\n",
			grp->cand.n_runs);
		if (grp->has_baseline) {
			pc_gate_releases(&grp->base, rel, sizeof(rel));
			pc_outf(o, "      <property name=\"baseline.kernel\" value=\"%s\"/>\n",
				ESC_XML(rel));
			pc_outf(o, "      <property name=\"baseline.runs\" value=\"%d\"/>\n",
				grp->base.n_runs);
		}
		pc_outf(o, "    </properties>\n");
		for (r = 0; r < PC_GATE_RULE__COUNT; r++) {
			const struct pc_gate_rule_result *rr = &grp->rules[r];

			/* Dots separate packages in reporters' trees: machine.suite.scaleN. */
			pc_outf(o,
				"    <testcase classname=\"ptecheck.gate.%s.%s.scale%u\" "
				"name=\"%s\" "
				"time=\"0\">\n",
				ESC_XML(grp->machine), ESC_XML(grp->suite), grp->scale,
				pc_gate_rule_name(r));
			if (rr->verdict == PC_GATE_FAIL) {
				pc_outf(o, "      <failure type=\"%s\" message=\"%s\">",
					pc_gate_rule_name(r), ESC_XML(pc_gate_first_problem(rr)));
				xml_findings(o, rr);
				pc_outf(o, "</failure>\n");
			} else if (rr->verdict == PC_GATE_NOT_JUDGED) {
				pc_outf(o, "      <skipped message=\"not judged: %s\"/>\n",
					ESC_XML(rr->not_judged ? rr->not_judged : ""));
			}
			pc_outf(o, "      <system-out>verdict: %s\n",
				pc_gate_verdict_name(rr->verdict));
			xml_findings(o, rr);
			pc_outf(o, "</system-out>\n    </testcase>\n");
		}
		pc_outf(o, "  </testsuite>\n");
	}
	pc_outf(o, "</testsuites>\n");
}
