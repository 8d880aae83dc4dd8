// SPDX-License-Identifier: GPL-2.0
/*
 * The common part of the tracing object: the maps and read-only globals
 * every path uses (declared in common.bpf.h), the one event emitter and the
 * out-of-line half of the one verdict counter, the disturbance programs
 * (include/ptecheck/disturb.h) and the task-exit cleanup of their state.
 *
 * Race rules (docs/checks.md): a violation seen in a window that overlapped
 * reclaim, migration, compaction, collapse or writeback anywhere (the
 * disturbance generation), or in a task whose mm others share, is counted
 * as inconclusive and never reported as a failure.
 */
#include "common.bpf.h"
#include "ptwalk.h"
#include <ptecheck/disturb.h>

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 filter_mode = PC_FILTER_TRACKED;
const volatile char filter_comm[16];
const volatile __u32 hist_by = PC_BY_NONE;
const volatile __u32 sample_every;
const volatile __u64 walk_base, walk_phys_limit;
const volatile __u32 walk_levels;
const volatile __u64 walk_vmemmap, walk_page_size;
const volatile bool crash_witness;
__u32 witnessed;

__noinline int pc_walk_pmd(__u64 pgd_va, __u64 addr, __u64 *pmd)
{
	if (!pmd)
		return PC_WALK_ERROR;
	return pc_walk_to_pmd(pgd_va, walk_base, walk_phys_limit, walk_levels, addr, pmd);
}

struct pc_tracked_map tracked SEC(".maps");
struct pc_cgroup_map filter_cgroup SEC(".maps");
struct pc_hists_map hists SEC(".maps");
struct pc_hist_sums_map hist_sums SEC(".maps");
struct pc_hist_keys_map hist_keys SEC(".maps");
struct pc_counts_map counts SEC(".maps");
struct pc_sample_map sample_seq SEC(".maps");
struct pc_stats_map stats SEC(".maps");
struct pc_disturb_map disturb SEC(".maps");
struct pc_busy_map busy_threads SEC(".maps");
struct pc_events_map events SEC(".maps");

/* Sends the pending violation, at most PC_MAX_EVENTS_PER_CALL per owner. */
static __always_inline void emit(struct pc_pending *v, __u32 tier)
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
	ev->old_addr = v->old_addr;
	ev->new_addr = v->new_addr;
	ev->expected = v->expected;
	ev->seen = v->seen;
	/* The current task's stack, not bpf_get_stack(ctx): this global
	   function has no ctx (a ctx argument needs __arg_ctx, kernel 6.8, and
	   the judges run in bpf_loop callbacks), and the task's stack holds
	   the hooked path the same way, the helper's frames above it. */
	ev->stack_len =
		bpf_get_task_stack(bpf_get_current_task_btf(), ev->stack, sizeof(ev->stack), 0);
	bpf_ringbuf_submit(ev, 0);
}

/* Cheap and certain reasons first: the generation is read last. */
static __always_inline bool inconclusive(const struct pc_window *w, int verdict)
{
	if (w->flags & PC_WIN_UNRELIABLE)
		return true;
	if ((w->flags & PC_WIN_YOUNG) && verdict == PC_V_YOUNG_LOST)
		return true;
	if ((w->flags & PC_WIN_MM) && mm_shared())
		return true;
	return (w->flags & PC_WIN_GEN) && disturb_gen() != w->gen;
}

/*
 * A global function is verified once on its own: its callers, many of
 * them bpf_loop callbacks, stay small for the verifier.
 */
__noinline int pc_judge_violation(struct pc_check_counts *c, struct pc_pending *pv,
				  const struct pc_window *w)
{
	if (!c || !pv || !w)
		return 0;
	if (inconclusive(w, pv->verdict)) {
		pc_count_unjudged(c);
		return 0;
	}
	pc_count_violation(c);
	emit(pv, w->tier);
	return 1;
}

_Static_assert(PC_HIST_SLOTS == 64, "the slot mask of pc_hist_add_keyed");

/* A new key's value: zero slots (too large for the stack). */
static const struct pc_hist_keyed hist_fresh;

/*
 * Global, so verified once: the callers' programs (bpf_loop callbacks
 * among them) grow by a call only.  A full map is no error: the event
 * goes to the unkeyed array, which the report counts as not attributed.
 */
__noinline int pc_hist_add_keyed(__u32 idx, __u64 n)
{
	struct pc_hist_key k = {.hist = idx / PC_HIST_SLOTS};
	__u32 slot = idx % PC_HIST_SLOTS;
	struct pc_hist_keyed *v;

	if (hist_by == PC_BY_PID)
		k.tgid = bpf_get_current_pid_tgid() >> 32;
	else
		bpf_get_current_comm(k.comm, sizeof(k.comm));
	v = bpf_map_lookup_elem(&hist_keys, &k);
	if (!v) {
		/* Another CPU may insert it first (EEXIST): look again. */
		bpf_map_update_elem(&hist_keys, &k, &hist_fresh, BPF_NOEXIST);
		v = bpf_map_lookup_elem(&hist_keys, &k);
		if (!v)
			return 0;
	}
	/* By pid, the name it has now: a forked shell that execs dd is dd. */
	if (hist_by == PC_BY_PID)
		bpf_get_current_comm(v->comm, sizeof(v->comm));
	PC_BOUND(slot, 63);
	__sync_fetch_and_add(&v->slots[slot], n);
	return 1;
}

/* ---- disturbances: anything that may change page tables meanwhile ------ */

static __always_inline void disturb_bump(void)
{
	__u32 zero = 0;
	__u64 *v = bpf_map_lookup_elem(&disturb, &zero);

	if (v)
		__sync_fetch_and_add(v, 1);
}

/* Spans nest (direct reclaim inside a migration): a depth per thread. */
static __always_inline void busy_begin(void)
{
	__u32 tid = pc_tid(), one = 1, first = 1;
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
	__u32 tid = pc_tid(), one = 1;
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

#define DISTURBANCE(category, event)                                                               \
	SEC(PC_TP_SEC(category, event))                                                            \
	int disturb_##event(void *ctx)                                                             \
	{                                                                                          \
		disturb_bump();                                                                    \
		return 0;                                                                          \
	}

/* A long operation's begin and end, on the same thread: the whole span is
 * disturbed, not just its first event. */
#define DISTURBANCE_SPAN(category, begin, end)                                                     \
	SEC(PC_TP_SEC(category, begin))                                                            \
	int disturb_##begin(void *ctx)                                                             \
	{                                                                                          \
		busy_begin();                                                                      \
		return 0;                                                                          \
	}                                                                                          \
	SEC(PC_TP_SEC(category, end))                                                              \
	int disturb_##end(void *ctx)                                                               \
	{                                                                                          \
		busy_end();                                                                        \
		return 0;                                                                          \
	}

PC_DISTURB_EVENTS(DISTURBANCE, DISTURBANCE_SPAN)

/* Whether syscall nr is one of PC_DISTURB_SYSCALLS. */
static __always_inline bool disturbing_nr(long nr)
{
#define DISTURB_NR(name) nr == PC_NR_##name ||
	return PC_DISTURB_SYSCALLS(DISTURB_NR) false;
#undef DISTURB_NR
}

/* The disturbance's part at the syscalls (bpf/syscalls.bpf.c calls them). */
__noinline int pc_disturb_sys_enter(struct bpf_raw_tracepoint_args *ctx, long nr)
{
	if (disturbing_nr(nr) && pc_sys_native(ctx))
		busy_begin();
	return 0;
}

__noinline int pc_disturb_sys_exit(struct bpf_raw_tracepoint_args *ctx, long nr)
{
	if (disturbing_nr(nr) && pc_sys_native(ctx))
		busy_end();
	return 0;
}

/* A new process forked by a process tracked with PC_TRACK_CHILDREN is
   tracked too, with the same flags (watch and hist follow descendants, as
   perf does).  A new thread needs nothing: targets are tgids. */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(common_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = BPF_CORE_READ(parent, tgid), ctgid = BPF_CORE_READ(child, tgid), f;
	__u32 *flags;

	if (ptgid == ctgid)
		return 0;
	/* A new process cannot be tracked yet: an entry is a freed one's. */
	flags = bpf_map_lookup_elem(&tracked, &ctgid);
	if (flags && (*flags & PC_TRACK_EXITED))
		bpf_map_delete_elem(&tracked, &ctgid);
	flags = bpf_map_lookup_elem(&tracked, &ptgid);
	if (!flags || !(*flags & PC_TRACK_CHILDREN))
		return 0;
	f = *flags;
	bpf_map_update_elem(&tracked, &ctgid, &f, BPF_NOEXIST);
	return 0;
}

/* A thread that exits leaves no span open: it no longer keeps windows
   disturbed; a followed child whose last thread exits is marked, and
   tracked no more once freed (its pid may come back as another's), so
   what exit_mm() does after this tracepoint (7.x) still counts.  (Each
   path's part cleans its own per-thread state.) */
SEC(PC_TP_SEC(sched, sched_process_exit))
int common_task_exit(void *ctx)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	__u32 tid = pc_tid(), one = 1, tgid = bpf_get_current_pid_tgid() >> 32;
	__u32 *flags = NULL;
	__u64 *busy;

	/* The last thread out (do_exit() counted signal->live down first). */
	if (BPF_CORE_READ(task, signal, live.counter) == 0)
		flags = bpf_map_lookup_elem(&tracked, &tgid);
	if (flags && (*flags & PC_TRACK_CHILDREN))
		*flags |= PC_TRACK_EXITED; /* the loader adds and deletes only */
	if (!bpf_map_lookup_elem(&busy_threads, &tid))
		return 0;
	busy = bpf_map_lookup_elem(&disturb, &one);
	if (bpf_map_delete_elem(&busy_threads, &tid) == 0 && busy)
		__sync_fetch_and_sub(busy, 1);
	return 0;
}

/* The task is freed (after it was reaped): a marked process's entry goes. */
SEC(PC_TP_SEC(sched, sched_process_free))
int common_task_free(struct bpf_raw_tracepoint_args *ctx)
{
	struct task_struct *p = (struct task_struct *)ctx->args[0];
	__u32 pid = BPF_CORE_READ(p, pid), tgid = BPF_CORE_READ(p, tgid);
	__u32 *flags;

	if (pid != tgid)
		return 0;
	flags = bpf_map_lookup_elem(&tracked, &tgid);
	if (flags && (*flags & PC_TRACK_EXITED))
		bpf_map_delete_elem(&tracked, &tgid);
	return 0;
}
