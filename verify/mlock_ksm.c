// SPDX-License-Identifier: GPL-2.0
/*
 * mlock of a range that maps KSM pages merged from pages outside it
 * (mlock/folios [oracle:kpageflags]): a small folio the range maps is
 * mlocked, whatever its index says.
 *
 * The state (b1454b463c21's): 2k small anonymous pages (MADV_NOHUGEPAGE),
 * page i and page k + i filled alike, MADV_MERGEABLE, ksmd running
 * (PC_NEEDS_KSM: the parent starts it around the scenario): each pair is
 * merged into one KSM page, whose index is one half's (ksmd makes the page
 * it meets second the KSM page: the second half's, as scanned in order of
 * address; not visible from userspace, so both halves are locked in
 * turn).  Read back: pagemap gives both pages of a pair one PFN,
 * kpageflags KPF_KSM on it (waited for, 20 s at most).  The range is
 * then made read-only: mlock populates a private writable range with
 * write faults, which would copy every KSM page out (no KSM page left to
 * judge: the first runs here locked none).  Then, on one pinned CPU, mlock
 * of each half alone, and munlock: every page the locked half maps must be
 * mlocked while locked (pc_mlock_folio: a small folio the range holds),
 * the merged ones included; mlock_pte_range used to ask folio_within_range
 * of any folio, which places a KSM page by its index, in the other half,
 * outside the locked range.  The KSM pages each half mapped while locked
 * are counted: none in either is the state not made (a skip that says
 * so).  The KSM merges are disturbances: the window begins once they are
 * done, and a page whose PFN changed between its read while locked and
 * the pagemap read after both halves (a pair ksmd merged late, under
 * load; a migration) would have had its flags read at the wrong place:
 * the attempt is retried instead, as mlock_folios.c does.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/kernel-page-flags.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <ptecheck/mlock.h>
#include "mlock_int.h"
#include "procmm.h"
#include "shape.h"

#define KSM_WAIT_MS 20000

struct mk_run {
	struct pc_range rg;
	size_t k;	 /* pages per half */
	__u64 *pm;	 /* pagemap: the merges, then while locked */
	__u64 *flags[2]; /* kpageflags of each half while it alone was locked */
	__u64 *pfn[2];	 /* the PFNs those flags were read at (0: not present) */
	size_t merged;	 /* pairs sharing one KSM page */
	size_t ksm[2];	 /* KSM pages each half mapped while it alone was locked */
};

/* Pairs sharing one PFN that kpageflags calls KSM. */
static size_t mk_merged(struct mk_run *r)
{
	size_t merged = 0;

	if (pc_pagemap_read(0, (__u64)(uintptr_t)r->rg.base, 2 * r->k, r->pm))
		return 0;
	for (size_t i = 0; i < r->k; i++) {
		__u64 a = r->pm[i] & PC_PM_PFN_MASK, b = r->pm[r->k + i] & PC_PM_PFN_MASK, fl = 0;

		if ((r->pm[i] & PC_PM_PRESENT) && a && a == b && !pc_kpageflags_read(a, 1, &fl) &&
		    (fl & PC_KPF(KPF_KSM)))
			merged++;
	}
	return merged;
}

/* The pages filled in pairs, merged by ksmd.  0, 1 when not made (slots
   skipped), or pc_skip_rest's. */
static int mk_state(struct pc_scenario_ctx *ctx, struct pc_attempt *a, struct mk_run *r)
{
	const char *what = "mmap";
	struct timespec ts = {0, 50 * 1000 * 1000};
	int ret;

	r->rg.n = 2 * r->k;
	r->rg.base = pc_resv_map(&r->rg.resv, 2 * r->k * PAGE + PMD);
	if (!r->rg.base)
		return pc_skip_rest(a, what, errno);
	ret = pc_map_fixed(r->rg.base, 2 * r->k * PAGE, -1, MADV_NOHUGEPAGE);
	if (ret)
		return pc_skip_rest(a, what, -ret);
	for (size_t i = 0; i < r->k; i++) {
		memset(r->rg.base + i * PAGE, pc_page_byte(i, SALT_A), PAGE);
		memset(r->rg.base + (r->k + i) * PAGE, pc_page_byte(i, SALT_A), PAGE);
	}
	if (madvise(r->rg.base, 2 * r->k * PAGE, MADV_MERGEABLE))
		return pc_skip_rest(a, "madvise(MADV_MERGEABLE)", errno);
	for (int ms = 0; ms < KSM_WAIT_MS && r->merged < r->k; ms += 50) {
		nanosleep(&ts, NULL);
		r->merged = mk_merged(r);
	}
	if (r->merged) {
		/* Read-only: mlock's populate then reads, not writes (no COW
		   of the KSM pages). */
		if (mprotect(r->rg.base, 2 * r->k * PAGE, PROT_READ))
			return pc_skip_rest(a, "mprotect(PROT_READ)", errno);
		return 0;
	}
	pc_skip_all(a, ctx->ksm_on    ? "ksmd merged no pair of pages in 20 s (KPF_KSM, one PFN)"
		       : ctx->ksm_why ? ctx->ksm_why
				      : "KSM not started");
	return 1;
}

static void mk_judge(struct pc_attempt *a, int slot, const struct mk_run *r)
{
	struct pc_oracle_msg *m = &a->msg[slot];
	size_t unlocked_ksm = 0;

	if (!r->ksm[0] && !r->ksm[1]) {
		pc_slot_skip(a, slot,
			     "probe inconclusive: %zu pairs merged, but neither half mapped a KSM "
			     "page while it was locked (merges undone)",
			     r->merged);
		return;
	}
	for (size_t h = 0; h < 2; h++) {
		for (size_t i = 0; i < r->k; i++) {
			size_t j = h * r->k + i;
			bool mlocked = r->flags[h][i] & PC_KPF(PC_KPF_MLOCKED),
			     ksm = r->flags[h][i] & PC_KPF(KPF_KSM);
			int v;

			if (!r->flags[h][i])
				continue; /* not present while locked */
			v = pc_mlock_folio(mlocked, true);
			m->checked++;
			unlocked_ksm += ksm && !mlocked;
			if (pc_is_violation(v))
				pc_oracle_add_evidence(
					m, v, (__u64)(uintptr_t)(r->rg.base + j * PAGE), 0, 1,
					mlocked,
					"page %zu of the %s half, while it alone was locked%s", i,
					h ? "second" : "first",
					ksm ? " (a KSM page merged with one of the other half)"
					    : "");
		}
	}
	pc_slot_judge(a, slot);
	pc_oracle_appendf(m,
			  "%zu of %zu pairs merged by ksmd (one KSM page each), the range "
			  "read-only; each half locked alone in turn, mapping %zu and %zu KSM "
			  "pages: %zu left unlocked",
			  r->merged, r->k, r->ksm[0], r->ksm[1], unlocked_ksm);
}

/* mlock of half h alone, its pages' flags read while locked, munlock.
   0 or -errno, *what the step. */
static int mk_lock_half(struct mk_run *r, size_t h, const char **what)
{
	char *half = r->rg.base + h * r->k * PAGE;
	int ret, un;

	*what = "mlock";
	ret = pc_mlock(half, r->k * PAGE);
	if (ret)
		return ret;
	*what = "pagemap/kpageflags while locked";
	ret = pc_pagemap_read(0, (__u64)(uintptr_t)r->rg.base, 2 * r->k, r->pm);
	for (size_t i = 0; !ret && i < r->k; i++) {
		if (!(r->pm[h * r->k + i] & PC_PM_PRESENT))
			continue;
		r->pfn[h][i] = r->pm[h * r->k + i] & PC_PM_PFN_MASK;
		ret = pc_kpageflags_read(r->pfn[h][i], 1, &r->flags[h][i]);
		r->ksm[h] += !ret && (r->flags[h][i] & PC_KPF(KPF_KSM));
	}
	un = pc_munlock(half, r->k * PAGE);
	return ret ? ret : un;
}

/* Pages whose PFN now differs from the one their flags were read at. */
static size_t mk_moved(struct mk_run *r)
{
	size_t moved = 0;

	if (pc_pagemap_read(0, (__u64)(uintptr_t)r->rg.base, 2 * r->k, r->pm))
		return 2 * r->k; /* cannot tell: as if all moved */
	for (size_t h = 0; h < 2; h++)
		for (size_t i = 0; i < r->k; i++)
			moved += r->pfn[h][i] &&
				 (r->pm[h * r->k + i] & PC_PM_PFN_MASK) != r->pfn[h][i];
	return moved;
}

int ml_measure_ksm(struct pc_scenario_ctx *ctx, const void *data, struct pc_attempt *a)
{
	int slot = pc_slot_add(a, ctx, PC_CHK_MLOCK_FOLIOS, TIER_KPAGEFLAGS);
	struct mk_run r = {.rg = {.fd = -1}, .k = 16};
	cpu_set_t oldmask;
	bool pinned = false;
	size_t moved;
	int ret;

	(void)data;
	if (!ctx->ksm_on) {
		pc_skip_all(a, ctx->ksm_why ? ctx->ksm_why : "KSM not started");
		return 0;
	}
	r.pm = calloc(2 * r.k, sizeof(*r.pm));
	r.flags[0] = calloc(r.k, sizeof(*r.flags[0]));
	r.flags[1] = calloc(r.k, sizeof(*r.flags[1]));
	r.pfn[0] = calloc(r.k, sizeof(*r.pfn[0]));
	r.pfn[1] = calloc(r.k, sizeof(*r.pfn[1]));
	if (!r.pm || !r.flags[0] || !r.flags[1] || !r.pfn[0] || !r.pfn[1]) {
		ret = pc_skip_rest(a, "calloc", ENOMEM);
		goto out;
	}
	ret = mk_state(ctx, a, &r);
	if (ret)
		goto out;
	pinned = pc_pin_cpu(&oldmask);
	pc_window_begin(ctx, &a->win, &a->disturbed);
	for (size_t h = 0; !ret && h < 2; h++) {
		const char *what;

		ret = mk_lock_half(&r, h, &what);
		if (ret)
			ret = pc_skip_rest(a, what, -ret);
	}
	pc_window_end(ctx, &a->win, &a->disturbed);
	moved = ret ? 0 : mk_moved(&r);
	if (moved)
		ml_retry_moved(a, moved, "KSM, migration");
	else if (!ret)
		mk_judge(a, slot, &r);
out:
	if (pinned)
		sched_setaffinity(0, sizeof(oldmask), &oldmask);
	pc_range_release(&r.rg);
	free(r.pm);
	free(r.flags[0]);
	free(r.flags[1]);
	free(r.pfn[0]);
	free(r.pfn[1]);
	return ret < 0 ? ret : 0;
}
