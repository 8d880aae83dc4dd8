/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The mremap path (mm/mremap.c: move_page_tables, move_ptes with
 * folio_pte_batch, get_and_clear_ptes and set_ptes, move_normal_pmd): its
 * checks and their predicates.
 */
#ifndef PTECHECK_MREMAP_H
#define PTECHECK_MREMAP_H

#include "common.h"

/* The checks: X(ID, NAME) gives PC_CHK_ID and the name reports use. */
#define PC_CHECKS_mremap(X)                                                                        \
	X(MOVED, "mremap/moved")                                                                   \
	X(ADBITS, "mremap/ad-bits")                                                                \
	X(PERMS, "mremap/perms")                                                                   \
	X(PMD_MOVE, "mremap/pmd-move")                                                             \
	X(FOLIO_INTACT, "mremap/folio-intact")                                                     \
	X(BATCH, "mremap/batch")

/* Evidence texts where the verdict's own text would not say it:
   E(CHECK, VERDICT, TEXT). */
#define PC_EVIDENCE_mremap(E)                                                                      \
	E(BATCH, BATCH_NR_MISMATCH, "PTEs set differ in number from PTEs cleared")

/*
 * What the moved VMA lets the kernel change on a move (docs/checks.md,
 * "What a move may change"), read from it at the call:
 *
 * PC_MOVE_UFFD_NO_REMAP: it has a userfaultfd without
 * UFFD_FEATURE_EVENT_REMAP (vma_has_uffd_without_event_remap()), so the
 * new VMA will not be registered: mm/mremap.c move_ptes() drops uffd-wp
 * markers (pte_clear) and clears the uffd-wp bit of present and swap
 * entries (v6.14+; older kernels move them as they are).
 * PC_MOVE_VMA_UNKNOWN: the VMA could not be read (its lock was busy):
 * what only it could allow is not judged.
 */
#define PC_MOVE_UFFD_NO_REMAP (1u << 0)
#define PC_MOVE_VMA_UNKNOWN   (1u << 1)

/*
 * mremap/moved, per PTE slot: what was at old_addr + i at entry must be at
 * new_addr + i after the move: empty stays empty, a present PTE maps the
 * same PFN, a swap/other entry stays such an entry; but a uffd-wp marker
 * may go where the VMA's userfaultfd has no remap events (move above).
 * The uffd-wp and soft-dirty bits the kernel clears or sets are bits
 * none of the checks compares.
 */
PC_INLINE int pc_moved_entry(struct pc_pte old, struct pc_pte new, __u32 move)
{
	if (old.kind == PC_PTE_NONE)
		return new.kind == PC_PTE_NONE ? PC_OK : PC_V_PTE_INVENTED;
	if (old.kind == PC_PTE_PRESENT) {
		if (new.kind != PC_PTE_PRESENT)
			return PC_V_PTE_LOST;
		return new.pfn == old.pfn ? PC_OK : PC_V_PFN_CHANGED;
	}
	if (new.kind == old.kind)
		return PC_OK;
	if (new.kind == PC_PTE_NONE && old.uffd_wp_marker) {
		if (move & PC_MOVE_UFFD_NO_REMAP)
			return PC_OK;
		if (move & PC_MOVE_VMA_UNKNOWN)
			return PC_NOT_APPLICABLE;
	}
	return PC_V_KIND_CHANGED;
}

/*
 * mremap/ad-bits: a bit set at entry must survive; a bit that appears
 * meanwhile proves nothing (hardware sets bits without locks).
 */
PC_INLINE int pc_adbits_entry(struct pc_pte old, struct pc_pte new)
{
	if (old.kind != PC_PTE_PRESENT || new.kind != PC_PTE_PRESENT || old.pfn != new.pfn)
		return PC_NOT_APPLICABLE;
	if (old.dirty && !new.dirty)
		return PC_V_DIRTY_LOST;
	if (old.young && !new.young)
		return PC_V_YOUNG_LOST;
	return PC_OK;
}

/*
 * mremap/perms: moving never changes write permission.  A batch that
 * merged PTEs of different permission shows up as one of the two.
 */
PC_INLINE int pc_perms_entry(struct pc_pte old, struct pc_pte new)
{
	if (old.kind != PC_PTE_PRESENT || new.kind != PC_PTE_PRESENT || old.pfn != new.pfn)
		return PC_NOT_APPLICABLE;
	if (!old.write && new.write)
		return PC_V_WRITE_GAINED;
	if (old.write && !new.write)
		return PC_V_WRITE_LOST;
	return PC_OK;
}

/*
 * mremap/pmd-move, per whole-PMD extent: when old and new extents are
 * both PMD-aligned and complete, the old PMD pointed to a page table and
 * the new PMD was empty at entry, the kernel moves the table itself: the
 * new PMD after the move points to the same page table.
 */
struct pc_pmd_extent {
	__u64 old_pmd_entry;	/* old PMD value at entry */
	__u64 new_pmd_entry;	/* new PMD value at entry */
	__u64 new_pmd_exit;	/* new PMD value after the move */
	__u64 old_table;	/* physical address of the old PMD's page table */
	__u64 new_table_exit;	/* physical address of the new PMD's table after */
	bool old_is_table;	/* old PMD maps a page table at entry */
	bool new_is_table_exit; /* new PMD maps a page table after */
	bool aligned_whole;	/* both extents PMD-aligned and complete */
	/* PC_MOVE_* of the moved VMA: with a userfaultfd without remap
	   events the kernel moves PTE by PTE, never a whole table
	   (mm/mremap.c uffd_supports_page_table_move(), v6.14+). */
	__u32 move;
};

PC_INLINE int pc_pmd_move_extent(struct pc_pmd_extent e)
{
	if (!e.aligned_whole || !e.old_is_table || e.new_pmd_entry != 0 ||
	    (e.move & (PC_MOVE_UFFD_NO_REMAP | PC_MOVE_VMA_UNKNOWN)))
		return PC_NOT_APPLICABLE;
	if (!e.new_is_table_exit || e.new_table_exit != e.old_table)
		return PC_V_PMD_NOT_MOVED;
	return PC_OK;
}

/* mremap/folio-intact: moving a folio never splits or merges it. */
PC_INLINE int pc_folio_intact(__u32 order_before, __u32 order_after)
{
	return order_before == order_after ? PC_OK : PC_V_ORDER_CHANGED;
}

/*
 * set_ptes(ptep, pte, nr), per entry k after the call: it maps pte's PFN
 * + k, with pte's write permission and at least pte's access/dirty bits
 * (more may appear: hardware).
 */
PC_INLINE int pc_set_entry(struct pc_pte want, __u32 k, struct pc_pte seen)
{
	int v;

	if (want.kind != PC_PTE_PRESENT)
		return PC_NOT_APPLICABLE;
	want.pfn += k;
	v = pc_moved_entry(want, seen, 0);
	if (v == PC_OK)
		v = pc_perms_entry(want, seen);
	if (v == PC_OK)
		v = pc_adbits_entry(want, seen);
	return v;
}

/*
 * Referenced oracle (ad-bits, young half): after clear_refs and a TLB
 * bounce, every touched page is referenced in the new VMA.  More is fine
 * (speculative walks set accessed bits; arm64 reads a contpte block as
 * one), fewer is a lost bit.
 */
PC_INLINE int pc_referenced_covers(__u64 referenced_pages, __u64 touched_pages)
{
	return referenced_pages >= touched_pages ? PC_OK : PC_V_REFERENCED_SHORT;
}

/*
 * COW oracle (perms): after a fork (and mremap in the parent), a write of
 * either process must not be visible to the other, which shares the page.
 */
PC_INLINE int pc_cow_isolated(__u8 child_expected, __u8 child_seen)
{
	return child_expected == child_seen ? PC_OK : PC_V_COW_BROKEN;
}

/*
 * Write-fault oracle (perms): after the move, a write to a page whose PTE
 * was read-only at the move must fault (a minor fault, a uffd-wp event):
 * a write that does not went through a PTE the move made writable.  A
 * page writable at the move proves nothing either way.  The same after
 * mprotect(PROT_READ): a write that does not fault went through a stale
 * writable TLB entry (a flush short of the batch).
 */
PC_INLINE int pc_write_faulted(bool was_readonly, __u64 faults)
{
	if (!was_readonly)
		return PC_NOT_APPLICABLE;
	return faults > 0 ? PC_OK : PC_V_WRITE_GAINED;
}

#endif
