// SPDX-License-Identifier: GPL-2.0
/*
 * What MADV_FREE clears, inside its range and out (madvise/lazyfree,
 * madvise/range).
 *
 * The state, on pairs of 64 KiB anonymous folios A, B (every page
 * written, the range read back: whole folios): MADV_FREE over the range
 * (smaps LazyFree all of it: every PTE clean and old, every folio
 * lazyfree); then page p of A written again (that entry alone young and
 * dirty: A's batch has the bits only if it merges them, unless p is the
 * first entry), every page of B read (young) and B's page p written (its
 * data, which no advice covers from now on).  Then MADV_FREE again over
 * each pair but B's page p: A whole (one batch, one clear), B in part
 * (split, then its pages one by one, the last before p cleared next to
 * the kept page).  B's split is read back (kpageflags): a B still large
 * (an extra reference held it) is a state not made, retried.
 *
 *  - madvise/lazyfree [oracle:smaps]: LazyFree counts every advised page
 *    (pc_madvise_freed): A's page p cleaned;
 *  - madvise/range [oracle:smaps]: and no more (pc_madvise_within): the
 *    kept pages still dirty;
 *  - madvise/range [oracle:data-loss]: MADV_PAGEOUT over the range
 *    discards the clean lazyfree folios; every kept page reads back what
 *    was written to it.  A's pages must have been discarded (read 0), or
 *    the probe could not have seen a loss: a skip that says so, retried.
 * The counts are the whole range's (smaps has no finer grain); the data
 * is judged on the pairs whose folios formed whole, which the summary
 * counts.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>

#include <ptecheck/madvise.h>
#include "madvise_int.h"
#include "procmm.h"
#include "shape.h"

#define FP  16 /* pages per folio */
#define OFF 300

struct mv_run {
	struct pc_range rg;
	struct pc_folios fo;	/* as first read back */
	struct pc_folios after; /* after the advice: B split? */
	size_t n, p, pairs;	/* pages, the position, pairs of folios */
	size_t whole;		/* pairs whose A and B formed whole */
	__u64 lazyfree;		/* pages smaps counted lazyfree after the advice */
};

static char *folio_a(const struct mv_run *r, size_t g)
{
	return r->rg.base + 2 * g * FP * PAGE;
}

static char *folio_b(const struct mv_run *r, size_t g)
{
	return folio_a(r, g) + FP * PAGE;
}

static bool pair_whole(const struct mv_run *r, size_t g)
{
	return r->fo.whole[2 * g] && r->fo.whole[2 * g + 1];
}

/* After the first MADV_FREE and A's page p written (pc_lazyfree_pattern):
   B read and its page p written. */
static void mv_touch(struct mv_run *r)
{
	for (size_t g = 0; g < r->pairs; g++) {
		char *b = folio_b(r, g);

		for (size_t j = 0; j < FP; j++)
			(void)*(volatile char *)(b + j * PAGE + OFF);
		b[r->p * PAGE + OFF] = (char)pc_page_byte((2 * g + 1) * FP + r->p, SALT_B);
	}
}

/* The advice under test, over every pair but B's page p: 0 or -errno. */
static int mv_advise(struct mv_run *r)
{
	size_t p = r->p;

	for (size_t g = 0; g < r->pairs; g++) {
		char *a = folio_a(r, g), *b = folio_b(r, g);

		if (madvise(a, (FP + p) * PAGE, MADV_FREE))
			return -errno;
		if (p + 1 < FP && madvise(b + (p + 1) * PAGE, (FP - p - 1) * PAGE, MADV_FREE))
			return -errno;
	}
	return 0;
}

/* The state before the advice, in the caller's disturbance window: 0, 1
   when it was not made (slots skipped), or pc_skip_rest's -errno. */
static int mv_state(struct pc_scenario_ctx *ctx, struct pc_attempt *a, struct mv_run *r)
{
	int ret = pc_lazyfree_pattern(ctx, a, &r->rg, &r->fo, r->p, OFF, false);

	if (!ret)
		mv_touch(r);
	return ret;
}

/*
 * The advice and what it left: smaps' count, and the folios read back.
 * Out of the disturbance window, whose split counter the advice's own
 * splits move; a page it moved meanwhile (migration) shows as a PFN
 * changed, and a kept page's folio not split is the state not made.  0,
 * 1 (slots skipped, retried), or pc_skip_rest's -errno.
 */
static int mv_advice(struct pc_attempt *a, struct mv_run *r)
{
	struct pc_smaps sm;
	size_t unsplit = 0, moved = 0;
	char why[160];
	int ret = mv_advise(r);

	if (ret)
		return pc_skip_rest(a, "MADV_FREE (the advice under test)", -ret);
	ret = pc_smaps_read(0, (__u64)(uintptr_t)r->rg.base, &sm);
	if (ret)
		return pc_skip_rest(a, "smaps", -ret);
	r->lazyfree = sm.lazyfree_kb * KIB / PAGE;
	ret = pc_folios_read(&r->after, r->rg.base);
	if (ret == -ESTALE) {
		a->retry = true;
		return pc_skip_rest(a, "kpageflags changed while read (split or reclaim)", ESTALE);
	}
	if (ret)
		return pc_skip_rest(a, "pagemap/kpageflags", -ret);
	for (size_t i = 0; i < r->n; i++)
		moved += r->fo.pfns[i] && r->after.pfns[i] != r->fo.pfns[i];
	for (size_t g = 0; g < r->pairs; g++) {
		r->whole += pair_whole(r, g);
		/* The kept page's folio: order 0 once B was split. */
		unsplit += pair_whole(r, g) && r->after.orders[(2 * g + 1) * FP + r->p] != 0;
	}
	if (moved)
		snprintf(why, sizeof(why), "%zu pages changed PFN during the advice (migration)",
			 moved);
	else if (unsplit)
		snprintf(why, sizeof(why),
			 "%zu of %zu partly advised 64 KiB folios not split by MADV_FREE (an "
			 "extra reference held them): smaps would read their bits as one",
			 unsplit, r->whole);
	else
		return 0;
	pc_skip_all(a, why);
	a->retry = true;
	return 1;
}

static void judge_counts(struct pc_attempt *a, int s_free, int s_within, const struct mv_run *r)
{
	__u64 advised = r->n - r->pairs;
	int slots[2] = {s_free, s_within};

	for (int k = 0; k < 2; k++) {
		struct pc_oracle_msg *m = &a->msg[slots[k]];
		int v = k ? pc_madvise_within(advised, r->lazyfree)
			  : pc_madvise_freed(advised, r->lazyfree);

		m->checked++;
		if (pc_is_violation(v))
			pc_oracle_add_evidence(
				m, v, (__u64)(uintptr_t)r->rg.base, 0, advised, r->lazyfree,
				"pages smaps counts LazyFree after MADV_FREE over %zu "
				"pages: each pair but its second folio's page %zu",
				r->n, r->p);
		pc_slot_judge(a, slots[k]);
		pc_oracle_appendf(m,
				  "LazyFree %llu pages, %llu advised; %zu pages kept out, next to "
				  "the advice; %zu of %zu pairs of 64 KiB folios whole, the kept "
				  "page's split off",
				  (unsigned long long)r->lazyfree, (unsigned long long)advised,
				  r->pairs, r->whole, r->pairs);
	}
}

/* After MADV_PAGEOUT: every kept page of a whole pair holds its byte. */
static void judge_data(struct pc_attempt *a, int slot, const struct mv_run *r)
{
	struct pc_oracle_msg *m = &a->msg[slot];
	size_t gone = 0, lost = 0;

	for (size_t g = 0; g < r->pairs; g++)
		if (pair_whole(r, g))
			gone += folio_a(r, g)[OFF] == 0;
	if (!gone) {
		pc_slot_skip(a, slot,
			     "probe inconclusive: MADV_PAGEOUT discarded none of %zu advised clean "
			     "lazyfree folios, so a kept page's loss would not show",
			     r->whole);
		a->retry = true;
		return;
	}
	for (size_t g = 0; g < r->pairs; g++) {
		size_t i = (2 * g + 1) * FP + r->p;
		__u8 want = pc_page_byte(i, SALT_B), seen;
		int v;

		if (!pair_whole(r, g))
			continue;
		seen = (__u8)folio_b(r, g)[r->p * PAGE + OFF];
		v = pc_written_survives(want, seen);
		m->checked++;
		if (pc_is_violation(v) && !lost++)
			pc_oracle_add_evidence(m, v, (__u64)(uintptr_t)(r->rg.base + i * PAGE), 0,
					       want, seen,
					       "page %zu of the pair's second folio, kept out of "
					       "MADV_FREE, after MADV_PAGEOUT",
					       r->p);
	}
	if (lost > 1)
		m->violations += lost - 1;
	pc_slot_judge(a, slot);
	pc_oracle_appendf(m,
			  "%zu kept pages read back after MADV_PAGEOUT, %zu lost; %zu of %zu "
			  "advised whole folios discarded",
			  r->whole, lost, gone, r->whole);
}

int mv_measure_free(struct pc_scenario_ctx *ctx, const void *data, struct pc_attempt *a)
{
	const struct mv_scenario *sc = data;
	int s_free = pc_slot_add(a, ctx, PC_CHK_MADV_LAZYFREE, TIER_SMAPS);
	int s_within = pc_slot_add(a, ctx, PC_CHK_MADV_RANGE, TIER_SMAPS);
	int s_data = pc_slot_add(a, ctx, PC_CHK_MADV_RANGE, TIER_DATA_LOSS);
	struct mv_run r = {.rg = {.fd = -1}};
	cpu_set_t oldmask;
	bool pinned;
	int ret;

	r.n = pc_anon_64k_pages(ctx, a, 2);
	if (!r.n)
		return 0;
	r.pairs = r.n / (2 * FP);
	r.p = pc_pos_index(sc->pos, FP);
	if (pc_folios_alloc(&r.fo, r.n, FP) || pc_folios_alloc(&r.after, r.n, FP)) {
		ret = pc_skip_rest(a, "calloc", ENOMEM);
		goto out;
	}
	/* One CPU: MADV_FREE drains its own CPU's LRU batches, whose
	   references would keep B from splitting. */
	pinned = pc_pin_cpu(&oldmask);
	pc_window_begin(ctx, &a->win, &a->disturbed);
	ret = mv_state(ctx, a, &r);
	pc_window_end(ctx, &a->win, &a->disturbed);
	if (!ret)
		ret = mv_advice(a, &r);
	if (!ret) {
		judge_counts(a, s_free, s_within, &r);
		if (madvise(r.rg.base, r.n * PAGE, MADV_PAGEOUT))
			ret = pc_skip_rest(a, "MADV_PAGEOUT", errno);
		else
			judge_data(a, s_data, &r);
	}
	if (pinned)
		sched_setaffinity(0, sizeof(oldmask), &oldmask);
out:
	pc_range_release(&r.rg);
	pc_folios_free(&r.fo);
	pc_folios_free(&r.after);
	return ret < 0 ? ret : 0;
}
