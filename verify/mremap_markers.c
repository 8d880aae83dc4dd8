// SPDX-License-Identifier: GPL-2.0
/*
 * uffd-wp markers moved (docs/checks.md, "What a move may change").  Half
 * of an anonymous range is written, the other half left empty; the range
 * is registered for uffd-wp with UFFD_FEATURE_WP_UNPOPULATED and
 * write-protected, which leaves a uffd-wp marker in each empty PTE; then
 * it is moved.  Without UFFD_FEATURE_EVENT_REMAP the new VMA is not
 * registered, and mm/mremap.c move_ptes() drops the markers (v6.14+;
 * older kernels move them): mremap/moved allows exactly that.  With
 * remap events every marker must arrive where its PTE went: a kernel that
 * drops them anyway fails mremap/moved, here and in the kernel tiers.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <linux/userfaultfd.h>

#include "mremap_int.h"
#include "uffd.h"
#include "report.h"

/* Pages left empty before the write-protect: a marker each. */
static bool left_empty(size_t page)
{
	return page % 2 == 1;
}

static size_t count_markers(const struct snap *s)
{
	size_t c = 0;

	for (size_t i = 0; i < s->n; i++)
		c += s->pte[i].kind == PC_PTE_SWAP && s->pte[i].uffd_wp_marker;
	return c;
}

/* The empty half of [p, p + npages pages): 0 or -errno. */
static int empty_half(char *p, size_t npages)
{
	for (size_t i = 0; i < npages; i++)
		if (left_empty(i) && madvise(p + i * PAGE, PAGE, MADV_DONTNEED))
			return -errno;
	return 0;
}

/* Says what the move did with the markers, in every verdict's words. */
static void say_markers(struct pc_attempt *a, const struct shape *sh, size_t before, size_t after,
			size_t npages)
{
	for (int i = 0; i < a->n; i++)
		pc_oracle_appendf(
			&a->msg[i],
			" (%zu uffd-wp markers among %zu pages at the move, %zu after it; "
			"remap events %s: the kernel %s)",
			before, npages, after, sh->uffd_remap ? "on" : "off",
			after == before ? "moved them"
			: after == 0	? "dropped them"
					: "moved some");
}

int mr_measure_markers(struct pc_scenario_ctx *ctx, const struct shape *sh, struct pc_attempt *a)
{
	int s_moved = pc_slot_add(a, ctx, PC_CHK_MOVED, TIER_PAGEMAP);
	__u64 features =
		PC_UFFD_FEATURE_WP_UNPOPULATED | (sh->uffd_remap ? UFFD_FEATURE_EVENT_REMAP : 0);
	struct mthp_count count = {"anon_fault_alloc"};
	size_t len = mr_len(ctx, sh), npages = len / PAGE, markers;
	struct pc_uffd uffd = {.fd = -1, .reader = -1};
	struct move_snaps ms = {0};
	struct place pl = {0};
	const char *what = "mmap";
	bool moved;
	int ret;

	if (mr_move_snaps_alloc(&ms, npages)) {
		ret = pc_skip_rest(a, "calloc", ENOMEM);
		goto out;
	}
	/* Before the range: the reader shares none of it. */
	ret = pc_uffd_open(&uffd, features, &what);
	if (ret) {
		ret = pc_skip_rest(a, what, -ret);
		goto out;
	}
	ret = mr_source_map(ctx, sh, a, &pl, sh->dst_off, -1, &count);
	if (ret)
		goto out;
	what = "madvise(MADV_DONTNEED) of every other page";
	ret = empty_half(pl.src, npages);
	if (!ret)
		ret = pc_uffd_protect(&uffd, pl.src, len, &what);
	if (ret) {
		ret = pc_skip_rest(a, what, -ret);
		goto out;
	}
	ret = mr_move_snapped(ctx, &ms, pl.src, len, pl.dst, false, false, &moved);
	if (ret) {
		ret = pc_skip_rest(a, moved ? "pagemap after the move" : "pagemap/mremap", -ret);
		goto out;
	}
	markers = count_markers(&ms.before);
	if (markers == 0) {
		/* The trigger state was not made: judging would prove nothing. */
		pc_skip_all(a, "UFFDIO_WRITEPROTECT with WP_UNPOPULATED left no uffd-wp marker in "
			       "the empty pages (pagemap)");
		goto out;
	}
	ms.before.move = sh->uffd_remap ? 0 : PC_MOVE_UFFD_NO_REMAP;
	mr_judge_moved(a, s_moved, &ms.before, &ms.after, &ms.vacated, (__u64)(uintptr_t)pl.src,
		       (__u64)(uintptr_t)pl.dst);
	say_markers(a, sh, markers, count_markers(&ms.after), npages);
out:
	pc_window_end(ctx, &a->win, &a->disturbed);
	pc_uffd_close(&uffd);
	mr_place_release(&pl);
	mr_move_snaps_free(&ms);
	return ret;
}
