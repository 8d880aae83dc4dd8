// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <ptecheck/events.h>
#include "ptecheck.skel.h"
#include "cli.h"
#include "report.h"
#include "calib.h"
#include "check_text.h"
#include "probe.h"
#include "session.h"
#include "tracefs.h"

static const char *tier_name(__u32 tier)
{
	switch (tier) {
	case PC_TIER_SYSCALL_WALK:
		return "kernel:syscall-walk";
	case PC_TIER_FEXIT:
		return "kernel:fexit";
	case PC_TIER_KPROBE:
		return "kernel:kprobe";
	default:
		return "oracle";
	}
}

static int handle_event(void *ctx, void *data, size_t size)
{
	struct pc_session *s = ctx;
	const struct pc_violation_event *ev = data;
	struct pc_result *res;

	if (size < sizeof(*ev) || !s->report)
		return 0;
	res = pc_report_find_result(s->report, pc_check_name(ev->check), tier_name(ev->tier));
	if (!res)
		res = pc_report_add_result(s->report, pc_check_name(ev->check), tier_name(ev->tier),
					   true);
	if (res)
		pc_result_add_evidence(res, ev->tgid, ev->old_addr, ev->new_addr, ev->expected,
				       ev->seen, pc_evidence_text(ev->check, ev->verdict));
	return 0;
}

/* The hook group a program belongs to, or -1 for tracepoint programs. */
static int program_group(const struct pc_session *s, const char *name)
{
	for (int g = 0; g < PC_HOOK__COUNT; g++) {
		static const struct pc_hook_choice fentry = {.mech = PC_MECH_FENTRY};
		static const struct pc_hook_choice fentry_legacy = {.mech = PC_MECH_FENTRY,
								    .legacy_prototype = true};
		static const struct pc_hook_choice kprobe = {.mech = PC_MECH_KPROBE};
		const struct pc_hook_choice *all[] = {&fentry, &fentry_legacy, &kprobe};

		(void)s;
		for (size_t k = 0; k < 3; k++)
			for (const char *const *p = pc_hook_programs(g, all[k]); *p; p++)
				if (strcmp(*p, name) == 0)
					return g;
	}
	return -1;
}

/*
 * Tracepoint programs load when their tracepoint exists; hook programs
 * when their group's chosen mechanism names them (with_hooks), else not.
 */
static void select_programs(struct pc_session *s, bool with_hooks)
{
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, s->skel->obj)
	{
		const char *sec = bpf_program__section_name(prog);
		const char *name = bpf_program__name(prog);
		int g = program_group(s, name);
		bool on = false;

		if (g < 0) {
			/* "tp/<category>/<event>" */
			on = strncmp(sec, "tp/", 3) != 0 || pc_tracepoint_exists(sec + 3);
		} else if (with_hooks) {
			for (const char *const *p = pc_hook_programs(g, &s->hooks[g]); *p; p++)
				on = on || strcmp(*p, name) == 0;
		}
		bpf_program__set_autoload(prog, on);
	}
}

/* Opens and loads the object; 0 or -errno. */
static int load_object(struct pc_session *s, const struct pc_session_opts *o, __u64 phys_limit,
		       bool with_hooks)
{
	s->skel = ptecheck_bpf__open();
	if (!s->skel)
		return -errno;
	s->skel->rodata->filter_mode = o->filter_mode;
	if (o->comm)
		strncpy((char *)s->skel->rodata->filter_comm, o->comm, 15);
	s->skel->rodata->walk_enabled = s->walk_enabled;
	s->skel->rodata->walk_base = s->calib.direct_map_base;
	s->skel->rodata->walk_levels = s->calib.levels;
	s->skel->rodata->walk_phys_limit = phys_limit;
	s->skel->rodata->batch_hooks =
		with_hooks && s->hooks[PC_HOOK_CONTPTE_BATCH].mech != PC_MECH_NONE;
	s->skel->rodata->batch_tier = s->hooks[PC_HOOK_CONTPTE_BATCH].mech == PC_MECH_KPROBE
					      ? PC_TIER_KPROBE
					      : PC_TIER_FEXIT;
	s->skel->rodata->filemap_tier =
		s->hooks[PC_HOOK_FILEMAP].mech == PC_MECH_KPROBE ? PC_TIER_KPROBE : PC_TIER_FEXIT;
	select_programs(s, with_hooks);
	return ptecheck_bpf__load(s->skel);
}

/* A group is all or nothing: detach what attached of it and say why. */
static void hook_failed(struct pc_session *s, int group, const char *prog, int err)
{
	struct pc_hook_choice *c = &s->hooks[group];
	int kept = 0;

	if (c->mech == PC_MECH_NONE)
		return;
	snprintf(c->reason, sizeof(c->reason), "%s: program %s did not attach: %s",
		 pc_hook_mech_name(c->mech), prog, strerror(err < 0 ? -err : err));
	c->mech = PC_MECH_NONE;
	for (int i = 0; i < s->n_links; i++) {
		if (s->link_group[i] == group) {
			bpf_link__destroy(s->links[i]);
			continue;
		}
		s->link_group[kept] = s->link_group[i];
		s->links[kept++] = s->links[i];
	}
	s->n_links = kept;
}

int pc_session_open(struct pc_session *s, const struct pc_session_opts *o)
{
	struct bpf_program *prog;
	__u64 phys_limit = 0;
	int err;

	memset(s, 0, sizeof(*s));
	if (o->want_walk) {
		err = pc_calibrate_walk(&s->calib, &phys_limit, s->walk_reason,
					sizeof(s->walk_reason));
		s->walk_enabled = err == 0;
	} else {
		snprintf(s->walk_reason, sizeof(s->walk_reason), "page-table walk not requested");
	}
	pc_hooks_choose(s->hooks);
	if (!s->walk_enabled && s->hooks[PC_HOOK_MOVE_PAGE_TABLES].mech != PC_MECH_NONE) {
		s->hooks[PC_HOOK_MOVE_PAGE_TABLES].mech = PC_MECH_NONE;
		snprintf(s->hooks[PC_HOOK_MOVE_PAGE_TABLES].reason,
			 sizeof(s->hooks[PC_HOOK_MOVE_PAGE_TABLES].reason),
			 "page-table walk unavailable: %s", s->walk_reason);
	}
	err = load_object(s, o, phys_limit, true);
	if (err) {
		/* Try once more with tracepoints only, and say why the hooks are off. */
		char why[200];

		snprintf(why, sizeof(why), "the kernel refused the hook programs: %s",
			 strerror(-err));
		ptecheck_bpf__destroy(s->skel);
		s->skel = NULL;
		for (int g = 0; g < PC_HOOK__COUNT; g++) {
			if (s->hooks[g].mech == PC_MECH_NONE)
				continue;
			s->hooks[g].mech = PC_MECH_NONE;
			snprintf(s->hooks[g].reason, sizeof(s->hooks[g].reason), "%s", why);
		}
		err = load_object(s, o, phys_limit, false);
	}
	if (err) {
		snprintf(s->load_error, sizeof(s->load_error),
			 "the kernel refused the tracepoint programs: %s", strerror(-err));
		ptecheck_bpf__destroy(s->skel);
		s->skel = NULL;
		return err;
	}
	s->loaded = true;
	s->disturbance_complete = true;
	s->locked_walks_traced = true;
	s->cap_links = 0;
	bpf_object__for_each_program(prog, s->skel->obj) s->cap_links++;
	s->links = calloc(s->cap_links, sizeof(*s->links));
	s->link_group = calloc(s->cap_links, sizeof(*s->link_group));
	if (!s->links || !s->link_group) {
		snprintf(s->load_error, sizeof(s->load_error), "links: %s", strerror(ENOMEM));
		pc_session_close(s);
		return -ENOMEM;
	}
	bpf_object__for_each_program(prog, s->skel->obj)
	{
		const char *sec = bpf_program__section_name(prog);
		const char *event = strncmp(sec, "tp/", 3) == 0 ? sec + 3 : sec;
		bool disturbance = strncmp(bpf_program__name(prog), "disturb_", 8) == 0;
		struct bpf_link *link = NULL;

		int group = program_group(s, bpf_program__name(prog));

		if (!bpf_program__autoload(prog))
			continue;
		link = bpf_program__attach(prog);
		if (group >= 0) {
			if (link) {
				s->link_group[s->n_links] = group;
				s->links[s->n_links++] = link;
				continue;
			}
			hook_failed(s, group, bpf_program__name(prog), -errno);
			continue;
		}
		if (link) {
			s->link_group[s->n_links] = -1;
			s->links[s->n_links++] = link;
			s->n_attached++;
			if (strcmp(event, "tlb/tlb_flush") == 0)
				s->tlb_attached = true;
			if (strcmp(event, "filemap/mm_filemap_map_pages") == 0)
				s->filemap_attached = true;
			if (strcmp(event, "syscalls/sys_exit_mremap") == 0)
				s->mremap_attached++;
			if (strcmp(event, "syscalls/sys_enter_mremap") == 0)
				s->mremap_attached++;
			continue;
		}
		s->n_attach_failed++;
		pc_dbg("not attached: %s", event);
		/* Nothing fails silently: the run notes every one (a check that
		   needs one says so in its own result too). */
		{
			size_t used = strlen(s->missing_tracepoints);

			snprintf(s->missing_tracepoints + used,
				 sizeof(s->missing_tracepoints) - used, "%s%s", used ? ", " : "",
				 event);
		}
		if (strncmp(bpf_program__name(prog), "cp_enter_", 9) == 0 ||
		    strncmp(bpf_program__name(prog), "cp_exit_", 8) == 0)
			s->locked_walks_traced = false;
		if (disturbance) {
			size_t used = strlen(s->missing_disturbance);

			s->disturbance_complete = false;
			snprintf(s->missing_disturbance + used,
				 sizeof(s->missing_disturbance) - used, "%s%s", used ? ", " : "",
				 event);
		}
	}
	for (int g = 0; g < PC_HOOK__COUNT; g++)
		s->hook_live[g] = s->hooks[g].mech != PC_MECH_NONE;
	s->rb = ring_buffer__new(bpf_map__fd(s->skel->maps.events), handle_event, s, NULL);
	if (!s->rb) {
		err = -errno;
		snprintf(s->load_error, sizeof(s->load_error), "ring buffer: %s", strerror(errno));
		pc_session_close(s);
		return err;
	}
	if (s->mremap_attached != 2) {
		snprintf(s->load_error, sizeof(s->load_error),
			 "cannot attach to syscalls:sys_{enter,exit}_mremap");
		pc_session_close(s);
		return -ENOENT;
	}
	return 0;
}

void pc_session_close(struct pc_session *s)
{
	for (int i = 0; i < s->n_links; i++)
		bpf_link__destroy(s->links[i]);
	s->n_links = 0;
	free(s->links);
	free(s->link_group);
	s->links = NULL;
	s->link_group = NULL;
	s->cap_links = 0;
	ring_buffer__free(s->rb);
	s->rb = NULL;
	ptecheck_bpf__destroy(s->skel);
	s->skel = NULL;
	s->loaded = false;
}

int pc_session_track(struct pc_session *s, int tgid, __u32 flags)
{
	__u32 key = tgid;

	if (bpf_map__update_elem(s->skel->maps.tracked, &key, sizeof(key), &flags, sizeof(flags),
				 BPF_ANY))
		return -errno;
	return 0;
}

int pc_session_untrack(struct pc_session *s, int tgid)
{
	__u32 key = tgid;

	if (bpf_map__delete_elem(s->skel->maps.tracked, &key, sizeof(key), 0))
		return -errno;
	return 0;
}

int pc_session_disturb_fd(const struct pc_session *s)
{
	return s->skel ? bpf_map__fd(s->skel->maps.disturb) : -1;
}

int pc_session_poll(struct pc_session *s, int timeout_ms)
{
	int n;

	if (!s->rb) /* nothing loaded: nothing to drain */
		return 0;
	n = ring_buffer__poll(s->rb, timeout_ms);

	return n < 0 && n != -EINTR ? n : 0;
}

/* Sums a per-CPU map value of n u64 words at key into out. */
static int sum_percpu(int fd, __u32 key, __u64 *out, int words)
{
	int ncpu = libbpf_num_possible_cpus();
	__u64 *vals;

	if (ncpu <= 0)
		return -EINVAL;
	vals = calloc((size_t)ncpu * words, sizeof(__u64));
	if (!vals)
		return -ENOMEM;
	if (bpf_map_lookup_elem(fd, &key, vals)) {
		free(vals);
		return -errno;
	}
	memset(out, 0, sizeof(__u64) * words);
	for (int c = 0; c < ncpu; c++)
		for (int w = 0; w < words; w++)
			out[w] += vals[c * words + w];
	free(vals);
	return 0;
}

static void check_counts(struct pc_session *s, __u32 check, __u32 tier, struct pc_check_counts *c)
{
	memset(c, 0, sizeof(*c));
	sum_percpu(bpf_map__fd(s->skel->maps.counts), check * PC_TIER__COUNT + tier, (__u64 *)c,
		   sizeof(*c) / sizeof(__u64));
}

/* Pass, fail or skip of one (check, tier) from its counters. */
static void judge_counts(struct pc_result *res, const struct pc_check_counts *c, const char *what,
			 const char *none_reason)
{
	res->checked = c->checked;
	res->violations = c->violations;
	res->inconclusive = c->inconclusive;
	/* Evidence stands only beside counted violations: a call whose
	   window turned out disturbed after its events were sent is not. */
	if (!c->violations)
		res->n_evidence = 0;
	if (c->violations)
		pc_result_set(res, PC_STATUS_FAIL, "%llu of %llu %s violate the invariant",
			      (unsigned long long)c->violations, (unsigned long long)c->checked,
			      what);
	else if (c->checked == 0)
		pc_result_set(res, PC_STATUS_SKIP, "%s%s", none_reason,
			      c->inconclusive ? " (all windows disturbed)" : "");
	else
		pc_result_set(res, PC_STATUS_PASS,
			      "%llu %s judged in quiet windows; %llu inconclusive (disturbed), "
			      "%llu not applicable",
			      (unsigned long long)c->checked, what,
			      (unsigned long long)c->inconclusive,
			      (unsigned long long)c->not_applicable);
}

static struct pc_result *result_for(struct pc_report *r, const char *name, const char *tier)
{
	struct pc_result *res = pc_report_find_result(r, name, tier);

	return res ? res : pc_report_add_result(r, name, tier, true);
}

/* Results of the hook tiers (kernel:fexit, kernel:kprobe), skips included. */
static void hook_results(struct pc_session *s, struct pc_report *r)
{
	static const __u32 per_call[] = {PC_CHK_MOVED, PC_CHK_ADBITS, PC_CHK_PERMS,
					 PC_CHK_PMD_MOVE};
	const struct pc_hook_choice *mpt = &s->hooks[PC_HOOK_MOVE_PAGE_TABLES];
	const struct pc_hook_choice *bat = &s->hooks[PC_HOOK_CONTPTE_BATCH];
	bool mpt_live = s->loaded && s->hook_live[PC_HOOK_MOVE_PAGE_TABLES];
	bool bat_live = s->loaded && s->hook_live[PC_HOOK_CONTPTE_BATCH];
	const char *bat_tier = pc_hook_tier_name(bat_live ? bat->mech : PC_MECH_FENTRY);
	struct pc_check_counts c, b;
	struct pc_result *res;

	for (size_t i = 0; i < sizeof(per_call) / sizeof(per_call[0]); i++) {
		bool with_batches =
			per_call[i] == PC_CHK_ADBITS && bat_live && bat->mech == PC_MECH_FENTRY;

		res = result_for(r, pc_check_name(per_call[i]), "kernel:fexit");
		if (!res)
			continue;
		if (!s->loaded) {
			pc_result_set(res, PC_STATUS_SKIP, "%s", s->load_error);
			continue;
		}
		if (!mpt_live && !with_batches) {
			pc_result_set(res, PC_STATUS_SKIP, "no fexit on move_page_tables: %s",
				      mpt->reason);
			continue;
		}
		check_counts(s, per_call[i], PC_TIER_FEXIT, &c);
		judge_counts(res, &c,
			     per_call[i] == PC_CHK_PMD_MOVE ? "PMD extents"
			     : with_batches && mpt_live	    ? "entries and batches"
			     : with_batches		    ? "batches"
							    : "entries",
			     "nothing to judge: no eligible entry in any traced move_page_tables");
	}
	/* ad-bits per batch through kprobes has its own tier line. */
	if (bat_live && bat->mech == PC_MECH_KPROBE) {
		res = result_for(r, pc_check_name(PC_CHK_ADBITS), "kernel:kprobe");
		check_counts(s, PC_CHK_ADBITS, PC_TIER_KPROBE, &c);
		if (res)
			judge_counts(res, &c, "batches",
				     "no batch of 2 or more PTEs in any traced mremap");
	}
	res = result_for(r, pc_check_name(PC_CHK_BATCH), bat_tier);
	if (!res)
		return;
	if (!s->loaded) {
		pc_result_set(res, PC_STATUS_SKIP, "%s", s->load_error);
		return;
	}
	if (!bat_live) {
		pc_result_set(res, PC_STATUS_SKIP,
			      "no per-batch hook here: %s (mremap batches pass no other "
			      "out-of-line function; on x86 they are 1 PTE by design)",
			      bat->reason);
		return;
	}
	check_counts(s, PC_CHK_BATCH, bat->mech == PC_MECH_KPROBE ? PC_TIER_KPROBE : PC_TIER_FEXIT,
		     &b);
	judge_counts(res, &b, "batch facts",
		     "no batch of 2 or more PTEs in any traced mremap: this kernel moved every "
		     "PTE on its own (see the batch histogram)");
}

void pc_session_mremap_results(struct pc_session *s, struct pc_report *r)
{
	static const __u32 checks[] = {PC_CHK_MOVED, PC_CHK_ADBITS, PC_CHK_PERMS, PC_CHK_PMD_MOVE};

	pc_session_poll(s, 0);
	for (size_t i = 0; i < sizeof(checks) / sizeof(checks[0]); i++) {
		const char *name = pc_check_name(checks[i]);
		struct pc_result *res = result_for(r, name, "kernel:syscall-walk");
		struct pc_check_counts c;

		if (!res)
			continue;
		if (!s->loaded) {
			pc_result_set(res, PC_STATUS_SKIP, "%s", s->load_error);
			continue;
		}
		if (!s->walk_enabled) {
			pc_result_set(res, PC_STATUS_SKIP, "page-table walk unavailable: %s",
				      s->walk_reason);
			continue;
		}
		check_counts(s, checks[i], PC_TIER_SYSCALL_WALK, &c);
		judge_counts(res, &c, checks[i] == PC_CHK_PMD_MOVE ? "PMD extents" : "entries",
			     "nothing to judge: no eligible entry in any traced mremap");
		if (checks[i] == PC_CHK_ADBITS && res->status != PC_STATUS_FAIL &&
		    !s->disturbance_complete) {
			/* Without seeing every reclaim path a lost bit proves nothing. */
			pc_result_set(res, PC_STATUS_SKIP,
				      "cannot observe concurrent reclaim/writeback (%s missing)",
				      s->missing_disturbance);
		}
	}
	hook_results(s, r);
}

void pc_session_filemap_results(struct pc_session *s, struct pc_report *r)
{
	static const __u32 checks[] = {PC_CHK_FM_BOUNDS, PC_CHK_FM_PTES_SET, PC_CHK_FM_RMAP};
	const struct pc_hook_choice *fm = &s->hooks[PC_HOOK_FILEMAP];
	bool live = s->loaded && s->hook_live[PC_HOOK_FILEMAP];
	const char *tier = pc_hook_tier_name(live ? fm->mech : PC_MECH_FENTRY);

	pc_session_poll(s, 0);
	for (size_t i = 0; i < sizeof(checks) / sizeof(checks[0]); i++) {
		struct pc_result *res = result_for(r, pc_check_name(checks[i]), tier);
		struct pc_check_counts c;

		if (!res)
			continue;
		if (!s->loaded) {
			pc_result_set(res, PC_STATUS_SKIP, "%s", s->load_error);
			continue;
		}
		if (!live && !pc_kernel_has_func("set_pte_range")) {
			/* A fact about this kernel, not a missing permission. */
			pc_result_set(
				res, PC_STATUS_SKIP,
				"this kernel has no set_pte_range: no folio-based fault-around, "
				"it maps one page per call (see the fault-around window "
				"histogram)");
			continue;
		}
		if (!live) {
			pc_result_set(res, PC_STATUS_SKIP, "no hook on set_pte_range: %s",
				      fm->reason);
			continue;
		}
		if (checks[i] == PC_CHK_FM_RMAP && !s->hook_live[PC_HOOK_FILEMAP_RMAP]) {
			pc_result_set(res, PC_STATUS_SKIP,
				      "no hook on folio_add_file_rmap_ptes: %s",
				      s->hooks[PC_HOOK_FILEMAP_RMAP].reason);
			continue;
		}
		check_counts(s, checks[i],
			     fm->mech == PC_MECH_KPROBE ? PC_TIER_KPROBE : PC_TIER_FEXIT, &c);
		judge_counts(res, &c, checks[i] == PC_CHK_FM_PTES_SET ? "entries" : "batches",
			     "nothing to judge: no fault-around batch in any traced process");
	}
}

void pc_session_contpte_results(struct pc_session *s, struct pc_report *r)
{
	static const __u32 checks[] = {PC_CHK_CP_GATHER, PC_CHK_CP_FOLD, PC_CHK_CP_YOUNG};
	static const char *const what[] = {"contpte_ptep_get calls in locked walks",
					   "folds and unfolded entries", "clear-young calls"};
	const struct pc_hook_choice *cp = &s->hooks[PC_HOOK_CONTPTE];
	bool live = s->loaded && s->hook_live[PC_HOOK_CONTPTE];

	pc_session_poll(s, 0);
	for (size_t i = 0; i < sizeof(checks) / sizeof(checks[0]); i++) {
		struct pc_result *res = result_for(r, pc_check_name(checks[i]), "kernel:kprobe");
		struct pc_check_counts c;

		if (!res)
			continue;
		if (!s->loaded) {
			pc_result_set(res, PC_STATUS_SKIP, "%s", s->load_error);
			continue;
		}
		if (!live && !pc_kernel_has_func("contpte_ptep_get")) {
			pc_result_set(res, PC_STATUS_SKIP,
				      "this kernel has no contpte_ptep_get: contiguous PTEs exist "
				      "only on arm64 kernels with CONFIG_ARM64_CONTPTE");
			continue;
		}
		if (!live) {
			pc_result_set(res, PC_STATUS_SKIP, "no hook on the contpte functions: %s",
				      cp->reason);
			continue;
		}
		if (checks[i] == PC_CHK_CP_YOUNG && !s->hook_live[PC_HOOK_CONTPTE_YOUNG]) {
			pc_result_set(res, PC_STATUS_SKIP, "no hook on clear-young: %s",
				      s->hooks[PC_HOOK_CONTPTE_YOUNG].reason);
			continue;
		}
		if (checks[i] == PC_CHK_CP_GATHER && !s->locked_walks_traced) {
			pc_result_set(
				res, PC_STATUS_SKIP,
				"the mlock/munlock/madvise tracepoints that mark locked walks "
				"did not attach (%s)",
				s->missing_tracepoints);
			continue;
		}
		check_counts(s, checks[i], PC_TIER_KPROBE, &c);
		judge_counts(res, &c, what[i],
			     "nothing to judge: no such call in any traced process's locked walk");
	}
}

static const struct {
	__u32 id;
	__u32 kind;
	const char *name;
	const char *unit;
	const char *source;
	const char *path;
} hist_info[] = {
	{PC_HIST_MREMAP_LATENCY_NS, PC_HIST_LOG2, "mremap latency", "ns",
	 "tracepoint syscalls:sys_{enter,exit}_mremap", "mremap"},
	{PC_HIST_MREMAP_TLB_FLUSHES, PC_HIST_LINLOG, "mremap TLB flushes per call", "flushes",
	 "tracepoint tlb:tlb_flush inside mremap", "mremap"},
	{PC_HIST_MREMAP_PTES_MOVED, PC_HIST_LINLOG, "mremap present PTEs moved per call", "PTEs",
	 "page-table walk at syscall entry/exit", "mremap"},
	{PC_HIST_MREMAP_PMDS_MOVED, PC_HIST_LINLOG, "mremap PMD-level moves per call", "PMDs",
	 "page-table walk at syscall entry/exit", "mremap"},
	{PC_HIST_FAULTAROUND_PAGES, PC_HIST_LINLOG, "fault-around window per fault", "pages",
	 "tracepoint filemap:mm_filemap_map_pages", "filemap"},
	{PC_HIST_BATCH_MREMAP, PC_HIST_LINLOG, "mremap PTEs per batch", "PTEs",
	 "contpte_set_ptes per batch of 2+; batches of 1 = PTEs moved minus those", "mremap"},
	{PC_HIST_FPB_IN_MREMAP, PC_HIST_LINLOG, "folio_pte_batch() nr inside mremap", "PTEs",
	 "folio_pte_batch return value", "mremap"},
	{PC_HIST_BATCH_OTHER, PC_HIST_LINLOG,
	 "folio_pte_batch() nr outside mremap (zap, mlock, ...)", "PTEs",
	 "folio_pte_batch return value", "mremap"},
	{PC_HIST_FM_SET_PTE_RANGE_NR, PC_HIST_LINLOG, "fault-around PTEs per set_pte_range", "PTEs",
	 "set_pte_range nr", "filemap"},
	{PC_HIST_FM_RMAP_NR, PC_HIST_LINLOG, "file rmap pages per folio_add_file_rmap_ptes",
	 "pages", "folio_add_file_rmap_ptes nr", "filemap"},
	{PC_HIST_CP_GATHER_READS, PC_HIST_LINLOG, "contpte_ptep_get: entries the gather loop reads",
	 "entries", "derived from the block at entry (loop stops once young and dirty seen)",
	 "contpte"},
	{PC_HIST_CP_YOUNG_NR, PC_HIST_LINLOG, "contpte_test_and_clear_young_ptes nr", "PTEs",
	 "kprobe argument", "contpte"},
	{PC_HIST_FM_FOLIO_ORDER, PC_HIST_LINLOG, "fault-around batches by folio order", "order",
	 "set_pte_range folio (0: 4 KiB, 4: 64 KiB, 9: 2 MiB)", "filemap"},
};

void pc_session_hists(struct pc_session *s, struct pc_report *r, const char *path)
{
	int fd;

	if (!s->loaded)
		return;
	fd = bpf_map__fd(s->skel->maps.hists);
	for (size_t i = 0; i < sizeof(hist_info) / sizeof(hist_info[0]); i++) {
		struct pc_hist_report *h;

		if (strcmp(hist_info[i].path, path) != 0)
			continue;
		if (hist_info[i].id == PC_HIST_FAULTAROUND_PAGES && !s->filemap_attached)
			continue;
		if (hist_info[i].id == PC_HIST_MREMAP_TLB_FLUSHES && !s->tlb_attached)
			continue;
		if ((hist_info[i].id == PC_HIST_MREMAP_PTES_MOVED ||
		     hist_info[i].id == PC_HIST_MREMAP_PMDS_MOVED) &&
		    !s->walk_enabled)
			continue;
		if (hist_info[i].id == PC_HIST_BATCH_MREMAP &&
		    !(s->hook_live[PC_HOOK_CONTPTE_BATCH] && s->walk_enabled))
			continue;
		if ((hist_info[i].id == PC_HIST_FPB_IN_MREMAP ||
		     hist_info[i].id == PC_HIST_BATCH_OTHER) &&
		    !s->hook_live[PC_HOOK_FOLIO_PTE_BATCH])
			continue;
		if ((hist_info[i].id == PC_HIST_FM_SET_PTE_RANGE_NR ||
		     hist_info[i].id == PC_HIST_FM_FOLIO_ORDER) &&
		    !s->hook_live[PC_HOOK_FILEMAP])
			continue;
		if (hist_info[i].id == PC_HIST_FM_RMAP_NR && !s->hook_live[PC_HOOK_FILEMAP_RMAP])
			continue;
		if (hist_info[i].id == PC_HIST_CP_GATHER_READS && !s->hook_live[PC_HOOK_CONTPTE])
			continue;
		if (hist_info[i].id == PC_HIST_CP_YOUNG_NR && !s->hook_live[PC_HOOK_CONTPTE_YOUNG])
			continue;
		h = pc_report_add_hist(r, hist_info[i].name, hist_info[i].unit, hist_info[i].source,
				       true, hist_info[i].kind);
		if (!h)
			continue;
		for (__u32 slot = 0; slot < PC_HIST_SLOTS; slot++)
			sum_percpu(fd, hist_info[i].id * PC_HIST_SLOTS + slot, &h->slots[slot], 1);
	}
}

void pc_session_stats(struct pc_session *s, struct pc_report *r)
{
	if (!s->loaded)
		return;
	for (__u32 i = 0; i < PC_STAT__COUNT && i < 16; i++)
		sum_percpu(bpf_map__fd(s->skel->maps.stats), i, &r->stats[i], 1);
	r->n_stats = PC_STAT__COUNT;
}
