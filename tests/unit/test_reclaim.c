// SPDX-License-Identifier: GPL-2.0
/*
 * The reclaim checks' predicates (include/ptecheck/common.h) on the data
 * of the bugs they exist for: a batch of 16 discarded and counted as one
 * fires reclaim/rss, a page written after MADV_FREE read back as 0 fires
 * reclaim/dirty; the correct data is silent.
 */
#include <ptecheck/reclaim.h>
#include "pte_craft.h"

int main(void)
{
	tap_plan(0);
	CHECK_VERDICT(pc_rss_fell_by(4096, 4096 - 16 * 8, 16 * 8), PC_OK,
		      "rss: 8 folios of 16 discarded, 128 pages off: silent");
	CHECK_VERDICT(pc_rss_fell_by(4096, 4096 - 8, 16 * 8), PC_V_RSS,
		      "rss: one page off per batch of 16: RSS");
	CHECK_VERDICT(pc_rss_fell_by(4096, 4096, 0), PC_OK,
		      "rss: every folio kept (each had a dirty entry): silent");
	CHECK_VERDICT(pc_written_survives(0x77, 0x77), PC_OK, "dirty: the written byte: silent");
	CHECK_VERDICT(pc_written_survives(0x77, 0), PC_V_DATA_LOST,
		      "dirty: the folio discarded, the page reads 0: DATA_LOST");
	CHECK_VERDICT(pc_reclaim_dirty_kept(true, true), PC_OK,
		      "kernel: a dirty lazyfree PTE still maps its page (put back): silent");
	CHECK_VERDICT(pc_reclaim_dirty_kept(true, false), PC_V_DATA_LOST,
		      "kernel: a dirty lazyfree PTE empty after MADV_PAGEOUT: DATA_LOST");
	CHECK_VERDICT(pc_reclaim_dirty_kept(false, false), PC_OK,
		      "kernel: a clean lazyfree PTE discarded: silent");
	CHECK_VERDICT(pc_reclaim_within_vma(true, true), PC_OK,
		      "bounds: the folio's PTE past the VMA still maps its page: silent");
	CHECK_VERDICT(pc_reclaim_within_vma(true, false), PC_V_OUTSIDE_VMA,
		      "bounds: that PTE changed by this VMA's unmap: OUTSIDE_VMA");
	CHECK_VERDICT(pc_reclaim_within_vma(false, false), PC_OK,
		      "bounds: nothing of the folio mapped there: silent");
	return tap_finish();
}
