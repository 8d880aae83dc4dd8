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

/* Is the current task's command "khugepaged"? */
static __always_inline bool pc_comm_is_khugepaged(void)
{
	static const char want[] = "khugepaged";
	char comm[16];

	bpf_get_current_comm(comm, sizeof(comm));
	for (int i = 0; i < (int)sizeof(want); i++)
		if (comm[i] != want[i])
			return false;
	return true;
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

/* Adds a batch of nr PTEs that source src measured in context ctx. */
static __always_inline void pc_batch_add(__u32 src, __u32 ctx, __u64 nr)
{
	if (src < PC_BSRC__COUNT && ctx < PC_BCTX__COUNT)
		hist_add(PC_BATCH_HIST(PC_HIST_BATCH_FIRST, src, ctx), PC_HIST_LINLOG, nr);
}

#endif
