/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The mprotect path: change_pte_range (mm/mprotect.c) batches the PTEs of
 * a large folio (mprotect_folio_pte_batch, with FPB_RESPECT_SOFT_DIRTY and
 * FPB_RESPECT_WRITE), reads the batch as one (modify_prot_start_ptes
 * gathers young and dirty over it) and writes one value back over all of
 * it (modify_prot_commit_ptes, advancing only the PFN).  What the batch
 * must respect is therefore what it must keep per entry: an entry whose
 * soft-dirty bit differs from the first's must end a batch, or the commit
 * gives it the first's.  And what it writes back must map each page where
 * it was.
 *
 * The predicates are pure: the scenarios' oracles (verify/mprotect*.c)
 * and the unit tests call them.
 */
#ifndef PTECHECK_MPROTECT_H
#define PTECHECK_MPROTECT_H

#include "common.h"

#define PC_CHECKS_mprotect(X)                                                                      \
	X(MP_SOFT_DIRTY, "mprotect/soft-dirty")                                                    \
	X(MP_MAPPED, "mprotect/mapped")                                                            \
	X(MP_WRITE, "mprotect/write")                                                              \
	X(MP_UFFD_WP, "mprotect/uffd-wp")

/* The words of evidence where the verdict's own are not precise enough. */
#define PC_EVIDENCE_mprotect(E)                                                                    \
	E(MP_SOFT_DIRTY, SOFT_DIRTY_LOST, "soft-dirty before mprotect, clean after")               \
	E(MP_MAPPED, PFN_CHANGED, "mprotect changed the page a PTE maps")                          \
	E(MP_WRITE, WRITE_GAINED,                                                                  \
	  "writable while not exclusive (shared: a write must fault, copy)")                       \
	E(MP_UFFD_WP, UFFD_WP_LOST, "uffd-wp-protected before mprotect, not after")

/*
 * A page present before mprotect is present after it, at the same PFN
 * (pfn 0 on either side: not visible, not judged).  Migration, reclaim
 * and compaction could move it: the scenarios judge in quiet windows.
 */
PC_INLINE int pc_mprotect_mapped(bool present_before, __u64 pfn_before, bool present_after,
				 __u64 pfn_after)
{
	if (!present_before)
		return PC_OK;
	if (!present_after)
		return PC_V_PTE_LOST;
	if (pfn_before && pfn_after && pfn_before != pfn_after)
		return PC_V_PFN_CHANGED;
	return PC_OK;
}

/*
 * Write permission on a private anonymous page only where the page is
 * exclusive to the process (PageAnonExclusive): a page shared at fork and
 * not written since is not, and mprotect(PROT_READ|PROT_WRITE) must leave
 * its PTE read-only (can_change_private_pte_writable), so a write to it
 * faults.  faults: the faults one write to it took.  A batch that grants
 * write by its first page's exclusivity maps it writable: no fault.
 */
PC_INLINE int pc_mprotect_write_faulted(__u64 faults)
{
	return faults ? PC_OK : PC_V_WRITE_GAINED;
}

/* Its kernel form (mprotect/write [kernel:syscall-walk]) is the
   kernel-wide rule of common.h, pc_anon_write_exclusive, over the range of
   an mprotect that granted write, when it returns. */

#endif
