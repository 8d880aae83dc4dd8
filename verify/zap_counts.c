// SPDX-License-Identifier: GPL-2.0
/*
 * What a zap takes off the counters (zap/rss, zap/rmap).
 *
 * The state: large folios (64 KiB mTHP, anonymous or shmem; or a file on
 * the block filesystem written in 64 KiB pieces, its folios the
 * filesystem's), every page written, the folios read back (those formed
 * whole are the ones that batch; the summary says how many of how many).
 * The clean shapes are only read: a fresh memfd's holes, which a read
 * fault allocates clean (pc_range_map_clean), or the fsync'd file; their
 * folios read clean by kpageflags before the zap (a fault maps a dirty
 * folio's PTEs dirty even on a read: set_pte_range), a dirty one left out
 * and counted.  Then munmap or
 * MADV_DONTNEED of the range, or of the range less half a folio at each
 * end (batches of half a folio there).  Judged:
 *  - zap/rss [oracle:status-rss]: RssAnon or RssShmem of /proc/self/status
 *    fell by exactly the pages present in the range (pc_rss_fell_by), and
 *    for the swapped shape (every other folio paged out first) VmSwap by
 *    exactly the swap entries in it, where
 *    the counters read exactly (pc_rss_exact; skip saying so otherwise).
 *    Between the two reads the process does the zap alone, at one call
 *    depth, so that no page of its own (stack, heap) enters the count;
 *  - zap/rmap [oracle:kpagecount] (shmem, files: the page cache keeps the folios
 *    after the unmap, anonymous ones are freed): every page of every
 *    whole folio the range held entirely is mapped 0 times after
 *    (pc_zap_unmapped), read by the PFNs pagemap gave before.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/kernel-page-flags.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <ptecheck/zap.h>
#include "procmm.h"
#include "shape.h"
#include "swap.h"
#include "zap_int.h"

#define OFF 200

struct zap_run {
	const struct zap_scenario *sc;
	struct pc_range rg;
	size_t n, fp;
	size_t from, to; /* the zapped pages: [from, to) */
	size_t zapped;	 /* of them, present before */
	size_t swapped;	 /* of them, swap entries before */
	struct pc_folios fo;
	struct pc_status_rss rss[2];
	struct pc_rss_calib calib;
	bool rss_exact;
	char fs[128];	  /* the file shape's filesystem, as found */
	size_t dirty_out; /* clean shapes: whole folios read dirty, not judged */
};

static const char *const op_names[] = {[ZAP_MUNMAP] = "munmap", [ZAP_DONTNEED] = "MADV_DONTNEED"};

/* The zap under test, between two reads of the RSS counters made at the
   same call depth (the first read once before, to fault in what it
   touches): 0 or -errno, *what the step. */
static int zap_do(struct zap_run *r, const char **what)
{
	char *from = r->rg.base + r->from * PAGE;
	size_t len = (r->to - r->from) * PAGE;
	int ret;

	*what = "/proc/self/status";
	if (pc_status_rss_read(0, &r->rss[0]) || pc_status_rss_read(0, &r->rss[0]))
		return -EIO;
	*what = op_names[r->sc->op];
	ret = r->sc->op == ZAP_MUNMAP ? munmap(from, len) : madvise(from, len, MADV_DONTNEED);
	if (ret)
		return -errno;
	*what = "/proc/self/status";
	return pc_status_rss_read(0, &r->rss[1]) ? -EIO : 0;
}

static __u64 rss_pages(const struct zap_run *r, int k)
{
	const struct zap_shape *sh = r->sc->shape;

	return (sh->file    ? r->rss[k].file_kb
		: sh->shmem ? r->rss[k].shmem_kb
			    : r->rss[k].anon_kb) /
	       (PAGE / KIB);
}

/* VmSwap: MM_SWAPENTS, which zap_nonpresent_ptes lowers by each batch's nr. */
static void judge_swap(struct pc_attempt *a, int slot, const struct zap_run *r)
{
	struct pc_oracle_msg *m = &a->msg[slot];
	__s64 before = (__s64)(r->rss[0].swap_kb / (PAGE / KIB)),
	      after = (__s64)(r->rss[1].swap_kb / (PAGE / KIB));
	int v = pc_rss_fell_by(before, after, (__s64)r->swapped);

	m->checked++;
	if (pc_is_violation(v))
		pc_oracle_add_evidence(
			m, v, (__u64)(uintptr_t)(r->rg.base + r->from * PAGE), 0, r->swapped,
			(__u64)(before - after),
			"VmSwap of /proc/self/status after %s, swap entries by pagemap",
			op_names[r->sc->op]);
	pc_oracle_appendf(m, "; VmSwap -%lld pages, %zu swap entries in the range (paged out %s)",
			  (long long)(before - after), r->swapped, pc_swap_text());
}

static void judge_rss(struct pc_attempt *a, int slot, const struct zap_run *r)
{
	struct pc_oracle_msg *m = &a->msg[slot];
	const char *counter = r->sc->shape->file    ? "RssFile"
			      : r->sc->shape->shmem ? "RssShmem"
						    : "RssAnon";
	__s64 before = (__s64)rss_pages(r, 0), after = (__s64)rss_pages(r, 1);
	int v;

	if (!r->rss_exact) {
		pc_skip_rss_inexact(a, slot, &r->calib);
		return;
	}
	v = pc_rss_fell_by(before, after, (__s64)r->zapped);
	m->checked++;
	if (pc_is_violation(v))
		pc_oracle_add_evidence(m, v, (__u64)(uintptr_t)(r->rg.base + r->from * PAGE), 0,
				       r->zapped, (__u64)(before - after),
				       "%s of /proc/self/status after %s, pages present by pagemap",
				       counter, op_names[r->sc->op]);
	pc_oracle_appendf(m,
			  "%s: %s -%lld pages, %zu present in the range; %zu of %zu folios "
			  "(%s%s%s) whole",
			  op_names[r->sc->op], counter, (long long)(before - after), r->zapped,
			  r->fo.n_whole, r->n / r->fp, r->sc->shape->what, r->fs[0] ? " on " : "",
			  r->fs);
	if (r->sc->shape->swapped)
		judge_swap(a, slot, r);
	pc_slot_judge(a, slot);
}

long zap_judge_unmapped(struct pc_attempt *a, int slot, const struct pc_folios *fo,
			const char *base, size_t from, size_t to, const char *after)
{
	struct pc_oracle_msg *m = &a->msg[slot];
	size_t fp = fo->fp;
	long folios = 0;
	__u64 counts[512];

	for (size_t f = 0; f < fo->n / fp; f++) {
		size_t i0 = f * fp;
		int ret;

		if (!fo->whole[f] || i0 < from || i0 + fp > to ||
		    fp > sizeof(counts) / sizeof(counts[0]))
			continue;
		ret = pc_kpagecount_read(fo->pfns[i0], fp, counts);
		if (ret)
			return pc_skip_rest(a, "kpagecount", -ret);
		folios++;
		for (size_t j = 0; j < fp; j++) {
			int v = pc_zap_unmapped(counts[j]);

			m->checked++;
			if (pc_is_violation(v))
				pc_oracle_add_evidence(
					m, v, (__u64)(uintptr_t)(base + (i0 + j) * PAGE), 0, 0,
					counts[j], "folio %zu page %zu, after %s", f, j, after);
		}
	}
	return folios;
}

/* Whole folios the range held entirely: every page mapped 0 times. */
static int judge_rmap(struct pc_attempt *a, int slot, const struct zap_run *r)
{
	long folios = zap_judge_unmapped(a, slot, &r->fo, r->rg.base, r->from, r->to,
					 op_names[r->sc->op]);

	if (folios < 0)
		return (int)folios;
	if (!folios) {
		pc_slot_skip(a, slot, "no whole folio lay entirely in the range");
		return 0;
	}
	pc_slot_judge(a, slot);
	pc_oracle_appendf(&a->msg[slot],
			  "%ld whole folios (%s%s%s) unmapped by %s, the page cache holding them",
			  folios, r->sc->shape->what, r->fs[0] ? " on " : "", r->fs,
			  op_names[r->sc->op]);
	if (r->sc->shape->clean)
		pc_oracle_appendf(&a->msg[slot], "; each read clean before (%zu dirty, left out)",
				  r->dirty_out);
	return 0;
}

long zap_folios_clean(struct pc_folios *fo)
{
	long dirty = 0;

	for (size_t f = 0; f < fo->n / fo->fp; f++) {
		__u64 flags = 0;
		int ret;

		if (!fo->whole[f])
			continue;
		ret = pc_kpageflags_read(fo->pfns[f * fo->fp], 1, &flags);
		if (ret)
			return ret;
		if (flags & PC_KPF(KPF_DIRTY)) {
			fo->whole[f] = false;
			fo->n_whole--;
			dirty++;
		}
	}
	return dirty;
}

/* The clean shapes' folios read clean before the zap (zap_folios_clean).
   0, 1 when none is (slots skipped, retried), or pc_skip_rest's. */
static int zap_clean_check(struct pc_attempt *a, struct zap_run *r)
{
	long dirty = zap_folios_clean(&r->fo);

	if (dirty < 0)
		return pc_skip_rest(a, "kpageflags", (int)-dirty);
	r->dirty_out = (size_t)dirty;
	if (r->fo.n_whole)
		return 0;
	pc_skip_all(a, ZAP_NOT_CLEAN);
	a->retry = true;
	return 1;
}

/* The swapped shape: every other whole folio paged out, and the range's
   pagemap read again.  The page-out is reclaim: the measured window
   restarts after it.  0, 1 when nothing went to swap (slots skipped,
   retried), or pc_skip_rest's. */
static int zap_swap_out(struct pc_scenario_ctx *ctx, struct pc_attempt *a, struct zap_run *r)
{
	bool paging = false;
	size_t swapped = 0;
	int ret;

	for (size_t f = 0; f < r->n / r->fp; f += 2)
		if (r->fo.whole[f] &&
		    madvise(r->rg.base + f * r->fp * PAGE, r->fp * PAGE, MADV_PAGEOUT))
			return pc_skip_rest(a, "madvise(MADV_PAGEOUT)", errno);
	pc_window_end(ctx, &a->win, &paging);
	a->disturbed = false;
	pc_window_begin(ctx, &a->win, &a->disturbed);
	ret = pc_pagemap_read(0, (__u64)(uintptr_t)r->rg.base, r->n, r->fo.pagemap);
	if (ret)
		return pc_skip_rest(a, "pagemap", -ret);
	for (size_t i = 0; i < r->n; i++)
		swapped += !!(r->fo.pagemap[i] & PC_PM_SWAP);
	if (swapped)
		return 0;
	pc_skip_all(a, "MADV_PAGEOUT swapped out no page although swap is on");
	a->retry = true;
	return 1;
}

/* The file shape's file on the block filesystem, made before the window
   (pc_range_file_create).  0, 1 when there is no block filesystem (slots
   skipped), or pc_skip_rest's. */
static int zap_file_create(struct pc_scenario_ctx *ctx, struct pc_attempt *a, struct zap_run *r)
{
	int ret = pc_range_file_for(ctx, a, &r->rg, r->n, r->fp, OFF, r->fs, sizeof(r->fs));

	if (ret > 0)
		r->fs[0] = 0;
	return ret;
}

/* The file mapped, its pages read, and written through the mapping
   unless clean.  0 or pc_skip_rest's. */
static int zap_file(struct pc_attempt *a, struct zap_run *r)
{
	const char *what;
	int ret = pc_range_map_file(&r->rg, r->n, OFF, &what);

	if (ret)
		return pc_skip_rest(a, what, -ret);
	if (!r->sc->shape->clean)
		for (size_t i = 0; i < r->n; i++)
			r->rg.base[i * PAGE + OFF] = (char)pc_page_byte(i, SALT_B);
	return 0;
}

/* 0, 1 when the state was not made (slots skipped), or pc_skip_rest's. */
static int zap_state(struct pc_scenario_ctx *ctx, struct pc_attempt *a, struct zap_run *r)
{
	const char *what;
	int ret;

	if (r->sc->shape->file) {
		ret = zap_file(a, r);
		if (ret)
			return ret;
	} else {
		ret = r->sc->shape->clean
			      ? pc_range_map_clean(&r->rg, r->n, &what)
			      : pc_range_map(&r->rg, r->n, r->sc->shape->shmem, OFF, &what);
		if (ret)
			return pc_skip_rest(a, what, -ret);
	}
	ret = pc_folios_read_for(a, ctx, &r->fo, r->rg.base, r->sc->shape->no_folio);
	if (!ret && r->sc->shape->clean)
		ret = zap_clean_check(a, r);
	if (!ret && r->sc->shape->swapped)
		ret = zap_swap_out(ctx, a, r);
	if (ret)
		return ret;
	r->from = r->sc->cut ? r->fp / 2 : 0;
	r->to = r->n - r->from;
	for (size_t i = r->from; i < r->to; i++) {
		r->zapped += !!(r->fo.pagemap[i] & PC_PM_PRESENT);
		r->swapped += !!(r->fo.pagemap[i] & PC_PM_SWAP);
	}
	return 0;
}

int zap_measure_counts(struct pc_scenario_ctx *ctx, const void *data, struct pc_attempt *a)
{
	const struct zap_scenario *sc = data;
	const struct zap_shape *sh = sc->shape;
	int s_rss = pc_slot_add(a, ctx, PC_CHK_ZAP_RSS, TIER_RSS);
	int s_rmap =
		sh->shmem || sh->file ? pc_slot_add(a, ctx, PC_CHK_ZAP_RMAP, TIER_KPAGECOUNT) : -1;
	struct zap_run r = {.sc = sc, .rg = {.fd = -1}, .fp = sh->folio_pages};
	const char *what;
	int ret;

	/* A file's folio sizes are the filesystem's and the writes', no mTHP
	   setting's. */
	if (!sh->file &&
	    !pc_mthp_on(ctx, a, sh->shmem, (unsigned int)(sh->folio_pages * PAGE / KIB)))
		return 0;
	if (sh->swapped && pc_swap_why()[0]) {
		pc_skip_all(a, pc_swap_why());
		return 0;
	}
	r.n = pc_scaled_len(ctx, sh->len, 4 * r.fp * PAGE, r.fp * PAGE) / PAGE;
	if (pc_folios_alloc(&r.fo, r.n, r.fp)) {
		ret = pc_skip_rest(a, "calloc", ENOMEM);
		goto out;
	}
	r.rss_exact = pc_rss_exact(&r.calib);
	ret = sh->file ? zap_file_create(ctx, a, &r) : 0;
	if (ret)
		goto out;
	pc_window_begin(ctx, &a->win, &a->disturbed);
	ret = zap_state(ctx, a, &r);
	if (!ret) {
		ret = zap_do(&r, &what);
		if (ret)
			ret = pc_skip_rest(a, what, -ret);
	}
	pc_window_end(ctx, &a->win, &a->disturbed);
	if (ret)
		goto out;
	judge_rss(a, s_rss, &r);
	if (s_rmap >= 0)
		ret = judge_rmap(a, s_rmap, &r);
out:
	pc_range_release(&r.rg);
	pc_folios_free(&r.fo);
	return ret < 0 ? ret : 0;
}
