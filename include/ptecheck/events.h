/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Data shared between the BPF programs (bpf/) and the loader (loader/):
 * map layouts, event records and identifiers.  One definition for both.
 */
#ifndef PTECHECK_EVENTS_H
#define PTECHECK_EVENTS_H

#include "types.h"
#include "checks.h"
#include "hist.h"
#include "batch.h"

/* How a check observed the kernel. */
enum pc_tier {
	PC_TIER_ORACLE = 0,   /* userspace: /proc files and behaviour */
	PC_TIER_SYSCALL_WALK, /* syscall tracepoints + page-table walk in BPF */
	PC_TIER_FEXIT,	      /* fentry/fexit on the kernel function */
	PC_TIER_KPROBE,	      /* kprobe/kretprobe on the kernel function */
	PC_TIER__COUNT,
};

/*
 * The crash witness: a verdict the BPF side judged on entry to a function
 * that may kill the kernel before it returns, printed to the trace buffer
 * (bpf_printk) where the kernel dumps that buffer on an oops
 * (ftrace_dump_on_oops), and read back from the console of a kernel that
 * died (merge/died.c).  One line each; the tier is pc_tier's number.
 */
#define PC_WITNESS_TAG "ptecheck-witness:"
#define PC_WITNESS_PRINT                                                                           \
	PC_WITNESS_TAG " check=%u verdict=%d tier=%u pid=%u addr=0x%llx expected=%llu seen=%llu"
#define PC_WITNESS_SCAN                                                                            \
	PC_WITNESS_TAG " check=%u verdict=%d tier=%u pid=%u addr=0x%llx expected=%llu seen=%llu%n"
#define PC_WITNESS_MAX 32 /* lines a run prints at most */

/* Histograms; the per-CPU map holds PC_HIST__COUNT * PC_HIST_SLOTS. */
enum pc_hist_id {
	PC_HIST_MREMAP_LATENCY_NS = 0, /* log2, syscall tracepoints */
	PC_HIST_MREMAP_TLB_FLUSHES,    /* linlog, tlb:tlb_flush inside mremap */
	PC_HIST_MREMAP_PTES_MOVED,     /* linlog, page walk: present PTEs per call */
	PC_HIST_MREMAP_PMDS_MOVED,     /* linlog, page walk: PMD-level moves per call */
	PC_HIST_BATCH_MREMAP,	       /* linlog, contpte_set_ptes nr per mremap batch */
	PC_HIST_FAULTAROUND_PAGES,     /* linlog, filemap:mm_filemap_map_pages window */
	PC_HIST_FM_SET_PTE_RANGE_NR,   /* linlog, set_pte_range nr per call */
	PC_HIST_FM_RMAP_NR,	       /* linlog, folio_add_file_rmap_ptes nr per call */
	PC_HIST_CP_GATHER_READS,       /* linlog, entries contpte_ptep_get's loop reads */
	PC_HIST_CP_YOUNG_NR,	       /* linlog, contpte_test_and_clear_young_ptes nr */
	PC_HIST_FM_FOLIO_ORDER,	       /* linlog, folio order of set_pte_range batches */
	PC_HIST_FM_LARGE_ORDER,	       /* linlog, folio order of batches of large folios */
	PC_HIST_FM_FULL_ORDER,	       /* linlog, ... of those that reached their cap */
	/* linlog, PC_BATCH_HISTS of them: PC_BATCH_HIST(PC_HIST_BATCH_FIRST,
	   src, ctx) holds source src's batches in context ctx (batch.h) */
	PC_HIST_BATCH_FIRST,
	PC_HIST__COUNT = PC_HIST_BATCH_FIRST + PC_BATCH_HISTS,
};

/*
 * --by: the histograms per key, in a hash map of at most PC_HIST_KEYS_MAX
 * entries (one per histogram and key).  An event whose key finds no room
 * goes to the histogram array instead, which with --by holds only those:
 * the report counts them as not attributed.  (PC_HIST_KEYS_MAX: hist.h.)
 */
struct pc_hist_key {
	__u32 hist;    /* enum pc_hist_id */
	__u32 tgid;    /* PC_BY_PID, else 0 */
	char comm[16]; /* PC_BY_COMM, else zero */
};
struct pc_hist_keyed {
	char comm[16]; /* PC_BY_PID: the process's name at its last event */
	__u64 slots[PC_HIST_SLOTS];
};

/* Per (check, tier) counters; per-CPU array of PC_CHK__COUNT * PC_TIER__COUNT. */
struct pc_check_counts {
	__u64 checked;	      /* predicate evaluations that applied */
	__u64 violations;     /* evaluations that found a violation */
	__u64 inconclusive;   /* violations discarded: the window was disturbed */
	__u64 not_applicable; /* evaluations whose preconditions failed */
};

/* Global statistics; per-CPU array indexed by these. */
enum pc_stat_id {
	PC_STAT_CALLS = 0,	 /* mremap calls seen from tracked tasks */
	PC_STAT_CALLS_CHECKED,	 /* calls whose ranges were compared */
	PC_STAT_CALLS_FAILED,	 /* calls that returned an error (nothing to check) */
	PC_STAT_CALLS_DISTURBED, /* windows with concurrent reclaim/migration/... */
	PC_STAT_CALLS_SHARED_MM, /* multi-threaded or shared mm: not enforced */
	PC_STAT_PAGES_UNCOVERED, /* pages beyond the snapshot or under huge PMDs */
	PC_STAT_WALK_ERRORS,	 /* page-table reads that faulted */
	PC_STAT_EVENTS_DROPPED,	 /* ring buffer full: violation records lost */
	PC_STAT_STATE_FULL,	 /* no per-call state slot free: call not checked */
	PC_STAT_CP_GET,		 /* contpte_ptep_get calls (all tasks) */
	PC_STAT_CP_FOLD,	 /* folds by tracked tasks */
	PC_STAT_CP_UNFOLD,	 /* unfolds by tracked tasks */
	PC_STAT_CP_YOUNG,	 /* contpte_test_and_clear_young_ptes calls (all tasks) */
	PC_STAT_CALLS_IN_PLACE,	 /* mremap calls that moved nothing (shrink, grow in place) */
	PC_STAT_STATE_LOST,	 /* calls whose state was gone at their exit: not checked */
	PC_STAT__COUNT,
};

/* Kernel stack frames a violation carries (an arm64 kretprobe's own take
   9 of them): the event is 312 bytes, 320 in the ring buffer. */
#define PC_STACK_FRAMES 32

/*
 * A violation, sent through the ring buffer with its evidence.  What the
 * addresses and values are depends on the check:
 *
 *   mremap/moved, ad-bits, perms (per call)  old_addr, new_addr: the user
 *       address of the slot before and after the move; expected, seen: the
 *       raw PTE at entry and after the move.
 *   mremap/pmd-move  the same per 2 MiB extent, with raw PMD entries (seen
 *       0: the new PMD maps no page table).
 *   mremap/ad-bits, batch (per batch)  old_addr = new_addr: the user address
 *       of the batch (or of entry k set); expected, seen: the raw PTE
 *       cleared (or given to set_ptes) and the one set, the nr cleared and
 *       set (a nr mismatch), nr twice (a batch outside one page table), or
 *       the access/dirty bits gathered at entry (young << 1 | dirty) and
 *       the raw PTE the clear returned.
 *   filemap/batch-bounds  old_addr = new_addr: the batch's first user
 *       address; expected: the bound, seen: how far the batch went
 *       (pc_fault_batch_evidence in filemap.h: PTEs, folio pages, user
 *       addresses or file page indices, by verdict).
 *   filemap/ptes-set  the user address of entry k; expected: the PFN it
 *       must map, seen: its raw PTE.
 *   filemap/rmap-count  the batch's user address (0 for a mapcount delta);
 *       expected, seen: the nr of set_pte_range and of the rmap update, the
 *       two folios' kernel addresses (another folio), or the mapcount that
 *       was due and the one found.
 *   contpte/gather, fold, clear-young  old_addr = new_addr: the kernel
 *       address of the PTE (ptep); expected, seen: the bits gathered at
 *       entry (young << 1 | dirty) and the raw PTE returned (gather) or
 *       found (unfold), the entries looked at and those with CONT (fold),
 *       or young at entry and young reported, 0 or 1 (clear-young).
 */
struct pc_violation_event {
	__u32 check;   /* enum pc_check_id */
	__u32 verdict; /* enum pc_verdict */
	__u32 tier;    /* enum pc_tier */
	__u32 tgid;    /* the process that made the call */
	__u64 old_addr;
	__u64 new_addr;
	__u64 expected;
	__u64 seen;
	/* The kernel stack where the violation was found, innermost first:
	   bytes of stack[] filled (a multiple of 8), or -errno when it could
	   not be taken.  Taken only when a violation is sent. */
	__s64 stack_len;
	__u64 stack[PC_STACK_FRAMES];
};

/* Tracked processes: key tgid, value flags. */
#define PC_TRACK_ENFORCE_PMD  (1U << 0) /* ptecheck's own scenario: no uffd */
#define PC_TRACK_ENFORCE_EOF  (1U << 1) /* ... and no file changes size meanwhile */
#define PC_TRACK_ENFORCE_RMAP (1U << 2) /* ... and one process maps the file */
/* Its child processes are tracked too (watch, hist; run's scenarios with
   PC_SCENARIO_FOLLOW_CHILDREN). */
#define PC_TRACK_CHILDREN (1U << 3)
/* Its last thread went through sched_process_exit: tracked until the task
   is freed, because 7.x fires that before exit_mm() (its exit's zap). */
#define PC_TRACK_EXITED (1U << 4)
/* Its batches follow a race of its own (a file resized while it faults:
   PC_SCENARIO_RESIZES), not only what the kernel decides: judged, but
   left out of the batch path's histograms, which the gate compares
   between kernels. */
#define PC_TRACK_UNSTEADY (1U << 5)

/* Target selection for the BPF side (read-only data). */
enum pc_filter_mode {
	PC_FILTER_TRACKED = 0, /* only tgids in the tracked map */
	PC_FILTER_ALL = 1,     /* every process */
	PC_FILTER_COMM = 2,    /* processes whose comm equals filter_comm */
	PC_FILTER_CGROUP = 3,  /* tasks in the cgroup v2 of filter_cgroup[0] or below it */
};

/* Page-table walk calibration, found at run time (see docs). */
struct pc_walk_calib {
	__u64 direct_map_base; /* virtual address of physical address 0 */
	__u32 levels;	       /* 3, 4 or 5 */
	__u32 valid;
	/* The vmemmap (struct page of pfn: vmemmap + pfn * page_size), for
	   the batch path's derived source; page_size 0: not found, and why. */
	__u64 vmemmap;
	__u64 page_size;
	char vmemmap_why[160];
};

/* Why bpf/calib.bpf.c found no vmemmap (calib_result.vm_code). */
enum pc_vmemmap_code {
	PC_VM_FOUND = 0,
	PC_VM_NOT_TRIED, /* no direct map: the calibration stopped before */
	PC_VM_NO_STACK,	 /* x86: no vmap'd task stack nor pipe buffer gives a struct page */
	PC_VM_NO_LAYOUT, /* struct page / folio fields not in the kernel's BTF */
	PC_VM_NO_MATCH,	 /* no candidate holds the known page's struct page */
};

/* What bpf/calib.bpf.c leaves in its .bss for the loader. */
struct calib_result {
	__u64 base;
	__u32 levels;
	__u32 found;
	__u32 tried;
	__u32 ran;
	__u64 vmemmap, page_size;
	__u32 vm_code; /* enum pc_vmemmap_code */
	__u32 vm_tried;
};

/* Snapshot bounds: ranges beyond these are partly checked and say so. */
#define PC_SNAP_PTES	       2048 /* 8 MiB of PTEs per call */
#define PC_SNAP_PMDS	       512  /* 1 GiB of PMD entries per call */
#define PC_MAX_EVENTS_PER_CALL 8    /* violations sent per call (or hook state) */

#endif
