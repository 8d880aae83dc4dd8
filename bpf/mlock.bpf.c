// SPDX-License-Identifier: GPL-2.0
/*
 * The mlock path's syscall-walk tier (mlock/folios [kernel:syscall-walk],
 * include/ptecheck/mlock.h): a traced task's mlock or mlock2 whose range
 * lies in one VMA not yet locked is walked twice, at raw_syscalls:
 * sys_enter and, when it returned 0 and left the VMA VM_LOCKED, at
 * sys_exit.  Each walk cuts the PTEs into the runs folio_pte_batch would
 * batch (pc_fpb_step); a folio that a run maps whole both times, at the
 * same PFN (pc_mlock_run_whole), was in the range when mlock_fixup ran
 * mlock_vma_pages_range over it, and mlock_pte_range must have set its
 * PG_mlocked at once (mlock_folio): not mlocked at the exit is the bug.
 *
 * The other way: a large folio at either end of the range whose span,
 * where its index places it, reaches out of the range (pc_mlock_folio_cut:
 * folio_within_range refuses it) must not be mlocked at the exit when it
 * was not at the entry, with the same exclusions (pc_mlock_folio, held
 * false).
 *
 * Left out, so that nothing but that bug can fail it: folios made whole
 * after the walk (a fault that maps a folio in parts does not mlock it),
 * a VMA locked already (mlock_fixup does nothing), every folio not
 * anonymous or whose first page is not exclusive to the process (another
 * mm's munlock may clear PG_mlocked: its mlock_count is not exact), and a
 * PMD-sized folio until the kernel has shown it mlocks those
 * (mlock_pte_range skipped every large folio until v6.7; a smaller
 * anonymous one exists only with mTHP, v6.8).  A window that overlapped
 * reclaim, migration, compaction, collapse or KSM (the disturbance
 * generation) or a task whose mm others share is inconclusive.
 */
#include "range_walk.bpf.h"
#include <ptecheck/batch_walk.h>
#include <ptecheck/mlock.h>

#define ML_VM_LOCKED 0x2000UL /* include/linux/mm.h: VMA bit 13 */

/* The VMA holding the range, as bpf_find_vma saw it. */
struct ml_vma {
	__u64 start, end, flags, pgoff;
	__u32 found, pad;
};

struct ml_state {
	__u64 gen;
	__u32 active, shared;
	__u32 exit; /* the walk at sys_exit (else at sys_enter) */
	__u32 pad;
	struct ml_vma vma;
	struct pc_fpb_run run;
	__u64 run_addr, run_pfn, run_nr; /* the open run's first PTE and its folio's pages */
	struct pc_check_counts c;
	struct pc_window w;
	struct pc_pending pv;
	struct pc_range_walk rw;
	/* At sys_enter: the PFN + 1 of the folio a run maps whole from slot i;
	   of the page the first and last slot map, where its folio is cut. */
	__u64 whole[PC_RW_MAX_PAGES];
	__u64 cut[2];
};

PC_THREAD_BIG_MAP(ml_states, struct ml_state, 64);
/* The hook tier's, whose windows nest in the syscall's. */
PC_THREAD_BIG_MAP(ml_hook_states, struct ml_state, 64);

/* Whether the hook tier judges here (trace/mlock.c: attached, vmemmap). */
const volatile bool ml_hook_enabled = false;

/* Set once this kernel mlocked a PMD-sized folio mapped by PTEs in a
   traced mlock (not mlocked at its entry, mlocked at its exit). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} ml_pmd_rule SEC(".maps");

#define ML_MLOCKED_AT_ENTRY (1ULL << 63) /* in whole[]: beside the PFN + 1 */

static __always_inline bool ml_nr(long nr)
{
	return nr == PC_NR_mlock || nr == PC_NR_mlock2;
}

static long ml_vma_cb(struct task_struct *task, struct vm_area_struct *vma, void *data)
{
	struct ml_vma *v = data;

	v->start = BPF_CORE_READ(vma, vm_start);
	v->end = BPF_CORE_READ(vma, vm_end);
	v->flags = BPF_CORE_READ(vma, vm_flags);
	v->pgoff = BPF_CORE_READ(vma, vm_pgoff);
	v->found = 1;
	return 0;
}

/* The VMA at addr into *v, read under a trylock of the mmap lock: false
   when it is busy or there is none. */
static __always_inline bool ml_vma_at(__u64 addr, struct ml_vma *v)
{
	struct ml_vma found = {}; /* the helper's context: on the stack */

	if (bpf_find_vma(bpf_get_current_task_btf(), addr, ml_vma_cb, &found, 0) || !found.found)
		return false;
	*v = found;
	return true;
}

/*
 * The run that ended at len PTEs: where it maps its folio whole, at
 * sys_enter its PFN is kept for the slot it began in; at sys_exit, a folio
 * kept so is judged.  A global function, verified once on its own.
 */
__noinline int pc_ml_run_end(struct ml_state *st, __u64 len)
{
	struct pc_page_words w = {};
	struct folio *f;
	__u64 slot, index = 0, index_addr, entry;
	bool mlocked, exclusive;
	__u32 zero = 0, *rule;

	if (!st || (!sys_mlock && !ml_hook_enabled) || !st->run_nr || st->run_addr < st->rw.start)
		return 0;
	slot = (st->run_addr - st->rw.start) >> PC_PAGE_SHIFT;
	if (slot >= PC_RW_MAX_PAGES || pc_page_words(st->run_pfn, &w))
		return 0;
	if (st->run_nr > 1) {
		f = (struct folio *)(walk_vmemmap + st->run_pfn * walk_page_size);
		if (bpf_probe_read_kernel(&index, sizeof(index), &f->index))
			return 0;
	}
	index_addr = st->vma.start + ((index - st->vma.pgoff) << PC_PAGE_SHIFT);
	if (!pc_mlock_run_whole(st->run_pfn, len, st->run_addr, st->run_pfn, st->run_nr,
				index_addr))
		return 0;
	mlocked = w.head_flags & (1UL << bpf_core_enum_value(enum pageflags, PG_mlocked));
	if (!st->exit) {
		st->whole[slot & (PC_RW_MAX_PAGES - 1)] =
			(st->run_pfn + 1) | (mlocked ? ML_MLOCKED_AT_ENTRY : 0);
		return 0;
	}
	entry = st->whole[slot & (PC_RW_MAX_PAGES - 1)];
	if ((entry & ~ML_MLOCKED_AT_ENTRY) != st->run_pfn + 1)
		return 0;
	/* Anonymous, not KSM (both tag bits), and its first page ours alone. */
	exclusive = w.flags & (1UL << bpf_core_enum_value(enum pageflags, PG_anon_exclusive));
	if ((w.mapping & 3) != PC_PAGE_MAPPING_ANON || !exclusive)
		return 0;
	/*
	 * Until v6.7 mlock_pte_range skipped every large folio; an anonymous
	 * one smaller than a PMD exists only where mTHP does (v6.8), which
	 * mlocks them, so those are judged everywhere.  A PMD-sized one is
	 * judged once the kernel showed it mlocks them.
	 */
	rule = bpf_map_lookup_elem(&ml_pmd_rule, &zero);
	if (!rule)
		return 0;
	if (st->run_nr >= PC_PTRS_PER_TABLE && mlocked && !(entry & ML_MLOCKED_AT_ENTRY))
		*rule = 1;
	if (st->run_nr >= PC_PTRS_PER_TABLE && !*rule)
		return 0;
	pc_judge(&st->c, &st->pv, &st->w, PC_CHK_MLOCK_FOLIOS, pc_mlock_folio(mlocked, true),
		 st->run_addr, 0, 1, mlocked);
	return 0;
}

/*
 * The page at addr (pfn), at the range's first or last slot (k 0 or 1):
 * where its folio is cut by the range (pc_mlock_folio_cut), its PFN kept
 * at the entry, and at the exit, the same page there, judged.  A global
 * function, verified once on its own.
 */
__noinline int pc_ml_cut(struct ml_state *st, __u64 addr, __u64 pfn, __u32 k)
{
	struct pc_page_words w = {};
	struct pc_folio_at at;
	struct folio *f;
	__u64 head_pfn, index = 0, index_addr, entry, end;
	bool mlocked, exclusive;

	if (!st || (!sys_mlock && !ml_hook_enabled) || !walk_page_size)
		return 0;
	k &= 1;
	at = pc_folio_of_page(walk_vmemmap + pfn * walk_page_size);
	if (at.pages < 2 || at.head < walk_vmemmap || pc_page_words(pfn, &w))
		return 0;
	head_pfn = (at.head - walk_vmemmap) / walk_page_size;
	f = (struct folio *)at.head;
	if (pfn < head_pfn || bpf_probe_read_kernel(&index, sizeof(index), &f->index))
		return 0;
	index_addr = st->vma.start + ((index - st->vma.pgoff) << PC_PAGE_SHIFT);
	end = st->rw.start + (st->rw.npages << PC_PAGE_SHIFT);
	/* Mapped where its index says (else folio_within_range judges
	   another place), and reaching out of the range. */
	if (index_addr + ((pfn - head_pfn) << PC_PAGE_SHIFT) != addr ||
	    !pc_mlock_folio_cut(index_addr, at.pages, st->rw.start, end))
		return 0;
	mlocked = w.head_flags & (1UL << bpf_core_enum_value(enum pageflags, PG_mlocked));
	if (!st->exit) {
		st->cut[k] = (pfn + 1) | (mlocked ? ML_MLOCKED_AT_ENTRY : 0);
		return 0;
	}
	entry = st->cut[k];
	if (entry != pfn + 1) /* another page now, or mlocked already */
		return 0;
	exclusive = w.flags & (1UL << bpf_core_enum_value(enum pageflags, PG_anon_exclusive));
	if ((w.mapping & 3) != PC_PAGE_MAPPING_ANON || !exclusive)
		return 0;
	pc_judge(&st->c, &st->pv, &st->w, PC_CHK_MLOCK_FOLIOS, pc_mlock_folio(mlocked, false), addr,
		 0, 0, mlocked);
	return 0;
}

/* Slot i of the range, at either walk.  A global function. */
__noinline int pc_ml_slot(struct ml_state *st, __u64 i)
{
	struct pc_folio_at at;
	bool open = false;
	struct pc_pte p = {};
	__u64 addr, bits = 0, ended, head_pfn;

	if (!st || (!sys_mlock && !ml_hook_enabled))
		return 0;
	/* The entry walk visits every slot first: what an earlier call kept
	   there is gone before a run could end past it. */
	if (!st->exit)
		st->whole[i & (PC_RW_MAX_PAGES - 1)] = 0;
	if (!st->exit && i == 0)
		st->cut[0] = st->cut[1] = 0;
	if (!pc_rw_pte(&st->rw, i, &addr, &p))
		p.kind = PC_PTE_NONE;
	if (p.kind == PC_PTE_PRESENT && (i == 0 || i + 1 == st->rw.npages))
		pc_ml_cut(st, addr, p.pfn, i == 0 ? 0 : 1);
	if (p.kind == PC_PTE_PRESENT)
		bits = p.raw & ~pc_fpb_ignored(false);
	ended = pc_fpb_step(&st->run, addr, p.kind == PC_PTE_PRESENT, p.pfn, bits, &open);
	if (ended)
		pc_ml_run_end(st, ended);
	if (!open)
		return 0;
	/* A run opens at every present PTE that continues none; it is a
	   candidate only where it begins at its folio's first page. */
	st->run_addr = addr;
	st->run_pfn = p.pfn;
	st->run_nr = 0;
	at = pc_folio_of_page(walk_vmemmap + p.pfn * walk_page_size);
	if (!at.pages || at.head < walk_vmemmap || !walk_page_size ||
	    p.pfn >= walk_phys_limit >> PC_PAGE_SHIFT) {
		pc_fpb_open(&st->run, p.pfn, bits, p.pfn, 1);
		return 0;
	}
	head_pfn = (at.head - walk_vmemmap) / walk_page_size;
	if (head_pfn == p.pfn)
		st->run_nr = at.pages;
	pc_fpb_open(&st->run, p.pfn, bits, head_pfn, at.pages);
	return 0;
}

PC_RW_LOOP_FN(ml_chunk, ml_states, struct ml_state, pc_ml_slot)
PC_RW_LOOP_FN(ml_hook_chunk, ml_hook_states, struct ml_state, pc_ml_slot)

/* Walks the range of the state under key (hook: in the hook tier's map),
   the run open at its end ended there.  The state, looked up again, or
   NULL. */
static __always_inline struct ml_state *ml_walk(struct ml_state *st, __u32 *key, bool hook)
{
	__u64 ended;

	__builtin_memset(&st->run, 0, sizeof(st->run));
	st->run_nr = 0;
	st->rw.pgd = (__u64)BPF_CORE_READ((struct task_struct *)bpf_get_current_task(), mm, pgd);
	bpf_loop((st->rw.npages + PC_RW_CHUNK - 1) / PC_RW_CHUNK, hook ? ml_hook_chunk : ml_chunk,
		 key, 0);
	st = bpf_map_lookup_elem(hook ? (void *)&ml_hook_states : (void *)&ml_states, key);
	if (!st)
		return NULL;
	ended = pc_fpb_close(&st->run);
	if (ended)
		pc_ml_run_end(st, ended);
	return st;
}

/* The walk at the beginning of st's window over [start, start + len)
   (under key; hook: the hook tier's map), which becomes active. */
static __always_inline void ml_begin(struct ml_state *st, __u32 *key, bool hook, __u64 start,
				     __u64 len)
{
	st->gen = disturb_gen();
	st->shared = pc_task_shared();
	st->exit = 0;
	pc_rw_set(&st->rw, start, len);
	st = ml_walk(st, key, hook);
	if (st)
		st->active = 1;
}

/* The walk at the end of st's window (under key; hook: the hook tier's
   map), its folios judged at tier. */
static __always_inline void ml_end(struct ml_state *st, __u32 *key, bool hook, __u32 tier)
{
	__builtin_memset(&st->c, 0, sizeof(st->c));
	st->pv.events_sent = 0;
	st->exit = 1;
	st->w.tier = tier;
	st->w.gen = st->gen;
	st->w.flags = PC_WIN_GEN | (st->shared ? PC_WIN_UNRELIABLE : 0);
	st = ml_walk(st, key, hook);
	if (!st)
		return;
	/* The walk itself is part of the window. */
	if (!st->shared && disturb_gen() != st->gen)
		pc_count_window_disturbed(&st->c);
	add_counts(PC_CHK_MLOCK_FOLIOS, tier, &st->c);
}

/* At sys_enter, from bpf/syscalls.bpf.c: the range's whole folios, when
   it lies in one VMA that mlock will lock now. */
__noinline int pc_mlock_sys_enter(struct bpf_raw_tracepoint_args *ctx, long nr)
{
	struct ml_state *st;
	__u64 start, len;
	__u32 tid = pc_tid();

	if (!sys_mlock || !ml_nr(nr) || !pc_sys_native(ctx) || !target_flags() ||
	    !pc_sampled(PC_SAMPLE_MLOCK))
		return 0;
	/* mlock rounds the range out to pages. */
	start = pc_sys_arg(ctx, 0) & ~(PC_PAGE_SIZE - 1);
	len = (pc_sys_arg(ctx, 0) + pc_sys_arg(ctx, 1) + PC_PAGE_SIZE - 1) & ~(PC_PAGE_SIZE - 1);
	if (len <= start)
		return 0;
	len -= start;
	st = pc_big_state(&ml_states, &ml_states_template, &tid);
	if (!st)
		return 0;
	st->active = 0;
	if (!ml_vma_at(start, &st->vma) || st->vma.start > start || st->vma.end < start + len ||
	    (st->vma.flags & ML_VM_LOCKED))
		return 0;
	ml_begin(st, &tid, false, start, len);
	return 0;
}

/* At sys_exit, from bpf/syscalls.bpf.c. */
__noinline int pc_mlock_sys_exit(struct bpf_raw_tracepoint_args *ctx, long nr)
{
	__u32 key = pc_tid();
	struct ml_state *st;

	if (!sys_mlock || !ml_nr(nr) || !pc_sys_native(ctx))
		return 0;
	st = bpf_map_lookup_elem(&ml_states, &key);
	if (!st || !st->active)
		return 0;
	st->active = 0;
	/* A call that failed may have stopped anywhere; a VMA mlock_fixup
	   would not lock (VM_SPECIAL, DAX, hugetlb, droppable) is left
	   unlocked: neither judged. */
	if ((long)ctx->args[1] != 0 || !ml_vma_at(st->rw.start, &st->vma) ||
	    st->vma.start > st->rw.start ||
	    st->vma.end < st->rw.start + (st->rw.npages << PC_PAGE_SHIFT) ||
	    !(st->vma.flags & ML_VM_LOCKED))
		return 0;
	ml_end(st, &key, false, PC_TIER_SYSCALL_WALK);
	return 0;
}

/*
 * The hook tier (guests: fentry and fexit of mlock_pte_range, the batched
 * helper itself, one PMD's range of a VMA being locked): the range's
 * whole folios at its entry must be mlocked at its exit.  Here the walk
 * is the mlock: no VMA locked already, no folio made whole later, is in
 * question; a munlock (the VMA not VM_LOCKED) is not judged, its bit is
 * cleared in a batch drained later.  The other exclusions are the
 * syscall tier's.
 */
SEC("fentry/mlock_pte_range")
int BPF_PROG(mlock_range_fentry, void *pmd, unsigned long addr, unsigned long end,
	     struct mm_walk *walk)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct vm_area_struct *vma = BPF_CORE_READ(walk, vma);
	__u32 tid = pc_tid();
	struct ml_state *st;

	(void)pmd;
	if (!ml_hook_enabled || end <= addr || !vma ||
	    !(BPF_CORE_READ(vma, vm_flags) & ML_VM_LOCKED) ||
	    BPF_CORE_READ(vma, vm_mm) != BPF_CORE_READ(task, mm) || !target_flags() ||
	    !pc_sampled(PC_SAMPLE_MLOCK))
		return 0;
	st = pc_big_state(&ml_hook_states, &ml_hook_states_template, &tid);
	if (!st)
		return 0;
	st->active = 0;
	st->vma.start = BPF_CORE_READ(vma, vm_start);
	st->vma.end = BPF_CORE_READ(vma, vm_end);
	st->vma.pgoff = BPF_CORE_READ(vma, vm_pgoff);
	ml_begin(st, &tid, true, addr, end - addr);
	return 0;
}

SEC("fexit/mlock_pte_range")
int BPF_PROG(mlock_range_fexit)
{
	__u32 key = pc_tid();
	struct ml_state *st;

	if (!ml_hook_enabled)
		return 0;
	st = bpf_map_lookup_elem(&ml_hook_states, &key);
	if (!st || !st->active)
		return 0;
	st->active = 0;
	ml_end(st, &key, true, PC_TIER_FEXIT);
	return 0;
}
