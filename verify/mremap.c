// SPDX-License-Identifier: GPL-2.0
/*
 * The mremap suite.  Each scenario builds mappings of a chosen shape at
 * chosen addresses, moves them with mremap(MREMAP_FIXED) and judges the
 * result with the userspace oracles: pagemap (moved), kpageflags
 * (folio-intact), data-loss probes (dirty bits), smaps Referenced (young
 * bits), COW probes and write faults (write permission; the perms states
 * fork and mprotect make are judged here too, with no move).  This file holds the shapes
 * and the suite table; mremap_int.h says where the rest is.
 *
 * Zero false positives: a measurement that shows a violation is repeated on
 * fresh mappings, and a check fails only when every one of PC_ATTEMPTS
 * attempts shows it with no disturbance (reclaim, migration, splits) counted
 * meanwhile by the BPF side or by /proc/vmstat.  A check that cannot be
 * judged is a SKIP that says why, never a pass.
 */
#include <sys/mman.h>

#include "mremap_int.h"

/* A shape's own measurement, as the shared loop calls it. */
int mr_measure_shape(struct pc_scenario_ctx *ctx, const void *data, struct pc_attempt *a)
{
	const struct shape *sh = data;

	return sh->measure(ctx, sh, a);
}

/* Runs a scenario's measurement up to PC_ATTEMPTS times and reports. */
static int run_shape(struct pc_scenario_ctx *ctx, const void *data)
{
	return pc_attempts_run(ctx, mr_measure_shape, data);
}

/* ---- the scenarios -------------------------------------------------------- */

/* 1 MiB at 2 MiB + 512 KiB, moved to 2 MiB + 256 KiB: PTE-level, 64 KiB aligned. */
#define SH_1M_AT(src) .full_len = MIB, .min_len = 256 * KIB, .align = FOLIO_64K, .src_off = (src)
#define SH_1M	      SH_1M_AT(512 * KIB)

static const struct shape sh_anon_64k = {
	.measure = mr_measure_move,
	SH_1M,
	.dst_off = 256 * KIB,
	.advice = MADV_HUGEPAGE,
	.folio_check = true,
	.want_large = true,
};
static const struct shape sh_anon_4k = {
	.measure = mr_measure_move,
	SH_1M,
	.dst_off = 256 * KIB,
	.advice = MADV_NOHUGEPAGE,
	.folio_check = true,
};
static const struct shape sh_anon_64k_misaligned = {
	.measure = mr_measure_move,
	SH_1M,
	.dst_off = 256 * KIB + 4 * KIB,
	.advice = MADV_HUGEPAGE,
	.folio_check = true,
	.want_large = true,
};
/* Moves [start + 8 KiB, end - 8 KiB): both ends inside a folio. */
#define SH_64K_PARTIAL                                                                             \
	.measure = mr_measure_move, SH_1M, .dst_off = 256 * KIB + 8 * KIB, .head = 8 * KIB,        \
	.tail = 8 * KIB, .advice = MADV_HUGEPAGE, .folio_check = true, .want_large = true

static const struct shape sh_anon_64k_partial = {SH_64K_PARTIAL};
/* The same partial move, the deferred-split shrinker run before the
   folios are judged (mremap_shrink.c). */
static const struct shape sh_anon_64k_partial_shrink = {SH_64K_PARTIAL, .shrink = true};
/* Every other 64 KiB paged out to swap before the move (mremap_swap.c). */
#define SH_SWAPPED(adv)                                                                            \
	{                                                                                          \
		.measure = mr_measure_swapped, SH_1M, .dst_off = 256 * KIB, .advice = adv          \
	}

static const struct shape sh_anon_64k_swapped = SH_SWAPPED(MADV_HUGEPAGE);
static const struct shape sh_anon_4k_swapped = SH_SWAPPED(MADV_NOHUGEPAGE);
/* Small pages (the markers are per PTE), every other one left empty. */
#define SH_MARKERS(remap)                                                                          \
	{                                                                                          \
		.measure = mr_measure_markers, SH_1M, .dst_off = 256 * KIB,                        \
		.advice = MADV_NOHUGEPAGE, .uffd_remap = remap                                     \
	}
static const struct shape sh_markers = SH_MARKERS(false);
static const struct shape sh_markers_remap = SH_MARKERS(true);
static const struct shape sh_anon_64k_fork = {
	.measure = mr_measure_fork,
	SH_1M,
	.dst_off = 256 * KIB,
	.advice = MADV_HUGEPAGE,
};
/* The perms states fork and mprotect make themselves, in 64 KiB folios
   (mremap_cow.c, mremap_perms_mprotect.c: moved 4 KiB off alignment). */
static const struct shape sh_perms_fork_cow = {
	.measure = mr_measure_fork_cow,
	SH_1M,
	.dst_off = 256 * KIB,
	.advice = MADV_HUGEPAGE,
};
static const struct shape sh_perms_mprotect = {
	.measure = mr_measure_mprotect,
	SH_1M,
	.dst_off = 256 * KIB + 4 * KIB,
	.advice = MADV_HUGEPAGE,
};
/* memfd MAP_SHARED, 64 KiB shmem folios where shmem mTHP is on, the
   source at 2 MiB + 512 KiB + off, moved to 2 MiB + 256 KiB + off. */
#define SH_SHMEM_64K_OFF(off)                                                                      \
	.measure = mr_measure_move, SH_1M_AT(512 * KIB + (off)), .backing = B_SHMEM,               \
	.dst_off = 256 * KIB + (off), .advice = MADV_HUGEPAGE, .folio_check = true,                \
	.want_large = true
#define SH_SHMEM_64K SH_SHMEM_64K_OFF(0)

static const struct shape sh_shmem_64k = {SH_SHMEM_64K};
/* Read in, written through the clean PTEs: only they know the data is
   dirty, until the unmap (a zap batch) hands their dirty bits on. */
static const struct shape sh_shmem_64k_pte_dirty = {
	SH_SHMEM_64K,
	.read_fault = true,
	.pte_dirty = true,
};
/* The same 4 KiB off the folios' 64 KiB alignment, source and destination:
   no contpte block can fold (arm64), whose read would gather the dirty bits
   of all 16 entries; each PTE keeps its own, as on x86_64. */
static const struct shape sh_shmem_64k_pte_dirty_unfolded = {
	SH_SHMEM_64K_OFF(4 * KIB),
	.read_fault = true,
	.pte_dirty = true,
	.form_aligned = true,
};
static const struct shape sh_file_shared = {
	.measure = mr_measure_move,
	SH_1M,
	.backing = B_FILE,
	.dst_off = 256 * KIB,
};
static const struct shape sh_anon_64k_dirty = {
	.measure = mr_measure_dirty,
	SH_1M,
	.dst_off = 256 * KIB,
	.advice = MADV_HUGEPAGE,
};
static const struct shape sh_anon_64k_young = {
	.measure = mr_measure_young,
	SH_1M,
	.dst_off = 256 * KIB,
	.advice = MADV_HUGEPAGE,
};
/* 8 MiB, both ends on 2 MiB boundaries: whole page tables can move. */
static const struct shape sh_pmd_aligned = {
	.measure = mr_measure_move,
	.full_len = 8 * MIB,
	.min_len = 4 * MIB,
	.align = 2 * MIB,
	.advice = MADV_NOHUGEPAGE,
};
static const struct shape sh_pmd_misaligned = {
	.measure = mr_measure_move,
	.full_len = 8 * MIB,
	.min_len = 4 * MIB,
	.align = 2 * MIB,
	.dst_off = 4 * KIB,
	.advice = MADV_NOHUGEPAGE,
};

/*
 * The perms trigger states (mremap_perms.c): one PMD-sized folio mapped by
 * PTEs, some read-only, some writable, moved away and back.  Not scaled: a
 * smaller range holds no PMD-sized folio.  Anonymous memory at a 2 MiB
 * boundary (the THP forms there), the file 256 KiB past one (PTE-mapped
 * from the start, 64 KiB aligned for contpte).
 */
#define SH_PERMS(how, ...)                                                                         \
	{                                                                                          \
		.measure = mr_measure_perms, .full_len = 2 * MIB, .min_len = 2 * MIB,              \
		.align = 2 * MIB, .dst_off = 256 * KIB, .advice = MADV_HUGEPAGE, .wp = how,        \
		__VA_ARGS__                                                                        \
	}

static const struct shape sh_perms_fork = SH_PERMS(WP_FORK_EXIT);
static const struct shape sh_perms_notify =
	SH_PERMS(WP_NOTIFY, .backing = B_FILE, .src_off = 256 * KIB, .read_fault = true);
static const struct shape sh_perms_soft_dirty = SH_PERMS(WP_SOFT_DIRTY);
static const struct shape sh_perms_uffd = SH_PERMS(WP_UFFD);

static const struct pc_scenario scenarios[] = {
	{"anon-64k", "anonymous 1 MiB of 64 KiB folios moved to a 64 KiB-aligned address", 0,
	 run_shape, &sh_anon_64k},
	{"anon-4k", "anonymous 1 MiB of small pages (MADV_NOHUGEPAGE) moved", 0, run_shape,
	 &sh_anon_4k},
	{"anon-64k-misaligned", "64 KiB folios moved to 64 KiB alignment + 4 KiB", 0, run_shape,
	 &sh_anon_64k_misaligned},
	{"anon-64k-partial", "64 KiB folios, [start+8K, end-8K) moved: ends inside folios", 0,
	 run_shape, &sh_anon_64k_partial},
	{"anon-64k-partial-shrink",
	 "anon-64k-partial, then the deferred-split shrinker (drop_caches 2): folios stay whole", 0,
	 run_shape, &sh_anon_64k_partial_shrink},
	{"anon-64k-swapped",
	 "64 KiB folios, every other 64 KiB paged out to swap, moved, read back", 0, mr_run_swapped,
	 &sh_anon_64k_swapped},
	{"anon-4k-swapped", "small pages, every other 64 KiB paged out to swap, moved, read back",
	 0, mr_run_swapped, &sh_anon_4k_swapped},
	{"uffd-wp-markers",
	 "small pages, every other one empty and uffd-wp marked (WP_UNPOPULATED, no remap "
	 "events), moved: markers may go",
	 0, run_shape, &sh_markers},
	{"uffd-wp-markers-remap",
	 "the same with UFFD_FEATURE_EVENT_REMAP: every marker moves with its PTE", 0, run_shape,
	 &sh_markers_remap},
	{"perms-fork-cow",
	 "64 KiB folios shared with a live child: each side writes pages past the first, the "
	 "other must not see it",
	 0, run_shape, &sh_perms_fork_cow},
	{"perms-mprotect-ro",
	 "64 KiB folios moved 4 KiB off alignment, TLB warmed, mprotect(PROT_READ) each, every "
	 "page written: must fault",
	 0, run_shape, &sh_perms_mprotect},
	{"anon-64k-fork", "64 KiB folios shared with a child, half COW-copied, moved, written", 0,
	 run_shape, &sh_anon_64k_fork},
	{"perms-fork-exit", "2 MiB folio, fork whose child exited, 17 pages rewritten, moved twice",
	 0, run_shape, &sh_perms_fork},
	{"perms-file-notify",
	 "block-fs file 2 MiB read, 17 pages written (page_mkwrite), moved twice", PC_NEEDS_BLOCKFS,
	 run_shape, &sh_perms_notify},
	{"perms-soft-dirty", "2 MiB folio after clear_refs 4, 17 pages rewritten, moved twice", 0,
	 run_shape, &sh_perms_soft_dirty},
	{"perms-uffd-wp", "2 MiB folio uffd-wp protected (EVENT_REMAP), 17 rewritten, moved twice",
	 0, run_shape, &sh_perms_uffd},
	{"shmem-64k", "memfd MAP_SHARED 1 MiB (64 KiB shmem folios) moved, read back", 0, run_shape,
	 &sh_shmem_64k},
	{"shmem-64k-pte-dirty",
	 "memfd 64 KiB folios read in, one page each (the last, second or a middle one) written "
	 "without a fault, moved, unmapped, "
	 "paged out, read back",
	 0, run_shape, &sh_shmem_64k_pte_dirty},
	{"shmem-64k-pte-dirty-unfolded",
	 "the same, mapped 4 KiB off the folios' 64 KiB alignment: PTEs never folded (contpte)", 0,
	 run_shape, &sh_shmem_64k_pte_dirty_unfolded},
	{"file-shared", "regular file MAP_SHARED 1 MiB moved, evicted, read back", 0, run_shape,
	 &sh_file_shared},
	{"anon-64k-dirty", "MADV_FREE data-loss probe: redirtied 3rd PTE survives move+reclaim", 0,
	 run_shape, &sh_anon_64k_dirty},
	{"anon-64k-young", "clear_refs, touch every 4th page, move: Referenced covers them", 0,
	 run_shape, &sh_anon_64k_young},
	{"pmd-aligned", "8 MiB small pages, 2 MiB-aligned source and destination", 0, run_shape,
	 &sh_pmd_aligned},
	{"pmd-misaligned", "8 MiB small pages, destination 2 MiB-aligned + 4 KiB", 0, run_shape,
	 &sh_pmd_misaligned},
};

const struct pc_suite pc_mremap_suite = {
	.name = "mremap",
	.description = "mremap PTE batching and PMD-level moves",
	.scenarios = scenarios,
	.n_scenarios = sizeof(scenarios) / sizeof(scenarios[0]),
};
