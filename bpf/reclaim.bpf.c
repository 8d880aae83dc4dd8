// SPDX-License-Identifier: GPL-2.0
/*
 * The reclaim path's syscall-walk tier (reclaim/dirty [kernel:syscall-
 * walk], include/ptecheck/reclaim.h): at raw_syscalls:sys_enter of an
 * madvise(MADV_PAGEOUT) by one of ptecheck's own scenarios, the range's
 * PTEs are read and each present, dirty one that maps a lazyfree folio
 * (anonymous, not swap-backed: MADV_FREE'd) is noted; at sys_exit of a
 * call that returned 0, each noted slot must still map something (the
 * page put back, or a swap entry).  try_to_unmap_one discards a lazyfree
 * batch only when none of its PTEs was dirty (get_and_clear_ptes gathers
 * the batch's bits; a dirty one makes the folio swap-backed again and
 * the batch is put back): an empty slot is a write discarded.
 *
 * Only ptecheck's own scenarios (tracked with PC_TRACK_ENFORCE_PMD):
 * elsewhere a MAP_DROPPABLE mapping's folios look lazyfree and are
 * discarded dirty by design.  A task whose mm others share (a thread
 * could unmap the range meanwhile) is inconclusive.  Reclaim, migration
 * and compaction do not excuse a loss here: none of them may empty a
 * slot a dirty page was in.
 */
#include "range_walk.bpf.h"
#include <ptecheck/events.h>
#include <ptecheck/reclaim.h>

#define RC_MADV_PAGEOUT	     21	 /* include/uapi/asm-generic/mman-common.h */
#define RC_SIGNAL_GROUP_EXIT 0x4 /* include/linux/sched/signal.h */

struct rc_state {
	__u32 active, shared;
	__u32 exit, pad; /* the walk at sys_exit (else at sys_enter) */
	__u64 noted;
	struct pc_check_counts c;
	struct pc_window w;
	struct pc_pending pv;
	struct pc_range_walk rw;
	__u64 dirty_lazy[PC_RW_MAX_PAGES / 64]; /* slot i noted: bit i */
};

PC_THREAD_BIG_MAP(rc_states, struct rc_state, 128);

static __always_inline bool rc_call(struct bpf_raw_tracepoint_args *ctx, long nr)
{
	return nr == PC_NR_madvise && pc_sys_native(ctx) && pc_sys_arg(ctx, 2) == RC_MADV_PAGEOUT;
}

/* Slot i of the range, at either walk.  A global function. */
__noinline int pc_rc_slot(struct rc_state *st, __u64 i)
{
	struct pc_page_words w = {};
	__u64 addr, bit = 1ULL << (i & 63), word = (i >> 6) & (PC_RW_MAX_PAGES / 64 - 1);
	bool lazy, readable;
	struct pc_pte p = {};

	if (!st || !sys_reclaim)
		return 0;
	readable = pc_rw_pte(&st->rw, i, &addr, &p);
	if (st->exit) {
		/* An unreadable table (a huge PMD now) is not an empty slot. */
		if (!(st->dirty_lazy[word] & bit) || !readable)
			return 0;
		pc_judge(&st->c, &st->pv, &st->w, PC_CHK_RECLAIM_DIRTY,
			 pc_reclaim_dirty_kept(true, p.kind != PC_PTE_NONE), addr, 0, 1,
			 p.kind != PC_PTE_NONE);
		return 0;
	}
	if ((i & 63) == 0)
		st->dirty_lazy[word] = 0;
	if (!readable || p.kind != PC_PTE_PRESENT || !p.dirty || pc_page_words(p.pfn, &w))
		return 0;
	lazy = (w.mapping & 3) == PC_PAGE_MAPPING_ANON &&
	       !(w.head_flags & (1UL << bpf_core_enum_value(enum pageflags, PG_swapbacked)));
	if (lazy) {
		st->dirty_lazy[word] |= bit;
		st->noted++;
	}
	return 0;
}

PC_RW_LOOP_FN(rc_chunk, rc_states, struct rc_state, pc_rc_slot)

/* At sys_enter, from bpf/syscalls.bpf.c. */
__noinline int pc_reclaim_sys_enter(struct bpf_raw_tracepoint_args *ctx, long nr)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	__u32 tid = pc_tid(), track;
	struct rc_state *st;
	__u64 start, len;

	if (!sys_reclaim || !rc_call(ctx, nr))
		return 0;
	track = target_flags();
	if (!track || !((track - 1) & PC_TRACK_ENFORCE_PMD) || !pc_sampled(PC_SAMPLE_RECLAIM))
		return 0;
	if (!pc_sys_range(ctx, &start, &len))
		return 0;
	st = pc_big_state(&rc_states, &rc_states_template, &tid);
	if (!st)
		return 0;
	st->active = 0;
	st->exit = 0;
	st->noted = 0;
	st->shared = pc_task_shared();
	st->rw.pgd = (__u64)BPF_CORE_READ(task, mm, pgd);
	pc_rw_set(&st->rw, start, len);
	bpf_loop((st->rw.npages + PC_RW_CHUNK - 1) / PC_RW_CHUNK, rc_chunk, &tid, 0);
	st = bpf_map_lookup_elem(&rc_states, &tid);
	if (st)
		st->active = st->noted > 0;
	return 0;
}

/* At sys_exit, from bpf/syscalls.bpf.c. */
__noinline int pc_reclaim_sys_exit(struct bpf_raw_tracepoint_args *ctx, long nr)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	__u32 key = pc_tid();
	struct rc_state *st;

	if (!sys_reclaim || !rc_call(ctx, nr))
		return 0;
	st = bpf_map_lookup_elem(&rc_states, &key);
	if (!st || !st->active)
		return 0;
	st->active = 0;
	/* A call that failed may have stopped anywhere; a process being
	   killed (the OOM reaper empties its mm) proves nothing. */
	if ((long)ctx->args[1] != 0 || (BPF_CORE_READ(task, signal, flags) & RC_SIGNAL_GROUP_EXIT))
		return 0;
	__builtin_memset(&st->c, 0, sizeof(st->c));
	st->pv.events_sent = 0;
	st->exit = 1;
	st->w.tier = PC_TIER_SYSCALL_WALK;
	st->w.gen = 0;
	st->w.flags = st->shared ? PC_WIN_UNRELIABLE : 0;
	bpf_loop((st->rw.npages + PC_RW_CHUNK - 1) / PC_RW_CHUNK, rc_chunk, &key, 0);
	st = bpf_map_lookup_elem(&rc_states, &key);
	if (st)
		add_counts(PC_CHK_RECLAIM_DIRTY, PC_TIER_SYSCALL_WALK, &st->c);
	return 0;
}
