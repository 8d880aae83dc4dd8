// SPDX-License-Identifier: GPL-2.0
/*
 * ptecheck gate: grouping reports by (machine, suite, scale), merging
 * repeated runs, and the four rules.  A rule that cannot judge says so
 * (NOT_JUDGED with the reason); it never passes by default on missing data
 * that should have been there: such input is refused before the rules run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "gate.h"

#define MSG_MAX 1024

const char *pc_gate_rule_name(enum pc_gate_rule_id id)
{
	switch (id) {
	case PC_GATE_RULE_INVARIANT:
		return "invariant-failure";
	case PC_GATE_RULE_COVERAGE:
		return "coverage-loss";
	case PC_GATE_RULE_BATCHING:
		return "batching-regression";
	case PC_GATE_RULE_PERF:
		return "performance-regression";
	default:
		return "unknown";
	}
}

const char *pc_gate_verdict_name(enum pc_gate_verdict v)
{
	switch (v) {
	case PC_GATE_PASS:
		return "pass";
	case PC_GATE_WARN:
		return "warn";
	case PC_GATE_FAIL:
		return "fail";
	case PC_GATE_NOT_JUDGED:
		return "not-judged";
	}
	return "fail";
}

const char *pc_gate_status_name(enum pc_gate_status s)
{
	switch (s) {
	case PC_GATE_ST_PASS:
		return "pass";
	case PC_GATE_ST_SKIP:
		return "skip";
	case PC_GATE_ST_MISSING:
		return "missing";
	case PC_GATE_ST_FAIL:
		return "fail";
	}
	return "fail";
}

/* ---- findings ------------------------------------------------------------ */

static char *vfmt(const char *fmt, va_list ap)
{
	char buf[MSG_MAX];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	return strdup(buf);
}

/* Out of memory drops the text but never the verdict (set by the caller). */
static struct pc_gate_finding *__attribute__((format(printf, 3, 4)))
add_finding(struct pc_gate_rule_result *rr, bool problem, const char *fmt, ...)
{
	struct pc_gate_finding *f;
	va_list ap;

	if (rr->n_findings >= rr->cap_findings) {
		int ncap = rr->cap_findings ? rr->cap_findings * 2 : 8;
		void *p = realloc(rr->findings, (size_t)ncap * sizeof(*f));

		if (!p)
			return NULL;
		rr->findings = p;
		rr->cap_findings = ncap;
	}
	f = &rr->findings[rr->n_findings];
	memset(f, 0, sizeof(*f));
	f->problem = problem;
	va_start(ap, fmt);
	f->text = vfmt(fmt, ap);
	va_end(ap);
	if (!f->text)
		return NULL;
	rr->n_findings++;
	return f;
}

static void __attribute__((format(printf, 2, 3)))
add_improvement(struct pc_gate_rule_result *rr, const char *fmt, ...)
{
	va_list ap;
	char *s;

	if (rr->n_improvements >= rr->cap_improvements) {
		int ncap = rr->cap_improvements ? rr->cap_improvements * 2 : 8;
		void *p = realloc(rr->improvements, (size_t)ncap * sizeof(char *));

		if (!p)
			return;
		rr->improvements = p;
		rr->cap_improvements = ncap;
	}
	va_start(ap, fmt);
	s = vfmt(fmt, ap);
	va_end(ap);
	if (s)
		rr->improvements[rr->n_improvements++] = s;
}

static void __attribute__((format(printf, 2, 3)))
not_judged(struct pc_gate_rule_result *rr, const char *fmt, ...)
{
	va_list ap;

	rr->verdict = PC_GATE_NOT_JUDGED;
	free(rr->not_judged);
	va_start(ap, fmt);
	rr->not_judged = vfmt(fmt, ap);
	va_end(ap);
}

static int n_problems(const struct pc_gate_rule_result *rr)
{
	int i, n = 0;

	for (i = 0; i < rr->n_findings; i++)
		n += rr->findings[i].problem;
	return n;
}

/*
 * Problems were found when `found`: the policy decides between failing and
 * reporting.  Counted separately from the findings so that an allocation
 * failure cannot turn a regression into a pass.
 */
static void settle(struct pc_gate_rule_result *rr, int found, enum pc_gate_action action)
{
	if (found || n_problems(rr))
		rr->verdict = action == PC_GATE_ACTION_FAIL ? PC_GATE_FAIL : PC_GATE_WARN;
	else if (rr->verdict != PC_GATE_NOT_JUDGED)
		rr->verdict = PC_GATE_PASS;
}

/* ---- grouping and merging ------------------------------------------------ */

static bool same_key(const struct pc_report *a, const char *machine, const char *suite,
		     unsigned int scale)
{
	return !strncmp(a->machine, machine, sizeof(a->machine)) &&
	       !strncmp(a->suite, suite, sizeof(a->suite)) && a->scale == scale;
}

static int side_add(struct pc_gate_side *s, const char *file, const struct pc_report *r)
{
	const char **nf;
	const struct pc_report **nr;

	nf = realloc(s->files, (size_t)(s->n_runs + 1) * sizeof(*nf));
	if (!nf)
		return -1;
	s->files = nf;
	nr = realloc(s->runs, (size_t)(s->n_runs + 1) * sizeof(*nr));
	if (!nr)
		return -1;
	s->runs = nr;
	s->files[s->n_runs] = file;
	s->runs[s->n_runs] = r;
	s->n_runs++;
	return 0;
}

static __u64 sat_add(__u64 a, __u64 b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

static struct pc_hist_report *find_hist(const struct pc_report *r, const char *name)
{
	int i;

	for (i = 0; r && i < r->n_hists; i++)
		if (!strncmp(r->hists[i].name, name, sizeof(r->hists[i].name)))
			return &r->hists[i];
	return NULL;
}

static __u64 hist_total(const struct pc_hist_report *h)
{
	__u64 t = 0;
	int i;

	for (i = 0; h && i < PC_HIST_SLOTS; i++)
		t = sat_add(t, h->slots[i]);
	return t;
}

/* Worse status wins: fail, then skip, then pass. */
static int rank(enum pc_status st)
{
	return st == PC_STATUS_FAIL ? 2 : st == PC_STATUS_SKIP ? 1 : 0;
}

static int merge_side(struct pc_gate_side *s, const char *suite, char *err, size_t errlen)
{
	int i, j, k;

	s->merged = pc_report_new("run", suite);
	if (!s->merged)
		goto oom;
	for (i = 0; i < s->n_runs; i++) {
		const struct pc_report *r = s->runs[i];

		for (j = 0; j < r->n_results; j++) {
			const struct pc_result *src = &r->results[j];
			struct pc_result *m =
				pc_report_find_result(s->merged, src->name, src->tier);

			if (!m) {
				m = pc_report_add_result(s->merged, src->name, src->tier,
							 src->in_kernel);
				if (!m)
					goto oom;
				*m = *src;
			} else if (rank(src->status) > rank(m->status)) {
				/* Keep the summary and evidence of the worst run. */
				*m = *src;
			}
		}
		for (j = 0; j < r->n_hists; j++) {
			const struct pc_hist_report *src = &r->hists[j];
			struct pc_hist_report *m = find_hist(s->merged, src->name);

			if (!m) {
				m = pc_report_add_hist(s->merged, src->name, src->unit, src->source,
						       src->in_kernel, src->kind);
				if (!m)
					goto oom;
			} else if (m->kind != src->kind) {
				pc_set_err(err, errlen,
					   "%s: histogram \"%s\" is %s here but %s in %s: runs of "
					   "different ptecheck versions cannot be merged",
					   s->files[i], src->name,
					   src->kind == PC_HIST_LINLOG ? "linlog" : "log2",
					   m->kind == PC_HIST_LINLOG ? "linlog" : "log2",
					   s->files[0]);
				return -1;
			}
			for (k = 0; k < PC_HIST_SLOTS; k++)
				m->slots[k] = sat_add(m->slots[k], src->slots[k]);
		}
	}
	return 0;
oom:
	pc_set_err(err, errlen, "out of memory");
	return -1;
}

/* A check's status over the runs of a side; absent from one run counts as skipped there. */
static enum pc_gate_status side_status(const struct pc_gate_side *s, const char *check,
				       const char *tier)
{
	int i, found = 0, worst = 0;

	for (i = 0; i < s->n_runs; i++) {
		const struct pc_result *res =
			pc_report_find_result((struct pc_report *)s->runs[i], check, tier);

		if (!res) {
			worst = worst > 1 ? worst : 1;
			continue;
		}
		found++;
		if (rank(res->status) > worst)
			worst = rank(res->status);
	}
	if (!found)
		return PC_GATE_ST_MISSING;
	return worst == 2 ? PC_GATE_ST_FAIL : worst == 1 ? PC_GATE_ST_SKIP : PC_GATE_ST_PASS;
}

static int add_row(struct pc_gate_group *g, const struct pc_result *res, int *cap)
{
	struct pc_gate_check_row *row;
	int i;

	for (i = 0; i < g->n_rows; i++)
		if (!strcmp(g->rows[i].check, res->name) && !strcmp(g->rows[i].tier, res->tier))
			return 0;
	if (g->n_rows >= *cap) {
		int ncap = *cap ? *cap * 2 : 32;
		void *p = realloc(g->rows, (size_t)ncap * sizeof(*row));

		if (!p)
			return -1;
		g->rows = p;
		*cap = ncap;
	}
	row = &g->rows[g->n_rows++];
	memset(row, 0, sizeof(*row));
	snprintf(row->check, sizeof(row->check), "%.*s", (int)strnlen(res->name, 47), res->name);
	snprintf(row->tier, sizeof(row->tier), "%.*s", (int)strnlen(res->tier, 47), res->tier);
	row->base =
		g->has_baseline ? side_status(&g->base, row->check, row->tier) : PC_GATE_ST_MISSING;
	row->cand = side_status(&g->cand, row->check, row->tier);
	return 0;
}

static int build_rows(struct pc_gate_group *g)
{
	int i, cap = 0;

	for (i = 0; i < g->cand.merged->n_results; i++)
		if (add_row(g, &g->cand.merged->results[i], &cap))
			return -1;
	for (i = 0; g->base.merged && i < g->base.merged->n_results; i++)
		if (add_row(g, &g->base.merged->results[i], &cap))
			return -1;
	return 0;
}

/* ---- rule 1: invariant-failure ------------------------------------------- */

static void rule_invariant(struct pc_gate_group *g)
{
	struct pc_gate_rule_result *rr = &g->rules[PC_GATE_RULE_INVARIANT];
	int i, j, found = 0;

	for (i = 0; i < g->n_rows; i++) {
		const struct pc_gate_check_row *row = &g->rows[i];
		const struct pc_result *first = NULL;
		const char *file = NULL, *release = NULL;
		struct pc_gate_finding *f;
		char runs[48];
		int nfail = 0;

		if (row->cand != PC_GATE_ST_FAIL)
			continue;
		found++;
		for (j = 0; j < g->cand.n_runs; j++) {
			const struct pc_result *res = pc_report_find_result(
				(struct pc_report *)g->cand.runs[j], row->check, row->tier);

			if (!res || res->status != PC_STATUS_FAIL)
				continue;
			if (!first) {
				first = res;
				file = g->cand.files[j];
				release = g->cand.runs[j]->kernel_release;
			}
			nfail++;
		}
		if (!first)
			continue;
		if (g->cand.n_runs > 1)
			snprintf(runs, sizeof(runs), ", %d of %d runs", nfail, g->cand.n_runs);
		else
			runs[0] = '\0';
		f = add_finding(rr, true, "%s [%s] failed on %s (kernel %s, %s%s): %s%s",
				row->check, row->tier, g->machine, release, file, runs,
				row->base == PC_GATE_ST_FAIL ? "also failed in the baseline; " : "",
				first->summary);
		/* The counters say how many; the first evidence says what. */
		if (f && first->n_evidence > 0) {
			const struct pc_evidence *ev = &first->evidence[0];
			char buf[MSG_MAX];

			snprintf(buf, sizeof(buf),
				 "%llu violations; first: pid %d addr 0x%llx -> 0x%llx: expected "
				 "0x%llx seen 0x%llx (%s)",
				 (unsigned long long)first->violations, ev->pid,
				 (unsigned long long)ev->addr, (unsigned long long)ev->new_addr,
				 (unsigned long long)ev->expected, (unsigned long long)ev->seen,
				 ev->what);
			f->evidence = strdup(buf);
		} else if (f) {
			char buf[128];

			snprintf(buf, sizeof(buf), "%llu violations, no evidence recorded",
				 (unsigned long long)first->violations);
			f->evidence = strdup(buf);
		}
	}
	if (!found) {
		int checks = 0;

		for (i = 0; i < g->n_rows; i++)
			checks += g->rows[i].cand == PC_GATE_ST_PASS;
		add_finding(rr, false, "no check failed in %d candidate run%s (%d checks passed)",
			    g->cand.n_runs, g->cand.n_runs == 1 ? "" : "s", checks);
	}
	/* A failed invariant always fails the gate: no policy turns it off. */
	settle(rr, found, PC_GATE_ACTION_FAIL);
}

/* ---- rule 2: coverage-loss ----------------------------------------------- */

static const char *cand_summary(const struct pc_gate_group *g, const char *check, const char *tier)
{
	const struct pc_result *res = pc_report_find_result(g->cand.merged, check, tier);

	return res && res->summary[0] ? res->summary : "no reason given";
}

static void rule_coverage(struct pc_gate_group *g, const struct pc_gate_policy *pol)
{
	struct pc_gate_rule_result *rr = &g->rules[PC_GATE_RULE_COVERAGE];
	int i, found = 0, kept = 0;

	if (!g->has_baseline) {
		not_judged(rr, "no baseline for %s (allowed by the policy)", g->machine);
		return;
	}
	for (i = 0; i < g->n_rows; i++) {
		const struct pc_gate_check_row *row = &g->rows[i];

		if (row->base == PC_GATE_ST_PASS && row->cand == PC_GATE_ST_PASS)
			kept++;
		if (row->base == PC_GATE_ST_PASS &&
		    (row->cand == PC_GATE_ST_SKIP || row->cand == PC_GATE_ST_MISSING)) {
			found++;
			if (row->cand == PC_GATE_ST_MISSING)
				add_finding(rr, true,
					    "%s [%s] passed in the baseline, missing in the "
					    "candidate",
					    row->check, row->tier);
			else
				add_finding(rr, true,
					    "%s [%s] passed in the baseline, skipped in the "
					    "candidate: %s",
					    row->check, row->tier,
					    cand_summary(g, row->check, row->tier));
		}
		if ((row->base == PC_GATE_ST_SKIP || row->base == PC_GATE_ST_MISSING) &&
		    row->cand == PC_GATE_ST_PASS)
			add_improvement(rr, "coverage gained: %s [%s] %s -> pass", row->check,
					row->tier, pc_gate_status_name(row->base));
	}
	/* A batch histogram the baseline had and the candidate lost: a hook tier went. */
	for (i = 0; i < g->base.merged->n_hists; i++) {
		const struct pc_hist_report *bh = &g->base.merged->hists[i];
		const struct pc_hist_report *ch = find_hist(g->cand.merged, bh->name);

		if (!pc_gate_is_batch_hist(pol, bh->name) || !hist_total(bh) || hist_total(ch))
			continue;
		found++;
		add_finding(rr, true,
			    "histogram \"%s\" has %llu events in the baseline, %s in the candidate",
			    bh->name, (unsigned long long)hist_total(bh), ch ? "none" : "absent");
	}
	add_finding(rr, false, "check tiers that passed in both: %d", kept);
	settle(rr, found, pol->coverage_loss);
}

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
	__u64 t = hist_total(h);
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
		const struct pc_hist_report *h = find_hist(side->runs[r], name);
		double m;

		if (!h || !hist_total(h))
			return false;
		m = hist_mean(h);
		if (r == 0 || m < *lo)
			*lo = m;
		if (r == 0 || m > *hi)
			*hi = m;
	}
	return side->n_runs > 0;
}

static void rule_batching(struct pc_gate_group *g, const struct pc_gate_policy *pol)
{
	struct pc_gate_rule_result *rr = &g->rules[PC_GATE_RULE_BATCHING];
	double tol = pol->batching_tolerance_pct / 100.0;
	int i, found = 0, compared = 0;

	if (!g->has_baseline) {
		not_judged(rr, "no baseline for %s (allowed by the policy)", g->machine);
		return;
	}
	for (i = 0; i < g->cand.merged->n_hists; i++) {
		const struct pc_hist_report *ch = &g->cand.merged->hists[i];
		const struct pc_hist_report *bh = find_hist(g->base.merged, ch->name);
		double bm, cm, pct;
		__u64 top_lo;
		int top;

		if (!pc_gate_is_batch_hist(pol, ch->name) || !hist_total(ch))
			continue;
		cm = hist_mean(ch);
		if (!bh || !hist_total(bh)) {
			/* Newly observable is not better unless it batches. */
			if (cm > 1.0 + tol)
				add_improvement(rr,
						"batching improved: %s now observed, mean %.1f (%s "
						"in the baseline)",
						ch->name, cm, bh ? "no events" : "absent");
			else
				add_finding(rr, false,
					    "%s now observed, mean %.1f: no batching (%s in the "
					    "baseline)",
					    ch->name, cm, bh ? "no events" : "absent");
			continue;
		}
		compared++;
		bm = hist_mean(bh);
		pct = bm > 0 ? 100.0 * (cm - bm) / bm : 0;
		top = top_slot(bh);
		top_lo = pc_hist_slot_low(bh->kind, top);
		if (cm < bm * (1 - tol) && g->base.n_runs >= 2 && g->cand.n_runs >= 2) {
			/* Repeated runs: a drop counts only beyond the runs' spread. */
			double blo = 0, bhi = 0, clo = 0, chi = 0;

			if (run_mean_range(&g->base, ch->name, &blo, &bhi) &&
			    run_mean_range(&g->cand, ch->name, &clo, &chi) && chi >= blo) {
				add_finding(
					rr, false,
					"%s mean %.1f -> %.1f (%+.1f%%) within the runs' spread "
					"(baseline %.1f..%.1f, candidate %.1f..%.1f)",
					ch->name, bm, cm, pct, blo, bhi, clo, chi);
				continue;
			}
		}
		if (cm < bm * (1 - tol)) {
			struct pc_gate_finding *f;

			found++;
			f = add_finding(rr, true,
					"batching regressed: %s mean %.1f -> %.1f (%+.1f%%, "
					"tolerance %g%%)",
					ch->name, bm, cm, pct, pol->batching_tolerance_pct);
			if (f) {
				char buf[MSG_MAX];

				snprintf(buf, sizeof(buf),
					 "largest baseline bucket %llu%s %s: %.1f%% of %llu -> "
					 "%.1f%% of %llu",
					 (unsigned long long)top_lo,
					 pc_hist_slot_high(bh->kind, top) > top_lo ? "+" : "",
					 bh->unit, slot_share(bh, top_lo),
					 (unsigned long long)hist_total(bh), slot_share(ch, top_lo),
					 (unsigned long long)hist_total(ch));
				f->evidence = strdup(buf);
			}
		} else if (cm > bm * (1 + tol)) {
			add_improvement(rr, "batching improved: %s mean %.1f -> %.1f (%+.1f%%)",
					ch->name, bm, cm, pct);
			add_finding(rr, false, "%s mean %.1f -> %.1f (improved)", ch->name, bm, cm);
		} else {
			add_finding(rr, false, "%s mean %.1f -> %.1f (%+.1f%%, within %g%%)",
				    ch->name, bm, cm, pct, pol->batching_tolerance_pct);
		}
	}
	if (!compared && !found) {
		not_judged(rr, "no batch histogram with events in both baseline and candidate");
		return;
	}
	settle(rr, found, pol->batching_regression);
}

/* ---- rule 4: performance-regression -------------------------------------- */

/* The low bound of the bucket holding the median sample; -1 if no samples. */
static double hist_median_low(const struct pc_hist_report *h)
{
	__u64 t = hist_total(h), want, acc = 0;
	int i;

	if (!t)
		return -1;
	want = (t - 1) / 2; /* 0-based index of the (lower) median sample */
	for (i = 0; i < PC_HIST_SLOTS; i++) {
		acc = sat_add(acc, h->slots[i]);
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
			double m = hist_median_low(find_hist(s->runs[i], latency));

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
		add_finding(rr, false, "%s: not judged: out of memory", what);
		return 0;
	}
	nb = metric_values(&g->base, latency, bv);
	nc = metric_values(&g->cand, latency, cv);
	if (nb < pol->perf_min_runs || nc < pol->perf_min_runs) {
		add_finding(rr, false,
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
		f = add_finding(rr, true,
				"slower: %s median %.6g -> %.6g %s (%+.1f%%, threshold %g%%)", what,
				bmed, cmed, unit, pct, pol->perf_threshold_pct);
		if (f) {
			char buf[MSG_MAX];

			snprintf(buf, sizeof(buf),
				 "runs do not overlap: candidate best %.6g > baseline worst %.6g "
				 "(%d vs %d runs)",
				 cv[0], bv[nb - 1], nc, nb);
			f->evidence = strdup(buf);
		}
	} else if (bmed > cmed * (1 + thr) && cv[nc - 1] < bv[0]) {
		add_improvement(rr, "faster: %s median %.6g -> %.6g %s (%+.1f%%)", what, bmed, cmed,
				unit, pct);
		add_finding(rr, false, "%s median %.6g -> %.6g %s (faster)", what, bmed, cmed,
			    unit);
	} else {
		add_finding(rr, false,
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

static void rule_perf(struct pc_gate_group *g, const struct pc_gate_policy *pol)
{
	struct pc_gate_rule_result *rr = &g->rules[PC_GATE_RULE_PERF];
	const struct pc_hist_report *h;
	int found = 0, judged = 0;
	char what[96];

	if (!g->has_baseline) {
		not_judged(rr, "no baseline for %s (allowed by the policy)", g->machine);
		return;
	}
	if (g->base.n_runs < pol->perf_min_runs || g->cand.n_runs < pol->perf_min_runs) {
		/* One run says nothing about noise: never fail on it. */
		not_judged(rr, "need >= %d runs per side (baseline %d, candidate %d)",
			   pol->perf_min_runs, g->base.n_runs, g->cand.n_runs);
		return;
	}
	h = find_hist(g->cand.merged, pol->latency_histogram);
	if (!h)
		h = find_hist(g->base.merged, pol->latency_histogram);
	snprintf(what, sizeof(what), "%s", pol->latency_histogram);
	found += perf_metric(g, pol, what, h && h->unit[0] ? h->unit : "", pol->latency_histogram,
			     &judged);
	found += perf_metric(g, pol, "run duration", "s", NULL, &judged);
	if (!judged && !found) {
		not_judged(rr, "no metric had >= %d runs per side", pol->perf_min_runs);
		return;
	}
	settle(rr, found, pol->performance_regression);
}

/* ---- evaluation ------------------------------------------------------------ */

static struct pc_gate_group *find_group(struct pc_gate_result *g, const struct pc_report *r)
{
	int i;

	for (i = 0; i < g->n_groups; i++)
		if (same_key(r, g->groups[i].machine, g->groups[i].suite, g->groups[i].scale))
			return &g->groups[i];
	return NULL;
}

/* Refuses input the rules cannot judge; the message names the files. */
static int match_baselines(const struct pc_gate_input *in, struct pc_gate_result *g, char *err,
			   size_t errlen)
{
	int i, j;

	for (i = 0; i < in->n_base; i++) {
		const struct pc_report *b = in->base[i];
		struct pc_gate_group *grp = find_group(g, b);

		if (grp) {
			grp->has_baseline = true;
			if (side_add(&grp->base, in->base_files[i], b))
				goto oom;
			continue;
		}
		for (j = 0; j < g->n_groups; j++) {
			if (strcmp(g->groups[j].machine, b->machine) != 0)
				continue;
			pc_set_err(
				err, errlen,
				"%s: different workloads: suite %s scale %u vs suite %s scale %u "
				"(candidate vs baseline %s, %s)",
				g->groups[j].cand.files[0], g->groups[j].suite, g->groups[j].scale,
				b->suite, b->scale, in->base_files[i], b->machine);
			return -1;
		}
		/* A candidate job that produced nothing must not pass silently. */
		pc_set_err(
			err, errlen,
			"%s: baseline for %s (suite %s scale %u) has no candidate report of that "
			"machine",
			in->base_files[i], b->machine, b->suite, b->scale);
		return -1;
	}
	for (i = 0; i < g->n_groups; i++) {
		struct pc_gate_group *grp = &g->groups[i];

		if (grp->has_baseline)
			continue;
		for (j = 0; j < in->n_base; j++) {
			if (strcmp(in->base[j]->machine, grp->machine) != 0)
				continue;
			pc_set_err(
				err, errlen,
				"%s: different workloads: suite %s scale %u vs suite %s scale %u "
				"(candidate vs baseline %s, %s)",
				grp->cand.files[0], grp->suite, grp->scale, in->base[j]->suite,
				in->base[j]->scale, in->base_files[j], grp->machine);
			return -1;
		}
		if (!in->policy.allow_no_baseline) {
			pc_set_err(err, errlen,
				   "%s: no baseline for %s (suite %s scale %u): give one with "
				   "--baseline, or set \"allow_no_baseline\": true in the policy",
				   grp->cand.files[0], grp->machine, grp->suite, grp->scale);
			return -1;
		}
	}
	return 0;
oom:
	pc_set_err(err, errlen, "out of memory");
	return -1;
}

int pc_gate_evaluate(const struct pc_gate_input *in, struct pc_gate_result **out, char *err,
		     size_t errlen)
{
	struct pc_gate_result *g;
	int i, r;

	*out = NULL;
	if (in->n_cand <= 0) {
		pc_set_err(err, errlen, "no candidate report");
		return -1;
	}
	g = calloc(1, sizeof(*g));
	if (!g)
		goto oom;
	g->policy = &in->policy;
	g->groups = calloc((size_t)in->n_cand, sizeof(*g->groups));
	if (!g->groups)
		goto oom;
	for (i = 0; i < in->n_cand; i++) {
		const struct pc_report *c = in->cand[i];
		struct pc_gate_group *grp = find_group(g, c);

		if (!grp) {
			grp = &g->groups[g->n_groups++];
			snprintf(grp->machine, sizeof(grp->machine), "%.*s",
				 (int)strnlen(c->machine, sizeof(c->machine)), c->machine);
			snprintf(grp->suite, sizeof(grp->suite), "%.*s",
				 (int)strnlen(c->suite, sizeof(c->suite)), c->suite);
			grp->scale = c->scale;
			for (r = 0; r < PC_GATE_RULE__COUNT; r++)
				grp->rules[r].rule = r;
		}
		if (side_add(&grp->cand, in->cand_files[i], c))
			goto oom;
	}
	if (match_baselines(in, g, err, errlen))
		goto fail;
	g->ship = true;
	for (i = 0; i < g->n_groups; i++) {
		struct pc_gate_group *grp = &g->groups[i];

		if (merge_side(&grp->cand, grp->suite, err, errlen) ||
		    (grp->has_baseline && merge_side(&grp->base, grp->suite, err, errlen)))
			goto fail;
		if (build_rows(grp))
			goto oom;
		rule_invariant(grp);
		rule_coverage(grp, &in->policy);
		rule_batching(grp, &in->policy);
		rule_perf(grp, &in->policy);
		for (r = 0; r < PC_GATE_RULE__COUNT; r++)
			if (grp->rules[r].verdict == PC_GATE_FAIL)
				g->ship = false;
	}
	*out = g;
	return 0;
oom:
	pc_set_err(err, errlen, "out of memory");
fail:
	pc_gate_result_free(g);
	return -1;
}

static void free_side(struct pc_gate_side *s)
{
	free(s->files);
	free(s->runs);
	pc_report_free(s->merged);
}

void pc_gate_result_free(struct pc_gate_result *g)
{
	int i, r, k;

	if (!g)
		return;
	for (i = 0; g->groups && i < g->n_groups; i++) {
		struct pc_gate_group *grp = &g->groups[i];

		free_side(&grp->base);
		free_side(&grp->cand);
		free(grp->rows);
		for (r = 0; r < PC_GATE_RULE__COUNT; r++) {
			struct pc_gate_rule_result *rr = &grp->rules[r];

			for (k = 0; k < rr->n_findings; k++) {
				free(rr->findings[k].text);
				free(rr->findings[k].evidence);
			}
			free(rr->findings);
			for (k = 0; k < rr->n_improvements; k++)
				free(rr->improvements[k]);
			free(rr->improvements);
			free(rr->not_judged);
		}
	}
	free(g->groups);
	free(g);
}
