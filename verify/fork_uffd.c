// SPDX-License-Identifier: GPL-2.0
/*
 * What fork's batches give the child of a userfaultfd write-protected
 * range (fork/uffd-wp).  With UFFD_FEATURE_EVENT_FORK the child's VMA is
 * registered too, and copy_present_ptes keeps the uffd-wp bit of the
 * value it writes over each batch (set_ptes): an entry protected among
 * unprotected ones must end the batch (folio_pte_batch never ignores the
 * bit), or the child gets the first entry's.
 *
 * The state: a userfaultfd with EVENT_FORK and its reader (verify/uffd.c,
 * which takes the fork's event and keeps the child's descriptor open),
 * 64 KiB anonymous folios, every page written (one batch per folio: all
 * dirty), the range registered for uffd-wp and entry p of each folio
 * write-protected; pagemap must show that entry alone protected.  fork,
 * the child waiting (verify/sharer.c); the child's pagemap and the
 * parent's are read while it waits: every entry protected before the fork
 * is protected in both.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <linux/userfaultfd.h>

#include <ptecheck/fork.h>
#include "fork_int.h"
#include "procmm.h"
#include "sharer.h"
#include "shape.h"
#include "uffd.h"

#define FP  16
#define OFF 500

struct fu_run {
	struct pc_range rg;
	struct pc_folios fo;
	struct pc_uffd uffd;
	struct pc_sharer child;
	size_t n, p;
	__u64 *state, *parent, *child_pm; /* pagemaps: before the fork, after it */
};

static bool protected(__u64 e)
{
	return e & PC_PM_UFFD_WP;
}

static int fu_alloc(struct fu_run *r)
{
	r->state = calloc(r->n, sizeof(*r->state));
	r->parent = calloc(r->n, sizeof(*r->parent));
	r->child_pm = calloc(r->n, sizeof(*r->child_pm));
	return r->state && r->parent && r->child_pm && !pc_folios_alloc(&r->fo, r->n, FP) ? 0
											  : -ENOMEM;
}

static void fu_free(struct fu_run *r)
{
	pc_sharer_stop(&r->child);
	pc_range_release(&r->rg);
	pc_uffd_close(&r->uffd);
	pc_folios_free(&r->fo);
	free(r->state);
	free(r->parent);
	free(r->child_pm);
}

/* Whether the pagemap read back shows entry p of each whole folio alone
   protected, at its PFN: NULL, or why not in why. */
static const char *fu_missing(const struct fu_run *r, char *why, size_t len)
{
	size_t wrong = 0, moved = 0;

	for (size_t i = 0; i < r->n; i++) {
		if (!r->fo.whole[i / FP])
			continue;
		moved += (r->state[i] & PC_PM_PFN_MASK) != r->fo.pfns[i];
		wrong += protected(r->state[i]) != (i % FP == r->p);
	}
	if (moved)
		snprintf(why, len, "%zu pages changed PFN while protected (migration, reclaim)",
			 moved);
	else if (wrong)
		snprintf(why, len,
			 "%zu pages read otherwise than protected alone at entry %zu (mprotect/"
			 "uffd-wp judges the protection itself)",
			 wrong, r->p);
	else
		return NULL;
	return why;
}

/* The state: 0, 1 when not made (slots skipped), or pc_skip_rest's. */
static int fu_state(struct pc_scenario_ctx *ctx, struct pc_attempt *a, struct fu_run *r)
{
	const char *what;
	char why[160];
	int ret = pc_uffd_open(&r->uffd, UFFD_FEATURE_EVENT_FORK, &what);

	if (ret == -EOPNOTSUPP) {
		pc_skip_all(a, "no userfaultfd with UFFD_FEATURE_EVENT_FORK in this kernel");
		return 1;
	}
	if (ret)
		return pc_skip_rest(a, what, -ret);
	ret = pc_range_map_64k(ctx, a, &r->rg, &r->fo, OFF);
	if (!ret)
		ret = pc_uffd_protect_each(&r->uffd, a, r->rg.base, r->n, FP, r->p);
	if (ret)
		return ret;
	ret = pc_pagemap_read(0, (__u64)(uintptr_t)r->rg.base, r->n, r->state);
	if (ret)
		return pc_skip_rest(a, "pagemap", -ret);
	if (fu_missing(r, why, sizeof(why))) {
		pc_skip_all(a, why);
		a->retry = true;
		return 1;
	}
	return 0;
}

/* fork, the child waiting; both pagemaps read.  0 or pc_skip_rest's. */
static int fu_fork(struct pc_attempt *a, struct fu_run *r)
{
	const char *what;
	int ret = pc_sharer_start(&r->child, r->rg.base, r->n, NULL, &what);

	if (ret)
		return pc_skip_rest(a, what, -ret);
	what = "pagemap";
	ret = pc_pagemap_read(r->child.pid, (__u64)(uintptr_t)r->rg.base, r->n, r->child_pm);
	if (!ret)
		ret = pc_pagemap_read(0, (__u64)(uintptr_t)r->rg.base, r->n, r->parent);
	if (!ret && pc_uffd_error(&r->uffd))
		return pc_skip_rest(a, "uffd reader", pc_uffd_error(&r->uffd));
	return ret ? pc_skip_rest(a, what, -ret) : 0;
}

static void fu_judge(struct pc_attempt *a, int slot, const struct fu_run *r)
{
	struct pc_oracle_msg *m = &a->msg[slot];
	const __u64 *side[2] = {r->child_pm, r->parent};
	static const char *const names[2] = {"in the child", "in the parent"};

	for (int k = 0; k < 2; k++)
		for (size_t i = 0; i < r->n; i++) {
			int v;

			if (!r->fo.whole[i / FP])
				continue;
			v = pc_uffd_wp_kept(protected(r->state[i]), protected(side[k][i]));
			m->checked++;
			if (pc_is_violation(v))
				pc_oracle_add_evidence(m, v,
						       (__u64)(uintptr_t)(r->rg.base + i * PAGE), 0,
						       1, 0, "folio %zu page %zu, %s after fork",
						       i / FP, i % FP, names[k]);
		}
	pc_slot_judge(a, slot);
	pc_oracle_appendf(m,
			  "%zu of %zu folios whole; entry %zu of each alone uffd-wp-protected, "
			  "read in the child and the parent after fork",
			  r->fo.n_whole, r->n / FP, r->p);
}

int fk_measure_uffd(struct pc_scenario_ctx *ctx, const void *data, struct pc_attempt *a)
{
	const struct fk_scenario *sc = data;
	int s_wp = pc_slot_add(a, ctx, PC_CHK_FORK_UFFD_WP, TIER_PAGEMAP);
	struct fu_run r = {
		.rg = {.fd = -1}, .uffd = {.fd = -1, .reader = -1}, .child = PC_SHARER_INIT};
	int ret;

	if (!pc_mthp_64k_on(ctx, a, false))
		return 0;
	r.n = pc_scaled_len(ctx, 1 * MIB, 4 * FP * PAGE, FP * PAGE) / PAGE;
	r.p = pc_pos_index(sc->pos, FP);
	if (fu_alloc(&r)) {
		ret = pc_skip_rest(a, "calloc", ENOMEM);
		goto out;
	}
	pc_window_begin(ctx, &a->win, &a->disturbed);
	ret = fu_state(ctx, a, &r);
	if (!ret)
		ret = fu_fork(a, &r);
	pc_window_end(ctx, &a->win, &a->disturbed);
	if (!ret)
		fu_judge(a, s_wp, &r);
out:
	fu_free(&r);
	return ret < 0 ? ret : 0;
}
