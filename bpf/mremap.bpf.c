// SPDX-License-Identifier: GPL-2.0
/*
 * mremap checks that need nothing but tracepoints: at sys_enter_mremap the
 * old range's PTEs and PMDs are read from the page tables; at
 * sys_exit_mremap the new range is read and every slot is judged with the
 * shared predicates (moved, ad-bits, perms, pmd-move).  Also the histograms
 * the syscall tracepoints and tlb:tlb_flush allow: latency, TLB flushes,
 * PTEs and PMDs moved per call.
 *
 * Race rules (see docs/checks.md): the window between the two tracepoints
 * is not under mmap_lock.  Bits set meanwhile are ignored by the
 * predicates; a violation seen in a window that overlapped reclaim,
 * migration, compaction, collapse or writeback anywhere (the disturbance
 * counter), or in a task whose mm other threads share, is counted as
 * inconclusive and never reported as a failure.
 */
#include "kernel_types.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <ptecheck/events.h>
#include "ptwalk.h"

char LICENSE[] SEC("license") = "GPL";

#define MREMAP_MAYMOVE 1
#define MREMAP_FIXED   2
#define PC_UNCOVERED   (~0ULL) /* slot under a huge mapping or unread */
#define MAX_ERRNO      4095
/* Re-bounds an index after a check the compiler may have merged away. */
#define PC_BOUND(var, mask) asm volatile("%0 &= " #mask : "+r"(var))

const volatile __u32 filter_mode = PC_FILTER_TRACKED;
const volatile char filter_comm[16];
const volatile bool walk_enabled;
const volatile __u64 walk_base;
const volatile __u64 walk_phys_limit;
const volatile __u32 walk_levels;

struct call_state {
	__u64 t0;
	__u64 old_addr;
	__u64 old_len;
	__u64 new_len;
	__u64 flags;
	__u64 new_addr_arg;
	__u64 gen; /* disturbance counter at entry */
	__u32 tlb_flushes;
	__u32 npages;	/* PTE slots snapshotted */
	__u32 nextents; /* PMD extents snapshotted */
	__u32 track_flags;
	__u32 shared_mm; /* other users of the mm at entry */
	__u32 walk_errors;
	__u64 ptes[2 * PC_SNAP_PTES]; /* slack so bounded indices stay inside */
	__u64 old_pmds[PC_SNAP_PMDS];
	__u64 new_pmds[PC_SNAP_PMDS];
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, struct call_state);
} calls SEC(".maps");

/* Zeroed template for new call_state entries (too large for the stack;
 * per-CPU values are limited to 32 KiB). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct call_state);
} state_template SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64[PC_PTRS_PER_TABLE]);
} new_table SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u32);
} tracked SEC(".maps");

/*
 * Loop state lives in per-CPU maps, not on the stack: bpf_loop callbacks
 * whose stack context changes every iteration make the verifier explore
 * far too many states.
 */

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, PC_HIST__COUNT *PC_HIST_SLOTS);
	__type(key, __u32);
	__type(value, __u64);
} hists SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, PC_CHK__COUNT *PC_TIER__COUNT);
	__type(key, __u32);
	__type(value, struct pc_check_counts);
} counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, PC_STAT__COUNT);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

/* One global counter: bumped by every event that may change page tables
 * behind a task's back.  Read by userspace oracles too. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} disturb SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} events SEC(".maps");

static __always_inline void stat_add(__u32 id, __u64 n)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &id);

	if (v)
		*v += n;
}

static __always_inline void hist_add(__u32 hist, __u32 kind, __u64 value)
{
	__u32 key = hist * PC_HIST_SLOTS + pc_hist_slot(kind, value);
	__u64 *v = bpf_map_lookup_elem(&hists, &key);

	if (v)
		*v += 1;
}

static __always_inline __u64 disturb_gen(void)
{
	__u32 zero = 0;
	__u64 *v = bpf_map_lookup_elem(&disturb, &zero);

	return v ? *v : 0;
}

static __always_inline void disturb_bump(void)
{
	__u32 zero = 0;
	__u64 *v = bpf_map_lookup_elem(&disturb, &zero);

	if (v)
		__sync_fetch_and_add(v, 1);
}

/* Returns the track flags + 1 when the current task is a target, else 0. */
static __always_inline __u32 target_flags(void)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	__u32 *flags;

	if (filter_mode == PC_FILTER_ALL)
		return 1;
	if (filter_mode == PC_FILTER_COMM) {
		char comm[16];

		bpf_get_current_comm(comm, sizeof(comm));
		for (int i = 0; i < 16; i++) {
			if (comm[i] != filter_comm[i])
				return 0;
			if (!comm[i])
				break;
		}
		return 1;
	}
	flags = bpf_map_lookup_elem(&tracked, &tgid);
	return flags ? *flags + 1 : 0;
}

static __always_inline __u64 page_align(__u64 len)
{
	return (len + PC_PAGE_SIZE - 1) & ~(PC_PAGE_SIZE - 1);
}

static __always_inline __u64 current_pgd(void)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();

	return (__u64)BPF_CORE_READ(task, mm, pgd);
}

/*
 * A global function is verified once on its own, which keeps the callers'
 * verification small (the walker branches a lot).
 */
__noinline int walk_pmd(__u64 pgd_va, __u64 addr, __u64 *pmd)
{
	if (!pmd)
		return PC_WALK_ERROR;
	return pc_walk_to_pmd(pgd_va, walk_base, walk_phys_limit, walk_levels, addr, pmd);
}

/* ---- snapshot at entry ------------------------------------------------ */

struct snap_ctx {
	__u32 tid;
	__u64 pgd;
};

/* Reads the PTEs of one PMD extent of the old range into st->ptes. */
static long snap_extent(__u32 e, void *data)
{
	struct snap_ctx *sc = data;
	struct call_state *st = bpf_map_lookup_elem(&calls, &sc->tid);
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
	kind = walk_pmd(sc->pgd, addr, &pmd);
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
	if (pc_table_phys(pmd) < walk_phys_limit &&
	    !bpf_probe_read_kernel(&st->ptes[i], n * 8,
				   (void *)(walk_base + pc_table_phys(pmd) + idx * 8)))
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
	struct call_state *st = bpf_map_lookup_elem(&calls, &sc->tid);
	__u64 pmd = 0, u_e;
	int kind;

	if (!st || e >= PC_SNAP_PMDS)
		return 1;
	u_e = e;
	PC_BOUND(u_e, 511);
	kind = walk_pmd(sc->pgd, st->new_addr_arg + ((__u64)e << PC_PMD_SHIFT), &pmd);
	st->new_pmds[u_e] = kind == PC_WALK_NONE ? 0 : kind == PC_WALK_TABLE ? pmd : PC_UNCOVERED;
	return 0;
}

SEC("tp/syscalls/sys_enter_mremap")
int mremap_enter(struct trace_event_raw_sys_enter *ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	__u32 zero = 0, flags = target_flags();
	struct call_state *tmpl, *st;
	struct snap_ctx sc;
	__u64 len;

	if (!flags)
		return 0;
	stat_add(PC_STAT_CALLS, 1);
	tmpl = bpf_map_lookup_elem(&state_template, &zero);
	if (!tmpl || bpf_map_update_elem(&calls, &tid, tmpl, BPF_ANY)) {
		stat_add(PC_STAT_STATE_FULL, 1);
		return 0;
	}
	st = bpf_map_lookup_elem(&calls, &tid);
	if (!st)
		return 0;
	st->old_addr = ctx->args[0];
	st->old_len = page_align(ctx->args[1]);
	st->new_len = page_align(ctx->args[2]);
	st->flags = ctx->args[3];
	st->new_addr_arg = ctx->args[4];
	st->track_flags = flags - 1;
	st->gen = disturb_gen();
	st->shared_mm = BPF_CORE_READ(task, signal, nr_threads) > 1 ||
			BPF_CORE_READ(task, mm, mm_users.counter) > 1;
	st->t0 = bpf_ktime_get_ns();

	if (!walk_enabled || st->old_len == 0)
		return 0;
	len = st->old_len < st->new_len ? st->old_len : st->new_len;
	st->npages = len >> PC_PAGE_SHIFT;
	if (st->npages > PC_SNAP_PTES)
		st->npages = PC_SNAP_PTES;
	/* Extents of the whole old range, first partial one included. */
	st->nextents =
		((st->old_addr + len - 1) >> PC_PMD_SHIFT) - (st->old_addr >> PC_PMD_SHIFT) + 1;
	if (st->nextents > PC_SNAP_PMDS)
		st->nextents = PC_SNAP_PMDS;
	sc.tid = tid;
	sc.pgd = current_pgd();
	bpf_loop(st->nextents, snap_extent, &sc, 0);
	if ((st->flags & MREMAP_FIXED) && !(st->new_addr_arg & (PC_PMD_SIZE - 1)))
		bpf_loop(st->nextents, snap_new_pmd, &sc, 0);
	return 0;
}

/* ---- comparison at exit ----------------------------------------------- */

struct cmp_ctx {
	__u32 tid;
	__u32 tgid;
	__u64 pgd;
	__u64 new_addr;
	bool unreliable; /* disturbed window or shared mm */
	__u32 events_sent;
	__u64 present_moved;
	__u64 uncovered;
	__u64 new_fill; /* value of slots without a PTE table */
	bool new_is_table;
	__u32 walk_errors;
	__u32 v_check, v_verdict, v_index; /* the violation emit() sends */
	__u64 v_expected, v_seen;
	struct pc_check_counts c[3]; /* moved, ad-bits, perms */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cmp_ctx);
} cmp_work SEC(".maps");

static __noinline void emit(struct cmp_ctx *cc, __u64 old_base)
{
	struct pc_violation_event *ev;

	if (cc->events_sent >= PC_MAX_EVENTS_PER_CALL)
		return;
	ev = bpf_ringbuf_reserve(&events, sizeof(*ev), 0);
	if (!ev) {
		stat_add(PC_STAT_EVENTS_DROPPED, 1);
		return;
	}
	cc->events_sent++;
	ev->check = cc->v_check;
	ev->verdict = cc->v_verdict;
	ev->tier = PC_TIER_SYSCALL_WALK;
	ev->tgid = cc->tgid;
	ev->tid = cc->tid;
	ev->index = cc->v_index;
	ev->old_addr = old_base + ((__u64)cc->v_index << PC_PAGE_SHIFT);
	ev->new_addr = cc->new_addr + ((__u64)cc->v_index << PC_PAGE_SHIFT);
	ev->expected = cc->v_expected;
	ev->seen = cc->v_seen;
	ev->call_seq = 0;
	bpf_get_current_comm(ev->comm, sizeof(ev->comm));
	bpf_ringbuf_submit(ev, 0);
}

static __always_inline void judge(struct cmp_ctx *cc, struct call_state *st, __u32 slot,
				  int verdict, __u32 index, __u64 expected, __u64 seen)
{
	struct pc_check_counts *c;
	__u32 check = slot == 0 ? PC_CHK_MOVED : slot == 1 ? PC_CHK_ADBITS : PC_CHK_PERMS;

	if (slot > 2)
		return;
	c = &cc->c[slot];
	if (verdict == PC_NOT_APPLICABLE) {
		c->not_applicable++;
		return;
	}
	c->checked++;
	if (!pc_is_violation(verdict))
		return;
	if (cc->unreliable) {
		c->inconclusive++;
		return;
	}
	c->violations++;
	cc->v_check = check;
	cc->v_verdict = verdict;
	cc->v_index = index;
	cc->v_expected = expected;
	cc->v_seen = seen;
	emit(cc, st->old_addr);
}

static long compare_slot(__u32 i, void *data)
{
	__u32 zero = 0;
	struct cmp_ctx *cc = bpf_map_lookup_elem(&cmp_work, &zero);
	struct call_state *st;
	__u64 *table = bpf_map_lookup_elem(&new_table, &zero);

	if (!cc)
		return 1;
	st = bpf_map_lookup_elem(&calls, &cc->tid);
	__u64 addr, idx, pmd = 0, oldv, newv, ui, e;
	struct pc_pte o, n;

	if (!st || !table || i >= st->npages || i >= PC_SNAP_PTES)
		return 1;
	ui = i;
	PC_BOUND(ui, 2047);
	addr = cc->new_addr + ((__u64)i << PC_PAGE_SHIFT);
	idx = (addr >> PC_PAGE_SHIFT) & 511;
	/* Load the new range's PTE table at the start of each extent. */
	if (i == 0 || idx == 0) {
		int kind = walk_pmd(cc->pgd, addr, &pmd);

		cc->new_fill = kind == PC_WALK_NONE ? 0 : PC_UNCOVERED;
		cc->new_is_table = false;
		if (kind == PC_WALK_TABLE && pc_table_phys(pmd) < walk_phys_limit &&
		    !bpf_probe_read_kernel(table, PC_PTRS_PER_TABLE * 8,
					   (void *)(walk_base + pc_table_phys(pmd))))
			cc->new_is_table = true;
		else if (kind == PC_WALK_TABLE || kind == PC_WALK_ERROR)
			cc->walk_errors++;
	}
	/* Which extent of the old range slot i came from. */
	e = ((st->old_addr + ((__u64)i << PC_PAGE_SHIFT)) >> PC_PMD_SHIFT) -
	    (st->old_addr >> PC_PMD_SHIFT);
	PC_BOUND(e, 511);
	oldv = st->old_pmds[e] == PC_UNCOVERED ? PC_UNCOVERED : st->ptes[ui];
	PC_BOUND(idx, 511);
	newv = cc->new_is_table ? table[idx] : cc->new_fill;
	if (oldv == PC_UNCOVERED || newv == PC_UNCOVERED) {
		cc->uncovered++;
		return 0;
	}
	o = pc_decode_pte(oldv);
	n = pc_decode_pte(newv);
	if (n.kind == PC_PTE_PRESENT && o.kind == PC_PTE_PRESENT)
		cc->present_moved++;
	judge(cc, st, 0, pc_moved_entry(o, n), i, oldv, newv);
	judge(cc, st, 1, pc_adbits_entry(o, n), i, oldv, newv);
	judge(cc, st, 2, pc_perms_entry(o, n), i, oldv, newv);
	return 0;
}

struct pmd_ctx {
	__u32 tid;
	__u64 pgd;
	__u64 new_addr;
	__u64 len;
	bool enforce;
	bool unreliable;
	__u64 moved_at_pmd;
	struct pc_check_counts c;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pmd_ctx);
} pmd_work SEC(".maps");

static long compare_pmd(__u32 e, void *data)
{
	__u32 zero = 0;
	struct pmd_ctx *pc = bpf_map_lookup_elem(&pmd_work, &zero);
	struct call_state *st;
	struct pc_pmd_extent x = {};
	__u64 pmd = 0, u_e;
	int kind, verdict;

	if (!pc)
		return 1;
	st = bpf_map_lookup_elem(&calls, &pc->tid);

	if (!st || e >= PC_SNAP_PMDS || e >= st->nextents)
		return 1;
	u_e = e;
	PC_BOUND(u_e, 511);
	kind = walk_pmd(pc->pgd, pc->new_addr + ((__u64)e << PC_PMD_SHIFT), &pmd);
	x.old_pmd_entry = st->old_pmds[u_e];
	x.new_pmd_entry = (st->flags & MREMAP_FIXED) ? st->new_pmds[u_e] : PC_UNCOVERED;
	x.new_pmd_exit = kind == PC_WALK_TABLE ? pmd : 0;
	x.old_is_table = x.old_pmd_entry != PC_UNCOVERED && pc_pmd_is_table(x.old_pmd_entry);
	x.new_is_table_exit = kind == PC_WALK_TABLE;
	x.old_table = x.old_is_table ? pc_table_phys(x.old_pmd_entry) : 0;
	x.new_table_exit = x.new_is_table_exit ? pc_table_phys(pmd) : 0;
	/* Both sides PMD-aligned (checked by the caller) and the extent whole. */
	x.aligned_whole = ((__u64)(e + 1) << PC_PMD_SHIFT) <= pc->len;
	if (x.old_is_table && x.new_is_table_exit && x.new_table_exit == x.old_table)
		pc->moved_at_pmd++;
	verdict = pc_pmd_move_extent(x);
	if (verdict == PC_NOT_APPLICABLE || !pc->enforce) {
		pc->c.not_applicable++;
		return 0;
	}
	pc->c.checked++;
	if (!pc_is_violation(verdict))
		return 0;
	if (pc->unreliable) {
		pc->c.inconclusive++;
		return 0;
	}
	pc->c.violations++;
	{
		struct pc_violation_event *ev = bpf_ringbuf_reserve(&events, sizeof(*ev), 0);

		if (!ev) {
			stat_add(PC_STAT_EVENTS_DROPPED, 1);
			return 0;
		}
		ev->check = PC_CHK_PMD_MOVE;
		ev->verdict = verdict;
		ev->tier = PC_TIER_SYSCALL_WALK;
		ev->tgid = bpf_get_current_pid_tgid() >> 32;
		ev->tid = pc->tid;
		ev->index = e << (PC_PMD_SHIFT - PC_PAGE_SHIFT);
		ev->old_addr = st->old_addr + ((__u64)e << PC_PMD_SHIFT);
		ev->new_addr = pc->new_addr + ((__u64)e << PC_PMD_SHIFT);
		ev->expected = x.old_pmd_entry;
		ev->seen = x.new_pmd_exit;
		ev->call_seq = 0;
		bpf_get_current_comm(ev->comm, sizeof(ev->comm));
		bpf_ringbuf_submit(ev, 0);
	}
	return 0;
}

static __always_inline void add_counts(__u32 check, struct pc_check_counts *src)
{
	__u32 key = check * PC_TIER__COUNT + PC_TIER_SYSCALL_WALK;
	struct pc_check_counts *c = bpf_map_lookup_elem(&counts, &key);

	if (!c)
		return;
	c->checked += src->checked;
	c->violations += src->violations;
	c->inconclusive += src->inconclusive;
	c->not_applicable += src->not_applicable;
}

SEC("tp/syscalls/sys_exit_mremap")
int mremap_exit(struct trace_event_raw_sys_exit *ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct call_state *st = bpf_map_lookup_elem(&calls, &tid);
	long ret = ctx->ret;
	__u64 len, total_pages;
	bool unreliable, disturbed, shared;

	if (!st)
		return 0;
	hist_add(PC_HIST_MREMAP_LATENCY_NS, PC_HIST_LOG2, bpf_ktime_get_ns() - st->t0);
	hist_add(PC_HIST_MREMAP_TLB_FLUSHES, PC_HIST_LINLOG, st->tlb_flushes);

	if ((unsigned long)ret >= (unsigned long)-MAX_ERRNO) {
		stat_add(PC_STAT_CALLS_FAILED, 1);
		goto out;
	}
	if (!walk_enabled || st->old_len == 0 || st->npages == 0)
		goto out;

	disturbed = disturb_gen() != st->gen;
	shared = st->shared_mm || BPF_CORE_READ(task, signal, nr_threads) > 1;
	unreliable = disturbed || shared;
	if (disturbed)
		stat_add(PC_STAT_CALLS_DISTURBED, 1);
	if (shared)
		stat_add(PC_STAT_CALLS_SHARED_MM, 1);
	stat_add(PC_STAT_CALLS_CHECKED, 1);
	len = st->old_len < st->new_len ? st->old_len : st->new_len;
	total_pages = len >> PC_PAGE_SHIFT;
	if (total_pages > st->npages)
		stat_add(PC_STAT_PAGES_UNCOVERED, total_pages - st->npages);
	if (st->walk_errors)
		stat_add(PC_STAT_WALK_ERRORS, st->walk_errors);

	{
		__u32 zero = 0;
		struct cmp_ctx *cc = bpf_map_lookup_elem(&cmp_work, &zero);

		if (!cc)
			goto out;
		__builtin_memset(cc, 0, sizeof(*cc));
		cc->tid = tid;
		cc->tgid = bpf_get_current_pid_tgid() >> 32;
		cc->pgd = current_pgd();
		cc->new_addr = (__u64)ret;
		cc->unreliable = unreliable;
		bpf_loop(st->npages, compare_slot, NULL, 0);
		/* The exit-side walk itself is a window: judge it by the counter too. */
		if (!unreliable && disturb_gen() != st->gen) {
			unreliable = true;
			stat_add(PC_STAT_CALLS_DISTURBED, 1);
			for (int k = 0; k < 3; k++) {
				cc->c[k].inconclusive += cc->c[k].violations;
				cc->c[k].violations = 0;
			}
		}
		add_counts(PC_CHK_MOVED, &cc->c[0]);
		add_counts(PC_CHK_ADBITS, &cc->c[1]);
		add_counts(PC_CHK_PERMS, &cc->c[2]);
		if (cc->uncovered)
			stat_add(PC_STAT_PAGES_UNCOVERED, cc->uncovered);
		if (cc->walk_errors)
			stat_add(PC_STAT_WALK_ERRORS, cc->walk_errors);
		hist_add(PC_HIST_MREMAP_PTES_MOVED, PC_HIST_LINLOG, cc->present_moved);
	}

	/* PMD-level moves: only when old and new are both PMD-aligned. */
	if (!(st->old_addr & (PC_PMD_SIZE - 1)) && !((__u64)ret & (PC_PMD_SIZE - 1))) {
		__u32 zero = 0;
		struct pmd_ctx *pc = bpf_map_lookup_elem(&pmd_work, &zero);

		if (!pc)
			goto out;
		__builtin_memset(pc, 0, sizeof(*pc));
		pc->tid = tid;
		pc->pgd = current_pgd();
		pc->new_addr = (__u64)ret;
		pc->len = len;
		pc->enforce =
			(st->track_flags & PC_TRACK_ENFORCE_PMD) && (st->flags & MREMAP_FIXED);
		pc->unreliable = unreliable;
		bpf_loop(st->nextents, compare_pmd, NULL, 0);
		if (!unreliable && disturb_gen() != st->gen) {
			pc->c.inconclusive += pc->c.violations;
			pc->c.violations = 0;
		}
		add_counts(PC_CHK_PMD_MOVE, &pc->c);
		hist_add(PC_HIST_MREMAP_PMDS_MOVED, PC_HIST_LINLOG, pc->moved_at_pmd);
	} else {
		hist_add(PC_HIST_MREMAP_PMDS_MOVED, PC_HIST_LINLOG, 0);
	}
out:
	bpf_map_delete_elem(&calls, &tid);
	return 0;
}

/* TLB flushes issued by a task while it is inside mremap. */
SEC("tp/tlb/tlb_flush")
int tlb_flush(struct trace_event_raw_tlb_flush *ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct call_state *st = bpf_map_lookup_elem(&calls, &tid);

	if (st)
		st->tlb_flushes++;
	return 0;
}

/* Fault-around window per fault (filemap path; every kernel since 6.x). */
SEC("tp/filemap/mm_filemap_map_pages")
int filemap_map_pages(struct trace_event_raw_mm_filemap_op_page_cache_range *ctx)
{
	if (!target_flags())
		return 0;
	hist_add(PC_HIST_FAULTAROUND_PAGES, PC_HIST_LINLOG, ctx->last_index - ctx->index + 1);
	return 0;
}

/* ---- disturbances: anything that may change page tables meanwhile ------ */

#define DISTURBANCE(category, event)                                                               \
	SEC("tp/" #category "/" #event)                                                            \
	int disturb_##event(void *ctx)                                                             \
	{                                                                                          \
		disturb_bump();                                                                    \
		return 0;                                                                          \
	}

DISTURBANCE(vmscan, mm_vmscan_lru_isolate)
DISTURBANCE(vmscan, mm_vmscan_kswapd_wake)
DISTURBANCE(vmscan, mm_vmscan_direct_reclaim_begin)
DISTURBANCE(vmscan, mm_vmscan_memcg_reclaim_begin)
DISTURBANCE(vmscan, mm_vmscan_node_reclaim_begin)
DISTURBANCE(vmscan, mm_vmscan_reclaim_pages)
DISTURBANCE(migrate, mm_migrate_pages_start)
DISTURBANCE(migrate, set_migration_pte)
DISTURBANCE(compaction, mm_compaction_begin)
DISTURBANCE(huge_memory, mm_collapse_huge_page)
DISTURBANCE(ksm, ksm_merge_one_page)
DISTURBANCE(writeback, sb_mark_inode_writeback)
DISTURBANCE(writeback, writeback_single_inode_start)
DISTURBANCE(syscalls, sys_enter_process_madvise)
