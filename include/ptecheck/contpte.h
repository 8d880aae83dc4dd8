/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The arm64 contiguous-PTE path (arch/arm64/mm/contpte.c: 16 entries of
 * one 64 KiB folio read and written as one): its checks and predicates.
 */
#ifndef PTECHECK_CONTPTE_H
#define PTECHECK_CONTPTE_H

#include "common.h"

#define PC_CONTPTE_CHECKS(X)                                                                       \
	X(CP_GATHER, "contpte/gather")                                                             \
	X(CP_MLOCK, "contpte/mlock")                                                               \
	X(CP_FOLD, "contpte/fold")                                                                 \
	X(CP_YOUNG, "contpte/clear-young")

#define PC_CONTPTE_EVIDENCE(E)                                                                     \
	E(CP_MLOCK, MAPCOUNT, "smaps Locked did not return to 0 after munlock")

/* The syscalls whose page walks hold the page-table lock: contpte_ptep_get
   is judged inside them (bpf/contpte.bpf.c, trace/contpte.c). */
#define PC_CONTPTE_LOCKED_SYSCALLS(X) X(mlock) X(mlock2) X(munlock) X(madvise)

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
 * contpte/fold, after an unfold: no access/dirty bit present in the block
 * before it is lost.  The kernel writes the block's gathered bits into
 * every entry (contpte_convert), so each entry k must map first_pfn + k
 * and carry every bit gathered at entry.
 */
PC_INLINE int pc_unfold_entry(const struct pc_gather *g, __u32 k, struct pc_pte seen)
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
