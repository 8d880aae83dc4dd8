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
 *
 * reclaim/write, at the same exits: every present writable PTE of the
 * range that maps a page of an anonymous folio maps a page exclusive to
 * the process (pc_anon_write_exclusive, the kernel's own rule): reclaim
 * that cannot discard a batch puts it back with set_ptes, and a batch
 * that spanned entries of both write permissions (29f40594a281) makes
 * the read-only ones writable, their pages not exclusive since a fork.
 *
 * The hook tier (guests: fentry and fexit of try_to_unmap_one, the
 * batched unmap itself, where the traced task reclaims a folio of its own
 * mm: MADV_PAGEOUT, or direct reclaim) judges the same from the folio's
 * address to its PMD's or VMA's end: a dirty PTE of a lazyfree folio at
 * its entry maps something at its exit.  kswapd's reclaim runs in no traced task and is
 * not seen.
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
	struct pc_check_counts c, c_write; /* reclaim/dirty, reclaim/write */
	struct pc_window w;
	struct pc_pending pv;
	struct pc_range_walk rw;
	__u64 dirty_lazy[PC_RW_MAX_PAGES / 64]; /* slot i noted: bit i */
};

/* The syscall's windows, and the hook tier's (nested in them) in their
   own map. */
PC_THREAD_BIG_MAP(rc_states, struct rc_state, 128);
PC_THREAD_BIG_MAP(rc_hook_states, struct rc_state, 64);

/* Whether the hook tier judges here (trace/reclaim.c: attached, vmemmap). */
const volatile bool rc_hook_enabled = false;

/* reclaim/bounds: the PTEs of the folio past the VMA's end, in its page
   table, at try_to_unmap_one's entry (per thread). */
#define RC_BOUNDS_MAX 16 /* slots read past the VMA's end: a 64 KiB folio's */
struct rc_bounds {
	__u64 start;		  /* the first slot's address: vm_end */
	__u64 pfn[RC_BOUNDS_MAX]; /* PFN + 1 of the folio's page there, 0 none */
	__u32 n, active, shared, pad;
	struct pc_check_counts c;
	struct pc_window w;
	struct pc_pending pv;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 256);
	__type(key, __u32);
	__type(value, struct rc_bounds);
} rc_bounds_states SEC(".maps");

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

	if (!st || (!sys_reclaim && !rc_hook_enabled))
		return 0;
	readable = pc_rw_pte(&st->rw, i, &addr, &p);
	if (st->exit) {
		bool anon = false, exclusive = false;

		/* An unreadable table (a huge PMD now) is not an empty slot. */
		if (!readable)
			return 0;
		if (st->dirty_lazy[word] & bit)
			pc_judge(&st->c, &st->pv, &st->w, PC_CHK_RECLAIM_DIRTY,
				 pc_reclaim_dirty_kept(true, p.kind != PC_PTE_NONE), addr, 0, 1,
				 p.kind != PC_PTE_NONE);
		/* What reclaim put back, with the write it had: a writable
		   anonymous PTE maps an exclusive page. */
		if (p.kind == PC_PTE_PRESENT && p.write && !pc_rw_page(p.pfn, &anon, &exclusive) &&
		    anon && pc_rw_pte_still(&st->rw, addr, &p))
			pc_judge(&st->c_write, &st->pv, &st->w, PC_CHK_RECLAIM_WRITE,
				 pc_anon_write_exclusive(true, exclusive), addr, 0, 1, 0);
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
PC_RW_LOOP_FN(rc_hook_chunk, rc_hook_states, struct rc_state, pc_rc_slot)

/* Whether the current task is one of ptecheck's own scenarios, sampled. */
static __always_inline bool rc_enforced(void)
{
	__u32 track = target_flags();

	return track && ((track - 1) & PC_TRACK_ENFORCE_PMD) && pc_sampled(PC_SAMPLE_RECLAIM);
}

/* Opens a window over [start, start + len) of the current mm (hook: the
   hook tier's map): its dirty lazyfree slots noted. */
static __always_inline void rc_begin(bool hook, __u32 *tid, __u64 start, __u64 len)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct rc_state *st = hook ? pc_big_state(&rc_hook_states, &rc_hook_states_template, tid)
				   : pc_big_state(&rc_states, &rc_states_template, tid);

	if (!st)
		return;
	st->active = 0;
	st->exit = 0;
	st->noted = 0;
	st->shared = pc_task_shared();
	st->rw.pgd = (__u64)BPF_CORE_READ(task, mm, pgd);
	pc_rw_set(&st->rw, start, len);
	bpf_loop((st->rw.npages + PC_RW_CHUNK - 1) / PC_RW_CHUNK, hook ? rc_hook_chunk : rc_chunk,
		 tid, 0);
	st = bpf_map_lookup_elem(hook ? (void *)&rc_hook_states : (void *)&rc_states, tid);
	if (st)
		st->active = 1; /* reclaim/write judges every writable PTE at the exit */
}

/* Closes the window under tid: its noted slots judged at tier.  A process
   being killed (the OOM reaper empties its mm) proves nothing. */
static __always_inline void rc_end(bool hook, __u32 *tid, __u32 tier)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	void *map = hook ? (void *)&rc_hook_states : (void *)&rc_states;
	struct rc_state *st = bpf_map_lookup_elem(map, tid);

	if (!st || !st->active)
		return;
	st->active = 0;
	if (BPF_CORE_READ(task, signal, flags) & RC_SIGNAL_GROUP_EXIT)
		return;
	__builtin_memset(&st->c, 0, sizeof(st->c));
	__builtin_memset(&st->c_write, 0, sizeof(st->c_write));
	st->pv.events_sent = 0;
	st->exit = 1;
	st->w.tier = tier;
	st->w.gen = 0;
	st->w.flags = st->shared ? PC_WIN_UNRELIABLE : 0;
	bpf_loop((st->rw.npages + PC_RW_CHUNK - 1) / PC_RW_CHUNK, hook ? rc_hook_chunk : rc_chunk,
		 tid, 0);
	st = bpf_map_lookup_elem(map, tid);
	if (!st)
		return;
	add_counts(PC_CHK_RECLAIM_DIRTY, tier, &st->c);
	add_counts(PC_CHK_RECLAIM_WRITE, tier, &st->c_write);
}

/* At sys_enter, from bpf/syscalls.bpf.c. */
__noinline int pc_reclaim_sys_enter(struct bpf_raw_tracepoint_args *ctx, long nr)
{
	__u32 tid = pc_tid();
	__u64 start, len;

	if (!sys_reclaim || !rc_call(ctx, nr) || !rc_enforced())
		return 0;
	if (pc_sys_range(ctx, &start, &len))
		rc_begin(false, &tid, start, len);
	return 0;
}

/* At sys_exit, from bpf/syscalls.bpf.c. */
__noinline int pc_reclaim_sys_exit(struct bpf_raw_tracepoint_args *ctx, long nr)
{
	__u32 key = pc_tid();
	struct rc_state *st;

	if (!sys_reclaim || !rc_call(ctx, nr))
		return 0;
	/* A call that failed may have stopped anywhere. */
	if ((long)ctx->args[1] != 0) {
		st = bpf_map_lookup_elem(&rc_states, &key);
		if (st)
			st->active = 0;
		return 0;
	}
	rc_end(false, &key, PC_TIER_SYSCALL_WALK);
	return 0;
}

/* The PTE at addr of the current mm: its PFN + 1 when present, 0 when not,
   -1 when there is no PTE table. */
static __always_inline long rc_pte_pfn1(__u64 pgd, __u64 addr)
{
	struct pc_pte p;
	__u64 pmd = 0, raw = 0;

	if (pc_walk_pmd(pgd, addr, &pmd) != PC_WALK_TABLE ||
	    pc_read_ptes(pc_table_phys(pmd), (addr >> PC_PAGE_SHIFT) & 511, &raw, 8))
		return -1;
	p = pc_decode_pte(raw);
	return p.kind == PC_PTE_PRESENT ? (long)(p.pfn + 1) : 0;
}

/*
 * reclaim/bounds at the entry: the PTEs from vm_end on, in vm_end's page
 * table, that map a page of the folio being unmapped (its head at folio,
 * an address read as a number).  A global function, verified once.
 */
__noinline int pc_rc_bounds_enter(__u32 tid, __u64 folio, __u64 vm_end, __u64 pgd)
{
	struct rc_bounds fresh = {}, *b;
	__u32 noted = 0;

	if (!rc_hook_enabled || !walk_page_size || !(vm_end & (PC_PMD_SIZE - 1)))
		return 0;
	bpf_map_update_elem(&rc_bounds_states, &tid, &fresh, BPF_ANY);
	b = bpf_map_lookup_elem(&rc_bounds_states, &tid);
	if (!b)
		return 0;
	b->start = vm_end;
	for (__u32 i = 0; i < RC_BOUNDS_MAX; i++) {
		__u64 addr = vm_end + ((__u64)i << PC_PAGE_SHIFT);
		struct pc_folio_at at;
		long pfn1;

		if (!(addr & (PC_PMD_SIZE - 1)) && i) /* the next page table */
			break;
		b->n = i + 1;
		pfn1 = rc_pte_pfn1(pgd, addr);
		if (pfn1 <= 0)
			continue;
		at = pc_folio_of_page(walk_vmemmap + (pfn1 - 1) * walk_page_size);
		if (at.pages && at.head == folio) {
			b->pfn[i] = pfn1;
			noted++;
		}
	}
	b->shared = pc_task_shared();
	b->active = noted > 0;
	return 0;
}

/* reclaim/bounds at the exit: each slot noted maps the same page still. */
__noinline int pc_rc_bounds_exit(__u32 tid, __u64 pgd)
{
	struct rc_bounds *b = bpf_map_lookup_elem(&rc_bounds_states, &tid);

	if (!b || !b->active)
		return 0;
	b->active = 0;
	__builtin_memset(&b->c, 0, sizeof(b->c));
	b->pv.events_sent = 0;
	b->w.tier = PC_TIER_FEXIT;
	b->w.gen = 0;
	b->w.flags = b->shared ? PC_WIN_UNRELIABLE : 0;
	for (__u32 i = 0; i < RC_BOUNDS_MAX && i < b->n; i++) {
		__u64 addr = b->start + ((__u64)i << PC_PAGE_SHIFT);
		long pfn1;

		if (!b->pfn[i])
			continue;
		pfn1 = rc_pte_pfn1(pgd, addr);
		pc_judge(&b->c, &b->pv, &b->w, PC_CHK_RECLAIM_BOUNDS,
			 pc_reclaim_within_vma(true, pfn1 == (long)b->pfn[i]), addr, 0,
			 b->pfn[i] - 1, pfn1 > 0 ? pfn1 - 1 : 0);
	}
	add_counts(PC_CHK_RECLAIM_BOUNDS, PC_TIER_FEXIT, &b->c);
	return 0;
}

/*
 * The hook tier, of the current task's own mm: from address (the folio's
 * first page, or the VMA's start where the folio begins before it) to the
 * end of its PMD or VMA, whichever comes first, which holds the folio's
 * span (no folio crosses a PMD).  The other folios there are judged by the
 * same rule: no one may empty a slot a dirty lazyfree page was in.  (The
 * folio's own size is not read: arithmetic on its BTF pointer is what
 * the verifier refuses.)
 */
SEC("fentry/try_to_unmap_one")
int BPF_PROG(reclaim_unmap_fentry, struct folio *folio, struct vm_area_struct *vma,
	     unsigned long address)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	__u32 tid = pc_tid();
	__u64 end, vm_end, faddr = 0;

	(void)folio;
	if (!rc_hook_enabled || !vma || BPF_CORE_READ(vma, vm_mm) != BPF_CORE_READ(task, mm) ||
	    !rc_enforced())
		return 0;
	end = (address | ((1ULL << PC_PMD_SHIFT) - 1)) + 1;
	vm_end = BPF_CORE_READ(vma, vm_end);
	/* The folio's address as a number: arithmetic on the BTF pointer
	   is what the verifier refuses. */
	bpf_probe_read_kernel(&faddr, sizeof(faddr), &ctx[0]);
	pc_rc_bounds_enter(tid, faddr, vm_end, (__u64)BPF_CORE_READ(task, mm, pgd));
	if (end > vm_end)
		end = vm_end;
	if (end > address)
		rc_begin(true, &tid, address, end - address);
	return 0;
}

/* Whatever it returned: true (unmapped) or false (put back), a slot that
   held a dirty page at the entry maps something. */
SEC("fexit/try_to_unmap_one")
int BPF_PROG(reclaim_unmap_fexit)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	__u32 tid = pc_tid();

	if (!rc_hook_enabled)
		return 0;
	rc_end(true, &tid, PC_TIER_FEXIT);
	pc_rc_bounds_exit(tid, (__u64)BPF_CORE_READ(task, mm, pgd));
	return 0;
}
