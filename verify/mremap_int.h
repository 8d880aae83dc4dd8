/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the mremap suite's files share: a scenario's shape, where its
 * mappings are placed (mremap_place.c), the pagemap/kpageflags snapshots
 * and the judgements made of them (mremap_snap.c), and the measurements
 * (mremap_move.c, mremap_probes.c, mremap_perms*.c, mremap_cow.c) the
 * suite table (mremap.c) runs.
 */
#ifndef PTECHECK_MREMAP_INT_H
#define PTECHECK_MREMAP_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "attempt.h"
#include "measure.h"

#define PAGES_64K (FOLIO_64K / PAGE)

/* The write-fault oracle's tier (mremap_perms.c). */

/* Mapping shape and placement of one scenario. */
enum backing { B_ANON, B_SHMEM, B_FILE };

/* How a perms scenario makes the PTEs of its folio read-only (mremap_perms.c). */
enum wprotect {
	WP_NONE,
	WP_FORK_EXIT,  /* fork, the child exits: anonymous PTEs read-only until written */
	WP_NOTIFY,     /* MAP_SHARED file with write-notify (block fs): read faults map RO */
	WP_SOFT_DIRTY, /* clear_refs 4: soft-dirty tracking (x86) */
	WP_UFFD,       /* UFFDIO_WRITEPROTECT with UFFD_FEATURE_EVENT_REMAP */
};

struct shape;
/* One measured attempt of a scenario: set up, trigger, judge. */
typedef int (*measure_fn)(struct pc_scenario_ctx *ctx, const struct shape *sh,
			  struct pc_attempt *a);

struct shape {
	enum backing backing;
	size_t full_len; /* before scaling */
	size_t min_len;
	size_t align;	    /* length granule */
	size_t src_off;	    /* source start past a 2 MiB boundary */
	size_t dst_off;	    /* destination of the moved range past a 2 MiB boundary */
	size_t head, tail;  /* bytes left unmoved at each end (partial moves) */
	int advice;	    /* MADV_HUGEPAGE, MADV_NOHUGEPAGE or 0 */
	bool folio_check;   /* judge folio-intact */
	bool want_large;    /* folio-intact needs large folios to mean anything */
	bool read_fault;    /* the source is faulted in by reads, not filled by writes */
	bool pte_dirty;	    /* then mr_pte_dirty_page()s written through the clean PTEs */
	bool form_aligned;  /* src_off is off the folios' alignment: form them first through
			       an aligned mapping (a fault there would map small pages) */
	bool shrink;	    /* folio-intact judged after the deferred-split shrinker */
	enum wprotect wp;   /* perms scenarios: how PTEs become read-only */
	bool uffd_remap;    /* markers: the userfaultfd has UFFD_FEATURE_EVENT_REMAP */
	measure_fn measure; /* what the scenario does with the mapping */
};

/* The measurements (mremap_move.c, mremap_probes.c). */
int mr_measure_move(struct pc_scenario_ctx *ctx, const struct shape *sh, struct pc_attempt *a);
int mr_measure_fork(struct pc_scenario_ctx *ctx, const struct shape *sh, struct pc_attempt *a);
int mr_measure_dirty(struct pc_scenario_ctx *ctx, const struct shape *sh, struct pc_attempt *a);
int mr_measure_young(struct pc_scenario_ctx *ctx, const struct shape *sh, struct pc_attempt *a);
int mr_measure_perms(struct pc_scenario_ctx *ctx, const struct shape *sh, struct pc_attempt *a);
/* The perms states without a move (mremap_cow.c, mremap_perms_mprotect.c). */
int mr_measure_fork_cow(struct pc_scenario_ctx *ctx, const struct shape *sh, struct pc_attempt *a);
int mr_measure_mprotect(struct pc_scenario_ctx *ctx, const struct shape *sh, struct pc_attempt *a);
/* Pages and uffd-wp markers moved, with or without remap events
   (mremap_markers.c). */
int mr_measure_markers(struct pc_scenario_ctx *ctx, const struct shape *sh, struct pc_attempt *a);
/* A source partly paged out to swap, moved, read back (mremap_swap.c). */
int mr_measure_swapped(struct pc_scenario_ctx *ctx, const struct shape *sh, struct pc_attempt *a);

/* The shape's own measure, as pc_attempts_run calls it (mremap.c). */
int mr_measure_shape(struct pc_scenario_ctx *ctx, const void *data, struct pc_attempt *a);
/* The shape's attempts with a swap to page out to: the one on, else a zram
   swap added for the scenario and removed after it (mremap_swap.c). */
int mr_run_swapped(struct pc_scenario_ctx *ctx, const void *data);

/* ---- placement (mremap_place.c) ---------------------------------------- */

struct place {
	struct pc_resv resv;
	char *src, *dst;
	size_t len;
};

/* The 64 KiB mTHP allocation counter, read before a measurement. */
struct mthp_count {
	const char *name; /* "anon_fault_alloc", "shmem_alloc" */
	bool ok;	  /* read */
	__u64 before;
};

/* The shape's length at the context's scale. */
size_t mr_len(const struct pc_scenario_ctx *ctx, const struct shape *sh);
/* npages pages at p, page first + i holding pc_page_byte(first + i, salt). */
void mr_fill_pages(char *p, size_t first, size_t npages, __u8 salt);
/* Reads one byte of each of npages pages at p (read faults). */
void mr_read_pages(const char *p, size_t npages);
/*
 * The pages a pte_dirty shape writes after reading them in: one of each
 * 64 KiB folio, by turns its last, its second and a middle one (15, 1, 7),
 * so that a batch keeping only its first PTE's dirty bit, or losing one
 * position's, leaves a folio whose only dirty entry is lost; none of the
 * last folio (the eviction's control).
 */
bool mr_pte_dirty_page(size_t i, size_t npages);
/*
 * The source mapped (fd shared, or anonymous) in a fresh reservation and
 * filled with SALT_A (read instead with sh->read_fault, then the
 * mr_pte_dirty_page()s filled with sh->pte_dirty), the destination
 * reserved dst_off past a later 2 MiB boundary; counter read first, the
 * disturbance window open from before the source is mapped.  0, or
 * pc_skip_rest's -errno.
 */
int mr_source_map(struct pc_scenario_ctx *ctx, const struct shape *sh, struct pc_attempt *a,
		  struct place *pl, size_t dst_off, int fd, struct mthp_count *count);
void mr_place_release(struct place *pl);
/* mremap(MREMAP_FIXED) of [from, from + len) to to: 0 or -errno. */
int mr_move_fixed(char *from, size_t len, char *to);
/* A fresh memfd (B_SHMEM) or unlinked file in the tmpdir (B_FILE) of len
   bytes: the fd, or -errno. */
int mr_open_backing(const struct pc_scenario_ctx *ctx, enum backing b, size_t len);
/* An unlinked file of len bytes in dir: the fd, or -errno. */
int mr_open_file_in(const char *dir, size_t len);

/* ---- snapshots and their judgements (mremap_snap.c) ---------------------- */

struct snap {
	size_t n;
	__u64 *pm;
	struct pc_pte *pte;
	__u64 *pfn;
	__u32 *order;
	int order_err; /* 0, or -errno of the kpageflags walk */
	bool pfns_visible;
	/* At entry: what the moved VMA lets the kernel change (PC_MOVE_*,
	   ptecheck/mremap.h), as the scenario set it up. */
	__u32 move;
};

/* A move's snapshots: the range at entry, where it went, what it left. */
struct move_snaps {
	struct snap before, after, vacated;
};

enum folios_seen {
	FOLIOS_UNKNOWN,	   /* neither kpageflags nor mTHP stats readable */
	FOLIOS_NONE,	   /* kpageflags: no large folio in the range */
	FOLIOS_LARGE,	   /* kpageflags: some pages in large folios */
	FOLIOS_STATS_NONE, /* global 64 KiB stats did not move */
	FOLIOS_STATS_SOME, /* global 64 KiB stats moved (not proof: global) */
};

int mr_snap_alloc(struct snap *s, size_t n);
void mr_snap_free(struct snap *s);
/* Pagemap of the range; folio orders too when asked and possible. */
int mr_snap_take(struct snap *s, const struct pc_scenario_ctx *ctx, const char *addr, bool orders);
/* The three snapshots of n pages each: 0 or -ENOMEM. */
int mr_move_snaps_alloc(struct move_snaps *m, size_t n);
void mr_move_snaps_free(struct move_snaps *m);
/*
 * The measured point: snapshots right before and right after moving len
 * bytes from from to to, then of the old range re-reserved (so stale PTEs
 * would show).  0 or -errno; *moved says whether the move itself was done.
 */
int mr_move_snapped(const struct pc_scenario_ctx *ctx, struct move_snaps *m, char *from, size_t len,
		    char *to, bool orders_before, bool orders_after, bool *moved);

const char *mr_folios_text(enum folios_seen f);
/* Kpageflags orders when readable, else the global mTHP allocation counter. */
enum folios_seen mr_folios_formed(const struct snap *s, const struct mthp_count *count);
bool mr_no_large(enum folios_seen f);

/* mremap/moved of the move's snapshots into slot (vacated judged unless NULL). */
void mr_judge_moved(struct pc_attempt *a, int slot, const struct snap *before,
		    const struct snap *after, const struct snap *vacated, __u64 old_addr,
		    __u64 new_addr);
/* mremap/folio-intact into slot: the folio orders before and after. */
void mr_judge_folios(struct pc_attempt *a, int slot, bool ctx_kpageflags, const struct snap *before,
		     const struct snap *after, bool want_large, __u64 old_addr, __u64 new_addr);

/* ---- COW isolation (mremap_cow.c; the child: verify/sharer.h) ---------- */

/*
 * mremap/perms [oracle:cow] into slot: seen[i] (the other process's view
 * of page i) against expected[i]; shared: the pages shared with the child
 * `when` ("at the move"), none making the probe inconclusive (a retry).
 */
void mr_judge_cow(struct pc_attempt *a, int slot, const __u8 *expected, const __u8 *seen,
		  size_t npages, size_t shared, __u64 addr, const char *when, enum folios_seen fs);
/*
 * mremap/folio-intact into slot after the deferred-split shrinker ran
 * (mremap_shrink.c): the orders at entry against the destination's then,
 * judged only where a split can have no other cause.
 */
void mr_judge_folios_shrunk(const struct pc_scenario_ctx *ctx, struct pc_attempt *a, int slot,
			    const struct move_snaps *ms, __u64 old_addr, __u64 new_addr);

#endif
