// SPDX-License-Identifier: GPL-2.0
/*
 * contpte/mlock [oracle:data]: the reference workload's shape, scaled
 * (mlock, read and write a byte per page, munlock, N times): every byte
 * written is read back and smaps Locked is 0 after each munlock.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>

#include "contpte_int.h"
#include "report.h"

/* What the rounds saw of the lock, for the summary and the liveness. */
struct lock_seen {
	__u64 min_kb;  /* smaps Locked while locked, the least of the rounds */
	__u64 left_kb; /* ... after the last munlock */
	size_t lost;   /* bytes that did not read back */
};

/*
 * A byte per page: what round it wrote (round 0: the fill) must be there;
 * while locked (write), the next round's byte is written over it.
 */
static void check_bytes(struct pc_oracle_msg *m, const struct region *r, unsigned int round,
			bool write, struct lock_seen *ls)
{
	size_t npages = r->nblocks * CONT;

	for (size_t pg = 0; pg < npages; pg++) {
		volatile __u8 *q = (volatile __u8 *)cp_page_addr(r, pg / CONT, (int)(pg % CONT));
		__u8 want = (__u8)(pc_page_byte(pg, SALT_A) + round), seen = q[(pg * 67) % PAGE];

		m->checked++;
		if (pc_is_violation(pc_written_survives(want, seen))) {
			ls->lost++;
			if (write)
				pc_oracle_add_evidence(
					m, PC_V_DATA_LOST, (__u64)(uintptr_t)q, 0, want, seen,
					"page %zu, round %u, read while locked", pg, round);
			else
				pc_oracle_add_evidence(m, PC_V_DATA_LOST, (__u64)(uintptr_t)q, 0,
						       want, seen,
						       "page %zu, read after the last munlock", pg);
		}
		if (write)
			q[(pg * 67) % PAGE] = (__u8)(want + 1);
	}
}

/* Unfolds each block (its last page read-only) and lets the kernel fold it
   again (it tries when entry 15 is set): 0 or -errno. */
static int refold(const struct region *r)
{
	for (size_t b = 0; b < r->nblocks; b++) {
		char *pg15 = cp_block_addr(r, b) + 15 * PAGE;

		if (mprotect(pg15, PAGE, PROT_READ) || mprotect(pg15, PAGE, PROT_READ | PROT_WRITE))
			return -errno;
	}
	return 0;
}

/* One round: lock, read and write, (refold,) unlock.  0 or pc_skip_rest's -errno. */
static int mlock_round(struct pc_attempt *a, int slot, const struct region *r,
		       const struct cp_mlock *ml, unsigned int round, struct lock_seen *ls)
{
	struct pc_oracle_msg *m = &a->msg[slot];
	__u64 locked_kb = 0;
	int ret = cp_region_mlock(r, true, ml->misaligned);

	if (ret) /* EPERM/ENOMEM: RLIMIT_MEMLOCK without CAP_IPC_LOCK */
		return pc_skip_rest(a, "mlock", -ret);
	ret = cp_region_locked_kb(r, &locked_kb);
	if (ret)
		return pc_skip_rest(a, "smaps", -ret);
	if (locked_kb < ls->min_kb)
		ls->min_kb = locked_kb;
	/* Read what the last round left, write the next. */
	check_bytes(m, r, round, true, ls);
	/* The bytes must survive the refold; the kernel tier judges each fold. */
	ret = ml->refold ? refold(r) : 0;
	if (ret)
		return pc_skip_rest(a, "mprotect", -ret);
	ret = cp_region_mlock(r, false, ml->misaligned);
	if (!ret)
		ret = cp_region_locked_kb(r, &ls->left_kb);
	if (ret)
		return pc_skip_rest(a, "munlock/smaps", -ret);
	m->checked++;
	/* Locked is 0 once unlocked: nothing stays mlocked. */
	if (pc_is_violation(pc_count_delta(0, (__s64)ls->left_kb, 0)))
		pc_oracle_add_evidence(m, PC_V_MAPCOUNT, (__u64)(uintptr_t)r->chunk[0], 0, 0,
				       ls->left_kb, "round %u, Locked in kB", round);
	return 0;
}

int cp_measure_mlock(struct pc_scenario_ctx *ctx, const void *data, struct pc_attempt *a)
{
	const struct cp_mlock *ml = data;
	const int s_data = 0;
	struct pc_oracle_msg *m = &a->msg[s_data];
	unsigned int s = ctx->scale ? ctx->scale : 1;
	unsigned int iters = ml->iterations / s ? ml->iterations / s : 1;
	size_t nblocks = cp_scaled_blocks(ctx, ml->full), npages = nblocks * CONT, pattern_64k;
	struct lock_seen ls = {.min_kb = (__u64)-1};
	struct region r = {0};
	__u64 want_locked;
	int ret;

	pc_slot_init(a, s_data, ctx, PC_CHK_CP_MLOCK, TIER_DATA);
	ret = cp_region_start(ctx, a, &r, nblocks, &pattern_64k);
	want_locked = (__u64)(npages - (ml->misaligned ? 2 * (size_t)r.nchunks : 0)) * (PAGE / KIB);
	for (unsigned int it = 0; !ret && it < iters; it++)
		ret = mlock_round(a, s_data, &r, ml, it, &ls);
	if (ret)
		goto out;
	/* The last writes, read after the last munlock. */
	check_bytes(m, &r, iters, false, &ls);
	pc_window_end(ctx, &a->win, &a->disturbed);
	pc_slot_judge(a, s_data);
	snprintf(m->summary, sizeof(m->summary),
		 "%u rounds of mlock, r/w a byte in each of %zu pages, munlock: %zu bytes lost, "
		 "Locked %llu kB while locked (want %llu), %llu kB after munlock",
		 iters, npages, ls.lost, (unsigned long long)ls.min_kb,
		 (unsigned long long)want_locked, (unsigned long long)ls.left_kb);
	if (m->status == PC_STATUS_PASS && ls.min_kb < want_locked) {
		/* Liveness: the loop never ran with the range locked. */
		pc_slot_skip(a, s_data,
			     "liveness: smaps Locked %llu kB while locked, wanted %llu: mlock did "
			     "not lock the range",
			     (unsigned long long)ls.min_kb, (unsigned long long)want_locked);
	} else {
		pc_oracle_appendf(m, "; %zu of %zu even blocks 64 KiB folios%s", pattern_64k,
				  nblocks / 2, ml->misaligned ? "; lock ends inside folios" : "");
	}
out:
	pc_window_end(ctx, &a->win, &a->disturbed);
	cp_region_release(&r);
	return ret < 0 ? ret : 0;
}
