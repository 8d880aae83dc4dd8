// SPDX-License-Identifier: GPL-2.0
/*
 * The batch path's batched-helper sources (bpf/batch.bpf.c has
 * folio_pte_batch): the nr argument of each out-of-line helper the kernel
 * calls with a whole batch, counted at entry in the histogram of its
 * source and of the context it runs in (bpf/batch.bpf.h).
 *
 *   folio_remove_rmap_ptes(folio, page, nr, vma)        zap's rmap removal
 *   arm64, where set_ptes & co. reach them only for nr > 1 (a batch of one
 *   takes the inline path and is not seen):
 *   contpte_set_ptes(mm, addr, ptep, pte, nr)           fault, fork, mprotect
 *   contpte_get_and_clear_full_ptes(mm, addr, ptep, nr, full)   zap
 *   contpte_clear_full_ptes(mm, addr, ptep, nr, full)   zap
 *   contpte_wrprotect_ptes(mm, addr, ptep, nr)          fork (COW)
 *   contpte_clear_young_dirty_ptes(vma, addr, ptep, nr, flags)  MADV_FREE
 *   modify_prot_start_ptes(vma, addr, ptep, nr)         mprotect (every nr)
 *
 * Each as fentry, or kprobe where the trampoline refuses the function
 * (contpte_set_ptes passes pte_t by value); trace/batch.c chooses.
 */
#include "batch.bpf.h"

static __always_inline void helper_batch(__u32 src, __u64 nr)
{
	if (pc_batch_counted())
		pc_batch_add(src, pc_batch_ctx_now(), nr);
}

/* The fentry and kprobe programs of FUNC, whose argument nr (declared
   with the ones before it) is a batch of source SRC. */
#define PC_BATCH_HELPER(name, func, src, ...)                                                      \
	SEC("fentry/" #func)                                                                       \
	int BPF_PROG(name##_fentry, __VA_ARGS__)                                                   \
	{                                                                                          \
		helper_batch(src, nr);                                                             \
		return 0;                                                                          \
	}                                                                                          \
	SEC("kprobe/" #func)                                                                       \
	int BPF_KPROBE(name##_kprobe, __VA_ARGS__)                                                 \
	{                                                                                          \
		helper_batch(src, nr);                                                             \
		return 0;                                                                          \
	}

PC_BATCH_HELPER(batch_rmap, folio_remove_rmap_ptes, PC_BSRC_RMAP_REMOVE, void *folio, void *page,
		int nr)
PC_BATCH_HELPER(batch_cp_set, contpte_set_ptes, PC_BSRC_CP_SET, void *mm, unsigned long addr,
		void *ptep, __u64 pte, unsigned int nr)
PC_BATCH_HELPER(batch_cp_get_clear, contpte_get_and_clear_full_ptes, PC_BSRC_CP_CLEAR, void *mm,
		unsigned long addr, void *ptep, unsigned int nr)
PC_BATCH_HELPER(batch_cp_clear, contpte_clear_full_ptes, PC_BSRC_CP_CLEAR, void *mm,
		unsigned long addr, void *ptep, unsigned int nr)
PC_BATCH_HELPER(batch_cp_wrprotect, contpte_wrprotect_ptes, PC_BSRC_CP_WRPROTECT, void *mm,
		unsigned long addr, void *ptep, unsigned int nr)
PC_BATCH_HELPER(batch_cp_prot, modify_prot_start_ptes, PC_BSRC_CP_PROT, void *vma,
		unsigned long addr, void *ptep, unsigned int nr)
PC_BATCH_HELPER(batch_cp_young_dirty, contpte_clear_young_dirty_ptes, PC_BSRC_CP_YOUNG_DIRTY,
		void *vma, unsigned long addr, void *ptep, unsigned int nr)
