/* SPDX-License-Identifier: GPL-2.0 */
/* The zap suite's parts: its shapes and its measurement. */
#ifndef PTECHECK_ZAP_INT_H
#define PTECHECK_ZAP_INT_H

#include <stdbool.h>
#include <stddef.h>
#include "attempt.h"
#include "measure.h"
#include "shape.h"

/* What a scenario maps: large folios of one size, anonymous, shmem or a
   file's page cache. */
struct zap_shape {
	const char *what; /* "64 KiB shmem mTHP" */
	bool shmem;	  /* a memfd mapped shared, else private anonymous */
	/* A file on the run's block filesystem (pc_range_map_file: ext4 or
	   xfs, the summary says which), mapped shared: RssFile, and the
	   mapcounts, as the page cache keeps the folios.  Its PTEs clean
	   (read) with clean, else dirty (every page written through them:
	   page_mkwrite, the delayed rmap). */
	bool file;
	/* Only read, its folios clean (a fresh memfd's holes, or the fsync'd
	   file), read back clean before the zap (zap_folios_clean): its PTEs
	   clean, so zap removes their rmap at once (a dirty file PTE delays
	   it to the TLB flush: tlb_delay_rmap). */
	bool clean;
	/* Anonymous, every other folio paged out before the zap (swap.c):
	   swap entries in batches (swap_pte_batch), VmSwap by them. */
	bool swapped;
	/* For zap_exit.c: the child maps the pages by writing them (dirty
	   PTEs: the delayed rmap), else by reading them (clean PTEs). */
	bool exit_dirty;
	size_t folio_pages;   /* 16 */
	size_t len;	      /* at --scale 1; divided by the scale, 4 folios at least */
	const char *no_folio; /* why none formed, most likely */
};

enum zap_op { ZAP_MUNMAP, ZAP_DONTNEED };

struct zap_scenario {
	const struct zap_shape *shape;
	enum zap_op op;
	/* The range starts and ends half-way into a folio: the batches at
	   its ends are half folios, the folios there stay half mapped. */
	bool cut;
};

/* zap_counts.c: one attempt (pc_measure_fn). */
int zap_measure_counts(struct pc_scenario_ctx *ctx, const void *data, struct pc_attempt *a);
/*
 * zap/rmap [oracle:kpagecount] into slot: every page of every whole folio
 * of fo lying in its pages [from, to) at base reads 0 (pc_zap_unmapped);
 * after names what unmapped them, in the evidence.  The folios judged, or
 * pc_skip_rest's -errno.
 */
long zap_judge_unmapped(struct pc_attempt *a, int slot, const struct pc_folios *fo,
			const char *base, size_t from, size_t to, const char *after);
/*
 * The clean states' proof: every whole folio of fo read by kpageflags
 * before the zap, one that reads dirty no longer whole (a fault maps a
 * dirty folio's PTEs dirty even when it only reads, where the mapping may
 * write: set_pte_range, so a clean folio is what makes clean PTEs).  The
 * dirty ones, or -errno.
 */
long zap_folios_clean(struct pc_folios *fo);
#define ZAP_NOT_CLEAN                                                                              \
	"no whole folio clean before the zap: a dirty folio is mapped by dirty PTEs, so the "      \
	"clean state was not made"

/* zap_exit.c: one attempt of a shmem shape mapped by a child that exits
   (pc_measure_fn). */
int zap_measure_exit(struct pc_scenario_ctx *ctx, const void *data, struct pc_attempt *a);
/* zap_dirty.c: one attempt of the clean shmem shape written through its
   PTEs (pc_measure_fn). */
int zap_measure_dirty(struct pc_scenario_ctx *ctx, const void *data, struct pc_attempt *a);

#endif
