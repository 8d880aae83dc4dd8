/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the contpte suite's files share: the scenarios' parameters, the
 * region of 64 KiB folios they work on (contpte_region.c), and the
 * measurements (contpte_gather.c, contpte_mlock.c) the suite table
 * (contpte.c) runs.
 */
#ifndef PTECHECK_CONTPTE_INT_H
#define PTECHECK_CONTPTE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <ptecheck/contpte_patterns.h>
#include "attempt.h"
#include "measure.h"

#define BLOCK	     (64 * KIB)
#define CONT	     16		 /* PTEs per contpte block with 4 KiB pages */
#define CHUNK_BLOCKS 16		 /* 1 MiB VMAs: no PMD-sized THP fits in one */
#define CHUNK_OFF    (512 * KIB) /* chunk start past its 2 MiB boundary */
#define MAX_CHUNKS   16

/* What a pattern scenario does to the aged blocks before the rewrite. */
enum cp_probe {
	CP_PROBE_NONE,
	/* page 15 read-only (unfold through a clean, old entry), clear_refs,
	   page YOUNG touched again, page 15 writable (fold through it) */
	CP_PROBE_REFOLD,
	/* clear_refs: contpte_test_and_clear_young_ptes at each entry of the
	   folded blocks (judged by the kernel tier; no smaps-referenced oracle) */
	CP_PROBE_CLEAR_REFS,
};

#define CP_REFOLD_PAGE (CONT - 1) /* set_ptes tries a fold at a block's last entry only */

struct cp_pattern {
	int dirty;	   /* entry written after MADV_FREE: 0..15, PC_CP_ALL or PC_CP_NONE */
	int young;	   /* entry young at the check: 0..15, PC_CP_ALL or PC_CP_NONE */
	unsigned int full; /* blocks at scale 1 (half pattern, half control) */
	enum cp_probe probe;
};

/* The userspace oracles of a pattern (contpte_gather.c): data-loss ... */
static inline bool cp_judges_data(const struct cp_pattern *p)
{
	return p->dirty != PC_CP_NONE || p->young == PC_CP_NONE;
}

/* ... and smaps-referenced, which clear_refs would defeat. */
static inline bool cp_judges_referenced(const struct cp_pattern *p)
{
	return p->young != PC_CP_NONE && p->probe != CP_PROBE_CLEAR_REFS;
}

struct cp_mlock {
	unsigned int full;	 /* blocks at scale 1 */
	unsigned int iterations; /* at scale 1 */
	bool misaligned;	 /* lock [start + 4 KiB, end - 4 KiB): VMAs split in folios */
	bool refold;		 /* each round: page 15 of each block read-only and back */
};

int cp_measure_pattern(struct pc_scenario_ctx *ctx, const void *data, struct pc_attempt *a);
int cp_measure_mlock(struct pc_scenario_ctx *ctx, const void *data, struct pc_attempt *a);

/* ---- the region (contpte_region.c) ------------------------------------------ */

/* The region: 1 MiB chunks, each in its own 2 MiB extent, PROT_NONE between. */
struct region {
	struct pc_resv resv;
	char *chunk[MAX_CHUNKS];
	int nchunks;
	size_t nblocks;
};

/* full blocks at the context's scale: even (pattern and control alternate). */
size_t cp_scaled_blocks(const struct pc_scenario_ctx *ctx, unsigned int full);
char *cp_block_addr(const struct region *r, size_t b);
char *cp_page_addr(const struct region *r, size_t b, int k);
/*
 * The start of every contpte measurement: nblocks 64 KiB blocks mapped,
 * the disturbance window open, every page k of block b holding
 * pc_page_byte(b * CONT + k, SALT_A), and *pattern_64k of the pattern
 * (even) blocks 64 KiB folios.  0; 1 when too few 64 KiB folios formed
 * (every slot skipped, saying why); or pc_skip_rest's -errno.
 */
int cp_region_start(struct pc_scenario_ctx *ctx, struct pc_attempt *a, struct region *r,
		    size_t nblocks, size_t *pattern_64k);
void cp_region_release(struct region *r);
/* advice on every chunk; 0 or -errno. */
int cp_region_madvise(const struct region *r, int advice);
/* Every block rewritten from its gathered value (mprotect); 0 or -errno. */
int cp_region_bounce(const struct region *r);
/* mprotect page k of every pattern (even) block to prot; 0 or -errno. */
int cp_region_protect_page(const struct region *r, int k, int prot);
/* mlock (or munlock) every chunk, or all but a page at each end; 0 or -errno. */
int cp_region_mlock(const struct region *r, bool lock, bool misaligned);
/* smaps Locked over every VMA of the region, in kB; 0 or -errno. */
int cp_region_locked_kb(const struct region *r, __u64 *kb);
/* smaps and pagemap read over every block, each entry's read gathering
   the block under the page-table lock (judged by the kernel tier, whose
   read it is: the values do not matter); 0 or -errno. */
int cp_region_locked_reads(const struct region *r);
/* smaps Referenced over every VMA of the region, in pages; 0 or -errno. */
int cp_region_referenced_pages(const struct region *r, __u64 *pages);

#endif
