/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The reclaim path: try_to_unmap_one (mm/rmap.c) unmaps a lazyfree (or
 * file) large folio's PTEs in batches (folio_unmap_pte_batch, bounded by
 * the VMA and the page table, with FPB_RESPECT_WRITE and
 * FPB_RESPECT_SOFT_DIRTY), clears them in one call (get_and_clear_ptes,
 * which gathers young and dirty over the batch), and then either discards
 * the batch (a clean lazyfree folio: RSS falls by nr) or, when a PTE was
 * dirty, puts the batch back (set_ptes) and keeps the folio.  A batch that
 * loses a dirty bit discards what the process wrote after MADV_FREE; one
 * that takes one page off the counter for nr leaves RSS too high; one that
 * spans entries of another write permission puts them all back with its
 * first entry's, and a page not exclusive since fork becomes writable
 * (29f40594a281 fixed it: FPB_RESPECT_WRITE).
 *
 * The suite's oracles (verify/reclaim*.c) judge the checks with the
 * shared predicates: pc_written_survives for the data, pc_rss_fell_by
 * for the counter (include/ptecheck/common.h); the kernel tier of
 * reclaim/dirty with pc_reclaim_dirty_kept.  reclaim/write is the
 * kernel-wide rule of common.h, pc_anon_write_exclusive, over the range
 * (kernel tiers), and the write fault after it (pc_write_faulted: the
 * oracle).
 */
#ifndef PTECHECK_RECLAIM_H
#define PTECHECK_RECLAIM_H

#include "common.h"

#define PC_CHECKS_reclaim(X)                                                                       \
	X(RECLAIM_DIRTY, "reclaim/dirty")                                                          \
	X(RECLAIM_RSS, "reclaim/rss")                                                              \
	X(RECLAIM_WRITE, "reclaim/write")                                                          \
	X(RECLAIM_BOUNDS, "reclaim/bounds")

#define PC_EVIDENCE_reclaim(E)                                                                     \
	E(RECLAIM_DIRTY, DATA_LOST, "written after MADV_FREE, discarded by reclaim")               \
	E(RECLAIM_RSS, RSS, "RssAnon fell by other than the pages reclaim took")                   \
	E(RECLAIM_WRITE, WRITE_GAINED,                                                             \
	  "a page not exclusive since fork writable after reclaim put its batch back")             \
	E(RECLAIM_BOUNDS, OUTSIDE_VMA,                                                             \
	  "a PTE of the folio past the VMA's end changed by that VMA's unmap")

/*
 * reclaim/dirty in the kernel (bpf/reclaim.bpf.c): a PTE dirty at the
 * entry of MADV_PAGEOUT that mapped a lazyfree folio still maps something
 * at its exit (the page put back, or a swap entry): reclaim discards a
 * lazyfree batch only when none of its PTEs was dirty.  An empty slot is
 * the write discarded.
 */
PC_INLINE int pc_reclaim_dirty_kept(bool dirty_lazyfree_before, bool mapped_after)
{
	return dirty_lazyfree_before && !mapped_after ? PC_V_DATA_LOST : PC_OK;
}

/*
 * reclaim/bounds in the kernel (bpf/reclaim.bpf.c, fexit of
 * try_to_unmap_one): the unmap of a folio in one VMA changes no PTE
 * outside that VMA.  A PTE past the VMA's end, in the same page table,
 * that mapped a page of the same folio when the call began, maps the same
 * page when it returns: the folio is locked for the whole rmap walk, so
 * only this call could have unmapped it, and each VMA's PTEs are its own
 * call's (folio_unmap_pte_batch bounds a batch by the VMA and the page
 * table: ddd05742b45b).
 */
PC_INLINE int pc_reclaim_within_vma(bool mapped_before, bool same_after)
{
	return mapped_before && !same_after ? PC_V_OUTSIDE_VMA : PC_OK;
}

#endif
