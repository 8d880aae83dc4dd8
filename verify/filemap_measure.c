// SPDX-License-Identifier: GPL-2.0
/*
 * One attempt of a filemap scenario: fill a fresh file, unmap what filled
 * it, map it again read-only in the shape's way, read-fault it in the
 * shape's pattern, then judge every slot (filemap_judge.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "filemap_int.h"
#include "shape.h"

static void slots_init(struct pc_scenario_ctx *ctx, const struct fm_shape *sh, struct pc_attempt *a)
{
	pc_slot_init(a, S_PTES, ctx, PC_CHK_FM_PTES_SET, TIER_PAGEMAP);
	pc_slot_init(a, S_DATA, ctx, PC_CHK_FM_PTES_SET, TIER_DATA);
	pc_slot_init(a, S_RSS, ctx, PC_CHK_FM_RSS, TIER_RSS);
	if (fm_eof_kind(sh->kind) || sh->kind == K_RANGE)
		pc_slot_init(a, S_BOUNDS, ctx, PC_CHK_FM_BOUNDS, TIER_PAGEMAP);
	if (fm_eof_kind(sh->kind))
		pc_slot_init(a, S_SIGBUS, ctx, PC_CHK_FM_BOUNDS, TIER_SIGBUS);
	if (sh->kind == K_SHARED)
		pc_slot_init(a, S_RMAP, ctx, PC_CHK_FM_RMAP, TIER_KPAGECOUNT);
}

/*
 * The file of len bytes, filled, and for K_EOF shrunk inside a folio.
 * 0; 1 when the backing is not available here (every slot skipped);
 * or pc_skip_rest's -errno.  The file is closed unless 0.
 */
static int file_prepare(const struct pc_scenario_ctx *ctx, struct pc_attempt *a, struct fm_run *r,
			size_t len)
{
	const struct fm_shape *sh = r->sh;
	const char *what = "open the file";
	char why[200];
	int ret = 1;

	if (ctx->crash_refused)
		snprintf(why, sizeof(why),
			 "may crash a kernel that carries the bug it looks for (a memory "
			 "corruption): runs with --dangerous, as in vmtest's guests");
	else
		ret = fm_file_open(ctx, sh, &r->f, why, sizeof(why));
	if (ret == 1) {
		for (int i = 0; i < a->n; i++)
			pc_slot_skip(a, i, "%s", why);
		fm_file_close(&r->f);
		return 1;
	}
	if (!ret) {
		what = "fill the file";
		ret = fm_file_fill(&r->f, sh, len);
	}
	if (!ret && (sh->kind == K_EOF || sh->deep)) {
		what = "vmsplice/ftruncate";
		ret = fm_file_truncate_pinned(&r->f, fm_shape_isize(sh, len));
	}
	if (ret) {
		fm_file_close(&r->f);
		return pc_skip_rest(a, what, -ret);
	}
	return 0;
}

/* K_PREMAPPED: map all, drop two in three (every 3rd page stays), then all. */
static int fault_premapped(struct pc_attempt *a, struct fm_run *r)
{
	struct fm_map *m = &r->m;
	int ret;

	fm_touch_range(a, m, 0, m->npages, r->touched);
	for (size_t i = 0; i < m->npages; i++)
		if (i % 3 && madvise(m->addr + i * PAGE, PAGE, MADV_DONTNEED))
			return pc_skip_rest(a, "MADV_DONTNEED", errno);
	ret = pc_pagemap_read(0, fm_va(m, 0), m->npages, m->premap);
	if (ret)
		return pc_skip_rest(a, "pagemap", -ret);
	for (size_t i = 0; i < m->npages; i++)
		m->premap[i] = i % 3 == 0 && (m->premap[i] & PC_PM_PRESENT)
				       ? m->premap[i] & PC_PM_PFN_MASK
				       : 0;
	fm_touch_range(a, m, 0, m->npages, r->touched);
	return 0;
}

/* The shape's faults; the window is open when it returns 0 (else -errno). */
static int fault(struct pc_scenario_ctx *ctx, struct pc_attempt *a, struct fm_run *r, size_t i_size,
		 const cpu_set_t *cpus)
{
	int ret;

	switch (r->sh->kind) {
	case K_PREMAPPED:
		return fault_premapped(a, r);
	case K_TRUNCATE:
		/* The file's copy and the touch map, megabytes in large folios
		   or not, are not the racer's to copy (pc_fork_copies). */
		pc_fork_copies(r->file, r->f.len, false);
		pc_fork_copies(r->touched, r->m.npages * sizeof(*r->touched), false);
		ret = fm_truncate_race(ctx, r->sh, &r->f, &r->m, i_size, cpus, &r->race);
		pc_fork_copies(r->file, r->f.len, true);
		pc_fork_copies(r->touched, r->m.npages * sizeof(*r->touched), true);
		if (ret)
			return pc_skip_rest(a, "truncate race", -ret);
		/* Quiescent from here: the last truncation left i_size. */
		pc_window_begin(ctx, &a->win, &a->disturbed);
		r->touch_to = DIV_UP(r->f.i_size, PAGE);
		fm_touch_range(a, &r->m, 0, r->touch_to, r->touched);
		return 0;
	default:
		fm_touch_range(a, &r->m, 0, r->touch_to, r->touched);
		return 0;
	}
}

/* Where the VMA lies in the file: past the populated length for EOF
   shapes (SIGBUS room), a part of it for K_RANGE. */
static void vma_extent(const struct fm_shape *sh, size_t len, size_t *moff, size_t *mlen)
{
	*moff = 0;
	*mlen = fm_eof_kind(sh->kind) ? len + FOLIO_64K : len;
	if (sh->kind == K_RANGE) {
		*moff = sh->map_off;
		*mlen = sh->map_len ? sh->map_len : len - *moff - sh->map_trim;
	}
}

/* Maps [moff, moff + mlen) of the file, faults it and snapshots the result.
   0 or pc_skip_rest's -errno. */
static int map_and_fault(struct pc_scenario_ctx *ctx, struct pc_attempt *a, struct fm_run *r,
			 size_t len, size_t moff, size_t mlen, const cpu_set_t *cpus)
{
	const struct fm_shape *sh = r->sh;
	int ret;

	(void)pc_status_rss_read(0, &r->rss0);
	/* The race splits folios itself: its window opens once it is over. */
	if (sh->kind != K_TRUNCATE)
		pc_window_begin(ctx, &a->win, &a->disturbed);
	if (pc_status_rss_read(0, &r->rss0))
		return pc_skip_rest(a, "/proc/self/status", EIO);
	ret = fm_map_place(&r->m, r->f.fd, moff, mlen, sh->va_off);
	if (ret)
		return pc_skip_rest(a, "mmap", -ret);
	r->touch_to = r->m.npages;
	if (fm_eof_kind(sh->kind))
		r->touch_to = DIV_UP(r->f.i_size, PAGE) - r->m.first_idx;
	ret = fault(ctx, a, r, fm_shape_isize(sh, len), cpus);
	if (ret)
		return ret;
	ret = fm_map_snapshot(ctx, &r->m, true);
	if (!ret)
		ret = pc_status_rss_read(0, &r->rss1);
	pc_window_end(ctx, &a->win, &a->disturbed);
	if (ret == -ESTALE) {
		a->retry = true;
		return pc_skip_rest(a, "kpageflags changed while read (split or reclaim)", ESTALE);
	}
	return ret ? pc_skip_rest(a, "pagemap/kpageflags/status", -ret) : 0;
}

int fm_measure(struct pc_scenario_ctx *ctx, const void *data, struct pc_attempt *a)
{
	struct fm_run r = {.sh = data, .f = {.fd = -1, .pin = {-1, -1}}};
	size_t len = pc_scaled_len(ctx, r.sh->full_len, r.sh->min_len, r.sh->granule), moff, mlen;
	struct pc_probe_handlers oldh;
	cpu_set_t oldmask;
	int ret;

	slots_init(ctx, r.sh, a);
	ret = file_prepare(ctx, a, &r, len);
	if (ret)
		return ret < 0 ? ret : 0;
	vma_extent(r.sh, len, &moff, &mlen);
	/* Before mlockall: resident and locked, no fault of ours in the window. */
	r.file = malloc(len);
	r.touched = calloc(mlen / PAGE, sizeof(*r.touched));
	if (!r.file || !r.touched) {
		ret = pc_skip_rest(a, "malloc", ENOMEM);
		goto out_file;
	}
	/* One CPU, so the LRU batches MADV_PAGEOUT drains are ours. */
	r.pinned = pc_pin_cpu(&oldmask);
	r.rss_ok = pc_rss_exact(&r.calib);
	/* Our own code resident and locked: only the test VMA takes file
	   faults (anonymous ones, the stack's, count in RssAnon). */
	r.locked = pc_mlock_file_maps() == 0;
	pc_probe_install(&oldh);
	ret = map_and_fault(ctx, a, &r, len, moff, mlen, r.pinned ? &oldmask : NULL);
	if (ret)
		goto out;
	fm_judge_rss(a, &r);
	fm_judge_ptes(ctx, a, &r);
	if (pc_slot_used(a, S_BOUNDS))
		fm_judge_bounds(a, ctx->have_kpageflags, &r);
	if (pc_slot_used(a, S_SIGBUS))
		fm_judge_sigbus(a, &r);
	ret = fm_judge_data(ctx, a, &r);
out:
	pc_window_end(ctx, &a->win, &a->disturbed);
	pc_probe_restore(&oldh);
	if (r.locked)
		munlockall();
	if (r.pinned)
		sched_setaffinity(0, sizeof(oldmask), &oldmask);
	fm_map_release(&r.m);
out_file:
	fm_file_close(&r.f);
	free(r.file);
	free(r.touched);
	return ret;
}
