/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How each evaluation of a predicate is counted (struct pc_check_counts),
 * by the BPF programs (pc_judge() in bpf/common.bpf.h) and the tests
 * alike.  Every evaluation lands in exactly one of three counters, so a
 * summary's numbers add up to what was seen:
 *   checked         judged in a quiet window (violations are among them),
 *   inconclusive    seen where a verdict proves nothing: a disturbed window
 *                   (reclaim, migration, another thread), or a lost young
 *                   bit that aging may have cleared,
 *   not_applicable  the invariant's preconditions did not hold.
 */
#ifndef PTECHECK_COUNTS_H
#define PTECHECK_COUNTS_H

#include "events.h"
#include "common.h"

/* One evaluation; unreliable: its window is known disturbed already.
   True when it is a violation to send (pc_count_unjudged() if the
   window turns out disturbed when it is sent). */
PC_INLINE bool pc_count_verdict(struct pc_check_counts *c, int verdict, bool unreliable)
{
	if (verdict == PC_NOT_APPLICABLE) {
		c->not_applicable++;
		return false;
	}
	if (unreliable) {
		c->inconclusive++;
		return false;
	}
	c->checked++;
	return pc_is_violation(verdict);
}

/* A violation that proves nothing after all: not judged. */
PC_INLINE void pc_count_unjudged(struct pc_check_counts *c)
{
	c->checked--;
	c->inconclusive++;
}

/* A window found disturbed once its verdicts were counted: none of them
   was judged (violations sent already are dropped by the loader). */
PC_INLINE void pc_count_window_disturbed(struct pc_check_counts *c)
{
	c->inconclusive += c->checked;
	c->checked = 0;
	c->violations = 0;
}

/* A counted violation: c->violations++, kept among the checked. */
PC_INLINE void pc_count_violation(struct pc_check_counts *c)
{
	c->violations++;
}

#endif
