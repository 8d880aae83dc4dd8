// SPDX-License-Identifier: GPL-2.0
/*
 * What fork's batches give the child of the per-entry markers
 * (fork/soft-dirty, fork/uffd-wp).  copy_present_ptes writes one value
 * over each batch into the child (set_ptes), the first entry's bits with
 * the PFN advanced: a marked entry among unmarked ones must end the
 * batch, or the child gets the first entry's.
 *  - soft-dirty: respected (FPB_RESPECT_SOFT_DIRTY) where the VMA tracks
 *    it, after clear_refs 4 (vma_soft_dirty_enabled); the child's VMA
 *    copies the parent's flags, so its pagemap shows each PTE's own bit;
 *  - uffd-wp: never ignored by folio_pte_batch; kept in the child where
 *    UFFD_FEATURE_EVENT_FORK registers it (verify/uffd.c's reader takes
 *    the fork's event and keeps the child's descriptor open).
 *
 * The state: 64 KiB (or 16 KiB) anonymous folios, every page written (all dirty: the
 * batch respects dirty in a private mapping, so one batch per folio), one
 * entry of each marked (verify/marker.c) at the first, second, middle or
 * last position, read back by pagemap.  fork, the child waiting
 * (verify/sharer.c); both pagemaps read while it waits: every entry
 * marked before the fork is marked in the child and in the parent.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <linux/userfaultfd.h>

#include <ptecheck/fork.h>
#include "fork_int.h"
#include "marker.h"
#include "procmm.h"
#include "sharer.h"
#include "shape.h"
#include "uffd.h"

#define OFF 500

static const int mark_check[] = {
	[PC_MARK_SOFT_DIRTY] = PC_CHK_FORK_SOFT_DIRTY,
	[PC_MARK_UFFD_WP] = PC_CHK_FORK_UFFD_WP,
};

struct fm_run {
	const struct fk_scenario *sc;
	struct pc_range rg;
	struct pc_folios fo;
	struct pc_uffd uffd;
	struct pc_sharer child;
	size_t n, fp, p;		  /* pages, per folio, the marked entry in a folio */
	__u64 *state, *parent, *child_pm; /* pagemaps: before the fork, after it */
};

static bool marked(const struct fm_run *r, __u64 e)
{
	return e & pc_mark_bit(r->sc->mark);
}

static int fm_alloc(struct fm_run *r)
{
	r->state = calloc(r->n, sizeof(*r->state));
	r->parent = calloc(r->n, sizeof(*r->parent));
	r->child_pm = calloc(r->n, sizeof(*r->child_pm));
	return r->state && r->parent && r->child_pm && !pc_folios_alloc(&r->fo, r->n, r->fp)
		       ? 0
		       : -ENOMEM;
}

static void fm_free(struct fm_run *r)
{
	pc_sharer_stop(&r->child);
	pc_range_release(&r->rg);
	pc_uffd_close(&r->uffd);
	pc_folios_free(&r->fo);
	free(r->state);
	free(r->parent);
	free(r->child_pm);
}

/* Marked pages that read unmarked before the fork (uffd-wp's: the ioctl
   returned 0 for them; mprotect/uffd-wp judges that protection). */
static size_t fm_unmarked(const struct fm_run *r)
{
	size_t k = 0;

	for (size_t i = r->p; i < r->n; i += r->fp)
		k += r->fo.whole[i / r->fp] && !marked(r, r->state[i]);
	return k;
}

/* The state: 0, 1 when not made (slots skipped), or pc_skip_rest's. */
static int fm_state(struct pc_scenario_ctx *ctx, struct pc_attempt *a, int slot, struct fm_run *r)
{
	const char *missing;
	char why[200];
	bool retry, no_bit;
	size_t unmarked;
	int ret = pc_mark_open(r->sc->mark, &r->uffd, a, UFFD_FEATURE_EVENT_FORK);

	if (!ret)
		ret = pc_range_map_64k(ctx, a, &r->rg, &r->fo, OFF);
	if (!ret)
		ret = pc_mark_each(r->sc->mark, &r->uffd, a, r->rg.base, r->n, r->fp, r->p, OFF);
	if (ret)
		return ret;
	ret = pc_pagemap_read(0, (__u64)(uintptr_t)r->rg.base, r->n, r->state);
	if (ret)
		return pc_skip_rest(a, "pagemap", -ret);
	missing = pc_mark_missing(r->sc->mark, r->state, &r->fo, r->p, why, sizeof(why), &retry,
				  &no_bit);
	unmarked = missing ? 0 : fm_unmarked(r);
	if (unmarked) {
		snprintf(why, sizeof(why),
			 "%zu protected pages read unprotected before the fork (mprotect/uffd-wp "
			 "judges the protection itself)",
			 unmarked);
		missing = why;
		retry = true;
	}
	if (!missing)
		return 0;
	pc_slot_skip(a, slot, "%s", missing);
	a->retry = retry;
	return 1;
}

/* fork, the child waiting; both pagemaps read.  0 or pc_skip_rest's. */
static int fm_fork(struct pc_attempt *a, struct fm_run *r)
{
	const char *what;
	int ret = pc_sharer_start(&r->child, r->rg.base, r->n, NULL, &what);

	if (ret)
		return pc_skip_rest(a, what, -ret);
	ret = pc_pagemap_read(r->child.pid, (__u64)(uintptr_t)r->rg.base, r->n, r->child_pm);
	if (!ret)
		ret = pc_pagemap_read(0, (__u64)(uintptr_t)r->rg.base, r->n, r->parent);
	if (ret)
		return pc_skip_rest(a, "pagemap", -ret);
	if (r->sc->mark == PC_MARK_UFFD_WP && pc_uffd_error(&r->uffd))
		return pc_skip_rest(a, "uffd reader", pc_uffd_error(&r->uffd));
	return 0;
}

static void fm_judge(struct pc_attempt *a, int slot, const struct fm_run *r)
{
	struct pc_oracle_msg *m = &a->msg[slot];
	const __u64 *side[2] = {r->child_pm, r->parent};
	static const char *const names[2] = {"in the child", "in the parent"};

	for (int k = 0; k < 2; k++)
		for (size_t i = 0; i < r->n; i++) {
			int v;

			if (!r->fo.whole[i / r->fp])
				continue;
			v = pc_mark_kept(r->sc->mark, marked(r, r->state[i]),
					 marked(r, side[k][i]));
			m->checked++;
			if (pc_is_violation(v))
				pc_oracle_add_evidence(m, v,
						       (__u64)(uintptr_t)(r->rg.base + i * PAGE), 0,
						       1, 0, "folio %zu page %zu, %s after fork",
						       i / r->fp, i % r->fp, names[k]);
		}
	pc_slot_judge(a, slot);
	pc_oracle_appendf(m,
			  "%zu of %zu folios whole; entry %zu of each alone %s (%s), read in the "
			  "child and the parent after fork",
			  r->fo.n_whole, r->n / r->fp, r->p, pc_mark_name(r->sc->mark),
			  pc_mark_how(r->sc->mark));
}

int fk_measure_marker(struct pc_scenario_ctx *ctx, const void *data, struct pc_attempt *a)
{
	const struct fk_scenario *sc = data;
	int slot = pc_slot_add(a, ctx, mark_check[sc->mark], TIER_PAGEMAP);
	struct fm_run r = {.sc = sc,
			   .rg = {.fd = -1},
			   .uffd = {.fd = -1, .reader = -1},
			   .child = PC_SHARER_INIT};
	int ret;

	r.fp = sc->kb * KIB / PAGE;
	r.n = pc_anon_mthp_pages(ctx, a, sc->kb, 1);
	if (!r.n)
		return 0;
	r.p = pc_pos_index(sc->pos, r.fp);
	if (fm_alloc(&r)) {
		ret = pc_skip_rest(a, "calloc", ENOMEM);
		goto out;
	}
	pc_window_begin(ctx, &a->win, &a->disturbed);
	ret = fm_state(ctx, a, slot, &r);
	if (!ret)
		ret = fm_fork(a, &r);
	pc_window_end(ctx, &a->win, &a->disturbed);
	if (!ret)
		fm_judge(a, slot, &r);
out:
	fm_free(&r);
	return ret < 0 ? ret : 0;
}
