// SPDX-License-Identifier: GPL-2.0
/*
 * The zap suite: what unmapping large folios takes off the mm's RSS
 * counters and the folios' mapcounts (docs/checks.md, "The zap checks").
 *
 *   SHAPE-OP       the range of whole folios, unmapped by OP (munmap,
 *                  MADV_DONTNEED): batches of whole folios
 *   SHAPE-OP-cut   the range less half a folio at each end: batches of
 *                  half a folio there, the folios half mapped after
 *
 * SHAPE: shmem-64k (a memfd in 64 KiB mTHP folios, which the run enables:
 * RssShmem, and the mapcounts, as the page cache keeps the folios; its
 * PTEs dirty, written), shmem-64k-clean (a fresh memfd's folios only
 * read, read back clean: clean PTEs, whose rmap zap removes at once,
 * where a dirty file PTE has it removed after the TLB flush by
 * tlb_flush_rmaps: the two ways zap_present_folio_ptes takes) and
 * anon-64k (RssAnon; the folios are freed, so no mapcount to read).
 *
 *   shmem-64k-exit(-dirty)   the folios mapped by a child through reads
 *                            (writes) and unmapped by its exit: kpagecount
 *                            0 after it (zap_exit.c); the child tracked
 *                            too (PC_SCENARIO_FOLLOW_CHILDREN), so the
 *                            hook tier judges its exit_mmap
 *
 * SHAPE also anon-64k-swapped (every other folio paged out first, swap.c:
 * VmSwap falls by the swap entries), shmem-16k and anon-16k (the run's 64 KiB mTHP off, 16 KiB on
 * around them: PC_NEEDS_MTHP_16K), batches of 4.
 *
 * SHAPE also blockfs-64k (a file on the run's block filesystem, ext4 or
 * xfs as the summary says, written in 64 KiB pieces so that the write
 * path makes 64 KiB folios where the filesystem has large folios:
 * RssFile and mapcounts; its PTEs dirty through writes, or clean through
 * reads for blockfs-64k-clean).
 *
 *   shmem-64k-pte-dirty-OP   clean shmem folios, one page of each written
 *                            through its clean PTE alone: zap/dirty
 *                            (zap_dirty.c)
 */
#include "swap.h"
#include "zap_int.h"

static const struct zap_shape shmem_64k = {
	.what = "64 KiB shmem mTHP",
	.shmem = true,
	.folio_pages = 16,
	.len = 2 * MIB,
	.no_folio = "no 64 KiB shmem folio formed whole (fell back to small folios)",
};

static const struct zap_shape shmem_64k_clean = {
	.what = "64 KiB shmem mTHP, clean PTEs",
	.shmem = true,
	.clean = true,
	.folio_pages = 16,
	.len = 2 * MIB,
	.no_folio = "no 64 KiB shmem folio formed whole (fell back to small folios)",
};

static const struct zap_shape anon_64k = {
	.what = "64 KiB anon mTHP",
	.folio_pages = 16,
	/* Less than a PMD: a 2 MiB aligned range of MADV_HUGEPAGE would get a
	   PMD THP where THP is on. */
	.len = 1 * MIB,
	.no_folio = "no 64 KiB folio formed whole (mTHP fell back to small folios)",
};

/* Every other folio paged out before the zap: swap entries in batches. */
static const struct zap_shape anon_64k_swapped = {
	.what = "64 KiB anon mTHP, every other folio in swap",
	.swapped = true,
	.folio_pages = 16,
	.len = 1 * MIB,
	.no_folio = "no 64 KiB folio formed whole (mTHP fell back to small folios)",
};

/* Mapped by a child that exits (zap_exit.c), through reads or writes. */
static const struct zap_shape shmem_64k_exit = {
	.what = "64 KiB shmem mTHP",
	.shmem = true,
	.folio_pages = 16,
	.len = 2 * MIB,
	.no_folio = "no 64 KiB shmem folio formed whole (fell back to small folios)",
};

static const struct zap_shape shmem_64k_exit_dirty = {
	.what = "64 KiB shmem mTHP, dirty PTEs",
	.shmem = true,
	.exit_dirty = true,
	.folio_pages = 16,
	.len = 2 * MIB,
	.no_folio = "no 64 KiB shmem folio formed whole (fell back to small folios)",
};

/* The same of 16 KiB folios (PC_NEEDS_MTHP_16K: the run's 64 KiB off
   around them): batches of 4. */
static const struct zap_shape shmem_16k = {
	.what = "16 KiB shmem mTHP",
	.shmem = true,
	.folio_pages = 4,
	.len = 1 * MIB,
	.no_folio = "no 16 KiB shmem folio formed whole (fell back to small folios)",
};

static const struct zap_shape anon_16k = {
	.what = "16 KiB anon mTHP",
	.folio_pages = 4,
	.len = 1 * MIB,
	.no_folio = "no 16 KiB folio formed whole (mTHP fell back to small folios)",
};

/* A file on the block filesystem (pc_range_map_file), written through
   the mapping (dirty PTEs, page_mkwrite) or only read (clean). */
static const struct zap_shape blockfs_64k = {
	.what = "64 KiB file folios",
	.file = true,
	.folio_pages = 16,
	.len = 2 * MIB,
	.no_folio = "no 64 KiB file folio formed whole (the filesystem has no large folios "
		    "here: xfs from v5.18, ext4 from v6.16; or the write path made others)",
};

static const struct zap_shape blockfs_64k_clean = {
	.what = "64 KiB file folios, clean PTEs",
	.file = true,
	.clean = true,
	.folio_pages = 16,
	.len = 2 * MIB,
	.no_folio = "no 64 KiB file folio formed whole (the filesystem has no large folios "
		    "here: xfs from v5.18, ext4 from v6.16; or the write path made others)",
};

/* Read in (clean folios, clean PTEs), then one page of each folio
   written through its PTE alone (zap_dirty.c). */
static const struct zap_shape shmem_64k_pte_dirty = {
	.what = "64 KiB shmem mTHP, 4 KiB off alignment",
	.shmem = true,
	.folio_pages = 16,
	.len = 2 * MIB,
	.no_folio = "no 64 KiB shmem folio formed whole (fell back to small folios)",
};

static int run_counts(struct pc_scenario_ctx *ctx, const void *data)
{
	return pc_attempts_run(ctx, zap_measure_counts, data);
}

/* With a swap to page out to (swap.c), the scenario's own if none is on. */
static int run_swapped(struct pc_scenario_ctx *ctx, const void *data)
{
	int ret;

	pc_swap_begin();
	ret = pc_attempts_run(ctx, zap_measure_counts, data);
	pc_swap_end(ctx);
	return ret;
}

static int run_exit(struct pc_scenario_ctx *ctx, const void *data)
{
	return pc_attempts_run(ctx, zap_measure_exit, data);
}

static int run_dirty(struct pc_scenario_ctx *ctx, const void *data)
{
	return pc_attempts_run(ctx, zap_measure_dirty, data);
}

#define ZAP(shape, op, cut) (&(const struct zap_scenario){&(shape), (op), (cut)})
#define SCENARIO(name, shape, op, cut, what)                                                       \
	{                                                                                          \
		name, what, 0, run_counts, ZAP(shape, op, cut)                                     \
	}
#define SCENARIO_BLK(name, shape, op, cut, what)                                                   \
	{                                                                                          \
		name, what, PC_NEEDS_BLOCKFS, run_counts, ZAP(shape, op, cut)                      \
	}
#define SCENARIO_16K(name, shape, op, cut, what)                                                   \
	{                                                                                          \
		name, what, PC_NEEDS_MTHP_16K, run_counts, ZAP(shape, op, cut)                     \
	}

/* clang-format off */
static const struct pc_scenario scenarios[] = {
	SCENARIO("shmem-64k-munmap", shmem_64k, ZAP_MUNMAP, false,
		 "munmap of whole shmem 64 KiB folios: RssShmem and mapcounts by the pages"),
	SCENARIO("shmem-64k-munmap-cut", shmem_64k, ZAP_MUNMAP, true,
		 "munmap from half-way into the first folio to half-way into the last"),
	SCENARIO("shmem-64k-dontneed", shmem_64k, ZAP_DONTNEED, false,
		 "MADV_DONTNEED of whole shmem 64 KiB folios"),
	SCENARIO("shmem-64k-dontneed-cut", shmem_64k, ZAP_DONTNEED, true,
		 "MADV_DONTNEED from half-way into the first folio to half-way into the last"),
	SCENARIO("shmem-64k-clean-munmap", shmem_64k_clean, ZAP_MUNMAP, false,
		 "munmap of whole shmem 64 KiB folios mapped by clean PTEs: the rmap "
		 "removed at once"),
	SCENARIO("shmem-64k-clean-dontneed", shmem_64k_clean, ZAP_DONTNEED, false,
		 "MADV_DONTNEED of whole shmem 64 KiB folios mapped by clean PTEs"),
	{"shmem-64k-pte-dirty-munmap", "munmap of shmem 64 KiB folios whose one written page only "
	 "its PTE knows dirty: the folio dirty after", 0, run_dirty,
	 ZAP(shmem_64k_pte_dirty, ZAP_MUNMAP, false)},
	{"shmem-64k-pte-dirty-dontneed", "MADV_DONTNEED of the same", 0, run_dirty,
	 ZAP(shmem_64k_pte_dirty, ZAP_DONTNEED, false)},
	SCENARIO("anon-64k-munmap", anon_64k, ZAP_MUNMAP, false,
		 "munmap of whole anonymous 64 KiB folios: RssAnon by the pages"),
	SCENARIO("anon-64k-munmap-cut", anon_64k, ZAP_MUNMAP, true,
		 "munmap from half-way into the first folio to half-way into the last"),
	SCENARIO("anon-64k-dontneed", anon_64k, ZAP_DONTNEED, false,
		 "MADV_DONTNEED of whole anonymous 64 KiB folios"),
	SCENARIO("anon-64k-dontneed-cut", anon_64k, ZAP_DONTNEED, true,
		 "MADV_DONTNEED from half-way into the first folio to half-way into the last"),
	{"shmem-64k-exit", "shmem 64 KiB folios mapped by a child's reads, unmapped by its "
	 "exit (exit_mmap's full-mm zap)", PC_SCENARIO_FOLLOW_CHILDREN, run_exit,
	 ZAP(shmem_64k_exit, ZAP_MUNMAP, false)},
	{"shmem-64k-exit-dirty", "the same through writes: dirty PTEs, the rmap delayed to the "
	 "TLB flush", PC_SCENARIO_FOLLOW_CHILDREN, run_exit,
	 ZAP(shmem_64k_exit_dirty, ZAP_MUNMAP, false)},
	{"anon-64k-swapped-munmap", "munmap of 64 KiB folios, every other one in swap: RssAnon "
	 "and VmSwap by the entries", 0, run_swapped, ZAP(anon_64k_swapped, ZAP_MUNMAP, false)},
	{"anon-64k-swapped-dontneed-cut", "MADV_DONTNEED of the same, cut at both ends", 0,
	 run_swapped, ZAP(anon_64k_swapped, ZAP_DONTNEED, true)},
	SCENARIO_BLK("blockfs-64k-munmap", blockfs_64k, ZAP_MUNMAP, false,
		     "munmap of a block-fs file's 64 KiB folios written through the mapping: "
		     "RssFile and mapcounts by the pages"),
	SCENARIO_BLK("blockfs-64k-dontneed-cut", blockfs_64k, ZAP_DONTNEED, true,
		     "MADV_DONTNEED of the same from half-way into the first folio to half-way "
		     "into the last"),
	SCENARIO_BLK("blockfs-64k-clean-munmap", blockfs_64k_clean, ZAP_MUNMAP, false,
		     "munmap of a block-fs file's 64 KiB folios mapped by clean PTEs"),
	SCENARIO_16K("shmem-16k-munmap", shmem_16k, ZAP_MUNMAP, false,
		     "munmap of whole shmem 16 KiB folios: batches of 4"),
	SCENARIO_16K("shmem-16k-dontneed-cut", shmem_16k, ZAP_DONTNEED, true,
		     "MADV_DONTNEED of shmem 16 KiB folios from half-way into the first to "
		     "half-way into the last"),
	SCENARIO_16K("anon-16k-munmap", anon_16k, ZAP_MUNMAP, false,
		     "munmap of whole anonymous 16 KiB folios"),
	SCENARIO_16K("anon-16k-dontneed-cut", anon_16k, ZAP_DONTNEED, true,
		     "MADV_DONTNEED of anonymous 16 KiB folios, cut at both ends"),
};
/* clang-format on */

const struct pc_suite pc_zap_suite = {
	.name = "zap",
	.description = "unmapping large folios: RSS and mapcounts fall by the pages unmapped",
	.scenarios = scenarios,
	.n_scenarios = sizeof(scenarios) / sizeof(scenarios[0]),
};
