// SPDX-License-Identifier: GPL-2.0
/*
 * Calibration of the page-table walk: find the direct-map base and the
 * number of paging levels of the running kernel by trying, never from its
 * version.  The loader maps a page it filled with random bytes, learns its
 * PFN from /proc/self/pagemap, and calls getpgid(); this program then walks
 * the loader's page tables with each candidate base (1 GiB steps down from
 * the pgd's own address, which lives in the direct map) and level count,
 * and accepts the one whose PTE maps the expected PFN *and* whose direct-map
 * view of that PFN holds the random bytes.
 */
#include "kernel_types.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <ptecheck/events.h>
#include <ptecheck/syscall_nr.h>
#include "ptwalk.h"

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 calib_tgid;
const volatile __u64 calib_uaddr;
const volatile __u64 calib_pfn;
const volatile __u64 calib_magic[2];
const volatile __u64 calib_phys_limit;
const volatile __u32 calib_candidates; /* how many 1 GiB steps to try */

struct calib_result result;

struct loop_ctx {
	__u64 pgd_va;
};

static __always_inline bool try_one(__u64 pgd_va, __u64 base, __u32 levels)
{
	__u64 pmd, pte, magic[2];
	struct pc_pte p;

	if (pc_walk_to_pmd(pgd_va, base, calib_phys_limit, levels, calib_uaddr, &pmd) !=
	    PC_WALK_TABLE)
		return false;
	if (pc_read_phys(base, calib_phys_limit,
			 pc_table_phys(pmd) + ((calib_uaddr >> PC_PAGE_SHIFT) & 511) * 8, &pte))
		return false;
	p = pc_decode_pte(pte);
	if (p.kind != PC_PTE_PRESENT || p.pfn != calib_pfn)
		return false;
	if ((calib_pfn << PC_PAGE_SHIFT) + sizeof(magic) > calib_phys_limit)
		return false;
	if (bpf_probe_read_kernel(magic, sizeof(magic),
				  (void *)(base + (calib_pfn << PC_PAGE_SHIFT))))
		return false;
	return magic[0] == calib_magic[0] && magic[1] == calib_magic[1];
}

static long try_candidate(__u32 k, void *data)
{
	struct loop_ctx *lc = data;
	__u64 base = (lc->pgd_va & ~((1ULL << 30) - 1)) - ((__u64)k << 30);

	result.tried++;
	/* Kernel addresses only: the top bit of a direct-map address is set. */
	if (!(base >> 63))
		return 1;
		/* arm64: 5 levels with 52-bit VAs (LPA2), else 4 (48-bit) or 3 (39-bit). */
#if defined(__TARGET_ARCH_arm64)
	const __u32 levels[3] = {4, 5, 3};
#else
	const __u32 levels[3] = {4, 5, 0};
#endif
	for (int i = 0; i < 3; i++) {
		if (levels[i] && try_one(lc->pgd_va, base, levels[i])) {
			result.base = base;
			result.levels = levels[i];
			result.found = 1;
			return 1;
		}
	}
	return 0;
}

SEC("raw_tp/sys_enter")
int calibrate(struct bpf_raw_tracepoint_args *ctx)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct loop_ctx lc;

	if ((long)ctx->args[1] != PC_NR_getpgid ||
	    (bpf_get_current_pid_tgid() >> 32) != calib_tgid || result.ran)
		return 0;
	result.ran = 1;
	lc.pgd_va = (__u64)BPF_CORE_READ(task, mm, pgd);
	if (!lc.pgd_va)
		return 0;
	bpf_loop(calib_candidates, try_candidate, &lc, 0);
	return 0;
}
