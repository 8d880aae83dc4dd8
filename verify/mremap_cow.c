// SPDX-License-Identifier: GPL-2.0
/*
 * COW isolation across fork, mremap/perms [oracle:cow]: a child sharing
 * the parent's pages that reports what it sees of them (anon-64k-fork in
 * mremap_probes.c moves the range first), and perms-fork-cow, the state
 * fork itself makes.  copy_present_ptes batches the PTEs of a large folio
 * (folio_pte_batch) and write-protects them in both processes, the
 * parent's with wrprotect_ptes; a batch that protects only its first PTE
 * leaves the parent writable on pages 1..nr-1 of a folio it now shares
 * with the child, and the parent's writes go into the child's memory.  So
 * the parent writes the odd pages of each 64 KiB folio and the child,
 * after looking, the even ones past the first; each process must still
 * read the bytes of before the fork where the other one wrote.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mremap_int.h"
#include "sharer.h"
#include "fullio.h"
#include "procmm.h"
#include "report.h"

void mr_judge_cow(struct pc_attempt *a, int slot, const __u8 *expected, const __u8 *seen,
		  size_t npages, size_t shared, __u64 addr, const char *when, enum folios_seen fs)
{
	struct pc_oracle_msg *m = &a->msg[slot];

	pc_compare_cow(expected, seen, npages, addr, PAGE, m);
	a->judged[slot] = true;
	if (shared == 0 && m->status == PC_STATUS_PASS) {
		/* Without a shared PTE there was nothing to isolate. */
		pc_slot_skip(a, slot,
			     "probe inconclusive: no page was shared with the child %s (pagemap "
			     "exclusive bit)",
			     when);
		a->retry = true;
	} else {
		pc_oracle_appendf(m, "; %zu of %zu shared %s, %s", shared, npages, when,
				  mr_folios_text(fs));
	}
}

/* ---- perms-fork-cow: the fork's own write protection ---------------------- */

/* The pages of each 64 KiB folio the parent writes after the fork: the odd ones. */
static bool parent_writes(size_t i)
{
	return i % PAGES_64K % 2 == 1;
}

/* The child's: the even ones but the first (page 0 of a batch is the one a
   batch that protects only its first PTE still protects). */
static bool child_writes(size_t i)
{
	size_t k = i % PAGES_64K;

	return k && k % 2 == 0;
}

struct fork_cow {
	struct place pl;
	struct mthp_count count;
	struct pc_sharer child;
	struct snap forked; /* the parent's pagemap after the fork, folio orders */
	__u8 *expected, *seen;
	size_t n, shared;
};

/* After the fork: what the parent shares with the child, its folios. */
static int fork_state(struct pc_scenario_ctx *ctx, struct fork_cow *f)
{
	int ret = mr_snap_take(&f->forked, ctx, f->pl.src, true);

	for (size_t i = 0; !ret && i < f->n; i++)
		f->shared +=
			(f->forked.pm[i] & PC_PM_PRESENT) && !(f->forked.pm[i] & PC_PM_EXCLUSIVE);
	return ret;
}

/* Both ways: the parent writes, the child looks and writes, the parent looks.
   seen[i]: what the process that did not write page i saw there. */
static int cross_writes(struct pc_scenario_ctx *ctx, struct pc_attempt *a, struct fork_cow *f)
{
	ssize_t got;

	for (size_t i = 0; i < f->n; i++)
		if (parent_writes(i))
			memset(f->pl.src + i * PAGE, pc_page_byte(i, SALT_B), PAGE);
	got = pc_sharer_collect(&f->child, f->seen, f->n);
	pc_window_end(ctx, &a->win, &a->disturbed);
	if (got != (ssize_t)f->n)
		return pc_skip_rest(a, "sharing child did not report", got < 0 ? (int)-got : EPIPE);
	for (size_t i = 0; i < f->n; i++) {
		f->expected[i] = pc_page_byte(i, SALT_A);
		if (child_writes(i))
			f->seen[i] = pc_block_seen((const __u8 *)f->pl.src + i * PAGE, PAGE,
						   f->expected[i], NULL);
	}
	return 0;
}

int mr_measure_fork_cow(struct pc_scenario_ctx *ctx, const struct shape *sh, struct pc_attempt *a)
{
	int s_cow = pc_slot_add(a, ctx, PC_CHK_PERMS, TIER_COW);
	struct fork_cow f = {.count = {"anon_fault_alloc"}, .child = PC_SHARER_INIT};
	enum folios_seen fs;
	const char *what;
	int ret;

	f.n = mr_len(ctx, sh) / PAGE;
	f.expected = malloc(f.n);
	f.seen = malloc(f.n);
	if (!f.expected || !f.seen || mr_snap_alloc(&f.forked, f.n)) {
		ret = pc_skip_rest(a, "malloc", ENOMEM);
		goto out;
	}
	ret = mr_source_map(ctx, sh, a, &f.pl, sh->dst_off, -1, &f.count);
	if (ret)
		goto out;
	ret = pc_sharer_start(&f.child, f.pl.src, f.n, child_writes, &what);
	if (!ret) {
		what = "pagemap/kpageflags";
		ret = fork_state(ctx, &f);
	}
	if (ret) {
		ret = pc_skip_rest(a, what, -ret);
		goto out;
	}
	fs = mr_folios_formed(&f.forked, &f.count);
	if (mr_no_large(fs)) {
		/* Small folios: fork copies one PTE at a time, no batch to get wrong. */
		pc_slot_skip(a, s_cow, "no 64 KiB folio formed (mTHP off?): fork did not batch");
		ret = 0;
		goto out;
	}
	ret = cross_writes(ctx, a, &f);
	if (!ret) {
		mr_judge_cow(a, s_cow, f.expected, f.seen, f.n, f.shared,
			     (__u64)(uintptr_t)f.pl.src, "after the fork", fs);
		pc_oracle_appendf(&a->msg[s_cow], "; parent wrote odd pages, child even");
	}
out:
	pc_window_end(ctx, &a->win, &a->disturbed);
	pc_sharer_stop(&f.child);
	mr_place_release(&f.pl);
	free(f.expected);
	free(f.seen);
	mr_snap_free(&f.forked);
	return ret;
}
