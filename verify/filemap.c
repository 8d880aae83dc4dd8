// SPDX-License-Identifier: GPL-2.0
/*
 * The filemap suite: folio-based fault-around.  Since v6.4 a read fault on
 * a file mapping maps a run of a large page-cache folio at once
 * (filemap_map_pages -> filemap_map_folio_range -> set_pte_range +
 * folio_add_file_rmap_ptes + RSS += nr).  Each scenario fills a fresh file
 * (memfd with 64 KiB shmem mTHP, a huge=within_size tmpfs, ext4, a file in
 * the private tmpdir, or a small-folio memfd as the control), unmaps what
 * filled it, maps it again read-only in a chosen shape and read-faults it,
 * then judges with the userspace oracles (filemap_judge.c says which).
 * This file holds the shapes and the suite table; filemap_int.h says where
 * the rest is.
 *
 * Zero false positives: fault-around may map more than was touched (within
 * the VMA, the page table and i_size); reclaim may unmap.  A violation is
 * re-measured on a fresh file, and fails only when every one of PC_ATTEMPTS
 * attempts shows it and at least PC_ATTEMPTS of them saw no disturbance.
 * A probe that could not have caught a bug (no large folio formed, no folio
 * across the VMA or EOF) is a SKIP saying so, never a PASS.
 */
#include "filemap_int.h"

static int run_shape(struct pc_scenario_ctx *ctx, const void *data)
{
	char name[48];

	ctx->scenario = fm_scenario_name(ctx, data, name, sizeof(name));
	return pc_attempts_run(ctx, fm_measure, data);
}

/* ---- the scenarios ------------------------------------------------------------- */

/* 1 MiB (256 KiB at the least) in 64 KiB granules; PMD folios need 4 MiB. */
#define SZ_1M  .full_len = MIB, .min_len = 256 * KIB, .granule = FOLIO_64K
#define SZ_PMD .full_len = 4 * MIB, .min_len = 4 * MIB, .granule = 2 * MIB
/* EOF 5 pages + 100 bytes into the last 64 KiB (or 2 MiB) of the file. */
#define EOF_64K (FOLIO_64K - 5 * PAGE - 100)
#define EOF_PMD (2 * MIB - 5 * PAGE - 100)

#define SHAPE(name, b, k, ...)                                                                     \
	static const struct fm_shape name = {.backing = b, .kind = k, __VA_ARGS__}

SHAPE(whole_memfd64k, FB_MEMFD_64K, K_WHOLE, SZ_1M, .want_large = true);
SHAPE(whole_tmpfs_huge, FB_TMPFS_HUGE, K_WHOLE, SZ_PMD, .want_large = true);
SHAPE(whole_ext4, FB_BLOCKFS, K_WHOLE, SZ_1M, .stem = "whole");
SHAPE(whole_tmpfile, FB_TMPDIR, K_WHOLE, SZ_1M);
SHAPE(whole_memfd4k, FB_MEMFD_SMALL, K_WHOLE, SZ_1M);
SHAPE(eof_memfd64k, FB_MEMFD_64K, K_EOF, SZ_1M, .eof_tail = EOF_64K);
SHAPE(eof_tmpfs_huge, FB_TMPFS_HUGE, K_EOF, SZ_PMD, .eof_tail = EOF_PMD);
SHAPE(eof_ext4, FB_BLOCKFS, K_EOF, SZ_1M, .eof_tail = EOF_64K, .stem = "eof");
SHAPE(eof_tmpfile, FB_TMPDIR, K_EOF, SZ_1M, .eof_tail = EOF_64K);
/* 16 KiB folios in the last 64 KiB: EOF's folio is not the first of its
   fault-around window (7c9580f44f90's state). */
SHAPE(eof_tail16k_ext4, FB_BLOCKFS, K_EOF, SZ_1M, .eof_tail = EOF_64K, .tail_piece = 16 * KIB,
      .stem = "eof-tail16k");
SHAPE(head_memfd64k, FB_MEMFD_64K, K_RANGE, SZ_1M, .map_off = 8 * KIB, .want_large = true);
SHAPE(head_tmpfile, FB_TMPDIR, K_RANGE, SZ_1M, .map_off = 8 * KIB, .want_large = true);
SHAPE(tail_memfd64k, FB_MEMFD_64K, K_RANGE, SZ_1M, .map_trim = 8 * KIB, .want_large = true);
SHAPE(tail_tmpfile, FB_TMPDIR, K_RANGE, SZ_1M, .map_trim = 8 * KIB, .want_large = true);
SHAPE(smallvma_memfd64k, FB_MEMFD_64K, K_RANGE, SZ_1M, .map_off = 64 * KIB + 20 * KIB,
      .map_len = 24 * KIB, .want_large = true);
SHAPE(smallvma_tmpfs_huge, FB_TMPFS_HUGE, K_RANGE, SZ_PMD, .map_off = 256 * KIB + 4 * KIB,
      .map_len = MIB, .want_large = true);
SHAPE(smallvma_tmpfile, FB_TMPDIR, K_RANGE, SZ_1M, .map_off = 64 * KIB + 20 * KIB,
      .map_len = 24 * KIB, .want_large = true);
SHAPE(straddle_memfd64k, FB_MEMFD_64K, K_STRADDLE, SZ_1M, .va_off = 2 * MIB - 32 * KIB,
      .want_large = true);
SHAPE(straddle_tmpfs_huge, FB_TMPFS_HUGE, K_STRADDLE, SZ_PMD, .va_off = 2 * MIB - 32 * KIB,
      .want_large = true);
SHAPE(straddle_tmpfile, FB_TMPDIR, K_STRADDLE, SZ_1M, .va_off = 2 * MIB - 32 * KIB,
      .want_large = true);
SHAPE(premapped_memfd64k, FB_MEMFD_64K, K_PREMAPPED, SZ_1M, .want_large = true);
SHAPE(premapped_tmpfile, FB_TMPDIR, K_PREMAPPED, SZ_1M, .want_large = true);
SHAPE(shared_memfd64k, FB_MEMFD_64K, K_SHARED, SZ_1M, .nproc = 4);
SHAPE(shared_tmpfs_huge, FB_TMPFS_HUGE, K_SHARED, SZ_PMD, .nproc = 4);
SHAPE(shared_ext4, FB_BLOCKFS, K_SHARED, SZ_1M, .nproc = 4, .stem = "shared");
SHAPE(shared_tmpfile, FB_TMPDIR, K_SHARED, SZ_1M, .nproc = 4);
SHAPE(trunc_memfd64k, FB_MEMFD_64K, K_TRUNCATE, SZ_1M, .eof_tail = EOF_64K);
SHAPE(trunc_ext4, FB_BLOCKFS, K_TRUNCATE, SZ_1M, .eof_tail = EOF_64K, .stem = "trunc-race");
SHAPE(trunc_tmpfile, FB_TMPDIR, K_TRUNCATE, SZ_1M, .eof_tail = EOF_64K);
/* A block-fs file written whole (one large folio), a page of it pinned so
   truncation cannot split it, racing ftruncate to a quarter and back:
   fault-around windows wholly past the short EOF always find that folio
   (the state of f58df566524e's race: i_size shrinks between the folio's
   lookup and the fault's i_size read, and the batch's length underflows). */
SHAPE(trunc_deep_blockfs, FB_BLOCKFS, K_TRUNCATE, .full_len = MIB, .min_len = MIB,
      .granule = FOLIO_64K, .eof_tail = EOF_64K, .deep = true, .stem = "trunc-race-deep");

#define HUGE PC_NEEDS_SHMEM_HUGE
#define BLK  PC_NEEDS_BLOCKFS
/* For the in-kernel tier: mapcount deltas and past-EOF are observed, not
   enforced, where several processes map a file or its size changes. */
#define SHARED PC_SCENARIO_SHARED_MAPPERS
#define RESIZE PC_SCENARIO_RESIZES
#define CRASH  PC_SCENARIO_MAY_CRASH
#define DIRTY  PC_NEEDS_DIRTY_HELD

static int run_refault(struct pc_scenario_ctx *ctx, const void *data)
{
	return pc_attempts_run(ctx, fm_measure_refault, data);
}

static int run_trunc_pinned(struct pc_scenario_ctx *ctx, const void *data)
{
	return pc_attempts_run(ctx, fm_measure_trunc_pinned, data);
}

static const struct fm_trunc_pinned trunc_pinned = {.collapse = false};
static const struct fm_trunc_pinned trunc_pinned_collapse = {.collapse = true};

static const struct fm_refault refault_memfd = {
	.what = "64 KiB shmem folios (memfd)",
	.pos = PC_POS_MIDDLE,
	.no_folio = "no 64 KiB shmem folio formed whole (fell back to small folios)",
};

static const struct fm_refault refault_blockfs = {
	.what = "64 KiB file folios",
	.file = true,
	.pos = PC_POS_MIDDLE,
	.no_folio = "no 64 KiB file folio formed whole (the filesystem has no large folios "
		    "here: xfs from v5.18, ext4 from v6.16; or the write path made others)",
};

static const struct pc_scenario scenarios[] = {
	{"whole-memfd64k", "memfd 1 MiB of 64 KiB folios, read one byte per page", 0, run_shape,
	 &whole_memfd64k},
	{"whole-tmpfs-huge", "huge=within_size tmpfs file, 4 MiB of PMD folios, read all", HUGE,
	 run_shape, &whole_tmpfs_huge},
	{"whole-ext4", "ext4 file 1 MiB (large folios where ext4 has them), read all", BLK,
	 run_shape, &whole_ext4},
	{"whole-tmpfile", "file in the private tmpdir (its own fs), 1 MiB, read all", 0, run_shape,
	 &whole_tmpfile},
	{"whole-memfd4k", "control: memfd filled under MADV_NOHUGEPAGE (small folios)", 0,
	 run_shape, &whole_memfd4k},
	{"eof-memfd64k", "EOF inside a 64 KiB folio: SIGBUS past EOF's folio", 0, run_shape,
	 &eof_memfd64k},
	{"eof-tmpfs-huge", "EOF inside a PMD folio: SIGBUS past EOF's folio", HUGE, run_shape,
	 &eof_tmpfs_huge},
	{"eof-ext4", "EOF inside a large folio: nothing mapped past EOF, SIGBUS", BLK, run_shape,
	 &eof_ext4},
	{"eof-tmpfile", "tmpdir file, EOF inside a folio: nothing mapped past EOF, SIGBUS", 0,
	 run_shape, &eof_tmpfile},
	{"eof-tail16k-ext4",
	 "EOF inside a 16 KiB folio after one wholly below it, in one fault-around window: "
	 "nothing mapped past EOF, SIGBUS",
	 BLK, run_shape, &eof_tail16k_ext4},
	{"head-memfd64k", "VMA starts 8 KiB into a 64 KiB folio", 0, run_shape, &head_memfd64k},
	{"head-tmpfile", "tmpdir file, VMA starts 8 KiB into a large folio", 0, run_shape,
	 &head_tmpfile},
	{"tail-memfd64k", "VMA ends 8 KiB before a 64 KiB folio does", 0, run_shape,
	 &tail_memfd64k},
	{"tail-tmpfile", "tmpdir file, VMA ends 8 KiB before a large folio does", 0, run_shape,
	 &tail_tmpfile},
	{"small-vma-memfd64k", "24 KiB VMA inside a 64 KiB folio", 0, run_shape,
	 &smallvma_memfd64k},
	{"small-vma-tmpfs-huge", "1 MiB VMA inside a PMD folio", HUGE, run_shape,
	 &smallvma_tmpfs_huge},
	{"small-vma-tmpfile", "tmpdir file, 24 KiB VMA inside a large folio", 0, run_shape,
	 &smallvma_tmpfile},
	{"straddle-memfd64k", "64 KiB folios at 2 MiB - 32 KiB: runs split at the page table", 0,
	 run_shape, &straddle_memfd64k},
	{"straddle-tmpfs-huge", "PMD folios at 2 MiB - 32 KiB: mapped by PTEs across tables", HUGE,
	 run_shape, &straddle_tmpfs_huge},
	{"straddle-tmpfile", "tmpdir file, large folios across a 2 MiB boundary", 0, run_shape,
	 &straddle_tmpfile},
	{"premapped-memfd64k", "every 3rd page mapped first, then all: folios in runs", 0,
	 run_shape, &premapped_memfd64k},
	{"premapped-tmpfile", "tmpdir file, every 3rd page mapped first, then all", 0, run_shape,
	 &premapped_tmpfile},
	{"shared-memfd64k", "5 processes map every page: kpagecount 5 each", SHARED, run_shape,
	 &shared_memfd64k},
	{"shared-tmpfs-huge", "5 processes map a huge tmpfs file: kpagecount 5 each", HUGE | SHARED,
	 run_shape, &shared_tmpfs_huge},
	{"shared-ext4", "5 processes map an ext4 file: kpagecount 5 each", BLK | SHARED, run_shape,
	 &shared_ext4},
	{"shared-tmpfile", "5 processes map a tmpdir file: kpagecount 5 each", SHARED, run_shape,
	 &shared_tmpfile},
	{"trunc-race-memfd64k", "faults race ftruncate; judged quiescent", RESIZE, run_shape,
	 &trunc_memfd64k},
	{"trunc-race-ext4", "ext4: faults race ftruncate; judged quiescent", BLK | RESIZE,
	 run_shape, &trunc_ext4},
	{"trunc-race-tmpfile", "tmpdir file: faults race ftruncate; judged quiescent", RESIZE,
	 run_shape, &trunc_tmpfile},
	{"trunc-race-deep-ext4",
	 "ext4: a file's large folio across a quarter of it, pinned, faulted around past "
	 "there while ftruncate races to there and back; judged quiescent",
	 BLK | RESIZE | CRASH | DIRTY, run_shape, &trunc_deep_blockfs},
	{"refault-memfd64k",
	 "entry 8 of each 64 KiB shmem folio zapped alone, then written: "
	 "the write fault maps it (finish_fault's fallback)",
	 0, run_refault, &refault_memfd},
	{"refault-blockfs", "the same on a block-fs file's 64 KiB folios", BLK, run_refault,
	 &refault_blockfs},
	{"trunc-pinned-pmd-blockfs",
	 "a block-fs file's PMD-mapped 2 MiB folio, one page "
	 "pinned (vmsplice), truncated into: the split fails, nothing mapped past EOF",
	 BLK | RESIZE, run_trunc_pinned, &trunc_pinned},
	{"trunc-pinned-collapse-blockfs",
	 "the same folio dirty (it stays cached across EOF), then MADV_COLLAPSE: "
	 "nothing mapped past EOF",
	 BLK | RESIZE | PC_SCENARIO_KNOWN_BUG, run_trunc_pinned, &trunc_pinned_collapse},
};

const struct pc_suite pc_filemap_suite = {
	.name = "filemap",
	.description = "folio-based fault-around: batches, rmap and RSS counts",
	.scenarios = scenarios,
	.n_scenarios = sizeof(scenarios) / sizeof(scenarios[0]),
};
