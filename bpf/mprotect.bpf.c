// SPDX-License-Identifier: GPL-2.0
/*
 * The mprotect path's kernel tiers (include/ptecheck/mprotect.h): the
 * syscall walk at raw_syscalls:sys_enter and sys_exit of a traced task's
 * mprotect or pkey_mprotect, and the hook tier at fentry and fexit of
 * change_protection (below), over PC_RW_MAX_PAGES of the range at most:
 *  - mprotect/write: when the call granted PROT_WRITE and returned 0,
 *    every present PTE of the range that is writable and maps a page of
 *    an anonymous folio must map a page exclusive to the process
 *    (PageAnonExclusive, read through the vmemmap): the kernel maps a
 *    shared anonymous page writable nowhere, and mprotect's batch commit
 *    must grant write page by page (commit_anon_folio_batch).  No state
 *    of the entry is compared.
 *  - mprotect/soft-dirty and mprotect/uffd-wp: a present PTE soft-dirty
 *    (x86) or uffd-wp-protected at the entry, present at the same PFN at
 *    the exit, keeps the bit: change_pte_range's batch respects soft-dirty
 *    and rewrites each entry from its own old value, and pte_modify keeps
 *    both.  Hardware never clears either; clear_refs and UFFDIO_
 *    WRITEPROTECT from another process could, so only ptecheck's own
 *    scenarios are judged (elsewhere: inconclusive).
 *
 * The range is read without the page-table lock, so a window that
 * overlapped reclaim, migration, compaction, collapse or KSM (the
 * disturbance generation) or a task whose mm others share is
 * inconclusive.
 */
#include "range_walk.bpf.h"
#include <ptecheck/events.h>
#include <ptecheck/mprotect.h>

#define MP_PROT_WRITE 2 /* include/uapi/asm-generic/mman-common.h */

/* In marks[]: the PFN + 1 of a present entry and its bits at the entry. */
#define MP_MARK_SD   (1ULL << 62)
#define MP_MARK_UFFD (1ULL << 61)
#define MP_MARK_PFN  (MP_MARK_UFFD - 1)

struct mp_state {
	__u64 gen;
	__u32 active, shared;
	__u32 write, enforced;	     /* granted write; one of ptecheck's scenarios */
	__u32 exit;		     /* the walk at the end (else at the beginning) */
	__u32 uffd_changes;	     /* the call sets or resolves uffd-wp: not judged */
	struct pc_check_counts c[3]; /* mprotect/write, soft-dirty, uffd-wp */
	struct pc_window w, w_marks;
	struct pc_pending pv;
	struct pc_range_walk rw;
	__u64 marks[PC_RW_MAX_PAGES];
};

/* From a call's entry to its exit, per thread; the hook tier's windows
   (nested in the syscall's) in their own map. */
PC_THREAD_BIG_MAP(mp_states, struct mp_state, 128);
PC_THREAD_BIG_MAP(mp_hook_states, struct mp_state, 64);

/* Whether the hook tier judges here (trace/mprotect.c: attached, vmemmap). */
const volatile bool mp_hook_enabled = false;

#define MP_CP_UFFD_WP_ALL (0x4 | 0x8) /* include/linux/mm.h: MM_CP_UFFD_WP, _RESOLVE */

static __always_inline bool mp_nr(long nr)
{
	return nr == PC_NR_mprotect || nr == PC_NR_pkey_mprotect;
}

/* Slot i's bits at the exit, against what the entry saw there. */
static __always_inline void mp_marks_exit(struct mp_state *st, __u64 i, __u64 addr,
					  const struct pc_pte *p)
{
	__u64 m = st->marks[i & (PC_RW_MAX_PAGES - 1)];
	bool sd, uffd;

	if (!m || p->kind != PC_PTE_PRESENT || p->pfn + 1 != (m & MP_MARK_PFN))
		return;
	sd = pc_pte_soft_dirty(p->raw);
	uffd = pc_pte_uffd_wp(p->raw);
	if (m & MP_MARK_SD)
		pc_judge(&st->c[1], &st->pv, &st->w_marks, PC_CHK_MP_SOFT_DIRTY,
			 pc_soft_dirty_kept(true, sd), addr, 0, 1, sd);
	if ((m & MP_MARK_UFFD) && !st->uffd_changes)
		pc_judge(&st->c[2], &st->pv, &st->w_marks, PC_CHK_MP_UFFD_WP,
			 pc_uffd_wp_kept(true, uffd), addr, 0, 1, uffd);
}

/* Slot i of the range, at either walk.  A global function, verified once
   on its own (as bpf/batch_walk.bpf.c's slot, for the same reason). */
__noinline int pc_mp_slot(struct mp_state *st, __u64 i)
{
	bool anon = false, exclusive = false, readable;
	struct pc_pte p = {};
	__u64 addr, m = 0;

	if (!st || (!sys_mprotect && !mp_hook_enabled))
		return 0;
	readable = pc_rw_pte(&st->rw, i, &addr, &p);
	if (!st->exit) {
		if (readable && p.kind == PC_PTE_PRESENT &&
		    (pc_pte_soft_dirty(p.raw) || pc_pte_uffd_wp(p.raw)))
			m = ((p.pfn + 1) & MP_MARK_PFN) |
			    (pc_pte_soft_dirty(p.raw) ? MP_MARK_SD : 0) |
			    (pc_pte_uffd_wp(p.raw) ? MP_MARK_UFFD : 0);
		st->marks[i & (PC_RW_MAX_PAGES - 1)] = m;
		return 0;
	}
	if (!readable)
		return 0;
	mp_marks_exit(st, i, addr, &p);
	if (!st->write || p.kind != PC_PTE_PRESENT || !p.write ||
	    pc_rw_page(p.pfn, &anon, &exclusive) || !anon || !pc_rw_pte_still(&st->rw, addr, &p))
		return 0;
	pc_judge(&st->c[0], &st->pv, &st->w, PC_CHK_MP_WRITE,
		 pc_anon_write_exclusive(true, exclusive), addr, 0, 1, 0);
	return 0;
}

PC_RW_LOOP_FN(mp_chunk, mp_states, struct mp_state, pc_mp_slot)
PC_RW_LOOP_FN(mp_hook_chunk, mp_hook_states, struct mp_state, pc_mp_slot)

/*
 * Begins a window over [start, start + len) of the current mm in the
 * state under tid (hook: the hook tier's map): write granted, the uffd-wp
 * bits left alone (mp_begin's caller says), the marks walked.
 */
static __always_inline void mp_begin(bool hook, __u32 *tid, __u32 track, __u64 start, __u64 len,
				     bool write, bool uffd_changes)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct mp_state *st = hook ? pc_big_state(&mp_hook_states, &mp_hook_states_template, tid)
				   : pc_big_state(&mp_states, &mp_states_template, tid);

	if (!st)
		return;
	pc_rw_set(&st->rw, start, len);
	st->rw.pgd = (__u64)BPF_CORE_READ(task, mm, pgd);
	st->gen = disturb_gen();
	st->shared = pc_task_shared();
	st->write = write;
	st->enforced = !!((track - 1) & PC_TRACK_ENFORCE_PMD);
	st->uffd_changes = uffd_changes;
	st->exit = 0;
	st->active = 0;
	bpf_loop((st->rw.npages + PC_RW_CHUNK - 1) / PC_RW_CHUNK, hook ? mp_hook_chunk : mp_chunk,
		 tid, 0);
	st = bpf_map_lookup_elem(hook ? (void *)&mp_hook_states : (void *)&mp_states, tid);
	if (st)
		st->active = 1;
}

/* Ends the window under tid: its slots judged at tier. */
static __always_inline void mp_end(bool hook, __u32 *tid, __u32 tier)
{
	void *map = hook ? (void *)&mp_hook_states : (void *)&mp_states;
	struct mp_state *st = bpf_map_lookup_elem(map, tid);

	if (!st || !st->active)
		return;
	st->active = 0;
	__builtin_memset(st->c, 0, sizeof(st->c));
	st->pv.events_sent = 0;
	st->exit = 1;
	st->w.tier = tier;
	st->w.gen = st->gen;
	st->w.flags = PC_WIN_GEN | (st->shared ? PC_WIN_UNRELIABLE : 0);
	st->w_marks = st->w;
	if (!st->enforced)
		st->w_marks.flags |= PC_WIN_UNRELIABLE;
	bpf_loop((st->rw.npages + PC_RW_CHUNK - 1) / PC_RW_CHUNK, hook ? mp_hook_chunk : mp_chunk,
		 tid, 0);
	st = bpf_map_lookup_elem(map, tid);
	if (!st)
		return;
	/* The walk itself is part of the window. */
	if (!st->shared && disturb_gen() != st->gen) {
		for (int k = 0; k < 3; k++)
			pc_count_window_disturbed(&st->c[k]);
	}
	if (st->write)
		add_counts(PC_CHK_MP_WRITE, tier, &st->c[0]);
	add_counts(PC_CHK_MP_SOFT_DIRTY, tier, &st->c[1]);
	if (!st->uffd_changes)
		add_counts(PC_CHK_MP_UFFD_WP, tier, &st->c[2]);
}

/* At sys_enter, from bpf/syscalls.bpf.c: the range, and the marked
   entries of it. */
__noinline int pc_mprotect_sys_enter(struct bpf_raw_tracepoint_args *ctx, long nr)
{
	__u32 tid = pc_tid(), track;
	__u64 start, len;

	if (!sys_mprotect || !mp_nr(nr) || !pc_sys_native(ctx))
		return 0;
	track = target_flags();
	if (!track || !pc_sampled(PC_SAMPLE_MPROTECT))
		return 0;
	if (!pc_sys_range(ctx, &start, &len))
		return 0;
	mp_begin(false, &tid, track, start, len, pc_sys_arg(ctx, 2) & MP_PROT_WRITE, false);
	return 0;
}

/* At sys_exit, from bpf/syscalls.bpf.c: a call that failed may have
   changed part of the range, nothing is judged then. */
__noinline int pc_mprotect_sys_exit(struct bpf_raw_tracepoint_args *ctx, long nr)
{
	__u32 key = pc_tid();
	struct mp_state *st;

	if (!sys_mprotect || !mp_nr(nr) || !pc_sys_native(ctx))
		return 0;
	if ((long)ctx->args[1] != 0) {
		st = bpf_map_lookup_elem(&mp_states, &key);
		if (st)
			st->active = 0;
		return 0;
	}
	mp_end(false, &key, PC_TIER_SYSCALL_WALK);
	return 0;
}

/*
 * The hook tier (guests: fentry and fexit of change_protection, which
 * mprotect, NUMA hinting and UFFDIO_WRITEPROTECT call on one VMA's range
 * of the current mm): the same judgements, the write rule on every call
 * (it holds whatever changed the protection), the uffd-wp bits except
 * where the call sets or resolves them (MM_CP_UFFD_WP_ALL).
 */
SEC("fentry/change_protection")
int BPF_PROG(mprotect_change_fentry, void *tlb, struct vm_area_struct *vma, unsigned long start,
	     unsigned long end, unsigned long cp_flags)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	__u32 tid = pc_tid(), track;

	(void)tlb;
	if (!mp_hook_enabled || end <= start ||
	    BPF_CORE_READ(vma, vm_mm) != BPF_CORE_READ(task, mm))
		return 0;
	track = target_flags();
	if (!track || !pc_sampled(PC_SAMPLE_MPROTECT))
		return 0;
	mp_begin(true, &tid, track, start, end - start, true, cp_flags & MP_CP_UFFD_WP_ALL);
	return 0;
}

SEC("fexit/change_protection")
int BPF_PROG(mprotect_change_fexit)
{
	__u32 tid = pc_tid();

	if (mp_hook_enabled)
		mp_end(true, &tid, PC_TIER_FEXIT);
	return 0;
}
