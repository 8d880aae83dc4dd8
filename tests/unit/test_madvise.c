// SPDX-License-Identifier: GPL-2.0
/*
 * The madvise predicates (include/ptecheck/madvise.h) on crafted counts:
 * LazyFree equal to the advised pages is silent for both; short of them
 * (a batch that skipped its clear) fires madvise/lazyfree, past them (a
 * clear past the range) madvise/range; and the in-kernel judgement of the
 * PTEs next to the range (pc_madvise_neighbour).
 */
#include <ptecheck/madvise.h>
#include "pte_craft.h"

int main(void)
{
	tap_plan(0);
	CHECK_VERDICT(pc_madvise_freed(240, 240), PC_OK, "freed: every advised page lazyfree");
	CHECK_VERDICT(pc_madvise_freed(240, 232), PC_V_NOT_LAZYFREE,
		      "freed: 8 advised pages still dirty: NOT_LAZYFREE");
	CHECK_VERDICT(pc_madvise_freed(240, 248), PC_OK,
		      "freed: more than advised is not this check's");
	CHECK_VERDICT(pc_madvise_within(240, 240), PC_OK, "within: the kept pages not lazyfree");
	CHECK_VERDICT(pc_madvise_within(240, 248), PC_V_OUTSIDE_RANGE,
		      "within: 8 kept pages cleaned: OUTSIDE_RANGE");
	CHECK_VERDICT(pc_madvise_within(240, 200), PC_OK,
		      "within: fewer than advised is not this check's");
	CHECK_VERDICT(pc_madvise_neighbour(true, true, true, false), PC_OK,
		      "neighbour: dirty before, the PTE dirty after: silent");
	CHECK_VERDICT(pc_madvise_neighbour(true, true, false, true), PC_OK,
		      "neighbour: the bit moved to the folio (a split): silent");
	CHECK_VERDICT(pc_madvise_neighbour(true, true, false, false), PC_V_DIRTY_LOST,
		      "neighbour: cleaned by a clear past the range: DIRTY_LOST");
	CHECK_VERDICT(pc_madvise_neighbour(true, false, false, false), PC_NOT_APPLICABLE,
		      "neighbour: another page now (reclaimed, migrated): not applicable");
	CHECK_VERDICT(pc_madvise_neighbour(false, true, false, false), PC_NOT_APPLICABLE,
		      "neighbour: clean before: not applicable");
	return tap_finish();
}
