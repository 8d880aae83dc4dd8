// SPDX-License-Identifier: GPL-2.0
/*
 * The arm64 contiguous-PTE path (v6.9+).  kprobes only: these functions
 * pass or return pte_t by value, which BPF trampolines refuse (the loader
 * finds that out by trying, see trace/hooks.c).
 *
 *   contpte_ptep_get(ptep, orig)        gather: the block's bits at entry
 *                                       are in the result (contpte/gather)
 *   __contpte_try_fold(mm, addr, ptep, pte)   fold: all 16 CONT, consecutive,
 *                                       one permission, or none; once folded,
 *                                       no bit of the block lost (contpte/fold)
 *   __contpte_try_unfold(mm, addr, ptep, pte) unfold: no bit of the block lost
 *   contpte_test_and_clear_young_ptes(vma, addr, ptep, nr)
 *                                       young reported when an entry was young
 *
 * Race rules (docs/checks.md): fold, unfold and clear-young run under the
 * page-table lock, so between entry and return only hardware changes the
 * block and it only sets bits.  ptep_get() is also called without the
 * lock, where a young bit may be cleared meanwhile, so the gather is
 * judged only where the lock is held: where the lock word can be read
 * (cp_method PC_CP_METHOD_PTL, calibrated by trace/contpte_ptl.c), in
 * reads by a caller known to hold the lock of the block's table whose
 * lock word reads held at entry and return; elsewhere inside a tracked
 * task's mlock/munlock/madvise calls (whose page walks take the lock).
 * Other calls are counted not-applicable.  A disturbed window (reclaim,
 * migration, ...) or a shared mm makes a violation inconclusive; a read
 * proven under the lock ignores the mm's users (smaps and pagemap hold
 * one themselves while they walk).
 */
#include "common.bpf.h"
#include <ptecheck/tp_sec.h>

#define PC_CONT_MASK (PC_CONT_PTES * 8ULL - 1) /* a block's 16 entries: 128 bytes */

/* Set by the loader (trace/contpte_ptl.c): how the gather is judged, the
   page-table lock's place, and the address ranges of the locked callers
   (PC_CONTPTE_LOCKED_CALLERS) with their contexts. */
const volatile __u32 cp_method = PC_CP_METHOD_SYSCALLS;
const volatile __u32 cp_ptl_mode;
const volatile __u64 cp_ptl_base, cp_ptl_off, cp_page_size;
const volatile __u32 cp_n_callers;
const volatile __u64 cp_caller_lo[PC_CP_MAX_CALLERS], cp_caller_hi[PC_CP_MAX_CALLERS];
const volatile __u32 cp_caller_ctx[PC_CP_MAX_CALLERS];

/* The reads of the locked callers, per context (enum pc_cp_context);
   other callers' reads are counted not applicable. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, PC_CP_CTX__COUNT);
	__type(key, __u32);
	__type(value, struct pc_cp_reads);
} cp_reads SEC(".maps");

/* A context refuted once is judged no more (any CPU may set it). */
__u32 cp_refuted[PC_CP_CTX__COUNT];

/* A fold or an unfold in flight: its block and the block's bits at entry. */
enum { CP_CONV_FOLD, CP_CONV_UNFOLD, CP_CONV__COUNT };

struct cp_conv {
	__u64 block;
	struct pc_gather gather;
	bool pending;
};

struct cp_state {
	bool locked_ctx; /* inside mlock/munlock/madvise of a tracked task */
	__u64 gen;	 /* disturbance counter at entry */
	/* contpte_ptep_get */
	bool get_pending;
	struct pc_gather get_gather;
	__u64 get_orig, get_ptep;
	int get_held; /* the block's lock word at entry: 1 held, 0 free, -1 unreadable */
	/* __contpte_try_fold / __contpte_try_unfold */
	struct cp_conv conv[CP_CONV__COUNT];
	__u32 judging; /* the conv cp_convert_entry judges */
	/* contpte_test_and_clear_young_ptes */
	bool young_pending;
	__u8 young_seen;
	__u64 young_ptep;
	__u32 young_nr;
	/* working state of the block loops */
	__u64 block_base;
	struct pc_gather loop_gather;
	struct pc_fold_state fold;
	__u32 reads; /* entries the kernel's gather loop reads (derived) */
	__s32 first_young, first_dirty;
	struct pc_check_counts c[3]; /* gather, fold, clear-young */
	struct pc_pending pv;	     /* the violation to send */
};

PC_THREAD_MAP(cp_states, struct cp_state);

/* Entry side: a state for a tracked task (thread_state in common.bpf.h). */
static __always_inline struct cp_state *cp_get(bool create)
{
	struct cp_state fresh = {};
	__u32 track; /* no contpte check is enforced per scenario */

	return thread_state(&cp_states, &fresh, create, &track);
}

/* A disturbed window, or a shared mm, makes a violation inconclusive. */
#define CP_WIN (PC_WIN_GEN | PC_WIN_MM)

/* One verdict of check, counted at once (these hooks have no call whose
   end would flush them).  where: the PTE's kernel address; flags: the
   window's PC_WIN_*. */
static __always_inline __u64 cp_verdict(struct cp_state *st, __u32 check, int verdict, __u64 where,
					__u64 expected, __u64 seen, __u32 flags)
{
	struct pc_window w = {.gen = st->gen, .tier = PC_TIER_KPROBE, .flags = flags};
	struct pc_check_counts c = {};

	/* A window already disturbed judges nothing, a pass no more than a violation. */
	if ((flags & PC_WIN_GEN) && disturb_gen() != st->gen)
		w.flags |= PC_WIN_UNRELIABLE;
	pc_judge(&c, &st->pv, &w, check, verdict, where, where, expected, seen);
	add_counts(check, PC_TIER_KPROBE, &c);
	return c.violations;
}

/* Reads the 16 entries of the block at st->block_base into loop_gather/fold. */
static long cp_block_entry(__u32 i, void *data)
{
	__u32 *tid = data;
	struct cp_state *st = bpf_map_lookup_elem(&cp_states, tid);
	__u64 raw = 0;
	struct pc_pte e;

	if (!st || i >= PC_CONT_PTES)
		return 1;
	if (read_entry(st->block_base, i, &raw)) {
		st->loop_gather.first_present = 0;
		st->fold.verdict = PC_NOT_APPLICABLE;
		return 1;
	}
	e = pc_decode_pte(raw);
	pc_gather_add(&st->loop_gather, e);
	pc_fold_add(&st->fold, e);
	if (e.kind == PC_PTE_PRESENT) {
		if (e.young && st->first_young < 0)
			st->first_young = i;
		if (e.dirty && st->first_dirty < 0)
			st->first_dirty = i;
	}
	return 0;
}

/* Loads the block around ptep; fills loop_gather, fold and reads. */
static __always_inline void cp_read_block(struct cp_state *st, __u64 ptep)
{
	__u32 tid = pc_tid();

	st->block_base = ptep & ~PC_CONT_MASK;
	__builtin_memset(&st->loop_gather, 0, sizeof(st->loop_gather));
	__builtin_memset(&st->fold, 0, sizeof(st->fold));
	st->first_young = -1;
	st->first_dirty = -1;
	bpf_loop(PC_CONT_PTES, cp_block_entry, &tid, 0);
	/* The kernel's loop stops once it has seen both bits. */
	if (st->first_young < 0 || st->first_dirty < 0)
		st->reads = PC_CONT_PTES;
	else
		st->reads =
			(st->first_young > st->first_dirty ? st->first_young : st->first_dirty) + 1;
}

/* ---- contpte_ptep_get ----------------------------------------------------- */

/* The lock word of the page table holding ptep: 1 held (a qspinlock taken
   or contended), 0 free, -1 not readable. */
static __always_inline int cp_lock_held(__u64 ptep)
{
	__u64 lock = pc_ptdesc_of(cp_ptl_base, cp_page_size, ptep) + cp_ptl_off;
	__u32 word = 0;

	if (cp_ptl_mode == PC_PTL_POINTER &&
	    bpf_probe_read_kernel(&lock, sizeof(lock), (void *)lock))
		return -1;
	if (bpf_probe_read_kernel(&word, sizeof(word), (void *)lock))
		return -1;
	return word != 0;
}

/* The context of the caller returned to, or -1 when not a locked caller. */
static __always_inline int cp_caller_context(__u64 ret_ip)
{
	for (__u32 i = 0; i < PC_CP_MAX_CALLERS && i < cp_n_callers; i++)
		if (ret_ip >= cp_caller_lo[i] && ret_ip < cp_caller_hi[i])
			return cp_caller_ctx[i] < PC_CP_CTX__COUNT ? (int)cp_caller_ctx[i] : -1;
	return -1;
}

static __always_inline struct pc_cp_reads *cp_ctx_slot(__u32 slot)
{
	return bpf_map_lookup_elem(&cp_reads, &slot);
}

/* Whether this call is judged under PC_CP_METHOD_PTL; counts it.  *ctx:
   the context of a locked caller, else -1. */
static __always_inline bool cp_ptl_judged(struct cp_state *st, __u64 ret_ip, int *ctx)
{
	int c = cp_caller_context(ret_ip), kind;
	struct pc_cp_reads *n;

	*ctx = c;
	if (c < 0 || c >= PC_CP_CTX__COUNT)
		return false;
	n = cp_ctx_slot(c);
	if (!n)
		return false;
	kind = cp_refuted[c] ? PC_CP_READ_REFUTED
			     : pc_cp_read_kind(true, st->get_held, cp_lock_held(st->get_ptep));
	if (kind == PC_CP_READ_REFUTED) {
		__sync_fetch_and_add(&n->refuted, 1);
		cp_refuted[c] = 1;
	} else if (kind == PC_CP_READ_UNREADABLE) {
		__sync_fetch_and_add(&n->unreadable, 1);
	}
	return kind == PC_CP_READ_LOCKED;
}

SEC("kprobe/contpte_ptep_get")
int BPF_KPROBE(contpte_get_kprobe, __u64 *ptep, __u64 orig)
{
	struct cp_state *st = cp_get(true);

	stat_add(PC_STAT_CP_GET, 1);
	if (!st)
		return 0;
	/* Unsampled: no block read, nor the reads histogram it gives. */
	st->get_pending = false;
	if (!pc_sampled(PC_SAMPLE_CP_GET))
		return 0;
	st->gen = disturb_gen();
	st->get_orig = orig;
	st->get_ptep = (__u64)ptep;
	st->get_held = cp_method == PC_CP_METHOD_PTL ? cp_lock_held((__u64)ptep) : -1;
	cp_read_block(st, (__u64)ptep);
	st->get_gather = st->loop_gather;
	st->get_pending = true;
	hist_add(PC_HIST_CP_GATHER_READS, PC_HIST_LINLOG, st->reads);
	return 0;
}

/* The kretprobe's instruction pointer is the return address into the
   caller (the rethook sets it before the handlers run). */
SEC("kretprobe/contpte_ptep_get")
int BPF_KRETPROBE(contpte_get_kretprobe, __u64 ret)
{
	struct cp_state *st = cp_get(false);
	struct pc_cp_reads *n;
	int v, where = -1;
	__u64 violations;
	bool judged;

	if (!st || !st->get_pending)
		return 0;
	st->get_pending = false;
	judged = cp_method == PC_CP_METHOD_PTL ? cp_ptl_judged(st, PT_REGS_IP(ctx), &where)
					       : st->locked_ctx;
	v = pc_gather_result(&st->get_gather, pc_decode_pte(st->get_orig), pc_decode_pte(ret));
	/* Without the lock a young bit may be cleared meanwhile: such calls
	   are not judged at all. */
	if (!judged)
		v = PC_NOT_APPLICABLE;
	/* A read proven under the lock is safe from other threads too: the
	   mm's users (the /proc readers' own mmget among them) do not matter. */
	violations = cp_verdict(st, PC_CHK_CP_GATHER, v, st->get_ptep,
				((__u64)st->get_gather.any_young << 1) | st->get_gather.any_dirty,
				ret, cp_method == PC_CP_METHOD_PTL ? PC_WIN_GEN : CP_WIN);
	n = judged && where >= 0 ? cp_ctx_slot(where) : NULL;
	if (n) {
		__sync_fetch_and_add(&n->judged, 1);
		__sync_fetch_and_add(&n->violations, violations);
	}
	return 0;
}

/* ---- fold and unfold -------------------------------------------------------- */

/* Fold and unfold act on user mms only (mm_is_user): skip others. */
static __always_inline bool cp_own_mm(void *mm)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();

	return mm && (__u64)mm == (__u64)BPF_CORE_READ(task, mm);
}

/* The entry of a fold or an unfold: the block around ptep read as it is
   before contpte_convert; NULL for another mm. */
static __always_inline struct cp_state *cp_convert_begin(void *mm, __u64 *ptep, __u32 which)
{
	struct cp_state *st = cp_own_mm(mm) ? cp_get(true) : NULL;

	if (!st || which >= CP_CONV__COUNT)
		return NULL;
	st->conv[which].pending = false;
	if (!pc_sampled(PC_SAMPLE_CP_CONVERT))
		return NULL;
	st->gen = disturb_gen();
	cp_read_block(st, (__u64)ptep);
	st->conv[which].block = st->block_base;
	st->conv[which].gather = st->loop_gather;
	st->conv[which].pending = true;
	return st;
}

/* The return of a fold or an unfold: its state if one is pending. */
static __always_inline struct cp_state *cp_convert_end(__u32 which)
{
	struct cp_state *st = cp_get(false);

	if (!st || which >= CP_CONV__COUNT || !st->conv[which].pending)
		return NULL;
	st->conv[which].pending = false;
	st->judging = which;
	return st;
}

/* contpte_convert's promise, entry k of the block judged: every bit the
   block had at entry kept. */
static long cp_convert_entry(__u32 k, void *data)
{
	__u32 *tid = data;
	struct cp_state *st = bpf_map_lookup_elem(&cp_states, tid);
	struct cp_conv *cv;
	__u64 raw = 0;

	if (!st || k >= PC_CONT_PTES || st->judging >= CP_CONV__COUNT)
		return 1;
	cv = &st->conv[st->judging];
	if (read_entry(cv->block, k, &raw))
		return 1;
	cp_verdict(st, PC_CHK_CP_FOLD, pc_convert_entry(&cv->gather, k, pc_decode_pte(raw)),
		   cv->block + (__u64)k * 8,
		   ((__u64)cv->gather.any_young << 1) | cv->gather.any_dirty, raw, CP_WIN);
	return 0;
}

SEC("kprobe/__contpte_try_fold")
int BPF_KPROBE(contpte_fold_kprobe, void *mm, unsigned long addr, __u64 *ptep)
{
	cp_convert_begin(mm, ptep, CP_CONV_FOLD);
	return 0;
}

SEC("kretprobe/__contpte_try_fold")
int BPF_KRETPROBE(contpte_fold_kretprobe)
{
	struct cp_state *st = cp_convert_end(CP_CONV_FOLD);
	__u32 tid = pc_tid();
	__u64 block;
	int v;

	if (!st)
		return 0;
	block = st->conv[CP_CONV_FOLD].block;
	cp_read_block(st, block);
	v = pc_fold_result(&st->fold);
	if (v != PC_NOT_APPLICABLE)
		stat_add(PC_STAT_CP_FOLD, 1);
	cp_verdict(st, PC_CHK_CP_FOLD, v, block, st->fold.seen, st->fold.cont, CP_WIN);
	/* Folded: the bits the 16 entries had apart are in every entry now. */
	if (v == PC_OK)
		bpf_loop(PC_CONT_PTES, cp_convert_entry, &tid, 0);
	return 0;
}

SEC("kprobe/__contpte_try_unfold")
int BPF_KPROBE(contpte_unfold_kprobe, void *mm, unsigned long addr, __u64 *ptep)
{
	struct cp_state *st = cp_convert_begin(mm, ptep, CP_CONV_UNFOLD);

	/* Judged only where the block was folded at entry. */
	if (st)
		st->conv[CP_CONV_UNFOLD].pending = st->fold.cont == PC_CONT_PTES;
	return 0;
}

SEC("kretprobe/__contpte_try_unfold")
int BPF_KRETPROBE(contpte_unfold_kretprobe)
{
	struct cp_state *st = cp_convert_end(CP_CONV_UNFOLD);
	__u32 tid = pc_tid();

	if (!st)
		return 0;
	stat_add(PC_STAT_CP_UNFOLD, 1);
	bpf_loop(PC_CONT_PTES, cp_convert_entry, &tid, 0);
	return 0;
}

/* ---- contpte_test_and_clear_young_ptes ------------------------------------- */

static long cp_young_entry(__u32 k, void *data)
{
	__u32 *tid = data;
	struct cp_state *st = bpf_map_lookup_elem(&cp_states, tid);
	__u64 raw = 0;

	if (!st || k >= st->young_nr)
		return 1;
	if (read_entry(st->young_ptep, k, &raw))
		return 1;
	st->young_seen |= pc_decode_pte(raw).young;
	return 0;
}

SEC("kprobe/contpte_test_and_clear_young_ptes")
int BPF_KPROBE(contpte_young_kprobe, void *vma, unsigned long addr, __u64 *ptep, unsigned int nr)
{
	__u32 tid = pc_tid();
	struct cp_state *st = cp_get(true);

	stat_add(PC_STAT_CP_YOUNG, 1);
	if (!st)
		return 0;
	hist_add(PC_HIST_CP_YOUNG_NR, PC_HIST_LINLOG, nr);
	st->young_pending = false;
	if (!pc_sampled(PC_SAMPLE_CP_YOUNG))
		return 0;
	st->gen = disturb_gen();
	st->young_ptep = (__u64)ptep;
	st->young_nr = nr < PC_PTRS_PER_TABLE ? nr : PC_PTRS_PER_TABLE;
	st->young_seen = 0;
	bpf_loop(st->young_nr, cp_young_entry, &tid, 0);
	st->young_pending = true;
	return 0;
}

SEC("kretprobe/contpte_test_and_clear_young_ptes")
int BPF_KRETPROBE(contpte_young_kretprobe, int ret)
{
	struct cp_state *st = cp_get(false);

	if (!st || !st->young_pending)
		return 0;
	st->young_pending = false;
	/* Every caller holds the lock of ptep's table (clear_refs_pte_range,
	   folio_referenced_one and page_idle_clear_pte_refs_one through
	   page_vma_mapped_walk, MGLRU's walk_pte_range and look-around, DAMON; v7.2):
	   no thread clears a bit meanwhile, so the mm's users do not matter,
	   and clear_refs holds one itself (get_task_mm) while it walks. */
	cp_verdict(st, PC_CHK_CP_YOUNG, pc_young_reported(st->young_seen, ret & 1), st->young_ptep,
		   st->young_seen, ret & 1, PC_WIN_GEN);
	return 0;
}

/* ---- where the page-table lock is known to be held ------------------------ */

static __always_inline void cp_locked_ctx(bool on)
{
	struct cp_state *st = cp_get(on);

	if (st)
		st->locked_ctx = on;
}

/* Whether syscall nr is one of PC_CONTPTE_LOCKED_SYSCALLS. */
static __always_inline bool cp_locked_nr(long nr)
{
#define LOCKED_NR(name) nr == PC_NR_##name ||
	return PC_CONTPTE_LOCKED_SYSCALLS(LOCKED_NR) false;
#undef LOCKED_NR
}

/* At sys_enter and sys_exit, from bpf/syscalls.bpf.c: on only
   where the gather's hooks attach (sys_contpte). */
__noinline int pc_contpte_sys_enter(struct bpf_raw_tracepoint_args *ctx, long nr)
{
	if (sys_contpte && cp_locked_nr(nr) && pc_sys_native(ctx))
		cp_locked_ctx(true);
	return 0;
}

__noinline int pc_contpte_sys_exit(struct bpf_raw_tracepoint_args *ctx, long nr)
{
	if (sys_contpte && cp_locked_nr(nr) && pc_sys_native(ctx))
		cp_locked_ctx(false);
	return 0;
}

/* A thread that exits leaves no state a reused thread id could inherit. */
SEC(PC_TP_SEC(sched, sched_process_exit))
int contpte_task_exit(void *ctx)
{
	__u32 tid = pc_tid();

	bpf_map_delete_elem(&cp_states, &tid);
	return 0;
}
