// SPDX-License-Identifier: GPL-2.0
/*
 * mremap/folio-intact after the deferred-split shrinker.  A folio moved in
 * part stays fully mapped (across two VMAs), so nothing may queue it for
 * splitting as partially mapped; a move that does leaves it whole until the
 * shrinker runs.  The shrinker is run by writing 2 to drop_caches: the only
 * way userspace can (mm/vmscan.c drop_slab runs shrink_slab over every
 * memcg and node, deferred_split_scan among them; the debugfs shrinker
 * interface needs CONFIG_SHRINKER_DEBUG, memory.reclaim reclaims the pages
 * too).  It drops the reclaimable slab caches (dentries, inodes) of the
 * whole machine once per attempt: a cost, not a setting (docs/checks.md).
 *
 * The split under test is itself a disturbance (it unmaps the folio through
 * migration entries and moves the split counters), so this phase is judged
 * after the measured window, and attributed instead: no swap is on (without
 * swap reclaim cannot split an anonymous folio), and every page is present
 * at the same PFN after the shrinker as right after the move (migration,
 * collapse or a swap-out would change that).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "mremap_int.h"
#include "report.h"
#include "settings.h"
#include "swap.h"

#define DROP_CACHES "/proc/sys/vm/drop_caches"

/* Every page present at the same PFN in both snapshots. */
static bool same_pages(const struct snap *a, const struct snap *b)
{
	for (size_t i = 0; i < a->n; i++)
		if (a->pte[i].kind != PC_PTE_PRESENT || b->pte[i].kind != PC_PTE_PRESENT ||
		    a->pfn[i] != b->pfn[i])
			return false;
	return true;
}

/* Runs the shrinker, then snapshots the destination again: 0 or -errno
   with *what naming the step. */
static int shrink_and_snap(const struct pc_scenario_ctx *ctx, struct snap *s, const char *at,
			   const char **what)
{
	int swaps = pc_swaps_on(), err;

	*what = "/proc/swaps";
	if (swaps)
		return swaps < 0 ? swaps : -EBUSY;
	*what = "write 2 to " DROP_CACHES;
	err = pc_write_file(DROP_CACHES, "2");
	if (!err)
		*what = "pagemap/kpageflags after the shrinker";
	return err ? err : mr_snap_take(s, ctx, at, true);
}

void mr_judge_folios_shrunk(const struct pc_scenario_ctx *ctx, struct pc_attempt *a, int slot,
			    const struct move_snaps *ms, __u64 old_addr, __u64 new_addr)
{
	const char *what = "calloc";
	struct snap shrunk;
	int err = mr_snap_alloc(&shrunk, ms->after.n);

	if (!err)
		err = shrink_and_snap(ctx, &shrunk, (const char *)(uintptr_t)new_addr, &what);
	if (err == -EBUSY) {
		pc_slot_skip(a, slot,
			     "swap is on: reclaim could split the folios as the shrinker runs, so "
			     "a split would prove nothing");
	} else if (err) {
		pc_slot_skip(a, slot, "could not run: %s: %s", what, strerror(-err));
	} else if (!same_pages(&ms->after, &shrunk)) {
		pc_slot_skip(a, slot,
			     "pages left or changed PFN during the shrinker (reclaim, migration): "
			     "not judged");
		a->retry = true;
	} else {
		mr_judge_folios(a, slot, ctx->have_kpageflags, &ms->before, &shrunk, true, old_addr,
				new_addr);
		if (a->judged[slot] && a->msg[slot].status != PC_STATUS_SKIP)
			pc_oracle_appendf(&a->msg[slot],
					  " (after the deferred-split shrinker: drop_caches 2)");
	}
	mr_snap_free(&shrunk);
}
