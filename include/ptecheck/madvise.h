/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The madvise path: madvise_free_pte_range (mm/madvise.c) batches a large
 * folio's PTEs (madvise_folio_pte_batch: FPB_MERGE_YOUNG_DIRTY, the batch
 * bounded by the advised range), splits a folio the range covers in part,
 * and clears young and dirty over each batch in one call
 * (clear_young_dirty_ptes) before it marks the folio lazyfree.  Two ways
 * to get it wrong, each with its own check:
 *  - too little: a batch whose value is its first entry's (young and dirty
 *    not merged) skips the clear when the first is old and clean, and a
 *    dirty entry later in the batch keeps the page from being freed;
 *  - too much: a clear past the batch cleans an entry outside the range,
 *    and reclaim discards what the process wrote there after its own
 *    MADV_FREE (the data-loss class of 6434e69814b1 on arm64, whose contpte
 *    helper cleared past the range).
 *
 * The predicates are pure: the suite's oracles (verify/madvise*.c) and the
 * unit tests call them.  smaps' LazyFree counts an anonymous page when its
 * folio is lazyfree and neither the folio nor the PTE is dirty.
 */
#ifndef PTECHECK_MADVISE_H
#define PTECHECK_MADVISE_H

#include "common.h"

#define PC_CHECKS_madvise(X)                                                                       \
	X(MADV_LAZYFREE, "madvise/lazyfree")                                                       \
	X(MADV_RANGE, "madvise/range")

#define PC_EVIDENCE_madvise(E)                                                                     \
	E(MADV_LAZYFREE, NOT_LAZYFREE, "pages MADV_FREE covered not lazyfree (smaps LazyFree)")    \
	E(MADV_RANGE, OUTSIDE_RANGE, "pages outside the advised range counted lazyfree")           \
	E(MADV_RANGE, DATA_LOST, "written outside the advised range, lost to reclaim")             \
	E(MADV_RANGE, DIRTY_LOST, "the PTE next to the advised range lost its dirty bit")

/*
 * Every page MADV_FREE covered, in a range nothing has written since, is
 * lazyfree: LazyFree counts at least the advised pages (in pages).  Pages
 * outside the advice that count too are the other check's.
 */
PC_INLINE int pc_madvise_freed(__u64 advised, __u64 lazyfree)
{
	return lazyfree < advised ? PC_V_NOT_LAZYFREE : PC_OK;
}

/*
 * A page left out of the advice, written (dirty), is not lazyfree: in a
 * range whose only pages outside the advice are such, LazyFree counts at
 * most the advised pages.
 */
PC_INLINE int pc_madvise_within(__u64 advised, __u64 lazyfree)
{
	return lazyfree > advised ? PC_V_OUTSIDE_RANGE : PC_OK;
}

/*
 * A PTE just outside a range MADV_FREE was given (madvise/range
 * [kernel:syscall-walk]): dirty and of an anonymous folio when the call
 * began; when it returned, if it maps the same page, it is dirty still:
 * its own bit, or its folio's (a split of the folio, through migration
 * entries, moves the bit to the folio where the arch keeps none in the
 * entry).  Not mapping the same page any more (reclaimed, migrated): not
 * applicable.
 */
PC_INLINE int pc_madvise_neighbour(bool dirty_before, bool same_page_after, bool pte_dirty_after,
				   bool folio_dirty_after)
{
	if (!dirty_before || !same_page_after)
		return PC_NOT_APPLICABLE;
	return pte_dirty_after || folio_dirty_after ? PC_OK : PC_V_DIRTY_LOST;
}

#endif
