// SPDX-License-Identifier: GPL-2.0
/*
 * The contpte predicates (include/ptecheck/contpte.h) on crafted blocks:
 * contpte_ptep_get's gather against a model of the kernel's early-exit
 * loop, correct and cut short, over every pattern of young and dirty
 * entries; folds, unfolds and clear-young.
 */
#include "pte_craft.h"

/*
 * A model of arm64 contpte_ptep_get(): the correct early-exit gather loop
 * (stop once both a young and a dirty entry were seen) and a premature one
 * (stop at the first entry with either bit, as a wrong early exit would).
 */
static __u64 model_gather(const __u64 *block, __u64 orig, bool premature)
{
	bool young = false, dirty = false;

	for (int i = 0; i < NR; i++) {
		struct pc_pte e = pc_decode_pte_arm64(block[i]);

		young |= e.young;
		dirty |= e.dirty;
		if ((young && dirty) || (premature && (young || dirty)))
			break;
	}
	if (young)
		orig |= PC_ARM64_AF;
	if (dirty)
		orig |= PC_ARM64_SW_DIRTY;
	return orig;
}

/* One pattern: young in entries ys, dirty in entries ds (bit masks). */
static void gather_pattern(const char *what, __u32 ys, __u32 ds)
{
	__u64 block[NR];
	struct pc_gather g = {0};
	struct pc_pte orig, good, bad;
	int v_good, v_bad;

	for (int i = 0; i < NR; i++) {
		/* Writable, hardware-clean (RDONLY set) unless dirty in this entry. */
		block[i] = mkpte(ARM64, FOLIO_PFN + i, 1, (ys >> i) & 1, (ds >> i) & 1) |
			   PC_ARM64_CONT;
		pc_gather_add(&g, pc_decode_pte_arm64(block[i]));
	}
	/* The caller passes entry 5's own value, as ptep_get() does. */
	orig = pc_decode_pte_arm64(block[5]);
	good = pc_decode_pte_arm64(model_gather(block, block[5], false));
	bad = pc_decode_pte_arm64(model_gather(block, block[5], true));
	v_good = pc_gather_result(&g, orig, good);
	v_bad = pc_gather_result(&g, orig, bad);
	CHECK_VERDICT(v_good, PC_OK, "contpte gather, %s: the correct loop: silent", what);
	if (bad.young == good.young && bad.dirty == good.dirty)
		CHECK_VERDICT(v_bad, PC_OK,
			      "contpte gather, %s: a premature exit gives the same answer: silent",
			      what);
	else
		CHECK_VERDICT(pc_is_violation(v_bad), true,
			      "contpte gather, %s: a premature exit loses a bit: fires (%s)", what,
			      bad.dirty == good.dirty ? "young" : "dirty");
}

static void check_contpte(void)
{
	char what[64];
	struct pc_fold_state f = {0};
	struct pc_gather g = {0};
	__u64 block[NR];

	for (int k = 0; k < NR; k++) {
		snprintf(what, sizeof(what), "dirty only in entry %d", k);
		gather_pattern(what, 0, 1U << k);
		snprintf(what, sizeof(what), "young only in entry %d", k);
		gather_pattern(what, 1U << k, 0);
	}
	for (int k = 0; k < NR; k += 5)
		for (int j = 0; j < NR; j += 3) {
			snprintf(what, sizeof(what), "dirty in %d, young in %d", k, j);
			gather_pattern(what, 1U << j, 1U << k);
		}
	gather_pattern("all clean and old", 0, 0);
	gather_pattern("all young and dirty", 0xffff, 0xffff);

	/* Fold: all 16 CONT, consecutive, one permission. */
	mkfolio(ARM64, block, 1, 1, 0);
	for (int i = 0; i < NR; i++)
		pc_fold_add(&f, pc_decode_pte_arm64(block[i]));
	CHECK_VERDICT(pc_fold_result(&f), PC_OK, "fold: 16 CONT entries, consecutive: silent");
	memset(&f, 0, sizeof(f));
	for (int i = 0; i < NR; i++)
		pc_fold_add(&f, pc_decode_pte_arm64(block[i] & (i == 9 ? ~PC_ARM64_CONT : ~0ULL)));
	CHECK_VERDICT(pc_fold_result(&f), PC_V_PARTIAL_FOLD,
		      "fold: entry 9 without CONT after a fold: PARTIAL_FOLD");
	memset(&f, 0, sizeof(f));
	for (int i = 0; i < NR; i++)
		pc_fold_add(&f, pc_decode_pte_arm64(i == 3 ? mkpte(ARM64, FOLIO_PFN + 3, 0, 1, 0) |
								     PC_ARM64_CONT
							   : block[i]));
	CHECK_VERDICT(pc_fold_result(&f), PC_V_FOLD_MISMATCH,
		      "fold: entry 3 read-only in a writable block: FOLD_MISMATCH");
	memset(&f, 0, sizeof(f));
	for (int i = 0; i < NR; i++)
		pc_fold_add(&f, pc_decode_pte_arm64(i == 12 ? block[13] : block[i]));
	CHECK_VERDICT(pc_fold_result(&f), PC_V_PFN_CHANGED,
		      "fold: entry 12 maps page 13: PFN_CHANGED");
	memset(&f, 0, sizeof(f));
	for (int i = 0; i < NR; i++)
		pc_fold_add(&f, pc_decode_pte_arm64(block[i] & ~PC_ARM64_CONT));
	CHECK_VERDICT(pc_fold_result(&f), PC_NOT_APPLICABLE,
		      "fold: no entry CONT (not folded): not applicable");

	/* Unfold: the bits of the block survive in every entry. */
	mkfolio(ARM64, block, 1, 0, 0);
	block[11] = mkpte(ARM64, FOLIO_PFN + 11, 1, 1, 1) | PC_ARM64_CONT;
	for (int i = 0; i < NR; i++)
		pc_gather_add(&g, pc_decode_pte_arm64(block[i]));
	CHECK_VERDICT(
		pc_unfold_entry(&g, 2, pc_decode_pte_arm64(mkpte(ARM64, FOLIO_PFN + 2, 1, 1, 1))),
		PC_OK, "unfold: entry 2 carries the block's young+dirty: silent");
	CHECK_VERDICT(
		pc_unfold_entry(&g, 2, pc_decode_pte_arm64(mkpte(ARM64, FOLIO_PFN + 2, 1, 1, 0))),
		PC_V_DIRTY_LOST, "unfold: entry 11's dirty bit lost on entry 2: DIRTY_LOST");
	CHECK_VERDICT(
		pc_unfold_entry(&g, 2, pc_decode_pte_arm64(mkpte(ARM64, FOLIO_PFN + 2, 1, 0, 1))),
		PC_V_YOUNG_LOST, "unfold: young lost: YOUNG_LOST");
	CHECK_VERDICT(
		pc_unfold_entry(&g, 2, pc_decode_pte_arm64(mkpte(ARM64, FOLIO_PFN + 3, 1, 1, 1))),
		PC_V_PFN_CHANGED, "unfold: entry 2 maps page 3: PFN_CHANGED");

	CHECK_VERDICT(pc_young_reported(1, true), PC_OK,
		      "clear-young: young seen, reported: silent");
	CHECK_VERDICT(pc_young_reported(0, true), PC_OK,
		      "clear-young: none seen, reported (hardware meanwhile): silent");
	CHECK_VERDICT(pc_young_reported(0, false), PC_OK, "clear-young: none, none: silent");
	CHECK_VERDICT(pc_young_reported(1, false), PC_V_YOUNG_UNREPORTED,
		      "clear-young: a young entry reported as old: YOUNG_UNREPORTED");
}

int main(void)
{
	tap_plan(0);
	check_contpte();
	return tap_finish();
}
