// SPDX-License-Identifier: GPL-2.0
/*
 * The zap predicates (include/ptecheck/zap.h) on crafted data: an RSS
 * counter that fell by other than the pages unmapped fires (one per batch
 * of 16: 15 short), the exact fall does not; a page of a folio unmapped
 * whole that still counts a mapping fires, 0 does not; in the kernel's
 * form, a mapcount that fell by other than the PTEs zapped fires; a folio
 * whose only dirty PTE was zapped and is clean after fires.
 */
#include <ptecheck/zap.h>
#include "pte_craft.h"

int main(void)
{
	tap_plan(0);
	CHECK_VERDICT(pc_rss_fell_by(1000, 1000 - 64, 64), PC_OK,
		      "RSS fell by the 64 pages: silent");
	CHECK_VERDICT(pc_rss_fell_by(1000, 1000 - 4, 64), PC_V_RSS,
		      "RSS fell by 4 for 64 pages in 4 batches of 16 (one per batch): RSS");
	CHECK_VERDICT(pc_rss_fell_by(1000, 1000 - 65, 64), PC_V_RSS, "RSS fell by more: RSS");
	CHECK_VERDICT(pc_rss_fell_by(1000, 1000, 0), PC_OK,
		      "nothing present, nothing fell: silent");
	CHECK_VERDICT(pc_zap_unmapped(0), PC_OK, "a page of a folio unmapped whole: 0: silent");
	CHECK_VERDICT(pc_zap_unmapped(1), PC_V_MAPCOUNT,
		      "still mapped once (the rmap of one page removed per batch): MAPCOUNT");
	CHECK_VERDICT(pc_zap_rmap_fell(16, 0, 16), PC_OK,
		      "kernel: a folio's mapcount fell by its 16 zapped PTEs: silent");
	CHECK_VERDICT(pc_zap_rmap_fell(16, 8, 8), PC_OK,
		      "kernel: half a folio zapped (a cut range), fell by 8: silent");
	CHECK_VERDICT(pc_zap_rmap_fell(16, 15, 16), PC_V_MAPCOUNT,
		      "kernel: fell by 1 for a batch of 16 (one rmap per batch): MAPCOUNT");
	CHECK_VERDICT(pc_zap_rmap_fell(20, 19, 16), PC_V_MAPCOUNT,
		      "kernel: mapped elsewhere too (20), fell by 1 for 16: MAPCOUNT");
	CHECK_VERDICT(pc_zap_rmap_fell(7, 0, 16), PC_NOT_APPLICABLE,
		      "kernel: counted 7 times while 16 PTEs were read mapping it: torn, "
		      "not compared");
	CHECK_VERDICT(pc_zap_dirty_reached(true, true), PC_OK,
		      "dirty: a zapped PTE's dirty bit on the folio: silent");
	CHECK_VERDICT(pc_zap_dirty_reached(true, false), PC_V_DIRTY_LOST,
		      "dirty: the only dirty PTE zapped, the folio clean after: DIRTY_LOST");
	CHECK_VERDICT(pc_zap_dirty_reached(false, false), PC_OK,
		      "dirty: no dirty PTE, the folio clean: silent");
	return tap_finish();
}
