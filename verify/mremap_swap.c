// SPDX-License-Identifier: GPL-2.0
/*
 * The mremap suite's swapped source: a range filled with known bytes, every
 * other 64 KiB of it paged out to swap, moved, read back.  move_ptes must
 * carry a swap entry along as it carries a present PTE: an entry it leaves
 * in the old range is zapped with it, and the page reads back as zeros.
 * The swap is the scenario's (swap.c: a zram device added for it, unless
 * some swap is on already).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "mremap_int.h"
#include "swap.h"

/* Every other 64 KiB block is paged out: the move meets swap entries and
   present PTEs in turn, whole folios of each. */
static bool paged_out(size_t page)
{
	return (page / PAGES_64K) % 2 == 0;
}

/* MADV_PAGEOUT of the paged_out() blocks of [p, p + npages pages): 0 or -errno. */
static int page_out_blocks(char *p, size_t npages)
{
	for (size_t i = 0; i < npages; i += PAGES_64K)
		if (paged_out(i) && madvise(p + i * PAGE, FOLIO_64K, MADV_PAGEOUT))
			return -errno;
	return 0;
}

static size_t count_swapped(const struct snap *s)
{
	size_t c = 0;

	for (size_t i = 0; i < s->n; i++)
		c += s->pte[i].kind == PC_PTE_SWAP;
	return c;
}

/* mremap/moved [oracle:data]: every page of the destination read back. */
static int judge_read_back(struct pc_attempt *a, int slot, const char *dst, size_t npages)
{
	__u8 *written = calloc(npages, 1), *seen = calloc(npages, 1);

	if (!written || !seen) {
		free(written);
		free(seen);
		return pc_skip_rest(a, "calloc", ENOMEM);
	}
	/* The reads swap the paged-out pages back in. */
	for (size_t i = 0; i < npages; i++) {
		written[i] = pc_page_byte(i, SALT_A);
		seen[i] = pc_block_seen((const __u8 *)dst + i * PAGE, PAGE, written[i], NULL);
	}
	pc_compare_written(written, seen, NULL, npages, (__u64)(uintptr_t)dst, PAGE, &a->msg[slot]);
	a->judged[slot] = true;
	free(written);
	free(seen);
	return 0;
}

/* The page-out is reclaim: the measured window restarts after it. */
static void window_restart(struct pc_scenario_ctx *ctx, struct pc_attempt *a)
{
	bool paging = false;

	pc_window_end(ctx, &a->win, &paging);
	a->disturbed = false;
	pc_window_begin(ctx, &a->win, &a->disturbed);
}

int mr_measure_swapped(struct pc_scenario_ctx *ctx, const struct shape *sh, struct pc_attempt *a)
{
	int s_moved = pc_slot_add(a, ctx, PC_CHK_MOVED, TIER_PAGEMAP);
	int s_data = pc_slot_add(a, ctx, PC_CHK_MOVED, TIER_DATA);
	struct mthp_count count = {"anon_fault_alloc"};
	size_t len = mr_len(ctx, sh), npages = len / PAGE, swapped;
	struct move_snaps ms = {0};
	struct place pl = {0};
	bool moved;
	int ret;

	if (pc_swap_why()[0]) {
		pc_skip_all(a, pc_swap_why());
		return -ENOENT;
	}
	if (mr_move_snaps_alloc(&ms, npages)) {
		ret = pc_skip_rest(a, "calloc", ENOMEM);
		goto out;
	}
	ret = mr_source_map(ctx, sh, a, &pl, sh->dst_off, -1, &count);
	if (ret)
		goto out;
	ret = page_out_blocks(pl.src, npages);
	if (ret) {
		ret = pc_skip_rest(a, "madvise(MADV_PAGEOUT)", -ret);
		goto out;
	}
	window_restart(ctx, a);
	ret = mr_move_snapped(ctx, &ms, pl.src, len, pl.dst, false, false, &moved);
	if (ret) {
		ret = pc_skip_rest(a, moved ? "pagemap after the move" : "pagemap/mremap", -ret);
		goto out;
	}
	swapped = count_swapped(&ms.before);
	if (swapped == 0) {
		/* Not judged: nothing was in swap, so nothing could be lost. */
		pc_skip_all(a, "MADV_PAGEOUT swapped out no page although swap is on");
		a->retry = true;
		goto out;
	}
	mr_judge_moved(a, s_moved, &ms.before, &ms.after, &ms.vacated, (__u64)(uintptr_t)pl.src,
		       (__u64)(uintptr_t)pl.dst);
	ret = judge_read_back(a, s_data, pl.dst, npages);
	for (int i = 0; !ret && i < a->n; i++)
		pc_oracle_appendf(&a->msg[i],
				  " (%zu of %zu pages in swap at the move, paged out %s)", swapped,
				  npages, pc_swap_text());
out:
	pc_window_end(ctx, &a->win, &a->disturbed);
	mr_place_release(&pl);
	mr_move_snaps_free(&ms);
	return ret;
}

int mr_run_swapped(struct pc_scenario_ctx *ctx, const void *data)
{
	int ret;

	pc_swap_begin();
	ret = pc_attempts_run(ctx, mr_measure_shape, data);
	pc_swap_end(ctx);
	return ret;
}
