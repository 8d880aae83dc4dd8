/* SPDX-License-Identifier: GPL-2.0 */
/* The fork suite's parts. */
#ifndef PTECHECK_FORK_INT_H
#define PTECHECK_FORK_INT_H

#include <stdbool.h>
#include <stddef.h>
#include "attempt.h"
#include "measure.h"
#include "marker.h"
#include "shape.h"

struct fk_scenario {
	enum pc_pos pos;   /* where in each folio the one entry that differs lies */
	bool misaligned;   /* the range moved 4 KiB off 64 KiB (pc_range_misalign) */
	enum pc_mark mark; /* fork_marker.c's: which marker */
	unsigned int kb;   /* fork_dirty.c's folio size: 64, or 16 (PC_NEEDS_MTHP_16K) */
};

/* fork_dirty.c: one attempt (pc_measure_fn). */
int fk_measure_dirty(struct pc_scenario_ctx *ctx, const void *data, struct pc_attempt *a);
/* fork_marker.c: one attempt (pc_measure_fn; misaligned is not used). */
int fk_measure_marker(struct pc_scenario_ctx *ctx, const void *data, struct pc_attempt *a);
/* fork_cow.c: one attempt (pc_measure_fn; misaligned is not used). */
int fk_measure_cow(struct pc_scenario_ctx *ctx, const void *data, struct pc_attempt *a);
/* fork_rss.c: one attempt (pc_measure_fn; data: the pages per folio,
   a size_t). */
int fk_measure_rss(struct pc_scenario_ctx *ctx, const void *data, struct pc_attempt *a);

#endif
