/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every part of the tracing object shares.  bpf/common.bpf.c defines
 * it; bpf/mremap.bpf.c, filemap.bpf.c and contpte.bpf.c see it through
 * this header as extern, and `bpftool gen object` links the parts into one
 * object (as the kernel's selftests/bpf/progs/linked_maps*.c and
 * linked_funcs*.c are): the target filter, the counters, histograms and
 * statistics, the disturbance generation, the violation ring buffer, and
 * the one helper that counts a verdict and sends a violation.
 */
#ifndef PTECHECK_COMMON_BPF_H
#define PTECHECK_COMMON_BPF_H

#include "kernel_types.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include <ptecheck/events.h>
#include <ptecheck/counts.h>
#include <ptecheck/syscall_nr.h>
#include <ptecheck/sample.h>
#include <ptecheck/lru.h>
#include <ptecheck/sys_parts.h>

/* Re-bounds an index after a check the compiler may have merged away. */
#define PC_BOUND(var, mask) asm volatile("%0 &= " #mask : "+r"(var))

#ifdef PC_FAULT_INJECT
#include <ptecheck/fault.h>
extern const volatile __u32 fault_refuse; /* enum pc_fault_point bits */
/* A read past the stack frame, which every verifier refuses, where the
   test asked for it; verified only then (fault_refuse is read-only). */
#define PC_FAULT_POINT(point)                                                                      \
	do {                                                                                       \
		if (fault_refuse & (point))                                                        \
			asm volatile("r0 = *(u64 *)(r10 + 8)" ::: "r0");                           \
	} while (0)
#else
#define PC_FAULT_POINT(point) ((void)0)
#endif

/* Set by the loader before load (skeleton rodata). */
extern const volatile __u32 filter_mode; /* enum pc_filter_mode */
extern const volatile char filter_comm[16];
extern const volatile __u32 hist_by;	  /* enum pc_hist_by */
extern const volatile __u32 sample_every; /* --sample N: judge 1 in N windows (0, 1: all) */
/* Set where the kernel dumps its trace buffer on an oops (the loader reads
   kernel.ftrace_dump_on_oops): see pc_witness(). */
extern const volatile bool crash_witness;
/* The page-table walk's calibration (bpf/ptwalk.h), for every path that
   walks: the direct map's base, the end of RAM, the paging levels. */
extern const volatile __u64 walk_base, walk_phys_limit;
extern const volatile __u32 walk_levels;
/* The vmemmap and the size of a struct page, where the calibration found
   them (0 otherwise): bpf/folio.bpf.h's readers take them. */
extern const volatile __u64 walk_vmemmap, walk_page_size;
/* The PMD entry covering addr under the pgd at pgd_va, read there
   (PC_WALK_* of bpf/ptwalk.h).  A global function, verified once on its
   own: the walker branches a lot, its callers stay small. */
int pc_walk_pmd(__u64 pgd_va, __u64 addr, __u64 *pmd);

/* Reads bytes of the PTE table at physical table_phys, from entry idx:
   0, or -1 when it lies past RAM or the read faulted. */
static __always_inline int pc_read_ptes(__u64 table_phys, __u64 idx, void *dst, __u32 bytes)
{
	if (table_phys >= walk_phys_limit)
		return -1;
	return bpf_probe_read_kernel(dst, bytes, (void *)(walk_base + table_phys + idx * 8)) ? -1
											     : 0;
}

/* Tracked processes: key tgid, value PC_TRACK_* flags. */
struct pc_tracked_map {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u32);
};
extern struct pc_tracked_map tracked SEC(".maps");

/* PC_FILTER_CGROUP: [0] is the cgroup (a directory's fd, set by the loader). */
struct pc_cgroup_map {
	__uint(type, BPF_MAP_TYPE_CGROUP_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
};
extern struct pc_cgroup_map filter_cgroup SEC(".maps");

/* PC_HIST__COUNT histograms of PC_HIST_SLOTS slots each. */
struct pc_hists_map {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, PC_HIST__COUNT *PC_HIST_SLOTS);
	__type(key, __u32);
	__type(value, __u64);
};
extern struct pc_hists_map hists SEC(".maps");

/* The exact sum of the values each histogram took (ptecheck export's
   _sum: the slots above PC_HIST_LINEAR_MAX do not keep it), keyed or not. */
struct pc_hist_sums_map {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, PC_HIST__COUNT);
	__type(key, __u32);
	__type(value, __u64);
};
extern struct pc_hist_sums_map hist_sums SEC(".maps");

/* --by: the histograms per key (include/ptecheck/events.h); the loader
   shrinks it to one entry without --by. */
struct pc_hist_keys_map {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PC_HIST_KEYS_MAX);
	__type(key, struct pc_hist_key);
	__type(value, struct pc_hist_keyed);
};
extern struct pc_hist_keys_map hist_keys SEC(".maps");

/* Adds n to slot idx (hist * PC_HIST_SLOTS + slot) of the current task's
   key; 0 when the key has no room (the caller counts it unkeyed).
   bpf/common.bpf.c. */
int pc_hist_add_keyed(__u32 idx, __u64 n);

/* --sample: each CPU's count of the windows of each kind (ptecheck/sample.h). */
struct pc_sample_map {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, PC_SAMPLE__COUNT);
	__type(key, __u32);
	__type(value, struct pc_sample_state);
};
extern struct pc_sample_map sample_seq SEC(".maps");

/*
 * Whether the window of this kind beginning now is judged.  Called where a
 * check's window begins, after the target filter: an unsampled window
 * reads no page table and counts no verdict, its histograms are still
 * fed.  Without --sample the verifier drops all but the constant.
 */
static __always_inline bool pc_sampled(__u32 kind)
{
	struct pc_sample_state *s;

	if (sample_every <= 1)
		return true;
	s = bpf_map_lookup_elem(&sample_seq, &kind);
	return !s || pc_sample_next(s, sample_every, bpf_get_prandom_u32());
}

/* Verdict counters per (check, tier). */
struct pc_counts_map {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, PC_CHK__COUNT *PC_TIER__COUNT);
	__type(key, __u32);
	__type(value, struct pc_check_counts);
};
extern struct pc_counts_map counts SEC(".maps");

struct pc_stats_map {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, PC_STAT__COUNT);
	__type(key, __u32);
	__type(value, __u64);
};
extern struct pc_stats_map stats SEC(".maps");

/* Slot 0: the generation, bumped by every event that may change page
 * tables behind a task's back.  Slot 1: how many long operations (reclaim,
 * compaction, migration, swapoff, process_madvise) are in progress; while
 * one is, no window is quiet.  Read by userspace oracles too. */
struct pc_disturb_map {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u64);
};
extern struct pc_disturb_map disturb SEC(".maps");

/* The threads inside a long operation: begin and end pair by thread, so
 * an end whose begin came before we attached changes nothing. */
struct pc_busy_map {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u32);
};
extern struct pc_busy_map busy_threads SEC(".maps");

/* Violations with their evidence (struct pc_violation_event): 3276 of
   them before userspace reads any. */
struct pc_events_map {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1024 * 1024);
};
extern struct pc_events_map events SEC(".maps");

/* A violation on its way to the ring buffer, and how many of them its
   owner (a call, or a thread's hook state) has sent so far. */
struct pc_pending {
	__u32 events_sent;
	__u32 check, verdict;
	__u64 old_addr, new_addr, expected, seen; /* as in pc_violation_event */
};

/*
 * What makes a violation of one window inconclusive.  Read only once a
 * violation is found: disturb_gen() bumps the generation while a span is
 * open, and the judges sit on per-entry paths.
 */
struct pc_window {
	__u64 gen;   /* the disturbance generation when the window opened */
	__u32 tier;  /* enum pc_tier of its verdicts and events */
	__u32 flags; /* PC_WIN_* */
};
#define PC_WIN_UNRELIABLE (1U << 0) /* known already: disturbed, shared mm or not enforced */
#define PC_WIN_GEN	  (1U << 1) /* disturbed if the generation is no longer gen */
#define PC_WIN_MM	  (1U << 2) /* unreliable if another user shares the mm now */
#define PC_WIN_YOUNG	  (1U << 3) /* no page-table lock: aging clears young bits unseen */

/* Counts a violation (pv filled in) as inconclusive or as a violation and
   sends it.  bpf/common.bpf.c; 1 when it counted a violation. */
int pc_judge_violation(struct pc_check_counts *c, struct pc_pending *pv, const struct pc_window *w);

/*
 * The one verdict counter of every check (include/ptecheck/counts.h): not
 * applicable, inconclusive in a window known unreliable, else checked,
 * and a violation sent with its evidence unless it proves nothing (the
 * rare case, out of line).  old_addr .. seen mean what they mean in
 * struct pc_violation_event for this check.
 */
static __always_inline void pc_judge(struct pc_check_counts *c, struct pc_pending *pv,
				     const struct pc_window *w, __u32 check, int verdict,
				     __u64 old_addr, __u64 new_addr, __u64 expected, __u64 seen)
{
	if (!pc_count_verdict(c, verdict, w->flags & PC_WIN_UNRELIABLE))
		return;
	pv->check = check;
	pv->verdict = verdict;
	pv->old_addr = old_addr;
	pv->new_addr = new_addr;
	pv->expected = expected;
	pv->seen = seen;
	pc_judge_violation(c, pv, w);
}

/*
 * raw_syscalls:sys_enter (args: regs, nr) and sys_exit (regs, ret): one
 * raw tracepoint pair serves every syscall a part of the object follows
 * (ptecheck/syscall_nr.h), where an event per syscall would be a perf
 * event whose detach waits for grace periods.  A 32-bit (compat) syscall
 * is numbered from another table: never taken for a 64-bit one.
 */
static __always_inline bool pc_sys_compat(const struct pt_regs *regs)
{
#if defined(__TARGET_ARCH_x86)
	struct task_struct *t = (struct task_struct *)bpf_get_current_task();

	(void)regs;
	return BPF_CORE_READ(t, thread_info.status) & 0x0002; /* TS_COMPAT */
#elif defined(__TARGET_ARCH_arm64)
	__u64 pstate = 0;

	bpf_probe_read_kernel(&pstate, sizeof(pstate), &regs->user_regs.pstate);
	return pstate & 0x10; /* PSR_MODE32_BIT: an AArch32 task */
#endif
}

/* The number of the syscall entered (at sys_enter) or exited from (at
   sys_exit); a match counts only if pc_sys_native() too. */
static __always_inline long pc_sys_enter_nr(const struct bpf_raw_tracepoint_args *ctx)
{
	return (long)ctx->args[1];
}

/* The syscall a task's entry registers say it is in (negative: none). */
static __always_inline long pc_regs_syscall_nr(const struct pt_regs *regs)
{
	long nr = -1;

#if defined(__TARGET_ARCH_x86)
	bpf_probe_read_kernel(&nr, sizeof(nr), &regs->orig_rax);
#elif defined(__TARGET_ARCH_arm64)
	__s32 n = -1;

	bpf_probe_read_kernel(&n, sizeof(n), &regs->syscallno);
	nr = n;
#endif
	return nr;
}

static __always_inline long pc_sys_exit_nr(const struct bpf_raw_tracepoint_args *ctx)
{
	return pc_regs_syscall_nr((const struct pt_regs *)ctx->args[0]);
}

/* A 64-bit syscall, whose number is of the table above. */
static __always_inline bool pc_sys_native(const struct bpf_raw_tracepoint_args *ctx)
{
	return !pc_sys_compat((const struct pt_regs *)ctx->args[0]);
}

/*
 * The parts' handlers at raw_syscalls:sys_enter and sys_exit, each in its
 * part's file, called by the one program at each (bpf/syscalls.bpf.c) with
 * the syscall's number: each returns at once for a syscall not its own,
 * and checks pc_sys_native() for its own.  Global functions: the verifier
 * checks each once, on its own (checked in the caller's context, the
 * states of one multiplied those of the next: arm64 7's went past a
 * million instructions); each loads on any kernel, as it did as a program.
 */
int pc_disturb_sys_enter(struct bpf_raw_tracepoint_args *ctx, long nr);
/* Set by the loader before load (bpf/syscalls.bpf.c): false for a part
   with nothing to do at the syscalls here, or whose handler the kernel
   refused (the session loads again without it).  The handler checks its
   own too: an older kernel verifies every global function, called or not,
   and one turned off must then be trivial to verify. */
int pc_disturb_sys_exit(struct bpf_raw_tracepoint_args *ctx, long nr);
/* Each part of include/ptecheck/sys_parts.h: its switch and handlers. */
#define PC_SYS_DECL(NAME, name, HOOKS, prefix, prefix2, what)                                      \
	extern const volatile bool sys_##name;                                                     \
	PC_SYS_AT_ENTER_##HOOKS(                                                                   \
		int pc_##name##_sys_enter(struct bpf_raw_tracepoint_args *ctx, long nr);)          \
		PC_SYS_AT_EXIT_##HOOKS(                                                            \
			int pc_##name##_sys_exit(struct bpf_raw_tracepoint_args *ctx, long nr);)
PC_SYS_PARTS(PC_SYS_DECL)
#undef PC_SYS_DECL

/* Argument i (0..5) of the syscall, from the task's entry registers
   (unchanged while the syscall runs). */
static __always_inline __u64 pc_regs_arg(const struct pt_regs *regs, int i)
{
	const void *at;
	__u64 v = 0;

#if defined(__TARGET_ARCH_x86)
	at = i == 0   ? (const void *)&regs->rdi
	     : i == 1 ? (const void *)&regs->rsi
	     : i == 2 ? (const void *)&regs->rdx
	     : i == 3 ? (const void *)&regs->r10
	     : i == 4 ? (const void *)&regs->r8
		      : (const void *)&regs->r9;
#elif defined(__TARGET_ARCH_arm64)
	at = &regs->user_regs.regs[i & 7];
#endif
	bpf_probe_read_kernel(&v, sizeof(v), at);
	return v;
}

/* At sys_enter: argument i (0..5) of the syscall. */
static __always_inline __u64 pc_sys_arg(const struct bpf_raw_tracepoint_args *ctx, int i)
{
	return pc_regs_arg((const struct pt_regs *)ctx->args[0], i);
}

/*
 * At sys_enter: the range [*start, *start + *len) of a syscall that takes
 * (addr, len) as its first two arguments, len rounded up to pages as
 * munmap, mprotect and madvise round it.  False where the kernel refuses
 * it (EINVAL) or does nothing: an unaligned start, an empty or wrapping
 * range.
 */
static __always_inline bool pc_sys_range(const struct bpf_raw_tracepoint_args *ctx, __u64 *start,
					 __u64 *len)
{
	*start = pc_sys_arg(ctx, 0);
	*len = (pc_sys_arg(ctx, 1) + PC_PAGE_SIZE - 1) & ~(PC_PAGE_SIZE - 1);
	return !(*start & (PC_PAGE_SIZE - 1)) && *len && *start + *len >= *start;
}

static __always_inline __u32 pc_tid(void)
{
	return (__u32)bpf_get_current_pid_tgid();
}

extern __u32 witnessed; /* crash-witness lines printed */

/* With crash_witness, one line of a verdict judged on entry (events.h);
   pruned by the verifier otherwise (crash_witness is read-only). */
static __always_inline void pc_witness(__u32 check, int verdict, __u32 tier, __u64 addr,
				       __u64 expected, __u64 seen)
{
	if (!crash_witness || witnessed >= PC_WITNESS_MAX)
		return;
	__sync_fetch_and_add(&witnessed, 1); /* a cap: CPUs may overshoot it a little */
	bpf_printk(PC_WITNESS_PRINT, check, verdict, tier,
		   (__u32)(bpf_get_current_pid_tgid() >> 32), addr, expected, seen);
}

static __always_inline void stat_add(__u32 id, __u64 n)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &id);

	if (v)
		*v += n;
}

/* Adds value * n to the sum of histogram hist. */
static __always_inline void hist_sum_add(__u32 hist, __u64 value, __u64 n)
{
	__u64 *sum = bpf_map_lookup_elem(&hist_sums, &hist);

	if (sum)
		__sync_fetch_and_add(sum, value * n);
}

/* Adds n to the slot of value in one histogram. */
static __always_inline void hist_add_n(__u32 hist, __u32 kind, __u64 value, __u64 n)
{
	__u32 key = hist * PC_HIST_SLOTS + pc_hist_slot(kind, value);
	__u64 *v;

	hist_sum_add(hist, value, n);
	/* hist_by is read-only data: without --by the verifier drops the
	   branch, and what runs is the array add alone. */
	if (hist_by && pc_hist_add_keyed(key, n))
		return;
	v = bpf_map_lookup_elem(&hists, &key);
	if (v)
		__sync_fetch_and_add(v, n);
}

static __always_inline void hist_add(__u32 hist, __u32 kind, __u64 value)
{
	__u32 key = hist * PC_HIST_SLOTS + pc_hist_slot(kind, value);
	__u64 *sum = bpf_map_lookup_elem(&hist_sums, &hist), *v;

	/* Per-CPU: a plain add, as the slot's below. */
	if (sum)
		*sum += value;
	if (hist_by && pc_hist_add_keyed(key, 1))
		return;
	v = bpf_map_lookup_elem(&hists, &key);
	if (v)
		*v += 1;
}

/* Adds a window's (or a batch's) verdict counts to the counters. */
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

/* Returns the track flags + 1 when the current task is a target, else 0. */
static __always_inline __u32 target_flags(void)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	__u32 *flags;

	if (filter_mode == PC_FILTER_ALL)
		return 1;
	if (filter_mode == PC_FILTER_CGROUP)
		return bpf_current_task_under_cgroup(&filter_cgroup, 0) == 1;
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

/* Reads entry k of the page table entries at ptep: 0, or a read error. */
static __always_inline long read_entry(__u64 ptep, __u32 k, __u64 *raw)
{
	return bpf_probe_read_kernel(raw, sizeof(*raw), (void *)(ptep + (__u64)k * 8));
}

/* A map of per-thread state (key: thread id), for thread_state(). */
#define PC_THREAD_MAP(name, value_type)                                                            \
	struct {                                                                                   \
		__uint(type, BPF_MAP_TYPE_HASH);                                                   \
		__uint(max_entries, 1024);                                                         \
		__type(key, __u32);                                                                \
		__type(value, value_type);                                                         \
	} name SEC(".maps")

/*
 * The current thread's state in a per-thread map (key: thread id; fresh:
 * a zeroed value).  Entry hooks (create) decide again each time whether
 * the task is a target, so a thread id reused by another process never
 * inherits a state, and get its track flags in *track; exit hooks only
 * continue what an entry began.
 */
static __always_inline void *thread_state(void *map, const void *fresh, bool create, __u32 *track)
{
	__u32 tid = pc_tid(), flags;
	void *st;

	if (!create)
		return bpf_map_lookup_elem(map, &tid);
	flags = target_flags();
	if (!flags)
		return NULL;
	st = bpf_map_lookup_elem(map, &tid);
	if (!st) {
		bpf_map_update_elem(map, &tid, fresh, BPF_NOEXIST);
		st = bpf_map_lookup_elem(map, &tid);
	}
	*track = flags - 1;
	return st;
}

/*
 * A per-thread state too large for the stack (a page table's worth of
 * PTEs, say): an LRU hash keyed by thread id, where a thread killed
 * inside a call leaves an entry the next ones push out, and its zeroed
 * template, an array of one.  Per thread, never per CPU: a tracing
 * program may be preempted, and another task's on the same CPU would
 * share a per-CPU value.
 */
#define PC_THREAD_BIG_MAP(name, value_type, entries)                                               \
	struct {                                                                                   \
		__uint(type, BPF_MAP_TYPE_LRU_HASH);                                               \
		__uint(max_entries, entries);                                                      \
		__type(key, __u32);                                                                \
		__type(value, value_type);                                                         \
	} name SEC(".maps");                                                                       \
	struct {                                                                                   \
		__uint(type, BPF_MAP_TYPE_ARRAY);                                                  \
		__uint(max_entries, 1);                                                            \
		__type(key, __u32);                                                                \
		__type(value, value_type);                                                         \
	} name##_template SEC(".maps")

/* The entry of key in a PC_THREAD_BIG_MAP (map, and its template tmpl),
   made zeroed when missing; NULL, counted as state_full, when there is no
   room. */
static __always_inline void *pc_big_state(void *map, void *tmpl, __u32 *key)
{
	__u32 zero = 0;
	void *st = bpf_map_lookup_elem(map, key), *fresh;

	if (st)
		return st;
	fresh = bpf_map_lookup_elem(tmpl, &zero);
	if (fresh)
		bpf_map_update_elem(map, key, fresh, BPF_NOEXIST);
	st = bpf_map_lookup_elem(map, key);
	if (!st)
		stat_add(PC_STAT_STATE_FULL, 1);
	return st;
}

/* Other users of the current task's mm (threads, or a process sharing it). */
static __always_inline bool mm_shared(void)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();

	return BPF_CORE_READ(task, mm, mm_users.counter) > 1;
}

/* Whether another thread of the current task, or another process, may
   change its page tables while it is in a call: a window not quiet. */
static __always_inline bool pc_task_shared(void)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();

	return BPF_CORE_READ(task, signal, nr_threads) > 1 || mm_shared();
}

#endif
