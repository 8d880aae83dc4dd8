/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The per-call state of the mremap path, shared by its two parts:
 * bpf/mremap.bpf.c (the whole call: syscall tracepoints, page-table walk,
 * move_page_tables) and bpf/mremap_batch.bpf.c (each batch the call
 * moves: the arm64 contpte functions, and folio_pte_batch).
 *
 * All state is per (task, kind) in the calls map, never per CPU: a
 * program preempted on a CPU must not see another task's data.
 */
#ifndef PTECHECK_MREMAP_BPF_H
#define PTECHECK_MREMAP_BPF_H

#include "common.bpf.h"

#define MREMAP_FIXED 2

extern const volatile __u32 mr_batch_tier; /* of the per-batch checks: fexit or kprobe */

/* Kinds of call_state: the whole syscall, or one move_page_tables(). */
#define KIND_SYSCALL 0ULL
#define KIND_MPT     1ULL

static __always_inline __u64 call_key(__u32 tid, __u64 kind)
{
	return (__u64)tid | (kind << 32);
}

/* Comparison of the new range's PTEs with the snapshot (one call). */
struct cmp_ctx {
	__u64 pgd;
	__u64 new_addr;
	__u64 present_moved;
	__u64 uncovered;
	__u64 new_fill; /* value of slots without a PTE table */
	bool new_is_table;
	__u32 walk_errors;
	struct pc_window win;	     /* of the whole call; pmd-move's too */
	struct pc_pending pv;	     /* the violation pc_judge() sends */
	struct pc_check_counts c[3]; /* moved, ad-bits, perms */
};

/* PMD-level moves of one call. */
struct pmd_ctx {
	__u64 pgd;
	__u64 new_addr;
	__u64 len;
	bool enforce;
	__u64 moved_at_pmd;
	struct pc_pending pv;
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
	struct pc_pending pv;
	struct pc_check_counts c[2]; /* ad-bits (gather), batch */
};

struct call_state {
	bool active;  /* between the call's entry and exit */
	bool sampled; /* judged (--sample): else only its histograms are fed */
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
	__u32 move; /* what the moved VMA lets the kernel change: PC_MOVE_* */
	struct cmp_ctx cc;
	struct pmd_ctx pc;
	struct batch_ctx bc;
	__u64 table[PC_PTRS_PER_TABLE]; /* the new range's current PTE table */
	__u64 ptes[2 * PC_SNAP_PTES];	/* slack so bounded indices stay inside */
	__u64 old_pmds[PC_SNAP_PMDS];
	__u64 new_pmds[PC_SNAP_PMDS];
};

struct mremap_calls_map {
	/* LRU: a thread's entry is reused from call to call (a fresh one is a
	   45 KB copy of the template), and the least recent thread's entry
	   makes room when more threads than this call mremap.  Per CPU
	   (ptecheck/lru.h): with the common LRU a call lost its state before
	   its exit (x86_64 Debian 6.1 guests: 1 to 18 of 19 calls). */
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(map_flags, PC_LRU_PER_CPU);
	__uint(max_entries, 128);
	__type(key, __u64);
	__type(value, struct call_state);
};
extern struct mremap_calls_map mr_calls SEC(".maps");

/* The current task's mremap call in progress, or NULL; *key its key. */
static __always_inline struct call_state *mremap_state(__u64 *key)
{
	*key = call_key(pc_tid(), KIND_SYSCALL);
	struct call_state *st = bpf_map_lookup_elem(&mr_calls, key);

	return st && st->active ? st : NULL;
}

#endif
