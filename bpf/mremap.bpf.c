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
 *
 * Where the kernel allows fentry/fexit (guests), the same comparison runs
 * again around each move_page_tables() call (tier kernel:fexit), and on
 * arm64 every batch mremap moves through the contpte functions is judged
 * on its own: the access/dirty bits of its nr PTEs at entry must be in the
 * PTE the batched clear returns, and the PTEs set at the new address must
 * map the same pages with the same bits (fentry/fexit, or kprobes where
 * the trampoline refuses the function).  The loader picks per hook.
 *
 * All state is per (task, kind) in the calls map, never per CPU: a
 * program preempted on a CPU must not see another task's data.
 */
#include "kernel_types.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include <ptecheck/events.h>
#include <ptecheck/disturb.h>
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
const volatile bool batch_hooks;		 /* the contpte per-batch hooks are attached */
const volatile __u32 batch_tier = PC_TIER_FEXIT; /* or PC_TIER_KPROBE */

/* Kinds of call_state: the whole syscall, or one move_page_tables(). */
#define KIND_SYSCALL	   0ULL
#define KIND_MPT	   1ULL
#define PC_PMD_ENFORCE_MPT (1U << 31) /* internal: pmd-move judged at fexit */

static __always_inline __u64 call_key(__u32 tid, __u64 kind)
{
	return (__u64)tid | (kind << 32);
}

/* A violation on its way to the ring buffer, and how many of them a call
   (or a thread's hook state) has sent so far. */
struct pc_pending {
	__u32 events_sent;
	__u32 check, verdict, index;
	__u64 old_addr, new_addr, expected, seen;
};

struct cmp_ctx {
	__u64 key;
	__u32 tier;
	__u64 pgd;
	__u64 new_addr;
	bool unreliable; /* disturbed window or shared mm */
	__u64 present_moved;
	__u64 uncovered;
	__u64 new_fill; /* value of slots without a PTE table */
	bool new_is_table;
	__u32 walk_errors;
	struct pc_pending pv;	     /* the violation judge() sends */
	struct pc_check_counts c[3]; /* moved, ad-bits, perms */
};

struct pmd_ctx {
	__u64 pgd;
	__u64 new_addr;
	__u64 len;
	bool enforce;
	bool unreliable;
	__u64 moved_at_pmd;
	__u32 v_verdict, v_extent; /* the violation emit_pmd() sends */
	__u64 v_expected, v_seen;
	struct pc_check_counts c;
};

/* Per-batch state of one mremap (contpte hooks, arm64). */
struct batch_ctx {
	struct pc_gather gather; /* A/D bits of the nr PTEs at clear entry */
	__u64 clear_addr;
	__u64 clear_ptep;
	__u32 clear_nr;
	bool clear_pending; /* entry seen, exit not yet */
	bool set_pending;   /* cleared, set_ptes not yet */
	__u32 cleared_nr;
	__u64 cleared_pte; /* what the batched clear returned */
	__u64 set_addr, set_ptep, set_pte;
	__u32 set_nr;
	__u64 batched_ptes; /* sum of nr over batches of 2 or more */
	__u64 batches;
	struct pc_pending pv;	     /* the violation judge_batch() sends */
	struct pc_check_counts c[2]; /* ad-bits (gather), batch */
};

struct call_state {
	bool active; /* between the call's entry and exit */
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
	struct cmp_ctx cc;
	struct pmd_ctx pc;
	struct batch_ctx bc;
	__u64 table[PC_PTRS_PER_TABLE]; /* the new range's current PTE table */
	__u64 ptes[2 * PC_SNAP_PTES];	/* slack so bounded indices stay inside */
	__u64 old_pmds[PC_SNAP_PMDS];
	__u64 new_pmds[PC_SNAP_PMDS];
};

struct {
	/* LRU: a thread's entry is reused from call to call (a fresh one is a
	   45 KB copy of the template), and the least recent thread's entry
	   makes room when more threads than this call mremap. */
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 128);
	__type(key, __u64);
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
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u32);
} tracked SEC(".maps");

/*
 * Loop state lives in the call's map value, not on the stack: bpf_loop
 * callbacks whose stack context changes every iteration make the verifier
 * explore far too many states.
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

/* Slot 0: the generation, bumped by every event that may change page
 * tables behind a task's back.  Slot 1: how many long operations (reclaim,
 * compaction, migration, swapoff, process_madvise) are in progress; while
 * one is, no window is quiet.  Read by userspace oracles too. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u64);
} disturb SEC(".maps");

/* The threads inside a long operation: begin and end pair by thread, so
 * an end whose begin came before we attached changes nothing. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u32);
} busy_threads SEC(".maps");

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

static __always_inline void disturb_bump(void)
{
	__u32 zero = 0;
	__u64 *v = bpf_map_lookup_elem(&disturb, &zero);

	if (v)
		__sync_fetch_and_add(v, 1);
}

/*
 * The generation a window compares at its start and end.  While a long
 * operation is in progress every read is a new generation, so a window
 * that overlaps one in any part never compares equal.
 */
static __always_inline __u64 disturb_gen(void)
{
	__u32 zero = 0, one = 1;
	__u64 *gen = bpf_map_lookup_elem(&disturb, &zero);
	__u64 *busy = bpf_map_lookup_elem(&disturb, &one);

	if (!gen || !busy)
		return 0;
	if (*busy)
		return __sync_fetch_and_add(gen, 1) + 1;
	return *gen;
}

/* Spans nest (direct reclaim inside a migration): a depth per thread. */
static __always_inline void busy_begin(void)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid(), one = 1, first = 1;
	__u64 *busy = bpf_map_lookup_elem(&disturb, &one);
	__u32 *depth = bpf_map_lookup_elem(&busy_threads, &tid);

	disturb_bump();
	if (!busy)
		return;
	if (depth) {
		*depth += 1;
		return;
	}
	/* Counted even when the map is full: an end never pairs with it then,
	   so it stays busy for good (never quiet is safe, quiet by mistake
	   is not). */
	bpf_map_update_elem(&busy_threads, &tid, &first, BPF_NOEXIST);
	__sync_fetch_and_add(busy, 1);
}

static __always_inline void busy_end(void)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid(), one = 1;
	__u64 *busy = bpf_map_lookup_elem(&disturb, &one);
	__u32 *depth = bpf_map_lookup_elem(&busy_threads, &tid);

	disturb_bump();
	if (!busy || !depth)
		return;
	if (*depth > 1) {
		*depth -= 1;
		return;
	}
	if (bpf_map_delete_elem(&busy_threads, &tid) == 0)
		__sync_fetch_and_sub(busy, 1);
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
	__u64 key;
	__u64 pgd;
};

/* Reads the PTEs of one PMD extent of the old range into st->ptes. */
static long snap_extent(__u32 e, void *data)
{
	struct snap_ctx *sc = data;
	struct call_state *st = bpf_map_lookup_elem(&calls, &sc->key);
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
	/* Older verifiers (v6.1) lose the bound above across the multiply. */
	PC_BOUND(n, 1023);
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
	struct call_state *st = bpf_map_lookup_elem(&calls, &sc->key);
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

/*
 * Starts a call: a fresh state under key and, when the walk is enabled,
 * the snapshot of the old range (and of the new range's PMDs when the new
 * address is known and PMD-aligned).  Returns the state or NULL.
 */
static __always_inline struct call_state *begin_call(__u64 key, __u64 old_addr, __u64 old_len,
						     __u64 new_len, __u64 flags, __u64 new_addr_arg,
						     __u32 track_flags)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct call_state *tmpl, *st;
	struct snap_ctx sc;
	__u32 zero = 0;
	__u64 len;

	st = bpf_map_lookup_elem(&calls, &key);
	if (!st) {
		tmpl = bpf_map_lookup_elem(&state_template, &zero);
		if (!tmpl || bpf_map_update_elem(&calls, &key, tmpl, BPF_ANY)) {
			stat_add(PC_STAT_STATE_FULL, 1);
			return NULL;
		}
		st = bpf_map_lookup_elem(&calls, &key);
		if (!st)
			return NULL;
	}
	/* A reused entry: reset what a call reads before it writes it (the
	   snapshot arrays are written for every slot a call compares). */
	st->active = true;
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
	st->gen = disturb_gen();
	st->shared_mm = BPF_CORE_READ(task, signal, nr_threads) > 1 ||
			BPF_CORE_READ(task, mm, mm_users.counter) > 1;
	st->t0 = bpf_ktime_get_ns();

	if (!walk_enabled || st->old_len == 0)
		return st;
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

SEC("tp/syscalls/sys_enter_mremap")
int mremap_enter(struct trace_event_raw_sys_enter *ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	__u32 flags = target_flags();

	if (!flags)
		return 0;
	stat_add(PC_STAT_CALLS, 1);
	begin_call(call_key(tid, KIND_SYSCALL), ctx->args[0], ctx->args[1], ctx->args[2],
		   ctx->args[3], ctx->args[4], flags - 1);
	return 0;
}

/* ---- comparison at exit ----------------------------------------------- */

static __noinline void emit_pending(struct pc_pending *v, __u32 tier)
{
	struct pc_violation_event *ev;

	if (!v || v->events_sent >= PC_MAX_EVENTS_PER_CALL)
		return;
	ev = bpf_ringbuf_reserve(&events, sizeof(*ev), 0);
	if (!ev) {
		stat_add(PC_STAT_EVENTS_DROPPED, 1);
		return;
	}
	v->events_sent++;
	ev->check = v->check;
	ev->verdict = v->verdict;
	ev->tier = tier;
	ev->tgid = bpf_get_current_pid_tgid() >> 32;
	ev->tid = (__u32)bpf_get_current_pid_tgid();
	ev->index = v->index;
	ev->old_addr = v->old_addr;
	ev->new_addr = v->new_addr;
	ev->expected = v->expected;
	ev->seen = v->seen;
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
	/*
	 * Accessed bits are cleared by aging without any event we can see
	 * (MGLRU page-table walks, DAMON, idle page tracking), and these
	 * windows are not under the page-table lock: a lost young bit here
	 * proves nothing.  The gather checks (under the lock) and the smaps
	 * oracle judge the young half; dirty bits only go with writeback or
	 * MADV_FREE, which the disturbance counter sees.
	 */
	if (cc->unreliable || verdict == PC_V_YOUNG_LOST) {
		c->inconclusive++;
		return;
	}
	c->violations++;
	cc->pv.check = check;
	cc->pv.verdict = verdict;
	cc->pv.index = index;
	cc->pv.old_addr = st->old_addr + ((__u64)index << PC_PAGE_SHIFT);
	cc->pv.new_addr = cc->new_addr + ((__u64)index << PC_PAGE_SHIFT);
	cc->pv.expected = expected;
	cc->pv.seen = seen;
	emit_pending(&cc->pv, cc->tier);
}

static long compare_slot(__u32 i, void *data)
{
	struct call_state *st = bpf_map_lookup_elem(&calls, data);
	struct cmp_ctx *cc;
	__u64 addr, idx, pmd = 0, oldv, newv, ui, e;
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
		int kind = walk_pmd(cc->pgd, addr, &pmd);

		cc->new_fill = kind == PC_WALK_NONE ? 0 : PC_UNCOVERED;
		cc->new_is_table = false;
		if (kind == PC_WALK_TABLE && pc_table_phys(pmd) < walk_phys_limit &&
		    !bpf_probe_read_kernel(st->table, PC_PTRS_PER_TABLE * 8,
					   (void *)(walk_base + pc_table_phys(pmd))))
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
	judge(cc, st, 0, pc_moved_entry(o, n), i, oldv, newv);
	judge(cc, st, 1, pc_adbits_entry(o, n), i, oldv, newv);
	judge(cc, st, 2, pc_perms_entry(o, n), i, oldv, newv);
	return 0;
}

static __noinline void emit_pmd(struct pmd_ctx *pc, __u64 old_addr, __u32 tier)
{
	struct pc_violation_event *ev;

	if (!pc)
		return;
	ev = bpf_ringbuf_reserve(&events, sizeof(*ev), 0);
	if (!ev) {
		stat_add(PC_STAT_EVENTS_DROPPED, 1);
		return;
	}
	ev->check = PC_CHK_PMD_MOVE;
	ev->verdict = pc->v_verdict;
	ev->tier = tier;
	ev->tgid = bpf_get_current_pid_tgid() >> 32;
	ev->tid = (__u32)bpf_get_current_pid_tgid();
	ev->index = pc->v_extent << (PC_PMD_SHIFT - PC_PAGE_SHIFT);
	ev->old_addr = old_addr + ((__u64)pc->v_extent << PC_PMD_SHIFT);
	ev->new_addr = pc->new_addr + ((__u64)pc->v_extent << PC_PMD_SHIFT);
	ev->expected = pc->v_expected;
	ev->seen = pc->v_seen;
	ev->call_seq = 0;
	bpf_get_current_comm(ev->comm, sizeof(ev->comm));
	bpf_ringbuf_submit(ev, 0);
}

static long compare_pmd(__u32 e, void *data)
{
	struct call_state *st = bpf_map_lookup_elem(&calls, data);
	struct pc_pmd_extent x = {};
	struct pmd_ctx *pc;
	__u64 pmd = 0, u_e;
	int kind, verdict;

	if (!st || e >= PC_SNAP_PMDS || e >= st->nextents)
		return 1;
	pc = &st->pc;
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
	pc->v_verdict = verdict;
	pc->v_extent = e;
	pc->v_expected = x.old_pmd_entry;
	pc->v_seen = x.new_pmd_exit;
	emit_pmd(pc, st->old_addr, st->cc.tier);
	return 0;
}

static __always_inline void add_counts(__u32 check, __u32 tier, struct pc_check_counts *src)
{
	__u32 key = check * PC_TIER__COUNT + tier;
	struct pc_check_counts *c = bpf_map_lookup_elem(&counts, &key);

	if (!c || tier >= PC_TIER__COUNT)
		return;
	__sync_fetch_and_add(&c->checked, src->checked);
	__sync_fetch_and_add(&c->violations, src->violations);
	__sync_fetch_and_add(&c->inconclusive, src->inconclusive);
	__sync_fetch_and_add(&c->not_applicable, src->not_applicable);
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
	struct pmd_ctx *pc = &st->pc;
	bool unreliable, disturbed, shared, syscall = tier == PC_TIER_SYSCALL_WALK;
	__u64 total_pages;

	if (!walk_enabled || st->old_len == 0 || st->npages == 0)
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
	cc->key = key;
	cc->tier = tier;
	cc->pgd = current_pgd();
	cc->new_addr = new_addr;
	cc->unreliable = unreliable;
	bpf_loop(st->npages, compare_slot, &key, 0);
	/* The exit-side walk itself is a window: judge it by the counter too. */
	if (!unreliable && disturb_gen() != st->gen) {
		unreliable = true;
		if (syscall)
			stat_add(PC_STAT_CALLS_DISTURBED, 1);
		for (int k = 0; k < 3; k++) {
			cc->c[k].inconclusive += cc->c[k].violations;
			cc->c[k].violations = 0;
		}
	}
	add_counts(PC_CHK_MOVED, tier, &cc->c[0]);
	add_counts(PC_CHK_ADBITS, tier, &cc->c[1]);
	add_counts(PC_CHK_PERMS, tier, &cc->c[2]);
	if (syscall && cc->uncovered)
		stat_add(PC_STAT_PAGES_UNCOVERED, cc->uncovered);
	if (syscall && cc->walk_errors)
		stat_add(PC_STAT_WALK_ERRORS, cc->walk_errors);

	/* PMD-level moves: only when old and new are both PMD-aligned. */
	__builtin_memset(pc, 0, sizeof(*pc));
	if (!(st->old_addr & (PC_PMD_SIZE - 1)) && !(new_addr & (PC_PMD_SIZE - 1))) {
		pc->pgd = cc->pgd;
		pc->new_addr = new_addr;
		pc->len = moved_len;
		pc->enforce =
			(st->track_flags & PC_TRACK_ENFORCE_PMD) && (st->flags & MREMAP_FIXED);
		pc->unreliable = unreliable;
		bpf_loop(st->nextents, compare_pmd, &key, 0);
		if (!unreliable && disturb_gen() != st->gen) {
			pc->c.inconclusive += pc->c.violations;
			pc->c.violations = 0;
		}
		add_counts(PC_CHK_PMD_MOVE, tier, &pc->c);
	}
	return cc->present_moved;
}

/* Adds n to one histogram slot. */
static __always_inline void hist_add_n(__u32 hist, __u32 kind, __u64 value, __u64 n)
{
	__u32 key = hist * PC_HIST_SLOTS + pc_hist_slot(kind, value);
	__u64 *v = bpf_map_lookup_elem(&hists, &key);

	if (v)
		__sync_fetch_and_add(v, n);
}

static __always_inline void flush_batch_counts(struct batch_ctx *bc)
{
	add_counts(PC_CHK_ADBITS, batch_tier, &bc->c[0]);
	add_counts(PC_CHK_BATCH, batch_tier, &bc->c[1]);
}

SEC("tp/syscalls/sys_exit_mremap")
int mremap_exit(struct trace_event_raw_sys_exit *ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	__u64 key = call_key(tid, KIND_SYSCALL);
	struct call_state *st = bpf_map_lookup_elem(&calls, &key);
	long ret = ctx->ret, present;
	__u64 len;

	if (!st || !st->active)
		return 0;
	hist_add(PC_HIST_MREMAP_LATENCY_NS, PC_HIST_LOG2, bpf_ktime_get_ns() - st->t0);
	hist_add(PC_HIST_MREMAP_TLB_FLUSHES, PC_HIST_LINLOG, st->tlb_flushes);
	flush_batch_counts(&st->bc);

	if ((unsigned long)ret >= (unsigned long)-MAX_ERRNO) {
		stat_add(PC_STAT_CALLS_FAILED, 1);
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
	if (batch_hooks && !st->cc.uncovered && st->pc.moved_at_pmd == 0 &&
	    (len >> PC_PAGE_SHIFT) <= PC_SNAP_PTES && st->bc.batched_ptes <= (__u64)present)
		hist_add_n(PC_HIST_BATCH_MREMAP, PC_HIST_LINLOG, 1,
			   (__u64)present - st->bc.batched_ptes);
out:
	st->active = false;
	return 0;
}

/* ---- tier kernel:fexit: around each move_page_tables() ------------------ */

static __always_inline void mpt_begin(__u64 old_addr, __u64 new_addr, __u64 len)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	__u64 skey = call_key(tid, KIND_SYSCALL);
	struct call_state *sys = bpf_map_lookup_elem(&calls, &skey);
	__u32 flags = target_flags();

	if (!flags || !walk_enabled)
		return;
	/* MREMAP_FIXED: the new address is known here, snapshot its PMDs. The
	   pmd-move check is enforced as in the enclosing syscall. */
	begin_call(call_key(tid, KIND_MPT), old_addr, len, len, MREMAP_FIXED, new_addr,
		   sys && (sys->track_flags & PC_TRACK_ENFORCE_PMD) && (sys->flags & MREMAP_FIXED)
			   ? PC_TRACK_ENFORCE_PMD
			   : 0);
}

/*
 * The new address is the one seen at entry: v6.15+ advances pmc->old_addr
 * and pmc->new_addr while it moves (and may first realign them down to a
 * PMD boundary over empty space), so at fexit they point past the range.
 */
static __always_inline void mpt_end(__u64 moved)
{
	__u64 key = call_key((__u32)bpf_get_current_pid_tgid(), KIND_MPT);
	struct call_state *st = bpf_map_lookup_elem(&calls, &key);

	if (!st || !st->active)
		return;
	finish_call(key, st, st->new_addr_arg, moved, PC_TIER_FEXIT);
	st->active = false;
}

/* Since v6.15: unsigned long move_page_tables(struct pagetable_move_control *). */
SEC("fentry/move_page_tables")
int BPF_PROG(mpt_entry, struct pagetable_move_control *pmc)
{
	mpt_begin(BPF_CORE_READ(pmc, old_addr), BPF_CORE_READ(pmc, new_addr),
		  BPF_CORE_READ(pmc, len_in));
	return 0;
}

/* The return value by helper: the parameter count differs by version. */
static __always_inline __u64 mpt_moved(void *ctx)
{
	__u64 moved = 0;

	return bpf_get_func_ret(ctx, &moved) ? 0 : moved;
}

SEC("fexit/move_page_tables")
int BPF_PROG(mpt_exit)
{
	mpt_end(mpt_moved(ctx));
	return 0;
}

/*
 * Before v6.15: move_page_tables(vma, old_addr, new_vma, new_addr, len,
 * need_rmap_locks[, for_stack]): six or seven parameters.
 */
SEC("fentry/move_page_tables")
int BPF_PROG(mpt_legacy_entry, void *vma, unsigned long old_addr, void *new_vma,
	     unsigned long new_addr, unsigned long len)
{
	mpt_begin(old_addr, new_addr, len);
	return 0;
}

SEC("fexit/move_page_tables")
int BPF_PROG(mpt_legacy_exit)
{
	mpt_end(mpt_moved(ctx));
	return 0;
}

/* ---- per batch (arm64 contpte): clear at old, set at new ---------------- */

struct entries_ctx {
	__u64 key;
	__u64 ptep;
};

static long gather_entry(__u32 i, void *data)
{
	struct entries_ctx *ec = data;
	struct call_state *st = bpf_map_lookup_elem(&calls, &ec->key);
	__u64 raw = 0;

	if (!st)
		return 1;
	if (bpf_probe_read_kernel(&raw, sizeof(raw), (void *)(ec->ptep + (__u64)i * 8))) {
		st->bc.gather.first_present = 0; /* unreadable: not judged */
		st->bc.clear_pending = false;
		return 1;
	}
	pc_gather_add(&st->bc.gather, pc_decode_pte(raw));
	return 0;
}

/* One verdict of a per-batch check (slot 0 ad-bits, 1 batch). */
static __always_inline void judge_batch(struct call_state *st, __u32 slot, int verdict, __u64 addr,
					__u32 index, __u64 expected, __u64 seen)
{
	struct batch_ctx *bc = &st->bc;
	struct pc_check_counts *c;

	if (slot > 1)
		return;
	c = &bc->c[slot];
	if (verdict == PC_NOT_APPLICABLE) {
		c->not_applicable++;
		return;
	}
	c->checked++;
	if (!pc_is_violation(verdict))
		return;
	/* Shared mm or a disturbed window: the PTL was held, but be strict. */
	if (st->shared_mm || disturb_gen() != st->gen) {
		c->inconclusive++;
		return;
	}
	c->violations++;
	bc->pv.check = slot == 0 ? PC_CHK_ADBITS : PC_CHK_BATCH;
	bc->pv.verdict = verdict;
	bc->pv.old_addr = addr;
	bc->pv.new_addr = addr;
	bc->pv.index = index;
	bc->pv.expected = expected;
	bc->pv.seen = seen;
	emit_pending(&bc->pv, batch_tier);
}

static __always_inline struct call_state *mremap_state(__u64 *key)
{
	*key = call_key((__u32)bpf_get_current_pid_tgid(), KIND_SYSCALL);
	struct call_state *st = bpf_map_lookup_elem(&calls, key);

	return st && st->active ? st : NULL;
}

/* contpte_get_and_clear_full_ptes(mm, addr, ptep, nr, full), at entry. */
static __always_inline void clear_begin(__u64 addr, __u64 ptep, __u32 nr)
{
	struct entries_ctx ec;
	struct call_state *st = mremap_state(&ec.key);

	if (!st)
		return;
	__builtin_memset(&st->bc.gather, 0, sizeof(st->bc.gather));
	st->bc.clear_addr = addr;
	st->bc.clear_ptep = ptep;
	st->bc.clear_nr = nr;
	st->bc.clear_pending = true;
	ec.ptep = ptep;
	bpf_loop(nr < PC_PTRS_PER_TABLE ? nr : PC_PTRS_PER_TABLE, gather_entry, &ec, 0);
}

/* ... at exit: the returned PTE carries every bit the nr PTEs had. */
static __always_inline void clear_end(__u64 ret)
{
	__u64 key;
	struct call_state *st = mremap_state(&key);
	struct batch_ctx *bc;

	if (!st || !st->bc.clear_pending)
		return;
	bc = &st->bc;
	bc->clear_pending = false;
	judge_batch(st, 1, pc_batch_in_table(bc->clear_addr, bc->clear_nr), bc->clear_addr, 0,
		    bc->clear_nr, bc->clear_nr);
	judge_batch(st, 0, pc_gather_covers(&bc->gather, pc_decode_pte(ret)), bc->clear_addr, 0,
		    ((__u64)bc->gather.any_young << 1) | bc->gather.any_dirty, ret);
	bc->set_pending = true;
	bc->cleared_nr = bc->clear_nr;
	bc->cleared_pte = ret;
}

static long check_set_entry(__u32 k, void *data)
{
	struct entries_ctx *ec = data;
	struct call_state *st = bpf_map_lookup_elem(&calls, &ec->key);
	__u64 raw = 0;
	int v;

	if (!st)
		return 1;
	if (bpf_probe_read_kernel(&raw, sizeof(raw), (void *)(st->bc.set_ptep + (__u64)k * 8)))
		return 1;
	v = pc_set_entry(pc_decode_pte(st->bc.set_pte), k, pc_decode_pte(raw));
	/* A wrong PFN or permission is a batch error; a lost bit an ad-bits one. */
	judge_batch(st, v == PC_V_YOUNG_LOST || v == PC_V_DIRTY_LOST ? 0 : 1, v,
		    st->bc.set_addr + ((__u64)k << PC_PAGE_SHIFT), k, st->bc.set_pte, raw);
	return 0;
}

/* contpte_set_ptes(mm, addr, ptep, pte, nr), at exit: the nr PTEs set. */
static __always_inline void set_end(__u64 addr, __u64 ptep, __u64 pte, __u32 nr)
{
	struct entries_ctx ec;
	struct call_state *st = mremap_state(&ec.key);
	struct batch_ctx *bc;

	if (!st)
		return;
	bc = &st->bc;
	bc->batches++;
	bc->batched_ptes += nr;
	hist_add(PC_HIST_BATCH_MREMAP, PC_HIST_LINLOG, nr);
	judge_batch(st, 1, pc_batch_in_table(addr, nr), addr, 0, nr, nr);
	if (bc->set_pending) {
		struct pc_pte cleared = pc_decode_pte(bc->cleared_pte);
		struct pc_pte want = pc_decode_pte(pte);

		bc->set_pending = false;
		judge_batch(st, 1, pc_batch_pair(bc->cleared_nr, nr), addr, 0, bc->cleared_nr, nr);
		/* What the clear gathered reaches the new PTEs (same page, bits). */
		judge_batch(st, 0, pc_adbits_entry(cleared, want), addr, 0, bc->cleared_pte, pte);
		judge_batch(st, 1, pc_moved_entry(cleared, want), addr, 0, bc->cleared_pte, pte);
	}
	bc->set_addr = addr;
	bc->set_ptep = ptep;
	bc->set_pte = pte;
	ec.ptep = ptep;
	bpf_loop(nr < PC_PTRS_PER_TABLE ? nr : PC_PTRS_PER_TABLE, check_set_entry, &ec, 0);
}

SEC("fentry/contpte_get_and_clear_full_ptes")
int BPF_PROG(clear_fentry, void *mm, unsigned long addr, __u64 *ptep, unsigned int nr)
{
	clear_begin(addr, (__u64)ptep, nr);
	return 0;
}

SEC("fexit/contpte_get_and_clear_full_ptes")
int BPF_PROG(clear_fexit, void *mm, unsigned long addr, __u64 *ptep, unsigned int nr, int full,
	     __u64 ret)
{
	clear_end(ret);
	return 0;
}

SEC("fexit/contpte_set_ptes")
int BPF_PROG(set_fexit, void *mm, unsigned long addr, __u64 *ptep, __u64 pte, unsigned int nr)
{
	set_end(addr, (__u64)ptep, pte, nr);
	return 0;
}

/* The same through kprobes, for kernels whose trampolines refuse pte_t. */
SEC("kprobe/contpte_get_and_clear_full_ptes")
int BPF_KPROBE(clear_kprobe, void *mm, unsigned long addr, __u64 *ptep, unsigned int nr)
{
	clear_begin(addr, (__u64)ptep, nr);
	return 0;
}

SEC("kretprobe/contpte_get_and_clear_full_ptes")
int BPF_KRETPROBE(clear_kretprobe, __u64 ret)
{
	clear_end(ret);
	return 0;
}

/* kprobe at entry keeps the arguments; kretprobe judges. */
SEC("kprobe/contpte_set_ptes")
int BPF_KPROBE(set_kprobe, void *mm, unsigned long addr, __u64 *ptep, __u64 pte, unsigned int nr)
{
	__u64 key;
	struct call_state *st = mremap_state(&key);

	if (!st)
		return 0;
	st->bc.set_addr = addr;
	st->bc.set_ptep = (__u64)ptep;
	st->bc.set_pte = pte;
	st->bc.set_nr = nr;
	return 0;
}

SEC("kretprobe/contpte_set_ptes")
int BPF_KRETPROBE(set_kretprobe)
{
	__u64 key;
	struct call_state *st = mremap_state(&key);

	if (!st || !st->bc.set_nr)
		return 0;
	set_end(st->bc.set_addr, st->bc.set_ptep, st->bc.set_pte, st->bc.set_nr);
	st->bc.set_nr = 0;
	return 0;
}

/* ---- folio_pte_batch(): batch sizes of zap, mlock, khugepaged, ... ------ */

static __always_inline void fpb_record(__u32 nr)
{
	__u64 key;

	if (!target_flags())
		return;
	hist_add(mremap_state(&key) ? PC_HIST_FPB_IN_MREMAP : PC_HIST_BATCH_OTHER, PC_HIST_LINLOG,
		 nr);
}

SEC("fexit/folio_pte_batch")
int BPF_PROG(fpb_fexit, void *folio, __u64 *ptep, __u64 pte, unsigned int max_nr, unsigned int ret)
{
	fpb_record(ret);
	return 0;
}

SEC("kretprobe/folio_pte_batch")
int BPF_KRETPROBE(fpb_kretprobe, unsigned int ret)
{
	fpb_record(ret);
	return 0;
}

/* TLB flushes issued by a task while it is inside mremap. */
SEC("tp/tlb/tlb_flush")
int tlb_flush(struct trace_event_raw_tlb_flush *ctx)
{
	__u64 key;
	struct call_state *st = mremap_state(&key);

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

/* A long operation's begin and end, on the same thread: the whole span is
 * disturbed, not just its first event. */
#define DISTURBANCE_SPAN(category, begin, end)                                                     \
	SEC("tp/" #category "/" #begin)                                                            \
	int disturb_##begin(void *ctx)                                                             \
	{                                                                                          \
		busy_begin();                                                                      \
		return 0;                                                                          \
	}                                                                                          \
	SEC("tp/" #category "/" #end)                                                              \
	int disturb_##end(void *ctx)                                                               \
	{                                                                                          \
		busy_end();                                                                        \
		return 0;                                                                          \
	}

PC_DISTURB_EVENTS(DISTURBANCE, DISTURBANCE_SPAN)

#include "filemap_hooks.h"
#include "contpte_hooks.h"

/* A thread that exits leaves no state a reused thread id could inherit. */
SEC("tp/sched/sched_process_exit")
int task_exit(void *ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	__u64 key = call_key(tid, KIND_SYSCALL);

	bpf_map_delete_elem(&calls, &key);
	key = call_key(tid, KIND_MPT);
	bpf_map_delete_elem(&calls, &key);
	bpf_map_delete_elem(&fm_states, &tid);
	bpf_map_delete_elem(&cp_states, &tid);
	/* Out of any span it was in: it no longer keeps windows disturbed. */
	if (bpf_map_lookup_elem(&busy_threads, &tid)) {
		__u32 one = 1;
		__u64 *busy = bpf_map_lookup_elem(&disturb, &one);

		if (bpf_map_delete_elem(&busy_threads, &tid) == 0 && busy)
			__sync_fetch_and_sub(busy, 1);
	}
	return 0;
}
