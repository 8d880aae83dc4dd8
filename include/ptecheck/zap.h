/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The zap path: zap_pte_range (mm/memory.c) unmaps a large folio's PTEs in
 * batches (folio_pte_batch in zap_present_ptes), and for each batch of nr
 * takes nr off the mm's RSS counter of the folio's kind and nr off the
 * folio's mapcount (folio_remove_rmap_ptes).  munmap, MADV_DONTNEED, exit
 * and a mapping over an old one all come through here.  A batch that
 * counts one where it unmapped nr leaves the counters nr - 1 too high:
 * the mm's at exit ("Bad rss-counter state"), the folio's while the page
 * cache holds it.
 *
 * The predicates are pure: the suite's oracles (verify/zap*.c) and the
 * unit tests call them.
 */
#ifndef PTECHECK_ZAP_H
#define PTECHECK_ZAP_H

#include "common.h"

#define PC_CHECKS_zap(X)                                                                           \
	X(ZAP_RSS, "zap/rss")                                                                      \
	X(ZAP_RMAP, "zap/rmap")                                                                    \
	X(ZAP_DIRTY, "zap/dirty")

#define PC_EVIDENCE_zap(E)                                                                         \
	E(ZAP_RSS, RSS, "RSS counter fell by other than the pages unmapped")                       \
	E(ZAP_RMAP, MAPCOUNT, "a folio's mapcount fell by other than its PTEs unmapped")           \
	E(ZAP_DIRTY, DIRTY_LOST, "a folio only a zapped PTE held dirty is clean after the zap")

/*
 * A page of a folio whose every PTE the zap took, mapped by no one else,
 * is mapped 0 times after it (kpagecount: the page's mapcount, or the
 * folio's average where the kernel keeps no per-page count; a folio
 * counted nr - 1 too high reads 1 on every page either way).
 */
PC_INLINE int pc_zap_unmapped(__u64 mapcount_after)
{
	return mapcount_after ? PC_V_MAPCOUNT : PC_OK;
}

/*
 * The kernel form (zap/rmap [kernel:syscall-walk]): a large page-cache
 * folio mapped before times by mapcount, ptes of them PTEs of the zapped
 * range, is mapped before - ptes times after (pc_count_delta).  A folio
 * counted fewer times than the PTEs read mapping it was read while
 * something else changed it (the PTEs and the count are two reads): no
 * comparison there (measured once in a 7.2 guest, cause not found).
 */
PC_INLINE int pc_zap_rmap_fell(__s64 before, __s64 after, __s64 ptes)
{
	if (before < ptes)
		return PC_NOT_APPLICABLE;
	return pc_count_delta(before, after, -ptes);
}

/*
 * zap/dirty: zap_present_folio_ptes takes a file folio's batch with
 * get_and_clear_full_ptes, which gathers the dirty bits of all nr PTEs,
 * and marks the folio dirty when any was.  A folio that a zapped PTE held
 * dirty while the folio was clean (the PTE's bit the only record of a
 * write: a shared mapping without write-notify, written after a read
 * fault) is dirty after the zap, or its data is lost at reclaim.
 */
PC_INLINE int pc_zap_dirty_reached(bool pte_dirty, bool folio_dirty_after)
{
	return pte_dirty && !folio_dirty_after ? PC_V_DIRTY_LOST : PC_OK;
}

#endif
