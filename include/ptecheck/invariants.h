/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The invariant predicates.  Every check ptecheck makes, in a BPF program
 * or in a userspace oracle, decides pass or fail by calling one of these
 * functions, and the unit tests call the very same functions with crafted
 * data.  They take plain values, touch no memory and never loop, so the
 * BPF verifier accepts them as they are.
 */
#ifndef PTECHECK_INVARIANTS_H
#define PTECHECK_INVARIANTS_H

#include "types.h"
#include "pte.h"

#ifndef PC_INLINE
#define PC_INLINE static inline __attribute__((always_inline))
#endif

/* Check identifiers: the same names in output, docs and tests. */
enum pc_check_id {
	PC_CHK_MOVED = 0,    /* mremap/moved */
	PC_CHK_ADBITS,	     /* mremap/ad-bits */
	PC_CHK_PERMS,	     /* mremap/perms */
	PC_CHK_PMD_MOVE,     /* mremap/pmd-move */
	PC_CHK_FOLIO_INTACT, /* mremap/folio-intact */
	PC_CHK_BATCH,	     /* mremap/batch */
	PC_CHK_FM_BOUNDS,    /* filemap/batch-bounds */
	PC_CHK_FM_PTES_SET,  /* filemap/ptes-set */
	PC_CHK_FM_RMAP,	     /* filemap/rmap-count */
	PC_CHK_FM_RSS,	     /* filemap/rss-count */
	PC_CHK_CP_GATHER,    /* contpte/gather */
	PC_CHK_CP_MLOCK,     /* contpte/mlock */
	PC_CHK_CP_FOLD,	     /* contpte/fold */
	PC_CHK_CP_YOUNG,     /* contpte/clear-young */
	PC_CHK__COUNT,
};

/* Predicate answers.  PC_OK and PC_NOT_APPLICABLE are not violations. */
enum pc_verdict {
	PC_OK = 0,
	PC_NOT_APPLICABLE,	  /* preconditions of the invariant do not hold */
	PC_V_PTE_LOST,		  /* a present PTE is not present after the move */
	PC_V_PTE_INVENTED,	  /* an empty slot is mapped after the move */
	PC_V_PFN_CHANGED,	  /* present on both sides, different page */
	PC_V_KIND_CHANGED,	  /* a swap/other entry became something else */
	PC_V_YOUNG_LOST,	  /* accessed at entry, not accessed after */
	PC_V_DIRTY_LOST,	  /* dirty at entry, not dirty after */
	PC_V_WRITE_GAINED,	  /* read-only at entry, writable after */
	PC_V_WRITE_LOST,	  /* writable at entry, read-only after */
	PC_V_PMD_NOT_MOVED,	  /* eligible whole-PMD extent moved PTE by PTE */
	PC_V_ORDER_CHANGED,	  /* folio order differs after the move */
	PC_V_BATCH_EMPTY,	  /* a batch of fewer than one PTE */
	PC_V_BATCH_OUTSIDE_FOLIO, /* batch pages leave their folio */
	PC_V_BATCH_CROSSES_PMD,	  /* batch PTEs span two page tables */
	PC_V_BATCH_SUM,		  /* batch sizes do not add up to PTEs moved */
	PC_V_DATA_LOST,		  /* a written byte did not survive */
	PC_V_REFERENCED_SHORT,	  /* fewer referenced pages than touched */
	PC_V_COW_BROKEN,	  /* a write leaked into a process sharing the page */
	PC_V_BATCH_NR_MISMATCH,	  /* cleared nr PTEs, set a different number */
	PC_V_OUTSIDE_VMA,	  /* a batch maps PTEs outside its VMA */
	PC_V_PAST_EOF,		  /* a page at or past EOF mapped where forbidden */
	PC_V_MAPCOUNT,		  /* mapcount moved by other than the pages mapped */
	PC_V_RSS,		  /* RSS counter moved by other than the pages mapped */
	PC_V_DATA_MISMATCH,	  /* bytes read through the mapping differ from the file */
	PC_V_PARTIAL_FOLD,	  /* a contpte block with CONT on some entries only */
	PC_V_FOLD_MISMATCH,	  /* folded entries differ in permission or validity */
	PC_V_YOUNG_UNREPORTED,	  /* a young entry, but clear-young said "not young" */
	PC_V__COUNT,
};

PC_INLINE bool pc_is_violation(int verdict)
{
	return verdict != PC_OK && verdict != PC_NOT_APPLICABLE;
}

/*
 * mremap/moved, per PTE slot: what was at old_addr + i at entry must be at
 * new_addr + i after the move: empty stays empty, a present PTE maps the
 * same PFN, a swap/other entry stays such an entry.
 */
PC_INLINE int pc_moved_entry(struct pc_pte old, struct pc_pte new)
{
	if (old.kind == PC_PTE_NONE)
		return new.kind == PC_PTE_NONE ? PC_OK : PC_V_PTE_INVENTED;
	if (old.kind == PC_PTE_PRESENT) {
		if (new.kind != PC_PTE_PRESENT)
			return PC_V_PTE_LOST;
		return new.pfn == old.pfn ? PC_OK : PC_V_PFN_CHANGED;
	}
	return new.kind == old.kind ? PC_OK : PC_V_KIND_CHANGED;
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
};

PC_INLINE int pc_pmd_move_extent(struct pc_pmd_extent e)
{
	if (!e.aligned_whole || !e.old_is_table || e.new_pmd_entry != 0)
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
 * mremap/batch, per batch: 1 <= nr, the nr pages starting at first_pfn lie
 * inside the folio [folio_pfn, folio_pfn + folio_nr), and the nr PTEs
 * starting at addr lie inside one page table.
 */
struct pc_batch {
	__u64 addr;	 /* user address of the first PTE */
	__u64 first_pfn; /* PFN mapped by the first PTE */
	__u64 folio_pfn; /* first PFN of the folio */
	__u64 folio_nr;	 /* pages in the folio */
	__u32 nr;	 /* PTEs in the batch */
};

/* The nr PTEs starting at addr lie inside one page table (nr >= 1). */
PC_INLINE int pc_batch_in_table(__u64 addr, __u32 nr)
{
	if (nr < 1)
		return PC_V_BATCH_EMPTY;
	if (addr >> PC_PMD_SHIFT != (addr + ((__u64)nr << PC_PAGE_SHIFT) - 1) >> PC_PMD_SHIFT)
		return PC_V_BATCH_CROSSES_PMD;
	return PC_OK;
}

PC_INLINE int pc_batch_bounds(struct pc_batch b)
{
	if (b.nr < 1)
		return PC_V_BATCH_EMPTY;
	if (b.first_pfn < b.folio_pfn || b.first_pfn + b.nr > b.folio_pfn + b.folio_nr)
		return PC_V_BATCH_OUTSIDE_FOLIO;
	return pc_batch_in_table(b.addr, b.nr);
}

/* mremap/batch, per call: the batches add up to the present PTEs moved. */
PC_INLINE int pc_batch_sum(__u64 sum_of_batches, __u64 present_moved)
{
	return sum_of_batches == present_moved ? PC_OK : PC_V_BATCH_SUM;
}

/*
 * Gathering, for every batched read or clear of several PTEs that returns
 * one PTE for all of them (arm64 contpte_get_and_clear_full_ptes, and
 * contpte_ptep_get over a block): the returned PTE is young if any entry
 * was young at entry and dirty if any was dirty at entry.  Only bits seen
 * at entry count: hardware may set more meanwhile, which proves nothing.
 * Accumulate the entries with pc_gather_add, then judge with
 * pc_gather_covers.
 */
struct pc_gather {
	__u64 first_pfn; /* PFN of the first entry */
	__u32 entries;	 /* present entries seen */
	__u8 any_young;
	__u8 any_dirty;
	__u8 first_present;
	__u8 pad;
};

PC_INLINE void pc_gather_add(struct pc_gather *g, struct pc_pte e)
{
	if (e.kind != PC_PTE_PRESENT)
		return;
	if (g->entries == 0) {
		g->first_pfn = e.pfn;
		g->first_present = 1;
	}
	g->entries++;
	g->any_young |= e.young;
	g->any_dirty |= e.dirty;
}

PC_INLINE int pc_gather_covers(const struct pc_gather *g, struct pc_pte ret)
{
	if (!g->first_present)
		return PC_NOT_APPLICABLE;
	if (ret.kind != PC_PTE_PRESENT)
		return PC_V_PTE_LOST;
	if (ret.pfn != g->first_pfn)
		return PC_V_PFN_CHANGED;
	if (g->any_dirty && !ret.dirty)
		return PC_V_DIRTY_LOST;
	if (g->any_young && !ret.young)
		return PC_V_YOUNG_LOST;
	return PC_OK;
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
	v = pc_moved_entry(want, seen);
	if (v == PC_OK)
		v = pc_perms_entry(want, seen);
	if (v == PC_OK)
		v = pc_adbits_entry(want, seen);
	return v;
}

/*
 * A batch moved by mremap is cleared and set with one nr: the PTEs
 * set at the new address are exactly as many as were cleared at the old.
 */
PC_INLINE int pc_batch_pair(__u32 cleared_nr, __u32 set_nr)
{
	return cleared_nr == set_nr ? PC_OK : PC_V_BATCH_NR_MISMATCH;
}

/* ---- filemap: folio-based fault-around (set_pte_range batches) ---------- */

/*
 * A page of file index idx lies at or past EOF when idx >= DIV_ROUND_UP(
 * i_size, PAGE_SIZE).  Mapping it is forbidden (SIGBUS must stay) except
 * for shmem/tmpfs, which maps whole folios across i_size on purpose
 * (mm/filemap.c: filemap_map_pages, filemap_map_folio_range).
 */
PC_INLINE bool pc_page_past_eof(__u64 idx, __u64 i_size)
{
	return idx >= (i_size + PC_PAGE_SIZE - 1) >> PC_PAGE_SHIFT;
}

/*
 * filemap/batch-bounds, per set_pte_range(vmf, folio, page, nr, addr):
 * 1 <= nr; the nr pages lie inside the folio; the nr PTEs inside one page
 * table and inside the VMA; and, unless eof_exempt, no page at or past
 * EOF.  i_size is the larger of the sizes seen when the fault began and
 * when the batch was set (a file that shrank meanwhile is judged by the
 * caller as inconclusive: truncation races the fault legitimately).
 */
struct pc_fault_batch {
	__u64 addr;	   /* user address of the first PTE */
	__u64 folio_start; /* index of the first page within the folio */
	__u64 folio_nr;	   /* pages in the folio */
	__u64 vm_start;	   /* the VMA */
	__u64 vm_end;
	__u64 file_index; /* file page index of the first page */
	__u64 i_size;	  /* file size in bytes */
	__u32 nr;	  /* PTEs in the batch */
	bool eof_exempt;  /* shmem/tmpfs mapping */
};

PC_INLINE int pc_fault_batch_bounds(struct pc_fault_batch b)
{
	int v;

	if (b.nr < 1)
		return PC_V_BATCH_EMPTY;
	if (b.folio_start + b.nr > b.folio_nr)
		return PC_V_BATCH_OUTSIDE_FOLIO;
	v = pc_batch_in_table(b.addr, b.nr);
	if (v != PC_OK)
		return v;
	if (b.addr < b.vm_start || b.addr + ((__u64)b.nr << PC_PAGE_SHIFT) > b.vm_end)
		return PC_V_OUTSIDE_VMA;
	if (!b.eof_exempt && pc_page_past_eof(b.file_index + b.nr - 1, b.i_size))
		return PC_V_PAST_EOF;
	return PC_OK;
}

/*
 * filemap/ptes-set, per entry k of a batch after set_pte_range: present,
 * mapping the first entry's PFN + k (consecutive pages of one folio);
 * never writable where the VMA's protection is read-only and the fault
 * did not write (uffd-wp may only take write away, so the other direction
 * is not judged); dirty after a write fault.  Young is not judged: x86
 * leaves the accessed bit to the hardware's retry of the access.
 */
PC_INLINE int pc_fault_entry(struct pc_pte seen, __u64 first_pfn, __u32 k, bool prot_write,
			     bool write_fault)
{
	if (seen.kind != PC_PTE_PRESENT)
		return PC_V_PTE_LOST;
	if (seen.pfn != first_pfn + k)
		return PC_V_PFN_CHANGED;
	if (!prot_write && !write_fault && seen.write)
		return PC_V_WRITE_GAINED;
	if (write_fault && !seen.dirty)
		return PC_V_DIRTY_LOST;
	return PC_OK;
}

/*
 * filemap/rmap-count: folio_add_file_rmap_ptes(folio, page, nr) raises the
 * folio's mapcount by exactly nr (and, where the kernel keeps per-page
 * mapcounts, each page's by one: pc_count_delta(before, after, 1)).  Also
 * the userspace form: N processes mapping every page of a file see a
 * mapcount of N per page (pc_count_delta(0, seen, N)).
 */
PC_INLINE int pc_count_delta(__s64 before, __s64 after, __s64 expected_delta)
{
	return after - before == expected_delta ? PC_OK : PC_V_MAPCOUNT;
}

/* filemap/rss-count: the mm's file (or shmem) RSS grew by the pages mapped. */
PC_INLINE int pc_rss_delta(__s64 rss_before, __s64 rss_after, __s64 pages_mapped)
{
	return rss_after - rss_before == pages_mapped ? PC_OK : PC_V_RSS;
}

/* Data oracle: every byte read through the mapping equals the file's. */
PC_INLINE int pc_bytes_equal(__u64 mismatches)
{
	return mismatches == 0 ? PC_OK : PC_V_DATA_MISMATCH;
}

/* ---- arm64 contiguous PTEs (16 entries of one 64 KiB folio) ------------- */

/*
 * contpte/gather: contpte_ptep_get(ptep, orig) returns orig (same page,
 * same permission) made young if any of the block's 16 entries was young
 * at entry and dirty if any was dirty at entry (pc_gather_add over the
 * block).  A premature early exit of the gather loop loses a bit.
 */
PC_INLINE int pc_gather_result(const struct pc_gather *g, struct pc_pte orig, struct pc_pte ret)
{
	if (!g->first_present || orig.kind != PC_PTE_PRESENT)
		return PC_NOT_APPLICABLE;
	if (ret.kind != PC_PTE_PRESENT)
		return PC_V_PTE_LOST;
	if (ret.pfn != orig.pfn)
		return PC_V_PFN_CHANGED;
	if (g->any_dirty && !ret.dirty)
		return PC_V_DIRTY_LOST;
	if (g->any_young && !ret.young)
		return PC_V_YOUNG_LOST;
	if (ret.write != orig.write)
		return ret.write ? PC_V_WRITE_GAINED : PC_V_WRITE_LOST;
	return PC_OK;
}

/*
 * contpte/fold, after __contpte_try_fold: either no entry of the block is
 * CONT (the kernel chose not to fold: not applicable) or all 16 are,
 * valid, mapping consecutive pages from the first with one permission.
 * Call with the block's entries in order; state carries the first entry.
 */
struct pc_fold_state {
	struct pc_pte first;
	__u32 cont;  /* entries with CONT */
	__u32 seen;  /* entries looked at */
	int verdict; /* worst so far */
};

PC_INLINE void pc_fold_add(struct pc_fold_state *f, struct pc_pte e)
{
	__u32 k = f->seen++;

	if (k == 0)
		f->first = e;
	if (e.cont)
		f->cont++;
	if (f->verdict != PC_OK)
		return;
	if (e.kind != PC_PTE_PRESENT || f->first.kind != PC_PTE_PRESENT)
		f->verdict = PC_V_FOLD_MISMATCH;
	else if (e.pfn != f->first.pfn + k)
		f->verdict = PC_V_PFN_CHANGED;
	else if (e.write != f->first.write)
		f->verdict = PC_V_FOLD_MISMATCH;
}

PC_INLINE int pc_fold_result(const struct pc_fold_state *f)
{
	if (f->cont == 0)
		return PC_NOT_APPLICABLE;
	if (f->cont != f->seen)
		return PC_V_PARTIAL_FOLD;
	return f->verdict;
}

/*
 * contpte/fold, after an unfold: no access/dirty bit present in the block
 * before it is lost.  The kernel writes the block's gathered bits into
 * every entry (contpte_convert), so each entry k must map first_pfn + k
 * and carry every bit gathered at entry.
 */
PC_INLINE int pc_unfold_entry(const struct pc_gather *g, __u32 k, struct pc_pte seen)
{
	if (!g->first_present)
		return PC_NOT_APPLICABLE;
	if (seen.kind != PC_PTE_PRESENT)
		return PC_V_PTE_LOST;
	if (seen.pfn != g->first_pfn + k)
		return PC_V_PFN_CHANGED;
	if (g->any_dirty && !seen.dirty)
		return PC_V_DIRTY_LOST;
	if (g->any_young && !seen.young)
		return PC_V_YOUNG_LOST;
	return PC_OK;
}

/*
 * contpte/clear-young: contpte_test_and_clear_young_ptes and friends
 * report young when a covered entry was young at entry.  The converse is
 * not judged: hardware may set a bit after we looked.
 */
PC_INLINE int pc_young_reported(__u8 any_young_at_entry, bool reported)
{
	return any_young_at_entry && !reported ? PC_V_YOUNG_UNREPORTED : PC_OK;
}

/* Data-loss oracle (ad-bits, dirty half): what was written is read back. */
PC_INLINE int pc_written_survives(__u8 written, __u8 seen)
{
	return written == seen ? PC_OK : PC_V_DATA_LOST;
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
 * COW oracle (perms): after fork and mremap in the parent, a parent's
 * write must not be visible to the child that shares the page.
 */
PC_INLINE int pc_cow_isolated(__u8 child_expected, __u8 child_seen)
{
	return child_expected == child_seen ? PC_OK : PC_V_COW_BROKEN;
}

#endif
