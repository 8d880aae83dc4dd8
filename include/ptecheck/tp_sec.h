/* SPDX-License-Identifier: GPL-2.0 */
/*
 * PC_TP_SEC(CATEGORY, EVENT): the section of a program on a tracepoint,
 * for the programs that could take either kind and for bench's empty
 * floor, which must attach as they do.  A raw tracepoint where the event
 * is one and the program reads no argument: detaching a perf-event
 * tracepoint waits for RCU grace periods under a global mutex
 * (perf_trace_destroy()), one detach after another, a raw one for none.
 * Syscalls are followed at raw_syscalls:sys_enter/sys_exit (bpf/
 * common.bpf.h); tlb and filemap programs read their arguments from the
 * perf-event trace entry.
 */
#ifndef PTECHECK_TP_SEC_H
#define PTECHECK_TP_SEC_H

#define PC_TP_SEC(category, event) PC_TP_SEC_##category(event)
#define PC_TP_RAW(event)	   "raw_tp/" #event
#define PC_TP_SEC_vmscan	   PC_TP_RAW
#define PC_TP_SEC_migrate	   PC_TP_RAW
#define PC_TP_SEC_compaction	   PC_TP_RAW
#define PC_TP_SEC_huge_memory	   PC_TP_RAW
#define PC_TP_SEC_ksm		   PC_TP_RAW
#define PC_TP_SEC_writeback	   PC_TP_RAW
#define PC_TP_SEC_sched		   PC_TP_RAW
#define PC_TP_SEC_tlb(event)	   "tp/tlb/" #event
#define PC_TP_SEC_filemap(event)   "tp/filemap/" #event

#endif
