/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The zram swap of stress_zram.c: the reclaim stressor swaps to it during
 * --stress, and the mremap suite's swapped scenarios page their source out
 * to it (verify/mremap_swap.c).  One device at a time per process.
 */
#ifndef PTECHECK_STRESS_ZRAM_H
#define PTECHECK_STRESS_ZRAM_H

#include <stdbool.h>
#include <stddef.h>

struct pc_report;

/* Adds a zram swap of bytes, with a janitor that removes it should ptecheck
   die: 0, or -errno with the reason kept (stress_zram_why, stress_zram_note). */
int stress_zram_start(size_t bytes);
/* Removes the swap and dismisses the janitor: 0 or -errno.  Async-signal-safe. */
int stress_zram_stop(void);
/* A zram swap was on during the run. */
bool stress_zram_was_on(void);
/* Why stress_zram_start added no swap ("" when it did). */
const char *stress_zram_why(void);
/* Notes in r what became of the swap (err: stress_zram_stop's). */
void stress_zram_note(struct pc_report *r, int err);
/* Forgets the swap once noted. */
void stress_zram_forget(void);

#endif
