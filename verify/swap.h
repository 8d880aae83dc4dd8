/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A scenario's swap to page out to (the shapes' "swapped" kind): the swap
 * already on, else a zram device added for the scenario (stress_zram.c,
 * with its janitor) and removed after it.  The mremap suite's swapped
 * sources and the zap suite's swapped range use it.
 */
#ifndef PTECHECK_VERIFY_SWAP_H
#define PTECHECK_VERIFY_SWAP_H

#include <stdbool.h>
#include "scenario.h"

/* Swap devices on now (/proc/swaps), or -errno. */
int pc_swaps_on(void);

/* Before a scenario's attempts: 0 when there is swap to page out to,
   else -errno with the reason in pc_swap_why(). */
int pc_swap_begin(void);
/* After them: removes the zram swap if pc_swap_begin added one. */
void pc_swap_end(const struct pc_scenario_ctx *ctx);
/* Why there is none ("" when there is). */
const char *pc_swap_why(void);
/* Where the pages went, for a summary: "to a zram swap added for the
   scenario" or "to the swap already on". */
const char *pc_swap_text(void);

#endif
