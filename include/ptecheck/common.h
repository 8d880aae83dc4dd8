/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The verdicts every predicate answers with, and the predicates more than
 * one path uses: batches inside one page table, pairs of batch sizes, the
 * gathering of access/dirty bits over several PTEs, and the data oracles.
 * Like every header here, usable by the BPF programs as it is: plain
 * values in, no memory touched, no loops.
 */
#ifndef PTECHECK_COMMON_H
#define PTECHECK_COMMON_H

#include "types.h"
#include "pte.h"

#ifndef PC_INLINE
#define PC_INLINE static inline __attribute__((always_inline))
#endif

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
	PC_V_MLOCKED,		  /* a folio mlocked that no locked range covers whole */
	PC_V_NOT_LOCKED,	  /* mlock returned 0, its range not all locked */
	PC_V_SOFT_DIRTY_LOST,	  /* soft-dirty before, clean after (no clear_refs) */
	PC_V_NOT_MLOCKED,	  /* a folio a locked range holds whole, not mlocked */
	PC_V_OUTSIDE_RANGE,	  /* a page outside an advised range treated as in it */
	PC_V_NOT_LAZYFREE,	  /* a page MADV_FREE covered whole left dirty */
	PC_V_UFFD_WP_LOST,	  /* uffd-wp before, not after (no unprotect) */
	PC_V_FAULT_LOOP,	  /* a fault retried without ever mapping its page */
	PC_V__COUNT,
};

PC_INLINE bool pc_is_violation(int verdict)
{
	return verdict != PC_OK && verdict != PC_NOT_APPLICABLE;
}

/* The nr PTEs starting at addr lie inside one page table (nr >= 1). */
PC_INLINE int pc_batch_in_table(__u64 addr, __u32 nr)
{
	if (nr < 1)
		return PC_V_BATCH_EMPTY;
	if (addr >> PC_PMD_SHIFT != (addr + ((__u64)nr << PC_PAGE_SHIFT) - 1) >> PC_PMD_SHIFT)
		return PC_V_BATCH_CROSSES_PMD;
	return PC_OK;
}

/*
 * The soft-dirty bit is kept by every path that rewrites a PTE
 * (mprotect's commit, fork's copy into the child): a PTE soft-dirty
 * before is soft-dirty after (clear_refs alone clears the bit).  The bit
 * may be set meanwhile (a write racing the call), so only its loss is
 * judged.
 */
PC_INLINE int pc_soft_dirty_kept(bool before, bool after)
{
	return before && !after ? PC_V_SOFT_DIRTY_LOST : PC_OK;
}

/*
 * userfaultfd write protection is kept by every path that rewrites a PTE
 * (mprotect's commit, fork's copy into a child registered by
 * UFFD_FEATURE_EVENT_FORK): a PTE uffd-wp-protected before is protected
 * after (only UFFDIO_WRITEPROTECT without the WP mode, or the monitor
 * going, takes it away), so its next write still reaches the monitor.  A
 * batch that runs through a protected entry gives it the first's value,
 * unprotected.  A protection that appears is not judged.
 */
PC_INLINE int pc_uffd_wp_kept(bool before, bool after)
{
	return before && !after ? PC_V_UFFD_WP_LOST : PC_OK;
}

/*
 * The kernel's own rule for anonymous memory: a writable PTE of an
 * anonymous folio maps a page exclusive to the process (PageAnonExclusive;
 * the write fault asserts as much where it reuses a page).  A page shared
 * with another process (after fork, until written) must be read-only so
 * that a write faults and copies.  Judged over an mprotect's range that
 * granted write (mprotect/write) and over a VMA fork copied, in the
 * parent (fork/cow): a batch that granted write, or kept it, by its first
 * page breaks it.  A read-only PTE keeps the rule whatever its page.
 */
PC_INLINE int pc_anon_write_exclusive(bool writable, bool exclusive)
{
	return !writable || exclusive ? PC_OK : PC_V_WRITE_GAINED;
}

/*
 * A batch moved by mremap is cleared and set with one nr: the PTEs
 * set at the new address are exactly as many as were cleared at the old.
 */
PC_INLINE int pc_batch_pair(__u32 cleared_nr, __u32 set_nr)
{
	return cleared_nr == set_nr ? PC_OK : PC_V_BATCH_NR_MISMATCH;
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
 * A count moved by exactly what it must (PC_V_MAPCOUNT otherwise; a
 * check's evidence text says which count).  filemap/rmap-count:
 * folio_add_file_rmap_ptes(folio, page, nr) raises the
 * folio's mapcount by exactly nr (and, where the kernel keeps per-page
 * mapcounts, each page's by one: pc_count_delta(before, after, 1)).  Also
 * the userspace form: N processes mapping every page of a file see a
 * mapcount of N per page (pc_count_delta(0, seen, N)).
 */
PC_INLINE int pc_count_delta(__s64 before, __s64 after, __s64 expected_delta)
{
	return after - before == expected_delta ? PC_OK : PC_V_MAPCOUNT;
}

/*
 * An RSS counter fell by exactly the pages taken off the mm (pages, not
 * kB): zap/rss (the pages present in a zapped range), reclaim/rss (the
 * pages a reclaim discarded).
 */
PC_INLINE int pc_rss_fell_by(__s64 before, __s64 after, __s64 pages_taken)
{
	return before - after == pages_taken ? PC_OK : PC_V_RSS;
}

/* Data-loss oracle (ad-bits, dirty half): what was written is read back. */
PC_INLINE int pc_written_survives(__u8 written, __u8 seen)
{
	return written == seen ? PC_OK : PC_V_DATA_LOST;
}

#endif
