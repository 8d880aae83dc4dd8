// SPDX-License-Identifier: GPL-2.0
/*
 * ptecheck gate: performance-regression, the median latency and the run
 * duration over repeated runs.
 */
#include <stdlib.h>
#include "gate_rules.h"

/* ---- rule 4: performance-regression -------------------------------------- */

/* The low bound of the bucket holding the median sample; -1 if no samples. */
static double hist_median_low(const struct pc_hist_report *h)
{
	__u64 t = pc_hist_report_total(h), want, acc = 0;
	int i;

	if (!t)
		return -1;
	want = (t - 1) / 2; /* 0-based index of the (lower) median sample */
	for (i = 0; i < PC_HIST_SLOTS; i++) {
		acc = pc_sat_add(acc, h->slots[i]);
		if (acc > want)
			return (double)pc_hist_slot_low(h->kind, i);
	}
	return (double)pc_hist_slot_low(h->kind, PC_HIST_SLOTS - 1);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Sorts v in place; returns the median. */
static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Values of one metric per run: latency median bucket, or duration (latency == NULL). */
static int metric_values(const struct pc_gate_side *s, const char *latency, double *v)
{
	int i, n = 0;

	for (i = 0; i < s->n_runs; i++) {
		if (latency) {
			double m = hist_median_low(pc_report_find_hist(s->runs[i], latency));

			if (m >= 0)
				v[n++] = m;
		} else {
			v[n++] = s->runs[i]->duration_s;
		}
	}
	return n;
}

/* Returns 1 if regressed, 0 otherwise; notes the comparison either way. */
static int perf_metric(struct pc_gate_group *g, const struct pc_gate_policy *pol, const char *what,
		       const char *unit, const char *latency, int *judged)
{
	struct pc_gate_rule_result *rr = &g->rules[PC_GATE_RULE_PERF];
	double thr = pol->perf_threshold_pct / 100.0;
	double *bv, *cv, bmed, cmed, pct;
	int nb, nc, ret = 0;

	bv = calloc((size_t)g->base.n_runs + 1, sizeof(*bv));
	cv = calloc((size_t)g->cand.n_runs + 1, sizeof(*cv));
	if (!bv || !cv) {
		free(bv);
		free(cv);
		pc_gate_add_finding(rr, false, "%s: not judged: out of memory", what);
		return 0;
	}
	nb = metric_values(&g->base, latency, bv);
	nc = metric_values(&g->cand, latency, cv);
	if (nb < pol->perf_min_runs || nc < pol->perf_min_runs) {
		pc_gate_add_finding(
			rr, false,
			"%s: not judged: need >= %d runs with it per side (baseline %d, "
			"candidate %d)",
			what, pol->perf_min_runs, nb, nc);
		goto out;
	}
	(*judged)++;
	bmed = median(bv, nb); /* sorted now: [0] best, [n-1] worst */
	cmed = median(cv, nc);
	pct = bmed > 0 ? 100.0 * (cmed - bmed) / bmed : 0;
	if (cmed > bmed * (1 + thr) && cv[0] > bv[nb - 1]) {
		struct pc_gate_finding *f;

		ret = 1;
		f = pc_gate_add_finding(
			rr, true, "slower: %s median %.6g -> %.6g %s (%+.1f%%, threshold %g%%)",
			what, bmed, cmed, unit, pct, pol->perf_threshold_pct);
		if (f) {
			char buf[PC_GATE_MSG_MAX];

			snprintf(buf, sizeof(buf),
				 "runs do not overlap: candidate best %.6g > baseline worst %.6g "
				 "(%d vs %d runs)",
				 cv[0], bv[nb - 1], nc, nb);
			f->evidence = strdup(buf);
		}
	} else if (bmed > cmed * (1 + thr) && cv[nc - 1] < bv[0]) {
		pc_gate_add_improvement(rr, "faster: %s median %.6g -> %.6g %s (%+.1f%%)", what,
					bmed, cmed, unit, pct);
		pc_gate_add_finding(rr, false, "%s median %.6g -> %.6g %s (faster)", what, bmed,
				    cmed, unit);
	} else {
		pc_gate_add_finding(
			rr, false,
			"%s median %.6g -> %.6g %s (%+.1f%%): not a regression (threshold "
			"%g%%, runs %s)",
			what, bmed, cmed, unit, pct, pol->perf_threshold_pct,
			cv[0] > bv[nb - 1] || cv[nc - 1] < bv[0] ? "disjoint" : "overlap");
	}
out:
	free(bv);
	free(cv);
	return ret;
}

void pc_gate_rule_perf(struct pc_gate_group *g, const struct pc_gate_policy *pol)
{
	struct pc_gate_rule_result *rr = &g->rules[PC_GATE_RULE_PERF];
	const struct pc_hist_report *h;
	int found = 0, judged = 0;
	char what[96];

	if (pc_gate_no_baseline(g, rr))
		return;
	if (g->base.n_runs < pol->perf_min_runs || g->cand.n_runs < pol->perf_min_runs) {
		/* One run says nothing about noise: never fail on it. */
		pc_gate_not_judged(rr, "need >= %d runs per side (baseline %d, candidate %d)",
				   pol->perf_min_runs, g->base.n_runs, g->cand.n_runs);
		return;
	}
	h = pc_report_find_hist(g->cand.merged, pol->latency_histogram);
	if (!h)
		h = pc_report_find_hist(g->base.merged, pol->latency_histogram);
	/* The policy names it by id; people read its title. */
	snprintf(what, sizeof(what), "%s", h ? h->name : pol->latency_histogram);
	found += perf_metric(g, pol, what, h && h->unit[0] ? h->unit : "", pol->latency_histogram,
			     &judged);
	found += perf_metric(g, pol, "run duration", "s", NULL, &judged);
	if (!judged && !found) {
		pc_gate_not_judged(rr, "no metric had >= %d runs per side", pol->perf_min_runs);
		return;
	}
	pc_gate_settle(rr, found, pol->performance_regression);
}
