// SPDX-License-Identifier: GPL-2.0
/*
 * The mremap suite's probes of what a move must carry besides the PTEs:
 * write protection of pages shared with a child (fork: mremap/perms
 * [oracle:cow], the child in mremap_cow.c), dirty bits (MADV_FREE + reclaim: mremap/ad-bits
 * [oracle:data-loss]) and young bits (clear_refs + smaps Referenced:
 * mremap/ad-bits [oracle:smaps-referenced]).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mremap_int.h"
#include "sharer.h"
#include "procmm.h"
#include "report.h"

/* ---- COW isolation across fork and a move (perms) -------------------------- */

int mr_measure_fork(struct pc_scenario_ctx *ctx, const struct shape *sh, struct pc_attempt *a)
{
	const int s_cow = 0, s_moved = 1;
	struct mthp_count count = {"anon_fault_alloc"};
	struct pc_sharer child = PC_SHARER_INIT;
	struct move_snaps ms = {0};
	struct place pl = {0};
	size_t npages = mr_len(ctx, sh) / PAGE, shared = 0;
	__u8 *expected = malloc(npages), *seen = malloc(npages);
	const char *what;
	bool moved;
	ssize_t got;
	int ret;

	pc_slot_init(a, s_cow, ctx, PC_CHK_PERMS, TIER_COW);
	pc_slot_init(a, s_moved, ctx, PC_CHK_MOVED, TIER_PAGEMAP);
	if (!expected || !seen || mr_move_snaps_alloc(&ms, npages)) {
		ret = pc_skip_rest(a, "malloc", ENOMEM);
		goto out;
	}
	ret = mr_source_map(ctx, sh, a, &pl, sh->dst_off, -1, &count);
	if (ret)
		goto out;
	ret = pc_sharer_start(&child, pl.src, npages, NULL, &what);
	if (ret) {
		ret = pc_skip_rest(a, what, -ret);
		goto out;
	}
	/* Every other page gets a private copy; the rest stay shared, read-only. */
	for (size_t i = 0; i < npages; i += 2)
		memset(pl.src + i * PAGE, pc_page_byte(i, SALT_B), PAGE);
	/* Orders only for the note, read after: keep the measured window short. */
	ret = mr_move_snapped(ctx, &ms, pl.src, npages * PAGE, pl.dst, false, true, &moved);
	if (ret) {
		ret = pc_skip_rest(a, "pagemap/mremap", -ret);
		goto out;
	}
	/* After the move the parent writes everywhere: none may reach the child. */
	mr_fill_pages(pl.dst, 0, npages, SALT_B);
	for (size_t i = 0; i < npages; i++) {
		expected[i] = pc_page_byte(i, SALT_A);
		shared += (ms.before.pm[i] & PC_PM_PRESENT) && !(ms.before.pm[i] & PC_PM_EXCLUSIVE);
	}
	got = pc_sharer_collect(&child, seen, npages);
	pc_window_end(ctx, &a->win, &a->disturbed);
	if (got != (ssize_t)npages) {
		ret = pc_skip_rest(a, "sharing child did not report", got < 0 ? (int)-got : EPIPE);
		goto out;
	}
	mr_judge_cow(a, s_cow, expected, seen, npages, shared, (__u64)(uintptr_t)pl.src,
		     "at the move", mr_folios_formed(&ms.after, &count));
	mr_judge_moved(a, s_moved, &ms.before, &ms.after, &ms.vacated, (__u64)(uintptr_t)pl.src,
		       (__u64)(uintptr_t)pl.dst);
	ret = 0;
out:
	pc_window_end(ctx, &a->win, &a->disturbed);
	pc_sharer_stop(&child);
	mr_place_release(&pl);
	free(expected);
	free(seen);
	mr_move_snaps_free(&ms);
	return ret;
}

/* ---- dirty bits through MADV_FREE + reclaim (data loss) -------------------- */

/*
 * The start of the anonymous bit probes: the source mapped and filled, its
 * folios seen.  1 when no 64 KiB folio formed (slot skipped), 0, or -errno
 * (every slot skipped).
 */
static int bits_start(struct pc_scenario_ctx *ctx, const struct shape *sh, struct pc_attempt *a,
		      int slot, struct place *pl, struct snap *before, enum folios_seen *fs)
{
	struct mthp_count count = {"anon_fault_alloc"};
	int ret = mr_source_map(ctx, sh, a, pl, sh->dst_off, -1, &count);

	if (ret)
		return ret;
	ret = mr_snap_take(before, ctx, pl->src, true);
	if (ret)
		return pc_skip_rest(a, "pagemap", -ret);
	*fs = mr_folios_formed(before, &count);
	if (mr_no_large(*fs)) {
		pc_slot_skip(a, slot, "no 64 KiB folios formed: mTHP off?");
		return 1;
	}
	return 0;
}

/*
 * After reclaim: page 2 of each redirtied folio (was[f]) must hold what was
 * written; the others are the liveness control, discarded when read back
 * as the zero page.  Returns the folios discarded; *unwritten the controls.
 */
static size_t dirty_read_back(const char *dst, size_t nfolios, const bool *was, __u8 *written,
			      __u8 *seen, size_t *unwritten)
{
	size_t discarded = 0;

	*unwritten = 0;
	for (size_t f = 0; f < nfolios; f++) {
		size_t pg = f * PAGES_64K + (was[f] ? 2 : 0);
		const __u8 *p = (const __u8 *)dst + pg * PAGE;

		if (was[f]) {
			written[f] = pc_page_byte(pg, SALT_B);
			seen[f] = pc_block_seen(p, PAGE, written[f], NULL);
		} else {
			(*unwritten)++;
			discarded += pc_block_seen(p, PAGE, 0, NULL) == 0;
		}
	}
	return discarded;
}

/* Lazyfree, redirty the 3rd PTE of every other folio, move, reclaim: 0 or -errno. */
static int dirty_move_reclaim(struct pc_scenario_ctx *ctx, struct pc_attempt *a,
			      const struct place *pl, size_t nfolios, bool *was)
{
	int ret;

	/* Clean PTEs, lazyfree folios: reclaim may now drop what is not redirtied. */
	if (madvise(pl->src, pl->len, MADV_FREE))
		return pc_skip_rest(a, "MADV_FREE", errno);
	for (size_t f = 0; f < nfolios; f += 2) {
		size_t pg = f * PAGES_64K + 2;

		memset(pl->src + pg * PAGE, pc_page_byte(pg, SALT_B), PAGE);
		was[f] = true;
	}
	ret = mr_move_fixed(pl->src, pl->len, pl->dst);
	/* Our own MADV_PAGEOUT below is reclaim: not a disturbance. */
	pc_window_end(ctx, &a->win, &a->disturbed);
	if (ret)
		return pc_skip_rest(a, "mremap", -ret);
	if (madvise(pl->dst, pl->len, MADV_PAGEOUT))
		return pc_skip_rest(a, "MADV_PAGEOUT", errno);
	return 0;
}

int mr_measure_dirty(struct pc_scenario_ctx *ctx, const struct shape *sh, struct pc_attempt *a)
{
	const int s_data = 0;
	struct snap before = {0};
	struct place pl = {0};
	size_t len = mr_len(ctx, sh), nfolios = len / FOLIO_64K, discarded, unwritten;
	__u8 *written = calloc(nfolios, 1), *seen = calloc(nfolios, 1);
	bool *was = calloc(nfolios, sizeof(*was)), pinned = false;
	struct pc_oracle_msg *m = &a->msg[s_data];
	enum folios_seen fs;
	cpu_set_t oldmask;
	int ret;

	pc_slot_init(a, s_data, ctx, PC_CHK_ADBITS, TIER_DATA_LOSS);
	if (!written || !seen || !was || mr_snap_alloc(&before, len / PAGE)) {
		ret = pc_skip_rest(a, "malloc", ENOMEM);
		goto out;
	}
	/* One CPU while counters are measured. */
	pinned = pc_pin_cpu(&oldmask);
	ret = bits_start(ctx, sh, a, s_data, &pl, &before, &fs);
	if (!ret)
		ret = dirty_move_reclaim(ctx, a, &pl, nfolios, was);
	if (ret) {
		ret = ret < 0 ? ret : 0;
		goto out;
	}
	discarded = dirty_read_back(pl.dst, nfolios, was, written, seen, &unwritten);
	pc_compare_written(written, seen, was, nfolios, (__u64)(uintptr_t)pl.dst, FOLIO_64K, m);
	a->judged[s_data] = true;
	if (discarded == 0 && m->status == PC_STATUS_PASS) {
		pc_slot_skip(a, s_data,
			     "probe inconclusive: reclaim discarded no clean lazyfree folio (%zu "
			     "not redirtied)",
			     unwritten);
		a->retry = true;
	} else {
		pc_oracle_appendf(m,
				  " (page 2 of every other folio); control: %zu of %zu clean "
				  "folios discarded; %s",
				  discarded, unwritten, mr_folios_text(fs));
	}
out:
	if (pinned)
		sched_setaffinity(0, sizeof(oldmask), &oldmask);
	pc_window_end(ctx, &a->win, &a->disturbed);
	mr_place_release(&pl);
	free(written);
	free(seen);
	free(was);
	mr_snap_free(&before);
	return ret;
}

/* ---- young bits through clear_refs + smaps Referenced ---------------------- */

static int referenced_pages(const char *addr, __u64 *pages)
{
	struct pc_smaps sm;
	int ret = pc_smaps_read(0, (__u64)(uintptr_t)addr, &sm);

	if (ret)
		return ret;
	*pages = sm.referenced_kb / (PAGE / KIB);
	return 0;
}

/*
 * Clears the young bits (and flushes the TLB: clear_refs does not, and a
 * cached translation sets no bit), then reads the Referenced count.
 * 0, or pc_skip_rest's -errno.
 */
static int young_clear(struct pc_attempt *a, const struct place *pl, __u64 *ref_idle)
{
	int ret = pc_clear_refs();

	if (ret)
		return pc_skip_rest(a, "clear_refs", -ret);
	if (mprotect(pl->src, pl->len, PROT_NONE) ||
	    mprotect(pl->src, pl->len, PROT_READ | PROT_WRITE))
		return pc_skip_rest(a, "mprotect", errno);
	ret = referenced_pages(pl->src, ref_idle);
	return ret ? pc_skip_rest(a, "smaps", -ret) : 0;
}

int mr_measure_young(struct pc_scenario_ctx *ctx, const struct shape *sh, struct pc_attempt *a)
{
	const int s_ref = 0;
	struct snap before = {0};
	struct place pl = {0};
	size_t npages = mr_len(ctx, sh) / PAGE, touched = 0;
	__u64 ref_idle = 0, ref_after = 0;
	volatile const char *vp;
	enum folios_seen fs;
	int ret;

	pc_slot_init(a, s_ref, ctx, PC_CHK_ADBITS, TIER_REFERENCED);
	if (mr_snap_alloc(&before, npages)) {
		ret = pc_skip_rest(a, "malloc", ENOMEM);
		goto out;
	}
	ret = bits_start(ctx, sh, a, s_ref, &pl, &before, &fs);
	if (!ret)
		ret = young_clear(a, &pl, &ref_idle);
	if (ret) {
		ret = ret < 0 ? ret : 0;
		goto out;
	}
	vp = pl.src;
	for (size_t i = 0; i < npages; i += 4, touched++)
		(void)vp[i * PAGE + 100];
	if (ref_idle >= touched) {
		pc_slot_skip(a, s_ref,
			     "liveness: %llu pages referenced right after clear_refs (>= %zu to "
			     "touch): clear_refs did nothing",
			     (unsigned long long)ref_idle, touched);
		a->retry = true;
		goto out;
	}
	ret = mr_move_fixed(pl.src, pl.len, pl.dst);
	if (!ret)
		ret = referenced_pages(pl.dst, &ref_after);
	pc_window_end(ctx, &a->win, &a->disturbed);
	if (ret) {
		ret = pc_skip_rest(a, "mremap/smaps", -ret);
		goto out;
	}
	pc_compare_referenced(ref_after, touched, (__u64)(uintptr_t)pl.src,
			      (__u64)(uintptr_t)pl.dst, &a->msg[s_ref]);
	a->judged[s_ref] = true;
	pc_oracle_appendf(&a->msg[s_ref], " (%llu before the touches); %s",
			  (unsigned long long)ref_idle, mr_folios_text(fs));
out:
	pc_window_end(ctx, &a->win, &a->disturbed);
	mr_place_release(&pl);
	mr_snap_free(&before);
	return ret;
}
