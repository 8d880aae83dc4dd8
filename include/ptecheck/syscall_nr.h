/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The syscall numbers the BPF programs dispatch on at raw_syscalls:
 * sys_enter and sys_exit: ABI, fixed per architecture (x86_64's table and
 * asm-generic's, which arm64 uses).  trace/syscall_nr.c checks them
 * against the C library's at build time, for each architecture built.
 */
#ifndef PTECHECK_SYSCALL_NR_H
#define PTECHECK_SYSCALL_NR_H

#if defined(__TARGET_ARCH_x86) || (!defined(__bpf__) && defined(__x86_64__))
#define PC_NR_mremap	      25
#define PC_NR_madvise	      28
#define PC_NR_getpgid	      121
#define PC_NR_mlock	      149
#define PC_NR_munlock	      150
#define PC_NR_swapoff	      168
#define PC_NR_mlock2	      325
#define PC_NR_process_madvise 440
/* Where the batched paths run (include/ptecheck/batch.h). */
#define PC_NR_mmap		      9
#define PC_NR_mprotect		      10
#define PC_NR_munmap		      11
#define PC_NR_brk		      12
#define PC_NR_clone		      56
#define PC_NR_fork		      57
#define PC_NR_vfork		      58
#define PC_NR_execve		      59
#define PC_NR_exit		      60
#define PC_NR_shmdt		      67
#define PC_NR_mlockall		      151
#define PC_NR_munlockall	      152
#define PC_NR_exit_group	      231
#define PC_NR_mbind		      237
#define PC_NR_migrate_pages	      256
#define PC_NR_move_pages	      279
#define PC_NR_execveat		      322
#define PC_NR_pkey_mprotect	      329
#define PC_NR_clone3		      435
#define PC_NR_set_mempolicy_home_node 450
#elif defined(__TARGET_ARCH_arm64) || (!defined(__bpf__) && defined(__aarch64__))
#define PC_NR_getpgid		      155
#define PC_NR_swapoff		      225
#define PC_NR_mremap		      216
#define PC_NR_mlock		      228
#define PC_NR_munlock		      229
#define PC_NR_madvise		      233
#define PC_NR_mlock2		      284
#define PC_NR_process_madvise	      440
/* Where the batched paths run (include/ptecheck/batch.h); no fork, vfork. */
#define PC_NR_exit		      93
#define PC_NR_exit_group	      94
#define PC_NR_shmdt		      197
#define PC_NR_brk		      214
#define PC_NR_munmap		      215
#define PC_NR_clone		      220
#define PC_NR_execve		      221
#define PC_NR_mmap		      222
#define PC_NR_mprotect		      226
#define PC_NR_mlockall		      230
#define PC_NR_munlockall	      231
#define PC_NR_mbind		      235
#define PC_NR_migrate_pages	      238
#define PC_NR_move_pages	      239
#define PC_NR_execveat		      281
#define PC_NR_pkey_mprotect	      288
#define PC_NR_clone3		      435
#define PC_NR_set_mempolicy_home_node 450
#else
#error "ptecheck: syscall numbers of this architecture not known"
#endif

#endif
