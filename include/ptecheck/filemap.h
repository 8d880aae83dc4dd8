/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The filemap path: folio-based fault-around (mm/filemap.c
 * filemap_map_pages -> filemap_map_folio_range -> set_pte_range, and
 * folio_add_file_rmap_ptes): its checks and their predicates.
 */
#ifndef PTECHECK_FILEMAP_H
#define PTECHECK_FILEMAP_H

#include "common.h"

#define PC_CHECKS_filemap(X)                                                                       \
	X(FM_BOUNDS, "filemap/batch-bounds")                                                       \
	X(FM_PTES_SET, "filemap/ptes-set")                                                         \
	X(FM_RMAP, "filemap/rmap-count")                                                           \
	X(FM_RSS, "filemap/rss-count")                                                             \
	X(FM_PROGRESS, "filemap/fault-progress")

#define PC_EVIDENCE_filemap(E)                                                                     \
	E(FM_RMAP, BATCH_NR_MISMATCH,                                                              \
	  "folio_add_file_rmap_ptes covered a different number of pages than set_pte_range "       \
	  "mapped")                                                                                \
	E(FM_RMAP, BATCH_OUTSIDE_FOLIO, "the rmap update covered another folio than the batch")    \
	E(FM_PROGRESS, FAULT_LOOP,                                                                 \
	  "a write fault of a large folio's page, its other PTEs present, never mapped it")

/*
 * filemap/fault-progress: a fault of a page of a large file folio whose
 * other pages are mapped already maps that page and returns (finish_fault
 * maps the whole folio where every PTE of its range is empty, else falls
 * back to the one page: 34b82f33cf3f; before it, a range not all empty
 * returned VM_FAULT_NOPAGE unmapped, and the access faulted forever).
 * completed: the access returned within its time; mapped: pagemap shows
 * the page present after it.
 */
PC_INLINE int pc_fault_progress(bool completed, bool mapped)
{
	return completed && mapped ? PC_OK : PC_V_FAULT_LOOP;
}

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

/*
 * The PTEs a fault-around batch of a large folio could have had
 * (filemap_map_folio_range): from its first page to the first bound the
 * kernel must stop at, the end of the folio, of the fault-around window
 * (win_last, a file page index, as filemap_map_pages gets it: already cut
 * to the VMA and page table), of the VMA and of the page table, and,
 * unless eof_exempt, of the file.  0 for a small folio or a batch outside
 * those bounds (batch-bounds judges that).  A batch shorter than its cap
 * stopped at a PTE present already or a poisoned page, which ptecheck's
 * scenarios make alike on every run; a kernel that caps its batches or
 * stops mapping whole folios shows as a falling share of batches that
 * reach their cap, per folio order, whatever mix of orders the allocator
 * gave (the gate's batching rule).
 */
PC_INLINE __u64 pc_fault_batch_cap(struct pc_fault_batch b, __u64 win_first, __u64 win_last)
{
	__u64 cap, n, eof;

	if (b.folio_nr < 2 || b.folio_start >= b.folio_nr || b.file_index < win_first ||
	    b.file_index > win_last || b.addr < b.vm_start || b.addr >= b.vm_end)
		return 0;
	cap = b.folio_nr - b.folio_start;
	n = win_last - b.file_index + 1;
	cap = n < cap ? n : cap;
	n = (b.vm_end - b.addr) >> PC_PAGE_SHIFT;
	cap = n < cap ? n : cap;
	n = PC_PTRS_PER_TABLE - ((b.addr >> PC_PAGE_SHIFT) & (PC_PTRS_PER_TABLE - 1));
	cap = n < cap ? n : cap;
	if (b.eof_exempt)
		return cap;
	eof = (b.i_size + PC_PAGE_SIZE - 1) >> PC_PAGE_SHIFT;
	if (b.file_index >= eof)
		return 0;
	n = eof - b.file_index;
	return n < cap ? n : cap;
}

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

/* A batch-bounds verdict whose batch has the kernel write what is not
   its own: mapcounts of pages past the folio, PTEs past the page table.
   Such a batch may kill the kernel before it returns (f58df566524e:
   Bad page state, or a fault past the vmemmap), so it is also judged on
   entry where the kernel dumps its trace buffer when it dies. */
PC_INLINE bool pc_fault_batch_fatal(int verdict)
{
	return verdict == PC_V_BATCH_OUTSIDE_FOLIO || verdict == PC_V_BATCH_CROSSES_PMD;
}

/* The evidence of a batch-bounds verdict: the bound the batch had to keep
   (expected) and how far it went (seen), in the verdict's unit. */
struct pc_fault_evidence {
	__u64 expected;
	__u64 seen;
};

PC_INLINE struct pc_fault_evidence pc_fault_batch_evidence(struct pc_fault_batch b, int verdict)
{
	__u64 end = b.addr + ((__u64)b.nr << PC_PAGE_SHIFT); /* user address after the batch */
	struct pc_fault_evidence e = {0, 0};

	switch (verdict) {
	case PC_V_BATCH_EMPTY: /* PTEs: at least one, and nr */
		e.expected = 1;
		e.seen = b.nr;
		break;
	case PC_V_BATCH_OUTSIDE_FOLIO: /* pages: the folio's, and where in it the batch ends */
		e.expected = b.folio_nr;
		e.seen = b.folio_start + b.nr;
		break;
	case PC_V_BATCH_CROSSES_PMD: /* user addresses: the end of addr's page table, the batch's */
		e.expected = (b.addr | (PC_PMD_SIZE - 1)) + 1;
		e.seen = end;
		break;
	case PC_V_OUTSIDE_VMA: /* user addresses: the VMA bound crossed, the batch's edge past it */
		e.expected = b.addr < b.vm_start ? b.vm_start : b.vm_end;
		e.seen = b.addr < b.vm_start ? b.addr : end;
		break;
	case PC_V_PAST_EOF: /* file page indices: the first at or past EOF, the last mapped */
		e.expected = (b.i_size + PC_PAGE_SIZE - 1) >> PC_PAGE_SHIFT;
		e.seen = b.file_index + b.nr - 1;
		break;
	}
	return e;
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

#endif
