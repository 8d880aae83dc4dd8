/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The batch path's derived source (PC_BSRC_WALK, bpf/batch_walk.bpf.c):
 * at the entry of munmap, mprotect, madvise and mlock/munlock the PTEs of
 * the range are read and cut into the runs folio_pte_batch() (mm/internal.h
 * folio_pte_batch_flags, flags 0) would return: consecutive present PTEs
 * mapping consecutive pages of one large folio, equal once the bits it
 * ignores are cleared, within one page table.  Not the kernel's batch:
 * what it had to batch.  Pure, so unit tests run it.
 */
#ifndef PTECHECK_BATCH_WALK_H
#define PTECHECK_BATCH_WALK_H

#include "pte.h"
#include "batch.h"

#ifndef PC_INLINE
#define PC_INLINE static inline __attribute__((always_inline))
#endif

/*
 * The bits __pte_batch_clear_ignored() clears: pte_mkclean and pte_mkold
 * always, pte_clear_soft_dirty and pte_wrprotect unless the caller
 * respects them (FPB_RESPECT_SOFT_DIRTY, FPB_RESPECT_WRITE: mprotect's
 * change_pte_range; zap, mlock and madvise pass neither), and the PFN,
 * which a run advances instead.  x86: ACCESSED, DIRTY, SAVED_DIRTY; RW and
 * SOFT_DIRTY (pte.h).  arm64 (no soft-dirty): AF, PTE_DIRTY, PTE_RDONLY
 * (mkclean sets it); PTE_WRITE (DBM).
 */
PC_INLINE __u64 pc_fpb_ignored_x86(bool respect_write)
{
	return PC_X86_PFN_MASK | PC_X86_ACCESSED | PC_X86_DIRTY | PC_X86_SAVED_DIRTY |
	       (respect_write ? 0 : PC_X86_RW | PC_X86_PTE_SOFT_DIRTY);
}

PC_INLINE __u64 pc_fpb_ignored_arm64(bool respect_write)
{
	return PC_ARM64_ADDR_MASK | PC_ARM64_AF | PC_ARM64_SW_DIRTY | PC_ARM64_RDONLY |
	       (respect_write ? 0 : PC_ARM64_DBM);
}

#if defined(__TARGET_ARCH_arm64)
#define pc_fpb_ignored pc_fpb_ignored_arm64
#else
#define pc_fpb_ignored pc_fpb_ignored_x86
#endif

/* Does the batching in context ctx (enum pc_batch_ctx) respect write and
   soft-dirty bits?  (mm/mprotect.c; v7.2) */
PC_INLINE bool pc_fpb_respects_write(__u32 ctx)
{
	return ctx == PC_BCTX_MPROTECT;
}

#define PC_BW_MAX_PAGES 2048 /* pages walked per call: four page tables' worth */

/* What the walk counts besides runs (bpf/batch_walk.bpf.c bw_stats[]). */
enum pc_bw_stat {
	PC_BW_CALLS = 0, /* calls walked */
	PC_BW_PTES,	 /* present PTEs read */
	PC_BW_SMALL,	 /* ... of small (order-0) folios: no run, the kernel batches none */
	PC_BW_HUGE,	 /* pages under a huge PMD: no PTEs */
	PC_BW_UNREAD,	 /* entries or folios that could not be read (or split meanwhile) */
	PC_BW_UNWALKED,	 /* pages past the bound of a call */
	PC_BW_UNSAMPLED, /* calls not walked: --sample passed them over */
	PC_BW__COUNT,
};

/* A run being counted: its length so far (0: none open), the PFN the next
   PTE must map, the end of its folio (a PFN) and the bits it compares. */
struct pc_fpb_run {
	__u64 next_pfn, folio_end, bits;
	__u32 len;
	__u32 pad;
};

/*
 * Does the present PTE at user address addr, mapping pfn with bits (the
 * raw entry less ignored), continue run r?  A run ends at its folio's end,
 * at a PFN gap, where the bits differ and at a page table's first entry
 * (the kernel batches within one table); the caller ends it at the range
 * end and at any PTE not present.
 */
PC_INLINE bool pc_fpb_continues(const struct pc_fpb_run *r, __u64 addr, __u64 pfn, __u64 bits)
{
	return r->len && (addr & (PC_PMD_SIZE - 1)) != 0 && pfn == r->next_pfn &&
	       pfn < r->folio_end && bits == r->bits;
}

/* Takes the PTE into the run pc_fpb_continues() said it continues. */
PC_INLINE void pc_fpb_extend(struct pc_fpb_run *r)
{
	r->len++;
	r->next_pfn++;
}

/* Opens a run at a PTE mapping pfn with bits, in the large folio of pages
   [folio_pfn, folio_pfn + folio_nr). */
PC_INLINE void pc_fpb_open(struct pc_fpb_run *r, __u64 pfn, __u64 bits, __u64 folio_pfn,
			   __u64 folio_nr)
{
	r->len = 1;
	r->next_pfn = pfn + 1;
	r->folio_end = folio_pfn + folio_nr;
	r->bits = bits;
}

/* Ends the run: its length (0 when none was open). */
PC_INLINE __u32 pc_fpb_close(struct pc_fpb_run *r)
{
	__u32 n = r->len;

	r->len = 0;
	return n;
}

/*
 * Feeds run r the PTE at user address addr (present: mapping pfn, with
 * bits the entry less pc_fpb_ignored()): the length of the run it ends
 * (0: none), and *open when a present PTE continues no run, so the caller
 * reads its folio and, where it is large, pc_fpb_open()s one there.
 */
PC_INLINE __u32 pc_fpb_step(struct pc_fpb_run *r, __u64 addr, bool present, __u64 pfn, __u64 bits,
			    bool *open)
{
	*open = false;
	if (present && pc_fpb_continues(r, addr, pfn, bits)) {
		pc_fpb_extend(r);
		return 0;
	}
	*open = present;
	return pc_fpb_close(r);
}

/*
 * The head of the folio of a struct page at page whose second word
 * (compound_head, v7.2 compound_info) is info: bit 0 marks a tail, the
 * rest is the head's address, or (v7.2 with HugeTLB vmemmap optimization
 * and a power-of-2 struct page) a mask of high bits that takes the tail's
 * address to the head's.  A mask is all ones down to its lowest set bit;
 * were a head's address of that shape too, the mask of it gives the same
 * head, so the two need no telling apart beyond that.
 */
PC_INLINE __u64 pc_page_head(__u64 page, __u64 info)
{
	__u64 y = info & ~1ULL, inv = ~y;

	if (!(info & 1))
		return page;
	if ((inv & (inv + 1)) == 0) /* ~y is 2^k - 1: y is a mask */
		return page & y;
	return y;
}

/*
 * The linear vmemmap, page(pfn) = base + pfn * page_size.  The
 * calibration (bpf/calib.bpf.c) tries candidates for base: x86 places it
 * on a 1 GiB boundary (arch/x86/mm/kaslr.c rounds each region to
 * PUD_SIZE; __VMEMMAP_BASE_L4/L5 otherwise), at most phys_limit's pages
 * below any struct page the kernel points to: candidate k, counting down
 * from that page.
 */
PC_INLINE __u64 pc_vmemmap_candidate_x86(__u64 some_page, __u32 k)
{
	return (some_page & ~((1ULL << 30) - 1)) - ((__u64)k << 30);
}

/* How many such candidates can hold the struct pages below phys_limit. */
PC_INLINE __u32 pc_vmemmap_candidates_x86(__u64 phys_limit, __u64 page_size)
{
	return (__u32)(((phys_limit >> PC_PAGE_SHIFT) * page_size) >> 30) + 1;
}

#endif
