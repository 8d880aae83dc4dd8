// SPDX-License-Identifier: GPL-2.0
/*
 * Calibration of the page-table lock read (trace/contpte_ptl.c): where the
 * split lock of a page table lives, found by trying against the kernel's
 * own answers.  The loader reads its own /proc/self/pagemap over pages in
 * two page tables; every pte_offset_map_lock() of that thread returns the
 * table's entry and, through ptlp, the lock it took.  For each such call
 * this program records the table, the lock and its word while held (must
 * be non-zero), the word of the previous lock at the next call's entry
 * (free again: zero), and which struct page base makes the lock found from
 * the entry's address the kernel's: the arm64 memory model's base for each
 * VA_BITS, with the lock in the struct page or pointed to by it.  Its own
 * object and skeleton (contpte_ptl.skel.h), as calib.bpf.c: loaded alone
 * before the session, then unloaded.
 */
#include "kernel_types.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include <ptecheck/contpte.h>

/* struct ptdesc (include/linux/mm_types.h, v6.5+): the lock or a pointer
   to it shares a word with _pt_pad_2. */
struct ptdesc___pc {
	unsigned long _pt_pad_2;
} __attribute__((preserve_access_index));

const volatile __u64 cal_pid_tgid; /* the calibrating thread */

static const __u32 cal_va_bits[PC_PTL_CANDIDATES] = PC_PTL_VA_BITS;

/* The answers (plain words: the skeleton needs no shared struct). */
__u32 cal_ran, cal_n, cal_free_reads, cal_free_zero;
__u64 cal_ptl_off, cal_page_size;
__u64 cal_table[PC_PTL_PAIRS], cal_lock[PC_PTL_PAIRS];
__u32 cal_held_word[PC_PTL_PAIRS], cal_embedded[PC_PTL_PAIRS], cal_pointer[PC_PTL_PAIRS];
static __u64 cal_ptlp;

SEC("kprobe/pte_offset_map_lock")
int BPF_KPROBE(contpte_ptl_cal_entry, void *mm, void *pmd, unsigned long addr, void **ptlp)
{
	__u32 n = cal_n, word = 1;

	if (bpf_get_current_pid_tgid() != cal_pid_tgid)
		return 0;
	cal_ptlp = (__u64)ptlp;
	if (n == 0 || n > PC_PTL_PAIRS)
		return 0;
	/* Before this call takes a lock, the last one taken is free again. */
	cal_free_reads++;
	if (!bpf_probe_read_kernel(&word, sizeof(word), (void *)cal_lock[n - 1]) && !word)
		cal_free_zero++;
	return 0;
}

SEC("kretprobe/pte_offset_map_lock")
int BPF_KRETPROBE(contpte_ptl_cal_exit, __u64 ret)
{
	__u64 lock = 0, off, size, page, ptr;
	__u32 n = cal_n;

	if (bpf_get_current_pid_tgid() != cal_pid_tgid || !ret || !cal_ptlp)
		return 0;
	cal_ran = 1;
	if (!bpf_core_field_exists(struct ptdesc___pc, _pt_pad_2))
		return 0;
	off = bpf_core_field_offset(struct ptdesc___pc, _pt_pad_2);
	size = bpf_core_type_size(struct page);
	cal_ptl_off = off;
	cal_page_size = size;
	if (n >= PC_PTL_PAIRS || bpf_probe_read_kernel(&lock, sizeof(lock), (void *)cal_ptlp))
		return 0;
	cal_table[n] = ret & ~((1ULL << PC_PAGE_SHIFT) - 1);
	cal_lock[n] = lock;
	bpf_probe_read_kernel(&cal_held_word[n], sizeof(cal_held_word[n]), (void *)lock);
	for (int c = 0; c < PC_PTL_CANDIDATES; c++) {
		page = pc_ptdesc_of(pc_arm64_vmemmap_base(cal_va_bits[c], size), size, ret);
		if (page + off == lock)
			cal_embedded[n] |= 1U << c;
		if (!bpf_probe_read_kernel(&ptr, sizeof(ptr), (void *)(page + off)) && ptr == lock)
			cal_pointer[n] |= 1U << c;
	}
	cal_n = n + 1;
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
