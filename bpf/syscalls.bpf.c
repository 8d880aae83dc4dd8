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

/* common.bpf.h, include/ptecheck/sys_parts.h: every part on until the
   loader says otherwise.  The disturbance's handlers always run: without
   them no window of any part could be judged. */
#define PC_SYS_SWITCH(NAME, name, HOOKS, prefix, prefix2, what)                                    \
	const volatile bool sys_##name = true;
PC_SYS_PARTS(PC_SYS_SWITCH)
#undef PC_SYS_SWITCH
#ifdef PC_FAULT_INJECT
const volatile __u32 fault_refuse;
#endif

SEC("raw_tp/sys_enter")
int syscalls_enter(struct bpf_raw_tracepoint_args *ctx)
{
	long nr = pc_sys_enter_nr(ctx);

	PC_FAULT_POINT(PC_FAULT_SYSCALLS);
	pc_disturb_sys_enter(ctx, nr);
#define PC_SYS_ENTER(NAME, name, HOOKS, prefix, prefix2, what)                                     \
	PC_SYS_AT_ENTER_##HOOKS(if (sys_##name) pc_##name##_sys_enter(ctx, nr);)
	PC_SYS_PARTS(PC_SYS_ENTER)
#undef PC_SYS_ENTER
	return 0;
}

SEC("raw_tp/sys_exit")
int syscalls_exit(struct bpf_raw_tracepoint_args *ctx)
{
	/* At sys_exit it is in the registers: one read for every part. */
	long nr = pc_sys_exit_nr(ctx);

	pc_disturb_sys_exit(ctx, nr);
#define PC_SYS_EXIT(NAME, name, HOOKS, prefix, prefix2, what)                                      \
	PC_SYS_AT_EXIT_##HOOKS(if (sys_##name) pc_##name##_sys_exit(ctx, nr);)
	PC_SYS_PARTS(PC_SYS_EXIT)
#undef PC_SYS_EXIT
	return 0;
}
