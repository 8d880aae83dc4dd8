// SPDX-License-Identifier: GPL-2.0
/*
 * ptecheck gate: the words for rules, verdicts and statuses, findings, and
 * the two rules on check results: invariant-failure and coverage-loss.  A
 * rule that cannot judge says so (NOT_JUDGED with the reason); it never
 * passes by default on missing data that should have been there: such
 * input is refused before the rules run (evaluate.c).
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "gate_rules.h"

static const char *const rule_names[] = {
	[PC_GATE_RULE_INVARIANT] = "invariant-failure",
	[PC_GATE_RULE_COVERAGE] = "coverage-loss",
	[PC_GATE_RULE_BATCHING] = "batching-regression",
	[PC_GATE_RULE_PERF] = "performance-regression",
};

static const char *const verdict_names[] = {
	[PC_GATE_PASS] = "pass",
	[PC_GATE_WARN] = "warn",
	[PC_GATE_FAIL] = "fail",
	[PC_GATE_NOT_JUDGED] = "not-judged",
};

static const char *const status_names[] = {
	[PC_GATE_ST_PASS] = "pass",
	[PC_GATE_ST_SKIP] = "skip",
	[PC_GATE_ST_MISSING] = "missing",
	[PC_GATE_ST_FAIL] = "fail",
};

const char *pc_gate_rule_name(enum pc_gate_rule_id id)
{
	return pc_name_get(rule_names, PC_NAMES_N(rule_names), id, "unknown");
}

/* An unknown verdict or status is never taken for a pass. */
const char *pc_gate_verdict_name(enum pc_gate_verdict v)
{
	return pc_name_get(verdict_names, PC_NAMES_N(verdict_names), v, "fail");
}

const char *pc_gate_status_name(enum pc_gate_status s)
{
	return pc_name_get(status_names, PC_NAMES_N(status_names), s, "fail");
}

/* ---- findings ------------------------------------------------------------ */

static char *vfmt(const char *fmt, va_list ap)
{
	char buf[PC_GATE_MSG_MAX];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	return strdup(buf);
}

void *pc_gate_grow(void *arr, int n, int *cap, size_t elem, int first)
{
	int ncap;
	void *p;

	if (n < *cap)
		return arr;
	ncap = *cap ? *cap * 2 : first;
	p = realloc(arr, (size_t)ncap * elem);
	if (p)
		*cap = ncap;
	return p;
}

struct pc_gate_finding *pc_gate_add_finding(struct pc_gate_rule_result *rr, bool problem,
					    const char *fmt, ...)
{
	struct pc_gate_finding *f;
	va_list ap;

	f = pc_gate_grow(rr->findings, rr->n_findings, &rr->cap_findings, sizeof(*f), 8);
	if (!f)
		return NULL;
	rr->findings = f;
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

void pc_gate_add_improvement(struct pc_gate_rule_result *rr, const char *fmt, ...)
{
	char **arr, *s;
	va_list ap;

	arr = pc_gate_grow(rr->improvements, rr->n_improvements, &rr->cap_improvements,
			   sizeof(*arr), 8);
	if (!arr)
		return;
	rr->improvements = arr;
	va_start(ap, fmt);
	s = vfmt(fmt, ap);
	va_end(ap);
	if (s)
		rr->improvements[rr->n_improvements++] = s;
}

void pc_gate_not_judged(struct pc_gate_rule_result *rr, const char *fmt, ...)
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

bool pc_gate_no_baseline(const struct pc_gate_group *g, struct pc_gate_rule_result *rr)
{
	if (g->has_baseline)
		return false;
	pc_gate_not_judged(rr, "no baseline for %s (allowed by the policy)", g->machine);
	return true;
}

void pc_gate_settle(struct pc_gate_rule_result *rr, int found, enum pc_gate_action action)
{
	if (found || n_problems(rr))
		rr->verdict = action == PC_GATE_ACTION_FAIL ? PC_GATE_FAIL : PC_GATE_WARN;
	else if (rr->verdict != PC_GATE_NOT_JUDGED)
		rr->verdict = PC_GATE_PASS;
}

/* ---- rule 1: invariant-failure ------------------------------------------- */

/* Rule 1 when no check failed: 0, or 1 when the candidate judged no
   invariant at all (green on nothing is no pass: those runs exited 4). */
static int nothing_failed(const struct pc_gate_group *g, struct pc_gate_rule_result *rr)
{
	int checks = 0, invariants = 0;

	for (int i = 0; i < g->n_rows; i++) {
		checks += g->rows[i].cand == PC_GATE_ST_PASS;
		invariants += g->rows[i].cand == PC_GATE_ST_PASS &&
			      strcmp(g->rows[i].tier, PC_TIER_KMSG) != 0;
	}
	if (invariants) {
		pc_gate_add_finding(rr, false,
				    "no check failed in %d candidate run%s (%d checks passed)",
				    g->cand.n_runs, g->cand.n_runs == 1 ? "" : "s", checks);
		return 0;
	}
	pc_gate_add_finding(rr, true,
			    "no invariant check ran in %d candidate run%s (%s): nothing says this "
			    "kernel keeps them",
			    g->cand.n_runs, g->cand.n_runs == 1 ? "" : "s",
			    checks ? "only the kernel log was read" : "every check skipped");
	return 1;
}

void pc_gate_rule_invariant(struct pc_gate_group *g)
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
		f = pc_gate_add_finding(
			rr, true, "%s [%s] failed on %s (kernel %s, %s%s): %s%s", row->check,
			row->tier, g->machine, release, file, runs,
			row->base == PC_GATE_ST_FAIL ? "also failed in the baseline; " : "",
			first->summary);
		/* The counters say how many; the first evidence says what. */
		if (f && first->n_evidence > 0) {
			const struct pc_evidence *ev = &first->evidence[0];
			char buf[PC_GATE_MSG_MAX];

			if (ev->lines[0]) /* the kernel's words: no addresses to give */
				snprintf(buf, sizeof(buf), "%llu violations; first: pid %d: %s",
					 (unsigned long long)first->violations, ev->pid, ev->what);
			else
				snprintf(buf, sizeof(buf),
					 "%llu violations; first: pid %d addr 0x%llx -> 0x%llx: "
					 "expected 0x%llx seen 0x%llx (%s)",
					 (unsigned long long)first->violations, ev->pid,
					 (unsigned long long)ev->addr,
					 (unsigned long long)ev->new_addr,
					 (unsigned long long)ev->expected,
					 (unsigned long long)ev->seen, ev->what);
			f->evidence = strdup(buf);
		} else if (f) {
			char buf[128];

			snprintf(buf, sizeof(buf), "%llu violations, no evidence recorded",
				 (unsigned long long)first->violations);
			f->evidence = strdup(buf);
		}
	}
	if (!found)
		found = nothing_failed(g, rr);
	/* A failed invariant always fails the gate: no policy turns it off. */
	pc_gate_settle(rr, found, PC_GATE_ACTION_FAIL);
}

/* ---- rule 2: coverage-loss ----------------------------------------------- */

static const char *cand_summary(const struct pc_gate_group *g, const char *check, const char *tier)
{
	const struct pc_result *res = pc_report_find_result(g->cand.merged, check, tier);

	return res && res->summary[0] ? res->summary : "no reason given";
}

/*
 * Scenario variants that ran in the baseline and not in the candidate: a
 * check that passed without its ext4 variant has lost coverage.  A result
 * the candidate lacks is a row's finding; one without variants (schema 1,
 * or a kernel tier) cannot say.
 */
static int variant_losses(struct pc_gate_group *g, struct pc_gate_rule_result *rr)
{
	int found = 0;

	for (int i = 0; i < g->base.merged->n_results; i++) {
		const struct pc_result *b = &g->base.merged->results[i];
		const struct pc_result *c = pc_report_find_result(g->cand.merged, b->name, b->tier);

		if (!c || !pc_result_n_variants(c))
			continue;
		for (int v = 0; v < pc_result_n_variants(b); v++) {
			const struct pc_variant *bv = &b->variants[v];
			const struct pc_variant *cv = pc_result_find_variant(c, bv->scenario);

			if (bv->status != PC_STATUS_PASS || (cv && cv->status != PC_STATUS_SKIP))
				continue;
			found++;
			pc_gate_add_finding(rr, true,
					    "%s [%s]: scenario %.*s ran in the baseline, %s in the "
					    "candidate%s%.*s",
					    b->name, b->tier, (int)sizeof(bv->scenario),
					    bv->scenario, cv ? "did not run" : "absent",
					    cv ? ": " : "", cv ? (int)sizeof(cv->why) : 0,
					    cv ? cv->why : "");
		}
	}
	return found;
}

/* Each candidate run's refused programs, a finding each: how many. */
static int refused_lines(struct pc_gate_group *g, struct pc_gate_rule_result *rr)
{
	int n = 0;

	for (int r = 0; r < g->cand.n_runs; r++)
		for (int i = 0; i < g->cand.runs[r]->bpf.n_refused; i++, n++)
			pc_gate_add_finding(rr, true, "%s: %s", g->cand.files[r],
					    g->cand.runs[r]->bpf.refused[i]);
	return n;
}

void pc_gate_rule_coverage(struct pc_gate_group *g, const struct pc_gate_policy *pol)
{
	struct pc_gate_rule_result *rr = &g->rules[PC_GATE_RULE_COVERAGE];
	int i, found = 0, kept = 0;

	if (pc_gate_no_baseline(g, rr))
		return;
	for (i = 0; i < g->n_rows; i++) {
		const struct pc_gate_check_row *row = &g->rows[i];

		if (row->base == PC_GATE_ST_PASS && row->cand == PC_GATE_ST_PASS)
			kept++;
		if (row->base == PC_GATE_ST_PASS &&
		    (row->cand == PC_GATE_ST_SKIP || row->cand == PC_GATE_ST_MISSING)) {
			found++;
			if (row->cand == PC_GATE_ST_MISSING)
				pc_gate_add_finding(
					rr, true,
					"%s [%s] passed in the baseline, missing in the "
					"candidate",
					row->check, row->tier);
			else
				pc_gate_add_finding(
					rr, true,
					"%s [%s] passed in the baseline, skipped in the "
					"candidate: %s",
					row->check, row->tier,
					cand_summary(g, row->check, row->tier));
		}
		if ((row->base == PC_GATE_ST_SKIP || row->base == PC_GATE_ST_MISSING) &&
		    row->cand == PC_GATE_ST_PASS)
			pc_gate_add_improvement(rr, "coverage gained: %s [%s] %s -> pass",
						row->check, row->tier,
						pc_gate_status_name(row->base));
	}
	/* A batch histogram the baseline had and the candidate lost: a hook tier
	   went.  Not a few batches a path made by chance in one run (exit,
	   khugepaged): below batch_min_batches, a note. */
	for (i = 0; i < g->base.merged->n_hists; i++) {
		const struct pc_hist_report *bh = &g->base.merged->hists[i];
		const struct pc_hist_report *ch = pc_report_find_hist(g->cand.merged, bh->id);

		if (!pc_gate_is_batch_hist(pol, bh->id) || !pc_hist_report_total(bh) ||
		    pc_hist_report_total(ch))
			continue;
		if (pc_hist_report_total(bh) < (__u64)pol->batch_min_batches) {
			pc_gate_add_finding(
				rr, false,
				"not judged: histogram \"%s\" has %llu events in the "
				"baseline (< %d, batch_min_batches), %s in the candidate",
				bh->name, (unsigned long long)pc_hist_report_total(bh),
				pol->batch_min_batches, ch ? "none" : "absent");
			continue;
		}
		found++;
		pc_gate_add_finding(
			rr, true,
			"histogram \"%s\" has %llu events in the baseline, %s in the candidate",
			bh->name, (unsigned long long)pc_hist_report_total(bh),
			ch ? "none" : "absent");
	}
	found += variant_losses(g, rr);
	pc_gate_add_finding(rr, false, "check tiers that passed in both: %d", kept);
	/* Coverage the candidate lost because its kernel refused a program of
	   ptecheck's own is no kernel's choice and no policy's to excuse: what
	   the baseline judged went unjudged, and nothing says it is safe. */
	if (found && refused_lines(g, rr)) {
		pc_gate_settle(rr, found, PC_GATE_ACTION_FAIL);
		return;
	}
	pc_gate_settle(rr, found, pol->coverage_loss);
}
