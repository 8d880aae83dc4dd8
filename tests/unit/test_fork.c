// SPDX-License-Identifier: GPL-2.0
/*
 * The fork predicate (include/ptecheck/fork.h) on crafted data: a page both
 * processes map counted twice is silent, once (one rmap taken for a batch
 * of nr) or three times fires.
 */
#include <ptecheck/fork.h>
#include "pte_craft.h"

int main(void)
{
	tap_plan(0);
	CHECK_VERDICT(pc_fork_mapcount(2, 2), PC_OK, "parent and child: 2: silent");
	CHECK_VERDICT(pc_fork_mapcount(1, 2), PC_V_MAPCOUNT,
		      "1 (the rmap of one page taken for a batch): MAPCOUNT");
	CHECK_VERDICT(pc_fork_mapcount(3, 2), PC_V_MAPCOUNT, "3: MAPCOUNT");
	CHECK_VERDICT(pc_fork_rss(1941, 2197, 256), PC_OK,
		      "rss: the child with the range has its 256 present pages more: silent");
	CHECK_VERDICT(pc_fork_rss(1941, 1957, 256), PC_V_RSS,
		      "rss: 16 more for 256 (one per batch of 16): RSS");
	CHECK_VERDICT(pc_fork_rss(1941, 2198, 256), PC_V_RSS, "rss: one more than copied: RSS");
	return tap_finish();
}
