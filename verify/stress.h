/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ptecheck run --stress: background processes that keep the kernel changing
 * the same kinds of page tables the checks watch (reclaim with a zram swap,
 * compaction, THP collapse, NUMA migration, fork/exit, mprotect/munmap,
 * threads whose loads and stores make hardware set access/dirty bits)
 * while the scenarios run.  A check's window disturbed by them must turn
 * into "inconclusive" (the existing disturbance counter and retries),
 * never into a failure.
 *
 * The stressors are forked children of the caller, in one process group
 * of their own (a Ctrl-C on the terminal reaches only ptecheck, which
 * stops them), with PR_SET_PDEATHSIG so that they die with ptecheck even
 * on SIGKILL.  pc_stress_stop() kills and reaps them and removes the zram
 * swap; the same undo is registered with lib/settings.c so that every
 * other exit path (exit(), fatal signals) does it too.
 */
#ifndef PTECHECK_STRESS_H
#define PTECHECK_STRESS_H

#include <stdbool.h>
#include "report.h"

/* Every stressor's process name (comm) starts with this: `pgrep '^ptechk-'`. */
#define PC_STRESS_COMM_PREFIX "ptechk-"
/* Seconds per suite without an explicit value, before dividing by --scale. */
#define PC_STRESS_DEFAULT_S 20U
#define PC_STRESS_MAX_S	    86400U

struct pc_stress_opts {
	unsigned int scale;   /* --scale: memory sizes are divided by it */
	const char *file_dir; /* where the reclaim stressor puts its file */
};

/*
 * Starts every stressor this machine allows; one that cannot run (no zram,
 * one NUMA node, ...) is noted in r with the reason.  0, or -errno when
 * none could be started (the reason is noted too).
 */
int pc_stress_start(const struct pc_stress_opts *o, struct pc_report *r);
/*
 * Kills and reaps the stressors, removes the zram swap, and notes in r
 * what each stressor did (iteration counts) or why it did not run.  Safe
 * to call when nothing was started, and more than once.
 */
void pc_stress_stop(struct pc_report *r);
/* The stressor whose process pid is ("reclaim"), NULL if none is; their
   children (fork-exit) carry the stressor's comm. */
const char *pc_stress_name_of(int pid);

#endif
