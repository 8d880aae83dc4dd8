// SPDX-License-Identifier: GPL-2.0
/* The BPF side's syscall numbers are the C library's (a typo fails the build). */
#include <sys/syscall.h>
#include <ptecheck/syscall_nr.h>

#define SAME(name) _Static_assert(PC_NR_##name == SYS_##name, "PC_NR_" #name " is not SYS_" #name);
SAME(getpgid)
SAME(mremap)
SAME(madvise)
SAME(mlock)
SAME(munlock)
SAME(swapoff)
SAME(mlock2)
SAME(process_madvise)
/* include/ptecheck/batch.h */
SAME(brk)
SAME(clone)
SAME(clone3)
SAME(execve)
SAME(execveat)
SAME(exit)
SAME(exit_group)
SAME(mbind)
SAME(migrate_pages)
SAME(mlockall)
SAME(mmap)
SAME(move_pages)
SAME(mprotect)
SAME(munlockall)
SAME(munmap)
SAME(pkey_mprotect)
SAME(set_mempolicy_home_node)
SAME(shmdt)
#if defined(__x86_64__)
SAME(fork)
SAME(vfork)
#endif
