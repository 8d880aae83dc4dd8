// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>
#include "hooks.h"
#include "probe.h"

const char *pc_hook_mech_name(enum pc_hook_mech m)
{
	return m == PC_MECH_FENTRY ? "fentry/fexit" : m == PC_MECH_KPROBE ? "kprobes" : "none";
}

enum pc_tier pc_hook_tier(enum pc_hook_mech m)
{
	return m == PC_MECH_KPROBE ? PC_TIER_KPROBE : PC_TIER_FEXIT;
}

struct bpf_program *const *pc_hook_chosen(const struct pc_hook_progs *all,
					  const struct pc_hook_choice *c)
{
	static struct bpf_program *const none[1];

	if (c->mech == PC_MECH_KPROBE)
		return all->kprobe;
	if (c->mech == PC_MECH_FENTRY)
		return c->legacy_prototype ? all->legacy : all->fentry;
	return none;
}

/* Appends "; what" to a choice's reason. */
static void add_reason(struct pc_hook_choice *c, const char *what)
{
	size_t used = strlen(c->reason);

	snprintf(c->reason + used, sizeof(c->reason) - used, "; %s", what);
}

/* fentry/fexit when the kernel takes them on every function of g. */
static bool try_fentry(const struct pc_hook_group *g, struct pc_hook_choice *c)
{
	char why[256] = "";

	for (int i = 0; g->funcs[i]; i++) {
		if (pc_probe_tracing(g->funcs[i], g->needs_fexit[i], why, sizeof(why)) ||
		    (g->needs_fexit[i] && pc_probe_fentry(g->funcs[i], why, sizeof(why)))) {
			snprintf(c->reason, sizeof(c->reason), "%s", why);
			return false;
		}
	}
	c->mech = PC_MECH_FENTRY;
	snprintf(c->reason, sizeof(c->reason), "fentry/fexit on %s%s%s", g->funcs[0],
		 g->funcs[1] ? " and " : "", g->funcs[1] ? g->funcs[1] : "");
	return true;
}

/* kprobes when every function of g can have one. */
static void try_kprobes(const struct pc_hook_group *g, struct pc_hook_choice *c)
{
	char why[256];
	int n;

	for (n = 0; g->funcs[n]; n++) {
		if (pc_probe_kprobe(g->funcs[n], why, sizeof(why))) {
			add_reason(c, why);
			return;
		}
	}
	c->mech = PC_MECH_KPROBE;
	if (!g->kprobes_only)
		add_reason(c, "using kprobes instead");
	else if (n > 1)
		snprintf(c->reason, sizeof(c->reason), "kprobes on %s and %d more (%s)",
			 g->funcs[0], n - 1, g->kprobes_only);
	else
		snprintf(c->reason, sizeof(c->reason), "kprobe on %s (%s)", g->funcs[0],
			 g->kprobes_only);
}

/* The prototype g's fentry programs were written for. */
static void choose_prototype(const struct pc_hook_group *g, struct pc_hook_choice *c)
{
	char why[256] = "";
	int proto = g->prototype(why, sizeof(why));

	if (proto < 0) {
		c->mech = PC_MECH_NONE;
		if (why[0])
			snprintf(c->reason, sizeof(c->reason), "%s", why);
		else
			snprintf(c->reason, sizeof(c->reason), "%s prototype unreadable",
				 g->funcs[0]);
	}
	c->legacy_prototype = proto == 0;
}

/* fentry if every function takes it (fexit where needed), else kprobes. */
static void choose(const struct pc_hook_group *g, struct pc_hook_choice *c)
{
	memset(c, 0, sizeof(*c));
	if (g->kprobes_only)
		snprintf(c->reason, sizeof(c->reason), "kprobes only (%s)", g->kprobes_only);
	else if (try_fentry(g, c)) {
		if (g->prototype)
			choose_prototype(g, c);
		return;
	}
	if (g->kprobes_only || g->kprobe_fallback)
		try_kprobes(g, c);
}

void pc_hooks_drop_orphans(const struct pc_hook_group *groups, int n, struct pc_hook_choice *choice)
{
	for (int i = 1; i < n; i++) {
		char why[sizeof(choice[i].reason)];

		if (!groups[i].needs_previous || choice[i - 1].mech != PC_MECH_NONE ||
		    choice[i].mech == PC_MECH_NONE)
			continue;
		/* A copy: elements of one array, which gcc cannot tell apart. */
		memcpy(why, choice[i - 1].reason, sizeof(why));
		choice[i].mech = PC_MECH_NONE;
		snprintf(choice[i].reason, sizeof(choice[i].reason),
			 "needs the %s hooks, which are unavailable: %.200s",
			 groups[i - 1].funcs[0], why);
	}
}

void pc_hooks_choose(const struct pc_hook_group *groups, int n, struct pc_hook_choice *choice)
{
	for (int i = 0; i < n; i++)
		choose(&groups[i], &choice[i]);
	pc_hooks_drop_orphans(groups, n, choice);
}
