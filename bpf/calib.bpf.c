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
#include "folio.bpf.h"
#if defined(__TARGET_ARCH_arm64)
#include <ptecheck/contpte.h>
#endif

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 calib_tgid;
const volatile __u64 calib_uaddr;
const volatile __u64 calib_pfn;
const volatile __u64 calib_magic[2];
const volatile __u64 calib_phys_limit;
const volatile __u32 calib_candidates; /* how many 1 GiB steps to try */
/* A pipe of the calibrating process with one write in it: its first
   buffer's page is a struct page the kernel points to (x86, without a
   vmap'd stack); -1 for none. */
const volatile __s32 calib_pipe_fd = -1;

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

/*
 * The vmemmap: the base whose struct page for calib_pfn is the known
 * page's, an anonymous page of index calib_uaddr >> 12 (do_mmap() sets
 * an anonymous mapping's vm_pgoff to its address) and no tail.  x86: the
 * candidates below a struct page the kernel points to (the task's vmap'd
 * stack), on 1 GiB boundaries (include/ptecheck/batch_walk.h); arm64: the
 * memory model's base for each VA_BITS (include/ptecheck/contpte.h).
 */
struct vm_struct___pc {
	struct page **pages;
} __attribute__((preserve_access_index));
struct pipe_buffer___pc {
	struct page *page;
} __attribute__((preserve_access_index));
struct pipe_inode_info___pc {
	struct pipe_buffer___pc *bufs;
} __attribute__((preserve_access_index));
struct file___pc {
	void *private_data;
} __attribute__((preserve_access_index));
struct fdtable___pc {
	unsigned int max_fds;
	struct file___pc **fd;
} __attribute__((preserve_access_index));
struct files_struct___pc {
	struct fdtable___pc *fdt;
} __attribute__((preserve_access_index));
struct task_struct___pc {
	struct vm_struct___pc *stack_vm_area;
	struct files_struct___pc *files;
} __attribute__((preserve_access_index));

#if !defined(__TARGET_ARCH_arm64)
/* The struct page of the task's vmap'd stack, else of the first buffer
   of its pipe calib_pipe_fd (fs/pipe.c: the first write fills bufs[0]);
   0 for none. */
static __always_inline __u64 some_struct_page(struct task_struct___pc *t)
{
	struct pipe_inode_info___pc *pipe;
	struct fdtable___pc *fdt;
	struct file___pc *file = NULL;
	struct page **pages;
	__u64 page = 0;

	if (bpf_core_field_exists(t->stack_vm_area)) {
		pages = BPF_CORE_READ(t, stack_vm_area, pages);
		if (pages && !bpf_probe_read_kernel(&page, sizeof(page), pages) && page)
			return page;
	}
	if (calib_pipe_fd < 0)
		return 0;
	fdt = BPF_CORE_READ(t, files, fdt);
	if (!fdt || (__u32)calib_pipe_fd >= BPF_CORE_READ(fdt, max_fds) ||
	    bpf_probe_read_kernel(&file, sizeof(file), BPF_CORE_READ(fdt, fd) + calib_pipe_fd) ||
	    !file)
		return 0;
	pipe = (struct pipe_inode_info___pc *)BPF_CORE_READ(file, private_data);
	if (!pipe)
		return 0;
	return (__u64)BPF_CORE_READ(pipe, bufs, page);
}
#endif

static __always_inline bool vmemmap_is(__u64 base, __u64 size)
{
	struct folio *f = (struct folio *)(base + calib_pfn * size);
	unsigned long mapping = 0, index = 0;
	struct pc_folio_at at;

	result.vm_tried++;
	if (bpf_probe_read_kernel(&mapping, sizeof(mapping), &f->mapping) ||
	    bpf_probe_read_kernel(&index, sizeof(index), &f->index))
		return false;
	if (!(mapping & 1) || index != calib_uaddr >> PC_PAGE_SHIFT)
		return false;
	at = pc_folio_of_page((__u64)f);
	return at.head == (__u64)f && at.pages == 1;
}

struct vm_ctx {
	__u64 some_page, size;
};

static long try_vmemmap(__u32 k, void *data)
{
	struct vm_ctx *vc = data;
#if defined(__TARGET_ARCH_arm64)
	static const __u32 va_bits[PC_PTL_CANDIDATES] = PC_PTL_VA_BITS;
	__u64 base = k < PC_PTL_CANDIDATES ? pc_arm64_vmemmap_base(va_bits[k], vc->size) +
						     (result.base >> PC_PAGE_SHIFT) * vc->size
					   : 0;
#else
	__u64 base = pc_vmemmap_candidate_x86(vc->some_page, k);
#endif

	if (!base || !vmemmap_is(base, vc->size))
		return 0;
	result.vmemmap = base;
	result.page_size = vc->size;
	result.vm_code = PC_VM_FOUND;
	return 1;
}

static __always_inline void find_vmemmap(struct task_struct *task)
{
	struct vm_ctx vc = {.size = bpf_core_type_size(struct page)};
	__u32 n;

	result.vm_code = PC_VM_NO_LAYOUT;
	if (!pc_folio_layout_known() || !vc.size || !bpf_core_field_exists(struct folio, index))
		return;
#if defined(__TARGET_ARCH_arm64)
	n = PC_PTL_CANDIDATES;
#else
	result.vm_code = PC_VM_NO_STACK;
	vc.some_page = some_struct_page((struct task_struct___pc *)task);
	if (!vc.some_page)
		return;
	n = pc_vmemmap_candidates_x86(calib_phys_limit, vc.size);
#endif
	result.vm_code = PC_VM_NO_MATCH;
	bpf_loop(n, try_vmemmap, &vc, 0);
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
	result.vm_code = PC_VM_NOT_TRIED;
	if (result.found)
		find_vmemmap(task);
	return 0;
}
