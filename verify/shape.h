/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory shapes the suites share: what a scenario's range turned out to
 * be, read back rather than assumed.  A range is cut into folios of fp
 * pages (its shape's size); each is "whole" when its pages are present at
 * consecutive PFNs from an fp-aligned one, all in one folio of fp pages
 * (pagemap and kpageflags).  Scenarios judge the whole folios and say how
 * many of how many they were; the others (the allocator fell back, a
 * folio split) are counted out, never judged as if they were the shape.
 */
#ifndef PTECHECK_SHAPE_H
#define PTECHECK_SHAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <ptecheck/types.h>
#include "attempt.h"
#include "measure.h"

struct pc_folios {
	size_t n, fp;	/* pages, pages per folio */
	__u64 *pagemap; /* n entries, as read */
	__u64 *pfns;	/* n: the PFN of each present page, else 0 */
	__u32 *orders;	/* n: the order of each page's folio */
	bool *whole;	/* n / fp: the folio formed whole */
	size_t n_whole;
};

/* Arrays for n pages in folios of fp: 0 or -ENOMEM. */
int pc_folios_alloc(struct pc_folios *f, size_t n, size_t fp);
void pc_folios_free(struct pc_folios *f);
/*
 * Reads the range at base back: pagemap, PFNs, folio orders, which folios
 * are whole.  0; -EPERM when PFNs are hidden (not root); or -errno of a
 * read (-ESTALE: a folio changed while read).
 */
int pc_folios_read(struct pc_folios *f, const void *base);
/*
 * pc_folios_read for a scenario's attempt a: 0 when some folio formed
 * whole; 1 when none did (every slot skipped with no_folio) or PFNs are
 * hidden (not root: skipped saying so); or pc_skip_rest's -errno (a
 * folio that changed while read retries the attempt).
 */
int pc_folios_read_for(struct pc_attempt *a, const struct pc_scenario_ctx *ctx, struct pc_folios *f,
		       const void *base, const char *no_folio);
/*
 * After MADV_FREE over the n pages at base: whether smaps counts all of
 * them LazyFree (every PTE cleaned, every folio lazyfree).  0; 1 when not
 * (every slot skipped saying so, the attempt retried); or pc_skip_rest's.
 */
int pc_lazyfree_whole(struct pc_attempt *a, const void *base, size_t n);
/* MADV_FREE over the n pages at base, then pc_lazyfree_whole: its
   returns, or pc_skip_rest's for the madvise. */
int pc_madv_free_whole(struct pc_attempt *a, void *base, size_t n);

/*
 * Where in a folio the one entry of a trigger state that differs from the
 * others lies (issue #31's matrix): the first (the batch's own value, so
 * the control a batch that ignores the difference cannot fail), the second
 * (the first a batch compares), the middle, the last (the batch's end).
 */
enum pc_pos { PC_POS_FIRST, PC_POS_SECOND, PC_POS_MIDDLE, PC_POS_LAST };

/*
 * Whether the run enabled 64 KiB mTHP for the memory a scenario maps
 * (anonymous, or shmem): true, or false with every slot of a skipped
 * saying which setting is off.
 */
bool pc_mthp_64k_on(const struct pc_scenario_ctx *ctx, struct pc_attempt *a, bool shmem);
/* The same for folios of kb KiB, 16 (PC_NEEDS_MTHP_16K) or 64. */
bool pc_mthp_on(const struct pc_scenario_ctx *ctx, struct pc_attempt *a, bool shmem,
		unsigned int kb);
/*
 * The pages of a scenario in 64 KiB anonymous folios at the run's scale:
 * 1 MiB at scale 1 (less than a PMD, where THP would give one 2 MiB folio
 * instead), four folios at least, a multiple of granule folios; 0 when
 * the run has no 64 KiB anonymous mTHP (pc_mthp_64k_on: every slot
 * skipped).
 */
size_t pc_anon_64k_pages(const struct pc_scenario_ctx *ctx, struct pc_attempt *a, size_t granule);
/* The same in anonymous folios of kb KiB (16: PC_NEEDS_MTHP_16K, or 64). */
size_t pc_anon_mthp_pages(const struct pc_scenario_ctx *ctx, struct pc_attempt *a, unsigned int kb,
			  size_t granule);

/* The index of pos in a folio of n pages, and its name. */
size_t pc_pos_index(enum pc_pos pos, size_t n);
const char *pc_pos_name(enum pc_pos pos);

/* Whether page i lies in a whole folio. */
static inline bool pc_folios_page_whole(const struct pc_folios *f, size_t i)
{
	return f->whole[i / f->fp];
}

/*
 * A scenario's range: n pages at a 2 MiB boundary of a reservation, private
 * anonymous under MADV_HUGEPAGE or (shmem) a memfd of n pages mapped
 * shared, every page's byte at off written (pc_page_byte(i, SALT_A)), so
 * that every page is present.
 */
struct pc_range {
	struct pc_resv resv;
	struct pc_resv moved; /* where pc_range_misalign moved it, if it did */
	char *base;
	int fd; /* the memfd, -1 for anonymous */
	size_t n;
};

/* Maps and fills r (r->fd -1 before): 0 or -errno, *what the step. */
int pc_range_map(struct pc_range *r, size_t n, bool shmem, size_t off, const char **what);
/*
 * The shmem form of r, read instead (r->fd -1 before): every page read
 * in, so its folios are in the page cache clean (a read fault of a hole
 * allocates them so) and mapped by PTEs writable and clean (a shared
 * mapping without write-notify): a write through them marks only the
 * PTE dirty.  0 or -errno, *what the step.
 */
int pc_range_map_clean(struct pc_range *r, size_t n, const char **what);
/*
 * The block-filesystem form of r (ext4, xfs: whatever ctx->blockfs_dir
 * is on, read back, never assumed), in two steps.  First the file, before
 * the scenario's window (its writeback is a disturbance): unlinked, n
 * pages written with one pwrite per fp pages at an fp-aligned offset (the
 * write path then allocates folios of that size where the filesystem has
 * large folios: xfs since v5.18, ext4 since v6.16), each page's byte at
 * off pc_page_byte(i, SALT_A), fsync'd, so its folios are clean and no
 * writeback of them runs later; fs gets what the file is on ("ext4 on
 * /dev/loop0").  0; 1 when there is no block filesystem to use (fs says
 * why); or -errno, *what the step.
 */
int pc_range_file_create(const struct pc_scenario_ctx *ctx, struct pc_range *r, size_t n, size_t fp,
			 size_t off, char *fs, size_t fs_len, const char **what);
/* pc_range_file_create for an attempt: 0; 1 when there is no block
   filesystem (every slot skipped, fs's why); or pc_skip_rest's -errno. */
int pc_range_file_for(const struct pc_scenario_ctx *ctx, struct pc_attempt *a, struct pc_range *r,
		      size_t n, size_t fp, size_t off, char *fs, size_t fs_len);
/* Then the mapping, in the window: r->fd mapped shared at a 2 MiB boundary
   and every page read (clean PTEs; 64 KiB folios are never PMD-mapped).
   0 or -errno, *what the step. */
int pc_range_map_file(struct pc_range *r, size_t n, size_t off, const char **what);
/*
 * pc_range_map of fo->n anonymous pages (each page's byte at off) and
 * pc_folios_read_for them in folios of fo->fp pages (16: 64 KiB, 4:
 * 16 KiB; named for the first, the others came later): 0; 1 when none
 * formed whole (every slot skipped, saying so); or pc_skip_rest's -errno.
 */
int pc_range_map_64k(const struct pc_scenario_ctx *ctx, struct pc_attempt *a, struct pc_range *r,
		     struct pc_folios *fo, size_t off);
/* Unmaps r and closes its memfd (no-op on what is not there). */
void pc_range_release(struct pc_range *r);
/*
 * Moves r's mapping (mremap, its folios and PTEs with it) to 4 KiB past a
 * 64 KiB boundary, r->base following: no aligned block of 16 PTEs then
 * maps one folio, so arm64 folds none into a contiguous range and each
 * entry keeps its own access and dirty bits (a folded block reads and
 * clears them as one, which hides a batch that loses one entry's).  On
 * x86 only the address changes.  0 or -errno.
 */
int pc_range_misalign(struct pc_range *r);

/*
 * Splits the PMD mapping of the THP at base (2 MiB aligned) into 512 PTEs,
 * the folio kept whole: an mprotect of its first page and back, whose VMA
 * split and merge leave the range one VMA again.  0 or -errno.
 */
int pc_split_pmd_mapping(char *base);

/* Of the n pages mapped at addr (a file's), how many are in the page
   cache: mincore reads the cache, whatever i_size says.  vec: n bytes of
   the caller's.  The count, or -errno. */
long pc_pages_cached(const void *addr, size_t n, unsigned char *vec);

/*
 * The lazyfree trigger state fork/dirty and reclaim/dirty share: r mapped
 * (fo->n pages, each page's byte at off), folios of fo->fp pages read back
 * whole, the range moved 4 KiB off 64 KiB when misaligned
 * (pc_range_misalign), MADV_FREE over it and smaps LazyFree all of it
 * (every PTE clean, every folio lazyfree), then entry p of every even
 * folio written again (pc_page_byte(i, SALT_B)): that PTE alone dirty,
 * the odd folios left clean as the probe's control.  0; 1 when the state
 * was not made (every slot skipped, the attempt retried where another
 * may make it); or pc_skip_rest's -errno.
 */
int pc_lazyfree_pattern(const struct pc_scenario_ctx *ctx, struct pc_attempt *a, struct pc_range *r,
			struct pc_folios *fo, size_t p, size_t off, bool misaligned);

/*
 * fork, the child exiting at once: the parent's private PTEs are left
 * write-protected for copy-on-write and its anonymous pages no longer
 * exclusive.  0 or -errno.
 */
int pc_fork_exit(void);

/* What pc_rss_exact saw: RssAnon's growth for 37 and 23 anonymous pages
   touched, in the last of its rounds. */
struct pc_rss_calib {
	long seen37, seen23;
	int rounds;
};

/*
 * Proactive reclaim of bytes on the NUMA node holding the page at addr
 * (/sys/devices/system/node/nodeN/reclaim, v6.17 on): LRU reclaim as
 * memory pressure runs it, which takes folios MADV_PAGEOUT passes over or
 * splits (mapped by another process, or across two VMAs).  It reclaims
 * from the node's LRUs in their order, not only the caller's pages: what
 * else it drops is page cache (anonymous memory too where swap is on).
 * 0 (also when it reclaimed less than asked: EAGAIN); or -errno, why
 * saying what is missing (-ENOENT: no such file in this kernel).
 */
int pc_node_reclaim(const void *addr, size_t bytes, char *why, size_t why_len);

/* Skips slot, saying RSS does not read exactly here and what the
   calibration saw. */
void pc_skip_rss_inexact(struct pc_attempt *a, int slot, const struct pc_rss_calib *c);

/*
 * Whether /proc/self/status shows RSS exactly (before ~v6.16 it read the
 * per-CPU counters approximately): 37 and 23 anonymous pages touched must
 * add 37 and 23 in one round.  Up to three rounds: a page reclaimed or
 * faulted by someone else meanwhile spoils a round, not the answer.  An
 * approximate counter cannot pass by chance: it moves in per-CPU batches
 * of at least 32 pages, never by 37 or 23.
 */
bool pc_rss_exact(struct pc_rss_calib *c);

#endif
