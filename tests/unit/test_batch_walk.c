// SPDX-License-Identifier: GPL-2.0
/*
 * The batch path's derived source (include/ptecheck/batch_walk.h): the
 * runs folio_pte_batch() would return, cut from crafted page tables by the
 * same steps bpf/batch_walk.bpf.c takes, on both architectures' entries.
 * A run ends at its folio's end, at a PFN gap, where bits folio_pte_batch
 * compares differ (write only in mprotect), at a page table's end and at a
 * PTE not present; dirty and young never end one; small folios give none.
 * Also the folio head from a struct page's compound word (pointer and
 * v7.2 mask forms) and the x86 vmemmap candidates.
 */
#include <ptecheck/batch_walk.h>

#include "pte_craft.h"

#define SLOTS 64
#define MAXR  SLOTS

/* A crafted table: PTE i at USER_ADDR + i pages (or at base_addr). */
struct table {
	__u64 raw[SLOTS];
	enum arch arch;
	__u64 base_addr;
};

/* Folios of the test: [start, start + nr) of PFNs, large when nr > 1. */
static const struct {
	__u64 start, nr;
} folios[] = {{FOLIO_PFN, 16}, {FOLIO_PFN + 16, 16}, {OTHER_PFN, 32}};

static __u64 folio_nr(__u64 pfn, __u64 *start)
{
	for (unsigned int f = 0; f < sizeof(folios) / sizeof(folios[0]); f++)
		if (pfn >= folios[f].start && pfn < folios[f].start + folios[f].nr) {
			*start = folios[f].start;
			return folios[f].nr;
		}
	*start = pfn;
	return 1; /* a small folio */
}

static __u64 pte(enum arch a, __u64 pfn)
{
	if (a == X86)
		return (pfn << PC_PAGE_SHIFT) | X86_TABLE | X86_NX;
	return (pfn << PC_PAGE_SHIFT) | ARM64_USER | PC_ARM64_AF | PC_ARM64_DBM | ARM64_XN;
}

/* The runs of t's first n slots in context ctx, as bw_slot() cuts them;
 *small: present PTEs of small folios. */
static int runs(const struct table *t, int n, __u32 ctx, __u32 *out, int *small)
{
	struct pc_fpb_run r = {0};
	__u64 nr, ign = t->arch == X86 ? pc_fpb_ignored_x86(pc_fpb_respects_write(ctx))
				       : pc_fpb_ignored_arm64(pc_fpb_respects_write(ctx));
	int k = 0;

	*small = 0;
	for (int i = 0; i < n; i++) {
		struct pc_pte p = t->arch == X86 ? pc_decode_pte_x86(t->raw[i])
						 : pc_decode_pte_arm64(t->raw[i]);
		__u64 addr = (t->base_addr ? t->base_addr : USER_ADDR) + i * PC_PAGE_SIZE, start;
		__u64 bits = t->raw[i] & ~ign;
		bool open;
		__u32 ended = pc_fpb_step(&r, addr, p.kind == PC_PTE_PRESENT, p.pfn, bits, &open);

		if (ended && k < MAXR)
			out[k++] = ended;
		if (!open)
			continue;
		nr = folio_nr(p.pfn, &start);
		if (nr > 1)
			pc_fpb_open(&r, p.pfn, bits, start, nr);
		else
			(*small)++;
	}
	/* The range end closes the last one (bw_walk). */
	if ((nr = pc_fpb_close(&r)) && k < MAXR)
		out[k++] = nr;
	return k;
}

static void fill(struct table *t, enum arch a, __u64 pfn, int n)
{
	memset(t, 0, sizeof(*t));
	t->arch = a;
	for (int i = 0; i < n; i++)
		t->raw[i] = pte(a, pfn + i);
}

static bool same(const __u32 *got, int n, const __u32 *want, int m)
{
	if (n != m)
		return false;
	for (int i = 0; i < n; i++)
		if (got[i] != want[i])
			return false;
	return true;
}

#define EXPECT_RUNS(t, n, ctx, what, ...)                                                          \
	do {                                                                                       \
		const __u32 want_[] = {__VA_ARGS__};                                               \
		__u32 got_[MAXR];                                                                  \
		int small_, k_ = runs(t, n, ctx, got_, &small_);                                   \
		TAP_CHECK(same(got_, k_, want_, sizeof(want_) / sizeof(want_[0])), what);          \
	} while (0)

static void test_arch(enum arch a)
{
	struct table t;
	__u32 got[MAXR];
	int small;
	fill(&t, a, FOLIO_PFN, 32);
	tap_diag("%s", arch_name[a]);
	EXPECT_RUNS(&t, 32, PC_BCTX_MUNMAP, "two whole 64 KiB folios: two runs of 16", 16, 16);
	EXPECT_RUNS(&t, 20, PC_BCTX_MUNMAP, "the range end ends a run", 16, 4);
	t.raw[5] = pte(a, OTHER_PFN + 3);
	EXPECT_RUNS(&t, 16, PC_BCTX_MUNMAP, "a PFN gap ends a run (into another large folio)", 5, 1,
		    10);
	fill(&t, a, FOLIO_PFN, 16);
	t.raw[7] = 0;
	EXPECT_RUNS(&t, 16, PC_BCTX_MUNMAP, "a PTE not present ends a run", 7, 8);
	fill(&t, a, FOLIO_PFN, 16);
	if (a == X86) {
		t.raw[3] &= ~(PC_X86_DIRTY | PC_X86_ACCESSED);
		t.raw[4] |= PC_X86_SAVED_DIRTY | PC_X86_PTE_SOFT_DIRTY;
		t.raw[4] &= ~PC_X86_RW;
	} else {
		t.raw[3] &= ~PC_ARM64_AF;
		t.raw[4] |= PC_ARM64_SW_DIRTY | PC_ARM64_RDONLY;
		t.raw[4] &= ~PC_ARM64_DBM;
	}
	EXPECT_RUNS(&t, 16, PC_BCTX_MUNMAP, "dirty, young and write differ: one run (zap)", 16);
	EXPECT_RUNS(&t, 16, PC_BCTX_MADV_FREE, "... and in madvise FREE", 16);
	EXPECT_RUNS(&t, 16, PC_BCTX_MPROTECT, "mprotect respects write: it ends the run", 4, 1, 11);
	fill(&t, a, FOLIO_PFN, 16);
	t.raw[9] &= a == X86 ? ~X86_NX : ~(1ULL << 54); /* executable: NX, UXN clear */
	EXPECT_RUNS(&t, 16, PC_BCTX_MUNMAP, "another permission bit ends a run", 9, 1, 6);
	/* A folio of 32 pages across the end of a page table. */
	fill(&t, a, OTHER_PFN, 32);
	t.base_addr = (USER_ADDR & ~(PC_PMD_SIZE - 1)) + PC_PMD_SIZE - 8 * PC_PAGE_SIZE;
	EXPECT_RUNS(&t, 32, PC_BCTX_MUNMAP, "the page table's end ends a run", 8, 24);
	fill(&t, a, FOLIO_PFN + 8, 16);
	EXPECT_RUNS(&t, 16, PC_BCTX_MUNMAP, "the folio's end ends a run started inside it", 8, 8);
	fill(&t, a, 0x1000, 16);
	TAP_CHECK(runs(&t, 16, PC_BCTX_MUNMAP, got, &small) == 0 && small == 16,
		  "small folios: no run, each PTE counted as small");
	memset(t.raw, 0, sizeof(t.raw));
	TAP_CHECK(runs(&t, 16, PC_BCTX_MUNMAP, got, &small) == 0 && small == 0,
		  "nothing mapped: no run");
}

static void test_head(void)
{
	__u64 head = 0xffffea0004000000ULL, page = head + 5 * 64;

	TAP_CHECK_EQ(pc_page_head(head, 0), head, "a head (or small page) is its own head");
	TAP_CHECK_EQ(pc_page_head(page, head | 1), head, "a tail's pointer names its head");
	/* v7.2 with HVO: mask | 1, the mask GENMASK(63, order + log2(64)). */
	TAP_CHECK_EQ(pc_page_head(page, ~((1ULL << (4 + 6)) - 1) | 1), head,
		     "a tail's mask takes it to its head");
	TAP_CHECK_EQ(pc_page_head(0xfffffc0000000040ULL, 0xfffffc0000000000ULL | 1),
		     0xfffffc0000000000ULL, "a head whose address is mask-shaped: the same head");
}

static void test_candidates(void)
{
	__u64 base = 0xffffea0000000000ULL, size = 64, pfn = 0x12345;
	__u32 n = pc_vmemmap_candidates_x86(64ULL << 30, size), hit = n;

	TAP_CHECK_EQ(n, 2, "64 GiB of RAM: struct pages span 1 GiB, two candidates");
	for (__u32 k = 0; k < n; k++)
		if (pc_vmemmap_candidate_x86(base + pfn * size, k) == base)
			hit = k;
	TAP_CHECK_EQ(hit, 0, "a low page's base is the first candidate");
	pfn = (40ULL << 30) >> PC_PAGE_SHIFT; /* 40 GiB: 640 MiB of struct pages in */
	TAP_CHECK_EQ(pc_vmemmap_candidate_x86(base + (2ULL << 30) + pfn * size, 2), base,
		     "a base 2 GiB below the GiB a page's struct lies in is candidate 2");
}

int main(void)
{
	tap_plan(0);
	test_arch(X86);
	test_arch(ARM64);
	test_head();
	test_candidates();
	return tap_finish();
}
