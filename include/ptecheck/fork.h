/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fork path: copy_present_ptes (mm/memory.c) copies a large folio's
 * PTEs in batches (folio_pte_batch_flags with FPB_MERGE_WRITE, and
 * FPB_RESPECT_DIRTY for private mappings), takes one rmap per PTE
 * (folio_try_dup_anon_rmap_ptes(nr)) and writes the batch's one value into
 * the child (set_ptes).  A private batch must end where the dirty bit
 * differs: the child's PTEs get the first entry's, and a lazyfree folio
 * whose only dirty PTE was lost is discarded by reclaim, its data with it.
 * And a batch's write bit is merged (FPB_MERGE_WRITE): if any entry is
 * writable, __copy_present_ptes write-protects all of them in the parent
 * (wrprotect_ptes), or a page now shared stays writable there and the
 * parent's writes reach the child (fork/cow: pc_cow_isolated, and
 * pc_write_faulted for the fork's own write protection).
 *
 * The predicates are pure: the suite's oracles (verify/fork*.c) and the
 * unit tests call them.
 */
#ifndef PTECHECK_FORK_H
#define PTECHECK_FORK_H

#include "common.h"

#define PC_CHECKS_fork(X)                                                                          \
	X(FORK_DIRTY, "fork/dirty")                                                                \
	X(FORK_RMAP, "fork/rmap")                                                                  \
	X(FORK_COW, "fork/cow")                                                                    \
	X(FORK_UFFD_WP, "fork/uffd-wp")                                                            \
	X(FORK_SOFT_DIRTY, "fork/soft-dirty")                                                      \
	X(FORK_RSS, "fork/rss")

#define PC_EVIDENCE_fork(E)                                                                        \
	E(FORK_DIRTY, DATA_LOST, "written in the parent, lost in the child after reclaim")         \
	E(FORK_RMAP, MAPCOUNT, "a page of a folio both processes map not counted twice")           \
	E(FORK_RSS, RSS, "the child's RssAnon rose by other than the pages fork copied")           \
	E(FORK_COW, COW_BROKEN, "written by the parent after fork, seen so by the child")          \
	E(FORK_COW, WRITE_GAINED,                                                                  \
	  "writable in the parent, its page not exclusive (shared at fork)")                       \
	E(FORK_UFFD_WP, UFFD_WP_LOST, "uffd-wp-protected in the parent before fork, not after")    \
	E(FORK_SOFT_DIRTY, SOFT_DIRTY_LOST, "soft-dirty in the parent before fork, clean after")

/*
 * A page both the parent and the child map (and no one else) is mapped
 * twice: kpagecount reads 2, the page's own count or the folio's average
 * alike; a batch that took one rmap for nr PTEs reads 1.
 */
PC_INLINE int pc_fork_mapcount(__u64 mapcount, __u64 mappers)
{
	return mapcount == mappers ? PC_OK : PC_V_MAPCOUNT;
}

/*
 * fork/rss: copy_present_ptes adds each batch's nr to the child's counter
 * of the folio's kind (rss[mm_counter(folio)] += nr), so a child forked
 * with a range copied has exactly the range's present pages more in
 * RssAnon than a child forked with the same range left out
 * (MADV_DONTFORK), everything else equal.
 */
PC_INLINE int pc_fork_rss(__s64 without, __s64 with, __s64 present)
{
	return with - without == present ? PC_OK : PC_V_RSS;
}

#endif
