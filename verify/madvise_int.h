/* SPDX-License-Identifier: GPL-2.0 */
/* The madvise suite's parts. */
#ifndef PTECHECK_MADVISE_INT_H
#define PTECHECK_MADVISE_INT_H

#include "attempt.h"
#include "measure.h"
#include "shape.h"

struct mv_scenario {
	enum pc_pos pos; /* the page of each second folio kept out of the advice */
};

/* madvise_free.c: one attempt (pc_measure_fn). */
int mv_measure_free(struct pc_scenario_ctx *ctx, const void *data, struct pc_attempt *a);

#endif
