// SPDX-License-Identifier: GPL-2.0
/*
 * The mlock predicates (include/ptecheck/mlock.h) on crafted data: a folio
 * mlocked that no locked range holds whole fires, and with pc_mlock_folio
 * one the range holds whole that is not mlocked fires too; smaps Locked
 * short of a range mlock returned 0 for fires.
 */
#include <ptecheck/mlock.h>
#include "pte_craft.h"

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
	return tap_finish();
}
