/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The per-entry markers a batch must respect, as trigger states the
 * suites share (verify/marker.c): one entry of each folio soft-dirty, or
 * userfaultfd write-protected, the others not; made, read back by
 * pagemap, and judged kept by the kernel-wide predicates of
 * <ptecheck/common.h>.  mprotect's and fork's marker scenarios use them.
 */
#ifndef PTECHECK_MARKER_H
#define PTECHECK_MARKER_H

#include <stdbool.h>
#include <stddef.h>
#include <ptecheck/types.h>
#include "attempt.h"
#include "shape.h"
#include "uffd.h"

enum pc_mark {
	PC_MARK_SOFT_DIRTY, /* clear_refs 4, then the entry written again */
	PC_MARK_UFFD_WP,    /* the range registered for uffd-wp, the entry protected */
};

/* The marker's pagemap bit; its words ("soft-dirty"), and how it was
   made ("written after clear_refs 4"). */
__u64 pc_mark_bit(enum pc_mark m);
const char *pc_mark_name(enum pc_mark m);
const char *pc_mark_how(enum pc_mark m);
/* pc_soft_dirty_kept or pc_uffd_wp_kept. */
int pc_mark_kept(enum pc_mark m, bool before, bool after);

/*
 * What the marking needs before the range exists: for uffd-wp, u opened
 * with features (UFFD_FEATURE_*) and its reader, which shares none of the
 * range; for soft-dirty nothing.  0; 1 when this kernel has no
 * userfaultfd or not those features (every slot skipped: "not in this
 * kernel: " and the step); or pc_skip_rest's -errno.
 */
int pc_mark_open(enum pc_mark m, struct pc_uffd *u, struct pc_attempt *a, __u64 features);

/*
 * Marks page p of every fp of the n pages at base: soft-dirty by
 * clear_refs 4 and a write of pc_page_byte(i, SALT_B) at off (the page's
 * PTE alone soft-dirty and writable); uffd-wp by u's registration and
 * UFFDIO_WRITEPROTECT (u opened before the range was mapped).  0; 1 when
 * this kernel has no uffd-wp for the memory (every slot skipped, saying
 * so); or pc_skip_rest's -errno.
 */
int pc_mark_each(enum pc_mark m, struct pc_uffd *u, struct pc_attempt *a, char *base, size_t n,
		 size_t fp, size_t p, size_t off);

/*
 * After the marking, pagemap in state: NULL when page p of every whole
 * folio of fo alone reads marked, at its PFN; else why not in why, with
 * *retry when another attempt may make it and *no_bit when no marked page
 * reads marked at all (the kernel keeps or reports no such bit: a skip of
 * the marker's check alone).  uffd-wp's marked pages that read unmarked
 * are not a state missing (the ioctl returned 0 for each): the caller
 * judges them.
 */
const char *pc_mark_missing(enum pc_mark m, const __u64 *state, const struct pc_folios *fo,
			    size_t p, char *why, size_t len, bool *retry, bool *no_bit);

#endif
