// SPDX-License-Identifier: GPL-2.0
/*
 * Where mprotect may grant write (mprotect/write): only on private
 * anonymous pages exclusive to the process.
 *
 * The state: 64 KiB anonymous folios, every page written, the range read
 * back (whole folios); fork, and the child exits at once: the parent's
 * PTEs are read-only (the fork write-protected them for copy-on-write)
 * and no page is exclusive any more (PageAnonExclusive cleared when the
 * child took its share).  Then every page but p of each folio written
 * again, each write counted: it must fault (the fork left it read-only)
 * and the fault makes that page alone exclusive and writable.  Page p
 * stays shared.  mprotect(PROT_READ) over the range (every entry
 * read-only, one batch per folio), then mprotect(PROT_READ|PROT_WRITE):
 * change_pte_range may make writable only the exclusive pages of each
 * batch (commit_anon_folio_batch's sub-batches).  Then page p of each
 * folio written, counted: it must fault.  A batch that took its first
 * page's exclusivity for all of it made p writable: no fault, unless p is
 * the first (the control).  The -half scenarios make the calls over each
 * folio's second half alone (entries 8 to 15), so that each batch begins
 * mid-folio, and leave entry 8 or 15 shared: a batch that read the
 * exclusivity of its pages from the folio's first page on (cf1b80dc31a1
 * fixed it) reads entry 8's from entry 0.  One exclusive page of each folio written
 * last must not fault: that mprotect granted write at all (else a pass
 * would say nothing: a skip).  Pages that moved meanwhile (migration,
 * collapse: pagemap's PFNs) are a retry, not a verdict; rewritten pages
 * the fault copied out of their folio (a kernel without in-place reuse of
 * large folios: 6.12) make no such batch, a skip that says so.  Judged in
 * mprotect/write [oracle:write-fault]; a rewrite after the fork that did
 * not fault fails it too: the fork left a shared page writable.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <ptecheck/mprotect.h>
#include "mprotect_int.h"
#include "procmm.h"
#include "shape.h"

#define FP  16
#define OFF 700

struct wr_run {
	struct pc_range rg;
	struct pc_folios fo;
	size_t n, p, from; /* pages, the shared entry, where the mprotect calls begin */
	__u64 *pfn_end;	   /* pagemap at the end: moved pages */
	size_t unfaulted;  /* rewrites after the fork that did not fault */
	size_t first_unfaulted;
	size_t copied; /* rewritten pages the fault copied out of their folio */
};

/* Writes page i's byte; the faults that took. */
static __u64 write_counted(const struct wr_run *r, size_t i)
{
	return pc_write_faults(r->rg.base + i * PAGE + OFF, (char)pc_page_byte(i, SALT_B));
}

/* The state up to the mprotect calls: 0, 1 when not made (slots
   skipped), or pc_skip_rest's -errno. */
static int wr_state(struct pc_scenario_ctx *ctx, struct pc_attempt *a, struct wr_run *r)
{
	int ret = pc_range_map_64k(ctx, a, &r->rg, &r->fo, OFF);

	if (ret)
		return ret;
	ret = pc_fork_exit();
	if (ret)
		return pc_skip_rest(a, "fork", -ret);
	for (size_t i = 0; i < r->n; i++) {
		if (i % FP == r->p || !r->fo.whole[i / FP] || write_counted(r, i))
			continue;
		if (!r->unfaulted++)
			r->first_unfaulted = i;
	}
	/* Reused in place (exclusive) is the state; copied is not made. */
	ret = pc_pagemap_read(0, (__u64)(uintptr_t)r->rg.base, r->n, r->pfn_end);
	if (ret)
		return pc_skip_rest(a, "pagemap", -ret);
	for (size_t i = 0; i < r->n; i++)
		r->copied += i % FP != r->p && r->fo.whole[i / FP] &&
			     (r->pfn_end[i] & PC_PM_PFN_MASK) != r->fo.pfns[i];
	if (r->copied && !r->unfaulted) {
		pc_skip_all(a,
			    "the write faults copied the rewritten pages out of their folios (no "
			    "in-place reuse of a large folio's page in this kernel): no batch "
			    "mixes exclusive and shared pages");
		return 1;
	}
	return 0;
}

/* The p pages' rewrites after both calls, judged. */
static void judge_write(struct pc_attempt *a, int slot, struct wr_run *r)
{
	struct pc_oracle_msg *m = &a->msg[slot];
	size_t shared = 0, widened = 0, granted = 0, exclusive = 0;

	if (r->unfaulted) {
		m->checked += r->unfaulted;
		pc_oracle_add_evidence(m, PC_V_WRITE_GAINED,
				       (__u64)(uintptr_t)(r->rg.base + r->first_unfaulted * PAGE),
				       0, 1, 0,
				       "page %zu written after fork without a fault: the fork "
				       "left a shared page writable",
				       r->first_unfaulted);
		m->violations += r->unfaulted - 1;
	}
	for (size_t f = 0; f < r->n / FP; f++) {
		size_t i = f * FP + r->p;
		__u64 faults;
		int v;

		if (!r->fo.whole[f])
			continue;
		faults = write_counted(r, i);
		v = pc_mprotect_write_faulted(faults);
		m->checked++;
		shared++;
		if (pc_is_violation(v) && !widened++)
			pc_oracle_add_evidence(m, v, (__u64)(uintptr_t)(r->rg.base + i * PAGE), 0,
					       1, faults,
					       "page %zu (entry %zu of its folio, shared at fork, "
					       "never written since) written after "
					       "mprotect(PROT_READ|PROT_WRITE) without a fault",
					       i, r->p);
	}
	if (widened > 1)
		m->violations += widened - 1;
	/* The grant a batch could widen: exclusive pages made writable (a
	   write that does not fault).  None: the kernel makes none writable
	   in mprotect, and a pass would say nothing. */
	for (size_t f = 0; f < r->n / FP; f++) {
		if (!r->fo.whole[f])
			continue;
		exclusive++;
		/* The entry after p among those the calls covered. */
		granted +=
			!write_counted(r, f * FP + r->from + (r->p - r->from + 1) % (FP - r->from));
	}
	if (!widened && !r->unfaulted && !granted) {
		pc_slot_skip(a, slot,
			     "mprotect(PROT_READ|PROT_WRITE) made none of %zu exclusive pages "
			     "writable: the write grant a batch could widen never ran",
			     exclusive);
		return;
	}
	pc_slot_judge(a, slot);
	pc_oracle_appendf(m,
			  "%zu of %zu exclusive pages made writable; %zu shared (entry %zu) "
			  "written after the calls, %zu without a fault; %zu of %zu folios whole; "
			  "%zu rewrites after fork without a fault",
			  granted, exclusive, shared, r->p, widened, r->fo.n_whole, r->n / FP,
			  r->unfaulted);
}

/* mprotect(PROT_READ) and back over the range, or over each folio from
   its entry from on (each batch then begins mid-folio): 0 or
   pc_skip_rest's. */
static int wr_mprotect(struct pc_attempt *a, const struct wr_run *r)
{
	size_t step = r->from ? FP : r->n, len = step - r->from;

	for (size_t i0 = 0; i0 < r->n; i0 += step) {
		char *at = r->rg.base + (i0 + r->from) * PAGE;

		if (mprotect(at, len * PAGE, PROT_READ) ||
		    mprotect(at, len * PAGE, PROT_READ | PROT_WRITE))
			return pc_skip_rest(a, "mprotect", errno);
	}
	return 0;
}

/* Pages whose PFN changed since the state was read (migration, collapse). */
static size_t moved(const struct wr_run *r)
{
	size_t k = 0;

	for (size_t i = 0; i < r->n; i++)
		k += r->fo.whole[i / FP] && (r->pfn_end[i] & PC_PM_PFN_MASK) != r->fo.pfns[i];
	return k;
}

int mp_measure_write(struct pc_scenario_ctx *ctx, const void *data, struct pc_attempt *a)
{
	const struct mp_write *sc = data;
	int s_write = pc_slot_add(a, ctx, PC_CHK_MP_WRITE, TIER_WRITE_FAULT);
	struct wr_run r = {.rg = {.fd = -1}};
	int ret;

	r.n = pc_anon_64k_pages(ctx, a, 1);
	if (!r.n)
		return 0;
	r.p = pc_pos_index(sc->pos, FP);
	r.from = sc->from;
	r.pfn_end = calloc(r.n, sizeof(*r.pfn_end));
	if (!r.pfn_end || pc_folios_alloc(&r.fo, r.n, FP)) {
		ret = pc_skip_rest(a, "calloc", ENOMEM);
		goto out;
	}
	pc_window_begin(ctx, &a->win, &a->disturbed);
	ret = wr_state(ctx, a, &r);
	if (!ret)
		ret = wr_mprotect(a, &r);
	if (!ret) {
		ret = pc_pagemap_read(0, (__u64)(uintptr_t)r.rg.base, r.n, r.pfn_end);
		if (ret)
			ret = pc_skip_rest(a, "pagemap", -ret);
	}
	pc_window_end(ctx, &a->win, &a->disturbed);
	if (!ret && moved(&r)) {
		pc_slot_skip(a, s_write,
			     "%zu pages changed PFN (migration, collapse) before the "
			     "rewrites",
			     moved(&r));
		a->retry = true;
	} else if (!ret) {
		judge_write(a, s_write, &r);
	}
out:
	pc_range_release(&r.rg);
	pc_folios_free(&r.fo);
	free(r.pfn_end);
	return ret < 0 ? ret : 0;
}
