// SPDX-License-Identifier: GPL-2.0
/*
 * The one program at raw_syscalls:sys_enter and the one at sys_exit of the
 * tracing object.  They run at every syscall of the system, whatever it
 * is, and a program's invocation costs more than most parts' work there
 * (bench, the mremap loop: six empty programs at the two tracepoints
 * 1.031 of bare, two 1.00-1.02; docs/performance.md), so no part has its
 * own: these read the syscall's number once and call each part's handler
 * (common.bpf.h), above all the parts they call.
 */
#include "common.bpf.h"

/* common.bpf.h.  The disturbance's handlers always run: without them no
   window of any part could be judged. */
const volatile bool sys_mremap = true, sys_walk = true, sys_contpte = true, sys_madvise = true,
		    sys_mprotect = true;
#ifdef PC_FAULT_INJECT
const volatile __u32 fault_refuse;
#endif

SEC("raw_tp/sys_enter")
int syscalls_enter(struct bpf_raw_tracepoint_args *ctx)
{
	long nr = pc_sys_enter_nr(ctx);

	PC_FAULT_POINT(PC_FAULT_SYSCALLS);
	pc_disturb_sys_enter(ctx, nr);
	if (sys_mremap)
		pc_mremap_sys_enter(ctx, nr);
	if (sys_walk)
		pc_walk_sys_enter(ctx, nr);
	if (sys_contpte)
		pc_contpte_sys_enter(ctx, nr);
	if (sys_madvise)
		pc_madvise_sys_enter(ctx, nr);
	if (sys_mprotect)
		pc_mprotect_sys_enter(ctx, nr);
	return 0;
}

SEC("raw_tp/sys_exit")
int syscalls_exit(struct bpf_raw_tracepoint_args *ctx)
{
	/* At sys_exit it is in the registers: one read for every part. */
	long nr = pc_sys_exit_nr(ctx);

	pc_disturb_sys_exit(ctx, nr);
	if (sys_mremap)
		pc_mremap_sys_exit(ctx, nr);
	if (sys_contpte)
		pc_contpte_sys_exit(ctx, nr);
	if (sys_madvise)
		pc_madvise_sys_exit(ctx, nr);
	if (sys_mprotect)
		pc_mprotect_sys_exit(ctx, nr);
	return 0;
}
