// SPDX-License-Identifier: GPL-2.0
/*
 * contpte/mlock [oracle:data]: the reference workload's shape, scaled
 * (mlock, read and write a byte per page, munlock, N times): every byte
 * written is read back and smaps Locked is 0 after each munlock.
 * contpte/mlock [oracle:kpageflags]: smaps Locked follows the VMAs, not
 * the folios, so each folio's own mlock bit is read too (pagemap PFNs,
 * kpageflags), once locked and once unlocked in every round, against
 * mm/mlock.c's rule (pc_mlock_allowed).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/kernel-page-flags.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "contpte_int.h"
#include "procmm.h"
#include "report.h"

/* What the rounds saw of the lock, for the summary and the liveness. */
struct lock_seen {
	__u64 min_kb;  /* smaps Locked while locked, the least of the rounds */
	__u64 left_kb; /* ... after the last munlock */
	size_t lost;   /* bytes that did not read back */
	/* the kpageflags slot (-1 when not judged) and what it saw */
	int kpf_slot;
	__u64 *flags;	/* PC_FOLIO_MAX_PAGES entries: one folio's flags */
	size_t cut;	/* large folios a locked range cut, seen while locked */
	size_t unsure;	/* folios changed under the read or shared: not judged */
	size_t mlocked; /* of the judged folios, mlocked where allowed */
	size_t left;	/* mlocked after munlock */
};

/* ---- each folio's mlock bit (kpageflags) ---------------------------------- */

/* The range block b's chunk locks, [*lo, *hi) (cp_region_mlock's). */
static void chunk_locked(const struct region *r, size_t b, bool misaligned, uintptr_t *lo,
			 uintptr_t *hi)
{
	size_t first = b - b % CHUNK_BLOCKS, end = first + CHUNK_BLOCKS;
	size_t cut = misaligned ? PAGE : 0;

	if (end > r->nblocks)
		end = r->nblocks;
	*lo = (uintptr_t)cp_block_addr(r, first) + cut;
	*hi = (uintptr_t)cp_block_addr(r, end - 1) + BLOCK - cut;
}

/* One folio's flags read whole: its head page a head, the others tails
   (a folio split or formed under the read is not). */
static bool folio_flags_whole(const __u64 *flags, __u64 nr)
{
	const __u64 head = PC_KPF(KPF_COMPOUND_HEAD), tail = PC_KPF(KPF_COMPOUND_TAIL);

	if (nr == 1)
		return !(flags[0] & (head | tail));
	if ((flags[0] & (head | tail)) != head)
		return false;
	for (__u64 i = 1; i < nr; i++)
		if ((flags[i] & (head | tail)) != tail)
			return false;
	return true;
}

/* A present page (PFN pfn, at va) and its folio, nr 0 when not judged. */
struct folio_at {
	__u64 pfn, head, nr;
	uintptr_t va;
};

/* The folio of f's page read (head, nr) and its mlock bit judged against
   the range locked around it, [lo, hi) (empty: none).  0 or -errno. */
static int judge_folio(struct pc_oracle_msg *m, struct lock_seen *ls, struct folio_at *f,
		       uintptr_t lo, uintptr_t hi, const char *phase)
{
	__u32 order;
	uintptr_t fva;
	bool held, mlocked;
	const char *where;
	int ret = pc_folio_of_pfn(f->pfn, &f->head, &order);

	f->nr = 0;
	if (ret == -ESTALE || ret == -ERANGE) { /* changing, or past the search */
		ls->unsure++;
		return 0;
	}
	if (!ret)
		ret = pc_kpageflags_read(f->head, (size_t)1 << order, ls->flags);
	if (ret)
		return ret;
	if (!folio_flags_whole(ls->flags, 1ULL << order)) {
		ls->unsure++;
		return 0;
	}
	f->nr = 1ULL << order;
	fva = f->va - (uintptr_t)((f->pfn - f->head) * PAGE);
	held = lo < hi && fva >= lo && fva + f->nr * PAGE <= hi;
	mlocked = ls->flags[0] & PC_KPF(PC_KPF_MLOCKED);
	m->checked++;
	ls->cut += lo < hi && f->nr > 1 && !held;
	ls->mlocked += mlocked && held;
	ls->left += mlocked && lo == hi;
	if (!pc_is_violation(pc_mlock_allowed(mlocked, held)))
		return 0;
	where = lo == hi ? "" : f->nr > 1 ? " cut by the lock" : " outside the lock";
	pc_oracle_add_evidence(m, PC_V_MLOCKED, fva, 0, 0, 1, "%s, %llu-page folio%s%s", phase,
			       (unsigned long long)f->nr, where,
			       ls->flags[0] & PC_KPF(KPF_UNEVICTABLE) ? ", unevictable" : "");
	return 0;
}

/*
 * Every folio of the region against the rule: while locked (each chunk's
 * locked range) or after munlock (none).  A page not exclusively ours
 * (pagemap) may be another mapping's to lock: not judged.  0 or -errno.
 */
static int judge_mlocked(struct pc_oracle_msg *m, const struct region *r, bool locked,
			 bool misaligned, struct lock_seen *ls, const char *phase)
{
	struct folio_at f = {0};
	__u64 pm[CONT];

	for (size_t b = 0; b < r->nblocks; b++) {
		uintptr_t lo = 0, hi = 0;
		int ret = pc_pagemap_read(0, (__u64)(uintptr_t)cp_block_addr(r, b), CONT, pm);

		if (ret)
			return ret;
		if (locked)
			chunk_locked(r, b, misaligned, &lo, &hi);
		for (int k = 0; k < CONT; k++) {
			__u64 pfn = pm[k] & PC_PM_PFN_MASK;

			if (!(pm[k] & PC_PM_PRESENT) ||
			    (f.nr && pfn >= f.head && pfn < f.head + f.nr))
				continue; /* not mapped, or its folio judged */
			if (!(pm[k] & PC_PM_EXCLUSIVE) || pfn == 0) { /* or PFN hidden */
				ls->unsure++;
				continue;
			}
			f.pfn = pfn;
			f.va = (uintptr_t)cp_page_addr(r, b, k);
			ret = judge_folio(m, ls, &f, lo, hi, phase);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/* The kpageflags judgment of one phase of a round, when it is made: 0 or
   pc_skip_rest's -errno. */
static int judge_phase(struct pc_attempt *a, const struct region *r, const struct cp_mlock *ml,
		       bool locked, unsigned int round, struct lock_seen *ls)
{
	char phase[40];
	int ret;

	if (ls->kpf_slot < 0)
		return 0;
	snprintf(phase, sizeof(phase), "round %u, %s", round, locked ? "locked" : "after munlock");
	ret = judge_mlocked(&a->msg[ls->kpf_slot], r, locked, ml->misaligned, ls, phase);
	return ret ? pc_skip_rest(a, "pagemap/kpageflags", -ret) : 0;
}

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
	ret = judge_phase(a, r, ml, true, round, ls);
	if (ret)
		return ret;
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
	ret = judge_phase(a, r, ml, false, round, ls);
	if (ret)
		return ret;
	m->checked++;
	/* Locked is 0 once unlocked: nothing stays mlocked. */
	if (pc_is_violation(pc_count_delta(0, (__s64)ls->left_kb, 0)))
		pc_oracle_add_evidence(m, PC_V_MAPCOUNT, (__u64)(uintptr_t)r->chunk[0], 0, 0,
				       ls->left_kb, "round %u, Locked in kB", round);
	return 0;
}

/* The kpageflags slot, where /proc/kpageflags can be read: 0 or -ENOMEM. */
static int kpf_start(struct pc_scenario_ctx *ctx, struct pc_attempt *a, struct lock_seen *ls)
{
	ls->kpf_slot = pc_slot_add(a, ctx, PC_CHK_CP_MLOCK, TIER_KPAGEFLAGS);
	if (!ctx->have_kpageflags) {
		pc_slot_skip(a, ls->kpf_slot, "/proc/kpageflags not readable (needs root)");
		ls->kpf_slot = -1;
		return 0;
	}
	ls->flags = calloc(PC_FOLIO_MAX_PAGES, sizeof(*ls->flags));
	return ls->flags ? 0 : pc_skip_rest(a, "calloc", ENOMEM);
}

static void kpf_finish(struct pc_attempt *a, const struct cp_mlock *ml, struct lock_seen *ls,
		       unsigned int iters)
{
	struct pc_oracle_msg *m;

	if (ls->kpf_slot < 0)
		return;
	m = &a->msg[ls->kpf_slot];
	pc_slot_judge(a, ls->kpf_slot);
	snprintf(m->summary, sizeof(m->summary),
		 "%llu mlocked against the rule (%zu after munlock) of %llu folios read, %zu cut "
		 "by the lock, %zu mlocked where allowed, %zu not judged; %u rounds",
		 (unsigned long long)m->violations, ls->left, (unsigned long long)m->checked,
		 ls->cut, ls->mlocked, ls->unsure, iters);
	if (m->status == PC_STATUS_PASS && ml->misaligned && ls->cut == 0)
		/* Liveness: no folio of the state the rule is about. */
		pc_slot_skip(a, ls->kpf_slot,
			     "liveness: no large folio cut by the locked range (%llu folio reads)",
			     (unsigned long long)m->checked);
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
	/* One CPU: munlock's per-CPU batch, which clears the mlock bits, is
	   drained where the syscall ran before it returns. */
	cpu_set_t oldmask;
	bool pinned = false;
	int ret;

	pc_slot_init(a, s_data, ctx, PC_CHK_CP_MLOCK, TIER_DATA);
	ret = kpf_start(ctx, a, &ls);
	if (ret)
		return ret;
	pinned = pc_pin_cpu(&oldmask);
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
	/* mlock returned 0 for the range: less Locked is its failure, not a
	   state the scenario failed to make. */
	m->checked++;
	if (pc_is_violation(pc_mlock_locked(ls.min_kb, want_locked))) {
		pc_oracle_add_evidence(m, PC_V_NOT_LOCKED, (__u64)(uintptr_t)cp_block_addr(&r, 0),
				       0, want_locked, ls.min_kb,
				       "smaps Locked %llu kB at its lowest of %u rounds while "
				       "locked, the range %llu kB",
				       (unsigned long long)ls.min_kb, iters,
				       (unsigned long long)want_locked);
		pc_slot_judge(a, s_data);
	} else {
		pc_oracle_appendf(m, "; %zu of %zu even blocks 64 KiB folios%s", pattern_64k,
				  nblocks / 2, ml->misaligned ? "; lock ends inside folios" : "");
	}
	kpf_finish(a, ml, &ls, iters);
out:
	if (pinned)
		sched_setaffinity(0, sizeof(oldmask), &oldmask);
	pc_window_end(ctx, &a->win, &a->disturbed);
	cp_region_release(&r);
	free(ls.flags);
	return ret < 0 ? ret : 0;
}
