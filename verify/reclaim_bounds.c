// SPDX-License-Identifier: GPL-2.0
/*
 * Reclaim of a lazyfree folio mapped across two VMAs (reclaim/bounds, the
 * kernel tier's; reclaim/rss, the oracle's).
 *
 * The state (ddd05742b45b's): 64 KiB anonymous folios, every page written
 * and the range read back (whole folios); MADV_FREE over the range (smaps
 * LazyFree all of it); then MADV_RANDOM over entries 8 to 15 of each whole
 * folio: a VMA flag alone, so each folio lies across a VMA boundary with
 * its PTEs untouched (smaps: the VMA at the range's start ends 8 pages in,
 * the split made).  MADV_PAGEOUT cannot take such a folio whole (it splits
 * a folio its range covers in part), so LRU reclaim does, in rounds until
 * every page of the whole folios has left: each VMA's try_to_unmap_one
 * must unmap only its own half, which the hook tier at try_to_unmap_one
 * judges (a batch bounded by the folio alone, before the fix, took the
 * other VMA's half too).  The reclaim is a memory cgroup's of the
 * scenario's own (lib/memcg.c: entered before the folios are faulted, so
 * they are nearly all its LRU holds); where there is none (no cgroup v2
 * memory controller), the node's (pc_node_reclaim), where page cache of
 * anyone goes first: the summary names which, and why the fallback.
 * Judged here: reclaim/rss [oracle:status-rss], RssAnon fell by exactly the
 * pages that left, where RSS reads exactly.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include <ptecheck/reclaim.h>
#include "memcg.h"
#include "procmm.h"
#include "reclaim_int.h"
#include "shape.h"

#define OFF	       900
#define RB_ROUNDS      8
#define RB_ROUND_BYTES (32 * MIB)

struct rb_run {
	struct pc_range rg;
	struct pc_folios fo;
	size_t n, fp, rounds;
	__u64 *pm;
	struct pc_status_rss rss[2];
	struct pc_rss_calib calib;
	bool rss_exact;
	bool memcg;	   /* the reclaim is a memory cgroup's of its own */
	char nomemcg[200]; /* why not */
};

/* The state up to the VMA split.  0, 1 when not made (slots skipped), or
   pc_skip_rest's. */
static int rb_state(struct pc_scenario_ctx *ctx, struct pc_attempt *a, struct rb_run *r)
{
	struct pc_smaps sm;
	int ret = pc_range_map_64k(ctx, a, &r->rg, &r->fo, OFF);

	if (ret)
		return ret;
	ret = pc_madv_free_whole(a, r->rg.base, r->n);
	if (ret)
		return ret;
	for (size_t f = 0; f < r->n / r->fp; f++)
		if (r->fo.whole[f] && madvise(r->rg.base + (f * r->fp + r->fp / 2) * PAGE,
					      r->fp / 2 * PAGE, MADV_RANDOM))
			return pc_skip_rest(a, "madvise(MADV_RANDOM)", errno);
	ret = pc_smaps_read(0, (__u64)(uintptr_t)r->rg.base, &sm);
	if (ret)
		return pc_skip_rest(a, "smaps", -ret);
	if (r->fo.whole[0] && sm.end != (__u64)(uintptr_t)(r->rg.base + r->fp / 2 * PAGE)) {
		pc_skip_all(a, "MADV_RANDOM did not split the VMA at the first folio's middle "
			       "(smaps)");
		return 1;
	}
	return 0;
}

/* One round of reclaim: the cgroup's, or the node's.  0 or -errno, why set. */
static int rb_round(struct rb_run *r, char *why, size_t why_len)
{
	if (r->memcg)
		return pc_memcg_reclaim(2 * r->n * PAGE, why, why_len);
	return pc_node_reclaim(r->rg.base, RB_ROUND_BYTES, why, why_len);
}

/* Reclaim until no page of a whole folio is present.  0, 1 when there is no node reclaim
   or it did not reach the folios (slots skipped), or pc_skip_rest's. */
static int rb_reclaim(struct pc_attempt *a, struct rb_run *r)
{
	char why[400];
	int ret;

	if (pc_status_rss_read(0, &r->rss[0]) || pc_status_rss_read(0, &r->rss[0]))
		return pc_skip_rest(a, "/proc/self/status", EIO);
	for (r->rounds = 1; r->rounds <= RB_ROUNDS; r->rounds++) {
		size_t present = 0;

		ret = rb_round(r, why, sizeof(why));
		if (!r->memcg && (ret == -ENOENT || ret == -EACCES || ret == -EPERM)) {
			char msg[400];

			snprintf(msg, sizeof(msg), "%s (and no memory cgroup of its own: %s)", why,
				 r->nomemcg);
			pc_skip_all(a, msg);
			return 1;
		}
		if (ret)
			return pc_skip_rest(a, why, -ret);
		ret = pc_pagemap_read(0, (__u64)(uintptr_t)r->rg.base, r->n, r->pm);
		if (ret)
			return pc_skip_rest(a, "pagemap", -ret);
		for (size_t i = 0; i < r->n; i++)
			present += r->fo.whole[i / r->fp] && (r->pm[i] & PC_PM_PRESENT);
		if (!present)
			break;
	}
	if (pc_status_rss_read(0, &r->rss[1]))
		return pc_skip_rest(a, "/proc/self/status", EIO);
	if (r->rounds <= RB_ROUNDS)
		return 0;
	if (r->memcg)
		snprintf(why, sizeof(why),
			 "probe inconclusive: the reclaim of a memory cgroup of its own left "
			 "lazyfree folios present in %d rounds",
			 RB_ROUNDS);
	else
		snprintf(why, sizeof(why),
			 "probe inconclusive: the node's reclaim did not reach the lazyfree "
			 "folios in its rounds (other page cache came first; no memory cgroup "
			 "of its own: %.200s)",
			 r->nomemcg);
	pc_skip_all(a, why);
	return 1;
}

static void judge_rss(struct pc_attempt *a, int slot, const struct rb_run *r)
{
	struct pc_oracle_msg *m = &a->msg[slot];
	__s64 before = (__s64)(r->rss[0].anon_kb * KIB / PAGE);
	__s64 after = (__s64)(r->rss[1].anon_kb * KIB / PAGE);
	__s64 taken = 0;
	int v;

	/* Every page was present (written) before: those not now left. */
	for (size_t i = 0; i < r->n; i++)
		taken += !(r->pm[i] & PC_PM_PRESENT);

	if (!r->rss_exact) {
		pc_skip_rss_inexact(a, slot, &r->calib);
		return;
	}
	v = pc_rss_fell_by(before, after, taken);
	m->checked++;
	if (pc_is_violation(v))
		pc_oracle_add_evidence(
			m, v, (__u64)(uintptr_t)r->rg.base, 0, (__u64)taken,
			(__u64)(before - after),
			"RssAnon of /proc/self/status after the node's reclaim, pages "
			"no longer present by pagemap");
	pc_slot_judge(a, slot);
	if (r->memcg)
		pc_oracle_appendf(m, "the reclaim of a memory cgroup of its own (%zu round(s))",
				  r->rounds);
	else
		pc_oracle_appendf(m,
				  "node reclaim (%zu round(s) of %zu MiB; no memory cgroup of "
				  "its own: %s)",
				  r->rounds, (size_t)(RB_ROUND_BYTES / MIB), r->nomemcg);
	pc_oracle_appendf(m,
			  ": RssAnon -%lld pages, %lld pages left the range; %zu whole folios "
			  "each across two VMAs",
			  (long long)(before - after), (long long)taken, r->fo.n_whole);
}

int rc_measure_bounds(struct pc_scenario_ctx *ctx, const void *data, struct pc_attempt *a)
{
	const struct rc_scenario *sc = data;
	int s_rss = pc_slot_add(a, ctx, PC_CHK_RECLAIM_RSS, TIER_RSS);
	struct rb_run r = {.rg = {.fd = -1}};
	cpu_set_t oldmask;
	bool pinned = false;
	int ret;

	r.fp = sc->kb * KIB / PAGE;
	r.n = pc_anon_mthp_pages(ctx, a, sc->kb, 1);
	if (!r.n)
		return 0;
	r.pm = calloc(r.n, sizeof(*r.pm));
	if (!r.pm || pc_folios_alloc(&r.fo, r.n, r.fp)) {
		ret = pc_skip_rest(a, "calloc", ENOMEM);
		goto out;
	}
	r.rss_exact = pc_rss_exact(&r.calib);
	/* One CPU throughout: MADV_FREE leaves the folios in this CPU's
	   lazyfree batch, which reclaim drains only where it runs. */
	pinned = pc_pin_cpu(&oldmask);
	/* Before the folios are faulted: a page is charged where it was
	   faulted, whatever cgroup its process moves to later. */
	r.memcg = !pc_memcg_enter(r.nomemcg, sizeof(r.nomemcg));
	pc_window_begin(ctx, &a->win, &a->disturbed);
	ret = rb_state(ctx, a, &r);
	/* The reclaim is the operation under test: the window ends first. */
	pc_window_end(ctx, &a->win, &a->disturbed);
	if (!ret)
		ret = rb_reclaim(a, &r);
	if (!ret)
		judge_rss(a, s_rss, &r);
out:
	if (pinned)
		sched_setaffinity(0, sizeof(oldmask), &oldmask);
	pc_range_release(&r.rg);
	if (r.memcg)
		pc_memcg_leave();
	pc_folios_free(&r.fo);
	free(r.pm);
	return ret < 0 ? ret : 0;
}
