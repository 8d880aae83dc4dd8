// SPDX-License-Identifier: GPL-2.0
/*
 * The fork path's hook tier (fork/cow [kernel:fexit]): at fexit of a
 * traced task's copy_page_range(dst_vma, src_vma) that returned 0, every
 * present PTE of the parent's VMA (PC_RW_MAX_PAGES at most) that maps a
 * page of an anonymous folio is judged: writable only where the page is
 * exclusive to the parent (pc_anon_write_exclusive).  copy_present_ptes shares each
 * batch's pages with the child (folio_try_dup_anon_rmap_ptes clears their
 * exclusivity) and must write-protect all of them in the parent
 * (wrprotect_ptes, the batch's write bit merged over it); a page it had
 * to copy for the child (a pinned one) stays the parent's, exclusive, and
 * writable.
 *
 * At fexit dup_mmap still holds the parent's mmap lock for writing and
 * the VMA's own write lock: no fault can change the parent's PTEs, and
 * hardware never sets the write bit.  Reclaim, migration and compaction
 * can; a walk that overlapped them (the disturbance generation) is
 * inconclusive.
 */
#include "range_walk.bpf.h"
#include <ptecheck/fork.h>

/* Whether the session judges here (trace/fork.c: the walk calibrated). */
const volatile bool fk_enabled = false;

struct fk_state {
	struct pc_check_counts c;
	struct pc_window w;
	struct pc_pending pv;
	struct pc_range_walk rw;
};

/* The walk's, per thread: a program preempted mid-walk must not share it
   with another task's fork on the same CPU. */
PC_THREAD_BIG_MAP(fk_states, struct fk_state, 256);

/* Slot i of the VMA.  A global function, verified once on its own. */
__noinline int pc_fk_slot(struct fk_state *st, __u64 i)
{
	bool anon = false, exclusive = false;
	struct pc_pte p;
	__u64 addr;

	if (!st || !fk_enabled || !pc_rw_pte(&st->rw, i, &addr, &p))
		return 0;
	/* Every present anonymous PTE is judged: read-only is the copy-on-
	   write protection this checks, kept. */
	if (p.kind != PC_PTE_PRESENT || pc_rw_page(p.pfn, &anon, &exclusive) || !anon)
		return 0;
	pc_judge(&st->c, &st->pv, &st->w, PC_CHK_FORK_COW,
		 pc_anon_write_exclusive(p.write, exclusive), addr, 0, 1, 0);
	return 0;
}

PC_RW_LOOP_FN(fk_chunk, fk_states, struct fk_state, pc_fk_slot)

SEC("fexit/copy_page_range")
int BPF_PROG(fork_copy_fexit, struct vm_area_struct *dst_vma, struct vm_area_struct *src_vma,
	     int ret)
{
	__u32 key = pc_tid();
	struct fk_state *st;
	__u64 start, end;

	(void)dst_vma;
	if (ret || !fk_enabled || !target_flags() || !pc_sampled(PC_SAMPLE_FORK))
		return 0;
	st = pc_big_state(&fk_states, &fk_states_template, &key);
	if (!st)
		return 0;
	start = BPF_CORE_READ(src_vma, vm_start);
	end = BPF_CORE_READ(src_vma, vm_end);
	if (end <= start)
		return 0;
	__builtin_memset(&st->c, 0, sizeof(st->c));
	st->pv.events_sent = 0;
	pc_rw_set(&st->rw, start, end - start);
	st->rw.pgd = (__u64)BPF_CORE_READ(src_vma, vm_mm, pgd);
	st->w.tier = PC_TIER_FEXIT;
	st->w.gen = disturb_gen();
	st->w.flags = PC_WIN_GEN;
	bpf_loop((st->rw.npages + PC_RW_CHUNK - 1) / PC_RW_CHUNK, fk_chunk, &key, 0);
	st = bpf_map_lookup_elem(&fk_states, &key);
	if (!st)
		return 0;
	/* The walk itself is the window. */
	if (disturb_gen() != st->w.gen)
		pc_count_window_disturbed(&st->c);
	add_counts(PC_CHK_FORK_COW, PC_TIER_FEXIT, &st->c);
	return 0;
}
