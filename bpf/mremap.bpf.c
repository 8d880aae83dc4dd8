// SPDX-License-Identifier: GPL-2.0
/*
 * The mremap path, per call (bpf/mremap_batch.bpf.c has the per-batch
 * checks).  With nothing but tracepoints: at mremap's raw_syscalls:sys_enter
 * the old range's PTEs and PMDs are read from the page tables; at its exit
 * the new range is read and every slot is judged with the shared
 * predicates (moved, ad-bits, perms, pmd-move).  Also the histograms the
 * syscall tracepoints and tlb:tlb_flush allow: latency, TLB flushes, PTEs
 * and PMDs moved per call.
 *
 * Race rules (see docs/checks.md): the window between the two tracepoints
 * is not under mmap_lock.  Bits set meanwhile are ignored by the
 * predicates; a violation seen in a window that overlapped reclaim,
 * migration, compaction, collapse or writeback anywhere (the disturbance
 * counter), or in a task whose mm other threads share, is counted as
 * inconclusive and never reported as a failure.
 *
 * Where the kernel allows fentry/fexit (guests), the same comparison runs
 * again around each move_page_tables() call (tier kernel:fexit).  The
 * loader picks per hook group.
 */
#include "mremap.bpf.h"
#include "ptwalk.h"
#include <ptecheck/tp_sec.h>

#define PC_UNCOVERED (~0ULL) /* slot under a huge mapping or unread */
#define MAX_ERRNO    4095

const volatile bool mr_walk_enabled;
const volatile bool mr_batch_hooks;		    /* the contpte per-batch hooks are attached */
const volatile __u32 mr_batch_tier = PC_TIER_FEXIT; /* or PC_TIER_KPROBE */

struct mremap_calls_map mr_calls SEC(".maps");

/* Zeroed template for new call_state entries (too large for the stack;
 * per-CPU values are limited to 32 KiB). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct call_state);
} mr_state_template SEC(".maps");

/*
 * Loop state lives in the call's map value, not on the stack: bpf_loop
 * callbacks whose stack context changes every iteration make the verifier
 * explore far too many states.
 */

static __always_inline __u64 page_align(__u64 len)
{
	return (len + PC_PAGE_SIZE - 1) & ~(PC_PAGE_SIZE - 1);
}

static __always_inline __u64 current_pgd(void)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();

	return (__u64)BPF_CORE_READ(task, mm, pgd);
}

/* ---- snapshot at entry ------------------------------------------------ */

struct snap_ctx {
	__u64 key;
	__u64 pgd;
};

/* Reads the PTEs of one PMD extent of the old range into st->ptes. */
static long snap_extent(__u32 e, void *data)
{
	struct snap_ctx *sc = data;
	struct call_state *st = bpf_map_lookup_elem(&mr_calls, &sc->key);
	__u64 addr, pmd = 0, idx, n, i, u_e;
	int kind;

	if (!st || e >= PC_SNAP_PMDS)
		return 1;
	u_e = e;
	PC_BOUND(u_e, 511);
	/* Slot index i of the first page of extent e. */
	if (e == 0) {
		addr = st->old_addr;
		i = 0;
	} else {
		addr = (st->old_addr & ~(PC_PMD_SIZE - 1)) + ((__u64)e << PC_PMD_SHIFT);
		i = (addr - st->old_addr) >> PC_PAGE_SHIFT;
	}
	kind = pc_walk_pmd(sc->pgd, addr, &pmd);
	st->old_pmds[u_e] = kind == PC_WALK_TABLE ? pmd : kind == PC_WALK_NONE ? 0 : PC_UNCOVERED;
	/* PTEs only for the first PC_SNAP_PTES pages; PMDs for the whole range. */
	if (kind != PC_WALK_TABLE || i >= st->npages || i >= PC_SNAP_PTES)
		return 0;
	PC_BOUND(i, 2047);
	idx = (addr >> PC_PAGE_SHIFT) & 511;
	n = PC_PTRS_PER_TABLE - idx;
	if (n > st->npages - i)
		n = st->npages - i;
	if (n == 0 || n > PC_PTRS_PER_TABLE)
		return 0;
	/* Older verifiers (v6.1) lose the bound above across the multiply. */
	PC_BOUND(n, 1023);
	if (!pc_read_ptes(pc_table_phys(pmd), idx, &st->ptes[i], n * 8))
		return 0;
	/* A failed read: slots of this extent are not comparable. */
	st->walk_errors++;
	st->old_pmds[u_e] = PC_UNCOVERED;
	return 0;
}

/* PMD entries of the new range at entry, for pmd-move eligibility. */
static long snap_new_pmd(__u32 e, void *data)
{
	struct snap_ctx *sc = data;
	struct call_state *st = bpf_map_lookup_elem(&mr_calls, &sc->key);
	__u64 pmd = 0, u_e;
	int kind;

	if (!st || e >= PC_SNAP_PMDS)
		return 1;
	u_e = e;
	PC_BOUND(u_e, 511);
	kind = pc_walk_pmd(sc->pgd, st->new_addr_arg + ((__u64)e << PC_PMD_SHIFT), &pmd);
	st->new_pmds[u_e] = kind == PC_WALK_NONE ? 0 : kind == PC_WALK_TABLE ? pmd : PC_UNCOVERED;
	return 0;
}

#define UFFD_FEATURE_EVENT_REMAP (1 << 2) /* linux/userfaultfd.h */
#define PC_EBUSY		 16	  /* bpf_find_vma: the mmap_lock trylock failed */

/* What vma lets a move change (PC_MOVE_*, ptecheck/mremap.h): a
   userfaultfd without remap events drops uffd-wp markers. */
static __always_inline __u32 vma_move(struct vm_area_struct *vma)
{
	struct userfaultfd_ctx *uctx;

	if (!vma || !bpf_core_field_exists(vma->vm_userfaultfd_ctx.ctx))
		return 0; /* no CONFIG_USERFAULTFD */
	uctx = BPF_CORE_READ(vma, vm_userfaultfd_ctx.ctx);
	if (!uctx)
		return 0;
	return BPF_CORE_READ(uctx, features) & UFFD_FEATURE_EVENT_REMAP ? 0 : PC_MOVE_UFFD_NO_REMAP;
}

static long vma_move_cb(struct task_struct *task, struct vm_area_struct *vma, void *data)
{
	*(__u32 *)data = vma_move(vma);
	return 0;
}

/* The VMA at addr of the current task, at sys_enter (mmap_lock not held):
   its lock taken with a trylock, busy means unknown. */
static __always_inline __u32 vma_move_at(__u64 addr)
{
	__u32 move = 0;
	long err = bpf_find_vma(bpf_get_current_task_btf(), addr, vma_move_cb, &move, 0);

	return err == -PC_EBUSY ? PC_MOVE_VMA_UNKNOWN : move;
}

/*
 * Starts a call: a fresh state under key and, when the walk is enabled and
 * the call is sampled, the snapshot of the old range (and of the new
 * range's PMDs when the new address is known and PMD-aligned).  Returns
 * the state or NULL.
 */
static __always_inline struct call_state *begin_call(__u64 key, __u64 old_addr, __u64 old_len,
						     __u64 new_len, __u64 flags, __u64 new_addr_arg,
						     __u32 track_flags, bool sampled,
						     struct vm_area_struct *vma)
{
	struct call_state *tmpl, *st;
	struct snap_ctx sc;
	__u32 zero = 0;
	__u64 len;

	st = bpf_map_lookup_elem(&mr_calls, &key);
	if (!st) {
		tmpl = bpf_map_lookup_elem(&mr_state_template, &zero);
		if (!tmpl || bpf_map_update_elem(&mr_calls, &key, tmpl, BPF_ANY)) {
			stat_add(PC_STAT_STATE_FULL, 1);
			return NULL;
		}
		st = bpf_map_lookup_elem(&mr_calls, &key);
		if (!st)
			return NULL;
	}
	/* A reused entry: reset what a call reads before it writes it (the
	   snapshot arrays are written for every slot a call compares). */
	st->active = true;
	st->sampled = sampled;
	st->tlb_flushes = 0;
	st->npages = 0;
	st->nextents = 0;
	st->walk_errors = 0;
	__builtin_memset(&st->bc, 0, sizeof(st->bc));
	st->old_addr = old_addr;
	st->old_len = page_align(old_len);
	st->new_len = page_align(new_len);
	st->flags = flags;
	st->new_addr_arg = new_addr_arg;
	st->track_flags = track_flags;
	st->t0 = bpf_ktime_get_ns();
	/* What only a verdict reads: an unsampled call has none (four reads
	   and a lookup a call, on every mremap under --sample). */
	if (!sampled)
		return st;
	st->gen = disturb_gen();
	st->shared_mm = pc_task_shared();
	if (!mr_walk_enabled || st->old_len == 0)
		return st;
	/* The VMA as the kernel's move will see it: given (move_page_tables
	   holds its lock), else looked up. */
	st->move = vma ? vma_move(vma) : vma_move_at(old_addr);
	len = st->old_len < st->new_len ? st->old_len : st->new_len;
	st->npages = len >> PC_PAGE_SHIFT;
	if (st->npages > PC_SNAP_PTES)
		st->npages = PC_SNAP_PTES;
	/* Extents of the whole old range, first partial one included. */
	st->nextents = ((old_addr + len - 1) >> PC_PMD_SHIFT) - (old_addr >> PC_PMD_SHIFT) + 1;
	if (st->nextents > PC_SNAP_PMDS)
		st->nextents = PC_SNAP_PMDS;
	sc.key = key;
	sc.pgd = current_pgd();
	bpf_loop(st->nextents, snap_extent, &sc, 0);
	if ((flags & MREMAP_FIXED) && !(new_addr_arg & (PC_PMD_SIZE - 1)))
		bpf_loop(st->nextents, snap_new_pmd, &sc, 0);
	return st;
}

/* At sys_enter, from bpf/syscalls.bpf.c. */
__noinline int pc_mremap_sys_enter(struct bpf_raw_tracepoint_args *ctx, long nr)
{
	__u32 flags;

	if (!sys_mremap || nr != PC_NR_mremap || !pc_sys_native(ctx))
		return 0;
	flags = target_flags();
	if (!flags)
		return 0;
	stat_add(PC_STAT_CALLS, 1);
	begin_call(call_key(pc_tid(), KIND_SYSCALL), pc_sys_arg(ctx, 0), pc_sys_arg(ctx, 1),
		   pc_sys_arg(ctx, 2), pc_sys_arg(ctx, 3), pc_sys_arg(ctx, 4), flags - 1,
		   pc_sampled(PC_SAMPLE_MREMAP), NULL);
	return 0;
}

/* ---- comparison at exit ----------------------------------------------- */

/*
 * Per PTE slot i of the moved range: the snapshot against the new range.
 * Accessed bits are cleared by aging without any event we can see (MGLRU
 * page-table walks, DAMON, idle page tracking), and these windows are not
 * under the page-table lock: a lost young bit here proves nothing
 * (PC_WIN_YOUNG).  The gather checks (under the lock) and the smaps oracle
 * judge the young half; dirty bits only go with writeback or MADV_FREE,
 * which the disturbance counter sees.
 */
static long compare_slot(__u32 i, void *data)
{
	struct call_state *st = bpf_map_lookup_elem(&mr_calls, data);
	struct cmp_ctx *cc;
	__u64 addr, old_addr, idx, pmd = 0, oldv, newv, ui, e;
	struct pc_pte o, n;

	if (!st || i >= st->npages || i >= PC_SNAP_PTES)
		return 1;
	cc = &st->cc;
	ui = i;
	PC_BOUND(ui, 2047);
	addr = cc->new_addr + ((__u64)i << PC_PAGE_SHIFT);
	idx = (addr >> PC_PAGE_SHIFT) & 511;
	/* Load the new range's PTE table at the start of each extent. */
	if (i == 0 || idx == 0) {
		int kind = pc_walk_pmd(cc->pgd, addr, &pmd);

		cc->new_fill = kind == PC_WALK_NONE ? 0 : PC_UNCOVERED;
		cc->new_is_table = false;
		if (kind == PC_WALK_TABLE &&
		    !pc_read_ptes(pc_table_phys(pmd), 0, st->table, PC_PTRS_PER_TABLE * 8))
			cc->new_is_table = true;
		else if (kind == PC_WALK_TABLE || kind == PC_WALK_ERROR)
			cc->walk_errors++;
	}
	/* Which extent of the old range slot i came from. */
	e = ((st->old_addr + ((__u64)i << PC_PAGE_SHIFT)) >> PC_PMD_SHIFT) -
	    (st->old_addr >> PC_PMD_SHIFT);
	PC_BOUND(e, 511);
	/* No page table at entry: every slot was empty (the entry is reused,
	   so st->ptes holds an older call's values there). */
	oldv = st->old_pmds[e] == PC_UNCOVERED ? PC_UNCOVERED
	       : st->old_pmds[e] == 0	       ? 0
					       : st->ptes[ui];
	PC_BOUND(idx, 511);
	newv = cc->new_is_table ? st->table[idx] : cc->new_fill;
	if (oldv == PC_UNCOVERED || newv == PC_UNCOVERED) {
		cc->uncovered++;
		return 0;
	}
	o = pc_decode_pte(oldv);
	n = pc_decode_pte(newv);
	if (n.kind == PC_PTE_PRESENT && o.kind == PC_PTE_PRESENT)
		cc->present_moved++;
	old_addr = st->old_addr + ((__u64)i << PC_PAGE_SHIFT);
	pc_judge(&cc->c[0], &cc->pv, &cc->win, PC_CHK_MOVED, pc_moved_entry(o, n, st->move),
		 old_addr, addr, oldv, newv);
	pc_judge(&cc->c[1], &cc->pv, &cc->win, PC_CHK_ADBITS, pc_adbits_entry(o, n), old_addr, addr,
		 oldv, newv);
	pc_judge(&cc->c[2], &cc->pv, &cc->win, PC_CHK_PERMS, pc_perms_entry(o, n), old_addr, addr,
		 oldv, newv);
	return 0;
}

static long compare_pmd(__u32 e, void *data)
{
	struct call_state *st = bpf_map_lookup_elem(&mr_calls, data);
	struct pc_pmd_extent x = {};
	struct pmd_ctx *pc;
	__u64 pmd = 0, u_e;
	int kind, verdict;

	if (!st || e >= PC_SNAP_PMDS || e >= st->nextents)
		return 1;
	pc = &st->pc;
	u_e = e;
	PC_BOUND(u_e, 511);
	kind = pc_walk_pmd(pc->pgd, pc->new_addr + ((__u64)e << PC_PMD_SHIFT), &pmd);
	x.old_pmd_entry = st->old_pmds[u_e];
	x.new_pmd_entry = (st->flags & MREMAP_FIXED) ? st->new_pmds[u_e] : PC_UNCOVERED;
	x.new_pmd_exit = kind == PC_WALK_TABLE ? pmd : 0;
	x.old_is_table = x.old_pmd_entry != PC_UNCOVERED && pc_pmd_is_table(x.old_pmd_entry);
	x.new_is_table_exit = kind == PC_WALK_TABLE;
	x.old_table = x.old_is_table ? pc_table_phys(x.old_pmd_entry) : 0;
	x.new_table_exit = x.new_is_table_exit ? pc_table_phys(pmd) : 0;
	/* Both sides PMD-aligned (checked by the caller) and the extent whole. */
	x.aligned_whole = ((__u64)(e + 1) << PC_PMD_SHIFT) <= pc->len;
	x.move = st->move;
	if (x.old_is_table && x.new_is_table_exit && x.new_table_exit == x.old_table)
		pc->moved_at_pmd++;
	verdict = pc_pmd_move_extent(x);
	/* Not enforced: observed only (watch, or a scenario using uffd). */
	pc_judge(&pc->c, &pc->pv, &st->cc.win, PC_CHK_PMD_MOVE,
		 pc->enforce ? verdict : PC_NOT_APPLICABLE,
		 st->old_addr + ((__u64)e << PC_PMD_SHIFT),
		 pc->new_addr + ((__u64)e << PC_PMD_SHIFT), x.old_pmd_entry, x.new_pmd_exit);
	return 0;
}

/* PMD-level moves: judged only when old and new are both PMD-aligned. */
static __always_inline void finish_pmds(__u64 key, struct call_state *st, __u64 new_addr,
					__u64 moved_len)
{
	struct pmd_ctx *pc = &st->pc;

	__builtin_memset(pc, 0, sizeof(*pc));
	if ((st->old_addr & (PC_PMD_SIZE - 1)) || (new_addr & (PC_PMD_SIZE - 1)))
		return;
	pc->pgd = st->cc.pgd;
	pc->new_addr = new_addr;
	pc->len = moved_len;
	pc->enforce = (st->track_flags & PC_TRACK_ENFORCE_PMD) && (st->flags & MREMAP_FIXED);
	bpf_loop(st->nextents, compare_pmd, &key, 0);
	if (!(st->cc.win.flags & PC_WIN_UNRELIABLE) && disturb_gen() != st->gen)
		pc_count_window_disturbed(&pc->c);
	add_counts(PC_CHK_PMD_MOVE, st->cc.win.tier, &pc->c);
}

/*
 * Ends a call: compares the new range [new_addr, + moved_len) after the
 * move with the old range's snapshot and adds the verdicts to the tier's
 * counters.  Returns the present PTEs moved, or -1 when nothing was
 * compared.
 */
static __always_inline long finish_call(__u64 key, struct call_state *st, __u64 new_addr,
					__u64 moved_len, __u32 tier)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct cmp_ctx *cc = &st->cc;
	bool unreliable, disturbed, shared, syscall = tier == PC_TIER_SYSCALL_WALK;
	__u64 total_pages;

	if (!mr_walk_enabled || st->old_len == 0 || st->npages == 0)
		return -1;
	total_pages = moved_len >> PC_PAGE_SHIFT;
	if (st->npages > total_pages)
		st->npages = total_pages;
	disturbed = disturb_gen() != st->gen;
	shared = st->shared_mm || BPF_CORE_READ(task, signal, nr_threads) > 1;
	unreliable = disturbed || shared;
	if (syscall) {
		if (disturbed)
			stat_add(PC_STAT_CALLS_DISTURBED, 1);
		if (shared)
			stat_add(PC_STAT_CALLS_SHARED_MM, 1);
		stat_add(PC_STAT_CALLS_CHECKED, 1);
		if (total_pages > st->npages)
			stat_add(PC_STAT_PAGES_UNCOVERED, total_pages - st->npages);
		if (st->walk_errors)
			stat_add(PC_STAT_WALK_ERRORS, st->walk_errors);
	}

	__builtin_memset(cc, 0, sizeof(*cc));
	cc->pgd = current_pgd();
	cc->new_addr = new_addr;
	cc->win.tier = tier;
	cc->win.flags = PC_WIN_YOUNG | (unreliable ? PC_WIN_UNRELIABLE : 0);
	bpf_loop(st->npages, compare_slot, &key, 0);
	/* The exit-side walk itself is a window: judge it by the counter too. */
	if (!unreliable && disturb_gen() != st->gen) {
		cc->win.flags |= PC_WIN_UNRELIABLE;
		if (syscall)
			stat_add(PC_STAT_CALLS_DISTURBED, 1);
		for (int k = 0; k < 3; k++)
			pc_count_window_disturbed(&cc->c[k]);
	}
	add_counts(PC_CHK_MOVED, tier, &cc->c[0]);
	add_counts(PC_CHK_ADBITS, tier, &cc->c[1]);
	add_counts(PC_CHK_PERMS, tier, &cc->c[2]);
	if (syscall && cc->uncovered)
		stat_add(PC_STAT_PAGES_UNCOVERED, cc->uncovered);
	if (syscall && cc->walk_errors)
		stat_add(PC_STAT_WALK_ERRORS, cc->walk_errors);
	finish_pmds(key, st, new_addr, moved_len);
	return cc->present_moved;
}

/* At sys_exit, from bpf/syscalls.bpf.c (every syscall's exit: the
   number first, and nothing else). */
__noinline int pc_mremap_sys_exit(struct bpf_raw_tracepoint_args *ctx, long nr)
{
	long ret = (long)ctx->args[1], present;
	struct call_state *st;
	__u64 key, len;

	if (!sys_mremap || nr != PC_NR_mremap || !pc_sys_native(ctx))
		return 0;
	key = call_key(pc_tid(), KIND_SYSCALL);
	st = bpf_map_lookup_elem(&mr_calls, &key);
	if (!st || !st->active) {
		/* Counted at its entry, unjudged here: never silently. */
		if (target_flags())
			stat_add(PC_STAT_STATE_LOST, 1);
		return 0;
	}
	hist_add(PC_HIST_MREMAP_LATENCY_NS, PC_HIST_LOG2, bpf_ktime_get_ns() - st->t0);
	hist_add(PC_HIST_MREMAP_TLB_FLUSHES, PC_HIST_LINLOG, st->tlb_flushes);
	add_counts(PC_CHK_ADBITS, mr_batch_tier, &st->bc.c[0]);
	add_counts(PC_CHK_BATCH, mr_batch_tier, &st->bc.c[1]);

	if ((unsigned long)ret >= (unsigned long)-MAX_ERRNO) {
		stat_add(PC_STAT_CALLS_FAILED, 1);
		goto out;
	}
	/* A shrink, or a grow in place, moved nothing: no entry is judged as
	   moved, none counted in the moves' histograms. */
	if ((__u64)ret == st->old_addr) {
		stat_add(PC_STAT_CALLS_IN_PLACE, 1);
		goto out;
	}
	len = st->old_len < st->new_len ? st->old_len : st->new_len;
	present = finish_call(key, st, (__u64)ret, len, PC_TIER_SYSCALL_WALK);
	if (present < 0)
		goto out;
	hist_add(PC_HIST_MREMAP_PTES_MOVED, PC_HIST_LINLOG, present);
	hist_add(PC_HIST_MREMAP_PMDS_MOVED, PC_HIST_LINLOG, st->pc.moved_at_pmd);
	/*
	 * Batches of one PTE pass no hook (set_ptes with nr == 1 is inline):
	 * they are the present PTEs moved that no batch of two or more
	 * covered.  Only counted where the batch hooks are attached, the
	 * whole range was snapshotted and no PTE moved at PMD level.
	 */
	if (mr_batch_hooks && !st->cc.uncovered && st->pc.moved_at_pmd == 0 &&
	    (len >> PC_PAGE_SHIFT) <= PC_SNAP_PTES && st->bc.batched_ptes <= (__u64)present)
		hist_add_n(PC_HIST_BATCH_MREMAP, PC_HIST_LINLOG, 1,
			   (__u64)present - st->bc.batched_ptes);
out:
	st->active = false;
	return 0;
}

/* ---- tier kernel:fexit: around each move_page_tables() ------------------ */

static __always_inline void mpt_begin(struct vm_area_struct *vma, __u64 old_addr, __u64 new_addr,
				      __u64 len)
{
	__u32 tid = pc_tid();
	__u64 skey = call_key(tid, KIND_SYSCALL);
	struct call_state *sys = bpf_map_lookup_elem(&mr_calls, &skey);
	__u32 flags = target_flags();

	if (!flags || !mr_walk_enabled)
		return;
	/* MREMAP_FIXED: the new address is known here, snapshot its PMDs. The
	   pmd-move check is enforced, and the call sampled, as in the
	   enclosing syscall: both tiers judge the same calls. */
	begin_call(call_key(tid, KIND_MPT), old_addr, len, len, MREMAP_FIXED, new_addr,
		   sys && (sys->track_flags & PC_TRACK_ENFORCE_PMD) && (sys->flags & MREMAP_FIXED)
			   ? PC_TRACK_ENFORCE_PMD
			   : 0,
		   sys && sys->active ? sys->sampled : pc_sampled(PC_SAMPLE_MPT), vma);
}

/*
 * The new address is the one seen at entry: v6.15+ advances pmc->old_addr
 * and pmc->new_addr while it moves (and may first realign them down to a
 * PMD boundary over empty space), so at fexit they point past the range.
 */
static __always_inline void mpt_end(__u64 moved)
{
	__u64 key = call_key(pc_tid(), KIND_MPT);
	struct call_state *st = bpf_map_lookup_elem(&mr_calls, &key);

	if (!st || !st->active)
		return;
	finish_call(key, st, st->new_addr_arg, moved, PC_TIER_FEXIT);
	st->active = false;
}

/* Since v6.15: unsigned long move_page_tables(struct pagetable_move_control *). */
SEC("fentry/move_page_tables")
int BPF_PROG(mremap_mpt_entry, struct pagetable_move_control *pmc)
{
	mpt_begin(BPF_CORE_READ(pmc, old), BPF_CORE_READ(pmc, old_addr),
		  BPF_CORE_READ(pmc, new_addr), BPF_CORE_READ(pmc, len_in));
	return 0;
}

/* The return value by helper: the parameter count differs by version. */
static __always_inline __u64 mpt_moved(void *ctx)
{
	__u64 moved = 0;

	return bpf_get_func_ret(ctx, &moved) ? 0 : moved;
}

SEC("fexit/move_page_tables")
int BPF_PROG(mremap_mpt_exit)
{
	mpt_end(mpt_moved(ctx));
	return 0;
}

/*
 * Before v6.15: move_page_tables(vma, old_addr, new_vma, new_addr, len,
 * need_rmap_locks[, for_stack]): six or seven parameters.
 */
SEC("fentry/move_page_tables")
int BPF_PROG(mremap_mpt_legacy_entry, struct vm_area_struct *vma, unsigned long old_addr,
	     void *new_vma, unsigned long new_addr, unsigned long len)
{
	mpt_begin(vma, old_addr, new_addr, len);
	return 0;
}

SEC("fexit/move_page_tables")
int BPF_PROG(mremap_mpt_legacy_exit)
{
	mpt_end(mpt_moved(ctx));
	return 0;
}

/* TLB flushes issued by a task while it is inside mremap. */
SEC(PC_TP_SEC(tlb, tlb_flush))
int mremap_tlb_flush(void *ctx)
{
	__u64 key;
	struct call_state *st = mremap_state(&key);

	if (st)
		st->tlb_flushes++;
	return 0;
}

/* A thread that exits leaves no state a reused thread id could inherit. */
SEC(PC_TP_SEC(sched, sched_process_exit))
int mremap_task_exit(void *ctx)
{
	__u64 key = call_key(pc_tid(), KIND_SYSCALL);

	bpf_map_delete_elem(&mr_calls, &key);
	key = call_key(pc_tid(), KIND_MPT);
	bpf_map_delete_elem(&mr_calls, &key);
	return 0;
}
