// SPDX-License-Identifier: GPL-2.0
/*
 * The fork suite: what copy_present_ptes' batches give the child
 * (docs/checks.md, "The fork checks").
 *
 *   dirty-POS   64 KiB lazyfree folios (MADV_FREE: every PTE clean), one
 *               entry of every other folio written again (dirty) at POS
 *               (first, second, middle, last), the others left clean as
 *               the control; fork; the parent counts the mappings
 *               (kpagecount: 2 each) and unmaps its range; the child pages
 *               out its own and reads the written entries back
 *               (verify/fork_dirty.c)
 *
 *   dirty-16k-POS   the same in 16 KiB folios (the run's 64 KiB off and
 *               16 KiB on around it, PC_NEEDS_MTHP_16K): first, second,
 *               last; so are cow-16k-, uffd-wp-16k- and soft-dirty-16k-POS
 *
 *   dirty-misaligned-POS   the same, the range first moved 4 KiB off a
 *               64 KiB boundary (pc_range_misalign): arm64 folds no block,
 *               whose gathered dirty bit would otherwise give the child
 *               every entry's bit whatever the batch respects
 *
 *   cow-POS     64 KiB folios after a fork whose child exited, entry POS
 *               alone written again (reused in place: writable, the
 *               others read-only); a second fork, the child alive; the
 *               parent writes every page and the child must read the
 *               bytes of before (verify/fork_cow.c)
 *
 *   uffd-wp-POS 64 KiB folios registered for uffd-wp with
 *               UFFD_FEATURE_EVENT_FORK, entry POS alone protected; fork:
 *               the child's PTEs and the parent's keep the protection
 *               (verify/fork_marker.c)
 *
 *   soft-dirty-POS the same with entry POS alone soft-dirty (clear_refs 4,
 *               then a write; x86: arm64 has no bit, a skip that says so)
 *
 *   rss-64k     64 KiB folios, forked twice, the range left out of the
 *               first (MADV_DONTFORK): the two children's RssAnon differ
 *               by the range's present pages (verify/fork_rss.c);
 *               rss-16k the same in 16 KiB folios
 *
 * A first-entry position cannot lose the bit to a batch that ignores it
 * (the batch's value is the first entry's): the control that passes on a
 * kernel whose others fail.
 */
#include "fork_int.h"

static int run_dirty(struct pc_scenario_ctx *ctx, const void *data)
{
	return pc_attempts_run(ctx, fk_measure_dirty, data);
}

static int run_cow(struct pc_scenario_ctx *ctx, const void *data)
{
	return pc_attempts_run(ctx, fk_measure_cow, data);
}

static int run_marker(struct pc_scenario_ctx *ctx, const void *data)
{
	return pc_attempts_run(ctx, fk_measure_marker, data);
}

static int run_rss(struct pc_scenario_ctx *ctx, const void *data)
{
	return pc_attempts_run(ctx, fk_measure_rss, data);
}

#define FK(pos)		       (&(const struct fk_scenario){(pos), false, 0, 64})
#define FK_16K(pos)	       (&(const struct fk_scenario){(pos), false, 0, 16})
#define FK_MARK(pos, mark)     (&(const struct fk_scenario){(pos), false, (mark), 64})
#define FK_MARK_16K(pos, mark) (&(const struct fk_scenario){(pos), false, (mark), 16})
#define UFFD(pos)	       FK_MARK(pos, PC_MARK_UFFD_WP)
#define SD(pos)		       FK_MARK(pos, PC_MARK_SOFT_DIRTY)
/* The uffd-wp scenarios' monitor takes the fork's event: CAP_SYS_PTRACE. */
#define PTRACE	    PC_SCENARIO_CAP_PTRACE
#define FK_MIS(pos) (&(const struct fk_scenario){(pos), true, 0, 64})

/* clang-format off */
static const struct pc_scenario scenarios[] = {
	{"dirty-first", "the dirty entry first in its folio: the control", 0, run_dirty,
	 FK(PC_POS_FIRST)},
	{"dirty-second", "the dirty entry second: kept dirty in the child, its data through "
	 "reclaim", 0, run_dirty, FK(PC_POS_SECOND)},
	{"dirty-middle", "the dirty entry in the middle (8 of 16)", 0, run_dirty, FK(PC_POS_MIDDLE)},
	{"dirty-last", "the dirty entry last (15 of 16)", 0, run_dirty, FK(PC_POS_LAST)},
	{"dirty-misaligned-first", "the folios 4 KiB off 64 KiB (never folded), the dirty entry "
	 "first: the control", 0, run_dirty, FK_MIS(PC_POS_FIRST)},
	{"dirty-misaligned-second", "4 KiB off 64 KiB, the dirty entry second", 0, run_dirty,
	 FK_MIS(PC_POS_SECOND)},
	{"dirty-misaligned-middle", "4 KiB off 64 KiB, the dirty entry in the middle", 0,
	 run_dirty, FK_MIS(PC_POS_MIDDLE)},
	{"dirty-misaligned-last", "4 KiB off 64 KiB, the dirty entry last", 0, run_dirty,
	 FK_MIS(PC_POS_LAST)},
	{"dirty-16k-first", "16 KiB folios, the dirty entry first: the control",
	 PC_NEEDS_MTHP_16K, run_dirty, FK_16K(PC_POS_FIRST)},
	{"dirty-16k-second", "16 KiB folios, the dirty entry second (batches of 4)",
	 PC_NEEDS_MTHP_16K, run_dirty, FK_16K(PC_POS_SECOND)},
	{"dirty-16k-last", "16 KiB folios, the dirty entry last (4 of 4)", PC_NEEDS_MTHP_16K,
	 run_dirty, FK_16K(PC_POS_LAST)},
	{"cow-first", "the one writable entry first: the control (the batch's own write bit)",
	 0, run_cow, FK(PC_POS_FIRST)},
	{"cow-second", "the one writable entry second: the parent write-protected, its writes "
	 "not seen by the child", 0, run_cow, FK(PC_POS_SECOND)},
	{"cow-middle", "the one writable entry in the middle (8 of 16)", 0, run_cow,
	 FK(PC_POS_MIDDLE)},
	{"cow-last", "the one writable entry last (15 of 16)", 0, run_cow, FK(PC_POS_LAST)},
	{"uffd-wp-first", "the one uffd-wp-protected entry first: the control", PTRACE, run_marker,
	 UFFD(PC_POS_FIRST)},
	{"uffd-wp-second", "the one uffd-wp-protected entry second: protected in the child too",
	 PTRACE, run_marker, UFFD(PC_POS_SECOND)},
	{"uffd-wp-middle", "the one uffd-wp-protected entry in the middle (8 of 16)", PTRACE,
	 run_marker, UFFD(PC_POS_MIDDLE)},
	{"uffd-wp-last", "the one uffd-wp-protected entry last (15 of 16)", PTRACE, run_marker,
	 UFFD(PC_POS_LAST)},
	{"soft-dirty-first", "the one soft-dirty entry first (after clear_refs 4): the control", 0,
	 run_marker, SD(PC_POS_FIRST)},
	{"soft-dirty-second", "the one soft-dirty entry second: soft-dirty in the child too", 0,
	 run_marker, SD(PC_POS_SECOND)},
	{"soft-dirty-middle", "the one soft-dirty entry in the middle (8 of 16)", 0, run_marker,
	 SD(PC_POS_MIDDLE)},
	{"soft-dirty-last", "the one soft-dirty entry last (15 of 16)", 0, run_marker,
	 SD(PC_POS_LAST)},
	{"cow-16k-first", "16 KiB folios, the one writable entry first: the control",
	 PC_NEEDS_MTHP_16K, run_cow, FK_16K(PC_POS_FIRST)},
	{"cow-16k-second", "16 KiB folios, the one writable entry second (batches of 4)",
	 PC_NEEDS_MTHP_16K, run_cow, FK_16K(PC_POS_SECOND)},
	{"cow-16k-last", "16 KiB folios, the one writable entry last (4 of 4)",
	 PC_NEEDS_MTHP_16K, run_cow, FK_16K(PC_POS_LAST)},
	{"uffd-wp-16k-first", "16 KiB folios, the one uffd-wp-protected entry first: the "
	 "control", PTRACE | PC_NEEDS_MTHP_16K, run_marker,
	 FK_MARK_16K(PC_POS_FIRST, PC_MARK_UFFD_WP)},
	{"uffd-wp-16k-second", "16 KiB folios, the one uffd-wp-protected entry second",
	 PTRACE | PC_NEEDS_MTHP_16K, run_marker, FK_MARK_16K(PC_POS_SECOND, PC_MARK_UFFD_WP)},
	{"uffd-wp-16k-last", "16 KiB folios, the one uffd-wp-protected entry last",
	 PTRACE | PC_NEEDS_MTHP_16K, run_marker, FK_MARK_16K(PC_POS_LAST, PC_MARK_UFFD_WP)},
	{"soft-dirty-16k-first", "16 KiB folios, the one soft-dirty entry first: the control",
	 PC_NEEDS_MTHP_16K, run_marker, FK_MARK_16K(PC_POS_FIRST, PC_MARK_SOFT_DIRTY)},
	{"soft-dirty-16k-second", "16 KiB folios, the one soft-dirty entry second",
	 PC_NEEDS_MTHP_16K, run_marker, FK_MARK_16K(PC_POS_SECOND, PC_MARK_SOFT_DIRTY)},
	{"soft-dirty-16k-last", "16 KiB folios, the one soft-dirty entry last",
	 PC_NEEDS_MTHP_16K, run_marker, FK_MARK_16K(PC_POS_LAST, PC_MARK_SOFT_DIRTY)},
	{"rss-64k", "two forks, the range left out of the first: the children's RssAnon differ "
	 "by its present pages", 0, run_rss, &(const size_t){16}},
	{"rss-16k", "the same in 16 KiB folios: batches of 4", PC_NEEDS_MTHP_16K, run_rss,
	 &(const size_t){4}},
};
/* clang-format on */

const struct pc_suite pc_fork_suite = {
	.name = "fork",
	.description =
		"fork's large-folio batches: the child's dirty, soft-dirty and uffd-wp bits and "
		"mapcounts, the parent write-protected",
	.scenarios = scenarios,
	.n_scenarios = sizeof(scenarios) / sizeof(scenarios[0]),
};
