/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The access patterns of the contpte gather probes, one per branch of the
 * gather loop (contpte_ptep_get): which entry of every other 16-entry
 * block is written after MADV_FREE (dirty) and which is read at the check
 * (young).  The contpte suite runs one scenario per pattern
 * (verify/contpte.c), the reference workload one with --pattern NAME
 * (workloads/contpte_mlock.c).
 *
 * PC_CONTPTE_PATTERNS(X): X(NAME, DIRTY, YOUNG, DESCRIPTION), DIRTY and
 * YOUNG an entry 0..15, PC_CP_ALL or PC_CP_NONE.
 */
#ifndef PTECHECK_CONTPTE_PATTERNS_H
#define PTECHECK_CONTPTE_PATTERNS_H

#define PC_CP_NONE (-1) /* no entry */
#define PC_CP_ALL  16	/* every entry of the block */

/* clang-format off */
#define PC_CONTPTE_PATTERNS(X)                                                                     \
	X("dirty-0", 0, PC_CP_NONE,                                                                \
	  "dirty only in entry 0 of each block: survives MADV_FREE + MADV_PAGEOUT")                \
	X("dirty-1", 1, PC_CP_NONE, "dirty only in entry 1: the loop's second step")              \
	X("dirty-7", 7, PC_CP_NONE, "dirty only in entry 7: mid-block")                           \
	X("dirty-15", 15, PC_CP_NONE, "dirty only in entry 15: the loop's last step")             \
	X("young-0", PC_CP_NONE, 0,                                                                \
	  "young only in entry 0: smaps Referenced after a gathering rewrite")                     \
	X("young-1", PC_CP_NONE, 1, "young only in entry 1")                                      \
	X("young-7", PC_CP_NONE, 7, "young only in entry 7")                                      \
	X("young-15", PC_CP_NONE, 15, "young only in entry 15")                                   \
	X("dirty-7-young-1", 7, 1,                                                                 \
	  "young in 1 before dirty in 7: young branch, then the dirty search")                     \
	X("dirty-1-young-7", 1, 7,                                                                 \
	  "dirty in 1 before young in 7: dirty branch, then the young search")                     \
	X("dirty-15-young-0", 15, 0, "young first entry, dirty last")                             \
	X("dirty-0-young-15", 0, 15, "dirty first entry, young last")                             \
	X("dirty-young-7", 7, 7, "dirty and young both in entry 7 only")                          \
	X("all-clean", PC_CP_NONE, PC_CP_NONE,                                                     \
	  "control: no bit in any entry; clean blocks discarded, none garbled")                    \
	X("all-young-dirty", PC_CP_ALL, PC_CP_ALL, "control: every entry young and dirty")
/* clang-format on */

#endif
