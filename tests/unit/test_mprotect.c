// SPDX-License-Identifier: GPL-2.0
/*
 * The mprotect predicates (include/ptecheck/mprotect.h) on crafted data:
 * a soft-dirty bit lost across mprotect fires, one kept or gained (a write
 * racing the call) does not; a uffd-wp protection lost fires, one kept
 * or gained does not; a page that left or moved fires, one that
 * stayed (or was not there, or whose PFN is hidden) does not.
 */
#include <ptecheck/mprotect.h>
#include "pte_craft.h"

static void soft_dirty(void)
{
	CHECK_VERDICT(pc_soft_dirty_kept(true, false), PC_V_SOFT_DIRTY_LOST,
		      "soft-dirty before, clean after (a batch gave it the first entry's bit): "
		      "SOFT_DIRTY_LOST");
	CHECK_VERDICT(pc_soft_dirty_kept(true, true), PC_OK, "soft-dirty kept: silent");
	CHECK_VERDICT(pc_soft_dirty_kept(false, false), PC_OK, "clean kept: silent");
	CHECK_VERDICT(pc_soft_dirty_kept(false, true), PC_OK,
		      "clean before, soft-dirty after (a racing write may set it): silent");
}

static void uffd_wp(void)
{
	CHECK_VERDICT(pc_uffd_wp_kept(true, false), PC_V_UFFD_WP_LOST,
		      "protected before, not after (a batch gave it the first entry's value): "
		      "UFFD_WP_LOST");
	CHECK_VERDICT(pc_uffd_wp_kept(true, true), PC_OK, "protection kept: silent");
	CHECK_VERDICT(pc_uffd_wp_kept(false, false), PC_OK, "unprotected kept: silent");
	CHECK_VERDICT(pc_uffd_wp_kept(false, true), PC_OK,
		      "unprotected before, protected after (a batch from a protected first "
		      "entry: more faults, nothing lost): silent");
}

static void mapped(void)
{
	CHECK_VERDICT(pc_mprotect_mapped(true, 0x1234, true, 0x1234), PC_OK,
		      "the same page mapped: silent");
	CHECK_VERDICT(pc_mprotect_mapped(true, 0x1234, true, 0x1235), PC_V_PFN_CHANGED,
		      "the next page mapped (a batch's PFN advanced once too often): PFN_CHANGED");
	CHECK_VERDICT(pc_mprotect_mapped(true, 0x1234, false, 0), PC_V_PTE_LOST,
		      "present before, gone after: PTE_LOST");
	CHECK_VERDICT(pc_mprotect_mapped(false, 0, true, 0x99), PC_OK,
		      "not present before: not judged");
	CHECK_VERDICT(pc_mprotect_mapped(true, 0, true, 0), PC_OK,
		      "PFNs hidden (not root): presence alone judged");
}

int main(void)
{
	tap_plan(0);
	soft_dirty();
	uffd_wp();
	mapped();
	CHECK_VERDICT(pc_mprotect_write_faulted(1), PC_OK,
		      "write: the shared page's write faulted: silent");
	CHECK_VERDICT(pc_mprotect_write_faulted(2), PC_OK, "write: two faults (swap-in): silent");
	CHECK_VERDICT(pc_mprotect_write_faulted(0), PC_V_WRITE_GAINED,
		      "write: no fault, so mprotect made it writable: WRITE_GAINED");
	CHECK_VERDICT(pc_anon_write_exclusive(true, true), PC_OK,
		      "write, kernel: writable and exclusive: silent");
	CHECK_VERDICT(pc_anon_write_exclusive(true, false), PC_V_WRITE_GAINED,
		      "write, kernel: writable and shared: WRITE_GAINED");
	CHECK_VERDICT(pc_anon_write_exclusive(false, false), PC_OK,
		      "write, kernel: read-only and shared (after fork): silent");
	CHECK_VERDICT(pc_anon_write_exclusive(false, true), PC_OK,
		      "write, kernel: read-only and exclusive: silent");
	return tap_finish();
}
