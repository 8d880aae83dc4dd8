// SPDX-License-Identifier: GPL-2.0
/*
 * The mlock predicates (include/ptecheck/mlock.h) on crafted data: a folio
 * mlocked that no locked range holds whole fires, and with pc_mlock_folio
 * one the range holds whole that is not mlocked fires too; smaps Locked
 * short of a range mlock returned 0 for fires.
 */
#include <ptecheck/batch_walk.h>
#include <ptecheck/mlock.h>
#include "pte_craft.h"

#define A	    USER_ADDR
#define X86_UFFD_WP (1ULL << 10) /* _PAGE_UFFD_WP */

/*
 * The folios bpf/mlock.bpf.c finds whole in an x86 table of two 64 KiB
 * folios (at FOLIO_PFN, FOLIO_PFN + 16), variant v changing one entry:
 * its runs cut by pc_fpb_step, each that ends checked by
 * pc_mlock_run_whole (every folio placed where its index says).
 */
static int whole_runs(int v)
{
	struct pc_fpb_run r = {0};
	__u64 raw[2 * NR], ign = pc_fpb_ignored_x86(false), run_pfn = 0, run_addr = 0, nr = 0;
	int found = 0;

	for (int i = 0; i < 2 * NR; i++)
		raw[i] = mkpte(X86, FOLIO_PFN + i, 1, 1, 1);
	if (v == 1)
		raw[NR + 4] |= X86_UFFD_WP;
	if (v == 2)
		raw[NR - 1] = 0;
	if (v == 3) {
		raw[3] = mkpte(X86, FOLIO_PFN + 3, 0, 0, 0);
		raw[NR + 9] = mkpte(X86, FOLIO_PFN + NR + 9, 1, 0, 1);
	}
	for (int i = 0; i <= 2 * NR; i++) {
		struct pc_pte p = i < 2 * NR ? pc_decode_pte_x86(raw[i]) : (struct pc_pte){0};
		__u64 addr = A + i * PC_PAGE_SIZE, bits = p.raw & ~ign, head;
		bool open;
		__u32 ended = pc_fpb_step(&r, addr, p.kind == PC_PTE_PRESENT, p.pfn, bits, &open);

		if (ended && nr)
			found +=
				pc_mlock_run_whole(run_pfn, ended, run_addr, run_pfn, nr, run_addr);
		if (!open)
			continue;
		head = FOLIO_PFN + ((p.pfn - FOLIO_PFN) & ~(__u64)(NR - 1));
		run_pfn = p.pfn;
		run_addr = addr;
		nr = head == p.pfn ? NR : 0;
		pc_fpb_open(&r, p.pfn, bits, head, NR);
	}
	return found;
}

int main(void)
{
	tap_plan(0);
	CHECK_VERDICT(pc_mlock_allowed(true, true), PC_OK, "mlock: held whole, mlocked: silent");
	CHECK_VERDICT(pc_mlock_allowed(false, true), PC_OK,
		      "allowed: held whole, not mlocked (the allowance alone): silent");
	CHECK_VERDICT(pc_mlock_allowed(false, false), PC_OK, "mlock: cut, not mlocked: silent");
	CHECK_VERDICT(pc_mlock_allowed(true, false), PC_V_MLOCKED,
		      "mlock: a folio the range cuts (or after munlock) mlocked: MLOCKED");
	CHECK_VERDICT(pc_mlock_locked(1020, 1024), PC_V_NOT_LOCKED,
		      "a range mlock returned 0 for, one page short in smaps Locked");
	CHECK_VERDICT(pc_mlock_locked(1024, 1024), PC_OK, "the whole range locked");
	CHECK_VERDICT(pc_mlock_locked(2048, 1024), PC_OK,
		      "more Locked than the range (another locked mapping): not ours to judge");
	CHECK_VERDICT(pc_mlock_folio(true, true), PC_OK, "held whole, mlocked: silent");
	CHECK_VERDICT(pc_mlock_folio(false, true), PC_V_NOT_MLOCKED,
		      "held whole, not mlocked (a batch short of the folio): NOT_MLOCKED");
	CHECK_VERDICT(pc_mlock_folio(true, false), PC_V_MLOCKED, "cut, mlocked: MLOCKED");
	CHECK_VERDICT(pc_mlock_folio(false, false), PC_OK, "cut, not mlocked: silent");

	/* The kernel tier's whole folios: runs as bpf/mlock.bpf.c cuts them. */
	tap_result(pc_mlock_run_whole(100, 16, A, 100, 16, A),
		   "run: a folio's 16 PTEs from its first");
	tap_result(!pc_mlock_run_whole(100, 15, A, 100, 16, A), "run: one PTE short (a batch cut)");
	tap_result(!pc_mlock_run_whole(101, 15, A, 100, 16, A),
		   "run: begins past the folio's first page");
	tap_result(!pc_mlock_run_whole(100, 16, A, 100, 16, A + 4096),
		   "run: the folio's index places it elsewhere (folio_within_range refuses)");
	tap_result(pc_mlock_run_whole(7, 1, A, 7, 1, 0), "run: a small folio, index not asked");
	tap_result(pc_mlock_folio_cut(A, 16, A + 4096, A + 65536 * 4),
		   "cut: the folio begins a page before the range");
	tap_result(pc_mlock_folio_cut(A + 65536 * 3, 16, A, A + 65536 * 4 - 4096),
		   "cut: the folio ends a page after the range");
	tap_result(!pc_mlock_folio_cut(A, 16, A, A + 65536),
		   "cut: the range holds the folio exactly: not cut");
	tap_result(!pc_mlock_folio_cut(A + 4096, 1, A + 8192, A + 65536),
		   "cut: a small folio is never cut");
	tap_result(!pc_mlock_run_whole(7, 1, A, 7, 0, 0), "run: a folio unread (no pages)");
	tap_result(whole_runs(0) == 2, "table: two 64 KiB folios mapped whole: both found");
	tap_result(whole_runs(1) == 1,
		   "table: uffd-wp on the 2nd folio's 5th PTE ends its batch: one");
	tap_result(whole_runs(2) == 1, "table: the 1st folio's 16th PTE not present: one");
	tap_result(whole_runs(3) == 2, "table: dirty, young and write differ: ignored, two");
	return tap_finish();
}
