// SPDX-License-Identifier: GPL-2.0
/*
 * The mprotect path's syscall-walk tier (mprotect/write
 * [kernel:syscall-walk], include/ptecheck/mprotect.h): at sys_exit of a
 * traced task's mprotect or pkey_mprotect that granted PROT_WRITE, every
 * present PTE of the range (PC_RW_MAX_PAGES at most) that is writable and
 * maps a page of an anonymous folio must map a page exclusive to the
 * process (PageAnonExclusive, read through the vmemmap): the kernel maps
 * a shared anonymous page writable nowhere, and mprotect's batch commit
 * must grant write page by page (commit_anon_folio_batch).
 *
 * No state from the entry is compared, so nothing hardware does between
 * the two matters; the range is read without the page-table lock, so a
 * window that overlapped reclaim, migration, compaction, collapse or KSM
 * (the disturbance generation) or a task whose mm others share is
 * inconclusive.
 */
#include "range_walk.bpf.h"
#include <ptecheck/mprotect.h>

#define MP_PROT_WRITE 2 /* include/uapi/asm-generic/mman-common.h */

struct mp_state {
	__u64 gen;
	__u32 active, shared;
	struct pc_check_counts c;
	struct pc_window w;
	struct pc_pending pv;
	struct pc_range_walk rw;
};

/* From a call's entry to its exit, per thread. */
PC_THREAD_BIG_MAP(mp_states, struct mp_state, 256);

static __always_inline bool mp_nr(long nr)
{
	return nr == PC_NR_mprotect || nr == PC_NR_pkey_mprotect;
}

/* At sys_enter, from bpf/syscalls.bpf.c: the range of a call that grants
   write, kept for its exit. */
__noinline int pc_mprotect_sys_enter(struct bpf_raw_tracepoint_args *ctx, long nr)
{
	struct task_struct *task;
	__u32 tid = pc_tid();
	struct mp_state *st;
	__u64 start, len;

	if (!sys_mprotect || !mp_nr(nr) || !pc_sys_native(ctx) ||
	    !(pc_sys_arg(ctx, 2) & MP_PROT_WRITE) || !target_flags() ||
	    !pc_sampled(PC_SAMPLE_MPROTECT))
		return 0;
	start = pc_sys_arg(ctx, 0);
	len = (pc_sys_arg(ctx, 1) + PC_PAGE_SIZE - 1) & ~(PC_PAGE_SIZE - 1);
	if ((start & (PC_PAGE_SIZE - 1)) || !len || start + len < start)
		return 0;
	st = pc_big_state(&mp_states, &mp_states_template, &tid);
	if (!st)
		return 0;
	task = (struct task_struct *)bpf_get_current_task();
	pc_rw_set(&st->rw, start, len);
	st->gen = disturb_gen();
	st->shared = BPF_CORE_READ(task, signal, nr_threads) > 1 || mm_shared();
	st->active = 1;
	return 0;
}

/* Slot i of the range.  A global function, verified once on its own (as
   bpf/batch_walk.bpf.c's slot, for the same reason). */
__noinline int pc_mp_slot(struct mp_state *st, __u64 i)
{
	bool anon = false, exclusive = false;
	struct pc_pte p;
	__u64 addr;

	if (!st || !sys_mprotect || !pc_rw_pte(&st->rw, i, &addr, &p))
		return 0;
	if (p.kind != PC_PTE_PRESENT || !p.write || pc_rw_page(p.pfn, &anon, &exclusive) || !anon)
		return 0;
	pc_judge(&st->c, &st->pv, &st->w, PC_CHK_MP_WRITE, pc_anon_write_exclusive(true, exclusive),
		 addr, 0, 1, 0);
	return 0;
}

PC_RW_LOOP_FN(mp_chunk, mp_states, struct mp_state, pc_mp_slot)

/* At sys_exit, from bpf/syscalls.bpf.c. */
__noinline int pc_mprotect_sys_exit(struct bpf_raw_tracepoint_args *ctx, long nr)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	__u32 key = pc_tid();
	struct mp_state *st;

	if (!sys_mprotect || !mp_nr(nr) || !pc_sys_native(ctx))
		return 0;
	st = bpf_map_lookup_elem(&mp_states, &key);
	if (!st || !st->active)
		return 0;
	st->active = 0;
	/* A call that failed may have changed part of the range: not judged. */
	if ((long)ctx->args[1] != 0)
		return 0;
	__builtin_memset(&st->c, 0, sizeof(st->c));
	st->pv.events_sent = 0;
	st->rw.pgd = (__u64)BPF_CORE_READ(task, mm, pgd);
	st->w.tier = PC_TIER_SYSCALL_WALK;
	st->w.gen = st->gen;
	st->w.flags = PC_WIN_GEN | (st->shared ? PC_WIN_UNRELIABLE : 0);
	bpf_loop((st->rw.npages + PC_RW_CHUNK - 1) / PC_RW_CHUNK, mp_chunk, &key, 0);
	st = bpf_map_lookup_elem(&mp_states, &key);
	if (!st)
		return 0;
	/* The walk itself is part of the window. */
	if (!st->shared && disturb_gen() != st->gen)
		pc_count_window_disturbed(&st->c);
	add_counts(PC_CHK_MP_WRITE, PC_TIER_SYSCALL_WALK, &st->c);
	return 0;
}
