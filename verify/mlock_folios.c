// SPDX-License-Identifier: GPL-2.0
/*
 * Which folios mlock and munlock lock (mlock/folios), and how much of the
 * range mlock locks (mlock/locked).
 *
 * The state: large folios (anonymous or shmem, 64 KiB or a PTE-mapped
 * 2 MiB THP; or a block-fs file written in 64 KiB pieces), every page written and present, the
 * range read back (the folios formed whole are judged, the others counted out).  On one pinned CPU
 * (munlock clears PG_mlocked in a per-CPU batch it drains where it ran), mlock of the range or of
 * the range cut a page into its first and last folio, then munlock of the same.  Judged by each
 * page's KPF_MLOCKED (kpageflags, by the PFNs pagemap gave):
 *  - while locked: a whole folio the range holds entirely is mlocked, one
 *    it cuts is not (pc_mlock_folio: mlock_pte_range mlocks a folio when
 *    its batch covers it all, at once);
 *  - after munlock: none is (pc_mlock_allowed with nothing held);
 *  - smaps Locked of the locked VMA is the range (pc_mlock_locked).
 * A page that changed PFN meanwhile (migration, compaction) would have
 * its flags read at the wrong place: the attempt is retried instead.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <ptecheck/mlock.h>
#include "mlock_int.h"
#include "procmm.h"
#include "shape.h"

#define OFF 300

struct ml_run {
	const struct ml_scenario *sc;
	struct pc_range rg;
	size_t n, fp, from, to; /* pages, per folio, the locked ones [from, to) */
	struct pc_folios fo;
	__u64 *flags[2]; /* kpageflags of the whole folios' pages: locked, after */
	__u64 *recheck;	 /* pagemap after munlock */
	struct pc_smaps sm;
	bool demand;  /* the shape's, or its demand_with_mthp where the run has mTHP */
	char fs[128]; /* the file shape's filesystem, as found */
};

static const char *const phases[2] = {"while locked", "after munlock"};

static bool held(const struct ml_run *r, size_t f)
{
	return r->fo.whole[f] && f * r->fp >= r->from && (f + 1) * r->fp <= r->to;
}

/* The range mapped and filled, a THP's PMD mappings split where the shape
   asks: 0 or -errno, *what the step. */
static int ml_map(struct ml_run *r, const char **what)
{
	int ret = r->sc->shape->file ? pc_range_map_file(&r->rg, r->n, OFF, what)
				     : pc_range_map(&r->rg, r->n, r->sc->shape->shmem, OFF, what);

	if (ret)
		return ret;
	*what = "mprotect of one page (splitting the PMD mappings)";
	for (size_t f = 0; r->sc->shape->split_pmd && f < r->n / r->fp; f++) {
		ret = pc_split_pmd_mapping(r->rg.base + f * r->fp * PAGE);
		if (ret)
			return ret;
	}
	return 0;
}

/* KPF flags of every whole folio's pages into out (others 0). */
static int read_flags(const struct ml_run *r, __u64 *out)
{
	for (size_t f = 0; f < r->n / r->fp; f++) {
		int ret;

		if (!r->fo.whole[f])
			continue;
		ret = pc_kpageflags_read(r->fo.pfns[f * r->fp], r->fp, out + f * r->fp);
		if (ret)
			return ret;
	}
	return 0;
}

/* mlock, the reads while locked, munlock, the reads after: 0 or -errno
   (*what the step). */
static int ml_lock_unlock(struct ml_run *r, const char **what)
{
	char *from = r->rg.base + r->from * PAGE;
	size_t len = (r->to - r->from) * PAGE;
	int ret, un;

	*what = "mlock";
	ret = pc_mlock(from, len);
	if (ret)
		return ret;
	*what = "smaps/kpageflags while locked";
	ret = pc_smaps_read(0, (__u64)(uintptr_t)from, &r->sm);
	if (!ret)
		ret = read_flags(r, r->flags[0]);
	*what = ret ? *what : "munlock";
	un = pc_munlock(from, len);
	if (ret || un)
		return ret ? ret : un;
	*what = "kpageflags/pagemap after munlock";
	ret = read_flags(r, r->flags[1]);
	return ret ? ret : pc_pagemap_read(0, (__u64)(uintptr_t)r->rg.base, r->n, r->recheck);
}

/* 0, 1 when the state was not made (slots skipped), or pc_skip_rest's. */
static int ml_state(struct pc_scenario_ctx *ctx, struct pc_attempt *a, struct ml_run *r)
{
	const char *what;
	int ret = ml_map(r, &what);

	if (ret)
		return pc_skip_rest(a, what, -ret);
	if (r->sc->shape->split_pmd) {
		ret = pc_smaps_read(0, (__u64)(uintptr_t)r->rg.base, &r->sm);
		if (ret)
			return pc_skip_rest(a, "smaps", -ret);
		if (r->sm.anon_huge_kb) {
			/* Chance, not the kernel's choice: of two boots of one
			   x86_64 7.x kernel (CI at 100d30b), one found a PMD
			   mapping here after the splits, the other none, and
			   the gate read the skip as lost coverage.  A fresh
			   range may make the state. */
			a->retry = true;
			pc_skip_all(a, "the PMD mappings were not split (smaps AnonHugePages)");
			return 1;
		}
	}
	ret = pc_folios_read_for(a, ctx, &r->fo, r->rg.base, r->sc->shape->no_folio);
	if (ret)
		return ret;
	return 0;
}

static void judge_folios(struct pc_attempt *a, int slot, const struct ml_run *r)
{
	struct pc_oracle_msg *m = &a->msg[slot];
	size_t held_n = 0, cut_n = 0, held_unlocked = 0;

	for (size_t f = 0; f < r->n / r->fp; f++) {
		if (!r->fo.whole[f])
			continue;
		held_n += held(r, f);
		cut_n += !held(r, f);
		for (size_t j = 0; j < r->fp; j++) {
			size_t i = f * r->fp + j;

			for (int k = 0; k < 2; k++) {
				bool mlocked = r->flags[k][i] & PC_KPF(PC_KPF_MLOCKED);
				int v = k	    ? pc_mlock_allowed(mlocked, false)
					: r->demand ? pc_mlock_folio(mlocked, held(r, f))
						    : pc_mlock_allowed(mlocked, held(r, f));

				held_unlocked += !k && !j && held(r, f) && !mlocked;
				m->checked++;
				if (pc_is_violation(v))
					pc_oracle_add_evidence(
						m, v, (__u64)(uintptr_t)(r->rg.base + i * PAGE), 0,
						!k && held(r, f), mlocked, "folio %zu page %zu, %s",
						f, j, phases[k]);
			}
		}
	}
	pc_slot_judge(a, slot);
	pc_oracle_appendf(m,
			  "%zu of %zu folios (%s%s%s) whole: %zu held by the locked range, %zu cut",
			  r->fo.n_whole, r->n / r->fp, r->sc->shape->what, r->fs[0] ? " on " : "",
			  r->fs, held_n, cut_n);
	if (!r->demand)
		pc_oracle_appendf(m, "; %zu held left unlocked (allowed here%s)", held_unlocked,
				  r->sc->shape->demand_with_mthp
					  ? ": no 64 KiB anonymous mTHP, a kernel that may "
					    "predate mlock of PTE-mapped large folios"
					  : "");
}

static void judge_locked(struct pc_attempt *a, int slot, const struct ml_run *r)
{
	struct pc_oracle_msg *m = &a->msg[slot];
	__u64 want = (r->to - r->from) * PAGE / KIB;
	int v = pc_mlock_locked(r->sm.locked_kb, want);

	m->checked++;
	if (pc_is_violation(v))
		pc_oracle_add_evidence(m, v, (__u64)(uintptr_t)(r->rg.base + r->from * PAGE), 0,
				       want, r->sm.locked_kb, "smaps Locked of the locked VMA, kB");
	pc_slot_judge(a, slot);
	pc_oracle_appendf(m, "smaps Locked %llu kB of a %llu kB range",
			  (unsigned long long)r->sm.locked_kb, (unsigned long long)want);
}

void ml_retry_moved(struct pc_attempt *a, size_t moved, const char *cause)
{
	char why[96];

	snprintf(why, sizeof(why), "%zu pages changed PFN while locked (%s)", moved, cause);
	pc_skip_all(a, why);
	a->retry = true;
}

int ml_measure_folios(struct pc_scenario_ctx *ctx, const void *data, struct pc_attempt *a)
{
	const struct ml_scenario *sc = data;
	const struct ml_shape *sh = sc->shape;
	int s_folios = pc_slot_add(a, ctx, PC_CHK_MLOCK_FOLIOS, TIER_KPAGEFLAGS);
	int s_locked = pc_slot_add(a, ctx, PC_CHK_MLOCK_LOCKED, TIER_SMAPS);
	struct ml_run r = {.sc = sc, .rg = {.fd = -1}, .fp = sh->folio_pages};
	cpu_set_t oldmask;
	bool pinned = false;
	const char *what;
	size_t moved = 0;
	int ret;

	/* mTHP sizes (a PMD THP is the run's THP setting, its own skip; a
	   file's folios are the filesystem's). */
	if (sh->folio_pages < PMD / PAGE && !sh->file &&
	    !pc_mthp_on(ctx, a, sh->shmem, (unsigned int)(sh->folio_pages * PAGE / KIB)))
		return 0;
	r.demand = sh->demand || (sh->demand_with_mthp && ctx->mthp_anon_64k);
	r.n = pc_scaled_len(ctx, sh->len, sh->min_folios * r.fp * PAGE, r.fp * PAGE) / PAGE;
	r.from = sc->cut ? 1 : 0;
	r.to = r.n - r.from;
	r.flags[0] = calloc(r.n, sizeof(*r.flags[0]));
	r.flags[1] = calloc(r.n, sizeof(*r.flags[1]));
	r.recheck = calloc(r.n, sizeof(*r.recheck));
	if (!r.flags[0] || !r.flags[1] || !r.recheck || pc_folios_alloc(&r.fo, r.n, r.fp)) {
		ret = pc_skip_rest(a, "calloc", ENOMEM);
		goto out;
	}
	/* The file shape's file, before the window (its writeback). */
	ret = sh->file ? pc_range_file_for(ctx, a, &r.rg, r.n, r.fp, OFF, r.fs, sizeof(r.fs)) : 0;
	if (ret)
		goto out;
	pinned = pc_pin_cpu(&oldmask);
	pc_window_begin(ctx, &a->win, &a->disturbed);
	ret = ml_state(ctx, a, &r);
	if (!ret) {
		ret = ml_lock_unlock(&r, &what);
		if (ret)
			ret = pc_skip_rest(a, what, -ret);
	}
	pc_window_end(ctx, &a->win, &a->disturbed);
	if (ret)
		goto out;
	for (size_t i = 0; i < r.n; i++)
		moved += r.fo.whole[i / r.fp] && (r.recheck[i] & PC_PM_PFN_MASK) != r.fo.pfns[i];
	if (moved) {
		ml_retry_moved(a, moved, "migration");
		goto out;
	}
	judge_folios(a, s_folios, &r);
	judge_locked(a, s_locked, &r);
out:
	if (pinned)
		sched_setaffinity(0, sizeof(oldmask), &oldmask);
	pc_range_release(&r.rg);
	pc_folios_free(&r.fo);
	free(r.flags[0]);
	free(r.flags[1]);
	free(r.recheck);
	return ret < 0 ? ret : 0;
}
