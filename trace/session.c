// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <ptecheck/disturb.h>
#include <ptecheck/events.h>
#include "ptecheck.skel.h"
#include "cli.h"
#include "report.h"
#include "calib.h"
#include "check_text.h"
#include "load.h"
#include "probe.h"
#include "session.h"
#include "tracefs.h"

const struct pc_trace_path *const pc_trace_paths[PC_N_TRACE_PATHS] = {
#define TRACE_PATH(path) &pc_##path##_trace,
	PC_TRACE_PATHS(TRACE_PATH)
#undef TRACE_PATH
};

/* s->on_violation of event ev: with the evidence kept, else its own. */
static void tell_violation(struct pc_session *s, const struct pc_violation_event *ev,
			   const char *check, const char *tier, const struct pc_evidence *kept)
{
	static struct pc_evidence e; /* large: not on the ring buffer callback's stack */

	if (!kept) {
		e = (struct pc_evidence){.pid = ev->tgid,
					 .addr = ev->old_addr,
					 .new_addr = ev->new_addr,
					 .expected = ev->expected,
					 .seen = ev->seen};
		pc_text_fit(e.what, sizeof(e.what), pc_evidence_text(ev->check, ev->verdict), "");
		pc_stack_evidence(&s->stack_syms, ev, &e);
		kept = &e;
	}
	s->on_violation(s->on_violation_ctx, check, tier, kept);
}

static int handle_event(void *ctx, void *data, size_t size)
{
	struct pc_session *s = ctx;
	const struct pc_violation_event *ev = data;
	const char *check, *tier, *who;
	struct pc_evidence *kept;
	char what[sizeof(kept->what)];
	struct pc_result *res;

	if (size < sizeof(*ev) || !s->report)
		return 0;
	check = pc_check_name(ev->check);
	tier = pc_tier_name(ev->tier);
	res = pc_report_find_result(s->report, check, tier);
	if (!res)
		res = pc_report_add_result(s->report, check, tier, true);
	if (!res)
		return 0;
	who = s->who_is ? s->who_is((int)ev->tgid, NULL) : NULL;
	snprintf(what, sizeof(what), "%s%s%s", pc_evidence_text(ev->check, ev->verdict),
		 who ? "; " : "", who ? who : "");
	kept = pc_result_add_evidence(res, ev->tgid, ev->old_addr, ev->new_addr, ev->expected,
				      ev->seen, what);
	/* Only kept evidence is shown: kallsyms is read for nothing else. */
	if (kept)
		pc_stack_evidence(&s->stack_syms, ev, kept);
	if (s->on_violation)
		tell_violation(s, ev, check, tier, kept);
	return 0;
}

/* p's index in pc_trace_paths (every path is there). */
static int path_index(const struct pc_trace_path *p)
{
	int i = 0;

	while (i < PC_N_TRACE_PATHS - 1 && pc_trace_paths[i] != p)
		i++;
	return i;
}

const struct pc_hook_choice *pc_session_hook(const struct pc_session *s,
					     const struct pc_trace_path *p, int g)
{
	return &s->hooks[path_index(p)][g];
}

bool pc_session_hook_live(const struct pc_session *s, const struct pc_trace_path *p, int g)
{
	return s->loaded && pc_session_hook(s, p, g)->mech != PC_MECH_NONE;
}

const char *pc_session_hook_why(const struct pc_session *s, const struct pc_trace_path *p, int g)
{
	if (pc_session_hook_live(s, p, g))
		return NULL;
	if (!s->loaded)
		return "nothing traced";
	return pc_session_hook(s, p, g)->reason[0] ? pc_session_hook(s, p, g)->reason
						   : "its hook is not attached";
}

bool pc_session_hook_walk_on(const struct pc_session *s, const struct pc_trace_path *p, int g)
{
	return pc_session_hook(s, p, g)->mech != PC_MECH_NONE && pc_calib_vmemmap_ok(&s->calib);
}

const char *pc_session_hook_walk_why(const struct pc_session *s, const struct pc_trace_path *p,
				     int g)
{
	const char *why = pc_session_hook_why(s, p, g);

	return why ? why
		   : pc_calib_vmemmap_why(&s->calib,
					  "no vmemmap: the folios of PTEs cannot be read");
}

const char *pc_session_prog_why(const struct pc_session *s, const struct bpf_program *prog,
				const char *what)
{
	if (pc_session_attached(s, prog))
		return NULL;
	for (int i = 0; i < s->n_refused; i++)
		if (s->refused[i].sys_part < 0 &&
		    !strcmp(s->refused[i].prog, bpf_program__name(prog)))
			return s->refused[i].line;
	return what;
}

bool pc_session_refused(const struct pc_session *s)
{
	return s->n_refused > 0 || s->load_refused;
}

void pc_session_tell_refused(const struct pc_session *s)
{
	for (int i = 0; i < s->n_refused; i++)
		pc_err(0, "%s", s->refused[i].line);
}

bool pc_session_attached(const struct pc_session *s, const struct bpf_program *prog)
{
	for (int i = 0; i < s->n_links; i++)
		if (s->links[i].prog == prog)
			return true;
	return false;
}

bool pc_session_missing(const struct pc_session *s, const struct bpf_program *prog)
{
	return bpf_program__autoload(prog) && !pc_session_attached(s, prog);
}

/* "category/event" of a tracepoint program ("tp/category/event"). */
static const char *tp_event(const struct bpf_program *prog)
{
	const char *sec = bpf_program__section_name(prog), *slash = strchr(sec, '/');

	return slash ? slash + 1 : sec;
}

void pc_session_group_programs(const struct pc_session *s, int p, int g, struct pc_hook_progs *out)
{
	memset(out, 0, sizeof(*out));
	pc_trace_paths[p]->groups[g].programs(s->skel, out);
}

/* A BTF-typed tracepoint program (tp_btf/EVENT). */
static bool btf_tp(const struct bpf_program *prog)
{
	return bpf_program__type(prog) == BPF_PROG_TYPE_TRACING &&
	       bpf_program__expected_attach_type(prog) == BPF_TRACE_RAW_TP;
}

bool pc_session_tracepoint_prog(const struct bpf_program *prog)
{
	return bpf_program__type(prog) == BPF_PROG_TYPE_RAW_TRACEPOINT || btf_tp(prog);
}

/* Whether prog's tracepoint is in this kernel: the BTF type of its
   arguments (raw_tp/ without BTF: attaching tells, and a failure is noted
   like any other). */
bool pc_session_tracepoint_here(const struct bpf_program *prog)
{
	char type[128];

	if (!pc_session_tracepoint_prog(prog))
		return false;
	if (!pc_vmlinux_btf())
		return !btf_tp(prog);
	snprintf(type, sizeof(type), "btf_trace_%s", tp_event(prog));
	return btf__find_by_name_kind(pc_vmlinux_btf(), type, BTF_KIND_TYPEDEF) >= 0;
}

/* Tracepoint programs load when their tracepoint exists; hook programs
   when their group's chosen mechanism names them; nothing else loads. */
void pc_session_select_programs(struct pc_session *s)
{
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, s->skel->obj)
		bpf_program__set_autoload(prog, pc_session_tracepoint_here(prog));
	for (int p = 0; p < PC_N_TRACE_PATHS; p++) {
		for (int g = 0; g < pc_trace_paths[p]->n_groups; g++) {
			struct pc_hook_progs all;
			struct bpf_program *const *on;

			pc_session_group_programs(s, p, g, &all);
			on = pc_hook_chosen(&all, &s->hooks[p][g]);
			for (int k = 0; k < PC_HOOK_PROGS && on[k]; k++)
				bpf_program__set_autoload(on[k], true);
		}
	}
}

/* The walk, and each path's hook groups (those judging against the walk
   only where it runs). */
static void choose(struct pc_session *s, const struct pc_session_opts *o)
{
	/* Calibrated in every session: the batch path's derived source walks
	   too (s->calib); want_walk turns on the checks' walk. */
	char cal[sizeof(s->walk_reason) - 96] = "a given calibration";
	bool ok;

	if (o->calib) {
		s->calib = *o->calib;
		s->walk_phys_limit = o->calib_phys_limit;
		ok = s->calib.valid;
	} else {
		ok = pc_calibrate_walk(&s->calib, &s->walk_phys_limit, cal, sizeof(cal)) == 0;
	}

	s->walk_enabled = ok && o->want_walk;
	snprintf(s->walk_reason, sizeof(s->walk_reason), "%s%s%s",
		 o->want_walk ? ""
			      : "the checks' page-table walk is off here (hist: watch walks and "
				"shows it; calibration: ",
		 cal, o->want_walk ? "" : ")");
	for (int p = 0; p < PC_N_TRACE_PATHS; p++) {
		const struct pc_trace_path *path = pc_trace_paths[p];

		pc_hooks_choose(path->groups, path->n_groups, s->hooks[p]);
		for (int g = 0; g < path->n_groups; g++) {
			struct pc_hook_choice *c = &s->hooks[p][g];

			if (s->walk_enabled || !path->groups[g].needs_walk ||
			    c->mech == PC_MECH_NONE)
				continue;
			c->mech = PC_MECH_NONE;
			snprintf(c->reason, sizeof(c->reason), "page-table walk unavailable: %s",
				 s->walk_reason);
		}
	}
}

static struct bpf_link *attach(struct pc_session *s, struct bpf_program *prog)
{
	struct bpf_link *link = bpf_program__attach(prog);

	if (link) { /* at most once per program: s->links has a slot each */
		s->links[s->n_links].prog = prog;
		s->links[s->n_links++].link = link;
	}
	return link;
}

/* A group is all or nothing: detaches what attached of it, says why. */
static void attach_group(struct pc_session *s, int p, int g)
{
	struct pc_hook_choice *c = &s->hooks[p][g];
	struct bpf_program *const *on;
	struct pc_hook_progs all;
	int k, err, kept = 0;

	pc_session_group_programs(s, p, g, &all);
	on = pc_hook_chosen(&all, c);
	for (k = 0; k < PC_HOOK_PROGS && on[k]; k++)
		if (!attach(s, on[k]))
			break;
	if (k == PC_HOOK_PROGS || !on[k])
		return;
	err = errno;
	snprintf(c->reason, sizeof(c->reason), "%s: program %s did not attach: %s",
		 pc_hook_mech_name(c->mech), bpf_program__name(on[k]), strerror(err));
	c->mech = PC_MECH_NONE;
	for (int i = 0; i < s->n_links; i++) {
		bool ours = false;

		for (int j = 0; j < k; j++)
			ours = ours || s->links[i].prog == on[j];
		if (ours)
			bpf_link__destroy(s->links[i].link);
		else
			s->links[kept++] = s->links[i];
	}
	s->n_links = kept;
}

/* Appends event to a comma-separated list, once. */
static void list_add(char *list, size_t size, const char *event)
{
	size_t used = strlen(list), n = strlen(event);

	for (const char *p = list; (p = strstr(p, event)); p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ',' || p[n] == 0))
			return;
	snprintf(list + used, size - used, "%s%s", used ? ", " : "", event);
}

/* Every tracepoint program whose tracepoint exists; none fails silently:
   the run notes each one that did not attach (and a check that needs one
   says so in its own result too). */
static void attach_tracepoints(struct pc_session *s)
{
#define DISTURB_PROG(category, event)	   s->skel->progs.disturb_##event,
#define DISTURB_SPAN(category, begin, end) DISTURB_PROG(category, begin) DISTURB_PROG(category, end)
	struct bpf_program *const disturbance[] = {PC_DISTURB_EVENTS(DISTURB_PROG, DISTURB_SPAN)
							   s->skel->progs.syscalls_enter,
						   s->skel->progs.syscalls_exit};
#undef DISTURB_PROG
#undef DISTURB_SPAN
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, s->skel->obj)
	{
		if (!pc_session_tracepoint_prog(prog) || !bpf_program__autoload(prog) ||
		    attach(s, prog))
			continue;
		pc_dbg("not attached: %s", tp_event(prog));
		list_add(s->missing_tracepoints, sizeof(s->missing_tracepoints), tp_event(prog));
	}
	s->disturbance_complete = true;
	for (size_t i = 0; i < sizeof(disturbance) / sizeof(disturbance[0]); i++) {
		if (!pc_session_missing(s, disturbance[i]))
			continue;
		s->disturbance_complete = false;
		list_add(s->missing_disturbance, sizeof(s->missing_disturbance),
			 tp_event(disturbance[i]));
	}
}

/* Attaches what loaded; 0, or -errno with s->load_error set. */
static int attach_all(struct pc_session *s)
{
	struct bpf_program *prog;
	size_t n = 0;

	bpf_object__for_each_program(prog, s->skel->obj) n++;
	s->links = calloc(n, sizeof(*s->links));
	if (!s->links) {
		snprintf(s->load_error, sizeof(s->load_error), "links: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	for (int p = 0; p < PC_N_TRACE_PATHS; p++)
		for (int g = 0; g < pc_trace_paths[p]->n_groups; g++)
			if (s->hooks[p][g].mech != PC_MECH_NONE)
				attach_group(s, p, g);
	attach_tracepoints(s);
	return 0;
}

int pc_session_open(struct pc_session *s, const struct pc_session_opts *o)
{
	int err;

	double t0;

	memset(s, 0, sizeof(*s));
	choose(s, o);
	err = pc_load_session(s, o);
	if (err)
		return err;
	s->loaded = true;
	pc_load_measure(s);
	if (o->calib) /* measured only: its addresses are not this kernel's */
		return 0;
	t0 = pc_load_now_ms();
	err = attach_all(s);
	s->attach_ms = pc_load_now_ms() - t0;
	if (!err) {
		s->rb = ring_buffer__new(bpf_map__fd(s->skel->maps.events), handle_event, s, NULL);
		if (!s->rb) {
			err = -errno;
			snprintf(s->load_error, sizeof(s->load_error), "ring buffer: %s",
				 strerror(errno));
		}
	}
	for (int p = 0; !err && p < PC_N_TRACE_PATHS; p++)
		if (pc_trace_paths[p]->ready)
			err = pc_trace_paths[p]->ready(s);
	if (err)
		pc_session_close(s);
	return err;
}

void pc_session_close(struct pc_session *s)
{
	for (int i = 0; i < s->n_links; i++)
		bpf_link__destroy(s->links[i].link);
	free(s->links);
	s->links = NULL;
	s->n_links = 0;
	ring_buffer__free(s->rb);
	s->rb = NULL;
	ptecheck_bpf__destroy(s->skel);
	s->skel = NULL;
	s->loaded = false;
	pc_stack_syms_free(&s->stack_syms);
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

void pc_session_notes(struct pc_session *s, struct pc_report *r)
{
	if (!s->loaded) {
		pc_report_note(r, "in-kernel checks unavailable: %s", s->load_error);
		return;
	}
	pc_report_note(r, "page-table walk: %s", s->walk_reason);
	if (s->skel->rodata->sample_every > 1) {
		pc_report_note(r,
			       "sampled 1 in %u: the checks judged 1 in %u windows of each kind "
			       "(per CPU), and count those only; the histograms count every "
			       "window, but those the page-table walk gives (mremap PTEs and "
			       "PMDs moved per call, 1-PTE mremap batches, contpte gather reads) "
			       "the judged ones, and the derived batch runs the calls walked",
			       s->skel->rodata->sample_every, s->skel->rodata->sample_every);
	}
	for (int p = 0; p < PC_N_TRACE_PATHS; p++)
		for (int g = 0; g < pc_trace_paths[p]->n_groups; g++)
			pc_report_note(r, "%s: %s (%s)", pc_trace_paths[p]->groups[g].name,
				       pc_hook_mech_name(s->hooks[p][g].mech),
				       s->hooks[p][g].reason);
	if (!s->disturbance_complete)
		pc_report_note(r, "disturbance tracepoints missing: %s", s->missing_disturbance);
	if (s->missing_tracepoints[0])
		pc_report_note(r, "tracepoint programs not attached: %s", s->missing_tracepoints);
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

struct pc_result *pc_session_result(struct pc_session *s, struct pc_report *r, __u32 check,
				    __u32 tier)
{
	const char *name = pc_check_name(check), *tier_name = pc_tier_name(tier);
	struct pc_result *res = pc_report_find_result(r, name, tier_name);

	if (!res)
		res = pc_report_add_result(r, name, tier_name, true);
	if (res && !s->loaded) {
		pc_result_set(res, PC_STATUS_SKIP, "%s", s->load_error);
		return NULL;
	}
	return res;
}

/* What the inconclusive are, in every summary. */
#define INCONCLUSIVE "inconclusive (disturbed, shared or unenforced windows), not judged"

void pc_session_judge(struct pc_session *s, struct pc_result *res, __u32 check, __u32 tier,
		      const char *what, const char *none_reason)
{
	struct pc_check_counts c = {};

	sum_percpu(bpf_map__fd(s->skel->maps.counts), check * PC_TIER__COUNT + tier, (__u64 *)&c,
		   sizeof(c) / sizeof(__u64));
	res->checked = c.checked;
	res->violations = c.violations;
	res->inconclusive = c.inconclusive;
	/* Evidence stands only beside counted violations: a call whose
	   window turned out disturbed after its events were sent is not. */
	if (!c.violations)
		res->n_evidence = 0;
	/* Each evaluation is in one counter (include/ptecheck/counts.h). */
	if (c.violations)
		pc_result_set(
			res, PC_STATUS_FAIL,
			"%llu of %llu %s judged violate the invariant; %llu more " INCONCLUSIVE,
			(unsigned long long)c.violations, (unsigned long long)c.checked, what,
			(unsigned long long)c.inconclusive);
	else if (c.checked == 0 && c.inconclusive)
		pc_result_set(res, PC_STATUS_SKIP, "nothing judged: all %llu %s " INCONCLUSIVE,
			      (unsigned long long)c.inconclusive, what);
	else if (c.checked == 0)
		pc_result_set(res, PC_STATUS_SKIP, "%s", none_reason);
	else
		pc_result_set(res, PC_STATUS_PASS,
			      "%llu %s judged in quiet windows; %llu " INCONCLUSIVE
			      "; %llu not applicable",
			      (unsigned long long)c.checked, what,
			      (unsigned long long)c.inconclusive,
			      (unsigned long long)c.not_applicable);
}

/* Histogram id of the array into out (with --by: what no key took). */
static void array_hist(struct pc_session *s, __u32 id, struct pc_hist_report *out)
{
	int fd = bpf_map__fd(s->skel->maps.hists);

	for (__u32 slot = 0; slot < PC_HIST_SLOTS; slot++)
		sum_percpu(fd, id * PC_HIST_SLOTS + slot, &out->slots[slot], 1);
}

/* The sum of histogram id's values into out (not keyed: one sum for all). */
static void hist_sum(struct pc_session *s, __u32 id, struct pc_hist_report *out)
{
	out->has_sum = !sum_percpu(bpf_map__fd(s->skel->maps.hist_sums), id, &out->sum, 1);
}

static struct pc_hist_report *add_hist(struct pc_report *r, const struct pc_trace_hist *t)
{
	struct pc_hist_report *h =
		pc_report_add_hist(r, t->id, t->name, t->unit, t->source, true, t->kind);

	if (h && t->batch_ctx && t->batch_src)
		pc_report_hist_batch(h, t->batch_ctx, t->batch_src);
	return h;
}

/* --by: t once per key the kernel's table holds for it, by events, then
   the events no key took; no event at all: one empty histogram. */
static void keyed_hists(struct pc_session *s, struct pc_report *r, const struct pc_trace_hist *t)
{
	int fd = bpf_map__fd(s->skel->maps.hist_keys), first = r->n_hists;
	struct pc_hist_key key, *prev = NULL;
	struct pc_hist_report rest = {}, *out;
	struct pc_hist_keyed v;
	__u32 by = s->skel->rodata->hist_by;
	__u64 lost;

	for (; !bpf_map_get_next_key(fd, prev, &key); prev = &key) {
		if (key.hist != t->map_id || bpf_map_lookup_elem(fd, &key, &v))
			continue;
		out = add_hist(r, t);
		if (!out)
			return;
		out->by = by;
		out->pid = key.tgid;
		memcpy(out->comm, by == PC_BY_PID ? v.comm : key.comm, sizeof(out->comm));
		memcpy(out->slots, v.slots, sizeof(out->slots));
	}
	array_hist(s, t->map_id, &rest);
	lost = pc_hist_report_total(&rest);
	if (lost || r->n_hists == first) {
		out = add_hist(r, t);
		if (!out)
			return;
		memcpy(out->slots, rest.slots, sizeof(out->slots));
		out->by = lost ? by : PC_BY_NONE;
		out->unattributed = lost > 0;
	}
	if (lost)
		pc_report_note(r,
			       "%s: %llu events not attributed to a %s: the kernel's table of %d "
			       "keys was full (they are in its section \"%s = ?\")",
			       t->name, (unsigned long long)lost, pc_hist_by_name(by),
			       PC_HIST_KEYS_MAX, pc_hist_by_name(by));
	pc_hist_order_keys(&r->hists[first], r->n_hists - first);
}

void pc_session_hists(struct pc_session *s, struct pc_report *r, const struct pc_trace_hist *h,
		      int n)
{
	if (!s->loaded)
		return;
	for (int i = 0; i < n; i++) {
		struct pc_hist_report *out;

		const char *why = h[i].why_not ? h[i].why_not(s) : NULL;

		if (why) {
			/* hist shows histograms only: what it cannot show is its news. */
			if (!strcmp(r->command, "hist"))
				pc_report_note(r, PC_NOT_SHOWN "%s: %s", h[i].name, why);
			continue;
		}
		if (s->skel->rodata->hist_by) {
			keyed_hists(s, r, &h[i]);
			continue;
		}
		out = add_hist(r, &h[i]);
		if (!out)
			continue;
		array_hist(s, h[i].map_id, out);
		hist_sum(s, h[i].map_id, out);
	}
}

__u64 pc_session_stat(struct pc_session *s, __u32 id)
{
	__u64 v = 0;

	if (s->loaded)
		sum_percpu(bpf_map__fd(s->skel->maps.stats), id, &v, 1);
	return v;
}

void pc_session_stats(struct pc_session *s, struct pc_report *r)
{
	pc_load_record(s, r);
	if (!s->loaded)
		return;
	for (__u32 i = 0; i < PC_STAT__COUNT && i < 16; i++)
		sum_percpu(bpf_map__fd(s->skel->maps.stats), i, &r->stats[i], 1);
	r->n_stats = PC_STAT__COUNT;
	/* The counts above are of the windows judged: 1 in this many. */
	if (s->skel->rodata->sample_every > 1)
		r->sample_every = s->skel->rodata->sample_every;
}
