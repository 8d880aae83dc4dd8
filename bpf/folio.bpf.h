/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading struct page and struct folio through the vmemmap with
 * bpf_probe_read_kernel(), by field names CO-RE finds in the running
 * kernel (include/linux/mm_types.h): the calibration (bpf/calib.bpf.c)
 * and the batch path's derived source (bpf/batch_walk.bpf.c).
 */
#ifndef PTECHECK_FOLIO_BPF_H
#define PTECHECK_FOLIO_BPF_H

#include "kernel_types.h"
#include <bpf/bpf_core_read.h>
#include <ptecheck/batch_walk.h>

/* The word after the flags: compound_head until v7.1, compound_info since. */
struct page___pc_head {
	unsigned long compound_head;
} __attribute__((preserve_access_index));
struct page___pc_info {
	unsigned long compound_info;
} __attribute__((preserve_access_index));
/* The order of a large folio, v6.1 .. v6.5 (later: _flags_1's low byte). */
struct folio___pc_v61 {
	unsigned char _folio_order;
} __attribute__((preserve_access_index));

/* Offset of the compound word in struct page, -1 when neither name is. */
static __always_inline long pc_page_info_off(void)
{
	if (bpf_core_field_exists(struct page___pc_info, compound_info))
		return bpf_core_field_offset(struct page___pc_info, compound_info);
	if (bpf_core_field_exists(struct page___pc_head, compound_head))
		return bpf_core_field_offset(struct page___pc_head, compound_head);
	return -1;
}

/* Can this kernel's folios be read: the compound word and the order? */
static __always_inline bool pc_folio_layout_known(void)
{
	return pc_page_info_off() >= 0 &&
	       (bpf_core_field_exists(struct folio___pc_v61, _folio_order) ||
		bpf_core_field_exists(struct folio, _flags_1));
}

/* A folio as seen from one of its pages: pages 0 when unreadable. */
struct pc_folio_at {
	__u64 head;  /* the head's struct page */
	__u64 pages; /* 1 small, 2^order large */
};

static __always_inline __u32 pc_folio_order_at(__u64 head)
{
	struct folio *f = (struct folio *)head;
	unsigned char order = 0;
	unsigned long flags1 = 0;

	if (bpf_core_field_exists(struct folio___pc_v61, _folio_order)) {
		if (bpf_probe_read_kernel(
			    &order, sizeof(order),
			    (void *)(head +
				     bpf_core_field_offset(struct folio___pc_v61, _folio_order))))
			return 32;
		return order;
	}
	if (bpf_probe_read_kernel(&flags1, sizeof(flags1), &f->_flags_1))
		return 32;
	return flags1 & 0xff;
}

/* The folio of the struct page at page (include/linux/page-flags.h:
   _compound_head, folio_order). */
static __always_inline struct pc_folio_at pc_folio_of_page(__u64 page)
{
	struct pc_folio_at r = {0, 0};
	unsigned long info = 0, flags = 0;
	long off = pc_page_info_off();
	__u32 order;

	if (off < 0 || bpf_probe_read_kernel(&info, sizeof(info), (void *)(page + off)))
		return r;
	r.head = pc_page_head(page, info);
	if (bpf_probe_read_kernel(&flags, sizeof(flags), (void *)r.head))
		return r;
	if (!(flags & (1UL << bpf_core_enum_value(enum pageflags, PG_head)))) {
		/* A tail whose head is no head: split meanwhile, unreadable. */
		if (r.head == page)
			r.pages = 1;
		return r;
	}
	order = pc_folio_order_at(r.head);
	if (order > 18) /* beyond any folio (MAX_FOLIO_ORDER is PUD_ORDER at most) */
		return r;
	r.pages = 1ULL << order;
	return r;
}

/* folio->mapping's tag of an anonymous folio (PAGE_MAPPING_ANON). */
#define PC_PAGE_MAPPING_ANON 0x1UL

/* What a check reads of one page: its own flags, and its folio's head
   flags and mapping word (PC_PAGE_MAPPING_ANON: anonymous). */
struct pc_page_words {
	unsigned long flags, head_flags, mapping;
};

/*
 * The words of the page at pfn, its struct page at vmemmap + pfn *
 * page_size: 0, or -1 when they cannot be read (pfn past RAM, no
 * vmemmap, a folio split meanwhile).
 */
static __always_inline int pc_page_words_at(__u64 vmemmap, __u64 page_size, __u64 pfn,
					    __u64 pfn_limit, struct pc_page_words *w)
{
	__u64 page = vmemmap + pfn * page_size;
	struct pc_folio_at at;

	if (pfn >= pfn_limit || !page_size)
		return -1;
	at = pc_folio_of_page(page);
	if (!at.pages ||
	    bpf_probe_read_kernel(&w->mapping, sizeof(w->mapping),
				  &((struct folio *)at.head)->mapping) ||
	    bpf_probe_read_kernel(&w->head_flags, sizeof(w->head_flags), (void *)at.head) ||
	    bpf_probe_read_kernel(&w->flags, sizeof(w->flags), (void *)page))
		return -1;
	return 0;
}

#endif
