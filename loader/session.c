// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <ptecheck/events.h>
#include "mremap.skel.h"
#include "common.h"
#include "session.h"
#include "tracefs.h"

static const char *const check_names[PC_CHK__COUNT] = {
	[PC_CHK_MOVED] = "mremap/moved",
	[PC_CHK_ADBITS] = "mremap/ad-bits",
	[PC_CHK_PERMS] = "mremap/perms",
	[PC_CHK_PMD_MOVE] = "mremap/pmd-move",
	[PC_CHK_FOLIO_INTACT] = "mremap/folio-intact",
	[PC_CHK_BATCH] = "mremap/batch",
};

const char *pc_check_name(__u32 check)
{
	return check < PC_CHK__COUNT ? check_names[check] : "unknown";
}

static const char *const verdict_text[PC_V__COUNT] = {
	[PC_OK] = "ok",
	[PC_NOT_APPLICABLE] = "not applicable",
	[PC_V_PTE_LOST] = "present PTE lost",
	[PC_V_PTE_INVENTED] = "PTE appeared in an empty slot",
	[PC_V_PFN_CHANGED] = "PFN changed",
	[PC_V_KIND_CHANGED] = "swap/other entry changed kind",
	[PC_V_YOUNG_LOST] = "accessed bit lost",
	[PC_V_DIRTY_LOST] = "dirty bit lost",
	[PC_V_WRITE_GAINED] = "read-only PTE became writable",
	[PC_V_WRITE_LOST] = "writable PTE became read-only",
	[PC_V_PMD_NOT_MOVED] = "whole aligned PMD moved PTE by PTE",
	[PC_V_ORDER_CHANGED] = "folio order changed",
	[PC_V_BATCH_EMPTY] = "empty batch",
	[PC_V_BATCH_OUTSIDE_FOLIO] = "batch leaves its folio",
	[PC_V_BATCH_CROSSES_PMD] = "batch crosses a page-table boundary",
	[PC_V_BATCH_SUM] = "batches do not add up to PTEs moved",
	[PC_V_DATA_LOST] = "written data lost",
	[PC_V_REFERENCED_SHORT] = "fewer referenced pages than touched",
	[PC_V_COW_BROKEN] = "write leaked into a process sharing the page",
};

const char *pc_verdict_text(__u32 v)
{
	return v < PC_V__COUNT && verdict_text[v] ? verdict_text[v] : "violation";
}

static int handle_event(void *ctx, void *data, size_t size)
{
	struct pc_session *s = ctx;
	const struct pc_violation_event *ev = data;
	struct pc_result *res;

	if (size < sizeof(*ev) || !s->report)
		return 0;
	res = pc_report_find_result(s->report, pc_check_name(ev->check), "kernel:syscall-walk");
	if (!res)
		res = pc_report_add_result(s->report, pc_check_name(ev->check),
					   "kernel:syscall-walk", true);
	if (res)
		pc_result_add_evidence(res, ev->tgid, ev->old_addr, ev->new_addr, ev->expected,
				       ev->seen, pc_verdict_text(ev->verdict));
	return 0;
}

/* Programs whose tracepoint is missing are not loaded; the rest are. */
static void select_programs(struct pc_session *s)
{
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, s->skel->obj)
	{
		const char *sec = bpf_program__section_name(prog);

		/* "tp/<category>/<event>" */
		if (strncmp(sec, "tp/", 3) == 0 && !pc_tracepoint_exists(sec + 3))
			bpf_program__set_autoload(prog, false);
	}
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
	s->skel = mremap_bpf__open();
	if (!s->skel) {
		err = -errno;
		snprintf(s->load_error, sizeof(s->load_error), "cannot open BPF object: %s",
			 strerror(errno));
		return err;
	}
	s->skel->rodata->filter_mode = o->filter_mode;
	if (o->comm)
		strncpy((char *)s->skel->rodata->filter_comm, o->comm, 15);
	s->skel->rodata->walk_enabled = s->walk_enabled;
	s->skel->rodata->walk_base = s->calib.direct_map_base;
	s->skel->rodata->walk_levels = s->calib.levels;
	s->skel->rodata->walk_phys_limit = phys_limit;
	select_programs(s);
	err = mremap_bpf__load(s->skel);
	if (err) {
		snprintf(s->load_error, sizeof(s->load_error),
			 "the kernel refused the tracepoint programs: %s", strerror(-err));
		mremap_bpf__destroy(s->skel);
		s->skel = NULL;
		return err;
	}
	s->loaded = true;
	s->disturbance_complete = true;
	bpf_object__for_each_program(prog, s->skel->obj)
	{
		const char *sec = bpf_program__section_name(prog);
		const char *event = strncmp(sec, "tp/", 3) == 0 ? sec + 3 : sec;
		bool disturbance = strncmp(bpf_program__name(prog), "disturb_", 8) == 0;
		struct bpf_link *link = NULL;

		if (bpf_program__autoload(prog) && s->n_links < PC_SESSION_MAX_LINKS)
			link = bpf_program__attach(prog);
		if (link) {
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
		if (disturbance) {
			size_t used = strlen(s->missing_disturbance);

			s->disturbance_complete = false;
			snprintf(s->missing_disturbance + used,
				 sizeof(s->missing_disturbance) - used, "%s%s", used ? ", " : "",
				 event);
		}
	}
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
	ring_buffer__free(s->rb);
	s->rb = NULL;
	mremap_bpf__destroy(s->skel);
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
	int n = ring_buffer__poll(s->rb, timeout_ms);

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

static void check_counts(struct pc_session *s, __u32 check, struct pc_check_counts *c)
{
	memset(c, 0, sizeof(*c));
	sum_percpu(bpf_map__fd(s->skel->maps.counts), check * PC_TIER__COUNT + PC_TIER_SYSCALL_WALK,
		   (__u64 *)c, sizeof(*c) / sizeof(__u64));
}

void pc_session_mremap_results(struct pc_session *s, struct pc_report *r)
{
	static const __u32 checks[] = {PC_CHK_MOVED, PC_CHK_ADBITS, PC_CHK_PERMS, PC_CHK_PMD_MOVE};

	pc_session_poll(s, 0);
	for (size_t i = 0; i < sizeof(checks) / sizeof(checks[0]); i++) {
		const char *name = pc_check_name(checks[i]);
		struct pc_result *res = pc_report_find_result(r, name, "kernel:syscall-walk");
		struct pc_check_counts c;

		if (!res)
			res = pc_report_add_result(r, name, "kernel:syscall-walk", true);
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
		check_counts(s, checks[i], &c);
		res->checked = c.checked;
		res->violations = c.violations;
		res->inconclusive = c.inconclusive;
		/* Evidence stands only beside counted violations: a call whose
		   window turned out disturbed after its events were sent is not. */
		if (!c.violations)
			res->n_evidence = 0;
		if (c.violations) {
			pc_result_set(
				res, PC_STATUS_FAIL, "%llu of %llu entries violate the invariant",
				(unsigned long long)c.violations, (unsigned long long)c.checked);
		} else if (c.checked == 0) {
			pc_result_set(res, PC_STATUS_SKIP,
				      "nothing to judge: no eligible entry in any traced mremap"
				      "%s",
				      c.inconclusive ? " (all windows disturbed)" : "");
		} else {
			pc_result_set(res, PC_STATUS_PASS,
				      "%llu entries judged in quiet windows; %llu inconclusive "
				      "(disturbed), %llu not applicable",
				      (unsigned long long)c.checked,
				      (unsigned long long)c.inconclusive,
				      (unsigned long long)c.not_applicable);
		}
		if (checks[i] == PC_CHK_ADBITS && res->status != PC_STATUS_FAIL &&
		    !s->disturbance_complete) {
			/* Without seeing every reclaim path a lost bit proves nothing. */
			pc_result_set(res, PC_STATUS_SKIP,
				      "cannot observe concurrent reclaim/writeback (%s missing)",
				      s->missing_disturbance);
		}
	}
}

static const struct {
	__u32 id;
	__u32 kind;
	const char *name;
	const char *unit;
	const char *source;
	bool filemap;
} hist_info[] = {
	{PC_HIST_MREMAP_LATENCY_NS, PC_HIST_LOG2, "mremap latency", "ns",
	 "tracepoint syscalls:sys_{enter,exit}_mremap", false},
	{PC_HIST_MREMAP_TLB_FLUSHES, PC_HIST_LINLOG, "mremap TLB flushes per call", "flushes",
	 "tracepoint tlb:tlb_flush inside mremap", false},
	{PC_HIST_MREMAP_PTES_MOVED, PC_HIST_LINLOG, "mremap present PTEs moved per call", "PTEs",
	 "page-table walk at syscall entry/exit", false},
	{PC_HIST_MREMAP_PMDS_MOVED, PC_HIST_LINLOG, "mremap PMD-level moves per call", "PMDs",
	 "page-table walk at syscall entry/exit", false},
	{PC_HIST_FAULTAROUND_PAGES, PC_HIST_LINLOG, "fault-around window per fault", "pages",
	 "tracepoint filemap:mm_filemap_map_pages", true},
};

void pc_session_hists(struct pc_session *s, struct pc_report *r, bool with_filemap)
{
	int fd;

	if (!s->loaded)
		return;
	fd = bpf_map__fd(s->skel->maps.hists);
	for (size_t i = 0; i < sizeof(hist_info) / sizeof(hist_info[0]); i++) {
		struct pc_hist_report *h;

		if (hist_info[i].filemap && (!with_filemap || !s->filemap_attached))
			continue;
		if (hist_info[i].id == PC_HIST_MREMAP_TLB_FLUSHES && !s->tlb_attached)
			continue;
		if ((hist_info[i].id == PC_HIST_MREMAP_PTES_MOVED ||
		     hist_info[i].id == PC_HIST_MREMAP_PMDS_MOVED) &&
		    !s->walk_enabled)
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
