// SPDX-License-Identifier: GPL-2.0
/*
 * ptecheck gate --noise RUN.json...: the noise of repeated runs of one
 * kernel, for the statistics the batching rule judges (rules_batch.c): per
 * group of runs (machine, suite, scale), each statistic's range over the
 * runs and the largest change between two of them (relative % for a mean,
 * points for a share: of a histogram's batches reaching its mode, of an
 * order's full batches), beside the floor the policy gives it and the
 * sampling noise of the two runs' counts (sampling.c).  How the
 * policy's floors were measured (docs/gate.md, "Noise"); exit 1 when a
 * spread exceeds its floor: the policy would call that noise a regression.
 */
#include <stdio.h>
#include "gate_like.h"

/* A statistic's range over runs, and what its extreme runs counted: their
   histograms, or (a per-order share) full of all batches. */
struct range {
	double lo, hi;
	int n;
	const struct pc_hist_report *hlo, *hhi;
	__u64 xlo, nlo, xhi, nhi;
};

static void range_add(struct range *r, double v, const struct pc_hist_report *h, __u64 x, __u64 n)
{
	if (!r->n || v < r->lo) {
		r->lo = v;
		r->hlo = h;
		r->xlo = x;
		r->nlo = n;
	}
	if (!r->n || v > r->hi) {
		r->hi = v;
		r->hhi = h;
		r->xhi = x;
		r->nhi = n;
	}
	r->n++;
}

/*
 * One line; 1 when the spread exceeds the floor and the sampling noise of
 * the two runs that make it (gate/sampling.c): what the rule would call a
 * regression between them.
 */
static int noise_line(FILE *out, const char *what, const struct range *r, double spread,
		      const char *unit, double floor, double sampling)
{
	bool over = spread > floor && spread > sampling;
	char samp[64] = "";

	if (sampling > floor)
		snprintf(samp, sizeof(samp), ", sampling noise of %llu and %llu batches %.1f%s",
			 (unsigned long long)r->nlo, (unsigned long long)r->nhi, sampling, unit);
	fprintf(out, "  %-64s %8.2f .. %-8.2f spread %6.2f%s (floor %g%s%s)%s\n", what, r->lo,
		r->hi, spread, unit, floor, unit, samp, over ? "  EXCEEDS THE FLOOR" : "");
	return over;
}

/* Histogram id's means (mode < 0) or shares of batches in slot mode or
   above into r, over the runs with at least min batches: those the rule
   judges in a pair (rules_batch.c too_few).  The runs used. */
static int hist_range(const struct pc_gate_side *s, const char *id, int mode, __u64 min,
		      struct range *r)
{
	for (int k = 0; k < s->n_runs; k++) {
		const struct pc_hist_report *h = pc_report_find_hist(s->runs[k], id);
		__u64 n = h ? pc_hist_report_total(h) : 0;

		if (n && n >= min)
			range_add(r, mode < 0 ? pc_gate_hist_mean(h) : pc_gate_share_from(h, mode),
				  h, mode < 0 ? 0 : pc_gate_count_from(h, mode), n);
	}
	return r->n;
}

/* The mean of every judged histogram, and its share of batches reaching
   the mode of all runs together (the rule's baseline), over the runs the
   rule would judge it in: those with batch_min_batches or more.  One
   fewer than two runs have enough of is listed as not judged. */
static int group_means(FILE *out, const struct pc_gate_side *s, const struct pc_gate_policy *pol)
{
	const struct pc_report *first = s->runs[0];
	__u64 min = (__u64)pol->batch_min_batches;
	int over = 0;

	for (int i = 0; i < first->n_hists; i++) {
		/* By id: what a policy's floors name (docs/gate.md). */
		const char *name = first->hists[i].id;
		const struct pc_hist_report *all = pc_report_find_hist(s->merged, name);
		int mode = all ? pc_gate_hist_mode(all) : 0, used;
		struct range m = {0}, sh = {0};
		char what[192], runs[48] = "";

		if (!pc_gate_is_mean_hist(pol, name))
			continue;
		used = hist_range(s, name, -1, min, &m);
		if (used < 2) {
			fprintf(out,
				"  %-64s not judged: %d of %d runs have %llu batches or more "
				"(batch_min_batches)\n",
				name, used, s->n_runs, (unsigned long long)min);
			continue;
		}
		if (used < s->n_runs)
			snprintf(runs, sizeof(runs), " (%d of %d runs)", used, s->n_runs);
		if (m.lo > 0) {
			snprintf(what, sizeof(what), "%s mean%s", name, runs);
			over += noise_line(out, what, &m, 100.0 * (m.hi - m.lo) / m.lo, "%",
					   pc_gate_noise_floor(pol, name),
					   pc_gate_mean_sampling_pct(m.hlo, m.hhi,
								     pol->batch_sampling_sigmas));
		}
		if (all && pc_gate_mode_judged(all, mode) &&
		    hist_range(s, name, mode, min, &sh) >= 2) {
			snprintf(what, sizeof(what),
				 "%s share of batches of %llu %s or more (the mode)%s", name,
				 (unsigned long long)pc_hist_slot_low(all->kind, mode), all->unit,
				 runs);
			over += noise_line(out, what, &sh, sh.hi - sh.lo, " pp",
					   pc_gate_share_noise_floor(pol, name),
					   pc_gate_share_sampling_pp(sh.xlo, sh.nlo, sh.xhi, sh.nhi,
								     pol->batch_sampling_sigmas));
		}
	}
	return over;
}

/* The per-order shares every run has enough batches of. */
static int group_orders(FILE *out, const struct pc_gate_side *s, const struct pc_gate_policy *pol)
{
	int over = 0;

	for (int k = 1; k <= PC_HIST_LINEAR_MAX && pol->order_all[0]; k++) {
		struct range r = {0};
		char what[96];
		double v;

		for (int i = 0; i < s->n_runs; i++) {
			__u64 all, full;

			if (!pc_gate_order_share(s->runs[i], pol, k, &v))
				continue;
			pc_gate_order_counts(s->runs[i], pol, k, &all, &full);
			range_add(&r, v, NULL, full, all);
		}
		if (r.n != s->n_runs)
			continue;
		snprintf(what, sizeof(what),
			 "fault-around batches mapping all they could, order %d", k);
		over += noise_line(out, what, &r, r.hi - r.lo, " pp", pol->order_noise_pp,
				   pc_gate_share_sampling_pp(r.xlo, r.nlo, r.xhi, r.nhi,
							     pol->batch_sampling_sigmas));
	}
	return over;
}

int pc_gate_noise(const struct pc_gate_input *in, FILE *out, char *err, size_t errlen)
{
	struct pc_gate_input all = *in;
	struct pc_gate_result *g;
	int over = 0;

	/* Every file is a run of the one kernel: group them as candidates. */
	all.policy.allow_no_baseline = true;
	all.n_base = 0;
	if (pc_gate_evaluate(&all, &g, err, errlen))
		return -1;
	for (int i = 0; i < g->n_groups; i++) {
		const struct pc_gate_group *grp = &g->groups[i];
		const struct pc_gate_side *side;
		struct pc_gate_group view;
		struct pc_gate_like like;

		fprintf(out, "noise of %s suite %s scale %u over %d run%s:\n", grp->machine,
			grp->suite, grp->scale, grp->cand.n_runs, grp->cand.n_runs == 1 ? "" : "s");
		if (grp->cand.n_runs < 2) {
			fprintf(out, "  not measured: one run shows no noise\n");
			continue;
		}
		if (pc_gate_like_build(grp, &like)) {
			pc_gate_like_free(&like);
			pc_gate_result_free(g);
			pc_set_err(err, errlen, "out of memory");
			return -1;
		}
		side = &grp->cand;
		if (like.available && like.n_common) {
			/* Measured as the rule judges: like with like. */
			pc_gate_like_group(grp, &like, &view);
			side = &view.cand;
			fprintf(out, "  like with like: the %d scenarios judged in every run\n",
				like.n_common);
		} else {
			fprintf(out, "  run-wide histograms (%s)\n",
				like.available ? "no scenario judged in every run"
					       : "reports without per-scenario histograms");
		}
		over += group_means(out, side, &all.policy);
		over += group_orders(out, side, &all.policy);
		pc_gate_like_free(&like);
	}
	pc_gate_result_free(g);
	if (fflush(out) || ferror(out)) {
		pc_set_err(err, errlen, "cannot write the noise table");
		return -1;
	}
	return over ? 1 : 0;
}
