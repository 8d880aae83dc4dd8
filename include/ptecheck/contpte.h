/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The arm64 contiguous-PTE path (arch/arm64/mm/contpte.c: 16 entries of
 * one 64 KiB folio read and written as one): its checks and predicates.
 */
#ifndef PTECHECK_CONTPTE_H
#define PTECHECK_CONTPTE_H

#include "common.h"
#include "mlock.h"

#define PC_CHECKS_contpte(X)                                                                       \
	X(CP_GATHER, "contpte/gather")                                                             \
	X(CP_MLOCK, "contpte/mlock")                                                               \
	X(CP_FOLD, "contpte/fold")                                                                 \
	X(CP_YOUNG, "contpte/clear-young")

#define PC_EVIDENCE_contpte(E)                                                                     \
	E(CP_MLOCK, MAPCOUNT, "smaps Locked did not return to 0 after munlock")                    \
	E(CP_MLOCK, MLOCKED, "folio mlocked (kpageflags) that no locked range covers whole")

/* The syscalls whose page walks hold the page-table lock: where the lock
   itself cannot be read, contpte_ptep_get is judged inside them
   (bpf/contpte.bpf.c, trace/contpte.c). */
#define PC_CONTPTE_LOCKED_SYSCALLS(X) X(mlock) X(mlock2) X(munlock) X(madvise)

/*
 * Where contpte_ptep_get is judged when the page-table lock can be read
 * (trace/contpte_ptl.c): reads whose caller holds the split lock of the
 * block's page table, as that lock's word confirms at entry and return.
 * The lock word alone cannot say whose lock it is (a qspinlock has no
 * owner), so ownership comes from the caller: functions every call of
 * contpte_ptep_get in which (ptep_get() is inlined) happens with the lock
 * of ptep's table held, read from the v7.2 source.  A read by one of them
 * with the lock free refutes the entry on this kernel: its context is
 * judged no more, and its violations count as inconclusive.
 *
 * PC_CONTPTE_CONTEXTS(X): X(ID, "label"); PC_CONTPTE_LOCKED_CALLERS(X):
 * X(ID, "function"), several functions per context.  Names that kallsyms
 * has twice (two static functions) are left out.
 */
#define PC_CONTPTE_CONTEXTS(X)                                                                     \
	X(SMAPS, "smaps")                                                                          \
	X(PAGEMAP, "pagemap")                                                                      \
	X(CLEAR_REFS, "clear_refs")                                                                \
	X(NUMA_MAPS, "numa_maps")                                                                  \
	X(RMAP, "rmap")                                                                            \
	X(MLOCK, "mlock")                                                                          \
	X(MADVISE, "madvise")                                                                      \
	X(MPROTECT, "mprotect")                                                                    \
	X(ZAP, "zap")                                                                              \
	X(FORK, "fork")                                                                            \
	X(MREMAP, "mremap")                                                                        \
	X(GUP, "gup")

#define PC_CONTPTE_LOCKED_CALLERS(X)                                                               \
	X(SMAPS, "smaps_pte_range")                                                                \
	X(SMAPS, "smaps_pte_entry")                                                                \
	X(PAGEMAP, "pagemap_pmd_range")                                                            \
	X(PAGEMAP, "pagemap_scan_pmd_entry")                                                       \
	X(CLEAR_REFS, "clear_refs_pte_range")                                                      \
	X(CLEAR_REFS, "clear_soft_dirty")                                                          \
	X(NUMA_MAPS, "gather_pte_stats")                                                           \
	X(RMAP, "folio_referenced_one")                                                            \
	X(RMAP, "try_to_unmap_one")                                                                \
	X(RMAP, "try_to_migrate_one")                                                              \
	X(RMAP, "page_vma_mkclean_one")                                                            \
	X(RMAP, "page_idle_clear_pte_refs_one")                                                    \
	X(MLOCK, "mlock_pte_range")                                                                \
	X(MLOCK, "folio_mlock_step")                                                               \
	X(MADVISE, "madvise_cold_or_pageout_pte_range")                                            \
	X(MADVISE, "madvise_free_pte_range")                                                       \
	X(MPROTECT, "change_pte_range")                                                            \
	X(ZAP, "zap_pte_range")                                                                    \
	X(ZAP, "do_zap_pte_range")                                                                 \
	X(ZAP, "zap_present_ptes")                                                                 \
	X(FORK, "copy_pte_range")                                                                  \
	X(FORK, "copy_present_ptes")                                                               \
	X(MREMAP, "move_ptes")                                                                     \
	X(GUP, "follow_page_pte")                                                                  \
	X(GUP, "follow_pfn_pte")

enum pc_cp_context {
#define PC_CP_CTX_ENUM(id, label) PC_CP_CTX_##id,
	PC_CONTPTE_CONTEXTS(PC_CP_CTX_ENUM)
#undef PC_CP_CTX_ENUM
		PC_CP_CTX__COUNT,
};

#define PC_CP_MAX_CALLERS 48 /* address ranges: functions and their clones */

/* The counts of map cp_reads, per context. */
struct pc_cp_reads {
	__u64 judged, violations; /* reads judged, violations counted among them */
	__u64 refuted;		  /* reads with the lock free, or after such a read */
	__u64 unreadable;	  /* reads whose lock word could not be read */
};

/* How the session judges contpte_ptep_get (rodata of bpf/contpte.bpf.c). */
enum pc_cp_method {
	PC_CP_METHOD_SYSCALLS = 0, /* inside PC_CONTPTE_LOCKED_SYSCALLS */
	PC_CP_METHOD_PTL,	   /* a locked caller, its lock word held */
};

/* How the page-table page's struct page holds its lock (struct ptdesc). */
enum pc_ptl_mode {
	PC_PTL_NONE = 0,
	PC_PTL_EMBEDDED, /* spinlock_t ptl in the struct page */
	PC_PTL_POINTER,	 /* spinlock_t *ptl (ALLOC_SPLIT_PTLOCKS: debug spinlocks) */
};

/*
 * The struct page of the page-table page holding the entry at ptep, with
 * SPARSEMEM_VMEMMAP: virt_to_page() of a linear-map address is linear in
 * its page number, page = base + (va >> 12) * page_size, one base per
 * boot (calibrated: trace/contpte_ptl.c).
 */
PC_INLINE __u64 pc_ptdesc_of(__u64 base, __u64 page_size, __u64 ptep)
{
	return base + (ptep >> PC_PAGE_SHIFT) * page_size;
}

/* The base under which an embedded lock at lock belongs to table_va. */
PC_INLINE __u64 pc_ptl_base_embedded(__u64 table_va, __u64 lock, __u64 ptl_off, __u64 page_size)
{
	return lock - ptl_off - (table_va >> PC_PAGE_SHIFT) * page_size;
}

/*
 * The base arm64's memory model gives (asm/memory.h, 4 KiB pages):
 * virt_to_page(x) = VMEMMAP_START + ((x - PAGE_OFFSET) >> 12) * sizeof(page),
 * VMEMMAP_START = -1 GiB - VMEMMAP_SIZE, PAGE_OFFSET = -(1 << VA_BITS),
 * VMEMMAP_SIZE covering the linear map up to _PAGE_END(VA_BITS_MIN).  A
 * candidate per VA_BITS, each one tried against the kernel's own locks.
 */
PC_INLINE __u64 pc_arm64_vmemmap_base(__u32 va_bits, __u64 page_size)
{
	__u32 min = va_bits > 48 ? 48 : va_bits;
	__u64 page_offset = -(1ULL << va_bits);
	__u64 range = -(1ULL << (min - 1)) - page_offset;
	__u64 start = -(1ULL << 30) - (range >> PC_PAGE_SHIFT) * page_size;

	return start - (page_offset >> PC_PAGE_SHIFT) * page_size;
}

/* What bpf/contpte_ptl.bpf.c records for trace/contpte_ptl.c: up to
   PC_PTL_PAIRS locks the calibrating thread took, and the candidates (bit
   c: the arm64 base for VA_BITS PC_PTL_VA_BITS[c]) that find them. */
#define PC_PTL_PAIRS	  8
#define PC_PTL_CANDIDATES 3
#define PC_PTL_VA_BITS                                                                             \
	{                                                                                          \
		52, 48, 39                                                                         \
	}

/* How one contpte_ptep_get call counts under PC_CP_METHOD_PTL. */
enum pc_cp_read {
	PC_CP_READ_LOCKED,     /* a locked caller, lock held at entry and return: judged */
	PC_CP_READ_REFUTED,    /* a locked caller with the lock free: the list fails here */
	PC_CP_READ_UNREADABLE, /* a locked caller, the lock word not readable */
	PC_CP_READ_OTHER,      /* another caller: not judged, whatever the lock says */
};

/* listed: the caller is a PC_CONTPTE_LOCKED_CALLERS function; held_*:
   1 held, 0 free, -1 not readable, at entry and at return. */
PC_INLINE int pc_cp_read_kind(bool listed, int held_entry, int held_exit)
{
	if (!listed)
		return PC_CP_READ_OTHER;
	if (held_entry < 0 || held_exit < 0)
		return PC_CP_READ_UNREADABLE;
	return held_entry && held_exit ? PC_CP_READ_LOCKED : PC_CP_READ_REFUTED;
}

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
 * contpte/fold, after a fold or an unfold (both are contpte_convert): no
 * access/dirty bit present in the block at entry is lost.  The kernel
 * clears the 16 entries, ORs the bits of every cleared entry into the
 * template and writes the template into every entry, so each entry k must
 * map first_pfn + k and carry every bit gathered at entry.  Hardware may
 * only add bits meanwhile (the page-table lock is held).  A convert that
 * takes the bits of the template entry alone (the entry being changed)
 * drops those of the others: it shows where they are not the template's.
 */
PC_INLINE int pc_convert_entry(const struct pc_gather *g, __u32 k, struct pc_pte seen)
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

#endif
