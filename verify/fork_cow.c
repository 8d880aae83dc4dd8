// SPDX-License-Identifier: GPL-2.0
/*
 * Whether fork's batches write-protect the parent where copy-on-write
 * requires (fork/cow), on a batch whose entries differ in write alone.
 *
 * The state: 64 KiB (or 16 KiB) anonymous folios, every page filled, the range read
 * back (whole folios); a fork whose child exits at once (pc_fork_exit:
 * every parent PTE read-only, no page exclusive); then page p of each
 * folio written again, counted: the write must fault (the fork left it
 * read-only: fork/cow [oracle:write-fault] otherwise) and the fault reuses
 * the page in place, the folio being the parent's alone again, so that
 * entry alone is writable (pagemap: its PFN unchanged; a kernel that
 * copies it out of the folio instead makes no such folio, said).  Every
 * entry is dirty, so one batch covers the folio.  Then the second fork,
 * the child alive (verify/sharer.c): copy_present_ptes must see the
 * writable entry (FPB_MERGE_WRITE) and write-protect the whole batch in
 * the parent.  The parent writes every page; the child must still read
 * the bytes of before (fork/cow [oracle:cow]).  A batch whose write bit
 * is its first entry's skips the write protection when p is not first,
 * and the parent's write to p lands in the page the child maps; at p
 * first it protects all (the control).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <ptecheck/fork.h>
#include <ptecheck/mremap.h>
#include "fork_int.h"
#include "oracle_compare.h"
#include "procmm.h"
#include "sharer.h"
#include "shape.h"

#define OFF 0

struct cw_run {
	struct pc_range rg;
	struct pc_folios fo;
	struct pc_sharer child;
	size_t n, fp, p;  /* pages, per folio, the writable entry in a folio */
	size_t n_made;	  /* whole folios holding the state (p reused in place) */
	size_t unfaulted; /* rewrites of p after the first fork without a fault */
	size_t first_unfaulted;
	__u64 *pm; /* pagemap: after the rewrites, then after the second fork */
	__u8 *expected, *seen;
};

static int cw_alloc(struct cw_run *r)
{
	r->pm = calloc(r->n, sizeof(*r->pm));
	r->expected = malloc(r->n);
	r->seen = malloc(r->n);
	return r->pm && r->expected && r->seen && !pc_folios_alloc(&r->fo, r->n, r->fp) ? 0
											: -ENOMEM;
}

static void cw_free(struct cw_run *r)
{
	pc_sharer_stop(&r->child);
	pc_range_release(&r->rg);
	pc_folios_free(&r->fo);
	free(r->pm);
	free(r->expected);
	free(r->seen);
}

/* Which folios hold the state: p reused in place, no page moved.  0, or
   1 when a page moved (every slot skipped, retried). */
static int cw_made(struct pc_attempt *a, struct cw_run *r)
{
	size_t moved = 0;

	for (size_t f = 0; f < r->n / r->fp; f++) {
		size_t i0 = f * r->fp, copied = 0;

		if (!r->fo.whole[f])
			continue;
		for (size_t i = i0; i < i0 + r->fp; i++) {
			bool same = (r->pm[i] & PC_PM_PFN_MASK) == r->fo.pfns[i];

			if (i == i0 + r->p)
				copied += !same;
			else
				moved += !same;
		}
		r->n_made += !copied;
	}
	if (moved) {
		pc_skip_all(a, "pages other than the rewritten one changed PFN (migration, "
			       "collapse) after the first fork");
		a->retry = true;
		return 1;
	}
	return 0;
}

/* The state: 0, 1 when not made (slots skipped), or pc_skip_rest's. */
static int cw_state(struct pc_scenario_ctx *ctx, struct pc_attempt *a, struct cw_run *r)
{
	int ret = pc_range_map_64k(ctx, a, &r->rg, &r->fo, OFF);

	if (ret)
		return ret;
	/* Whole pages: the sharing child compares them whole. */
	for (size_t i = 0; i < r->n; i++)
		memset(r->rg.base + i * PAGE, pc_page_byte(i, SALT_A), PAGE);
	ret = pc_fork_exit();
	if (ret)
		return pc_skip_rest(a, "fork", -ret);
	for (size_t f = 0; f < r->n / r->fp; f++)
		/* The first byte written with the fill it holds. */
		if (r->fo.whole[f] &&
		    !pc_write_faults(r->rg.base + (f * r->fp + r->p) * PAGE,
				     (char)pc_page_byte(f * r->fp + r->p, SALT_A)) &&
		    !r->unfaulted++)
			r->first_unfaulted = f * r->fp + r->p;
	ret = pc_pagemap_read(0, (__u64)(uintptr_t)r->rg.base, r->n, r->pm);
	if (ret)
		return pc_skip_rest(a, "pagemap", -ret);
	return cw_made(a, r);
}

/* The second fork, the parent's writes, the child's view: 0, 1 when no
   page was shared (slots skipped, retried), or pc_skip_rest's. */
static int cw_share(struct pc_attempt *a, struct cw_run *r)
{
	const char *what;
	size_t shared = 0;
	ssize_t got;
	int ret = pc_sharer_start(&r->child, r->rg.base, r->n, NULL, &what);

	if (ret)
		return pc_skip_rest(a, what, -ret);
	ret = pc_pagemap_read(0, (__u64)(uintptr_t)r->rg.base, r->n, r->pm);
	if (ret)
		return pc_skip_rest(a, "pagemap", -ret);
	for (size_t i = 0; i < r->n; i++) {
		shared += (r->pm[i] & PC_PM_PRESENT) && !(r->pm[i] & PC_PM_EXCLUSIVE);
		r->expected[i] = pc_page_byte(i, SALT_A);
		memset(r->rg.base + i * PAGE, pc_page_byte(i, SALT_B), PAGE);
	}
	got = pc_sharer_collect(&r->child, r->seen, r->n);
	if (got != (ssize_t)r->n)
		return pc_skip_rest(a, "sharing child did not report", got < 0 ? (int)-got : EPIPE);
	if (!shared) {
		pc_skip_all(a, "probe inconclusive: no page was shared with the child (pagemap "
			       "exclusive bit)");
		a->retry = true;
		return 1;
	}
	return 0;
}

/* The first fork's own protection: every rewrite of p faulted. */
static void judge_rewrites(struct pc_attempt *a, int slot, const struct cw_run *r)
{
	struct pc_oracle_msg *m = &a->msg[slot];
	int v = pc_write_faulted(true, r->unfaulted ? 0 : 1);

	m->checked += r->fo.n_whole;
	if (pc_is_violation(v)) {
		pc_oracle_add_evidence(
			m, v, (__u64)(uintptr_t)(r->rg.base + r->first_unfaulted * PAGE), 0, 1, 0,
			"page %zu written after fork (child exited) without a "
			"fault: the fork left a shared page writable",
			r->first_unfaulted);
		m->violations += r->unfaulted - 1;
	}
	pc_slot_judge(a, slot);
	pc_oracle_appendf(m,
			  "%zu of %zu folios whole; entry %zu rewritten after fork, %zu "
			  "without a fault",
			  r->fo.n_whole, r->n / r->fp, r->p, r->unfaulted);
}

int fk_measure_cow(struct pc_scenario_ctx *ctx, const void *data, struct pc_attempt *a)
{
	const struct fk_scenario *sc = data;
	int s_wf = pc_slot_add(a, ctx, PC_CHK_FORK_COW, TIER_WRITE_FAULT);
	int s_cow = pc_slot_add(a, ctx, PC_CHK_FORK_COW, TIER_COW);
	struct cw_run r = {.rg = {.fd = -1}, .child = PC_SHARER_INIT};
	int ret;

	r.fp = sc->kb * KIB / PAGE;
	r.n = pc_anon_mthp_pages(ctx, a, sc->kb, 1);
	if (!r.n)
		return 0;
	r.p = pc_pos_index(sc->pos, r.fp);
	if (cw_alloc(&r)) {
		ret = pc_skip_rest(a, "calloc", ENOMEM);
		goto out;
	}
	pc_window_begin(ctx, &a->win, &a->disturbed);
	ret = cw_state(ctx, a, &r);
	if (!ret)
		judge_rewrites(a, s_wf, &r);
	if (!ret && !r.n_made) {
		pc_slot_skip(
			a, s_cow,
			"the write fault copied entry %zu out of its folio in all %zu whole "
			"folios (no in-place reuse of a large folio's page in this kernel): no "
			"batch had one writable entry",
			r.p, r.fo.n_whole);
		ret = 1;
	}
	if (!ret)
		ret = cw_share(a, &r);
	pc_window_end(ctx, &a->win, &a->disturbed);
	if (!ret) {
		pc_compare_cow(r.expected, r.seen, r.n, (__u64)(uintptr_t)r.rg.base, PAGE,
			       &a->msg[s_cow]);
		a->judged[s_cow] = true;
		pc_oracle_appendf(&a->msg[s_cow],
				  "; %zu of %zu whole folios with entry %zu (%s) alone writable at "
				  "the fork",
				  r.n_made, r.fo.n_whole, r.p, pc_pos_name(sc->pos));
	}
out:
	cw_free(&r);
	return ret < 0 ? ret : 0;
}
