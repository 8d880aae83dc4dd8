// SPDX-License-Identifier: GPL-2.0
/*
 * The madvise path's syscall-walk tier (madvise/range [kernel:syscall-walk],
 * include/ptecheck/madvise.h): at raw_syscalls:sys_enter of madvise(FREE)
 * from a tracked task, the two PTEs just outside the range, the page below
 * its start and the page at its end, are read from the page tables; at
 * sys_exit, each that was present and dirty and mapped an anonymous folio
 * must still be dirty where it maps the same page (the PTE's bit, or the
 * folio's where a split moved it there: pc_madvise_neighbour).  A clear
 * that runs past the batch cleans exactly those entries.
 *
 * Hardware sets dirty bits without locks, so only a loss is judged; a
 * window that overlapped reclaim, migration, compaction or writeback (the
 * disturbance generation), or a task whose mm others share, is
 * inconclusive.  Entries of file folios are left out: writeback cleans
 * their PTEs at any time.
 *
 * The hook tier (guests: fentry and fexit of madvise_free_pte_range, the
 * batched helper, called for one PMD's part of the range) judges the same
 * two neighbours of each call's part: inside the advised range too, where
 * a clear that runs past one PMD's batches cleans the next part's first
 * entry before its own call, which the syscall's neighbours cannot show.
 * A PMD boundary is a folio boundary (no folio crosses one) and an arm64
 * contpte block's too, so no clear of a whole block reaches past it.
 */
#include "range_walk.bpf.h"
#include <ptecheck/batch.h>
#include <ptecheck/madvise.h>

/* One PTE outside the range, as read at entry. */
struct mv_side {
	__u64 addr;
	__u64 pfn;
	__u32 judged; /* present, dirty, of an anonymous folio */
};

struct mv_state {
	__u64 gen; /* the disturbance generation at entry */
	__u32 active, shared;
	struct mv_side side[2];
	struct pc_pending pv;
};

/* Per thread; LRU: a thread that never returns (killed) leaves an entry
   the next ones push out.  The hook tier's windows (nested in the
   syscall's) in their own map. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct mv_state);
} mv_states SEC(".maps"), mv_hook_states SEC(".maps");

/* Whether the hook tier judges here (trace/madvise.c: attached). */
const volatile bool mv_hook_enabled = false;

static __always_inline __u64 mv_pgd(void)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();

	return (__u64)BPF_CORE_READ(task, mm, pgd);
}

/* The PTE mapping addr under pgd: 0 and *raw, or -1 (no PTE table). */
static __always_inline int mv_read_pte(__u64 pgd, __u64 addr, __u64 *raw)
{
	__u64 pmd = 0;

	if (pc_walk_pmd(pgd, addr, &pmd) != PC_WALK_TABLE)
		return -1;
	return pc_read_ptes(pc_table_phys(pmd), (addr >> PC_PAGE_SHIFT) & 511, raw, 8);
}

static __always_inline void mv_side_enter(struct mv_side *s, __u64 pgd, __u64 addr)
{
	struct pc_page_words w = {};
	struct pc_pte p;
	__u64 raw = 0;

	s->addr = addr;
	s->judged = 0;
	if (mv_read_pte(pgd, addr, &raw))
		return;
	p = pc_decode_pte(raw);
	if (p.kind != PC_PTE_PRESENT || !p.dirty || pc_page_words(p.pfn, &w))
		return;
	s->pfn = p.pfn;
	s->judged = (w.mapping & PC_PAGE_MAPPING_ANON) != 0;
}

/* Opens a window over [start, start + len) of the current mm in the
   thread's state (hook: the hook tier's map): its two neighbours read. */
static __always_inline void mv_begin(bool hook, __u32 *tid, __u64 start, __u64 len)
{
	void *map = hook ? (void *)&mv_hook_states : (void *)&mv_states;
	struct mv_state *st = bpf_map_lookup_elem(map, tid);
	__u64 pgd;

	if (!st) {
		struct mv_state fresh = {};

		bpf_map_update_elem(map, tid, &fresh, BPF_ANY);
		st = bpf_map_lookup_elem(map, tid);
		if (!st) {
			stat_add(PC_STAT_STATE_FULL, 1);
			return;
		}
	}
	st->gen = disturb_gen();
	st->shared = pc_task_shared();
	st->pv.events_sent = 0;
	pgd = mv_pgd();
	mv_side_enter(&st->side[0], pgd, start - PC_PAGE_SIZE);
	mv_side_enter(&st->side[1], pgd, start + len);
	st->active = st->side[0].judged || st->side[1].judged;
}

/*
 * At sys_enter, from bpf/syscalls.bpf.c.  A global function, verified
 * once on its own.
 */
__noinline int pc_madvise_sys_enter(struct bpf_raw_tracepoint_args *ctx, long nr)
{
	__u64 start, len;
	__u32 tid = pc_tid();

	if (!sys_madvise)
		return 0;
	PC_FAULT_POINT(PC_FAULT_MADVISE);
	if (nr != PC_NR_madvise || !pc_sys_native(ctx) || pc_sys_arg(ctx, 2) != PC_MADV_FREE ||
	    !target_flags() || !pc_sampled(PC_SAMPLE_MADVISE))
		return 0;
	/* Its neighbour below start is read too: not below the first page. */
	if (!pc_sys_range(ctx, &start, &len) || start < PC_PAGE_SIZE)
		return 0;
	mv_begin(false, &tid, start, len);
	return 0;
}

static __always_inline void mv_side_exit(struct mv_state *st, int k, __u64 pgd,
					 struct pc_check_counts *c, const struct pc_window *w)
{
	struct mv_side *s = &st->side[k & 1];
	struct pc_page_words pw = {};
	bool same = false, folio_dirty = false;
	struct pc_pte p = {};
	__u64 raw = 0;

	if (!s->judged)
		return;
	if (!mv_read_pte(pgd, s->addr, &raw)) {
		p = pc_decode_pte(raw);
		same = p.kind == PC_PTE_PRESENT && p.pfn == s->pfn;
	}
	if (same && !p.dirty && !pc_page_words(p.pfn, &pw))
		folio_dirty =
			pw.head_flags & (1UL << bpf_core_enum_value(enum pageflags, PG_dirty));
	pc_judge(c, &st->pv, w, PC_CHK_MADV_RANGE,
		 pc_madvise_neighbour(true, same, p.dirty, folio_dirty), s->addr, 0, 1, 0);
}

/* Closes the window in st: its neighbours judged at tier. */
static __always_inline void mv_end(struct mv_state *st, __u32 tier)
{
	struct pc_window w = {.tier = tier, .flags = PC_WIN_GEN};
	struct pc_check_counts c = {};
	__u64 pgd;

	w.gen = st->gen;
	if (st->shared)
		w.flags |= PC_WIN_UNRELIABLE;
	pgd = mv_pgd();
	mv_side_exit(st, 0, pgd, &c, &w);
	mv_side_exit(st, 1, pgd, &c, &w);
	/* The exit-side reads are part of the window. */
	if (!st->shared && disturb_gen() != st->gen)
		pc_count_window_disturbed(&c);
	add_counts(PC_CHK_MADV_RANGE, tier, &c);
}

/* At sys_exit, from bpf/syscalls.bpf.c. */
__noinline int pc_madvise_sys_exit(struct bpf_raw_tracepoint_args *ctx, long nr)
{
	struct mv_state *st;
	__u32 tid = pc_tid();

	if (!sys_madvise || nr != PC_NR_madvise || !pc_sys_native(ctx))
		return 0;
	st = bpf_map_lookup_elem(&mv_states, &tid);
	if (!st || !st->active)
		return 0;
	st->active = 0;
	/* A call that failed may have stopped anywhere: nothing to judge. */
	if ((long)ctx->args[1] != 0)
		return 0;
	mv_end(st, PC_TIER_SYSCALL_WALK);
	return 0;
}

/* The hook tier: one PMD's part [addr, end) of a MADV_FREE range of the
   current mm (walk->mm: the caller's). */
SEC("fentry/madvise_free_pte_range")
int BPF_PROG(madvise_free_fentry, void *pmd, unsigned long addr, unsigned long end,
	     struct mm_walk *walk)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	__u32 tid = pc_tid();

	(void)pmd;
	if (!mv_hook_enabled || end <= addr || addr < PC_PAGE_SIZE ||
	    BPF_CORE_READ(walk, mm) != BPF_CORE_READ(task, mm) || !target_flags() ||
	    !pc_sampled(PC_SAMPLE_MADVISE))
		return 0;
	mv_begin(true, &tid, addr, end - addr);
	return 0;
}

/* Whatever it returned: a call that stopped early cleared less, never
   more. */
SEC("fexit/madvise_free_pte_range")
int BPF_PROG(madvise_free_fexit)
{
	__u32 tid = pc_tid();
	struct mv_state *st;

	if (!mv_hook_enabled)
		return 0;
	st = bpf_map_lookup_elem(&mv_hook_states, &tid);
	if (!st || !st->active)
		return 0;
	st->active = 0;
	mv_end(st, PC_TIER_FEXIT);
	return 0;
}
