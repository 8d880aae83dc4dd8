/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --sample N: which windows are judged.  Each kind of window (one per
 * place a check's window begins) counts its windows per CPU in blocks of
 * N and judges one window of each block, at a position drawn at random
 * when the block starts: exactly 1 in N over every whole block, as a
 * counter gives, yet never locked in step with a workload that repeats
 * with a period dividing N (move there, move back), as a fixed position
 * would be.  Shared by bpf/common.bpf.h and the unit test.
 */
#ifndef PTECHECK_SAMPLE_H
#define PTECHECK_SAMPLE_H

#include "types.h"

#ifndef PC_INLINE
#define PC_INLINE static inline __attribute__((always_inline))
#endif

/* Where a window begins: each has its own blocks, so that windows of one
   kind never decide which windows of another are judged. */
enum pc_sample_kind {
	PC_SAMPLE_MREMAP = 0, /* an mremap call (sys_enter; move_page_tables follows it) */
	PC_SAMPLE_MPT,	      /* move_page_tables outside a traced syscall */
	PC_SAMPLE_FM_BATCH,   /* a fault-around batch (set_pte_range entry) */
	PC_SAMPLE_FM_RMAP,    /* a file rmap update outside a batch */
	PC_SAMPLE_CP_GET,     /* contpte_ptep_get (the gather) */
	PC_SAMPLE_CP_CONVERT, /* a contpte fold or unfold */
	PC_SAMPLE_CP_YOUNG,   /* contpte_test_and_clear_young_ptes */
	PC_SAMPLE_WALK,	      /* a derived batch walk (bpf/batch_walk.bpf.c): no check,
				 but a page-table walk as costly as one */
	PC_SAMPLE_MADVISE,    /* a MADV_FREE call (bpf/madvise.bpf.c, sys_enter) */
	PC_SAMPLE_MPROTECT,   /* an mprotect call (bpf/mprotect.bpf.c) */
	PC_SAMPLE_FORK,	      /* a VMA fork copied (bpf/fork.bpf.c, copy_page_range) */
	PC_SAMPLE_MLOCK,      /* an mlock of one unlocked VMA (bpf/mlock.bpf.c) */
	PC_SAMPLE_ZAP,	      /* a munmap or MADV_DONTNEED (bpf/zap.bpf.c) */
	PC_SAMPLE_RECLAIM,    /* an MADV_PAGEOUT of a scenario (bpf/reclaim.bpf.c) */
	PC_SAMPLE__COUNT,
};

/* One CPU's count of one kind's windows. */
struct pc_sample_state {
	__u64 seq;  /* windows seen before this one */
	__u32 pick; /* the position judged in the current block */
	__u32 pad;
};

/* Largest N: a block must stay far below the counter's range. */
#define PC_SAMPLE_MAX 1000000

/*
 * Whether the next window of s is judged, judging 1 in every (0 and 1:
 * all).  rnd: a random number, used when a block starts.
 */
PC_INLINE bool pc_sample_next(struct pc_sample_state *s, __u32 every, __u32 rnd)
{
	__u64 pos;

	if (every <= 1)
		return true;
	pos = s->seq++ % every;
	if (pos == 0)
		s->pick = rnd % every;
	return pos == s->pick;
}

#endif
