// SPDX-License-Identifier: GPL-2.0
/*
 * What reclaim puts back when it cannot discard a lazyfree batch
 * (reclaim/write): each entry with the write permission it had.
 *
 * The state (29f40594a281's, over every folio and position): 64 KiB
 * anonymous folios, every page filled and the range read back (whole
 * folios); every page but entry p of each folio left out of a fork
 * (MADV_DONTFORK), so that entry p alone is write-protected in the parent
 * and its page no longer exclusive; MADV_DOFORK to merge the VMAs again;
 * the state read back by pagemap with the child alive (entry p present
 * and shared, the others exclusive), then the child gone: the folio is
 * the parent's alone, so MADV_PAGEOUT takes it (it
 * passes over a folio another process maps).  Then MADV_FREE over the
 * range (smaps LazyFree all of it), entry 0 of each folio written again
 * (writable: its PTE dirty), and
 * MADV_PAGEOUT over the range: the batch is dirty, so reclaim cannot
 * discard it and puts it back (set_ptes with the batch's value), which
 * makes the folio swap-backed again: smaps LazyFree no longer counts it,
 * the proof that reclaim put it back and did not pass it over.  Judged,
 * on the folios whose entry p is back at the same PFN:
 *  - reclaim/write [oracle:write-fault]: a write to entry p faults
 *    (pc_write_faulted): the page is not exclusive, the kernel maps it
 *    read-only until a write fault reuses or copies it.
 * A batch that spans entries of both write permissions puts them back
 * with its first entry's, writable: entry p writable (the kernel tiers
 * see the writable PTE of a page not exclusive).  p is never first: a
 * correct kernel ends the batch at entry 0 and may discard it on its own
 * (it is clean), leaving nothing put back to judge.  The page-out is reclaim: the
 * disturbance window ends before it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <ptecheck/mremap.h>
#include <ptecheck/reclaim.h>
#include "oracle_compare.h"
#include "procmm.h"
#include "reclaim_int.h"
#include "shape.h"
#include "sharer.h"

#define OFF 0

struct rr_run {
	struct pc_range rg;
	struct pc_folios fo;
	size_t n, fp, p; /* pages, per folio, the entry left shared (never 0) */
	enum pc_pos pos; /* p's name */
	__u64 *pm;	 /* pagemap after the fork, then after the page-out */
	__u32 *faults;	 /* entry p's write faults, per folio */
	bool *back;	 /* per folio: entry p back at its PFN after the page-out */
	size_t n_back;
};

static int rr_alloc(struct rr_run *r)
{
	size_t folios = r->n / r->fp;

	r->pm = calloc(r->n, sizeof(*r->pm));
	r->faults = calloc(folios, sizeof(*r->faults));
	r->back = calloc(folios, sizeof(*r->back));
	return r->pm && r->faults && r->back && !pc_folios_alloc(&r->fo, r->n, r->fp) ? 0 : -ENOMEM;
}

static void rr_free(struct rr_run *r)
{
	pc_range_release(&r->rg);
	pc_folios_free(&r->fo);
	free(r->pm);
	free(r->faults);
	free(r->back);
}

/* MADV_DONTFORK over folio f but its entry p (a folio not whole: all of
   it, judged by no one).  0 or -errno. */
static int rr_leave_out(struct rr_run *r, size_t f)
{
	char *f0 = r->rg.base + f * r->fp * PAGE;

	if (!r->fo.whole[f])
		return madvise(f0, r->fp * PAGE, MADV_DONTFORK) ? -errno : 0;
	if (r->p && madvise(f0, r->p * PAGE, MADV_DONTFORK))
		return -errno;
	if (r->p + 1 < r->fp &&
	    madvise(f0 + (r->p + 1) * PAGE, (r->fp - r->p - 1) * PAGE, MADV_DONTFORK))
		return -errno;
	return 0;
}

/* With the child alive: entry p of every whole folio present and shared
   (pagemap's exclusive bit clear: two mappings), the others exclusive.
   0, or 1 when not (slots skipped, retried). */
static int rr_forked(struct pc_attempt *a, struct rr_run *r)
{
	size_t wrong = 0;

	for (size_t f = 0; f < r->n / r->fp; f++) {
		for (size_t j = 0; r->fo.whole[f] && j < r->fp; j++) {
			__u64 e = r->pm[f * r->fp + j];
			bool excl = e & PC_PM_EXCLUSIVE;

			wrong += !(e & PC_PM_PRESENT) || (j == r->p ? excl : !excl);
		}
	}
	if (!wrong)
		return 0;
	pc_skip_all(a, "with the child alive, pagemap did not show entry p alone shared "
		       "(exclusive bits)");
	a->retry = true;
	return 1;
}

/* The state up to MADV_FREE and the dirtying write.  0, 1 when not made
   (slots skipped), or pc_skip_rest's. */
static int rr_state(struct pc_scenario_ctx *ctx, struct pc_attempt *a, struct rr_run *r)
{
	struct pc_sharer child = PC_SHARER_INIT;
	const char *what;
	int ret = pc_range_map_64k(ctx, a, &r->rg, &r->fo, OFF);

	if (ret)
		return ret;
	for (size_t f = 0; f < r->n / r->fp; f++) {
		ret = rr_leave_out(r, f);
		if (ret)
			return pc_skip_rest(a, "madvise(MADV_DONTFORK)", -ret);
	}
	/* The child lives until the pagemap is read: only then does its
	   exclusive bit (one mapping) tell which entries it shares. */
	ret = pc_sharer_start(&child, r->rg.base, r->n, NULL, &what);
	if (ret) {
		pc_sharer_stop(&child);
		return pc_skip_rest(a, what, -ret);
	}
	/* One VMA again, so that one batch spans the folio
	   (pc_lazyfree_whole reads the VMA at the base: it covers the range
	   only when merged). */
	what = "madvise(MADV_DOFORK)";
	ret = madvise(r->rg.base, r->n * PAGE, MADV_DOFORK) ? -errno : 0;
	if (!ret) {
		what = "pagemap";
		ret = pc_pagemap_read(0, (__u64)(uintptr_t)r->rg.base, r->n, r->pm);
	}
	pc_sharer_stop(&child); /* it exits: the folio is the parent's alone */
	if (ret)
		return pc_skip_rest(a, what, -ret);
	ret = rr_forked(a, r);
	if (ret)
		return ret;
	ret = pc_madv_free_whole(a, r->rg.base, r->n);
	if (ret)
		return ret;
	for (size_t f = 0; f < r->n / r->fp; f++) {
		size_t i = f * r->fp; /* entry 0: writable */

		if (r->fo.whole[f])
			r->rg.base[i * PAGE + OFF] = (char)pc_page_byte(i, SALT_A);
	}
	return 0;
}

/* The page-out, then which folios have entry p back at its PFN, no longer
   lazyfree.  0, 1 when none (slots skipped, retried), or pc_skip_rest's. */
static int rr_pageout(struct pc_attempt *a, struct rr_run *r)
{
	struct pc_smaps sm;
	int ret;

	if (madvise(r->rg.base, r->n * PAGE, MADV_PAGEOUT))
		return pc_skip_rest(a, "madvise(MADV_PAGEOUT)", errno);
	ret = pc_pagemap_read(0, (__u64)(uintptr_t)r->rg.base, r->n, r->pm);
	if (ret)
		return pc_skip_rest(a, "pagemap", -ret);
	for (size_t f = 0; f < r->n / r->fp; f++) {
		size_t i = f * r->fp + r->p;

		r->back[f] = r->fo.whole[f] && (r->pm[i] & PC_PM_PRESENT) &&
			     (r->pm[i] & PC_PM_PFN_MASK) == r->fo.pfns[i];
		r->n_back += r->back[f];
	}
	ret = pc_smaps_read(0, (__u64)(uintptr_t)r->rg.base, &sm);
	if (ret)
		return pc_skip_rest(a, "smaps", -ret);
	if (r->n_back && sm.lazyfree_kb * KIB <= (r->n - r->n_back * r->fp) * PAGE)
		return 0;
	pc_skip_all(a, r->n_back ? "probe inconclusive: the folios are still lazyfree after "
				   "MADV_PAGEOUT (smaps LazyFree): reclaim passed them over"
				 : "probe inconclusive: reclaim put no dirty lazyfree batch back "
				   "(entry p not at its PFN after MADV_PAGEOUT)");
	a->retry = true;
	return 1;
}

static void judge(struct pc_attempt *a, int slot, const struct rr_run *r)
{
	struct pc_oracle_msg *m = &a->msg[slot];

	for (size_t f = 0; f < r->n / r->fp; f++) {
		size_t i = f * r->fp + r->p;
		int v;

		if (!r->back[f])
			continue;
		v = pc_write_faulted(true, r->faults[f]);
		m->checked++;
		if (pc_is_violation(v))
			pc_oracle_add_evidence(
				m, v, (__u64)(uintptr_t)(r->rg.base + i * PAGE), 0, 1, r->faults[f],
				"folio %zu entry %zu, not exclusive since fork, written "
				"after reclaim put its batch back",
				f, r->p);
	}
	pc_slot_judge(a, slot);
	pc_oracle_appendf(m,
			  "%zu of %zu folios whole, %zu with entry %zu (%s) alone not exclusive "
			  "put back by reclaim, entry 0 dirtied",
			  r->fo.n_whole, r->n / r->fp, r->n_back, r->p, pc_pos_name(r->pos));
}

int rc_measure_restore(struct pc_scenario_ctx *ctx, const void *data, struct pc_attempt *a)
{
	const struct rc_scenario *sc = data;
	int slot = pc_slot_add(a, ctx, PC_CHK_RECLAIM_WRITE, TIER_WRITE_FAULT);
	struct rr_run r = {.rg = {.fd = -1}};
	int ret;

	r.fp = sc->kb * KIB / PAGE;
	r.n = pc_anon_mthp_pages(ctx, a, sc->kb, 1);
	if (!r.n)
		return 0;
	r.pos = sc->pos;
	r.p = pc_pos_index(sc->pos, r.fp);
	if (rr_alloc(&r)) {
		ret = pc_skip_rest(a, "calloc", ENOMEM);
		goto out;
	}
	pc_window_begin(ctx, &a->win, &a->disturbed);
	ret = rr_state(ctx, a, &r);
	/* The page-out is reclaim itself: the window ends before it. */
	pc_window_end(ctx, &a->win, &a->disturbed);
	if (!ret)
		ret = rr_pageout(a, &r);
	for (size_t f = 0; !ret && f < r.n / r.fp; f++) {
		size_t i = f * r.fp + r.p;

		if (r.back[f])
			r.faults[f] = (__u32)pc_write_faults(r.rg.base + i * PAGE,
							     (char)pc_page_byte(i, SALT_B));
	}
	if (!ret)
		judge(a, slot, &r);
out:
	rr_free(&r);
	return ret < 0 ? ret : 0;
}
