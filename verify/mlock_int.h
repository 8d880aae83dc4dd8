/* SPDX-License-Identifier: GPL-2.0 */
/* The mlock suite's parts: its shapes and its measurement. */
#ifndef PTECHECK_MLOCK_INT_H
#define PTECHECK_MLOCK_INT_H

#include <stdbool.h>
#include <stddef.h>
#include "attempt.h"
#include "measure.h"

struct ml_shape {
	const char *what; /* "64 KiB anon mTHP" */
	bool shmem;	  /* a memfd mapped shared, else private anonymous */
	/* A file on the run's block filesystem (pc_range_map_file: ext4 or
	   xfs, the summary says which), mapped shared, its folios the
	   filesystem's. */
	bool file;
	size_t folio_pages; /* 16, 512 */
	size_t len;	    /* at --scale 1; divided by the scale */
	size_t min_folios;  /* at any scale */
	bool split_pmd;	    /* a PMD THP whose mapping is split into PTEs first */
	/* A folio the range holds whole must be mlocked (pc_mlock_folio); else
	   only the allowance is judged (pc_mlock_allowed) and the summary
	   counts the held folios left unlocked: docs/checks.md says why. */
	bool demand;
	/* Demanded where the run has 64 KiB anonymous mTHP: mlock_pte_range
	   treats anonymous and file folios alike, and a kernel with mTHP
	   mlocks the anonymous ones whole (anon-64k demands it); xfs has
	   large file folios on kernels far older, which may not. */
	bool demand_with_mthp;
	const char *no_folio; /* why none formed, most likely */
};

struct ml_scenario {
	const struct ml_shape *shape;
	/* The locked range starts a page into the first folio and ends a page
	   before the last one's end: those two folios cut, the others whole. */
	bool cut;
};

/* mlock_folios.c: one attempt (pc_measure_fn). */
int ml_measure_folios(struct pc_scenario_ctx *ctx, const void *data, struct pc_attempt *a);
/* mlock_folios.c: moved pages changed PFN between the reads of an attempt
   (flags would be another page's): every slot skipped saying so, with
   cause ("migration"), and the attempt retried. */
void ml_retry_moved(struct pc_attempt *a, size_t moved, const char *cause);
/* mlock_ksm.c: one attempt (pc_measure_fn; no data, PC_NEEDS_KSM). */
int ml_measure_ksm(struct pc_scenario_ctx *ctx, const void *data, struct pc_attempt *a);

#endif
