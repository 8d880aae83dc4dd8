// SPDX-License-Identifier: GPL-2.0
/*
 * ptecheck gate, text: the decision first and last, one "because" line per
 * failed rule, then per group its runs and every rule with reasons.
 */
#include "gate_output.h"

void pc_gate_write_text(struct pc_out *o, const void *what)
{
	const struct pc_gate_result *g = what;
	char label[160], rel[512];
	int i, r, k, nimp = pc_gate_count_improvements(g);

	pc_outf(o, "%s\n", pc_gate_headline(g));
	for (i = 0; i < g->n_groups; i++) {
		const struct pc_gate_group *grp = &g->groups[i];

		pc_gate_group_label(grp, label, sizeof(label));
		for (r = 0; r < PC_GATE_RULE__COUNT; r++) {
			const struct pc_gate_rule_result *rr = &grp->rules[r];

			if (rr->verdict == PC_GATE_FAIL)
				pc_outf(o, "  because %s on %s: %s\n", pc_gate_rule_name(r),
					ESC_LINE(label), ESC_LINE(pc_gate_first_problem(rr)));
		}
	}
	for (i = 0; i < g->n_groups; i++) {
		const struct pc_gate_group *grp = &g->groups[i];

		pc_gate_group_label(grp, label, sizeof(label));
		pc_outf(o, "\n== %s ==\n", ESC_LINE(label));
		pc_gate_releases(&grp->cand, rel, sizeof(rel));
		pc_outf(o, "candidate: %d run%s, kernel %s (%s%s)\n", grp->cand.n_runs,
			grp->cand.n_runs == 1 ? "" : "s", ESC_LINE(rel),
			ESC_LINE(grp->cand.files[0]), grp->cand.n_runs > 1 ? ", ..." : "");
		if (grp->has_baseline) {
			pc_gate_releases(&grp->base, rel, sizeof(rel));
			pc_outf(o, "baseline:  %d run%s, kernel %s (%s%s)\n", grp->base.n_runs,
				grp->base.n_runs == 1 ? "" : "s", ESC_LINE(rel),
				ESC_LINE(grp->base.files[0]), grp->base.n_runs > 1 ? ", ..." : "");
		} else {
			pc_outf(o, "baseline:  none (allowed by the policy)\n");
		}
		for (r = 0; r < PC_GATE_RULE__COUNT; r++) {
			const struct pc_gate_rule_result *rr = &grp->rules[r];

			pc_outf(o, "%-10s  %s", pc_gate_verdict_tag(rr->verdict),
				pc_gate_rule_name(r));
			if (rr->verdict == PC_GATE_NOT_JUDGED && rr->not_judged)
				pc_outf(o, ": %s", ESC_LINE(rr->not_judged));
			pc_outf(o, "\n");
			for (k = 0; k < rr->n_findings; k++) {
				const struct pc_gate_finding *f = &rr->findings[k];

				pc_outf(o, "    %s %s\n", f->problem ? "!" : "-",
					ESC_LINE(f->text));
				if (f->evidence)
					pc_outf(o, "        evidence: %s\n", ESC_LINE(f->evidence));
			}
		}
	}
	pc_outf(o, "\nimprovements:%s\n", nimp ? "" : " none");
	for (i = 0; i < g->n_groups; i++) {
		const struct pc_gate_group *grp = &g->groups[i];

		for (r = 0; r < PC_GATE_RULE__COUNT; r++)
			for (k = 0; k < grp->rules[r].n_improvements; k++)
				pc_outf(o, "  + %s: %s\n", ESC_LINE(grp->machine),
					ESC_LINE(grp->rules[r].improvements[k]));
	}
	pc_outf(o, "\n%s\n", pc_gate_decision(g));
}
