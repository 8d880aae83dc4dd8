/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading a process's page tables from BPF with bpf_probe_read_kernel():
 * works on kernels that refuse fentry and kprobes, because it needs only
 * the mm's pgd (CO-RE) and the kernel's direct map.
 *
 * Safety: a read address is always direct_map_base + phys with phys below
 * phys_limit (the end of System RAM), so with a calibrated base every read
 * lands in the direct map; reads that fault return an error and are
 * counted, never followed.
 */
#ifndef PTECHECK_PTWALK_H
#define PTECHECK_PTWALK_H

#include <ptecheck/pte.h>

#define PC_WALK_NONE  0 /* nothing mapped at this level */
#define PC_WALK_TABLE 1 /* *out is the physical address of the PTE table */
#define PC_WALK_LEAF  2 /* a huge PMD/PUD maps this address */
#define PC_WALK_ERROR 3 /* a read faulted or left RAM */

/* Is an upper-level entry (PGD/P4D/PUD/PMD) a pointer to a next table? */
static __always_inline bool pc_upper_is_table(__u64 e)
{
#if defined(__TARGET_ARCH_arm64)
	return (e & 3) == 3;
#else
	return (e & PC_X86_PRESENT) && !(e & PC_X86_PSE);
#endif
}

static __always_inline bool pc_upper_is_none(__u64 e)
{
#if defined(__TARGET_ARCH_arm64)
	return (e & PC_ARM64_VALID) == 0;
#else
	return (e & PC_X86_PRESENT) == 0;
#endif
}

static __always_inline int pc_read_phys(__u64 base, __u64 phys_limit, __u64 phys, __u64 *out)
{
	if (phys >= phys_limit)
		return -1;
	return bpf_probe_read_kernel(out, sizeof(*out), (void *)(base + phys));
}

/*
 * Walks from the pgd to the PMD entry covering addr.  levels is 3, 4 or 5
 * (4 KiB granule).  On PC_WALK_TABLE, *pmd holds the PMD entry.
 */
static __always_inline int pc_walk_to_pmd(__u64 pgd_va, __u64 base, __u64 phys_limit, __u32 levels,
					  __u64 addr, __u64 *pmd)
{
	__u64 e, next;
	__u32 shift = levels == 5 ? 48 : levels == 4 ? 39 : 30;

	if (bpf_probe_read_kernel(&e, sizeof(e), (void *)(pgd_va + ((addr >> shift) & 511) * 8)))
		return PC_WALK_ERROR;
	/* Upper levels down to the PUD; the PMD level is handled below. */
	for (int lvl = 0; lvl < 3; lvl++) {
		if (shift == PC_PMD_SHIFT)
			break;
		if (pc_upper_is_none(e))
			return PC_WALK_NONE;
		if (!pc_upper_is_table(e))
			return PC_WALK_LEAF;
		shift -= 9;
#if defined(__TARGET_ARCH_arm64)
		next = pc_arm64_table_phys(e);
#else
		next = pc_x86_table_phys(e);
#endif
		if (pc_read_phys(base, phys_limit, next + ((addr >> shift) & 511) * 8, &e))
			return PC_WALK_ERROR;
	}
	*pmd = e;
	if (pc_upper_is_none(e))
		return PC_WALK_NONE;
	if (!pc_upper_is_table(e))
		return PC_WALK_LEAF;
	return PC_WALK_TABLE;
}

#endif
