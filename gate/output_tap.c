// SPDX-License-Identifier: GPL-2.0
/*
 * ptecheck gate, TAP (kselftest style): one test point per rule per group,
 * reasons and improvements as "#" lines before it.
 */
#include "gate_output.h"

void pc_gate_write_tap(struct pc_out *o, const void *what)
{
	const struct pc_gate_result *g = what;
	int i, r, k, n = 0, npass = 0, nfail = 0, nskip = 0;
	char label[160];

	pc_outf(o, "TAP version 13\n1..%d\n", g->n_groups * PC_GATE_RULE__COUNT);
	pc_outf(o, "# ptecheck gate: %s\n", pc_gate_headline(g));
	for (i = 0; i < g->n_groups; i++) {
		const struct pc_gate_group *grp = &g->groups[i];

		pc_gate_group_label(grp, label, sizeof(label));
		for (r = 0; r < PC_GATE_RULE__COUNT; r++) {
			const struct pc_gate_rule_result *rr = &grp->rules[r];

			n++;
			for (k = 0; k < rr->n_findings; k++) {
				const struct pc_gate_finding *f = &rr->findings[k];

				pc_outf(o, "# %s%s\n", f->problem ? "" : "  ", ESC_LINE(f->text));
				if (f->evidence)
					pc_outf(o, "#   evidence: %s\n", ESC_LINE(f->evidence));
			}
			for (k = 0; k < rr->n_improvements; k++)
				pc_outf(o, "# improvement: %s\n", ESC_LINE(rr->improvements[k]));
			switch (rr->verdict) {
			case PC_GATE_FAIL:
				nfail++;
				pc_outf(o, "not ok %d %s: %s\n", n, ESC_TAP(label),
					pc_gate_rule_name(r));
				break;
			case PC_GATE_NOT_JUDGED:
				nskip++;
				pc_outf(o, "ok %d %s: %s # SKIP %s\n", n, ESC_TAP(label),
					pc_gate_rule_name(r),
					ESC_TAP(rr->not_judged ? rr->not_judged : "not judged"));
				break;
			default:
				npass++;
				pc_outf(o, "ok %d %s: %s%s\n", n, ESC_TAP(label),
					pc_gate_rule_name(r),
					rr->verdict == PC_GATE_WARN ? " (warning, see above)" : "");
				break;
			}
		}
	}
	pc_outf(o, "# %s\n", pc_gate_decision(g));
	/* What is counted: a rule passes (or warns), fails or is not judged. */
	pc_outf(o, "# Totals: pass:%d fail:%d skip:%d\n", npass, nfail, nskip);
}
