// SPDX-License-Identifier: GPL-2.0
/*
 * The oracle comparisons on crafted snapshots: each must pass what is right
 * and fail, with evidence naming the page, what is wrong.  These are the
 * functions the mremap scenarios judge with, fed data no kernel produced.
 */
#include <string.h>

#include "tap.h"
#include "oracle_compare.h"
#include "procmm.h"
#include "report.h"

#define N   32
#define OLD 0x7f0000200000ULL
#define NEW 0x7f0000800000ULL
#define PG  PC_PAGE_SIZE

static struct pc_pte present(__u64 pfn)
{
	struct pc_pte p = {.kind = PC_PTE_PRESENT, .pfn = pfn};

	return p;
}

static struct pc_pte none(void)
{
	struct pc_pte p = {.kind = PC_PTE_NONE};

	return p;
}

static struct pc_pte swapped(void)
{
	struct pc_pte p = {.kind = PC_PTE_SWAP};

	return p;
}

/* Two 16-page folios at PFNs 0x1000 and 0x2000: a batch-shaped range. */
static void craft(struct pc_pte *before, struct pc_pte *after)
{
	for (int i = 0; i < N; i++) {
		before[i] = present((i < 16 ? 0x1000 : 0x2000 - 16) + i);
		after[i] = before[i];
	}
}

static struct pc_oracle_msg msg(__u32 check, const char *tier)
{
	struct pc_oracle_msg m;

	pc_oracle_msg_init(&m, "crafted", check, tier);
	return m;
}

static void test_moved(void)
{
	struct pc_pte before[N], after[N], vac[N];
	struct pc_oracle_msg m;

	craft(before, after);
	m = msg(PC_CHK_MOVED, "oracle:pagemap");
	pc_compare_moved(before, after, N, OLD, NEW, 0, &m);
	TAP_CHECK_EQ(m.status, PC_STATUS_PASS, "moved: everything moved passes");
	TAP_CHECK_EQ(m.checked, N, "moved: every slot checked");
	TAP_CHECK_EQ(m.violations, 0, "moved: no violation");
	TAP_CHECK(strcmp(m.tier, "oracle:pagemap") == 0 && strcmp(m.scenario, "crafted") == 0,
		  "moved: tier and scenario kept");

	/* The 3rd page of the first batch is gone after the move. */
	craft(before, after);
	after[2] = none();
	m = msg(PC_CHK_MOVED, "oracle:pagemap");
	pc_compare_moved(before, after, N, OLD, NEW, 0, &m);
	TAP_CHECK_EQ(m.status, PC_STATUS_FAIL, "moved: 3rd page of a batch lost fails");
	TAP_CHECK_EQ(m.violations, 1, "moved: exactly one violation");
	TAP_CHECK_EQ(m.n_evidence, 1, "moved: one evidence item");
	TAP_CHECK_EQ(m.evidence[0].addr, OLD + 2 * PG, "moved: evidence names the old address");
	TAP_CHECK_EQ(m.evidence[0].new_addr, NEW + 2 * PG, "moved: evidence names the new address");
	TAP_CHECK_EQ(m.evidence[0].expected, 0x1002, "moved: evidence shows the PFN at entry");
	TAP_CHECK_EQ(m.evidence[0].verdict, PC_V_PTE_LOST, "moved: evidence says pte lost");
	TAP_CHECK(strcmp(m.evidence[0].detail, "page 2") == 0, "moved: evidence names page 2");

	/* Present on both sides, another page after. */
	craft(before, after);
	after[20].pfn = 0xdead;
	m = msg(PC_CHK_MOVED, "oracle:pagemap");
	pc_compare_moved(before, after, N, OLD, NEW, 0, &m);
	TAP_CHECK_EQ(m.status, PC_STATUS_FAIL, "moved: a changed PFN fails");
	TAP_CHECK_EQ(m.evidence[0].addr, OLD + 20 * PG, "moved: PFN change at page 20");
	TAP_CHECK_EQ(m.evidence[0].seen, 0xdead, "moved: evidence shows the PFN after");
	TAP_CHECK_EQ(m.evidence[0].verdict, PC_V_PFN_CHANGED, "moved: says pfn changed");

	/* An empty slot mapped after; a swap entry that vanished. */
	craft(before, after);
	before[5] = none();
	before[9] = swapped();
	after[9] = none();
	m = msg(PC_CHK_MOVED, "oracle:pagemap");
	pc_compare_moved(before, after, N, OLD, NEW, 0, &m);
	TAP_CHECK_EQ(m.violations, 2, "moved: invented PTE and vanished swap entry both count");
	TAP_CHECK(m.evidence[0].verdict == PC_V_PTE_INVENTED &&
			  m.evidence[1].verdict == PC_V_KIND_CHANGED,
		  "moved: evidence in page order with the right verdicts");

	/* Empty stays empty, swap stays swap: fine. */
	craft(before, after);
	before[5] = after[5] = none();
	before[9] = after[9] = swapped();
	m = msg(PC_CHK_MOVED, "oracle:pagemap");
	pc_compare_moved(before, after, N, OLD, NEW, 0, &m);
	TAP_CHECK_EQ(m.status, PC_STATUS_PASS, "moved: none->none and swap->swap pass");

	/* More violations than evidence slots: all counted, four kept. */
	craft(before, after);
	for (int i = 0; i < 10; i++)
		after[i] = none();
	m = msg(PC_CHK_MOVED, "oracle:pagemap");
	pc_compare_moved(before, after, N, OLD, NEW, 0, &m);
	TAP_CHECK(m.violations == 10 && m.n_evidence == 4, "moved: 10 counted, 4 kept");

	/* The old range after the move. */
	for (int i = 0; i < N; i++)
		vac[i] = none();
	craft(before, after);
	m = msg(PC_CHK_MOVED, "oracle:pagemap");
	pc_compare_moved(before, after, N, OLD, NEW, 0, &m);
	pc_compare_vacated(vac, N, OLD, &m);
	TAP_CHECK(m.status == PC_STATUS_PASS && m.checked == 2 * N,
		  "vacated: empty old range passes");
	vac[7] = present(0x1007);
	m = msg(PC_CHK_MOVED, "oracle:pagemap");
	pc_compare_moved(before, after, N, OLD, NEW, 0, &m);
	pc_compare_vacated(vac, N, OLD, &m);
	TAP_CHECK_EQ(m.status, PC_STATUS_FAIL, "vacated: a PTE left in the old range fails");
	TAP_CHECK_EQ(m.evidence[0].addr, OLD + 7 * PG, "vacated: evidence names the old page");
	TAP_CHECK(m.evidence[0].verdict == PC_V_PTE_INVENTED &&
			  m.evidence[0].expected == PC_PTE_NONE && m.evidence[0].seen == 0x1007,
		  "vacated: an invented PTE, empty expected, the PFN seen");
}

static void test_folio_orders(void)
{
	__u32 before[N], after[N];
	struct pc_oracle_msg m;

	for (int i = 0; i < N; i++)
		before[i] = after[i] = 4;
	m = msg(PC_CHK_FOLIO_INTACT, "oracle:kpageflags");
	pc_compare_folio_orders(before, after, N, OLD, NEW, &m);
	TAP_CHECK(m.status == PC_STATUS_PASS && m.checked == N, "folio: same orders pass");

	/* The second folio split into small pages. */
	for (int i = 16; i < N; i++)
		after[i] = 0;
	m = msg(PC_CHK_FOLIO_INTACT, "oracle:kpageflags");
	pc_compare_folio_orders(before, after, N, OLD, NEW, &m);
	TAP_CHECK_EQ(m.status, PC_STATUS_FAIL, "folio: order 4 -> 0 fails");
	TAP_CHECK_EQ(m.violations, 16, "folio: every page of the split folio counts");
	TAP_CHECK(m.evidence[0].addr == OLD + 16 * PG && m.evidence[0].expected == 4 &&
			  m.evidence[0].seen == 0,
		  "folio: evidence names page 16, 4 -> 0");

	/* Not-present pages are the moved oracle's business. */
	for (int i = 0; i < N; i++)
		before[i] = after[i] = 4;
	after[3] = PC_ORDER_NONE;
	before[4] = PC_FOLIO_ORDER_NONE;
	m = msg(PC_CHK_FOLIO_INTACT, "oracle:kpageflags");
	pc_compare_folio_orders(before, after, N, OLD, NEW, &m);
	TAP_CHECK(m.status == PC_STATUS_PASS && m.checked == N - 2,
		  "folio: absent pages are not compared");
	TAP_CHECK_EQ(PC_ORDER_NONE, PC_FOLIO_ORDER_NONE, "folio: one marker for no folio");
}

static void test_written(void)
{
	__u8 written[8], seen[8];
	bool was[8];
	struct pc_oracle_msg m;

	for (int i = 0; i < 8; i++) {
		written[i] = seen[i] = (__u8)(0xb0 + i);
		was[i] = i % 2 == 0;
	}
	/* Unwritten elements (the liveness control) differ: not judged here. */
	seen[1] = seen[3] = 0;
	m = msg(PC_CHK_ADBITS, "oracle:data-loss");
	pc_compare_written(written, seen, was, 8, NEW, 0x10000, &m);
	TAP_CHECK(m.status == PC_STATUS_PASS && m.checked == 4,
		  "written: written blocks survive, unwritten ones are not judged");

	seen[4] = 0;
	m = msg(PC_CHK_ADBITS, "oracle:data-loss");
	pc_compare_written(written, seen, was, 8, NEW, 0x10000, &m);
	TAP_CHECK_EQ(m.status, PC_STATUS_FAIL,
		     "written: a written byte that did not survive fails");
	TAP_CHECK(m.evidence[0].addr == NEW + 4 * 0x10000 && m.evidence[0].expected == 0xb4 &&
			  m.evidence[0].seen == 0,
		  "written: evidence names the block, written and seen bytes");
	TAP_CHECK(strcmp(m.evidence[0].detail, "64 KiB block 4") == 0,
		  "written: a 64 KiB stride is named a block, not a page");

	m = msg(PC_CHK_ADBITS, "oracle:data-loss");
	pc_compare_written(written, seen, NULL, 8, NEW, PG, &m);
	TAP_CHECK_EQ(m.checked, 8, "written: NULL mask judges every element");

	memset(was, 0, sizeof(was));
	m = msg(PC_CHK_ADBITS, "oracle:data-loss");
	pc_compare_written(written, seen, was, 8, NEW, PG, &m);
	TAP_CHECK_EQ(m.status, PC_STATUS_SKIP, "written: nothing written is no pass");
}

static void test_cow_referenced(void)
{
	__u8 exp[4] = {1, 2, 3, 4}, seen[4] = {1, 2, 3, 4};
	struct pc_oracle_msg m;

	m = msg(PC_CHK_PERMS, "oracle:cow");
	pc_compare_cow(exp, seen, 4, OLD, PG, &m);
	TAP_CHECK_EQ(m.status, PC_STATUS_PASS, "cow: child sees its own data");
	seen[2] = 0x77;
	m = msg(PC_CHK_PERMS, "oracle:cow");
	pc_compare_cow(exp, seen, 4, OLD, PG, &m);
	TAP_CHECK(m.status == PC_STATUS_FAIL && m.evidence[0].addr == OLD + 2 * PG,
		  "cow: a parent write seen by the child fails at that page");

	m = msg(PC_CHK_ADBITS, "oracle:smaps-referenced");
	pc_compare_referenced(64, 64, OLD, NEW, &m);
	TAP_CHECK_EQ(m.status, PC_STATUS_PASS, "referenced: as many as touched passes");
	m = msg(PC_CHK_ADBITS, "oracle:smaps-referenced");
	pc_compare_referenced(256, 64, OLD, NEW, &m);
	TAP_CHECK_EQ(m.status, PC_STATUS_PASS, "referenced: more than touched passes");
	m = msg(PC_CHK_ADBITS, "oracle:smaps-referenced");
	pc_compare_referenced(63, 64, OLD, NEW, &m);
	TAP_CHECK(m.status == PC_STATUS_FAIL && m.evidence[0].expected == 64 &&
			  m.evidence[0].seen == 63,
		  "referenced: one short fails");
	TAP_CHECK(m.evidence[0].addr == OLD && m.evidence[0].new_addr == NEW,
		  "referenced: evidence names the VMA before and after the move");
}

/* The state the perms scenarios make: a writable block, then read-only pages
   with one writable page among them. */
static void craft_faults(__u32 *faults, bool *ro)
{
	for (int i = 0; i < N; i++) {
		ro[i] = i >= 16 && i != 21;
		faults[i] = ro[i] ? 1 : 0;
	}
}

static void test_write_faults(void)
{
	__u32 faults[N];
	bool ro[N];
	struct pc_oracle_msg m;

	craft_faults(faults, ro);
	m = msg(PC_CHK_PERMS, "oracle:write-fault");
	pc_compare_write_faults(faults, ro, N, NEW, "at the move", &m);
	TAP_CHECK(m.status == PC_STATUS_PASS && m.checked == N - 17 && m.violations == 0,
		  "write-fault: every read-only page faulted passes, writable ones not judged");
	TAP_CHECK(strstr(m.summary, "15 read-only pages") && strstr(m.summary, "17 writable"),
		  "write-fault: the summary counts both kinds");

	/* Writable pages that fault (reclaim, migration) are the control only. */
	faults[3] = faults[21] = 2;
	m = msg(PC_CHK_PERMS, "oracle:write-fault");
	pc_compare_write_faults(faults, ro, N, NEW, "at the move", &m);
	TAP_CHECK(m.status == PC_STATUS_PASS && strstr(m.summary, "17 writable: 2 faulted"),
		  "write-fault: writable pages that faulted do not fail");

	/* What a batch that widened the write bit leaves: no fault on page 20. */
	craft_faults(faults, ro);
	faults[20] = 0;
	faults[31] = 0;
	m = msg(PC_CHK_PERMS, "oracle:write-fault");
	pc_compare_write_faults(faults, ro, N, NEW, "at the move", &m);
	TAP_CHECK(m.status == PC_STATUS_FAIL && m.violations == 2 && m.n_evidence == 2,
		  "write-fault: read-only pages written without a fault fail, each counted");
	TAP_CHECK(m.evidence[0].addr == NEW + 20 * PG &&
			  m.evidence[0].verdict == PC_V_WRITE_GAINED &&
			  m.evidence[0].expected == 1 && m.evidence[0].seen == 0,
		  "write-fault: evidence names the page, a fault expected, none seen");
	TAP_CHECK(strncmp(m.evidence[1].detail, "page 31:", 8) == 0,
		  "write-fault: evidence says which page of the range");
	TAP_CHECK(strstr(m.evidence[0].detail, "read-only at the move,") != NULL,
		  "write-fault: evidence says when the page was read-only");
	m = msg(PC_CHK_PERMS, "oracle:write-fault");
	pc_compare_write_faults(faults, ro, N, NEW, "after mprotect(PROT_READ)", &m);
	TAP_CHECK(m.status == PC_STATUS_FAIL &&
			  strstr(m.evidence[0].detail, "read-only after mprotect(PROT_READ),"),
		  "write-fault: the same judgement after an mprotect, named so");

	memset(ro, 0, sizeof(ro));
	m = msg(PC_CHK_PERMS, "oracle:write-fault");
	pc_compare_write_faults(faults, ro, N, NEW, "at the move", &m);
	TAP_CHECK_EQ(m.status, PC_STATUS_SKIP, "write-fault: no read-only page is no pass");
}

static void test_helpers(void)
{
	__u8 page[4096];
	size_t off = 99;
	struct pc_oracle_msg m;
	struct pc_pte p;

	memset(page, 0x5a, sizeof(page));
	TAP_CHECK(pc_block_seen(page, sizeof(page), 0x5a, &off) == 0x5a && off == 0,
		  "block_seen: an intact block reads as expected");
	page[3000] = 0;
	page[3001] = 7;
	TAP_CHECK(pc_block_seen(page, sizeof(page), 0x5a, &off) == 0 && off == 3000,
		  "block_seen: the first differing byte and its offset");

	m = msg(PC_CHK_MOVED, "oracle:pagemap");
	pc_oracle_skip(&m, "why %d", 42);
	TAP_CHECK(m.status == PC_STATUS_SKIP && strcmp(m.summary, "why 42") == 0,
		  "skip: status and reason");

	p = pc_pagemap_to_pte(PC_PM_PRESENT | PC_PM_EXCLUSIVE | 0x123456);
	TAP_CHECK(p.kind == PC_PTE_PRESENT && p.pfn == 0x123456, "pagemap: present entry and PFN");
	p = pc_pagemap_to_pte(PC_PM_SWAP | 0x42);
	TAP_CHECK(p.kind == PC_PTE_SWAP && p.pfn == 0, "pagemap: swap entry");
	p = pc_pagemap_to_pte(PC_PM_SOFT_DIRTY);
	TAP_CHECK(p.kind == PC_PTE_NONE, "pagemap: soft-dirty alone is empty");
	{
		__u64 hidden[2] = {PC_PM_PRESENT, 0}, shown[2] = {PC_PM_PRESENT | 5, 0};

		TAP_CHECK(!pc_pagemap_pfns_visible(hidden, 2) && pc_pagemap_pfns_visible(shown, 2),
			  "pagemap: hidden PFNs are recognised");
	}
}

/* Three attempts of one check: the retry rule that keeps false positives out. */
static void test_combine(void)
{
	struct pc_oracle_msg pass = msg(PC_CHK_MOVED, "oracle:pagemap"), fail, skip, out;
	const struct pc_oracle_msg *m3[3];
	bool quiet[3] = {false, false, false}, noisy[3] = {false, true, false};
	struct pc_pte before[N], after[N];

	craft(before, after);
	pc_compare_moved(before, after, N, OLD, NEW, 0, &pass);
	after[2] = none();
	fail = msg(PC_CHK_MOVED, "oracle:pagemap");
	pc_compare_moved(before, after, N, OLD, NEW, 0, &fail);
	skip = msg(PC_CHK_MOVED, "oracle:pagemap");
	pc_oracle_skip(&skip, "PFNs hidden");

	m3[0] = m3[1] = m3[2] = &fail;
	pc_oracle_combine(m3, quiet, 3, 3, &out);
	TAP_CHECK(out.status == PC_STATUS_FAIL && out.n_evidence == 1 &&
			  out.evidence[0].addr == OLD + 2 * PG && strstr(out.summary, "3 of 3"),
		  "combine: a violation seen in 3 of 3 quiet attempts fails, with evidence");
	pc_oracle_combine(m3, NULL, 3, 3, &out);
	TAP_CHECK_EQ(out.status, PC_STATUS_FAIL, "combine: no disturbance array is quiet");

	pc_oracle_combine(m3, noisy, 3, 3, &out);
	TAP_CHECK(out.status == PC_STATUS_SKIP && strstr(out.summary, "inconclusive"),
		  "combine: a disturbed attempt makes it inconclusive, not a failure");

	pc_oracle_combine(m3, quiet, 2, 3, &out);
	TAP_CHECK_EQ(out.status, PC_STATUS_SKIP, "combine: 2 failures of 3 required is no failure");

	m3[1] = &pass;
	pc_oracle_combine(m3, quiet, 2, 3, &out);
	TAP_CHECK(out.status == PC_STATUS_PASS && strstr(out.summary, "did not reproduce"),
		  "combine: a violation that did not reproduce passes, and says so");

	m3[0] = &skip;
	m3[1] = &skip;
	pc_oracle_combine(m3, quiet, 2, 3, &out);
	TAP_CHECK(out.status == PC_STATUS_SKIP && strcmp(out.summary, "PFNs hidden") == 0,
		  "combine: skipped every time keeps the reason");

	memset(out.summary, 'x', sizeof(out.summary) - 1);
	out.summary[sizeof(out.summary) - 1] = 0;
	pc_oracle_add_note(&out, "; reproduced in 3 of 3 attempts");
	TAP_CHECK(strlen(out.summary) == sizeof(out.summary) - 1 &&
			  strstr(out.summary, "...; reproduced in 3 of 3 attempts"),
		  "add_note: a full summary is cut to keep the note");
	out.summary[0] = 0;
	/* 14 bytes a word: the old cut, 31 bytes before the end, fell inside one. */
	while (strlen(out.summary) + 14 < sizeof(out.summary))
		strcat(out.summary, "0x7f4aa4e8000 ");
	pc_oracle_add_note(&out, "; reproduced in 3 of 3 attempts");
	{
		const char *end = strstr(out.summary, "...; reproduced");
		bool whole = end != NULL;

		/* Every address before the cut keeps its 13 characters. */
		for (const char *p = out.summary; whole && p < end; p += 14)
			whole = !strncmp(p, "0x7f4aa4e8000", 13) && p + 13 <= end;
		TAP_CHECK(whole, "add_note: the summary is cut at a word, no address cut short");
	}
}

int main(void)
{
	tap_plan(0);
	test_moved();
	test_folio_orders();
	test_written();
	test_cow_referenced();
	test_write_faults();
	test_helpers();
	test_combine();
	return tap_finish();
}
