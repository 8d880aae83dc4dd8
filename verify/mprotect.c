// SPDX-License-Identifier: GPL-2.0
/*
 * The mprotect suite: change_pte_range's large-folio batches, one
 * scenario per trigger state (docs/checks.md, "The mprotect checks").
 *
 *   soft-dirty-SHAPE-POS   one entry of each folio soft-dirty, at POS
 *                          (first, second, middle, last), the rest clean
 *                          and read-only; mprotect(PROT_READ), then
 *                          mprotect(PROT_READ|PROT_WRITE): the bit kept,
 *                          every page mapped where it was, its bytes read
 *                          back (verify/mprotect_marker.c)
 *
 *   uffd-wp-SHAPE-POS      one entry of each folio uffd-wp-protected, at
 *                          POS, the rest writable; the same two calls:
 *                          the protection kept (mprotect/uffd-wp), pages
 *                          mapped and bytes as for soft-dirty
 *
 *   write-POS              64 KiB folios, fork (the child gone at once),
 *                          every page but POS written again (exclusive,
 *                          writable), mprotect(PROT_READ) and back: the
 *                          page at POS, still shared, must fault when
 *                          written (verify/mprotect_write.c); first is
 *                          the control of a batch that takes its first
 *                          page's exclusivity
 *
 *   write-half-POS         the same with mprotect over each folio's
 *                          second half alone (middle, last): batches that
 *                          begin mid-folio (cf1b80dc31a1's state)
 *
 * SHAPE: 64k (64 KiB mTHP, the size the run enables), 16k (16 KiB: the
 * run's 64 KiB off and 16 KiB on around it, PC_NEEDS_MTHP_16K; first,
 * second and last, the middle of 4 being the third) and 2m-pte (a PMD
 * THP whose mapping an mprotect of one page split into 512 PTEs: the
 * largest batch mprotect makes).  A position of first cannot lose the bit
 * to a batch that runs through (the batch's own value is the first's):
 * it is the control that must pass on a kernel whose others fail.
 */
#include "mprotect_int.h"

static const struct mp_shape shape_64k = {
	.what = "64 KiB mTHP",
	.folio_pages = 16,
	.len = 1 * MIB,
	.mthp_kb = 64,
	.no_folio = "no 64 KiB folio formed whole (mTHP fell back to small folios)",
};

/* The same in 16 KiB folios (PC_NEEDS_MTHP_16K: the run's 64 KiB off
   around it): batches of 4, whose second is also their middle. */
static const struct mp_shape shape_16k = {
	.what = "16 KiB mTHP",
	.folio_pages = 4,
	.len = 1 * MIB,
	.mthp_kb = 16,
	.no_folio = "no 16 KiB folio formed whole (mTHP fell back to small folios)",
};

static const struct mp_shape shape_2m_pte = {
	.what = "2 MiB THP, PTE-mapped",
	.folio_pages = 512,
	.len = 2 * MIB,
	.split_pmd = true,
	.no_folio = "no 2 MiB THP formed whole (THP off, or fell back to small folios)",
};

static int run_marker(struct pc_scenario_ctx *ctx, const void *data)
{
	return pc_attempts_run(ctx, mp_measure_marker, data);
}

static int run_write(struct pc_scenario_ctx *ctx, const void *data)
{
	return pc_attempts_run(ctx, mp_measure_write, data);
}

#define WR(pos)	     (&(const struct mp_write){(pos), 0})
#define WR_HALF(pos) (&(const struct mp_write){(pos), 8})

#define MK(shape, pos, mark) (&(const struct mp_marker){&(shape), (pos), (mark)})
#define SOFT_DIRTY(name, shape, pos, what)                                                         \
	{                                                                                          \
		"soft-dirty-" name, what, 0, run_marker, MK(shape, pos, PC_MARK_SOFT_DIRTY)        \
	}
#define UFFD_WP(name, shape, pos, what)                                                            \
	{                                                                                          \
		"uffd-wp-" name, what, 0, run_marker, MK(shape, pos, PC_MARK_UFFD_WP)              \
	}

#define SOFT_DIRTY_16K(name, pos, what)                                                            \
	{                                                                                          \
		"soft-dirty-" name, what, PC_NEEDS_MTHP_16K, run_marker,                           \
			MK(shape_16k, pos, PC_MARK_SOFT_DIRTY)                                     \
	}
#define UFFD_WP_16K(name, pos, what)                                                               \
	{                                                                                          \
		"uffd-wp-" name, what, PC_NEEDS_MTHP_16K, run_marker,                              \
			MK(shape_16k, pos, PC_MARK_UFFD_WP)                                        \
	}

/* clang-format off */
static const struct pc_scenario scenarios[] = {
	SOFT_DIRTY("64k-first", shape_64k, PC_POS_FIRST,
		   "64 KiB folios, entry 0 soft-dirty: the control (the batch's own bit)"),
	SOFT_DIRTY("64k-second", shape_64k, PC_POS_SECOND,
		   "64 KiB folios, entry 1 alone soft-dirty: kept through both mprotects"),
	SOFT_DIRTY("64k-middle", shape_64k, PC_POS_MIDDLE,
		   "64 KiB folios, entry 8 alone soft-dirty: kept through both mprotects"),
	SOFT_DIRTY("64k-last", shape_64k, PC_POS_LAST,
		   "64 KiB folios, entry 15 alone soft-dirty: kept through both mprotects"),
	SOFT_DIRTY("2m-pte-first", shape_2m_pte, PC_POS_FIRST,
		   "a PTE-mapped 2 MiB THP, entry 0 soft-dirty: the control"),
	SOFT_DIRTY("2m-pte-second", shape_2m_pte, PC_POS_SECOND,
		   "a PTE-mapped 2 MiB THP, entry 1 alone soft-dirty"),
	SOFT_DIRTY("2m-pte-middle", shape_2m_pte, PC_POS_MIDDLE,
		   "a PTE-mapped 2 MiB THP, entry 256 alone soft-dirty"),
	SOFT_DIRTY("2m-pte-last", shape_2m_pte, PC_POS_LAST,
		   "a PTE-mapped 2 MiB THP, entry 511 alone soft-dirty"),
	UFFD_WP("64k-first", shape_64k, PC_POS_FIRST,
		"64 KiB folios, entry 0 uffd-wp-protected: the control (the batch's own bit)"),
	UFFD_WP("64k-second", shape_64k, PC_POS_SECOND,
		"64 KiB folios, entry 1 alone uffd-wp-protected: kept through both mprotects"),
	UFFD_WP("64k-middle", shape_64k, PC_POS_MIDDLE,
		"64 KiB folios, entry 8 alone uffd-wp-protected: kept through both mprotects"),
	UFFD_WP("64k-last", shape_64k, PC_POS_LAST,
		"64 KiB folios, entry 15 alone uffd-wp-protected: kept through both mprotects"),
	UFFD_WP("2m-pte-first", shape_2m_pte, PC_POS_FIRST,
		"a PTE-mapped 2 MiB THP, entry 0 uffd-wp-protected: the control"),
	UFFD_WP("2m-pte-second", shape_2m_pte, PC_POS_SECOND,
		"a PTE-mapped 2 MiB THP, entry 1 alone uffd-wp-protected"),
	UFFD_WP("2m-pte-middle", shape_2m_pte, PC_POS_MIDDLE,
		"a PTE-mapped 2 MiB THP, entry 256 alone uffd-wp-protected"),
	UFFD_WP("2m-pte-last", shape_2m_pte, PC_POS_LAST,
		"a PTE-mapped 2 MiB THP, entry 511 alone uffd-wp-protected"),
	SOFT_DIRTY_16K("16k-first", PC_POS_FIRST,
		       "16 KiB folios, entry 0 soft-dirty: the control"),
	SOFT_DIRTY_16K("16k-second", PC_POS_SECOND,
		       "16 KiB folios, entry 1 alone soft-dirty: kept through both mprotects"),
	SOFT_DIRTY_16K("16k-last", PC_POS_LAST,
		       "16 KiB folios, entry 3 alone soft-dirty: kept through both mprotects"),
	UFFD_WP_16K("16k-first", PC_POS_FIRST,
		    "16 KiB folios, entry 0 uffd-wp-protected: the control"),
	UFFD_WP_16K("16k-second", PC_POS_SECOND,
		    "16 KiB folios, entry 1 alone uffd-wp-protected: kept through both mprotects"),
	UFFD_WP_16K("16k-last", PC_POS_LAST,
		    "16 KiB folios, entry 3 alone uffd-wp-protected: kept through both mprotects"),
	{"write-first", "64 KiB folios after fork, entry 0 alone still shared: the control",
	 0, run_write, WR(PC_POS_FIRST)},
	{"write-second", "64 KiB folios after fork, entry 1 alone still shared: kept "
	 "read-only by mprotect(PROT_READ|PROT_WRITE)", 0, run_write, WR(PC_POS_SECOND)},
	{"write-middle", "entry 8 alone still shared", 0, run_write, WR(PC_POS_MIDDLE)},
	{"write-last", "entry 15 alone still shared", 0, run_write, WR(PC_POS_LAST)},
	{"write-half-middle", "mprotect over each folio's second half (batches from entry 8), "
	 "entry 8 alone still shared", 0, run_write, WR_HALF(PC_POS_MIDDLE)},
	{"write-half-last", "the same, entry 15 alone still shared", 0, run_write,
	 WR_HALF(PC_POS_LAST)},
};
/* clang-format on */

const struct pc_suite pc_mprotect_suite = {
	.name = "mprotect",
	.description = "mprotect's large-folio batches: soft-dirty and uffd-wp kept, pages "
		       "mapped where they were, write only on exclusive pages",
	.scenarios = scenarios,
	.n_scenarios = sizeof(scenarios) / sizeof(scenarios[0]),
};
