/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The in-kernel hooks beyond tracepoints, grouped by what they check (each
 * path lists its groups in trace/<path>.c), and the mechanism each group
 * uses on this kernel: fentry/fexit where the kernel accepts a trial
 * program, else kprobes, else none with the reason.  Chosen by trying and
 * from BTF, never from the version number; the same choice drives
 * `ptecheck features` and the session that loads them.
 */
#ifndef PTECHECK_HOOKS_H
#define PTECHECK_HOOKS_H

#include "check_text.h" /* pc_tier_name */

#include <stdbool.h>
#include <stddef.h>
#include <ptecheck/events.h>

struct bpf_program;
struct ptecheck_bpf;

#define PC_HOOK_FUNCS 4 /* kernel functions per group, at most */
#define PC_HOOK_PROGS 8 /* programs per group and mechanism, at most */

enum pc_hook_mech {
	PC_MECH_NONE = 0,
	PC_MECH_FENTRY,
	PC_MECH_KPROBE,
};

/* A group's programs for each mechanism (NULL-terminated), found in a
   skeleton by the group's programs(). */
struct pc_hook_progs {
	struct bpf_program *fentry[PC_HOOK_PROGS]; /* fentry/fexit */
	struct bpf_program *legacy[PC_HOOK_PROGS]; /* fentry/fexit, the legacy prototype */
	struct bpf_program *kprobe[PC_HOOK_PROGS]; /* kprobe/kretprobe */
};

/* Hooks that check one thing together: all of them attach, or none. */
struct pc_hook_group {
	const char *name;		  /* "mremap per call (move_page_tables)" */
	const char *funcs[PC_HOOK_FUNCS]; /* the kernel functions, NULL-terminated */
	bool needs_fexit[PC_HOOK_FUNCS];  /* per function: fexit too, not fentry only */
	/* Why the group has kprobe programs only; NULL: fentry/fexit first. */
	const char *kprobes_only;
	bool kprobe_fallback; /* and kprobe programs where fentry is refused */
	bool needs_previous;  /* continues what the previous group's programs begin */
	bool needs_walk;      /* judges against the page-table walk */
	/* The function's prototype where it changed: 1 the current one, 0 the
	   legacy one (its programs in legacy[]), -1 unknown with why. */
	int (*prototype)(char *why, size_t len);
	void (*programs)(const struct ptecheck_bpf *skel, struct pc_hook_progs *out);
};

struct pc_hook_choice {
	enum pc_hook_mech mech;
	bool legacy_prototype; /* the programs for the legacy prototype */
	char reason[320];      /* what was tried and what happened */
};

/* Fills choice[n] for groups[n] by probing the running kernel. */
void pc_hooks_choose(const struct pc_hook_group *groups, int n, struct pc_hook_choice *choice);
/* Turns off each group that continues what the one before it begins
   (needs_previous) where that one is off, saying why: alone it would
   judge half a story.  After the choice, and after a refusal. */
void pc_hooks_drop_orphans(const struct pc_hook_group *groups, int n,
			   struct pc_hook_choice *choice);
/* The programs of a choice among all of a group's (NULL-terminated). */
struct bpf_program *const *pc_hook_chosen(const struct pc_hook_progs *all,
					  const struct pc_hook_choice *c);
const char *pc_hook_mech_name(enum pc_hook_mech m);
/* The tier a mechanism's checks report: PC_TIER_FEXIT or PC_TIER_KPROBE. */
enum pc_tier pc_hook_tier(enum pc_hook_mech m);

#endif
