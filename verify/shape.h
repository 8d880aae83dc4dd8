/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory shapes the suites share: what a scenario's range turned out to
 * be, read back rather than assumed.  A range is cut into folios of fp
 * pages (its shape's size); each is "whole" when its pages are present at
 * consecutive PFNs from an fp-aligned one, all in one folio of fp pages
 * (pagemap and kpageflags).  Scenarios judge the whole folios and say how
 * many of how many they were; the others (the allocator fell back, a
 * folio split) are counted out, never judged as if they were the shape.
 */
#ifndef PTECHECK_SHAPE_H
#define PTECHECK_SHAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <ptecheck/types.h>

struct pc_folios {
	size_t n, fp;	/* pages, pages per folio */
	__u64 *pagemap; /* n entries, as read */
	__u64 *pfns;	/* n: the PFN of each present page, else 0 */
	__u32 *orders;	/* n: the order of each page's folio */
	bool *whole;	/* n / fp: the folio formed whole */
	size_t n_whole;
};

/* Arrays for n pages in folios of fp: 0 or -ENOMEM. */
int pc_folios_alloc(struct pc_folios *f, size_t n, size_t fp);
void pc_folios_free(struct pc_folios *f);
/*
 * Reads the range at base back: pagemap, PFNs, folio orders, which folios
 * are whole.  0; -EPERM when PFNs are hidden (not root); or -errno of a
 * read (-ESTALE: a folio changed while read).
 */
int pc_folios_read(struct pc_folios *f, const void *base);
/* Whether page i lies in a whole folio. */
static inline bool pc_folios_page_whole(const struct pc_folios *f, size_t i)
{
	return f->whole[i / f->fp];
}

/*
 * Splits the PMD mapping of the THP at base (2 MiB aligned) into 512 PTEs,
 * the folio kept whole: an mprotect of its first page and back, whose VMA
 * split and merge leave the range one VMA again.  0 or -errno.
 */
int pc_split_pmd_mapping(char *base);

/*
 * Whether /proc/self/status shows RSS exactly (before ~v6.16 it read the
 * per-CPU counters approximately): n anonymous pages touched must add n.
 * *seen37 is what 37 added.
 */
bool pc_rss_exact(long *seen37);

#endif
