/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The in-kernel hooks beyond tracepoints, grouped by what they check, and
 * the mechanism each group uses on this kernel: fentry/fexit where the
 * kernel accepts a trial program, else kprobes, else none with the reason.
 * Chosen by trying and from BTF, never from the version number; the same
 * choice drives `ptecheck features` and the session that loads them.
 */
#ifndef PTECHECK_HOOKS_H
#define PTECHECK_HOOKS_H

#include <stdbool.h>
#include <ptecheck/events.h>

enum pc_hook_group {
	PC_HOOK_MOVE_PAGE_TABLES = 0, /* per-call range comparison (kernel:fexit) */
	PC_HOOK_CONTPTE_BATCH,	      /* per-batch mremap checks (arm64 contpte) */
	PC_HOOK_FOLIO_PTE_BATCH,      /* batch sizes of zap, mlock, khugepaged */
	PC_HOOK_FILEMAP,	      /* fault-around batches: set_pte_range */
	PC_HOOK_FILEMAP_RMAP,	      /* their rmap: folio_add_file_rmap_ptes */
	PC_HOOK_CONTPTE,	      /* arm64 contpte gather, fold and unfold */
	PC_HOOK_CONTPTE_YOUNG,	      /* arm64 contpte clear-young (v6.16+ name) */
	PC_HOOK__COUNT,
};

enum pc_hook_mech {
	PC_MECH_NONE = 0,
	PC_MECH_FENTRY,
	PC_MECH_KPROBE,
};

struct pc_hook_choice {
	enum pc_hook_mech mech;
	bool legacy_prototype; /* move_page_tables(vma, old_addr, ...) */
	char reason[320];      /* what was tried and what happened */
};

/* Fills choice[PC_HOOK__COUNT] by probing the running kernel. */
void pc_hooks_choose(struct pc_hook_choice *choice);
/* NULL-terminated program names (bpf/mremap.bpf.c) of a group's choice. */
const char *const *pc_hook_programs(enum pc_hook_group g, const struct pc_hook_choice *c);
const char *pc_hook_group_name(enum pc_hook_group g);
const char *pc_hook_mech_name(enum pc_hook_mech m);
/* The report tier of a mechanism: "kernel:fexit" or "kernel:kprobe". */
const char *pc_hook_tier_name(enum pc_hook_mech m);

#endif
