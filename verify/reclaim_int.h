/* SPDX-License-Identifier: GPL-2.0 */
/* The reclaim suite's parts. */
#ifndef PTECHECK_RECLAIM_INT_H
#define PTECHECK_RECLAIM_INT_H

#include <stdbool.h>
#include "attempt.h"
#include "measure.h"
#include "shape.h"

struct rc_scenario {
	enum pc_pos pos; /* where in each pattern folio the one dirty entry lies */
	bool misaligned; /* the range moved 4 KiB off 64 KiB (pc_range_misalign) */
	unsigned int kb; /* the folios' size: 64, or 16 (PC_NEEDS_MTHP_16K) */
};

/* reclaim_lazyfree.c: one attempt (pc_measure_fn). */
int rc_measure_lazyfree(struct pc_scenario_ctx *ctx, const void *data, struct pc_attempt *a);
/* reclaim_restore.c: one attempt (pc_measure_fn); pos names the one entry
   of each folio shared with a child, misaligned unused. */
int rc_measure_restore(struct pc_scenario_ctx *ctx, const void *data, struct pc_attempt *a);
/* reclaim_bounds.c: one attempt (pc_measure_fn); kb the folios' size. */
int rc_measure_bounds(struct pc_scenario_ctx *ctx, const void *data, struct pc_attempt *a);

#endif
