/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where contpte/gather's kernel tier judges contpte_ptep_get: under the
 * page-table lock, read from the page table's struct page (calibrated by
 * trying, bpf/contpte_ptl.bpf.c), in calls by the functions known to hold
 * it (PC_CONTPTE_LOCKED_CALLERS, found in /proc/kallsyms); else inside the
 * mlock/munlock/madvise calls (PC_CP_METHOD_SYSCALLS).
 */
#ifndef PTECHECK_CONTPTE_PTL_H
#define PTECHECK_CONTPTE_PTL_H

#include <stdbool.h>
#include <ptecheck/contpte.h>

struct ptecheck_bpf;

struct pc_cp_judging {
	bool ptl;	/* PC_CP_METHOD_PTL works here */
	char how[480];	/* what was found, or why the lock cannot be read */
	__u32 ptl_mode; /* enum pc_ptl_mode */
	__u64 ptl_base, ptl_off, page_size;
	__u32 n_callers; /* address ranges */
	__u64 lo[PC_CP_MAX_CALLERS], hi[PC_CP_MAX_CALLERS];
	__u32 ctx[PC_CP_MAX_CALLERS];
};

/* The judging of this kernel, found once per process (root: it loads BPF
   and reads kallsyms); on a kernel without contpte_ptep_get, not tried. */
const struct pc_cp_judging *pc_contpte_judging(void);
/* Sets the skeleton's read-only data for j (before load). */
void pc_contpte_judging_apply(const struct pc_cp_judging *j, struct ptecheck_bpf *skel);

#endif
