// SPDX-License-Identifier: GPL-2.0
/*
 * Whether a zap hands a PTE's dirty bit to its folio (zap/dirty).
 *
 * The state: 64 KiB shmem folios read in (clean in the page cache, their
 * PTEs writable and clean: no write-notify on shmem), moved 4 KiB off
 * their 64 KiB alignment (arm64 then folds no contiguous block, whose
 * read would gather the dirty bits of all 16 entries), then one page of
 * each whole folio written through its PTE without a fault, by turns its
 * first (the control: the batch's first entry), second, a middle one and
 * its last: the PTE's dirty bit is then the only record of the write.
 * Read back before the zap: each folio still clean (kpageflags) and its
 * write faultless (the fault count), else the folio is counted out.  Then
 * munmap or MADV_DONTNEED of the range.  Judged (zap/dirty
 * [oracle:kpageflags]): every such folio's KPF_DIRTY is set after it
 * (pc_zap_dirty_reached): zap_present_folio_ptes gathers the dirty bits
 * of its batch (get_and_clear_full_ptes) and marks the folio; one it
 * loses leaves a clean folio that reclaim drops, the write lost.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/kernel-page-flags.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include <ptecheck/zap.h>
#include "procmm.h"
#include "shape.h"
#include "zap_int.h"

/* The page of folio f written, by turns: first, second, middle, last. */
static size_t written_page(size_t f, size_t fp)
{
	static const size_t at[4] = {0, 1, 7, 15};

	return fp == 16 ? at[f % 4] : 0;
}

static const char *const pos_names[4] = {"first", "second", "middle", "last"};

struct zd_run {
	const struct zap_scenario *sc;
	struct pc_range rg;
	size_t n, fp;
	struct pc_folios fo;
	bool *made;   /* n / fp: clean, written once without a fault */
	size_t dirty; /* folios dirty already after the read (not made) */
	size_t faulted;
};

/* KPF_DIRTY of folio f's head page: 1, 0, or -errno. */
static int folio_dirty(const struct zd_run *r, size_t f)
{
	__u64 flags = 0;
	int ret = pc_kpageflags_read(r->fo.pfns[f * r->fp], 1, &flags);

	return ret ? ret : !!(flags & PC_KPF(KPF_DIRTY));
}

/* 0, 1 when no folio was made (slots skipped), or pc_skip_rest's. */
static int zd_state(struct pc_scenario_ctx *ctx, struct pc_attempt *a, struct zd_run *r)
{
	const char *what;
	size_t made = 0;
	int ret = pc_range_map_clean(&r->rg, r->n, &what);

	if (ret)
		return pc_skip_rest(a, what, -ret);
	ret = pc_folios_read_for(a, ctx, &r->fo, r->rg.base, r->sc->shape->no_folio);
	if (ret)
		return ret;
	ret = pc_range_misalign(&r->rg);
	if (ret)
		return pc_skip_rest(a, "mremap 4 KiB off the folios' alignment", -ret);
	for (size_t f = 0; f < r->n / r->fp; f++) {
		size_t i = f * r->fp + written_page(f, r->fp);

		if (!r->fo.whole[f])
			continue;
		ret = folio_dirty(r, f);
		if (ret < 0)
			return pc_skip_rest(a, "kpageflags", -ret);
		if (ret) {
			r->dirty++;
			continue;
		}
		if (pc_write_faults(r->rg.base + i * PAGE, (char)pc_page_byte(i, SALT_A))) {
			r->faulted++;
			continue;
		}
		ret = folio_dirty(r, f);
		if (ret < 0)
			return pc_skip_rest(a, "kpageflags", -ret);
		r->made[f] = !ret;
		made += r->made[f];
	}
	if (made)
		return 0;
	pc_skip_all(a, r->faulted ? "every write through a clean PTE faulted (no hardware dirty "
				    "bit management: the fault dirtied the folio)"
				  : "no shmem folio clean after its pages were read in");
	return 1;
}

static int zd_zap(const struct zd_run *r)
{
	size_t len = r->n * PAGE;
	int ret = r->sc->op == ZAP_MUNMAP ? munmap(r->rg.base, len)
					  : madvise(r->rg.base, len, MADV_DONTNEED);

	return ret ? -errno : 0;
}

static void judge_dirty(struct pc_attempt *a, int slot, const struct zd_run *r)
{
	struct pc_oracle_msg *m = &a->msg[slot];
	size_t judged = 0;

	for (size_t f = 0; f < r->n / r->fp; f++) {
		int dirty, v;

		if (!r->made[f])
			continue;
		dirty = folio_dirty(r, f);
		if (dirty < 0) {
			pc_skip_rest(a, "kpageflags", -dirty);
			return;
		}
		v = pc_zap_dirty_reached(true, dirty);
		m->checked++;
		judged++;
		if (pc_is_violation(v))
			pc_oracle_add_evidence(
				m, v,
				(__u64)(uintptr_t)(r->rg.base +
						   (f * r->fp + written_page(f, r->fp)) * PAGE),
				0, 1, (__u64)dirty, "folio %zu, its %s PTE the dirty one, after %s",
				f, pos_names[f % 4],
				r->sc->op == ZAP_MUNMAP ? "munmap" : "MADV_DONTNEED");
	}
	pc_slot_judge(a, slot);
	pc_oracle_appendf(m,
			  "%zu of %zu folios (%s) whole, %zu of them clean with one page written "
			  "through its PTE alone (first, second, middle, last by turns); %zu "
			  "dirty after the read, %zu writes faulted",
			  r->fo.n_whole, r->n / r->fp, r->sc->shape->what, judged, r->dirty,
			  r->faulted);
}

int zap_measure_dirty(struct pc_scenario_ctx *ctx, const void *data, struct pc_attempt *a)
{
	const struct zap_scenario *sc = data;
	const struct zap_shape *sh = sc->shape;
	int slot = pc_slot_add(a, ctx, PC_CHK_ZAP_DIRTY, TIER_KPAGEFLAGS);
	struct zd_run r = {.sc = sc, .rg = {.fd = -1}, .fp = sh->folio_pages};
	int ret;

	if (!pc_mthp_64k_on(ctx, a, true))
		return 0;
	r.n = pc_scaled_len(ctx, sh->len, 4 * r.fp * PAGE, r.fp * PAGE) / PAGE;
	r.made = calloc(r.n / r.fp, sizeof(*r.made));
	if (!r.made || pc_folios_alloc(&r.fo, r.n, r.fp)) {
		ret = pc_skip_rest(a, "calloc", ENOMEM);
		goto out;
	}
	pc_window_begin(ctx, &a->win, &a->disturbed);
	ret = zd_state(ctx, a, &r);
	if (!ret) {
		ret = zd_zap(&r);
		if (ret)
			ret = pc_skip_rest(a, sc->op == ZAP_MUNMAP ? "munmap" : "madvise", -ret);
	}
	/* Read inside the window: reclaim could drop a clean folio and its
	   PFN would then tell of another. */
	if (!ret)
		judge_dirty(a, slot, &r);
	pc_window_end(ctx, &a->win, &a->disturbed);
out:
	pc_range_release(&r.rg);
	pc_folios_free(&r.fo);
	free(r.made);
	return ret < 0 ? ret : 0;
}
