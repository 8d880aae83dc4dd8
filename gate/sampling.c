// SPDX-License-Identifier: GPL-2.0
/*
 * ptecheck gate: the sampling noise of a batch statistic (docs/gate.md,
 * "Noise").  The floors of the policy are of runs with many batches; a
 * path that batched ten times in a run moves its mode share 10 points per
 * batch, whatever the kernel did.  So a change is also judged against the
 * noise its own counts carry: a share of x of n batches is a binomial
 * proportion, a mean of n batches has the spread of its histogram over
 * the square root of n.  The rule (rules_batch.c) and `gate --noise`
 * (noise.c) take the larger of that and the policy's floor.
 */
#include <math.h>
#include "gate_rules.h"

double pc_gate_share_sampling_pp(__u64 xb, __u64 nb, __u64 xc, __u64 nc, double sigmas)
{
	double p;

	if (!nb || !nc || sigmas <= 0)
		return 0;
	/* Pooled: under "nothing changed" both sides draw from one share. */
	p = (double)(xb + xc) / (double)(nb + nc);
	return 100.0 * sigmas * sqrt(p * (1 - p) * (1.0 / (double)nb + 1.0 / (double)nc));
}

/* The variance of h's batches (bucket midpoints, as pc_gate_hist_mean). */
static double hist_var(const struct pc_hist_report *h, double mean)
{
	long double sq = 0, n = 0;

	for (int i = 0; i < PC_HIST_SLOTS; i++) {
		long double d = pc_gate_slot_mid(h, i) - mean;

		sq += d * d * h->slots[i];
		n += h->slots[i];
	}
	return n > 1 ? (double)(sq / (n - 1)) : 0.0;
}

double pc_gate_mean_sampling_pct(const struct pc_hist_report *b, const struct pc_hist_report *c,
				 double sigmas)
{
	__u64 nb = pc_hist_report_total(b), nc = pc_hist_report_total(c);
	double mb = pc_gate_hist_mean(b), mc = pc_gate_hist_mean(c);

	if (!nb || !nc || mb <= 0 || sigmas <= 0)
		return 0;
	return 100.0 * sigmas * sqrt(hist_var(b, mb) / (double)nb + hist_var(c, mc) / (double)nc) /
	       mb;
}
