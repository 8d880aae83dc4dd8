// SPDX-License-Identifier: GPL-2.0
/*
 * The mlock suite: which folios mlock and munlock lock (docs/checks.md,
 * "The mlock checks").
 *
 *   SHAPE       the locked range holds every folio whole: each mlocked
 *               while locked, none after munlock
 *   SHAPE-cut   the range starts a page into the first folio and ends a
 *               page before the last one's end: those two never mlocked
 *
 * SHAPE: anon-64k (64 KiB mTHP), anon-16k (16 KiB: the run's 64 KiB off
 * around it), shmem-64k (a memfd in 64 KiB folios) and anon-2m-pte (a 2 MiB THP whose mapping is
 * split into 512 PTEs: the largest batch mlock steps over) and
 * blockfs-64k (a file on the run's block filesystem, ext4 or xfs as the
 * summary says, written in 64 KiB pieces: the filesystem's large folios).
 *
 *   ksm-merged  small pages merged in pairs by ksmd (PC_NEEDS_KSM), each
 *               half locked alone in turn: every page mlocked, the KSM
 *               pages indexed in the other half too (verify/mlock_ksm.c;
 *               b1454b463c21's)
 */
#include "mlock_int.h"

static const struct ml_shape anon_64k = {
	.what = "64 KiB anon mTHP",
	.folio_pages = 16,
	.len = 1 * MIB,
	.min_folios = 4,
	.demand = true,
	.no_folio = "no 64 KiB folio formed whole (mTHP fell back to small folios)",
};

static const struct ml_shape shmem_64k = {
	.what = "64 KiB shmem mTHP",
	.shmem = true,
	.folio_pages = 16,
	.len = 1 * MIB,
	.min_folios = 4,
	.demand = true,
	.no_folio = "no 64 KiB shmem folio formed whole (fell back to small folios)",
};

/* The same in 16 KiB folios (PC_NEEDS_MTHP_16K): mTHP, so demanded. */
static const struct ml_shape anon_16k = {
	.what = "16 KiB anon mTHP",
	.folio_pages = 4,
	.len = 1 * MIB,
	.min_folios = 4,
	.demand = true,
	.no_folio = "no 16 KiB folio formed whole (mTHP fell back to small folios)",
};

static const struct ml_shape anon_2m_pte = {
	.what = "2 MiB THP, PTE-mapped",
	.folio_pages = 512,
	.len = 6 * MIB,
	.min_folios = 3, /* cut: the middle one held, the two at the ends cut */
	.split_pmd = true,
	/* Not demanded: 6.1 never mlocks a PTE-mapped THP, and arm64 7.3.4
	   leaves one unmlocked whose first contpte block the split unfolded
	   (its batch ends there). */
	.no_folio = "no 2 MiB THP formed whole (THP off, or fell back to small folios)",
};

static const struct ml_shape blockfs_64k = {
	.what = "64 KiB file folios",
	.file = true,
	.folio_pages = 16,
	.len = 1 * MIB,
	.min_folios = 4,
	.demand_with_mthp = true,
	.no_folio = "no 64 KiB file folio formed whole (the filesystem has no large folios "
		    "here: xfs from v5.18, ext4 from v6.16; or the write path made others)",
};

static int run_ksm(struct pc_scenario_ctx *ctx, const void *data)
{
	return pc_attempts_run(ctx, ml_measure_ksm, data);
}

static int run_folios(struct pc_scenario_ctx *ctx, const void *data)
{
	return pc_attempts_run(ctx, ml_measure_folios, data);
}

#define ML(shape, cut) (&(const struct ml_scenario){&(shape), (cut)})

/* clang-format off */
static const struct pc_scenario scenarios[] = {
	{"anon-64k", "mlock and munlock of whole anonymous 64 KiB folios", 0, run_folios,
	 ML(anon_64k, false)},
	{"anon-64k-cut", "the range a page into the first folio to a page before the last's "
	 "end", 0, run_folios, ML(anon_64k, true)},
	{"anon-16k", "mlock and munlock of whole anonymous 16 KiB folios", PC_NEEDS_MTHP_16K,
	 run_folios, ML(anon_16k, false)},
	{"anon-16k-cut", "the same, cutting the first and last folio", PC_NEEDS_MTHP_16K,
	 run_folios, ML(anon_16k, true)},
	{"shmem-64k", "mlock and munlock of whole shmem 64 KiB folios", 0, run_folios,
	 ML(shmem_64k, false)},
	{"shmem-64k-cut", "the same, cutting the first and last folio", 0, run_folios,
	 ML(shmem_64k, true)},
	{"blockfs-64k", "mlock and munlock of a block-fs file's whole 64 KiB folios",
	 PC_NEEDS_BLOCKFS, run_folios, ML(blockfs_64k, false)},
	{"blockfs-64k-cut", "the same, cutting the first and last folio", PC_NEEDS_BLOCKFS,
	 run_folios, ML(blockfs_64k, true)},
	{"ksm-merged", "pairs of pages merged by ksmd, each half locked alone in turn: every "
	 "page mlocked, KSM pages indexed in the other half too", PC_NEEDS_KSM, run_ksm, NULL},
	{"anon-2m-pte", "mlock and munlock of a PTE-mapped 2 MiB THP", 0, run_folios,
	 ML(anon_2m_pte, false)},
	{"anon-2m-pte-cut", "the same, a page short at both ends: the THP never mlocked", 0,
	 run_folios, ML(anon_2m_pte, true)},
};
/* clang-format on */

const struct pc_suite pc_mlock_suite = {
	.name = "mlock",
	.description = "mlock and munlock of large folios: which folios they lock",
	.scenarios = scenarios,
	.n_scenarios = sizeof(scenarios) / sizeof(scenarios[0]),
};
