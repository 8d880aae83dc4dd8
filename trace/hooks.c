// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>
#include "hooks.h"
#include "probe.h"

static const char *const mpt_progs[] = {"mpt_entry", "mpt_exit", NULL};
static const char *const mpt_legacy_progs[] = {"mpt_legacy_entry", "mpt_legacy_exit", NULL};
static const char *const contpte_fentry_progs[] = {"clear_fentry", "clear_fexit", "set_fexit",
						   NULL};
static const char *const contpte_kprobe_progs[] = {"clear_kprobe", "clear_kretprobe", "set_kprobe",
						   "set_kretprobe", NULL};
static const char *const fpb_fexit_progs[] = {"fpb_fexit", NULL};
static const char *const fpb_kprobe_progs[] = {"fpb_kretprobe", NULL};
static const char *const fm_fentry_progs[] = {"fm_map_fentry", "fm_map_fexit", "fm_set_fentry",
					      "fm_set_fexit", NULL};
static const char *const fm_kprobe_progs[] = {"fm_map_kprobe", "fm_map_kretprobe", "fm_set_kprobe",
					      "fm_set_kretprobe", NULL};
static const char *const fm_rmap_fentry_progs[] = {"fm_rmap_fentry", "fm_rmap_fexit", NULL};
static const char *const fm_rmap_kprobe_progs[] = {"fm_rmap_kprobe", "fm_rmap_kretprobe", NULL};
static const char *const cp_kprobe_progs[] = {"cp_get_kprobe",
					      "cp_get_kretprobe",
					      "cp_fold_kprobe",
					      "cp_fold_kretprobe",
					      "cp_unfold_kprobe",
					      "cp_unfold_kretprobe",
					      NULL};
static const char *const cp_young_kprobe_progs[] = {"cp_young_kprobe", "cp_young_kretprobe", NULL};
static const char *const no_progs[] = {NULL};

const char *pc_hook_group_name(enum pc_hook_group g)
{
	switch (g) {
	case PC_HOOK_MOVE_PAGE_TABLES:
		return "mremap per call (move_page_tables)";
	case PC_HOOK_CONTPTE_BATCH:
		return "mremap per batch (arm64 contpte_*)";
	case PC_HOOK_FOLIO_PTE_BATCH:
		return "batch sizes (folio_pte_batch)";
	case PC_HOOK_FILEMAP:
		return "fault-around batches (set_pte_range)";
	case PC_HOOK_FILEMAP_RMAP:
		return "fault-around rmap (folio_add_file_rmap_ptes)";
	case PC_HOOK_CONTPTE:
		return "arm64 contpte (gather, fold, unfold)";
	case PC_HOOK_CONTPTE_YOUNG:
		return "arm64 contpte clear-young";
	default:
		return "?";
	}
}

const char *pc_hook_mech_name(enum pc_hook_mech m)
{
	return m == PC_MECH_FENTRY ? "fentry/fexit" : m == PC_MECH_KPROBE ? "kprobes" : "none";
}

const char *pc_hook_tier_name(enum pc_hook_mech m)
{
	return m == PC_MECH_KPROBE ? "kernel:kprobe" : "kernel:fexit";
}

const char *const *pc_hook_programs(enum pc_hook_group g, const struct pc_hook_choice *c)
{
	if (c->mech == PC_MECH_NONE)
		return no_progs;
	switch (g) {
	case PC_HOOK_MOVE_PAGE_TABLES:
		/* fentry only: without it the syscall-walk tier covers the same. */
		return c->legacy_prototype ? mpt_legacy_progs : mpt_progs;
	case PC_HOOK_CONTPTE_BATCH:
		return c->mech == PC_MECH_FENTRY ? contpte_fentry_progs : contpte_kprobe_progs;
	case PC_HOOK_FOLIO_PTE_BATCH:
		return c->mech == PC_MECH_FENTRY ? fpb_fexit_progs : fpb_kprobe_progs;
	case PC_HOOK_FILEMAP:
		return c->mech == PC_MECH_FENTRY ? fm_fentry_progs : fm_kprobe_progs;
	case PC_HOOK_FILEMAP_RMAP:
		return c->mech == PC_MECH_FENTRY ? fm_rmap_fentry_progs : fm_rmap_kprobe_progs;
	case PC_HOOK_CONTPTE:
		return c->mech == PC_MECH_KPROBE ? cp_kprobe_progs : no_progs;
	case PC_HOOK_CONTPTE_YOUNG:
		return c->mech == PC_MECH_KPROBE ? cp_young_kprobe_progs : no_progs;
	default:
		return no_progs;
	}
}

/*
 * Which prototype move_page_tables has: one struct pagetable_move_control
 * pointer (v6.15+), or (vma, old_addr, new_vma, new_addr, len, ...).
 * Returns 1 for the struct form, 0 for the legacy one, -1 when unknown.
 */
static int mpt_prototype(char *why, size_t len)
{
	const struct btf *btf = pc_vmlinux_btf();
	const struct btf_type *fn, *proto, *t;
	const struct btf_param *params;
	int id;

	if (!btf)
		return -1;
	id = btf__find_by_name_kind(btf, "move_page_tables", BTF_KIND_FUNC);
	if (id < 0)
		return -1;
	fn = btf__type_by_id(btf, id);
	proto = fn ? btf__type_by_id(btf, fn->type) : NULL;
	if (!proto || !btf_is_func_proto(proto))
		return -1;
	params = btf_params(proto);
	if (btf_vlen(proto) == 1) {
		t = btf__type_by_id(btf, params[0].type);
		while (t && (btf_is_ptr(t) || btf_is_mod(t) || btf_is_typedef(t)))
			t = btf__type_by_id(btf, t->type);
		if (t && btf_is_struct(t) &&
		    strcmp(btf__name_by_offset(btf, t->name_off), "pagetable_move_control") == 0)
			return 1;
	}
	if (btf_vlen(proto) >= 5)
		return 0;
	snprintf(why, len, "move_page_tables has an unknown prototype (%u parameters)",
		 btf_vlen(proto));
	return -1;
}

/* fentry if every function takes it (fexit where needed), else kprobes.
   needs_fexit NULL: kprobes only (the programs exist in that form only). */
static void choose(struct pc_hook_choice *c, const char *const *funcs, const bool *needs_fexit,
		   bool kprobe_fallback)
{
	char why[256] = "";
	int i;

	c->mech = needs_fexit ? PC_MECH_FENTRY : PC_MECH_NONE;
	for (i = 0; needs_fexit && funcs[i]; i++) {
		if (pc_probe_tracing(funcs[i], needs_fexit[i], why, sizeof(why)) ||
		    (needs_fexit[i] && pc_probe_fentry(funcs[i], why, sizeof(why)))) {
			c->mech = PC_MECH_NONE;
			break;
		}
	}
	if (c->mech == PC_MECH_FENTRY) {
		snprintf(c->reason, sizeof(c->reason), "fentry/fexit on %s%s%s", funcs[0],
			 funcs[1] ? " and " : "", funcs[1] ? funcs[1] : "");
		return;
	}
	snprintf(c->reason, sizeof(c->reason), "%s",
		 needs_fexit ? why
			     : "kprobes only (the contpte programs are kprobes: most of these "
			       "functions pass pte_t by value)");
	if (!kprobe_fallback)
		return;
	for (i = 0; funcs[i]; i++) {
		char kwhy[256];

		if (pc_probe_kprobe(funcs[i], kwhy, sizeof(kwhy))) {
			size_t used = strlen(c->reason);

			snprintf(c->reason + used, sizeof(c->reason) - used, "; %s", kwhy);
			return;
		}
	}
	c->mech = PC_MECH_KPROBE;
	if (needs_fexit) {
		size_t used = strlen(c->reason);

		snprintf(c->reason + used, sizeof(c->reason) - used, "; using kprobes instead");
	} else {
		snprintf(c->reason, sizeof(c->reason), "kprobes on %s and %d more (pte_t by value)",
			 funcs[0], i - 1);
	}
}

void pc_hooks_choose(struct pc_hook_choice *choice)
{
	static const char *const mpt[] = {"move_page_tables", NULL};
	static const bool mpt_fexit[] = {true};
	static const char *const contpte[] = {"contpte_get_and_clear_full_ptes", "contpte_set_ptes",
					      NULL};
	static const bool contpte_fexit[] = {true, true};
	static const char *const fpb[] = {"folio_pte_batch", NULL};
	static const bool fpb_fexit[] = {true};
	static const char *const fm[] = {"set_pte_range", "filemap_map_pages", NULL};
	static const bool fm_fexit[] = {true, true};
	static const char *const fm_rmap[] = {"folio_add_file_rmap_ptes", NULL};
	static const bool fm_rmap_fexit[] = {true};
	static const char *const cp[] = {"contpte_ptep_get", "__contpte_try_fold",
					 "__contpte_try_unfold", NULL};
	static const char *const cp_young[] = {"contpte_test_and_clear_young_ptes", NULL};
	struct pc_hook_choice *c;
	char why[256] = "";
	int proto;

	memset(choice, 0, sizeof(*choice) * PC_HOOK__COUNT);
	c = &choice[PC_HOOK_MOVE_PAGE_TABLES];
	choose(c, mpt, mpt_fexit, false);
	if (c->mech == PC_MECH_FENTRY) {
		proto = mpt_prototype(why, sizeof(why));
		if (proto < 0) {
			c->mech = PC_MECH_NONE;
			snprintf(c->reason, sizeof(c->reason), "%s",
				 why[0] ? why : "move_page_tables prototype unreadable");
		}
		c->legacy_prototype = proto == 0;
	}
	choose(&choice[PC_HOOK_CONTPTE_BATCH], contpte, contpte_fexit, true);
	choose(&choice[PC_HOOK_FOLIO_PTE_BATCH], fpb, fpb_fexit, true);
	choose(&choice[PC_HOOK_FILEMAP], fm, fm_fexit, true);
	choose(&choice[PC_HOOK_FILEMAP_RMAP], fm_rmap, fm_rmap_fexit, true);
	choose(&choice[PC_HOOK_CONTPTE], cp, NULL, true);
	choose(&choice[PC_HOOK_CONTPTE_YOUNG], cp_young, NULL, true);
	/* The rmap programs continue what the set_pte_range ones begin. */
	if (choice[PC_HOOK_FILEMAP].mech == PC_MECH_NONE &&
	    choice[PC_HOOK_FILEMAP_RMAP].mech != PC_MECH_NONE) {
		choice[PC_HOOK_FILEMAP_RMAP].mech = PC_MECH_NONE;
		snprintf(choice[PC_HOOK_FILEMAP_RMAP].reason,
			 sizeof(choice[PC_HOOK_FILEMAP_RMAP].reason),
			 "needs the set_pte_range hooks, which are unavailable");
	}
}
