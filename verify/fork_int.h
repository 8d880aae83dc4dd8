/* SPDX-License-Identifier: GPL-2.0 */
/* The fork suite's parts. */
#ifndef PTECHECK_FORK_INT_H
#define PTECHECK_FORK_INT_H

#include <stddef.h>
#include "attempt.h"
#include "measure.h"

/* Where in each pattern folio the one dirty entry lies. */
enum fk_pos { FK_FIRST, FK_SECOND, FK_MIDDLE, FK_LAST };

struct fk_scenario {
	enum fk_pos pos;
};

/* fork_dirty.c: one attempt (pc_measure_fn). */
int fk_measure_dirty(struct pc_scenario_ctx *ctx, const void *data, struct pc_attempt *a);

#endif
