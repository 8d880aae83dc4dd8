/* SPDX-License-Identifier: GPL-2.0 */
/* The mprotect suite's parts: its memory shapes and its measurement. */
#ifndef PTECHECK_MPROTECT_INT_H
#define PTECHECK_MPROTECT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include "attempt.h"
#include "measure.h"
#include "marker.h"
#include "shape.h"

/* What a scenario maps: anonymous private large folios of one size. */
struct mp_shape {
	const char *what;     /* "64 KiB mTHP", "2 MiB THP, PTE-mapped" */
	size_t folio_pages;   /* 16, 512 */
	size_t len;	      /* at --scale 1; divided by the scale, one folio at least */
	bool split_pmd;	      /* map a PMD THP, then split its mapping into PTEs */
	unsigned int mthp_kb; /* the anon mTHP size the parent must have enabled, 0 none */
	const char *no_folio; /* why none formed, most likely */
};

/* A marker scenario: one entry per folio marked (verify/marker.h: for
   soft-dirty, MADV_FREE after the marking makes every PTE clean), at pos. */
struct mp_marker {
	const struct mp_shape *shape;
	enum pc_pos pos; /* where in each folio the marked entry lies */
	enum pc_mark mark;
};

/* mprotect_marker.c: one attempt (pc_measure_fn). */
int mp_measure_marker(struct pc_scenario_ctx *ctx, const void *data, struct pc_attempt *a);

/* A write scenario: one page of each 64 KiB folio left shared, at pos;
   the mprotect calls over the whole range (from 0), or over each folio
   from its entry from on, so that each batch begins there (mid-folio). */
struct mp_write {
	enum pc_pos pos;
	size_t from;
};

/* mprotect_write.c: one attempt (pc_measure_fn). */
int mp_measure_write(struct pc_scenario_ctx *ctx, const void *data, struct pc_attempt *a);

#endif
