// SPDX-License-Identifier: GPL-2.0
/*
 * The paths' hook groups against the tracing object they load (trace/
 * <path>.c, bpf/<path>.bpf.c): every program of the object is either a
 * tracepoint program or named by exactly one hook group, each group has
 * programs for every mechanism it may be given, and each program a group
 * names has the section of its mechanism.  Opens the skeleton only (no
 * load): needs no privilege.
 */
#include <string.h>
#include <bpf/libbpf.h>
#include "batch.h"
#include "path.h"
#include "ptecheck.skel.h"
#include "report.h"
#include "session.h"
#include "tap.h"

/* How many groups name prog, over every path and mechanism. */
static int groups_naming(const struct ptecheck_bpf *skel, const struct bpf_program *prog)
{
	int n = 0;

	for (int p = 0; p < PC_N_TRACE_PATHS; p++) {
		for (int g = 0; g < pc_trace_paths[p]->n_groups; g++) {
			struct pc_hook_progs all = {0};
			struct bpf_program *const *lists[] = {all.fentry, all.legacy, all.kprobe};

			pc_trace_paths[p]->groups[g].programs(skel, &all);
			for (size_t l = 0; l < 3; l++)
				for (int k = 0; k < PC_HOOK_PROGS && lists[l][k]; k++)
					n += lists[l][k] == prog;
		}
	}
	return n;
}

/* id starts with the path's name and '/'. */
static bool named_for_path(const char *id, const char *path)
{
	size_t n = strlen(path);

	return strncmp(id, path, n) == 0 && id[n] == '/';
}

/* name starts with prefix and '_'. */
static bool named_for(const char *name, const char *prefix)
{
	size_t n = strlen(prefix);

	return strncmp(name, prefix, n) == 0 && name[n] == '_';
}

/* Every program of list is named for path. */
static bool names_carry(struct bpf_program *const *list, const char *path)
{
	for (int k = 0; k < PC_HOOK_PROGS && list[k]; k++)
		if (!named_for(bpf_program__name(list[k]), path))
			return false;
	return true;
}

/* Every program of list has a section starting with one of prefixes. */
static bool sections_are(struct bpf_program *const *list, const char *a, const char *b)
{
	for (int k = 0; k < PC_HOOK_PROGS && list[k]; k++) {
		const char *sec = bpf_program__section_name(list[k]);

		if (strncmp(sec, a, strlen(a)) && strncmp(sec, b, strlen(b)))
			return false;
	}
	return true;
}

static void check_group(const struct ptecheck_bpf *skel, const struct pc_trace_path *p, int g)
{
	const struct pc_hook_group *grp = &p->groups[g];
	bool fentry = !grp->kprobes_only, kprobe = grp->kprobes_only || grp->kprobe_fallback;
	struct pc_hook_progs all = {0};

	grp->programs(skel, &all);
	TAP_CHECK(grp->name && grp->funcs[0], "%s group %d has a name and functions", p->name, g);
	TAP_CHECK(!fentry == !all.fentry[0], "%s: %s: fentry programs iff it may use fentry",
		  p->name, grp->name);
	TAP_CHECK(!grp->prototype == !all.legacy[0],
		  "%s: %s: legacy-prototype programs iff it reads the prototype", p->name,
		  grp->name);
	TAP_CHECK(!kprobe == !all.kprobe[0], "%s: %s: kprobe programs iff it may use kprobes",
		  p->name, grp->name);
	TAP_CHECK(sections_are(all.fentry, "fentry/", "fexit/") &&
			  sections_are(all.legacy, "fentry/", "fexit/") &&
			  sections_are(all.kprobe, "kprobe/", "kretprobe/"),
		  "%s: %s: each program has its mechanism's section", p->name, grp->name);
	TAP_CHECK(names_carry(all.fentry, p->name) && names_carry(all.legacy, p->name) &&
			  names_carry(all.kprobe, p->name),
		  "%s: %s: every program's name carries the path", p->name, grp->name);
	TAP_CHECK(!grp->needs_previous || g > 0, "%s: %s: a group it continues exists", p->name,
		  grp->name);
}

/* Every histogram id a session can report: valid, each path's under its
   name, the batch path's "<context>/batch/<source>", none twice (the gate
   and the exporter key on them). */
static void check_hist_ids(void)
{
	static char ids[PC_BCTX__COUNT * PC_BSRC__COUNT + 64][PC_HIST_ID_MAX];
	int n = 0, bad = 0, dup = 0;

	for (int p = 0; p < PC_N_TRACE_PATHS; p++)
		for (int i = 0; i < pc_trace_paths[p]->n_hist_table && n < 64; i++) {
			const char *id = pc_trace_paths[p]->hist_table[i].id;

			if (!pc_hist_id_valid(id) || !named_for_path(id, pc_trace_paths[p]->name)) {
				tap_diag("%s: histogram id \"%s\"", pc_trace_paths[p]->name, id);
				bad++;
			}
			snprintf(ids[n++], PC_HIST_ID_MAX, "%s", id);
		}
	for (__u32 src = 0; src < PC_BSRC__COUNT; src++)
		for (__u32 ctx = 0; ctx < PC_BCTX__COUNT; ctx++) {
			pc_batch_hist_id(src, ctx, ids[n], PC_HIST_ID_MAX);
			if (!pc_hist_id_valid(ids[n]) || !strstr(ids[n], "/batch/")) {
				tap_diag("batch histogram id \"%s\"", ids[n]);
				bad++;
			}
			n++;
		}
	for (int i = 0; i < n; i++)
		for (int k = 0; k < i; k++)
			if (!strcmp(ids[i], ids[k])) {
				tap_diag("histogram id \"%s\" twice", ids[i]);
				dup++;
			}
	TAP_CHECK(n > PC_BSRC__COUNT * PC_BCTX__COUNT && !bad && !dup,
		  "%d histogram ids: valid, each path's under its name, none twice", n);
}

int main(void)
{
	struct ptecheck_bpf *skel = ptecheck_bpf__open();
	struct bpf_program *prog;
	int stray = 0, unnamed = 0;

	tap_plan(0);
	if (!skel) {
		TAP_CHECK(skel, "the tracing object opens");
		return tap_finish();
	}
	/* The paths of include/ptecheck/paths.list, in its order, then batch. */
#define TRACE_PATH_NAME(path) #path,
	{
		static const char *const names[] = {PC_TRACE_PATHS(TRACE_PATH_NAME)};
		bool same = PC_N_TRACE_PATHS == sizeof(names) / sizeof(names[0]) &&
			    !strcmp(pc_trace_paths[PC_N_TRACE_PATHS - 1]->name, "batch");

		for (int p = 0; same && p < PC_N_TRACE_PATHS; p++)
			same = !strcmp(pc_trace_paths[p]->name, names[p]);
		TAP_CHECK(same,
			  "the session traces the %d paths of paths.list in its order, "
			  "then batch",
			  PC_N_PATHS);
	}
#undef TRACE_PATH_NAME
	check_hist_ids();
	for (int p = 0; p < PC_N_TRACE_PATHS; p++) {
		TAP_CHECK(pc_trace_paths[p]->n_groups <= PC_PATH_GROUPS,
			  "%s: at most %d hook groups", pc_trace_paths[p]->name, PC_PATH_GROUPS);
		for (int g = 0; g < pc_trace_paths[p]->n_groups; g++)
			check_group(skel, pc_trace_paths[p], g);
	}
	bpf_object__for_each_program(prog, skel->obj)
	{
		const char *name = bpf_program__name(prog);
		bool tp = pc_session_tracepoint_prog(prog);
		int n = groups_naming(skel, prog);
		/* syscalls_: the one program at each syscall tracepoint, for all. */
		bool whose = named_for(name, "disturb") || named_for(name, "common") ||
			     named_for(name, "syscalls");

		for (int p = 0; p < PC_N_TRACE_PATHS; p++)
			whose = whose || named_for(name, pc_trace_paths[p]->name);
		if (!whose) {
			unnamed++;
			tap_diag("%s: not named for a path, disturb_, common_ or syscalls_", name);
		}
		if (tp ? n == 0 : n == 1)
			continue;
		stray++;
		tap_diag("%s (%s): named by %d hook groups", name, bpf_program__section_name(prog),
			 n);
	}
	TAP_CHECK_EQ(stray, 0,
		     "every program is a tracepoint program (raw_tp/ or tp_btf/) or in exactly one "
		     "hook group");
	TAP_CHECK_EQ(unnamed, 0, "every program's name says whose it is");
	ptecheck_bpf__destroy(skel);
	return tap_finish();
}
