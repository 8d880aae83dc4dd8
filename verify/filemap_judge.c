// SPDX-License-Identifier: GPL-2.0
/*
 * The filemap suite's judgements of one attempt:
 *
 *   filemap/ptes-set     [oracle:pagemap]    every touched page present; a page
 *                                            of file index i in a folio of nr
 *                                            pages maps head PFN + i % nr
 *                        [oracle:data]       bytes through the mapping = pread
 *   filemap/batch-bounds [oracle:pagemap]    nothing mapped outside the VMA or
 *                                            past EOF (shmem: past EOF's folio)
 *                        [oracle:sigbus]     SIGBUS beyond EOF stays
 *   filemap/rss-count    [oracle:status-rss] RssFile/RssShmem += pages present
 *
 * (filemap/rmap-count [oracle:kpagecount]: filemap_shared.c.)  Pagemap
 * shows presence and PFN only, not the write or dirty bit: the write half
 * of pc_fault_entry is judged with what pagemap gives (never writable, as
 * a read fault on a PROT_READ mapping must be), i.e. not at all.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>

#include "filemap_int.h"
#include "fullio.h"
#include "report.h"

/* ---- rss-count ---------------------------------------------------------------- */

static __u64 rss_pages(const struct pc_status_rss *r, bool shmem)
{
	return (shmem ? r->shmem_kb : r->file_kb) / (PAGE / KIB);
}

/* This mm's RssFile/RssShmem grew by the pages now present. */
void fm_judge_rss(struct pc_attempt *a, const struct fm_run *r)
{
	struct pc_oracle_msg *rm = &a->msg[S_RSS];
	const char *counter = r->f.shmem ? "RssShmem" : "RssFile";
	__s64 before = (__s64)rss_pages(&r->rss0, r->f.shmem),
	      after = (__s64)rss_pages(&r->rss1, r->f.shmem);
	size_t present = fm_map_present(&r->m);
	int v = pc_rss_delta(before, after, (__s64)present);

	if (!r->rss_ok) {
		pc_skip_rss_inexact(a, S_RSS, &r->calib);
		return;
	}
	rm->checked++;
	if (pc_is_violation(v))
		pc_oracle_add_evidence(rm, v, fm_va(&r->m, 0), 0, present, (__u64)(after - before),
				       "%s of /proc/self/status, pages present by pagemap",
				       counter);
	pc_slot_judge(a, S_RSS);
	snprintf(rm->summary, sizeof(rm->summary),
		 "%s: %s +%lld pages, %zu present by pagemap (calibrated: 37 anon pages = %ld)%s%s",
		 r->f.what, counter, (long long)(after - before), present, r->calib.seen37,
		 r->pinned ? "" : ", not pinned", r->locked ? "" : ", unlocked");
	if (present == 0 && rm->status == PC_STATUS_PASS)
		pc_oracle_skip(rm, "%s: nothing present: RSS delta of 0 proves nothing", r->f.what);
}

/* ---- ptes-set [oracle:pagemap] ------------------------------------------------ */

/* What the pagemap showed of the VMA's pages and folios. */
struct ptes_seen {
	size_t present, in_large, missing, folios;
	size_t straddle;   /* folios mapped across a 2 MiB virtual boundary */
	size_t edge;	   /* large folios the VMA cuts */
	size_t split_runs; /* premapped pages next to fresh ones of one folio */
};

/* The shape of page i's large folio (m->nr[i] > 1) as the liveness counts it. */
static void ptes_count_folio(const struct fm_map *m, size_t i, __u64 last_head, struct ptes_seen *c)
{
	__u64 idx = m->first_idx + i;
	bool same_as_prev = i > 0 && m->nr[i - 1] && m->head[i - 1] == m->head[i];

	c->in_large++;
	c->folios += m->head[i] != last_head;
	if (same_as_prev && fm_va(m, i) % PMD == 0)
		c->straddle++;
	if ((i == 0 && idx % m->nr[i]) || (i == m->npages - 1 && (idx + 1) % m->nr[i]))
		c->edge++;
	if (same_as_prev && !m->premap[i] != !m->premap[i - 1])
		c->split_runs++;
}

/*
 * Every touched page present; a present page of file index idx in a folio
 * of nr pages (naturally aligned in the page cache) maps the folio's head
 * PFN + idx % nr: pc_fault_entry with k = idx % nr.
 */
static void ptes_scan(struct pc_oracle_msg *pm, const struct fm_map *m, const bool *touched,
		      struct ptes_seen *c)
{
	__u64 last_head = 0;

	for (size_t i = 0; i < m->npages; i++) {
		__u64 idx = m->first_idx + i, want;
		struct pc_pte p = m->pte[i];
		int v;

		if (p.kind != PC_PTE_PRESENT) {
			if (touched[i]) {
				pm->checked++;
				c->missing++;
				pc_oracle_add_evidence(
					pm, PC_V_PTE_LOST, fm_va(m, i), 0, PC_PTE_PRESENT, p.kind,
					"touched, index %llu", (unsigned long long)idx);
			}
			continue;
		}
		c->present++;
		pm->checked++;
		if (m->nr[i] == 0)
			continue; /* folio unknown: presence only */
		want = m->head[i] + (idx & (m->nr[i] - 1));
		v = pc_fault_entry(p, m->head[i], (__u32)(idx & (m->nr[i] - 1)), false, false);
		if (pc_is_violation(v))
			pc_oracle_add_evidence(pm, v, fm_va(m, i), 0, want, p.pfn,
					       "index %llu, folio of %llu", (unsigned long long)idx,
					       (unsigned long long)m->nr[i]);
		if (m->premap[i] && m->premap[i] != p.pfn)
			pc_oracle_add_evidence(pm, PC_V_PFN_CHANGED, fm_va(m, i), 0, m->premap[i],
					       p.pfn, "premapped page, index %llu",
					       (unsigned long long)idx);
		if (m->nr[i] > 1)
			ptes_count_folio(m, i, last_head, c);
		last_head = m->head[i];
	}
}

/* A pass that could not have caught a bug is a SKIP that says why. */
static void ptes_liveness(const struct pc_scenario_ctx *ctx, struct pc_oracle_msg *pm,
			  const struct fm_shape *sh, const char *what, const struct ptes_seen *c)
{
	if (!ctx->have_kpageflags) {
		pc_oracle_skip(pm,
			       "%s: /proc/kpageflags not readable: folios unknown, presence of %zu "
			       "pages only",
			       what, c->present);
		return;
	}
	if (sh->want_large && c->in_large == 0) {
		pc_oracle_skip(pm,
			       "%s: no large folio formed (kpageflags)%s: fault-around mapped "
			       "single pages only",
			       what,
			       sh->backing == FB_MEMFD_64K && !ctx->mthp_shmem_64k
				       ? " (64 KiB shmem mTHP not enabled)"
				       : "");
		return;
	}
	if (sh->kind == K_STRADDLE && c->straddle == 0)
		pc_oracle_skip(
			pm, "%s: no large folio crossed the 2 MiB boundary (%zu in large folios)",
			what, c->in_large);
	else if (sh->kind == K_RANGE && c->edge == 0)
		pc_oracle_skip(pm, "%s: the VMA cut no large folio (%zu in large folios)", what,
			       c->in_large);
	else if (sh->kind == K_PREMAPPED && c->split_runs == 0)
		pc_oracle_skip(pm, "%s: no large folio mixed premapped and fresh pages", what);
	else if (sh->kind == K_STRADDLE)
		pc_oracle_appendf(pm, "; %zu folio(s) mapped across the PMD boundary", c->straddle);
	else if (sh->kind == K_RANGE)
		pc_oracle_appendf(pm, "; %zu folio(s) cut by the VMA", c->edge);
	else if (sh->kind == K_PREMAPPED)
		pc_oracle_appendf(pm, "; %zu premapped/fresh run boundaries", c->split_runs);
	pc_oracle_appendf(pm, " (pagemap: present+PFN only, no write bit)");
}

void fm_judge_ptes(const struct pc_scenario_ctx *ctx, struct pc_attempt *a, const struct fm_run *r)
{
	struct pc_oracle_msg *pm = &a->msg[S_PTES];
	struct ptes_seen c = {0};

	ptes_scan(pm, &r->m, r->touched, &c);
	pc_slot_judge(a, S_PTES);
	snprintf(pm->summary, sizeof(pm->summary),
		 "%s: %zu of %zu pages present, %zu in %zu large folios, PFN = head + "
		 "index %% nr for each; %zu touched pages missing",
		 r->f.what, c.present, r->m.npages, c.in_large, c.folios, c.missing);
	if (pm->status == PC_STATUS_PASS)
		ptes_liveness(ctx, pm, r->sh, r->f.what, &c);
}

/* ---- batch-bounds [oracle:pagemap] --------------------------------------------- */

/* Counts the PTEs in the NEIGHBOURS pages on each side of the VMA. */
static size_t bounds_outside(struct pc_oracle_msg *b, const struct fm_map *m)
{
	size_t outside = 0;

	for (size_t j = 0; j < 2 * NEIGHBOURS; j++) {
		bool before = j < NEIGHBOURS;
		size_t k = before ? j : m->npages + j;
		__u64 addr = fm_va(m, 0) - NEIGHBOURS * PAGE + k * PAGE;

		b->checked++;
		if (m->pm[k] & PC_PM_PRESENT) {
			outside++;
			pc_oracle_add_evidence(b, PC_V_OUTSIDE_VMA, addr, 0, 0,
					       m->pm[k] & PC_PM_PFN_MASK, "page %zu %s the VMA",
					       before ? NEIGHBOURS - j : j - NEIGHBOURS + 1,
					       before ? "before" : "after");
		}
	}
	return outside;
}

/* Counts the pages past EOF mapped (shmem: past EOF's folio, limit_bytes). */
static size_t bounds_past_eof(struct pc_oracle_msg *b, const struct fm_file *f,
			      const struct fm_map *m, __u64 limit_bytes)
{
	size_t past = 0;

	for (size_t i = 0; i < m->npages; i++) {
		__u64 idx = m->first_idx + i;

		if (!pc_page_past_eof(idx, f->i_size))
			continue;
		b->checked++;
		if (m->pte[i].kind == PC_PTE_PRESENT && pc_page_past_eof(idx, limit_bytes)) {
			past++;
			pc_oracle_add_evidence(b, PC_V_PAST_EOF, fm_va(m, i), 0, 0, m->pte[i].pfn,
					       "index %llu, i_size %zu", (unsigned long long)idx,
					       f->i_size);
		}
	}
	return past;
}

/* fault_around_bytes from debugfs; the kernel's default, 64 KiB, when it
   cannot be read (debugfs not mounted). */
static __u64 fault_around_bytes(void)
{
	unsigned long long v = 0;
	FILE *f = fopen("/sys/kernel/debug/fault_around_bytes", "re");

	if (f) {
		if (fscanf(f, "%llu", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v ? v : 64 * KIB;
}

/*
 * The tail_piece shapes' state (7c9580f44f90's): the fault-around window
 * that holds the EOF page begins with a folio wholly below EOF, so a
 * kernel that decides "may map whole" by the window's first folio maps
 * EOF's folio whole.  The window: fault_around_bytes, aligned, as
 * do_fault_around places it.  false, and the slot skipped saying why,
 * when the state was not made.
 */
static bool window_first_below_eof(struct pc_oracle_msg *b, const struct fm_run *r)
{
	const struct fm_map *m = &r->m;
	__u64 eof_idx = DIV_UP(r->f.i_size, PAGE) - 1, fa = fault_around_bytes() / PAGE;
	__u64 ws = fa > 1 ? eof_idx & ~(fa - 1) : eof_idx, nr, at;
	size_t i = (size_t)(ws - m->first_idx);

	if (ws < m->first_idx || i >= m->npages || !m->nr[i]) {
		pc_oracle_skip(b,
			       "%s: the first folio of EOF's fault-around window (index %llu) is "
			       "not known: whether it decided alone is unknown",
			       r->f.what, (unsigned long long)ws);
		return false;
	}
	nr = m->nr[i];
	at = ws & ~(nr - 1);
	if (at + nr > eof_idx) {
		pc_oracle_skip(b,
			       "%s: the first folio of EOF's fault-around window (%llu pages at "
			       "index %llu) reaches the EOF page: no folio below EOF opens the "
			       "window",
			       r->f.what, (unsigned long long)nr, (unsigned long long)at);
		return false;
	}
	pc_oracle_appendf(b,
			  "; EOF's fault-around window (%llu pages) opens with a %llu-page folio "
			  "below EOF",
			  (unsigned long long)fa, (unsigned long long)nr);
	return true;
}

/* A pass that could not have caught a bug is a SKIP that says why. */
static void bounds_liveness(struct pc_attempt *a, bool ctx_kpageflags, const struct fm_run *r,
			    size_t beyond_eof_cached)
{
	struct pc_oracle_msg *b = &a->msg[S_BOUNDS];
	const struct fm_map *m = &r->m;
	const char *what = r->f.what;
	size_t cut = 0;

	if (r->sh->kind == K_RANGE) {
		for (size_t i = 0; i < m->npages; i++)
			if (m->nr[i] > 1 &&
			    ((i == 0 && (m->first_idx + i) % m->nr[i]) ||
			     (i == m->npages - 1 && (m->first_idx + i + 1) % m->nr[i])))
				cut++;
		if (cut == 0)
			pc_oracle_skip(
				b,
				"%s: no large folio crossed the VMA's ends: nothing outside to map",
				what);
		else
			pc_oracle_appendf(b, "; %zu folio(s) cross the VMA's ends", cut);
		return;
	}
	if (!r->eof_known) {
		pc_oracle_skip(b,
			       "%s: EOF page not present or folio unknown: whether a folio crosses "
			       "EOF is unknown",
			       what);
		a->retry = ctx_kpageflags; /* not present: reclaim, try again */
	} else if (r->f.shmem) {
		pc_oracle_skip(b,
			       "%s: shmem may map EOF's folio across i_size; nothing past it is "
			       "cached (SIGBUS judged instead)",
			       what);
	} else if (r->sh->deep && r->race.lost) {
		/* Written back meanwhile, as the flusher does after
		   vm.dirty_expire_centisecs (PC_NEEDS_DIRTY_HELD): a fresh file
		   may keep it. */
		a->retry = true;
		pc_oracle_skip(b,
			       "%s: the pinned folio left the page cache during the race (%lu "
			       "rounds): a truncation that cannot split it drops it whole once "
			       "writeback has cleaned it%s%s",
			       what, r->race.rounds, r->race.unheld ? "; " : "",
			       r->race.unheld ? r->race.unheld : "");
	} else if (beyond_eof_cached == 0) {
		/* deep: the file is written whole for one large folio, but the
		   folio sizes the page cache gives are chance (an x86_64 7.x
		   boot gave small ones, the next one large): a fresh file may
		   make the state, as below. */
		if (r->sh->deep)
			a->retry = true;
		pc_oracle_skip(b, "%s: no folio crosses EOF: nothing past EOF was cached to map",
			       what);
	} else if (r->sh->deep && r->eof_folio_end <= fm_deep_from(r->f.i_size)) {
		/* The folio sizes readahead gave, and the race, are chance: a
		   fresh file may make the state (a skip in one boot and a pass
		   in the next read as lost coverage to the gate). */
		a->retry = true;
		pc_oracle_skip(b,
			       "%s: EOF's folio ends at index %zu, before the windows wholly past "
			       "EOF (index %zu on): no folio there for the race to meet",
			       what, r->eof_folio_end, fm_deep_from(r->f.i_size));
	} else if (r->sh->deep && !r->race.populated) {
		/* The pass of the quiescent file stands for the race only where
		   fault-around ran over that folio between the shrinks. */
		a->retry = true;
		pc_oracle_skip(b,
			       "%s: no round of the race faulted the windows past the short EOF "
			       "while the file was long (%lu rounds, all found it short): the "
			       "state a racing truncation needs was not made",
			       what, r->race.rounds);
	} else if (!r->sh->tail_piece || window_first_below_eof(b, r)) {
		pc_oracle_appendf(b, "; EOF's folio holds %zu pages past EOF", beyond_eof_cached);
		if (r->sh->deep)
			pc_oracle_appendf(b,
					  "; %lu rounds of the race faulted the windows past the "
					  "short EOF while the file was long",
					  r->race.populated);
	}
}

/* Nothing outside the VMA, nothing past EOF; finds EOF's folio for the SIGBUS probe. */
void fm_judge_bounds(struct pc_attempt *a, bool ctx_kpageflags, struct fm_run *r)
{
	struct pc_oracle_msg *b = &a->msg[S_BOUNDS];
	const struct fm_map *m = &r->m;
	__u64 eof_pages = DIV_UP(r->f.i_size, PAGE), limit_bytes = r->f.i_size;
	size_t eof_i = (size_t)(eof_pages - 1 - m->first_idx), outside, past = 0;
	size_t beyond_eof_cached = 0;

	r->eof_folio_end = (size_t)eof_pages;
	r->eof_known = false;
	/* The EOF page's folio: where shmem may map to, and the liveness. */
	if (eof_pages > m->first_idx && eof_i < m->npages && m->nr[eof_i]) {
		__u64 idx = eof_pages - 1, nr = m->nr[eof_i];

		r->eof_folio_end = (size_t)((idx & ~(nr - 1)) + nr);
		beyond_eof_cached = r->eof_folio_end - eof_pages;
		r->eof_known = true;
		if (r->f.shmem)
			limit_bytes = (__u64)r->eof_folio_end * PAGE;
	}
	outside = bounds_outside(b, m);
	if (fm_eof_kind(r->sh->kind))
		past = bounds_past_eof(b, &r->f, m, limit_bytes);
	pc_slot_judge(a, S_BOUNDS);
	snprintf(b->summary, sizeof(b->summary),
		 "%s: %zu PTEs outside the VMA (%d pages each side), %zu past %s", r->f.what,
		 outside, NEIGHBOURS, past,
		 r->f.shmem ? "EOF's folio (shmem may map across i_size)" : "EOF");
	if (b->status == PC_STATUS_PASS)
		bounds_liveness(a, ctx_kpageflags, r, beyond_eof_cached);
}

/* ---- batch-bounds [oracle:sigbus] ----------------------------------------------- */

/* SIGBUS past EOF (shmem: past EOF's folio), after the pagemap judged it. */
void fm_judge_sigbus(struct pc_attempt *a, const struct fm_run *r)
{
	struct pc_oracle_msg *sb = &a->msg[S_SIGBUS];
	const struct fm_file *f = &r->f;
	const struct fm_map *m = &r->m;
	size_t eof_pages = DIV_UP(f->i_size, PAGE);
	/* shmem without EOF's folio known: past all that was ever cached */
	size_t at = !f->shmem ? eof_pages : r->eof_known ? r->eof_folio_end : DIV_UP(f->len, PAGE);
	int sig;

	if (at >= m->first_idx + m->npages) {
		pc_slot_skip(a, S_SIGBUS, "%s: no page of the VMA lies past %s", f->what,
			     f->shmem ? "EOF's folio" : "EOF");
		return;
	}
	sig = pc_probe_read(m->addr + (at - m->first_idx) * PAGE);
	sb->checked++;
	if (sig != SIGBUS)
		pc_oracle_add_evidence(sb, PC_V_PAST_EOF, fm_va(m, at - m->first_idx), 0, SIGBUS,
				       (__u64)sig, "read of index %zu (i_size %zu) raised %s", at,
				       f->i_size, sig ? "another signal" : "no signal");
	pc_slot_judge(a, S_SIGBUS);
	snprintf(sb->summary, sizeof(sb->summary), "%s: read of index %zu past %s (i_size %zu) %s",
		 f->what, at, f->shmem ? "EOF's folio" : "the EOF page", f->i_size,
		 sig == SIGBUS ? "raised SIGBUS" : "did not raise SIGBUS");
	if (r->sh->kind == K_TRUNCATE)
		pc_oracle_appendf(sb, "; race: %lu SIGBUS in %lu rounds%s", r->race.sigbus,
				  r->race.rounds,
				  r->race.sigbus ? "" : " (no truncation met a fault)");
	if (r->sh->deep)
		pc_oracle_appendf(sb, " (%lu rounds faulted the long file)", r->race.populated);
}

/* ---- ptes-set [oracle:data] ------------------------------------------------------ */

/* The file by pread against what was written: bytes that differ. */
static size_t data_file(struct pc_oracle_msg *d, const struct fm_file *f, const unsigned char *file)
{
	size_t bad = 0;

	for (size_t k = 0; k < f->i_size; k++)
		if (file[k] != f->expect[k] && bad++ == 0)
			pc_oracle_add_evidence(d, PC_V_DATA_LOST, 0, 0, f->expect[k], file[k],
					       "file byte %zu, read back by pread", k);
	return bad;
}

/* The mapping against pread of the file, page by page: pages that differ. */
static size_t data_mapping(struct pc_oracle_msg *d, const struct fm_run *r, size_t *compared)
{
	const struct fm_map *m = &r->m;
	size_t bad = 0;

	*compared = 0;
	for (size_t i = 0; i < r->touch_to && i < m->npages; i++) {
		unsigned char want = 0;
		size_t c, first;

		if (m->first_idx + i >= DIV_UP(r->f.i_size, PAGE))
			break;
		c = fm_page_mismatches(m->addr + i * PAGE, m->first_idx + i, r->file, r->f.i_size,
				       &first, &want);
		(*compared)++;
		if (pc_is_violation(pc_bytes_equal(c))) {
			bad++;
			pc_oracle_add_evidence(d, PC_V_DATA_MISMATCH, fm_va(m, i) + first, 0, want,
					       (unsigned char)m->addr[i * PAGE + first],
					       "index %llu: %zu bytes, the first at offset %zu",
					       (unsigned long long)(m->first_idx + i), c, first);
		}
	}
	return bad;
}

int fm_judge_data(const struct pc_scenario_ctx *ctx, struct pc_attempt *a, struct fm_run *r)
{
	struct pc_oracle_msg *d = &a->msg[S_DATA];
	size_t bad_map, bad_file, cmp;
	int ret = pc_pread_full(r->f.fd, r->file, r->f.i_size, 0);

	if (ret)
		return pc_skip_rest(a, "pread", -ret);
	bad_file = data_file(d, &r->f, r->file);
	bad_map = data_mapping(d, r, &cmp);
	d->checked += cmp;
	if (r->sh->kind == K_SHARED) {
		ret = fm_judge_rmap(ctx, a, r);
		if (ret)
			return pc_skip_rest(a, "the other mappers", -ret);
	}
	pc_slot_judge(a, S_DATA);
	snprintf(d->summary, sizeof(d->summary),
		 "%s: %zu pages read through the mapping, %zu differ from pread; file differs "
		 "from what was written in %zu bytes",
		 r->f.what, cmp, bad_map, bad_file);
	if (r->sh->kind == K_SHARED)
		pc_oracle_appendf(d, "; and by %d other mappers", r->sh->nproc);
	return 0;
}
