// SPDX-License-Identifier: GPL-2.0
/*
 * The predicates several paths share (include/ptecheck/common.h), on
 * crafted data: each must fire on the bug it exists for and stay silent on
 * correct data.  A batch inside one page table (mremap/batch and
 * filemap/batch-bounds); the gathering of access/dirty bits of a batched
 * clear over every pattern of the early-exit loop; pairs of batch sizes;
 * the data oracle; pc_is_violation over every verdict; and the counting
 * of evaluations (include/ptecheck/counts.h): judged, inconclusive and
 * not applicable apart, adding up to what was seen.
 */
#include <ptecheck/counts.h>
#include "pte_craft.h"

/* The page-table bound of a batch (mremap/batch and filemap/batch-bounds). */
static void check_batch(void)
{
	/* A 2 MiB folio mapped 1 MiB off PMD alignment, as after an mremap. */
	const __u64 pmd_end = 0x7f3a1c400000ULL, big_addr = pmd_end - (1ULL << 20);

	CHECK_VERDICT(pc_batch_in_table(USER_ADDR, 16), PC_OK,
		      "batch: 16 PTEs of a 16-page folio: silent");
	CHECK_VERDICT(pc_batch_in_table(USER_ADDR + 15 * PC_PAGE_SIZE, 1), PC_OK,
		      "batch: 1 PTE, the folio's last page: silent");
	CHECK_VERDICT(pc_batch_in_table(USER_ADDR, 0), PC_V_BATCH_EMPTY,
		      "batch: nr = 0: BATCH_EMPTY");
	CHECK_VERDICT(pc_batch_in_table(pmd_end - 8 * PC_PAGE_SIZE, 16), PC_V_BATCH_CROSSES_PMD,
		      "batch: 16 PTEs across a 2 MiB boundary: CROSSES_PMD");
	CHECK_VERDICT(pc_batch_in_table(pmd_end - 16 * PC_PAGE_SIZE, 16), PC_OK,
		      "batch: 16 PTEs ending exactly at a 2 MiB boundary: silent");
	CHECK_VERDICT(pc_batch_in_table(pmd_end, 16), PC_OK,
		      "batch: 16 PTEs starting exactly at a 2 MiB boundary: silent");
	CHECK_VERDICT(pc_batch_in_table(big_addr, 256), PC_OK,
		      "batch: first half of a misaligned 2 MiB folio, up to the boundary: silent");
	CHECK_VERDICT(pc_batch_in_table(big_addr, 257), PC_V_BATCH_CROSSES_PMD,
		      "batch: one PTE more than fits the table: CROSSES_PMD");
	CHECK_VERDICT(pc_batch_in_table(pmd_end, 512), PC_OK,
		      "batch: a whole aligned 2 MiB folio in one table: silent");
}

/*
 * contpte_get_and_clear_full_ptes (and contpte_ptep_get) return one PTE
 * for a block whose entries hardware marks one by one.  Every pattern of
 * the early-exit gather loop: a bit only in entry k, for each k; young in
 * j and dirty in k, j before and after k; all clean; all young and dirty.
 * The correct answer is silent; the answer of a loop that stopped early
 * (the first entry's bits only) must fire.
 */
static void check_gather(enum arch a)
{
	__u64 raw[NR];
	struct pc_gather g;
	const char *an = arch_name[a];

	for (int k = 0; k < NR; k++) {
		mkfolio(a, raw, 1, 0, 0);
		raw[k] = mkpte(a, FOLIO_PFN + k, 1, 0, 1) | (a == ARM64 ? PC_ARM64_CONT : 0);
		g = gather(a, raw, NR);
		CHECK_VERDICT(pc_gather_covers(&g, decode(a, mkpte(a, FOLIO_PFN, 1, 0, 1))), PC_OK,
			      "%s gather: dirty only in entry %d, returned dirty: silent", an, k);
		if (k > 0)
			CHECK_VERDICT(
				pc_gather_covers(&g, decode(a, mkpte(a, FOLIO_PFN, 1, 0, 0))),
				PC_V_DIRTY_LOST,
				"%s gather: dirty only in entry %d, early exit returned clean: "
				"DIRTY_LOST",
				an, k);
		mkfolio(a, raw, 1, 0, 0);
		raw[k] = mkpte(a, FOLIO_PFN + k, 1, 1, 0) | (a == ARM64 ? PC_ARM64_CONT : 0);
		g = gather(a, raw, NR);
		CHECK_VERDICT(pc_gather_covers(&g, decode(a, mkpte(a, FOLIO_PFN, 1, 1, 0))), PC_OK,
			      "%s gather: young only in entry %d, returned young: silent", an, k);
		if (k > 0)
			CHECK_VERDICT(pc_gather_covers(&g, decode(a, mkpte(a, FOLIO_PFN, 1, 0, 0))),
				      PC_V_YOUNG_LOST,
				      "%s gather: young only in entry %d, early exit returned old: "
				      "YOUNG_LOST",
				      an, k);
	}
	/* Young in j, dirty in k: a loop that exits at the first young misses k > j. */
	for (int j = 0; j < NR; j += 5) {
		for (int k = 0; k < NR; k += 3) {
			mkfolio(a, raw, 1, 0, 0);
			raw[j] = mkpte(a, FOLIO_PFN + j, 1, 1, 0);
			raw[k] = mkpte(a, FOLIO_PFN + k, 1, j == k, 1);
			g = gather(a, raw, NR);
			CHECK_VERDICT(pc_gather_covers(&g, decode(a, mkpte(a, FOLIO_PFN, 1, 1, 1))),
				      PC_OK, "%s gather: young in %d, dirty in %d, both returned",
				      an, j, k);
			CHECK_VERDICT(pc_gather_covers(&g, decode(a, mkpte(a, FOLIO_PFN, 1, 1, 0))),
				      PC_V_DIRTY_LOST,
				      "%s gather: young in %d, dirty in %d, returned young only: "
				      "DIRTY_LOST",
				      an, j, k);
		}
	}
	mkfolio(a, raw, 1, 0, 0);
	g = gather(a, raw, NR);
	CHECK_VERDICT(pc_gather_covers(&g, decode(a, mkpte(a, FOLIO_PFN, 1, 0, 0))), PC_OK,
		      "%s gather: all clean, returned clean: silent", an);
	CHECK_VERDICT(pc_gather_covers(&g, decode(a, mkpte(a, FOLIO_PFN, 1, 1, 1))), PC_OK,
		      "%s gather: all clean, hardware set bits meanwhile: silent", an);
	mkfolio(a, raw, 1, 1, 1);
	g = gather(a, raw, NR);
	CHECK_VERDICT(pc_gather_covers(&g, decode(a, mkpte(a, FOLIO_PFN, 1, 1, 1))), PC_OK,
		      "%s gather: all young and dirty, returned both: silent", an);
	CHECK_VERDICT(pc_gather_covers(&g, decode(a, mkpte(a, FOLIO_PFN + 1, 1, 1, 1))),
		      PC_V_PFN_CHANGED, "%s gather: returned the second entry's PFN: PFN_CHANGED",
		      an);
	CHECK_VERDICT(pc_gather_covers(&g, decode(a, 0)), PC_V_PTE_LOST,
		      "%s gather: returned an empty PTE: PTE_LOST", an);
	memset(raw, 0, sizeof(raw));
	g = gather(a, raw, NR);
	CHECK_VERDICT(pc_gather_covers(&g, decode(a, 0)), PC_NOT_APPLICABLE,
		      "%s gather: nothing present at entry: not applicable", an);
}

static void check_batch_pairs(void)
{
	CHECK_VERDICT(pc_batch_pair(16, 16), PC_OK, "pair: 16 cleared, 16 set: silent");
	CHECK_VERDICT(pc_batch_pair(16, 15), PC_V_BATCH_NR_MISMATCH,
		      "pair: set count short by one: BATCH_NR_MISMATCH");
	CHECK_VERDICT(pc_batch_pair(8, 16), PC_V_BATCH_NR_MISMATCH,
		      "pair: set more PTEs than cleared: BATCH_NR_MISMATCH");
	CHECK_VERDICT(pc_batch_in_table(USER_ADDR, 16), PC_OK,
		      "in-table: 16 PTEs inside one table: silent");
	CHECK_VERDICT(pc_batch_in_table(0x7f3a1c400000ULL - 8 * PC_PAGE_SIZE, 16),
		      PC_V_BATCH_CROSSES_PMD, "in-table: 16 PTEs across a table end: CROSSES_PMD");
	CHECK_VERDICT(pc_batch_in_table(USER_ADDR, 0), PC_V_BATCH_EMPTY,
		      "in-table: nr = 0: BATCH_EMPTY");
}

static void check_data(void)
{
	CHECK_VERDICT(pc_written_survives(0xa5, 0xa5), PC_OK, "written byte read back: silent");
	CHECK_VERDICT(pc_written_survives(0xa5, 0x00), PC_V_DATA_LOST,
		      "written byte reads back as zero: DATA_LOST");
}

static void check_is_violation(void)
{
	int bad = 0;

	TAP_CHECK(!pc_is_violation(PC_OK), "pc_is_violation(PC_OK) is false");
	TAP_CHECK(!pc_is_violation(PC_NOT_APPLICABLE),
		  "pc_is_violation(PC_NOT_APPLICABLE) is false");
	for (int v = PC_V_PTE_LOST; v < PC_V__COUNT; v++) {
		if (!pc_is_violation(v)) {
			tap_diag("pc_is_violation(%s) is false", verdict_name(v));
			bad++;
		}
	}
	TAP_CHECK_EQ(bad, 0, "pc_is_violation() is true for every PC_V_* verdict");
}

/* Each evaluation in exactly one counter; violations among the judged. */
static bool counts_add_up(const struct pc_check_counts *c, __u64 seen)
{
	return c->checked + c->inconclusive + c->not_applicable == seen &&
	       c->violations <= c->checked;
}

static void check_counts(void)
{
	struct pc_check_counts c = {0};
	int send;

	/* A quiet window: 3 passes, 1 violation, 1 not applicable. */
	for (int i = 0; i < 3; i++)
		pc_count_verdict(&c, PC_OK, false);
	pc_count_verdict(&c, PC_NOT_APPLICABLE, false);
	send = pc_count_verdict(&c, PC_V_DIRTY_LOST, false);
	if (send)
		pc_count_violation(&c);
	TAP_CHECK(send && c.checked == 4 && c.violations == 1 && counts_add_up(&c, 5),
		  "counts: a quiet window judges its 4 applicable entries, the violation sent");

	/* A window known disturbed judges nothing: passes are not "judged". */
	c = (struct pc_check_counts){0};
	for (int i = 0; i < 5; i++)
		send = pc_count_verdict(&c, i ? PC_OK : PC_V_PTE_LOST, true);
	TAP_CHECK(!send && c.checked == 0 && c.inconclusive == 5 && counts_add_up(&c, 5),
		  "counts: in a disturbed window every entry is inconclusive, none judged");

	/* Found disturbed after counting: nothing of it stays judged. */
	c = (struct pc_check_counts){0};
	pc_count_verdict(&c, PC_OK, false);
	pc_count_verdict(&c, PC_V_PTE_LOST, false);
	pc_count_violation(&c);
	pc_count_verdict(&c, PC_NOT_APPLICABLE, false);
	pc_count_window_disturbed(&c);
	TAP_CHECK(c.checked == 0 && c.violations == 0 && c.inconclusive == 2 &&
			  c.not_applicable == 1 && counts_add_up(&c, 3),
		  "counts: a window disturbed after counting moves its verdicts to inconclusive");

	/* A violation that proves nothing (young bit lost to aging). */
	c = (struct pc_check_counts){0};
	if (pc_count_verdict(&c, PC_V_YOUNG_LOST, false))
		pc_count_unjudged(&c);
	TAP_CHECK(c.checked == 0 && c.inconclusive == 1 && counts_add_up(&c, 1),
		  "counts: an unjudged violation is inconclusive, not judged");
}

int main(void)
{
	tap_plan(0);
	check_batch();
	check_gather(X86);
	check_gather(ARM64);
	check_batch_pairs();
	check_data();
	check_is_violation();
	check_counts();
	return tap_finish();
}
