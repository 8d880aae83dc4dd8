/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The batch path's BPF side: the context a batch is made in, read from the
 * current task when it is measured (include/ptecheck/batch.h classifies),
 * and the histogram of a (source, context) pair.
 */
#ifndef PTECHECK_BATCH_BPF_H
#define PTECHECK_BATCH_BPF_H

#include "common.bpf.h"
#include <ptecheck/batch.h>

/* The current task's batches count in the batch histograms: a target
   whose batches do not follow a race of its own (PC_TRACK_UNSTEADY). */
static __always_inline bool pc_batch_counted(void)
{
	__u32 f = target_flags();

	return f && !((f - 1) & PC_TRACK_UNSTEADY);
}

/* Is the current task's command "khugepaged"?  Its 11 bytes (with the
   NUL) compared as two words: a loop over the bytes of a string in
   .rodata cost the verifier 60k instructions in every batch program. */
static __always_inline bool pc_comm_is_khugepaged(void)
{
	union {
		char c[16];
		__u64 w[2];
	} comm = {};
	__u64 want0, want1 = 0;

	__builtin_memcpy(&want0, "khugepag", 8);
	__builtin_memcpy(&want1, "ed", 3);
	bpf_get_current_comm(comm.c, sizeof(comm.c));
	return comm.w[0] == want0 && (comm.w[1] & 0xffffff) == want1;
}

/* enum pc_batch_ctx of the current task, now. */
static __always_inline __u32 pc_batch_ctx_now(void)
{
	struct task_struct *t = bpf_get_current_task_btf();
	unsigned int flags = BPF_CORE_READ(t, flags);
	const struct pt_regs *regs;
	long nr;

	if (flags & (PC_PF_MEMALLOC | PC_PF_KTHREAD | PC_PF_EXITING))
		return pc_batch_ctx_of(flags, pc_comm_is_khugepaged(), false, -1, 0, 0);
	regs = (const struct pt_regs *)bpf_task_pt_regs(t);
	nr = pc_regs_syscall_nr(regs);
	return pc_batch_ctx_of(flags, false, pc_sys_compat(regs), nr,
			       nr == PC_NR_madvise ? pc_regs_arg(regs, 2) : 0,
			       nr == PC_NR_process_madvise ? pc_regs_arg(regs, 3) : 0);
}

/* Adds a batch of nr PTEs that source src measured in context ctx
   (bpf/batch.bpf.c).  A global function, verified once: inlined, each of
   the ~20 contexts pc_batch_ctx_now() returns as a constant carried its
   own path through the histogram's slot search, and the verifier walked
   them all (batch_fpb_fexit: 76k instructions on 7.x). */
int pc_batch_add(__u32 src, __u32 ctx, __u64 nr);

#endif
