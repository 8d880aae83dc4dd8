/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel events that may change a process's page tables behind its
 * back (docs/checks.md, "Races"): a window that sees one is not quiet and
 * judges nothing.  One list for the BPF programs that count them
 * (bpf/common.bpf.c), the empty programs of the overhead floor
 * (bench/empty.bpf.c) and the loader that reports a missing one.
 *
 * PC_DISTURB_EVENTS(EV, SPAN): EV(CATEGORY, EVENT) is one event; SPAN(
 * CATEGORY, BEGIN, END) a long operation whose whole span, from BEGIN to
 * END on the same thread, disturbs every window it overlaps.
 */
#ifndef PTECHECK_DISTURB_H
#define PTECHECK_DISTURB_H

#include <ptecheck/tp_sec.h>

#define PC_DISTURB_EVENTS(EV, SPAN)                                                                \
	EV(vmscan, mm_vmscan_lru_isolate)                                                          \
	EV(vmscan, mm_vmscan_reclaim_pages)                                                        \
	SPAN(vmscan, mm_vmscan_kswapd_wake, mm_vmscan_kswapd_sleep)                                \
	SPAN(vmscan, mm_vmscan_direct_reclaim_begin, mm_vmscan_direct_reclaim_end)                 \
	SPAN(vmscan, mm_vmscan_memcg_reclaim_begin, mm_vmscan_memcg_reclaim_end)                   \
	SPAN(vmscan, mm_vmscan_node_reclaim_begin, mm_vmscan_node_reclaim_end)                     \
	SPAN(migrate, mm_migrate_pages_start, mm_migrate_pages)                                    \
	EV(migrate, set_migration_pte)                                                             \
	SPAN(compaction, mm_compaction_begin, mm_compaction_end)                                   \
	EV(huge_memory, mm_collapse_huge_page_isolate)                                             \
	EV(huge_memory, mm_collapse_huge_page)                                                     \
	EV(ksm, ksm_merge_one_page)                                                                \
	EV(writeback, sb_mark_inode_writeback)                                                     \
	EV(writeback, writeback_single_inode_start)

/*
 * PC_DISTURB_SYSCALLS(X): X(NAME) is a syscall whose whole span disturbs
 * every window it overlaps, seen at raw_syscalls:sys_enter/sys_exit.
 * swapoff swaps every entry of every mm back in, without a fault;
 * process_madvise pages out or frees another process's memory.
 */
#define PC_DISTURB_SYSCALLS(X) X(swapoff) X(process_madvise)

#endif
