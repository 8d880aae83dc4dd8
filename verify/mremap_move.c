// SPDX-License-Identifier: GPL-2.0
/*
 * The mremap suite's plain move: mremap/moved (pagemap) and folio-intact
 * (kpageflags) of every shape, and for shared backings the data-loss probe
 * (unmap, evict, read back through the file).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mremap_int.h"
#include "fullio.h"
#include "procmm.h"
#include "report.h"
#include "shape.h"

/* Pages of fd [off, off + len) still in the page cache, by mincore on a new mapping. */
static long resident_pages(int fd, size_t off, size_t len)
{
	size_t n = len / PAGE;
	unsigned char *vec = malloc(n);
	long c;
	void *p;

	if (!vec)
		return -ENOMEM;
	p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, (off_t)off);
	if (p == MAP_FAILED) {
		free(vec);
		return -errno;
	}
	c = pc_pages_cached(p, n, vec);
	munmap(p, len);
	free(vec);
	return c;
}

/*
 * What the eviction left: pages in the page cache (of the control folio
 * with pte_dirty; -1 when not evicted: shmem; -errno when not counted)
 * and, with pte_dirty, the control's PTEs MADV_PAGEOUT left mapped and
 * the 64 KiB folios split meanwhile (mTHP stats, global; -1: unread).
 */
struct evicted {
	long resident;
	size_t mapped;
	long splits;
};

/* MADV_PAGEOUT of [p, p + len), ev->splits counted around it: 0 or -errno. */
static int pageout_counted(char *p, size_t len, struct evicted *ev)
{
	__u64 before, after;
	bool counted = pc_mthp_stat("split", &before) == 0;
	int ret = madvise(p, len, MADV_PAGEOUT) ? -errno : 0;

	counted = counted && pc_mthp_stat("split", &after) == 0;
	ev->splits = counted ? (long)(after - before) : -1;
	return ret;
}

/*
 * Pages out a memfd through a new mapping, read in so that MADV_PAGEOUT
 * finds PTEs: reclaim unmaps each folio, drops a clean shmem folio and
 * keeps (or swaps) a dirty one (no swap: shmem_writeout redirties it), so
 * no swap is needed.  The mapping starts at a 2 MiB boundary: at a merely
 * page-aligned one a folio can straddle a PMD boundary, the walk of each
 * PMD sees part of it and splits it, and a split unmaps a file folio's
 * pieces, which the walk then skips: they stay in the page cache.  0, or
 * -errno.
 */
static int page_out(int fd, size_t len, struct evicted *ev)
{
	struct pc_resv resv = {0};
	char *p = pc_resv_map(&resv, len + PMD);
	__u64 pm[PAGES_64K];
	int ret = p ? 0 : -errno;

	if (!ret && mmap(p, len, PROT_READ, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED)
		ret = -errno;
	if (!ret) {
		mr_read_pages(p, len / PAGE);
		ret = pageout_counted(p, len, ev);
	}
	if (!ret)
		ret = pc_pagemap_read(0, (__u64)(uintptr_t)(p + len - FOLIO_64K), PAGES_64K, pm);
	if (!ret)
		ev->mapped = pc_pagemap_count_present(pm, PAGES_64K);
	pc_resv_release(&resv);
	if (!ret)
		ev->resident = resident_pages(fd, len - FOLIO_64K, FOLIO_64K);
	return ret ? ret : ev->resident < 0 ? (int)ev->resident : 0;
}

/*
 * Unmaps the moved range, pushes a file to storage and evicts it (pages a
 * pte_dirty memfd out), reads the whole backing back with pread (the page
 * cache or storage, not the PTEs) and reduces each page to the byte the
 * oracle compares; *ev: what the eviction left.  0, or -errno with *what
 * naming the failed step.
 */
static int read_back(const struct shape *sh, const struct place *pl, int fd, size_t len,
		     __u8 *written, __u8 *seen, struct evicted *ev, const char **what)
{
	size_t mlen = len - sh->head - sh->tail, npages = len / PAGE;
	char *buf = malloc(len);
	int ret;

	ev->resident = -1;
	*what = "malloc";
	if (!buf)
		return -ENOMEM;
	*what = "munmap/fsync/fadvise/pread";
	/* The unmoved ends stay mapped: the kernel keeps them as they are. */
	ret = munmap(pl->dst + sh->head, mlen) ? -errno : 0;
	if (!ret && sh->backing == B_FILE) {
		ret = fsync(fd) ? -errno : 0;
		if (!ret)
			ret = -posix_fadvise(fd, 0, (off_t)len, POSIX_FADV_DONTNEED);
		if (!ret)
			ev->resident = resident_pages(fd, 0, len);
	} else if (!ret && sh->pte_dirty) {
		*what = "mmap/MADV_PAGEOUT/pagemap/mincore of the memfd";
		ret = page_out(fd, len, ev);
	}
	if (!ret)
		ret = pc_pread_full(fd, buf, len, 0);
	for (size_t i = 0; !ret && i < npages; i++) {
		written[i] = pc_page_byte(i, SALT_A);
		seen[i] = pc_block_seen((const __u8 *)buf + i * PAGE, PAGE, written[i], NULL);
	}
	free(buf);
	return ret;
}

/*
 * Why a pte_dirty probe is inconclusive: its clean control folio was not
 * dropped, so a folio whose dirty bit was lost might not have been
 * either.  Still mapped: MADV_PAGEOUT did not take it off the LRU, or
 * reclaim could not lock or unmap it.  Unmapped: a split (the walk splits
 * a folio it sees only part of, and leaves a file folio's pieces unmapped
 * in the page cache), else reclaim kept it for a reference besides the
 * page cache's.
 */
static void control_kept(struct pc_attempt *a, int slot, const struct evicted *ev)
{
	if (ev->mapped)
		pc_slot_skip(a, slot,
			     "probe inconclusive: MADV_PAGEOUT left the clean control folio mapped "
			     "(%zu of its PTEs): not isolated from the LRU, or reclaim could not "
			     "lock or unmap it",
			     ev->mapped);
	else if (ev->splits > 0)
		pc_slot_skip(a, slot,
			     "probe inconclusive: %ld pages of the clean control folio left in the "
			     "page cache, unmapped; the 64 KiB split count rose by %ld during "
			     "MADV_PAGEOUT (its walk splits a folio it sees only part of)",
			     ev->resident, ev->splits);
	else
		pc_slot_skip(
			a, slot,
			"probe inconclusive: reclaim unmapped the clean control folio but kept "
			"%ld of its pages in the page cache%s: a reference besides the page "
			"cache's (pinned or looked up meanwhile)",
			ev->resident, ev->splits == 0 ? ", no 64 KiB folio split" : "");
	a->retry = true;
}

/* The verdict's note, or its skip. */
static void data_loss_note(const struct shape *sh, struct pc_attempt *a, int slot,
			   const struct evicted *ev, size_t npages)
{
	struct pc_oracle_msg *m = &a->msg[slot];
	long res = ev->resident;

	if (sh->pte_dirty && res > 0 && m->status == PC_STATUS_PASS) {
		control_kept(a, slot, ev);
	} else if (sh->pte_dirty) {
		pc_oracle_appendf(m, " (written through clean PTEs, paged out after munmap; "
				     "clean control folio dropped)");
	} else if (sh->backing != B_FILE) {
		pc_oracle_appendf(m, " (pread of the memfd after munmap)");
	} else if (res == (long)npages && m->status == PC_STATUS_PASS) {
		/* Read from the cache: a lost dirty bit would not show. */
		pc_slot_skip(a, slot,
			     "probe inconclusive: POSIX_FADV_DONTNEED evicted no page (tmpfs?); "
			     "read back from the page cache");
		a->retry = true;
	} else if (res >= 0) {
		pc_oracle_appendf(m, "; %ld of %zu pages evicted first", (long)npages - res,
				  npages);
	}
}

/* mremap/ad-bits [oracle:data-loss] of a shared backing after the move. */
static int judge_data_loss(const struct shape *sh, struct pc_attempt *a, int slot,
			   const struct place *pl, int fd, size_t len)
{
	size_t npages = len / PAGE;
	__u8 *written = calloc(npages, 1), *seen = calloc(npages, 1);
	bool *was = sh->pte_dirty ? calloc(npages, sizeof(*was)) : NULL;
	struct evicted ev = {-1, 0, -1};
	const char *what = "malloc";
	int ret = -ENOMEM;

	if (written && seen && (was || !sh->pte_dirty))
		ret = read_back(sh, pl, fd, len, written, seen, &ev, &what);
	for (size_t i = 0; was && i < npages; i++)
		was[i] = mr_pte_dirty_page(i, npages);
	if (!ret) {
		pc_compare_written(written, seen, was, npages, (__u64)(uintptr_t)pl->src, PAGE,
				   &a->msg[slot]);
		a->judged[slot] = true;
		data_loss_note(sh, a, slot, &ev, npages);
	}
	free(written);
	free(seen);
	free(was);
	return ret ? pc_skip_rest(a, what, -ret) : 0;
}

/* The checks a move reports: moved always, the others by shape (-1 when not). */
struct move_slots {
	int moved, folio, data;
};

static struct move_slots move_slots_init(struct pc_scenario_ctx *ctx, const struct shape *sh,
					 struct pc_attempt *a)
{
	struct move_slots s;

	s.moved = pc_slot_add(a, ctx, PC_CHK_MOVED, TIER_PAGEMAP);
	s.folio = sh->folio_check ? pc_slot_add(a, ctx, PC_CHK_FOLIO_INTACT, TIER_KPAGEFLAGS) : -1;
	s.data = sh->backing != B_ANON ? pc_slot_add(a, ctx, PC_CHK_ADBITS, TIER_DATA_LOSS) : -1;
	return s;
}

int mr_measure_move(struct pc_scenario_ctx *ctx, const struct shape *sh, struct pc_attempt *a)
{
	struct move_slots s = move_slots_init(ctx, sh, a);
	struct mthp_count count = {sh->backing == B_SHMEM ? "shmem_alloc" : "anon_fault_alloc"};
	struct move_snaps ms = {0};
	struct place pl = {0};
	size_t len = mr_len(ctx, sh), mlen = len - sh->head - sh->tail;
	char *mv, *to;
	int fd = -1, ret;
	bool moved, pinned = false;
	cpu_set_t oldmask;

	if (mr_move_snaps_alloc(&ms, mlen / PAGE)) {
		ret = pc_skip_rest(a, "calloc", ENOMEM);
		goto out;
	}
	if (sh->backing != B_ANON) {
		fd = mr_open_backing(ctx, sh->backing, len);
		if (fd < 0) {
			ret = pc_skip_rest(a, sh->backing == B_SHMEM ? "memfd_create" : "tmpfile",
					   -fd);
			goto out;
		}
	}
	/*
	 * One CPU from the fault-in to the page-out: small folios wait in the
	 * faulting CPU's LRU batch, off the LRU, and MADV_PAGEOUT drains only
	 * its own CPU's before it isolates (large folios are never batched).
	 */
	pinned = sh->pte_dirty && pc_pin_cpu(&oldmask);
	/* The source stays folio aligned; dst_off places the moved part. */
	ret = mr_source_map(ctx, sh, a, &pl, sh->dst_off - sh->head, fd, &count);
	if (ret)
		goto out;
	mv = pl.src + sh->head;
	to = pl.dst + sh->head;
	ret = mr_move_snapped(ctx, &ms, mv, mlen, to, sh->folio_check, sh->folio_check, &moved);
	pc_window_end(ctx, &a->win, &a->disturbed);
	if (ret) {
		ret = pc_skip_rest(a, moved ? "pagemap after the move" : "pagemap/mremap", -ret);
		goto out;
	}

	mr_judge_moved(a, s.moved, &ms.before, &ms.after, &ms.vacated, (__u64)(uintptr_t)mv,
		       (__u64)(uintptr_t)to);
	if (sh->want_large)
		pc_oracle_appendf(&a->msg[s.moved], "; %s",
				  mr_folios_text(mr_folios_formed(&ms.before, &count)));
	if (s.folio >= 0 && sh->shrink) {
		mr_judge_folios_shrunk(ctx, a, s.folio, &ms, (__u64)(uintptr_t)mv,
				       (__u64)(uintptr_t)to);
	} else if (s.folio >= 0) {
		mr_judge_folios(a, s.folio, ctx->have_kpageflags, &ms.before, &ms.after,
				sh->want_large, (__u64)(uintptr_t)mv, (__u64)(uintptr_t)to);
		if (sh->backing == B_SHMEM && !ctx->mthp_shmem_64k && !a->judged[s.folio])
			pc_oracle_appendf(&a->msg[s.folio], " (shmem mTHP not enabled)");
	}
	ret = s.data >= 0 ? judge_data_loss(sh, a, s.data, &pl, fd, len) : 0;
	/* Which PTE-dirty variant ran: a batch spans a large folio only. */
	if (!ret && sh->pte_dirty && a->msg[s.data].status != PC_STATUS_SKIP)
		pc_oracle_appendf(&a->msg[s.data], "; %s%s",
				  mr_folios_text(mr_folios_formed(&ms.before, &count)),
				  sh->form_aligned ? ", 4 KiB off 64 KiB: never folded" : "");
out:
	pc_window_end(ctx, &a->win, &a->disturbed);
	if (pinned)
		sched_setaffinity(0, sizeof(oldmask), &oldmask);
	mr_place_release(&pl);
	if (fd >= 0)
		close(fd);
	mr_move_snaps_free(&ms);
	return ret;
}
