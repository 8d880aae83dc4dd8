// SPDX-License-Identifier: GPL-2.0
/*
 * The filemap predicates (include/ptecheck/filemap.h) on crafted data:
 * the bounds of a set_pte_range batch (folio, page table, VMA, EOF with the
 * shmem exemption) and the evidence values each bound reports; the PTEs a
 * fault-around batch sets; the mapcount, RSS and data counts.
 */
#include "pte_craft.h"

/* A 64 KiB folio at file index 32 mapped at USER_ADDR by one VMA. */
static struct pc_fault_batch fault_batch(__u64 folio_start, __u32 nr, __u64 i_size, bool exempt)
{
	return (struct pc_fault_batch){
		.addr = USER_ADDR + folio_start * PC_PAGE_SIZE,
		.folio_start = folio_start,
		.folio_nr = NR,
		.vm_start = USER_ADDR - 64 * PC_PAGE_SIZE,
		.vm_end = USER_ADDR + 64 * PC_PAGE_SIZE,
		.file_index = 32 + folio_start,
		.i_size = i_size,
		.nr = nr,
		.eof_exempt = exempt,
	};
}

/*
 * filemap/batch-bounds: the batch stays in its folio, page table and VMA,
 * and maps nothing at or past EOF unless the mapping is shmem/tmpfs.  The
 * file ends inside the folio in the EOF cases: i_size covers pages 32..41
 * (41 partly), so 42..47 are past EOF.
 */
static void check_fault_bounds(void)
{
	const __u64 whole = 48 * PC_PAGE_SIZE, mid = 41 * PC_PAGE_SIZE + 100;
	struct pc_fault_batch b;

	CHECK_VERDICT(pc_fault_batch_bounds(fault_batch(0, 16, whole, false)), PC_OK,
		      "fault batch: a whole 16-page folio inside EOF: silent");
	CHECK_VERDICT(pc_fault_batch_bounds(fault_batch(3, 5, whole, false)), PC_OK,
		      "fault batch: pages 3..7 of the folio: silent");
	CHECK_VERDICT(pc_fault_batch_bounds(fault_batch(0, 0, whole, false)), PC_V_BATCH_EMPTY,
		      "fault batch: nr = 0: BATCH_EMPTY");
	CHECK_VERDICT(pc_fault_batch_bounds(fault_batch(1, 16, whole, false)),
		      PC_V_BATCH_OUTSIDE_FOLIO,
		      "fault batch: one page past the folio end: OUTSIDE_FOLIO");
	CHECK_VERDICT(pc_fault_batch_bounds(fault_batch(0, 9, mid, false)), PC_OK,
		      "fault batch: EOF mid-folio, pages before the partial last page: silent");
	CHECK_VERDICT(pc_fault_batch_bounds(fault_batch(0, 10, mid, false)), PC_OK,
		      "fault batch: EOF mid-folio, up to the partial last page itself: silent");
	CHECK_VERDICT(pc_fault_batch_bounds(fault_batch(0, 11, mid, false)), PC_V_PAST_EOF,
		      "fault batch: one page past EOF mapped (SIGBUS lost): PAST_EOF");
	CHECK_VERDICT(pc_fault_batch_bounds(fault_batch(0, 16, mid, false)), PC_V_PAST_EOF,
		      "fault batch: the whole folio across EOF on ext4: PAST_EOF");
	CHECK_VERDICT(pc_fault_batch_bounds(fault_batch(0, 16, mid, true)), PC_OK,
		      "fault batch: the whole folio across EOF on tmpfs (exempt): silent");
	CHECK_VERDICT(pc_fault_batch_bounds(fault_batch(0, 10, 40 * PC_PAGE_SIZE, false)),
		      PC_V_PAST_EOF,
		      "fault batch: i_size exactly at page 40, page 40 mapped: PAST_EOF");
	b = fault_batch(0, 16, whole, false);
	b.vm_end = b.addr + 15 * PC_PAGE_SIZE;
	CHECK_VERDICT(pc_fault_batch_bounds(b), PC_V_OUTSIDE_VMA,
		      "fault batch: last PTE one page past the VMA end: OUTSIDE_VMA");
	b = fault_batch(0, 16, whole, false);
	b.vm_start = b.addr + PC_PAGE_SIZE;
	CHECK_VERDICT(pc_fault_batch_bounds(b), PC_V_OUTSIDE_VMA,
		      "fault batch: first PTE before the VMA start: OUTSIDE_VMA");
	b = fault_batch(0, 16, whole, false);
	b.addr = 0x7f3a1c400000ULL - 8 * PC_PAGE_SIZE;
	b.vm_start = b.addr;
	b.vm_end = b.addr + 64 * PC_PAGE_SIZE;
	CHECK_VERDICT(pc_fault_batch_bounds(b), PC_V_BATCH_CROSSES_PMD,
		      "fault batch: a folio straddling a 2 MiB boundary mapped in one batch: "
		      "CROSSES_PMD");
	CHECK_VERDICT(pc_page_past_eof(9, 10 * PC_PAGE_SIZE), false, "EOF: page 9 of 10 inside");
	CHECK_VERDICT(pc_page_past_eof(10, 10 * PC_PAGE_SIZE), true, "EOF: page 10 of 10 past");
	CHECK_VERDICT(pc_page_past_eof(10, 10 * PC_PAGE_SIZE + 1), false,
		      "EOF: one byte into page 10: inside");
	CHECK_VERDICT(pc_page_past_eof(0, 0), true, "EOF: empty file, page 0 past");
}

/*
 * The crash witness's choice: the verdicts whose batch writes what is not
 * its own (f58df566524e: nr underflowed to about 4 billion), never one a
 * racing truncation may show legitimately (past EOF) or a correct batch.
 */
static void check_fault_fatal(void)
{
	const __u64 whole = 48 * PC_PAGE_SIZE, mid = 41 * PC_PAGE_SIZE + 100;
	struct pc_fault_batch b = fault_batch(0, (__u32)-64, whole, false);

	TAP_CHECK(pc_fault_batch_fatal(pc_fault_batch_bounds(b)),
		  "fatal: f58df566524e's batch (nr = 2^32 - 64 from the folio's first page)");
	TAP_CHECK(pc_fault_batch_fatal(pc_fault_batch_bounds(fault_batch(1, 16, whole, false))),
		  "fatal: one page past the folio (mapcount of a page not its own)");
	b = fault_batch(0, 16, whole, false);
	b.addr = 0x7f3a1c400000ULL - 8 * PC_PAGE_SIZE;
	b.vm_start = b.addr;
	b.vm_end = b.addr + 64 * PC_PAGE_SIZE;
	TAP_CHECK(pc_fault_batch_fatal(pc_fault_batch_bounds(b)),
		  "fatal: PTEs past the page table");
	TAP_CHECK(!pc_fault_batch_fatal(pc_fault_batch_bounds(fault_batch(0, 16, whole, false))),
		  "not fatal: a whole folio in bounds");
	TAP_CHECK(!pc_fault_batch_fatal(pc_fault_batch_bounds(fault_batch(0, 16, mid, false))),
		  "not fatal: past EOF (a truncation may race it)");
	b = fault_batch(0, 16, whole, false);
	b.vm_end = b.addr + 15 * PC_PAGE_SIZE;
	TAP_CHECK(!pc_fault_batch_fatal(pc_fault_batch_bounds(b)),
		  "not fatal: past the VMA (its own page table, judged at exit)");
	TAP_CHECK(!pc_fault_batch_fatal(pc_fault_batch_bounds(fault_batch(0, 0, whole, false))),
		  "not fatal: an empty batch");
}

/* The evidence of a batch-bounds verdict for b: expected and seen. */
static void check_evidence(struct pc_fault_batch b, int verdict, __u64 expected, __u64 seen,
			   const char *what)
{
	int v = pc_fault_batch_bounds(b);
	struct pc_fault_evidence e = pc_fault_batch_evidence(b, v);

	CHECK_VERDICT(v, verdict, "evidence: %s: the verdict", what);
	TAP_CHECK_EQ(e.expected, expected, "evidence: %s: expected", what);
	TAP_CHECK_EQ(e.seen, seen, "evidence: %s: seen", what);
}

/* What batch-bounds evidence states, per verdict (docs in events.h). */
static void check_fault_evidence(void)
{
	const __u64 whole = 48 * PC_PAGE_SIZE, mid = 41 * PC_PAGE_SIZE + 100;
	const __u64 table_end = 0x7f3a1c400000ULL;
	struct pc_fault_batch b;

	check_evidence(fault_batch(0, 16, whole, false), PC_OK, 0, 0, "a batch in bounds: none");
	check_evidence(fault_batch(0, 0, whole, false), PC_V_BATCH_EMPTY, 1, 0,
		       "nr = 0: at least 1 PTE, 0 set");
	check_evidence(fault_batch(1, 16, whole, false), PC_V_BATCH_OUTSIDE_FOLIO, NR, 17,
		       "past the folio: its 16 pages, the batch ends at page 17");
	check_evidence(fault_batch(0, 11, mid, false), PC_V_PAST_EOF, 42, 42,
		       "one page past EOF: page 42 is the first past EOF, and mapped");
	check_evidence(fault_batch(0, 16, mid, false), PC_V_PAST_EOF, 42, 47,
		       "the folio across EOF: page 42 first past EOF, 47 the last mapped");
	b = fault_batch(0, 16, whole, false);
	b.vm_end = b.addr + 15 * PC_PAGE_SIZE;
	check_evidence(b, PC_V_OUTSIDE_VMA, b.vm_end, b.addr + 16 * PC_PAGE_SIZE,
		       "past the VMA end: vm_end, and the batch's end");
	b = fault_batch(0, 16, whole, false);
	b.vm_start = b.addr + PC_PAGE_SIZE;
	check_evidence(b, PC_V_OUTSIDE_VMA, b.vm_start, b.addr,
		       "before the VMA start: vm_start, and the batch's start");
	b = fault_batch(0, 16, whole, false);
	b.addr = table_end - 8 * PC_PAGE_SIZE;
	b.vm_start = b.addr;
	b.vm_end = b.addr + 64 * PC_PAGE_SIZE;
	check_evidence(b, PC_V_BATCH_CROSSES_PMD, table_end, table_end + 8 * PC_PAGE_SIZE,
		       "across a page table: the table's end, and the batch's");
}

/* filemap/ptes-set, per entry after set_pte_range. */
static void check_fault_entries(enum arch a)
{
	const char *an = arch_name[a];
	struct pc_pte ro = decode(a, mkpte(a, FOLIO_PFN + 2, 0, 1, 0));
	struct pc_pte rw_dirty = decode(a, mkpte(a, FOLIO_PFN + 2, 1, 1, 1));

	CHECK_VERDICT(pc_fault_entry(ro, FOLIO_PFN, 2, false, false), PC_OK,
		      "%s fault entry: 3rd PTE read-only, next page: silent", an);
	CHECK_VERDICT(pc_fault_entry(decode(a, mkpte(a, FOLIO_PFN + 2, 0, 0, 0)), FOLIO_PFN, 2,
				     false, false),
		      PC_OK, "%s fault entry: prefaulted old PTE: silent (young not judged)", an);
	CHECK_VERDICT(pc_fault_entry(decode(a, 0), FOLIO_PFN, 2, false, false), PC_V_PTE_LOST,
		      "%s fault entry: 3rd PTE of the batch left empty: PTE_LOST", an);
	CHECK_VERDICT(pc_fault_entry(decode(a, mkpte(a, FOLIO_PFN + 3, 0, 1, 0)), FOLIO_PFN, 2,
				     false, false),
		      PC_V_PFN_CHANGED, "%s fault entry: 3rd PTE maps the 4th page: PFN_CHANGED",
		      an);
	CHECK_VERDICT(pc_fault_entry(rw_dirty, FOLIO_PFN, 2, false, false), PC_V_WRITE_GAINED,
		      "%s fault entry: writable PTE in a read-only VMA on a read fault: "
		      "WRITE_GAINED",
		      an);
	CHECK_VERDICT(pc_fault_entry(rw_dirty, FOLIO_PFN, 2, true, false), PC_OK,
		      "%s fault entry: writable PTE where the VMA's protection is writable: silent",
		      an);
	CHECK_VERDICT(pc_fault_entry(rw_dirty, FOLIO_PFN, 2, false, true), PC_OK,
		      "%s fault entry: write fault, writable and dirty: silent", an);
	CHECK_VERDICT(pc_fault_entry(decode(a, mkpte(a, FOLIO_PFN + 2, 1, 1, 0)), FOLIO_PFN, 2,
				     false, true),
		      PC_V_DIRTY_LOST, "%s fault entry: write fault left the PTE clean: DIRTY_LOST",
		      an);
	CHECK_VERDICT(pc_fault_entry(ro, FOLIO_PFN, 2, false, true), PC_V_DIRTY_LOST,
		      "%s fault entry: write fault, write-protected by uffd-wp, clean: DIRTY_LOST",
		      an);
}

/* filemap/rmap-count and rss-count, and the data oracle. */
static void check_fault_counts(void)
{
	CHECK_VERDICT(pc_count_delta(3, 19, 16), PC_OK, "rmap: mapcount 3 -> 19 for nr 16: silent");
	CHECK_VERDICT(pc_count_delta(3, 18, 16), PC_V_MAPCOUNT,
		      "rmap: mapcount short by one: MAPCOUNT");
	CHECK_VERDICT(pc_count_delta(3, 4, 16), PC_V_MAPCOUNT,
		      "rmap: mapcount raised by 1 for a 16-page batch: MAPCOUNT");
	CHECK_VERDICT(pc_count_delta(0, 4, 4), PC_OK,
		      "rmap: 4 processes map a page: count 4: silent");
	CHECK_VERDICT(pc_count_delta(0, 3, 4), PC_V_MAPCOUNT,
		      "rmap: 4 processes map a page, count 3: MAPCOUNT");
	CHECK_VERDICT(pc_rss_delta(100, 164, 64), PC_OK, "rss: +64 for 64 pages mapped: silent");
	CHECK_VERDICT(pc_rss_delta(100, 163, 64), PC_V_RSS, "rss: short by one: RSS");
	CHECK_VERDICT(pc_rss_delta(100, 104, 64), PC_V_RSS,
		      "rss: +4 for 64 pages (counted per folio, not per page): RSS");
	CHECK_VERDICT(pc_bytes_equal(0), PC_OK, "data: every byte equal: silent");
	CHECK_VERDICT(pc_bytes_equal(1), PC_V_DATA_MISMATCH,
		      "data: one byte differs: DATA_MISMATCH");
}

/*
 * The PTEs a fault-around batch of a large folio could have had: the
 * 16-page folio at file index 32 (USER_ADDR), a window of file pages
 * 32..47 (the 64 KiB fault-around window); each bound in turn is the
 * nearest.
 */
static void check_batch_cap(void)
{
	const __u64 whole = 48 * PC_PAGE_SIZE, mid = 41 * PC_PAGE_SIZE + 100;
	struct pc_fault_batch b = fault_batch(0, 16, whole, false);

	TAP_CHECK_EQ(pc_fault_batch_cap(b, 32, 47), 16, "cap: a whole folio filling its window");
	TAP_CHECK_EQ(pc_fault_batch_cap(fault_batch(5, 3, whole, false), 32, 47), 11,
		     "cap: from page 5 to the folio's end, 11");
	TAP_CHECK_EQ(pc_fault_batch_cap(b, 32, 39), 8, "cap: the window's end, 8");
	TAP_CHECK_EQ(pc_fault_batch_cap(b, 33, 47), 0, "cap: a batch before its window: none");
	TAP_CHECK_EQ(pc_fault_batch_cap(fault_batch(0, 16, mid, false), 32, 47), 10,
		     "cap: EOF cuts a file's folio after page 41, 10");
	TAP_CHECK_EQ(pc_fault_batch_cap(fault_batch(0, 16, mid, true), 32, 47), 16,
		     "cap: shmem maps past EOF, 16");
	b.vm_end = USER_ADDR + 12 * PC_PAGE_SIZE;
	TAP_CHECK_EQ(pc_fault_batch_cap(b, 32, 47), 12, "cap: the VMA's end, 12");
	b = fault_batch(0, 16, whole, false);
	b.addr = 0x7f3a1c400000ULL - 6 * PC_PAGE_SIZE;
	b.vm_start = b.addr - 64 * PC_PAGE_SIZE;
	b.vm_end = b.addr + 64 * PC_PAGE_SIZE;
	TAP_CHECK_EQ(pc_fault_batch_cap(b, 32, 47), 6, "cap: the page table's end, 6");
	b = fault_batch(0, 1, whole, false);
	b.folio_nr = 1;
	TAP_CHECK_EQ(pc_fault_batch_cap(b, 32, 47), 0, "cap: a small folio is not counted");
}

/* filemap/fault-progress: a fault that never returned, or returned without
   the page mapped, is the loop of a finish_fault that gave up. */
static void check_fault_progress(void)
{
	CHECK_VERDICT(pc_fault_progress(true, true), PC_OK, "progress: written and mapped");
	CHECK_VERDICT(pc_fault_progress(false, false), PC_V_FAULT_LOOP,
		      "progress: the write never returned: FAULT_LOOP");
	CHECK_VERDICT(pc_fault_progress(true, false), PC_V_FAULT_LOOP,
		      "progress: returned, the page not mapped: FAULT_LOOP");
}

int main(void)
{
	tap_plan(0);
	check_fault_progress();
	check_fault_bounds();
	check_fault_evidence();
	check_fault_fatal();
	check_fault_entries(X86);
	check_fault_entries(ARM64);
	check_fault_counts();
	check_batch_cap();
	return tap_finish();
}
