// SPDX-License-Identifier: GPL-2.0
/*
 * contpte/gather: one access pattern (contpte_patterns.h) in every other
 * block of the region, judged by two userspace oracles:
 *
 *   oracle:data-loss        MADV_FREE cleans the folios (lazyfree); a write
 *                           to page K redirties entry K only; MADV_PAGEOUT
 *                           then discards clean folios and must keep dirty
 *                           ones: reclaim gathers the block's dirty bit in
 *                           try_to_unmap, so a lost bit reads back as zeros.
 *                           Liveness: the untouched control blocks in
 *                           between must really be discarded.
 *   oracle:smaps-referenced clear_refs + a TLB bounce, read page J, then
 *                           rewrite every block from its gathered value
 *                           (mprotect: get_and_clear + set_ptes): a young bit
 *                           lost there leaves the block unreferenced in
 *                           smaps.  Liveness: Referenced right before the
 *                           touches is below the pages to be touched.
 *
 * Reading entry K itself always shows entry K's own bit, so smaps alone
 * cannot see a broken gather; the rewrite makes a lost bit stay lost.
 *
 * The kernel tier (bpf/contpte.bpf.c) judges the gather itself: right
 * after the touches, before any rewrite, smaps and pagemap read every
 * block under the page-table lock.  The mixed patterns leave the state
 * aging leaves (dirty but old before a young entry, young but clean
 * before a dirty one), where a loop that stops at the first bit it finds
 * returns one bit short.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "contpte_int.h"
#include "procmm.h"
#include "report.h"

/* The slots of a pattern: -1 when it does not judge that tier. */
struct gather_slots {
	int data, ref;
};

/* Pages of a pattern block the pattern writes (dirties). */
static bool writes_page(const struct cp_pattern *p, int k)
{
	return p->dirty == PC_CP_ALL || p->dirty == k;
}

/* Pages of a pattern block the pattern reads (makes young). */
static bool reads_page(const struct cp_pattern *p, int k)
{
	return p->young == PC_CP_ALL || p->young == k;
}

/* A write sets young too: MADV_COLD takes it back where young is elsewhere. */
static bool needs_cold(const struct cp_pattern *p)
{
	return p->dirty >= 0 && p->dirty < CONT && p->young != p->dirty;
}

static struct gather_slots gather_slots_init(struct pc_scenario_ctx *ctx,
					     const struct cp_pattern *p, struct pc_attempt *a)
{
	struct gather_slots s = {-1, -1};

	if (cp_judges_data(p))
		s.data = pc_slot_add(a, ctx, PC_CHK_CP_GATHER, TIER_DATA_LOSS);
	if (cp_judges_referenced(p))
		s.ref = pc_slot_add(a, ctx, PC_CHK_CP_GATHER, TIER_REFERENCED);
	return s;
}

/* The dirty half: lazyfree and clear_refs everywhere, then the pattern's writes. */
static int set_dirty(struct pc_attempt *a, const struct region *r, const struct cp_pattern *p,
		     bool idle_before, __u64 *ref_idle)
{
	int ret = cp_region_madvise(r, MADV_FREE);

	/* Clean and old everywhere, lazyfree: reclaim may drop what stays clean. */
	if (ret)
		return pc_skip_rest(a, ret == -EINVAL ? "MADV_FREE unsupported" : "MADV_FREE",
				    -ret);
	/* clear_refs also clears the folios' referenced flags smaps counts. */
	ret = pc_clear_refs();
	if (!ret)
		ret = cp_region_bounce(r); /* clear_refs does not flush the TLB */
	if (ret)
		return pc_skip_rest(a, "clear_refs/mprotect", -ret);
	if (idle_before) {
		ret = cp_region_referenced_pages(r, ref_idle);
		if (ret)
			return pc_skip_rest(a, "smaps", -ret);
	}
	for (size_t b = 0; b < r->nblocks; b += 2)
		for (int k = 0; k < CONT; k++)
			if (writes_page(p, k))
				memset(cp_page_addr(r, b, k),
				       pc_page_byte(b * CONT + (size_t)k, SALT_B), PAGE);
	return 0;
}

/* Reads the pattern's young pages of every pattern block; how many. */
static size_t touch_young(const struct region *r, const struct cp_pattern *p)
{
	volatile const char *vp;
	size_t n = 0;

	for (size_t b = 0; b < r->nblocks && p->young != PC_CP_NONE; b += 2)
		for (int k = 0; k < CONT; k++)
			if (reads_page(p, k)) {
				vp = cp_page_addr(r, b, k);
				(void)vp[100];
				n++;
			}
	return n;
}

/* The young half: MADV_COLD where the writes made young, then the pattern's reads. */
static int set_young(struct pc_attempt *a, const struct region *r, const struct cp_pattern *p,
		     bool ref, __u64 *ref_idle, size_t *touched)
{
	int ret;

	if (needs_cold(p)) {
		/* Clears young (not dirty) and flushes the TLB when it saw young. */
		ret = cp_region_madvise(r, MADV_COLD);
		if (ret)
			return pc_skip_rest(
				a, ret == -EINVAL ? "MADV_COLD unsupported" : "MADV_COLD", -ret);
		ret = ref ? cp_region_referenced_pages(r, ref_idle) : 0;
		if (ret)
			return pc_skip_rest(a, "smaps", -ret);
	}
	*touched = touch_young(r, p);
	return 0;
}

/*
 * The probe between the aged state and the rewrite (enum cp_probe).
 * REFOLD: page 15 read-only unfolds each block through an entry that is
 * clean and old while others are dirty or young (the kernel tier judges
 * that every bit is kept); clear_refs ages the unfolded entries one by
 * one; page YOUNG is made young again (mprotected first: clear_refs keeps
 * its TLB entry, through which a read would set no bit); page 15 writable
 * again folds the block through that old entry (judged alike).  The
 * oracles after it then see any bit lost on the way as lost data or
 * Referenced.  CLEAR_REFS: clear_refs on the folded blocks, each call
 * judged by the kernel tier.
 */
static int probe(struct pc_attempt *a, const struct region *r, const struct cp_pattern *p)
{
	int ret;

	if (p->probe == CP_PROBE_NONE)
		return 0;
	if (p->probe == CP_PROBE_CLEAR_REFS) {
		ret = pc_clear_refs();
		return ret ? pc_skip_rest(a, "clear_refs", -ret) : 0;
	}
	ret = cp_region_protect_page(r, CP_REFOLD_PAGE, PROT_READ);
	if (!ret)
		ret = pc_clear_refs();
	if (!ret && p->young >= 0 && p->young < CP_REFOLD_PAGE) {
		ret = cp_region_protect_page(r, p->young, PROT_READ);
		if (!ret)
			ret = cp_region_protect_page(r, p->young, PROT_READ | PROT_WRITE);
		if (!ret)
			touch_young(r, p);
	}
	if (!ret)
		ret = cp_region_protect_page(r, CP_REFOLD_PAGE, PROT_READ | PROT_WRITE);
	return ret ? pc_skip_rest(a, "mprotect/clear_refs (refold)", -ret) : 0;
}

/* After the touches: the gather under test, whose lost young bit stays lost. */
static int young_rewrite(struct pc_attempt *a, const struct region *r, int slot, bool cold,
			 __u64 ref_idle, size_t touched, __u64 *ref_after)
{
	int ret;

	if (ref_idle >= touched) {
		pc_slot_skip(a, slot,
			     "liveness: %llu pages referenced right before the touches (>= %zu to "
			     "touch): %s did nothing",
			     (unsigned long long)ref_idle, touched,
			     cold ? "MADV_COLD" : "clear_refs");
		a->retry = true;
		return 0;
	}
	ret = cp_region_bounce(r);
	if (!ret)
		ret = cp_region_referenced_pages(r, ref_after);
	return ret ? pc_skip_rest(a, "mprotect/smaps", -ret) : 0;
}

static bool have_swap(void)
{
	char line[256];
	int lines = 0;
	FILE *f = fopen("/proc/swaps", "re");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		lines++;
	fclose(f);
	return lines > 1; /* a header, then one line per swap area */
}

/* Reads every page back after reclaim: what the data-loss oracle counted. */
struct readback {
	size_t written, lost, others, garbage, controls, discarded;
};

/* One block after reclaim: redirtied pages must hold their bytes, clean
   ones the old bytes or zeros (once discarded). */
static void read_block(struct pc_oracle_msg *m, const struct region *r, const struct cp_pattern *p,
		       size_t b, struct readback *rb)
{
	bool pattern = b % 2 == 0, zero = true;

	for (int k = 0; k < CONT; k++) {
		size_t pg = b * CONT + (size_t)k;
		const __u8 *q = (const __u8 *)cp_page_addr(r, b, k);
		bool redirtied = pattern && writes_page(p, k);
		__u8 want = redirtied	? pc_page_byte(pg, SALT_B)
			    : q[0] == 0 ? 0
					: pc_page_byte(pg, SALT_A);
		__u8 seen = pc_block_seen(q, PAGE, want, NULL);
		int v = pc_written_survives(want, seen);

		rb->written += redirtied;
		rb->others += !redirtied;
		zero = zero && seen == 0 && want == 0;
		m->checked++;
		if (pc_is_violation(v)) {
			pc_oracle_add_evidence(
				m, v, (__u64)(uintptr_t)q, 0, want, seen, "block %zu, entry %d%s",
				b, k, redirtied ? "" : ", clean: neither the old bytes nor zeros");
			rb->lost += redirtied;
			rb->garbage += !redirtied;
		}
	}
	/* Liveness: clean blocks (controls, all-clean pattern) dropped. */
	if (!pattern || p->dirty == PC_CP_NONE) {
		rb->controls++;
		rb->discarded += zero;
	}
}

/* oracle:data-loss: reclaim, then every page read back.  0 or pc_skip_rest's -errno. */
static int judge_data(struct pc_attempt *a, int slot, const struct region *r,
		      const struct cp_pattern *p, size_t pattern_64k)
{
	struct pc_oracle_msg *m = &a->msg[slot];
	struct readback rb = {0};
	int ret = cp_region_madvise(r, MADV_PAGEOUT);

	if (ret)
		return pc_skip_rest(a, ret == -EINVAL ? "MADV_PAGEOUT unsupported" : "MADV_PAGEOUT",
				    -ret);
	for (size_t b = 0; b < r->nblocks; b++)
		read_block(m, r, p, b, &rb);
	pc_slot_judge(a, slot);
	snprintf(m->summary, sizeof(m->summary),
		 "%zu pages redirtied after MADV_FREE read back: %zu lost; %zu clean pages "
		 "old-or-zero: %zu not",
		 rb.written, rb.lost, rb.others, rb.garbage);
	if (rb.discarded == 0 && m->status == PC_STATUS_PASS) {
		pc_slot_skip(
			a, slot,
			"probe inconclusive: MADV_PAGEOUT discarded none of %zu clean lazyfree "
			"blocks, so a lost dirty bit would not show",
			rb.controls);
		a->retry = true;
	} else {
		pc_oracle_appendf(
			m,
			"; control: %zu of %zu clean blocks discarded; %zu of %zu pattern "
			"blocks 64 KiB folios; %s",
			rb.discarded, rb.controls, pattern_64k, r->nblocks / 2,
			have_swap() ? "swap on" : "no swap (dirty folios stay)");
	}
	return 0;
}

int cp_measure_pattern(struct pc_scenario_ctx *ctx, const void *data, struct pc_attempt *a)
{
	const struct cp_pattern *p = data;
	struct gather_slots s = gather_slots_init(ctx, p, a);
	size_t nblocks = cp_scaled_blocks(ctx, p->full), pattern_64k = 0, touched = 0;
	__u64 ref_idle = 0, ref_after = 0;
	struct region r = {0};
	cpu_set_t oldmask;
	bool pinned;
	int ret;

	/* One CPU, so the LRU batches MADV_PAGEOUT drains are ours. */
	pinned = pc_pin_cpu(&oldmask);
	ret = cp_region_start(ctx, a, &r, nblocks, &pattern_64k);
	if (!ret)
		ret = set_dirty(a, &r, p, s.ref >= 0 && !needs_cold(p), &ref_idle);
	if (!ret)
		ret = set_young(a, &r, p, s.ref >= 0, &ref_idle, &touched);
	/* The aged state as it is, before any rewrite gathers it elsewhere. */
	if (!ret && (ret = cp_region_locked_reads(&r)))
		ret = pc_skip_rest(a, "smaps/pagemap", -ret);
	if (!ret)
		ret = probe(a, &r, p);
	if (!ret && s.ref >= 0)
		ret = young_rewrite(a, &r, s.ref, needs_cold(p), ref_idle, touched, &ref_after);
	/* Our own MADV_PAGEOUT below is reclaim: not a disturbance. */
	pc_window_end(ctx, &a->win, &a->disturbed);
	if (ret)
		goto out;
	if (s.ref >= 0 && !a->judged[s.ref]) {
		pc_compare_referenced(ref_after, touched, (__u64)(uintptr_t)r.chunk[0], 0,
				      &a->msg[s.ref]);
		a->judged[s.ref] = true;
		snprintf(a->msg[s.ref].summary, sizeof(a->msg[s.ref].summary),
			 "%llu pages referenced after the gathering rewrite, %zu touched (%llu "
			 "right before); %zu of %zu pattern blocks 64 KiB folios",
			 (unsigned long long)ref_after, touched, (unsigned long long)ref_idle,
			 pattern_64k, nblocks / 2);
	}
	if (s.data >= 0)
		ret = judge_data(a, s.data, &r, p, pattern_64k);
out:
	pc_window_end(ctx, &a->win, &a->disturbed);
	if (pinned)
		sched_setaffinity(0, sizeof(oldmask), &oldmask);
	cp_region_release(&r);
	return ret < 0 ? ret : 0;
}
