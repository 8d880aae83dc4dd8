/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside gate/: the rules (rules.c, rules_batch.c, rules_perf.c) and what
 * they share;
 * evaluate.c groups the reports and calls them.
 */
#ifndef PTECHECK_GATE_RULES_H
#define PTECHECK_GATE_RULES_H

#include <stddef.h>
#include "gate.h"

/* Longest finding, evidence or reason, with its NUL. */
#define PC_GATE_MSG_MAX 1024

/* Room for element n of a growing array (first: its first capacity): the
   array, maybe moved, or NULL with the array as it was. */
void *pc_gate_grow(void *arr, int n, int *cap, size_t elem, int first);

/* Out of memory drops the text but never the verdict (set by the caller):
   NULL then. */
struct pc_gate_finding *pc_gate_add_finding(struct pc_gate_rule_result *rr, bool problem,
					    const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void pc_gate_add_improvement(struct pc_gate_rule_result *rr, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void pc_gate_not_judged(struct pc_gate_rule_result *rr, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A rule that needs a baseline and the group has none: true, not judged. */
bool pc_gate_no_baseline(const struct pc_gate_group *g, struct pc_gate_rule_result *rr);
/*
 * Problems were found when `found`: the policy decides between failing and
 * reporting.  Counted separately from the findings so that an allocation
 * failure cannot turn a regression into a pass.
 */
void pc_gate_settle(struct pc_gate_rule_result *rr, int found, enum pc_gate_action action);

/* The value a batch in slot i of h stands for: its bucket's midpoint
   (rules_batch.c). */
long double pc_gate_slot_mid(const struct pc_hist_report *h, int i);
/* Count-weighted mean of a histogram's bucket midpoints (rules_batch.c). */
double pc_gate_hist_mean(const struct pc_hist_report *h);
/* The slot with the most events (the larger one on a tie). */
int pc_gate_hist_mode(const struct pc_hist_report *h);
/* h's events in slot `from` or above, and their share (%). */
__u64 pc_gate_count_from(const struct pc_hist_report *h, int from);
double pc_gate_share_from(const struct pc_hist_report *h, int from);
/* Whether the share reaching that mode is judged: not for batches of one. */
bool pc_gate_mode_judged(const struct pc_hist_report *h, int mode);
/* Order k fault-around batches of r (merged or one run): all, and full
   (those that mapped all they could). */
void pc_gate_order_counts(const struct pc_report *r, const struct pc_gate_policy *pol, int k,
			  __u64 *all, __u64 *full);
/* The share (%) of order k fault-around batches of r that mapped all they
   could; false when r has fewer than the policy's minimum of them. */
bool pc_gate_order_share(const struct pc_report *r, const struct pc_gate_policy *pol, int k,
			 double *share);

/*
 * Sampling noise (sampling.c): the change a statistic's own counts allow
 * at `sigmas` standard errors, 0 when sigmas is 0 or a side is empty.  Of
 * a share of xb of nb batches beside xc of nc, in points; of the means of
 * two histograms, in % of the baseline's.
 */
double pc_gate_share_sampling_pp(__u64 xb, __u64 nb, __u64 xc, __u64 nc, double sigmas);
double pc_gate_mean_sampling_pct(const struct pc_hist_report *b, const struct pc_hist_report *c,
				 double sigmas);

void pc_gate_rule_invariant(struct pc_gate_group *g);
void pc_gate_rule_coverage(struct pc_gate_group *g, const struct pc_gate_policy *pol);
void pc_gate_rule_batching(struct pc_gate_group *g, const struct pc_gate_policy *pol);
void pc_gate_rule_perf(struct pc_gate_group *g, const struct pc_gate_policy *pol);

#endif
