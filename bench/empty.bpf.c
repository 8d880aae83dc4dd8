// SPDX-License-Identifier: GPL-2.0
/*
 * The floor of `ptecheck bench`'s overhead table: an empty program on every
 * tracepoint the tracing object (bpf/) attaches to (the same hooks `ptecheck hist` and
 * `watch` use on a kernel without fentry/kprobes).  What a workload loses
 * under this object is the price of the hooks themselves; what it loses
 * beyond that under hist/watch is the price of ptecheck's programs.
 */
#include "kernel_types.h"
#include <bpf/bpf_helpers.h>
#include <ptecheck/disturb.h>

char LICENSE[] SEC("license") = "GPL";

#define EMPTY_SEC(name, sec)                                                                       \
	SEC(sec)                                                                                   \
	int empty_##name(void *ctx)                                                                \
	{                                                                                          \
		return 0;                                                                          \
	}
#define EMPTY_NAMED(name, category, event) EMPTY_SEC(name, PC_TP_SEC(category, event))
#define EMPTY(category, event)		   EMPTY_NAMED(event, category, event)
#define EMPTY_SPAN(category, begin, end)   EMPTY(category, begin) EMPTY(category, end)
#define EMPTY_RAW(name, event)		   EMPTY_SEC(name, "raw_tp/" #event)

EMPTY(tlb, tlb_flush)
EMPTY(filemap, mm_filemap_map_pages)
PC_DISTURB_EVENTS(EMPTY, EMPTY_SPAN)
/* The syscalls: one program at each for every part (syscalls.bpf.c). */
EMPTY_RAW(syscalls_enter, sys_enter)
EMPTY_RAW(syscalls_exit, sys_exit)
/* Children of a followed process are followed too. */
EMPTY_SEC(common_task_fork, "tp_btf/sched_process_fork")
/* Each part of the tracing object cleans its own state when a task exits. */
EMPTY_NAMED(common_task_exit, sched, sched_process_exit)
EMPTY_NAMED(mremap_task_exit, sched, sched_process_exit)
EMPTY_NAMED(filemap_task_exit, sched, sched_process_exit)
EMPTY_NAMED(contpte_task_exit, sched, sched_process_exit)
