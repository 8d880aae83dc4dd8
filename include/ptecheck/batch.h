/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The batch path: how many PTEs the kernel's batched page-table code
 * handles at once, per path that made the batch (zap, fork, mprotect,
 * mlock, madvise, mremap, khugepaged, reclaim, ...).  A batch histogram is
 * one (source, context) pair:
 *
 *   source   what measured it: a kernel function's nr (folio_pte_batch's
 *            result, a batched helper's nr argument), or, derived, the
 *            runs of PTEs of one large folio the page-table walk saw at
 *            syscall entry (not the kernel's batch: what it had to batch);
 *   context  where the batch was made, read in the kernel when it was
 *            measured: the task's flags (reclaim, kernel thread, exiting),
 *            its command (khugepaged) and the syscall it is in (the number
 *            in its pt_regs, and madvise's advice).
 *
 * Usable by BPF as it is; the classifier is pure so unit tests run it.
 */
#ifndef PTECHECK_BATCH_H
#define PTECHECK_BATCH_H

#include "types.h"
#include "syscall_nr.h"

#ifndef PC_INLINE
#define PC_INLINE static inline __attribute__((always_inline))
#endif

/* Where a batch was made. */
enum pc_batch_ctx {
	PC_BCTX_MUNMAP = 0,    /* munmap, shmdt: zap */
	PC_BCTX_MMAP,	       /* mmap over a mapping, brk shrinking: zap */
	PC_BCTX_EXIT,	       /* the task is exiting (exit_mmap): zap */
	PC_BCTX_EXEC,	       /* execve dropping the old mm: zap */
	PC_BCTX_FORK,	       /* clone, clone3, fork, vfork: copy_present_ptes */
	PC_BCTX_MPROTECT,      /* mprotect, pkey_mprotect: change_pte_range */
	PC_BCTX_MLOCK,	       /* mlock, mlock2, mlockall */
	PC_BCTX_MUNLOCK,       /* munlock, munlockall */
	PC_BCTX_MADV_DONTNEED, /* MADV_DONTNEED, MADV_DONTNEED_LOCKED: zap */
	PC_BCTX_MADV_FREE,     /* MADV_FREE */
	PC_BCTX_MADV_COLD,     /* MADV_COLD */
	PC_BCTX_MADV_PAGEOUT,  /* MADV_PAGEOUT */
	PC_BCTX_MADV_COLLAPSE, /* MADV_COLLAPSE (khugepaged's code, in the caller) */
	PC_BCTX_MADV_OTHER,    /* any other advice */
	PC_BCTX_MREMAP,	       /* mremap */
	PC_BCTX_MEMPOLICY,     /* mbind, migrate_pages, move_pages, ... */
	PC_BCTX_KHUGEPAGED,    /* the khugepaged thread */
	PC_BCTX_RECLAIM,       /* PF_MEMALLOC: kswapd, direct reclaim or compaction */
	PC_BCTX_FAULT,	       /* in no syscall: a page fault or another exception */
	PC_BCTX_KTHREAD,       /* another kernel thread */
	PC_BCTX_OTHER_SYSCALL, /* any other syscall */
	PC_BCTX__COUNT,
};

/* What measured a batch. */
enum pc_batch_src {
	PC_BSRC_FPB = 0,	/* folio_pte_batch() result (out of line, mm/util.c) */
	PC_BSRC_RMAP_REMOVE,	/* folio_remove_rmap_ptes() nr */
	PC_BSRC_CP_SET,		/* arm64 contpte_set_ptes() nr (set_ptes of 2+) */
	PC_BSRC_CP_CLEAR,	/* arm64 contpte_get_and_clear_full_ptes / _clear_full_ptes nr */
	PC_BSRC_CP_WRPROTECT,	/* arm64 contpte_wrprotect_ptes() nr */
	PC_BSRC_CP_PROT,	/* arm64 modify_prot_start_ptes() nr */
	PC_BSRC_CP_YOUNG_DIRTY, /* arm64 contpte_clear_young_dirty_ptes() nr */
	PC_BSRC_WALK,		/* derived: runs of one large folio at syscall entry */
	PC_BSRC__COUNT,
};

/* The batch histograms follow the others in enum pc_hist_id (events.h). */
#define PC_BATCH_HISTS (PC_BSRC__COUNT * PC_BCTX__COUNT)

/* Task flags (include/linux/sched.h; unchanged since 2.6). */
#define PC_PF_EXITING  0x00000004u
#define PC_PF_MEMALLOC 0x00000800u
#define PC_PF_KTHREAD  0x00200000u

/* madvise advice (include/uapi/asm-generic/mman-common.h). */
#define PC_MADV_DONTNEED	4
#define PC_MADV_FREE		8
#define PC_MADV_COLD		20
#define PC_MADV_PAGEOUT		21
#define PC_MADV_DONTNEED_LOCKED 24
#define PC_MADV_COLLAPSE	25

PC_INLINE __u32 pc_batch_madvise_ctx(__u64 advice)
{
	switch (advice) {
	case PC_MADV_DONTNEED:
	case PC_MADV_DONTNEED_LOCKED:
		return PC_BCTX_MADV_DONTNEED;
	case PC_MADV_FREE:
		return PC_BCTX_MADV_FREE;
	case PC_MADV_COLD:
		return PC_BCTX_MADV_COLD;
	case PC_MADV_PAGEOUT:
		return PC_BCTX_MADV_PAGEOUT;
	case PC_MADV_COLLAPSE:
		return PC_BCTX_MADV_COLLAPSE;
	default:
		return PC_BCTX_MADV_OTHER;
	}
}

/* The context of a syscall of number nr (native ABI); madvise_advice is
   madvise's third argument, process_madvise_advice process_madvise's
   fourth (either is read only for its own syscall). */
PC_INLINE __u32 pc_batch_syscall_ctx(long nr, __u64 madvise_advice, __u64 process_madvise_advice)
{
	switch (nr) {
	case PC_NR_munmap:
	case PC_NR_shmdt:
		return PC_BCTX_MUNMAP;
	case PC_NR_mmap:
	case PC_NR_brk:
		return PC_BCTX_MMAP;
	case PC_NR_exit:
	case PC_NR_exit_group:
		return PC_BCTX_EXIT;
	case PC_NR_execve:
	case PC_NR_execveat:
		return PC_BCTX_EXEC;
	case PC_NR_clone:
	case PC_NR_clone3:
#if defined(PC_NR_fork)
	case PC_NR_fork:
	case PC_NR_vfork:
#endif
		return PC_BCTX_FORK;
	case PC_NR_mprotect:
	case PC_NR_pkey_mprotect:
		return PC_BCTX_MPROTECT;
	case PC_NR_mlock:
	case PC_NR_mlock2:
	case PC_NR_mlockall:
		return PC_BCTX_MLOCK;
	case PC_NR_munlock:
	case PC_NR_munlockall:
		return PC_BCTX_MUNLOCK;
	case PC_NR_madvise:
		return pc_batch_madvise_ctx(madvise_advice);
	case PC_NR_process_madvise:
		return pc_batch_madvise_ctx(process_madvise_advice);
	case PC_NR_mremap:
		return PC_BCTX_MREMAP;
	case PC_NR_mbind:
	case PC_NR_migrate_pages:
	case PC_NR_move_pages:
	case PC_NR_set_mempolicy_home_node:
		return PC_BCTX_MEMPOLICY;
	default:
		return nr < 0 ? PC_BCTX_FAULT : PC_BCTX_OTHER_SYSCALL;
	}
}

/*
 * The context of a batch, from what the kernel says of the current task:
 * its flags, whether its command is "khugepaged", whether it is in a
 * 64-bit syscall (compat ones have other numbers: counted as other), and
 * that syscall's number and advice.  Reclaim first: kswapd and direct
 * reclaim run rmap walks inside whatever the task was doing.
 */
PC_INLINE __u32 pc_batch_ctx_of(__u32 task_flags, bool khugepaged, bool compat, long nr,
				__u64 madvise_advice, __u64 process_madvise_advice)
{
	if (task_flags & PC_PF_MEMALLOC)
		return PC_BCTX_RECLAIM;
	if (task_flags & PC_PF_KTHREAD)
		return khugepaged ? PC_BCTX_KHUGEPAGED : PC_BCTX_KTHREAD;
	if (task_flags & PC_PF_EXITING)
		return PC_BCTX_EXIT;
	if (compat)
		return nr < 0 ? PC_BCTX_FAULT : PC_BCTX_OTHER_SYSCALL;
	return pc_batch_syscall_ctx(nr, madvise_advice, process_madvise_advice);
}

/* The histogram id (enum pc_hist_id) of a (source, context) pair. */
#define PC_BATCH_HIST(first, src, ctx) ((first) + (src)*PC_BCTX__COUNT + (ctx))

#endif
