// SPDX-License-Identifier: GPL-2.0
/*
 * The floor of `ptecheck bench`'s overhead table: an empty program on every
 * tracepoint mremap.bpf.c attaches to (the same hooks `ptecheck hist` and
 * `watch` use on a kernel without fentry/kprobes).  What a workload loses
 * under this object is the price of the hooks themselves; what it loses
 * beyond that under hist/watch is the price of ptecheck's programs.
 */
#include "kernel_types.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

#define EMPTY(category, event)                                                                     \
	SEC("tp/" #category "/" #event)                                                            \
	int empty_##event(void *ctx)                                                               \
	{                                                                                          \
		return 0;                                                                          \
	}

EMPTY(syscalls, sys_enter_mremap)
EMPTY(syscalls, sys_exit_mremap)
EMPTY(tlb, tlb_flush)
EMPTY(filemap, mm_filemap_map_pages)
EMPTY(vmscan, mm_vmscan_lru_isolate)
EMPTY(vmscan, mm_vmscan_kswapd_wake)
EMPTY(vmscan, mm_vmscan_direct_reclaim_begin)
EMPTY(vmscan, mm_vmscan_memcg_reclaim_begin)
EMPTY(vmscan, mm_vmscan_node_reclaim_begin)
EMPTY(vmscan, mm_vmscan_reclaim_pages)
EMPTY(migrate, mm_migrate_pages_start)
EMPTY(migrate, set_migration_pte)
EMPTY(compaction, mm_compaction_begin)
EMPTY(huge_memory, mm_collapse_huge_page)
EMPTY(ksm, ksm_merge_one_page)
EMPTY(writeback, sb_mark_inode_writeback)
EMPTY(writeback, writeback_single_inode_start)
EMPTY(syscalls, sys_enter_process_madvise)
EMPTY(syscalls, sys_enter_mlock)
EMPTY(syscalls, sys_exit_mlock)
EMPTY(syscalls, sys_enter_mlock2)
EMPTY(syscalls, sys_exit_mlock2)
EMPTY(syscalls, sys_enter_munlock)
EMPTY(syscalls, sys_exit_munlock)
EMPTY(syscalls, sys_enter_madvise)
EMPTY(syscalls, sys_exit_madvise)
EMPTY(sched, sched_process_exit)
