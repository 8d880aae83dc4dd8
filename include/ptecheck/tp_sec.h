/* SPDX-License-Identifier: GPL-2.0 */
/*
 * PC_TP_SEC(CATEGORY, EVENT): the section of a program on a tracepoint,
 * shared with bench's empty floor, which must attach as the tracing
 * object does.  Every one is a raw tracepoint (ctx->args[] are the trace
 * call's arguments): detaching a perf-event tracepoint waits for RCU grace
 * periods under a global mutex (perf_trace_destroy()), one detach after
 * another, a raw one for none.  CATEGORY is the event's tracefs directory,
 * which `features` reads.  Syscalls are followed at raw_syscalls:sys_enter
 * and sys_exit (bpf/common.bpf.h).
 */
#ifndef PTECHECK_TP_SEC_H
#define PTECHECK_TP_SEC_H

#define PC_TP_SEC(category, event) "raw_tp/" #event

#endif
