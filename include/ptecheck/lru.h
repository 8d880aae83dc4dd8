/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The per-thread state maps (mremap's calls, the derived walk's states)
 * are LRU hashes with one LRU list per CPU: the common LRU refills a
 * CPU's free list by evicting up to 128 entries of the shared list at
 * once (kernel/bpf/bpf_lru_list.c, LOCAL_FREE_TARGET), live ones among
 * them, where a per-CPU list evicts its own least recent few.  Shared by
 * the BPF maps and the loader that sizes them.
 */
#ifndef PTECHECK_LRU_H
#define PTECHECK_LRU_H

#define PC_LRU_PER_CPU	   (1U << 1) /* BPF_F_NO_COMMON_LRU (uapi linux/bpf.h) */
#define PC_LRU_PER_CPU_MIN 8	     /* entries each CPU's list gets at least */

#endif
