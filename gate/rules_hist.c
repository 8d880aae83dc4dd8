// SPDX-License-Identifier: GPL-2.0
/*
 * ptecheck gate: the two rules on histograms and timings,
 * batching-regression (mean batch size) and performance-regression
 * (median latency and run duration, over repeated runs).
 */
#include <stdlib.h>
#include "gate_rules.h"

/* ---- rule 3: batching-regression ----------------------------------------- */

/*
 * Count-weighted mean of the bucket midpoints: exact for the linear
 * buckets (1..16), the midpoint for log2 ones, the low bound for the last
 * (open-ended) slot.
 */
static double hist_mean(const struct pc_hist_report *h)
{
	long double sum = 0, n = 0;
	int i;

	for (i = 0; i < PC_HIST_SLOTS; i++) {
		__u64 lo = pc_hist_slot_low(h->kind, i), hi = pc_hist_slot_high(h->kind, i);
		long double mid = i == PC_HIST_SLOTS - 1 ? (long double)lo
							 : ((long double)lo + (long double)hi) / 2;

		sum += mid * h->slots[i];
		n += h->slots[i];
	}
	return n > 0 ? (double)(sum / n) : 0.0;
}

/* The highest non-empty slot, -1 if none. */
static int top_slot(const struct pc_hist_report *h)
{
	int i;

	for (i = PC_HIST_SLOTS - 1; i >= 0; i--)
		if (h->slots[i])
			return i;
	return -1;
}

static double slot_share(const struct pc_hist_report *h, __u64 lo)
{
	__u64 t = pc_hist_report_total(h);
	__u32 slot;

	if (!t)
		return 0;
	slot = pc_hist_slot(h->kind, lo);
	if (pc_hist_slot_low(h->kind, slot) != lo)
		return 0;
	return 100.0 * (double)h->slots[slot] / (double)t;
}

/* The smallest and largest per-run mean of histogram name on one side;
   false when a run lacks it or has no events. */
static bool run_mean_range(const struct pc_gate_side *side, const char *name, double *lo,
			   double *hi)
{
	for (int r = 0; r < side->n_runs; r++) {
		const struct pc_hist_report *h = pc_report_find_hist(side->runs[r], name);
		double m;

		if (!h || !pc_hist_report_total(h))
			return false;
		m = hist_mean(h);
		if (r == 0 || m < *lo)
			*lo = m;
		if (r == 0 || m > *hi)
			*hi = m;
	}
	return side->n_runs > 0;
}

/* Events in the candidate only: newly observable is not better unless it batches. */
static void batch_new(struct pc_gate_rule_result *rr, const struct pc_hist_report *ch,
		      const struct pc_hist_report *bh, double tol)
{
	double cm = hist_mean(ch);

	if (cm > 1.0 + tol)
		pc_gate_add_improvement(rr,
					"batching improved: %s now observed, mean %.1f (%s in the "
					"baseline)",
					ch->name, cm, bh ? "no events" : "absent");
	else
		pc_gate_add_finding(rr, false,
				    "%s now observed, mean %.1f: no batching (%s in the baseline)",
				    ch->name, cm, bh ? "no events" : "absent");
}

/* The finding of a drop; its evidence, the largest baseline bucket's share on both sides. */
static void batch_regressed(struct pc_gate_rule_result *rr, const struct pc_gate_policy *pol,
			    const struct pc_hist_report *ch, const struct pc_hist_report *bh,
			    double bm, double cm, double pct)
{
	int top = top_slot(bh);
	__u64 top_lo = pc_hist_slot_low(bh->kind, top);
	struct pc_gate_finding *f;
	char buf[PC_GATE_MSG_MAX];

	f = pc_gate_add_finding(
		rr, true, "batching regressed: %s mean %.1f -> %.1f (%+.1f%%, tolerance %g%%)",
		ch->name, bm, cm, pct, pol->batching_tolerance_pct);
	if (!f)
		return;
	snprintf(buf, sizeof(buf),
		 "largest baseline bucket %llu%s %s: %.1f%% of %llu -> %.1f%% of %llu",
		 (unsigned long long)top_lo, pc_hist_slot_high(bh->kind, top) > top_lo ? "+" : "",
		 bh->unit, slot_share(bh, top_lo), (unsigned long long)pc_hist_report_total(bh),
		 slot_share(ch, top_lo), (unsigned long long)pc_hist_report_total(ch));
	f->evidence = strdup(buf);
}

/* One batch histogram with events on both sides; 1 if it regressed. */
static int batch_compare(struct pc_gate_group *g, const struct pc_gate_policy *pol,
			 const struct pc_hist_report *ch, const struct pc_hist_report *bh)
{
	struct pc_gate_rule_result *rr = &g->rules[PC_GATE_RULE_BATCHING];
	double tol = pol->batching_tolerance_pct / 100.0;
	double cm = hist_mean(ch), bm = hist_mean(bh);
	double pct = bm > 0 ? 100.0 * (cm - bm) / bm : 0;

	if (cm < bm * (1 - tol) && g->base.n_runs >= 2 && g->cand.n_runs >= 2) {
		/* Repeated runs: a drop counts only beyond the runs' spread. */
		double blo = 0, bhi = 0, clo = 0, chi = 0;

		if (run_mean_range(&g->base, ch->name, &blo, &bhi) &&
		    run_mean_range(&g->cand, ch->name, &clo, &chi) && chi >= blo) {
			pc_gate_add_finding(
				rr, false,
				"%s mean %.1f -> %.1f (%+.1f%%) within the runs' spread "
				"(baseline %.1f..%.1f, candidate %.1f..%.1f)",
				ch->name, bm, cm, pct, blo, bhi, clo, chi);
			return 0;
		}
	}
	if (cm < bm * (1 - tol)) {
		batch_regressed(rr, pol, ch, bh, bm, cm, pct);
		return 1;
	}
	if (cm > bm * (1 + tol)) {
		pc_gate_add_improvement(rr, "batching improved: %s mean %.1f -> %.1f (%+.1f%%)",
					ch->name, bm, cm, pct);
		pc_gate_add_finding(rr, false, "%s mean %.1f -> %.1f (improved)", ch->name, bm, cm);
	} else {
		pc_gate_add_finding(rr, false, "%s mean %.1f -> %.1f (%+.1f%%, within %g%%)",
				    ch->name, bm, cm, pct, pol->batching_tolerance_pct);
	}
	return 0;
}

void pc_gate_rule_batching(struct pc_gate_group *g, const struct pc_gate_policy *pol)
{
	struct pc_gate_rule_result *rr = &g->rules[PC_GATE_RULE_BATCHING];
	int i, found = 0, compared = 0;

	if (pc_gate_no_baseline(g, rr))
		return;
	for (i = 0; i < g->cand.merged->n_hists; i++) {
		const struct pc_hist_report *ch = &g->cand.merged->hists[i];
		const struct pc_hist_report *bh = pc_report_find_hist(g->base.merged, ch->name);

		if (!pc_gate_is_batch_hist(pol, ch->name) || !pc_hist_report_total(ch))
			continue;
		if (!bh || !pc_hist_report_total(bh)) {
			batch_new(rr, ch, bh, pol->batching_tolerance_pct / 100.0);
			continue;
		}
		compared++;
		found += batch_compare(g, pol, ch, bh);
	}
	if (!compared && !found) {
		pc_gate_not_judged(rr,
				   "no batch histogram with events in both baseline and candidate");
		return;
	}
	pc_gate_settle(rr, found, pol->batching_regression);
}

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
	snprintf(what, sizeof(what), "%s", pol->latency_histogram);
	found += perf_metric(g, pol, what, h && h->unit[0] ? h->unit : "", pol->latency_histogram,
			     &judged);
	found += perf_metric(g, pol, "run duration", "s", NULL, &judged);
	if (!judged && !found) {
		pc_gate_not_judged(rr, "no metric had >= %d runs per side", pol->perf_min_runs);
		return;
	}
	pc_gate_settle(rr, found, pol->performance_regression);
}
