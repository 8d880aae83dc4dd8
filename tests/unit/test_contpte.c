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
		pc_convert_entry(&g, 2, pc_decode_pte_arm64(mkpte(ARM64, FOLIO_PFN + 2, 1, 1, 1))),
		PC_OK, "unfold: entry 2 carries the block's young+dirty: silent");
	CHECK_VERDICT(
		pc_convert_entry(&g, 2, pc_decode_pte_arm64(mkpte(ARM64, FOLIO_PFN + 2, 1, 1, 0))),
		PC_V_DIRTY_LOST, "unfold: entry 11's dirty bit lost on entry 2: DIRTY_LOST");
	CHECK_VERDICT(
		pc_convert_entry(&g, 2, pc_decode_pte_arm64(mkpte(ARM64, FOLIO_PFN + 2, 1, 0, 1))),
		PC_V_YOUNG_LOST, "unfold: young lost: YOUNG_LOST");
	CHECK_VERDICT(
		pc_convert_entry(&g, 2, pc_decode_pte_arm64(mkpte(ARM64, FOLIO_PFN + 3, 1, 1, 1))),
		PC_V_PFN_CHANGED, "unfold: entry 2 maps page 3: PFN_CHANGED");

	CHECK_VERDICT(pc_young_reported(1, true), PC_OK,
		      "clear-young: young seen, reported: silent");
	CHECK_VERDICT(pc_young_reported(0, true), PC_OK,
		      "clear-young: none seen, reported (hardware meanwhile): silent");
	CHECK_VERDICT(pc_young_reported(0, false), PC_OK, "clear-young: none, none: silent");
	CHECK_VERDICT(pc_young_reported(1, false), PC_V_YOUNG_UNREPORTED,
		      "clear-young: a young entry reported as old: YOUNG_UNREPORTED");
}

/*
 * A model of arm64 contpte_convert() (fold and unfold): every entry of the
 * block cleared, the bits ORed into the template (entry t, the one being
 * changed), the template written into all 16.  own_dirty/own_young: the
 * mutants that test the template's own bit instead of each cleared entry's.
 */
static void model_convert(const __u64 *in, __u64 *out, int t, bool own_dirty, bool own_young)
{
	struct pc_pte tp = pc_decode_pte_arm64(in[t]);
	int young = tp.young, dirty = tp.dirty;

	for (int i = 0; i < NR; i++) {
		struct pc_pte e = pc_decode_pte_arm64(in[i]);

		dirty |= !own_dirty && e.dirty;
		young |= !own_young && e.young;
	}
	for (int i = 0; i < NR; i++)
		out[i] = mkpte(ARM64, FOLIO_PFN + i, 1, young, dirty);
}

/* The worst verdict of pc_convert_entry over a converted block. */
static int convert_verdict(const __u64 *in, const __u64 *out)
{
	struct pc_gather g = {0};
	int worst = PC_OK;

	for (int i = 0; i < NR; i++)
		pc_gather_add(&g, pc_decode_pte_arm64(in[i]));
	for (int i = 0; i < NR; i++) {
		int v = pc_convert_entry(&g, (__u32)i, pc_decode_pte_arm64(out[i]));

		if (v != PC_OK)
			worst = v;
	}
	return worst;
}

/* The refold scenario's state: dirty in 7, young in 1, changed through 15. */
static void check_convert(void)
{
	static const struct {
		const char *what;
		__u32 ys, ds;
		int t;
		bool own_dirty, own_young;
		int want;
	} cases[] = {
		{"dirty 7, young 1, via 15: correct", 1U << 1, 1U << 7, 15, false, false, PC_OK},
		{"dirty 7, young 1, via 15: template's dirty", 1U << 1, 1U << 7, 15, true, false,
		 PC_V_DIRTY_LOST},
		{"dirty 7, young 1, via 15: template's young", 1U << 1, 1U << 7, 15, false, true,
		 PC_V_YOUNG_LOST},
		{"dirty 7 via 7: template's dirty is the block's", 0, 1U << 7, 7, true, false,
		 PC_OK},
		{"all dirty and young, via 15: template's bits", 0xffff, 0xffff, 15, true, true,
		 PC_OK},
		{"all clean and old, via 15: template's bits", 0, 0, 15, true, true, PC_OK},
	};

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		__u64 in[NR], out[NR];

		for (int i = 0; i < NR; i++)
			in[i] = mkpte(ARM64, FOLIO_PFN + i, 1, (cases[c].ys >> i) & 1,
				      (cases[c].ds >> i) & 1);
		model_convert(in, out, cases[c].t, cases[c].own_dirty, cases[c].own_young);
		CHECK_VERDICT(convert_verdict(in, out), cases[c].want, "convert, %s",
			      cases[c].what);
	}
}

/*
 * A model of clear_refs over one folded block: contpte_test_and_clear_young_ptes
 * (nr 1) at each entry in turn, each call widened to the whole block.  The
 * mutants: LAST returns the last entry's bit alone, BLOCK_START tests nr
 * entries from the block's start.  Returns the worst pc_young_reported
 * verdict, the young bit of the call's own entry read at entry.
 */
enum young_model { YM_CORRECT, YM_LAST, YM_BLOCK_START };

static int clear_refs_verdict(__u32 ys, enum young_model m)
{
	int worst = PC_OK;

	for (int k = 0; k < NR; k++) {
		__u8 seen = (ys >> k) & 1;
		bool young = false;

		for (int i = 0; i < (m == YM_BLOCK_START ? 1 : NR); i++) {
			bool b = (ys >> i) & 1;

			young = m == YM_LAST ? b : young || b;
			ys &= ~(1U << i);
		}
		if (pc_young_reported(seen, young) != PC_OK)
			worst = pc_young_reported(seen, young);
	}
	return worst;
}

static void check_clear_refs(void)
{
	static const struct {
		const char *what;
		__u32 ys;
		enum young_model m;
		int want;
	} cases[] = {
		{"young in 0, correct", 1U << 0, YM_CORRECT, PC_OK},
		{"young in 7, correct", 1U << 7, YM_CORRECT, PC_OK},
		{"young in 0, the last entry's bit returned", 1U << 0, YM_LAST,
		 PC_V_YOUNG_UNREPORTED},
		{"young in 15 (the last), the last entry's bit returned", 1U << 15, YM_LAST, PC_OK},
		{"young in 7, tested from the block's start", 1U << 7, YM_BLOCK_START,
		 PC_V_YOUNG_UNREPORTED},
		{"young in 0, tested from the block's start", 1U << 0, YM_BLOCK_START, PC_OK},
	};

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
		CHECK_VERDICT(clear_refs_verdict(cases[c].ys, cases[c].m), cases[c].want,
			      "clear_refs, %s", cases[c].what);
}

/*
 * The aged block read under the lock: entries 0-4 dirty but old, entry 6
 * young; then the reverse, entry 2 young but clean before a dirty entry 9.
 * The cut-short loop returns one bit short (fires); hardware setting a bit
 * after the block was read (the result has a bit no entry had) does not.
 */
static void check_aged_gather(void)
{
	static const struct {
		const char *what;
		__u32 ys, ds, ret_young, ret_dirty;
		int want;
	} cases[] = {
		{"dirty-old 0-4 before young 6, young lost", 1U << 6, 0x1f, 0, 1, PC_V_YOUNG_LOST},
		{"dirty-old 0-4 before young 6, both gathered", 1U << 6, 0x1f, 1, 1, PC_OK},
		{"young-clean 2 before dirty 9, dirty lost", 1U << 2, 1U << 9, 1, 0,
		 PC_V_DIRTY_LOST},
		{"young-clean 2 before dirty 9, both gathered", 1U << 2, 1U << 9, 1, 1, PC_OK},
		{"no entry young, young returned (set meanwhile)", 0, 1U << 3, 1, 1, PC_OK},
		{"no entry dirty, dirty returned (set meanwhile)", 1U << 3, 0, 1, 1, PC_OK},
		{"all old and clean, both returned (set meanwhile)", 0, 0, 1, 1, PC_OK},
	};

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct pc_gather g = {0};
		__u64 block[NR];

		for (int i = 0; i < NR; i++) {
			block[i] = mkpte(ARM64, FOLIO_PFN + i, 1, (cases[c].ys >> i) & 1,
					 (cases[c].ds >> i) & 1) |
				   PC_ARM64_CONT;
			pc_gather_add(&g, pc_decode_pte_arm64(block[i]));
		}
		CHECK_VERDICT(pc_gather_result(&g, pc_decode_pte_arm64(block[0]),
					       pc_decode_pte_arm64(mkpte(ARM64, FOLIO_PFN, 1,
									 cases[c].ret_young,
									 cases[c].ret_dirty) |
								   PC_ARM64_CONT)),
			      cases[c].want, "contpte gather under the lock, %s", cases[c].what);
	}
}

/* Which reads are judged: a locked caller with its table's lock held at
   entry and return; a locked caller with it free refutes the list. */
static void check_read_kind(void)
{
	tap_result(pc_cp_read_kind(true, 1, 1) == PC_CP_READ_LOCKED,
		   "read kind: listed caller, held at entry and return: judged");
	tap_result(pc_cp_read_kind(true, 0, 1) == PC_CP_READ_REFUTED,
		   "read kind: listed caller, free at entry: refuted");
	tap_result(pc_cp_read_kind(true, 1, 0) == PC_CP_READ_REFUTED,
		   "read kind: listed caller, free at return: refuted");
	tap_result(pc_cp_read_kind(true, -1, 1) == PC_CP_READ_UNREADABLE,
		   "read kind: listed caller, lock word unreadable: not judged");
	tap_result(pc_cp_read_kind(false, 1, 1) == PC_CP_READ_OTHER,
		   "read kind: other caller, lock held: not judged (whose lock?)");
	tap_result(pc_cp_read_kind(false, 0, 0) == PC_CP_READ_OTHER,
		   "read kind: other caller, lock free: not judged");
}

/* The struct page of a table page, and the base found back from a lock. */
static void check_ptdesc(void)
{
	const __u64 size = 64, off = 24, table = 0xffff000012345000ULL;
	__u64 base = pc_arm64_vmemmap_base(48, size);
	__u64 lock = pc_ptdesc_of(base, size, table + 0x7f8) + off;

	/* VMEMMAP_START (-1 GiB - 2^47 / 4096 * 64) less PAGE_OFFSET's pages. */
	tap_result(base + (0xffff000000000000ULL >> PC_PAGE_SHIFT) * size == 0xfffffdffc0000000ULL,
		   "ptdesc: the arm64 VA_BITS 48 base puts PAGE_OFFSET at VMEMMAP_START");
	tap_result(lock == base + (table >> PC_PAGE_SHIFT) * size + off,
		   "ptdesc: an entry's table page is its address's page");
	tap_result(pc_ptl_base_embedded(table, lock, off, size) == base,
		   "ptdesc: the base found back from the table and its lock");
}

int main(void)
{
	tap_plan(0);
	check_contpte();
	check_aged_gather();
	check_convert();
	check_clear_refs();
	check_read_kind();
	check_ptdesc();
	return tap_finish();
}
