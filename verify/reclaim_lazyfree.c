// SPDX-License-Identifier: GPL-2.0
/*
 * What reclaim's batched unmap keeps and takes (reclaim/dirty,
 * reclaim/rss).
 *
 * The state: 64 KiB (or 16 KiB) anonymous folios, every page written, the range read
 * back (whole folios), MADV_FREE over it (smaps LazyFree the whole range:
 * every PTE clean, every folio lazyfree), then one page of every even
 * folio (the pattern) written again: that PTE alone dirty; the odd folios
 * stay clean (the control).  MADV_PAGEOUT over the range, between two
 * reads of RssAnon and of pagemap:
 *  - reclaim/dirty [oracle:data-loss]: every written page reads back its
 *    byte: the batch saw the dirty entry and put the folio back.  The
 *    control folios must have been discarded (read 0), or the probe could
 *    not have seen a loss: a skip that says so, retried;
 *  - reclaim/rss [oracle:status-rss]: RssAnon fell by exactly the pages
 *    that left the range (present before, not after: discarded, or
 *    swapped out), where the counters read exactly (pc_rss_exact).
 * Between the two RSS reads the process does the page-out alone, so that
 * no page of its own enters the count.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include <ptecheck/reclaim.h>
#include "procmm.h"
#include "reclaim_int.h"
#include "shape.h"

#define OFF 500

struct rc_run {
	struct pc_range rg;
	struct pc_folios fo;
	size_t n, fp, p; /* pages, per folio, the dirty entry's index in a folio */
	__u64 *pm[2];	 /* pagemap before and after the page-out */
	struct pc_status_rss rss[2];
	struct pc_rss_calib calib;
	bool rss_exact;
};

static bool pattern(size_t folio)
{
	return folio % 2 == 0;
}

/* The page-out under test between two reads of pagemap and RssAnon, the
   first RSS read made twice (to fault in what it touches): 0 or -errno,
   *what the step. */
static int rc_pageout(struct rc_run *r, const char **what)
{
	__u64 base = (__u64)(uintptr_t)r->rg.base;
	int ret;

	*what = "pagemap";
	ret = pc_pagemap_read(0, base, r->n, r->pm[0]);
	if (ret)
		return ret;
	*what = "/proc/self/status";
	if (pc_status_rss_read(0, &r->rss[0]) || pc_status_rss_read(0, &r->rss[0]))
		return -EIO;
	*what = "MADV_PAGEOUT";
	if (madvise(r->rg.base, r->n * PAGE, MADV_PAGEOUT))
		return -errno;
	*what = "/proc/self/status";
	if (pc_status_rss_read(0, &r->rss[1]))
		return -EIO;
	*what = "pagemap";
	return pc_pagemap_read(0, base, r->n, r->pm[1]);
}

static void judge_rss(struct pc_attempt *a, int slot, const struct rc_run *r)
{
	struct pc_oracle_msg *m = &a->msg[slot];
	__s64 before = (__s64)(r->rss[0].anon_kb * KIB / PAGE);
	__s64 after = (__s64)(r->rss[1].anon_kb * KIB / PAGE);
	size_t taken = 0;
	int v;

	if (!r->rss_exact) {
		pc_skip_rss_inexact(a, slot, &r->calib);
		return;
	}
	for (size_t i = 0; i < r->n; i++)
		taken += (r->pm[0][i] & PC_PM_PRESENT) && !(r->pm[1][i] & PC_PM_PRESENT);
	v = pc_rss_fell_by(before, after, (__s64)taken);
	m->checked++;
	if (pc_is_violation(v))
		pc_oracle_add_evidence(m, v, (__u64)(uintptr_t)r->rg.base, 0, taken,
				       (__u64)(before - after),
				       "RssAnon of /proc/self/status after MADV_PAGEOUT, pages "
				       "taken by pagemap");
	pc_slot_judge(a, slot);
	pc_oracle_appendf(m,
			  "MADV_PAGEOUT: RssAnon -%lld pages, %zu left the range; %zu of %zu "
			  "folios (%zu KiB) whole",
			  (long long)(before - after), taken, r->fo.n_whole, r->n / r->fp,
			  r->fp * PAGE / KIB);
}

static void judge_dirty(struct pc_attempt *a, int slot, const struct rc_run *r)
{
	struct pc_oracle_msg *m = &a->msg[slot];
	size_t controls = 0, gone = 0, written = 0, lost = 0;

	for (size_t f = 0; f < r->n / r->fp; f++) {
		if (r->fo.whole[f] && !pattern(f)) {
			controls++;
			gone += r->rg.base[f * r->fp * PAGE + OFF] == 0;
		}
	}
	if (!gone) {
		pc_slot_skip(
			a, slot,
			"probe inconclusive: MADV_PAGEOUT discarded none of %zu clean lazyfree "
			"control folios, so a lost dirty bit would not show",
			controls);
		a->retry = true;
		return;
	}
	for (size_t f = 0; f < r->n / r->fp; f += 2) {
		size_t i = f * r->fp + r->p;
		__u8 want = pc_page_byte(i, SALT_B), seen;
		int v;

		if (!r->fo.whole[f])
			continue;
		written++;
		seen = (__u8)r->rg.base[i * PAGE + OFF];
		v = pc_written_survives(want, seen);
		m->checked++;
		if (pc_is_violation(v) && !lost++)
			pc_oracle_add_evidence(
				m, v, (__u64)(uintptr_t)(r->rg.base + i * PAGE), 0, want, seen,
				"page %zu (entry %zu of its folio) after MADV_PAGEOUT", i, r->p);
	}
	if (lost > 1)
		m->violations += lost - 1;
	pc_slot_judge(a, slot);
	pc_oracle_appendf(m,
			  "%zu written entries (entry %zu of each pattern folio) read back, %zu "
			  "lost; %zu of %zu control folios discarded",
			  written, r->p, lost, gone, controls);
}

int rc_measure_lazyfree(struct pc_scenario_ctx *ctx, const void *data, struct pc_attempt *a)
{
	const struct rc_scenario *sc = data;
	int s_dirty = pc_slot_add(a, ctx, PC_CHK_RECLAIM_DIRTY, TIER_DATA_LOSS);
	int s_rss = pc_slot_add(a, ctx, PC_CHK_RECLAIM_RSS, TIER_RSS);
	struct rc_run r = {.rg = {.fd = -1}};
	const char *what;
	int ret;

	r.fp = sc->kb * KIB / PAGE;
	r.n = pc_anon_mthp_pages(ctx, a, sc->kb, 2);
	if (!r.n)
		return 0;
	r.p = pc_pos_index(sc->pos, r.fp);
	r.pm[0] = calloc(r.n, sizeof(*r.pm[0]));
	r.pm[1] = calloc(r.n, sizeof(*r.pm[1]));
	if (!r.pm[0] || !r.pm[1] || pc_folios_alloc(&r.fo, r.n, r.fp)) {
		ret = pc_skip_rest(a, "calloc", ENOMEM);
		goto out;
	}
	r.rss_exact = pc_rss_exact(&r.calib);
	pc_window_begin(ctx, &a->win, &a->disturbed);
	ret = pc_lazyfree_pattern(ctx, a, &r.rg, &r.fo, r.p, OFF, sc->misaligned);
	/* The page-out is the operation under test and reclaim itself: the
	   window, which counts reclaim as a disturbance, ends before it. */
	pc_window_end(ctx, &a->win, &a->disturbed);
	if (!ret) {
		ret = rc_pageout(&r, &what);
		if (ret)
			ret = pc_skip_rest(a, what, -ret);
	}
	if (!ret) {
		judge_rss(a, s_rss, &r);
		judge_dirty(a, s_dirty, &r);
	}
out:
	pc_range_release(&r.rg);
	pc_folios_free(&r.fo);
	free(r.pm[0]);
	free(r.pm[1]);
	return ret < 0 ? ret : 0;
}
