// SPDX-License-Identifier: GPL-2.0
/*
 * The mremap suite's snapshots (pagemap, kpageflags folio orders) around a
 * move, and the judgements made of them: mremap/moved, mremap/folio-intact
 * and whether large folios formed at all.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "mremap_int.h"
#include "procmm.h"
#include "report.h"

int mr_snap_alloc(struct snap *s, size_t n)
{
	memset(s, 0, sizeof(*s));
	s->n = n;
	s->pm = calloc(n, sizeof(*s->pm));
	s->pte = calloc(n, sizeof(*s->pte));
	s->pfn = calloc(n, sizeof(*s->pfn));
	s->order = calloc(n, sizeof(*s->order));
	return s->pm && s->pte && s->pfn && s->order ? 0 : -ENOMEM;
}

void mr_snap_free(struct snap *s)
{
	free(s->pm);
	free(s->pte);
	free(s->pfn);
	free(s->order);
	memset(s, 0, sizeof(*s));
}

int mr_snap_take(struct snap *s, const struct pc_scenario_ctx *ctx, const char *addr, bool orders)
{
	int ret = pc_pagemap_read(0, (__u64)(uintptr_t)addr, s->n, s->pm);

	if (ret)
		return ret;
	pc_pagemap_to_ptes(s->pm, s->n, s->pte);
	s->pfns_visible = pc_pagemap_pfns_visible(s->pm, s->n);
	for (size_t i = 0; i < s->n; i++)
		s->pfn[i] = s->pte[i].kind == PC_PTE_PRESENT ? s->pte[i].pfn : 0;
	s->order_err = -ENODATA;
	if (orders && ctx->have_kpageflags && s->pfns_visible)
		s->order_err = pc_folio_orders(s->pfn, s->n, s->order);
	return 0;
}

int mr_move_snaps_alloc(struct move_snaps *m, size_t n)
{
	int ret = mr_snap_alloc(&m->before, n);

	if (!ret)
		ret = mr_snap_alloc(&m->after, n);
	if (!ret)
		ret = mr_snap_alloc(&m->vacated, n);
	return ret;
}

void mr_move_snaps_free(struct move_snaps *m)
{
	mr_snap_free(&m->before);
	mr_snap_free(&m->after);
	mr_snap_free(&m->vacated);
}

/* The old range becomes reservation again, so stale PTEs would show. */
static int rereserve(char *addr, size_t len)
{
	void *p = mmap(addr, len, PROT_NONE,
		       MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	return p == MAP_FAILED ? -errno : 0;
}

int mr_move_snapped(const struct pc_scenario_ctx *ctx, struct move_snaps *m, char *from, size_t len,
		    char *to, bool orders_before, bool orders_after, bool *moved)
{
	int ret = mr_snap_take(&m->before, ctx, from, orders_before);

	*moved = false;
	if (!ret)
		ret = mr_move_fixed(from, len, to);
	if (ret)
		return ret;
	*moved = true;
	ret = mr_snap_take(&m->after, ctx, to, orders_after);
	if (!ret)
		ret = rereserve(from, len);
	if (!ret)
		ret = mr_snap_take(&m->vacated, ctx, from, false);
	return ret;
}

static size_t count_large(const struct snap *s)
{
	size_t c = 0;

	for (size_t i = 0; i < s->n; i++)
		c += s->order[i] != PC_FOLIO_ORDER_NONE && s->order[i] > 0;
	return c;
}

const char *mr_folios_text(enum folios_seen f)
{
	switch (f) {
	case FOLIOS_LARGE:
		return "large folios seen (kpageflags)";
	case FOLIOS_STATS_SOME:
		return "64 KiB folios per global mTHP stats only";
	case FOLIOS_NONE:
	case FOLIOS_STATS_NONE:
		return "no 64 KiB folios";
	default:
		return "folio sizes unknown";
	}
}

enum folios_seen mr_folios_formed(const struct snap *s, const struct mthp_count *count)
{
	__u64 after = 0;

	if (s->order_err == 0)
		return count_large(s) ? FOLIOS_LARGE : FOLIOS_NONE;
	if (!count->ok || pc_mthp_stat(count->name, &after))
		return FOLIOS_UNKNOWN;
	return after > count->before ? FOLIOS_STATS_SOME : FOLIOS_STATS_NONE;
}

bool mr_no_large(enum folios_seen f)
{
	return f == FOLIOS_NONE || f == FOLIOS_STATS_NONE;
}

/*
 * mremap/moved with the shared predicate.  Without visible PFNs only
 * presence can be compared: a lost or invented PTE still fails, but no
 * violation is only a SKIP, since "the same page" was not judged.
 */
void mr_judge_moved(struct pc_attempt *a, int slot, const struct snap *before,
		    const struct snap *after, const struct snap *vacated, __u64 old_addr,
		    __u64 new_addr)
{
	struct pc_oracle_msg *m = &a->msg[slot];

	pc_compare_moved(before->pte, after->pte, before->n, old_addr, new_addr, before->move, m);
	if (vacated)
		pc_compare_vacated(vacated->pte, vacated->n, old_addr, m);
	a->judged[slot] = true;
	if (pc_pagemap_count_present(before->pm, before->n) == 0) {
		pc_oracle_skip(m, "nothing present at entry: nothing was moved");
		return;
	}
	if (!before->pfns_visible && m->status == PC_STATUS_PASS)
		pc_oracle_skip(m,
			       "PFNs hidden (no CAP_SYS_ADMIN): presence matched in %llu slots "
			       "(moved and vacated), same page not judged",
			       (unsigned long long)m->checked);
}

void mr_judge_folios(struct pc_attempt *a, int slot, bool ctx_kpageflags, const struct snap *before,
		     const struct snap *after, bool want_large, __u64 old_addr, __u64 new_addr)
{
	struct pc_oracle_msg *m = &a->msg[slot];

	if (!ctx_kpageflags || before->order_err == -ENODATA || after->order_err == -ENODATA) {
		pc_slot_skip(
			a, slot, "%s",
			!ctx_kpageflags
				? "/proc/kpageflags not readable (needs root)"
				: "PFNs hidden by pagemap (no CAP_SYS_ADMIN): folios not found");
		return;
	}
	if (before->order_err || after->order_err) {
		/* ESTALE: a folio changed while read, likely reclaim or migration */
		pc_slot_skip(a, slot, "kpageflags walk failed: %s",
			     strerror(-(before->order_err ? before->order_err : after->order_err)));
		a->retry = true;
		return;
	}
	if (want_large && count_large(before) == 0) {
		pc_slot_skip(a, slot, "no 64 KiB folios formed: mTHP off?");
		return;
	}
	pc_compare_folio_orders(before->order, after->order, before->n, old_addr, new_addr, m);
	a->judged[slot] = true;
}
