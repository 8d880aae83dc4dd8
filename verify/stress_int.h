/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the stress files share: the counters a stressor keeps in shared
 * memory, what the stressors read of the run (set before they fork), the
 * stressors themselves (stress_loads.c) and the zram swap they reclaim to
 * (stress_zram.c), for the start and stop of stress.c.
 */
#ifndef PTECHECK_STRESS_INT_H
#define PTECHECK_STRESS_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "stress.h"
#include "stress_zram.h"

#define KIB   1024UL
#define MIB   (1024UL * KIB)
#define PIECE (64 * KIB) /* an mTHP-sized piece */

#define STRESS_COMPACT_PATH "/proc/sys/vm/compact_memory"

/* One per stressor, in a MAP_SHARED page: written by the child, read by us. */
struct stress_slot {
	unsigned long long iterations; /* __atomic: the stressor's main loop */
	unsigned long long extra[3];   /* per stressor, see describe() */
	char why[160];		       /* set by a stressor that gave up */
};

/* What the stressors read of the run; pc_stress_start sets it before forking. */
struct stress_env {
	struct pc_stress_opts opts;
	size_t page_size;
	pid_t parent_pid;	/* ptecheck */
	int numa_from, numa_to; /* the migration stressor's two nodes */
};
extern struct stress_env stress_env;

/* bytes divided by --scale, in 64 KiB pieces, two at the least. */
size_t stress_scaled(size_t bytes);
/* The PMD size for 4/16/64 KiB pages: a page table holds page/8 entries. */
size_t stress_pmd_size(void);
/* A stressor child's first steps: die with ptecheck, hold nothing of it. */
void stress_child_init(const char *comm);

/* The stressors (stress_loads.c): each runs until killed, or gives up in its slot. */
void stress_reclaim(struct stress_slot *slot);
void stress_compact(struct stress_slot *slot);
void stress_collapse(struct stress_slot *slot);
void stress_migrate(struct stress_slot *slot);
void stress_forkexit(struct stress_slot *slot);
void stress_mprotect(struct stress_slot *slot);
void stress_touch(struct stress_slot *slot);

#endif
