// SPDX-License-Identifier: GPL-2.0
/*
 * mprotect's batches and the per-entry markers they must respect
 * (mprotect/soft-dirty, mprotect/uffd-wp), and what the batches map
 * (mprotect/mapped), on one state: large anonymous folios, every page
 * written (present, mapped by PTEs), then one entry of each folio marked:
 *
 *   soft-dirty  clear_refs 4 (every PTE clean of soft-dirty, and
 *               write-protected for its tracking), the entry written again
 *               (it alone soft-dirty and writable), then MADV_FREE over
 *               the range: every PTE hardware-clean.  Clean matters on
 *               x86, whose pte_mkdirty also sets the soft-dirty bit:
 *               modify_prot_start_ptes marks the batch's value dirty when
 *               a later entry is dirty, and that alone would give every
 *               entry of a batch soft-dirty, hiding a batch that ran
 *               through the written one (on dirty pages mprotect spreads
 *               the bit over the batch: the summary counts the pages that
 *               gained it, which is not judged);
 *   uffd-wp     the range registered for userfaultfd write protection,
 *               the entry write-protected (it alone read-only, uffd-wp).
 *
 * Two mprotect calls over the whole range:
 *   1. PROT_READ: the entry differs from the others in write and in its
 *      marker (FPB_RESPECT_WRITE already ends a batch at it);
 *   2. PROT_READ|PROT_WRITE: every entry read-only now, differing in the
 *      marker alone: only FPB_RESPECT_SOFT_DIRTY, or the uffd-wp bit that
 *      folio_pte_batch never ignores, ends the batch there.  A batch that
 *      runs through it gives every entry the first's value
 *      (modify_prot_commit_ptes writes one value over the batch): the
 *      marked page loses its marker unless it is the first.
 * After each call pagemap must show the marked page marked and every page
 * present at its PFN; at the end each page holds its bytes.  The state is
 * read back before it is judged (pagemap, kpageflags): folios not formed
 * whole are left out and said, a state not made is a SKIP that says which
 * part.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <ptecheck/mprotect.h>
#include "mprotect_int.h"
#include "procmm.h"
#include "settings.h"
#include "shape.h"
#include "uffd.h"

/* Where in each page its byte lies. */
#define OFF 100

static const char *const calls[2] = {"mprotect(PROT_READ)", "mprotect(PROT_READ|PROT_WRITE)"};

/* Each marker's check. */
static const int mark_check[] = {
	[PC_MARK_SOFT_DIRTY] = PC_CHK_MP_SOFT_DIRTY,
	[PC_MARK_UFFD_WP] = PC_CHK_MP_UFFD_WP,
};

struct mk_run {
	const struct pc_scenario_ctx *ctx;
	const struct mp_marker *sc;
	int s_mark;		 /* the marker's slot, skipped where the kernel has no bit */
	size_t n, fp, p;	 /* pages, pages per folio, the marked page in each */
	struct pc_folios fo;	 /* the range as first read back: whole folios */
	__u64 *state, *after[2]; /* pagemap: before the calls, after each */
	size_t gained;		 /* pages marked after a call and not before it */
	struct pc_range rg;
	struct pc_uffd uffd; /* uffd-wp's */
};

static bool marked(const struct mk_run *r, __u64 e)
{
	return e & pc_mark_bit(r->sc->mark);
}

static __u64 pfn_of(__u64 e)
{
	return e & PC_PM_PRESENT ? e & PC_PM_PFN_MASK : 0;
}

/* soft-dirty writes the marked page again; uffd-wp writes nothing. */
static __u8 want_byte(const struct mk_run *r, size_t i)
{
	bool again = r->sc->mark == PC_MARK_SOFT_DIRTY && i % r->fp == r->p;

	return pc_page_byte(i, again ? SALT_B : SALT_A);
}

static int mk_alloc(struct mk_run *r)
{
	r->state = calloc(r->n, sizeof(*r->state));
	r->after[0] = calloc(r->n, sizeof(*r->after[0]));
	r->after[1] = calloc(r->n, sizeof(*r->after[1]));
	return !pc_folios_alloc(&r->fo, r->n, r->fp) && r->state && r->after[0] && r->after[1]
		       ? 0
		       : -ENOMEM;
}

static void mk_free(struct mk_run *r)
{
	pc_range_release(&r->rg);
	pc_uffd_close(&r->uffd);
	pc_folios_free(&r->fo);
	free(r->state);
	free(r->after[0]);
	free(r->after[1]);
}

/* The range mapped, every page written, a PMD THP's mapping split when
   the shape asks.  0 or -errno; *what names the step that failed. */
static int mk_map(struct mk_run *r, const char **what)
{
	int ret = pc_range_map(&r->rg, r->n, false, OFF, what);

	if (ret)
		return ret;
	*what = "mprotect of one page (splitting the PMD mapping)";
	return r->sc->shape->split_pmd ? pc_split_pmd_mapping(r->rg.base) : 0;
}

static void judge_marker(struct pc_attempt *a, int slot, struct mk_run *r)
{
	struct pc_oracle_msg *m = &a->msg[slot];

	for (int k = 0; k < 2; k++) {
		const __u64 *was = k ? r->after[0] : r->state;

		for (size_t i = 0; i < r->n; i++) {
			int v;

			if (!r->fo.whole[i / r->fp])
				continue;
			v = pc_mark_kept(r->sc->mark, marked(r, was[i]), marked(r, r->after[k][i]));
			m->checked++;
			r->gained += !marked(r, was[i]) && marked(r, r->after[k][i]);
			if (pc_is_violation(v))
				pc_oracle_add_evidence(
					m, v, (__u64)(uintptr_t)(r->rg.base + i * PAGE), 0, 1, 0,
					"folio %zu page %zu, %s", i / r->fp, i % r->fp, calls[k]);
		}
	}
	pc_slot_judge(a, slot);
	pc_oracle_appendf(m,
			  "%zu of %zu folios (%s) whole%s; page %zu (%s) of each alone %s through "
			  "PROT_READ and PROT_READ|PROT_WRITE; %zu pages gained it (not judged)",
			  r->fo.n_whole, r->n / r->fp, r->sc->shape->what,
			  r->sc->mark == PC_MARK_SOFT_DIRTY ? ", clean" : "", r->p,
			  pc_pos_name(r->sc->pos), pc_mark_name(r->sc->mark), r->gained);
}

static void judge_mapped(struct pc_attempt *a, int s_pfn, int s_data, const struct mk_run *r)
{
	struct pc_oracle_msg *mp = &a->msg[s_pfn], *md = &a->msg[s_data];

	for (size_t i = 0; i < r->n; i++) {
		__u64 addr = (__u64)(uintptr_t)(r->rg.base + i * PAGE);
		__u8 want = want_byte(r, i), seen;
		int v;

		if (!r->fo.whole[i / r->fp])
			continue;
		for (int k = 0; k < 2; k++) {
			v = pc_mprotect_mapped(r->state[i] & PC_PM_PRESENT, pfn_of(r->state[i]),
					       r->after[k][i] & PC_PM_PRESENT,
					       pfn_of(r->after[k][i]));
			mp->checked++;
			if (pc_is_violation(v))
				pc_oracle_add_evidence(
					mp, v, addr, 0, pfn_of(r->state[i]), pfn_of(r->after[k][i]),
					"folio %zu page %zu, %s", i / r->fp, i % r->fp, calls[k]);
		}
		seen = (__u8)r->rg.base[i * PAGE + OFF];
		v = pc_written_survives(want, seen);
		md->checked++;
		if (pc_is_violation(v))
			pc_oracle_add_evidence(md, v, addr, 0, want, seen,
					       "folio %zu page %zu, after both calls", i / r->fp,
					       i % r->fp);
	}
	pc_slot_judge(a, s_pfn);
	pc_slot_judge(a, s_data);
}

/*
 * uffd-wp's state is the scenario's own: UFFDIO_WRITEPROTECT returned 0
 * for page p of each folio, so a page it left unprotected (pagemap bit 57
 * clear, v5.19+) is change_protection's failure, judged as a lost
 * protection rather than skipped as a state not made.
 */
static void judge_protected(struct pc_attempt *a, struct mk_run *r)
{
	struct pc_oracle_msg *m = &a->msg[r->s_mark];

	for (size_t i = r->p; i < r->n; i += r->fp) {
		/* Protected by the ioctl: "before" is the protection made. */
		int v = pc_uffd_wp_kept(true, marked(r, r->state[i]));

		if (!r->fo.whole[i / r->fp])
			continue;
		m->checked++;
		if (pc_is_violation(v))
			pc_oracle_add_evidence(m, v, (__u64)(uintptr_t)(r->rg.base + i * PAGE), 0,
					       1, 0,
					       "folio %zu page %zu, UFFDIO_WRITEPROTECT returned 0",
					       i / r->fp, i % r->fp);
	}
}

/* The marking (verify/marker.c); for soft-dirty then MADV_FREE over the
   range, every PTE clean.  0, 1 when not made (slots skipped), or
   pc_skip_rest's -errno. */
static int mk_mark(struct pc_attempt *a, struct mk_run *r)
{
	int ret = pc_mark_each(r->sc->mark, &r->uffd, a, r->rg.base, r->n, r->fp, r->p, OFF);

	if (ret || r->sc->mark != PC_MARK_SOFT_DIRTY)
		return ret;
	if (madvise(r->rg.base, r->n * PAGE, MADV_FREE))
		return pc_skip_rest(a, errno == EINVAL ? "MADV_FREE unsupported" : "MADV_FREE",
				    errno);
	return 0;
}

/* The range mapped and read back: 0, 1 when no folio formed (every slot
   skipped), or pc_skip_rest's -errno. */
static int mk_map_read(struct pc_attempt *a, struct mk_run *r)
{
	const char *what;
	int ret = mk_map(r, &what);

	if (ret)
		return pc_skip_rest(a, what, -ret);
	if (r->sc->shape->split_pmd) {
		struct pc_smaps sm;

		ret = pc_smaps_read(0, (__u64)(uintptr_t)r->rg.base, &sm);
		if (ret)
			return pc_skip_rest(a, "smaps", -ret);
		if (sm.anon_huge_kb) {
			pc_skip_all(a, "the PMD mapping was not split (smaps AnonHugePages)");
			return 1;
		}
	}
	return pc_folios_read_for(a, r->ctx, &r->fo, r->rg.base, r->sc->shape->no_folio);
}

/* The state the calls are judged on, read back: 0, 1 when it was not made
   (every slot skipped), or pc_skip_rest's -errno. */
static int mk_make_state(struct pc_attempt *a, struct mk_run *r)
{
	bool uffd = r->sc->mark == PC_MARK_UFFD_WP, retry, no_bit;
	char why[160];
	int ret = mk_map_read(a, r);

	if (!ret)
		ret = mk_mark(a, r);
	if (ret)
		return ret;
	ret = pc_pagemap_read(0, (__u64)(uintptr_t)r->rg.base, r->n, r->state);
	if (ret)
		return pc_skip_rest(a, "pagemap", -ret);
	if (pc_mark_missing(r->sc->mark, r->state, &r->fo, r->p, why, sizeof(why), &retry,
			    &no_bit)) {
		if (no_bit) {
			/* Without the bit the entry still differs in write
			   from the others: mapped is judged, and the PTEs need
			   not be clean. */
			pc_slot_skip(a, r->s_mark, "%s", why);
			return 0;
		}
		pc_skip_all(a, why);
		a->retry = retry;
		return 1;
	}
	if (!uffd)
		return pc_lazyfree_whole(a, r->rg.base, r->n);
	judge_protected(a, r);
	return 0;
}

/* The state, the two calls and their pagemaps: 0, 1 when the state was not
   made (every slot skipped), or pc_skip_rest's -errno. */
static int mk_run_calls(struct pc_attempt *a, struct mk_run *r)
{
	int ret = mk_make_state(a, r);

	if (ret)
		return ret;
	for (int k = 0; k < 2; k++) {
		int prot = k ? PROT_READ | PROT_WRITE : PROT_READ;

		if (mprotect(r->rg.base, r->n * PAGE, prot))
			return pc_skip_rest(a, calls[k], errno);
		ret = pc_pagemap_read(0, (__u64)(uintptr_t)r->rg.base, r->n, r->after[k]);
		if (ret)
			return pc_skip_rest(a, "pagemap", -ret);
	}
	return 0;
}

/* The summaries of mapped's two slots. */
static void mk_summarize(struct pc_attempt *a, int s_pfn, int s_data, const struct mk_run *r)
{
	const char *what = r->sc->shape->what;

	pc_oracle_appendf(&a->msg[s_pfn], "%zu of %zu folios (%s) formed whole", r->fo.n_whole,
			  r->n / r->fp, what);
	pc_oracle_appendf(&a->msg[s_data], "%zu of %zu folios (%s) formed whole", r->fo.n_whole,
			  r->n / r->fp, what);
}

int mp_measure_marker(struct pc_scenario_ctx *ctx, const void *data, struct pc_attempt *a)
{
	const struct mp_marker *sc = data;
	const struct mp_shape *sh = sc->shape;
	int s_mark = pc_slot_add(a, ctx, mark_check[sc->mark], TIER_PAGEMAP);
	int s_pfn = pc_slot_add(a, ctx, PC_CHK_MP_MAPPED, TIER_PAGEMAP);
	int s_data = pc_slot_add(a, ctx, PC_CHK_MP_MAPPED, TIER_DATA);
	struct mk_run r = {.ctx = ctx,
			   .sc = sc,
			   .s_mark = s_mark,
			   .fp = sh->folio_pages,
			   .rg = {.fd = -1},
			   .uffd = {.fd = -1, .reader = -1}};
	int ret;

	if (sh->mthp_kb && !pc_mthp_on(ctx, a, false, sh->mthp_kb))
		return 0;
	r.n = pc_scaled_len(ctx, sh->len, sh->folio_pages * PAGE, sh->folio_pages * PAGE) / PAGE;
	r.p = pc_pos_index(sc->pos, r.fp);
	if (mk_alloc(&r)) {
		ret = pc_skip_rest(a, "calloc", ENOMEM);
		goto out;
	}
	ret = pc_mark_open(sc->mark, &r.uffd, a, 0);
	if (ret)
		goto out;
	pc_window_begin(ctx, &a->win, &a->disturbed);
	ret = mk_run_calls(a, &r);
	pc_window_end(ctx, &a->win, &a->disturbed);
	if (ret)
		goto out;
	if (!a->judged[s_mark])
		judge_marker(a, s_mark, &r);
	judge_mapped(a, s_pfn, s_data, &r);
	mk_summarize(a, s_pfn, s_data, &r);
out:
	mk_free(&r);
	return ret < 0 ? ret : 0;
}
