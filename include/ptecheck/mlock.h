/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The mlock path: mlock_pte_range (mm/mlock.c) steps over a large folio's
 * PTEs in one batch (folio_mlock_step: folio_pte_batch over the range
 * left) and mlocks the folio only when the range and the VMA hold it
 * whole and the batch maps all of it (allow_mlock_munlock); munlock
 * unlocks every folio of its range.  mlock(2) returns populate's error,
 * so a 0 return means the range is VM_LOCKED and present.
 *
 * The predicates are pure: the mlock suite (verify/mlock*.c), contpte's
 * mlock scenarios and the unit tests call them.
 */
#ifndef PTECHECK_MLOCK_H
#define PTECHECK_MLOCK_H

#include "common.h"

#define PC_CHECKS_mlock(X)                                                                         \
	X(MLOCK_FOLIOS, "mlock/folios")                                                            \
	X(MLOCK_LOCKED, "mlock/locked")

#define PC_EVIDENCE_mlock(E)                                                                       \
	E(MLOCK_FOLIOS, MLOCKED, "folio mlocked that no locked range holds whole")                 \
	E(MLOCK_FOLIOS, NOT_MLOCKED, "folio a locked range holds whole not mlocked")

/*
 * A folio may be mlocked only while a locked range holds it whole (a small
 * one: the range holds its page); after munlock, none.
 */
PC_INLINE int pc_mlock_allowed(bool mlocked, bool held_whole)
{
	return mlocked && !held_whole ? PC_V_MLOCKED : PC_OK;
}

/*
 * Both ways, where the folio is ours alone and was present when mlock
 * ran: mlock_pte_range sets PG_mlocked at once (mlock_folio, before its
 * per-CPU batch) on every folio the range holds whole, so one the locked
 * range holds whole and that is not mlocked when mlock returns is the
 * bug (a batch short of the folio: allow_mlock_munlock refuses it).
 */
PC_INLINE int pc_mlock_folio(bool mlocked, bool held_whole)
{
	if (held_whole && !mlocked)
		return PC_V_NOT_MLOCKED;
	return pc_mlock_allowed(mlocked, held_whole);
}

/*
 * The kernel form (mlock/folios [kernel:syscall-walk]) finds the folios a
 * range holds whole in its PTEs: a run as folio_pte_batch cuts them
 * (batch_walk.h: pc_fpb_step), that begins at the folio's first page and
 * maps all folio_nr of them (step == folio_nr_pages in
 * allow_mlock_munlock), where the folio's own index places it
 * (folio_within_range: index_addr, the address the VMA gives its index,
 * is the run's; a small folio is always allowed).
 */
PC_INLINE bool pc_mlock_run_whole(__u64 run_pfn, __u64 run_len, __u64 run_addr, __u64 folio_pfn,
				  __u64 folio_nr, __u64 index_addr)
{
	if (run_pfn != folio_pfn || run_len != folio_nr || !folio_nr)
		return false;
	return folio_nr == 1 || run_addr == index_addr;
}

/*
 * The other way (pc_mlock_folio with held_whole false): a large folio
 * whose span, where its own index places it (index_addr, folio_nr pages),
 * reaches out of the locked range [start, end) is one folio_within_range
 * refuses, so mlock_pte_range leaves it unmlocked.  A small folio is
 * never cut.
 */
PC_INLINE bool pc_mlock_folio_cut(__u64 index_addr, __u64 folio_nr, __u64 start, __u64 end)
{
	if (folio_nr < 2)
		return false;
	return index_addr < start || index_addr + (folio_nr << PC_PAGE_SHIFT) > end;
}

/*
 * mlock(2) that returned 0 made its range VM_LOCKED and faulted every page
 * in (mm/gup.c __mm_populate, whose error mlock returns), so smaps'
 * Locked over the range is at least the range's size while it is locked
 * (our private pages: PSS is RSS).  Less is a range the kernel said it
 * locked and did not: what a scenario made itself, so the failure, not a
 * precondition (migration's transient entries are why it is judged in
 * quiet windows only, and over three attempts).
 */
PC_INLINE int pc_mlock_locked(__u64 locked_kb, __u64 range_kb)
{
	return locked_kb < range_kb ? PC_V_NOT_LOCKED : PC_OK;
}

#endif
