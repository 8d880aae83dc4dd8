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
