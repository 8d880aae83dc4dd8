/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The walk of a range of a process's PTEs that the judging parts share
 * (bpf/mprotect.bpf.c at a syscall's exit, bpf/fork.bpf.c at fexit of
 * copy_page_range): slot i's PTE, its page table read once per table into
 * the walk's buffer, and what a page's struct page says through the
 * calibrated vmemmap (pc_page_words: madvise's part reads its pages so
 * too; anonymous, exclusive).  The state is the part's own (a map value: the buffer is a
 * page table's worth); its slot function is a global one, verified once.
 */
#ifndef PTECHECK_RANGE_WALK_BPF_H
#define PTECHECK_RANGE_WALK_BPF_H

#include "common.bpf.h"
#include "folio.bpf.h"
#include "ptwalk.h"

#define PC_RW_MAX_PAGES 2048 /* pages judged per range: four page tables' worth */
#define PC_RW_CHUNK	8    /* slots one callback of the loop steps through */

struct pc_range_walk {
	__u64 start, npages; /* the range: its first address, its pages (bounded) */
	__u64 pgd;	     /* the mm's pgd, read when the walk begins */
	__u64 tbl_idx;	     /* the first entry of ptes[]: its index in the table */
	__u64 tbl_phys;	     /* that table's physical address */
	__u32 tbl_ok, pad;
	__u64 ptes[PC_PTRS_PER_TABLE];
};

/* The range [start, start + len) bounded to PC_RW_MAX_PAGES, the pages
   past it counted as uncovered. */
static __always_inline void pc_rw_set(struct pc_range_walk *w, __u64 start, __u64 len)
{
	w->start = start;
	w->npages = len >> PC_PAGE_SHIFT;
	if (w->npages > PC_RW_MAX_PAGES) {
		stat_add(PC_STAT_PAGES_UNCOVERED, w->npages - PC_RW_MAX_PAGES);
		w->npages = PC_RW_MAX_PAGES;
	}
}

/* Reads the entries of addr's page table, from addr's entry on. */
static __always_inline void pc_rw_load_table(struct pc_range_walk *w, __u64 addr)
{
	__u64 pmd = 0, idx = (addr >> PC_PAGE_SHIFT) & 511, n = PC_PTRS_PER_TABLE - idx;

	w->tbl_ok = 0;
	if (pc_walk_pmd(w->pgd, addr, &pmd) != PC_WALK_TABLE)
		return;
	PC_BOUND(n, 1023);
	if (n == 0 || n > PC_PTRS_PER_TABLE ||
	    pc_read_ptes(pc_table_phys(pmd), idx, w->ptes, n * 8))
		return;
	w->tbl_idx = idx;
	w->tbl_phys = pc_table_phys(pmd);
	w->tbl_ok = 1;
}

/*
 * Whether the PTE at addr (in the table last read) is still p: what a
 * page's struct page said, read after the table, is that page's at this
 * PTE only while it is.  Migration clears the PTE, then the old page's
 * PG_anon_exclusive (try_to_migrate_one), so a PTE read from the table
 * and flags read later may be of two moments.
 */
static __always_inline bool pc_rw_pte_still(const struct pc_range_walk *w, __u64 addr,
					    const struct pc_pte *p)
{
	struct pc_pte q;
	__u64 now = 0;

	if (!w->tbl_ok || pc_read_ptes(w->tbl_phys, (addr >> PC_PAGE_SHIFT) & 511, &now, 8))
		return false;
	/* The same page and permission; hardware may have set A/D meanwhile. */
	q = pc_decode_pte(now);
	return q.kind == p->kind && q.pfn == p->pfn && q.write == p->write;
}

/* Slot i's address and PTE (its table read when i is the first slot or
   begins a table): false when the table cannot be read (none, a huge
   PMD, a read that faulted). */
static __always_inline bool pc_rw_pte(struct pc_range_walk *w, __u64 i, __u64 *addr,
				      struct pc_pte *p)
{
	__u64 idx;

	*addr = w->start + (i << PC_PAGE_SHIFT);
	idx = (*addr >> PC_PAGE_SHIFT) & 511;
	if (i == 0 || idx == 0)
		pc_rw_load_table(w, *addr);
	if (!w->tbl_ok)
		return false;
	*p = pc_decode_pte(w->ptes[(idx - w->tbl_idx) & 511]);
	return true;
}

/*
 * NAME, the bpf_loop callback of a part's walk: chunk c of the range,
 * PC_RW_CHUNK slots of it, each judged by SLOT(state, i), the state (a
 * TYPE, whose walk is its .rw) looked up in MAP by the key bpf_loop
 * passes.  Stops at the range's end.
 */
#define PC_RW_LOOP_FN(name, map, type, slot)                                                       \
	static long name(__u32 c, void *key)                                                       \
	{                                                                                          \
		type *st = bpf_map_lookup_elem(&map, key);                                         \
		__u64 i = (__u64)c * PC_RW_CHUNK;                                                  \
                                                                                                   \
		if (!st)                                                                           \
			return 1;                                                                  \
		for (int k = 0; k < PC_RW_CHUNK; k++, i++) {                                       \
			if (i >= st->rw.npages || i >= PC_RW_MAX_PAGES)                            \
				return 1;                                                          \
			slot(st, i);                                                               \
		}                                                                                  \
		return 0;                                                                          \
	}

/* The words of the page at pfn through the calibrated vmemmap
   (pc_page_words_at): 0, or -1 when they cannot be read. */
static __always_inline int pc_page_words(__u64 pfn, struct pc_page_words *w)
{
	return pc_page_words_at(walk_vmemmap, walk_page_size, pfn, walk_phys_limit >> PC_PAGE_SHIFT,
				w);
}

/* The page at pfn: whether its folio is anonymous, and the page exclusive
   to its process (PG_anon_exclusive, by CO-RE); -1 when it cannot be read
   (no vmemmap, a kernel without the flag, a folio split meanwhile). */
static __always_inline int pc_rw_page(__u64 pfn, bool *anon, bool *exclusive)
{
	struct pc_page_words w = {};

	if (!bpf_core_enum_value_exists(enum pageflags, PG_anon_exclusive) ||
	    pc_page_words(pfn, &w))
		return -1;
	*anon = (w.mapping & PC_PAGE_MAPPING_ANON) != 0;
	*exclusive = w.flags & (1UL << bpf_core_enum_value(enum pageflags, PG_anon_exclusive));
	return 0;
}

#endif
