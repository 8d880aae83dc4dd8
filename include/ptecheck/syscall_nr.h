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
#elif defined(__TARGET_ARCH_arm64) || (!defined(__bpf__) && defined(__aarch64__))
#define PC_NR_getpgid	      155
#define PC_NR_swapoff	      225
#define PC_NR_mremap	      216
#define PC_NR_mlock	      228
#define PC_NR_munlock	      229
#define PC_NR_madvise	      233
#define PC_NR_mlock2	      284
#define PC_NR_process_madvise 440
#else
#error "ptecheck: syscall numbers of this architecture not known"
#endif

#endif
