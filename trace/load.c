// SPDX-License-Identifier: GPL-2.0
/*
 * Loading the tracing object part by part (trace/load.h).  libbpf loads an
 * object whole or not at all, and a refused program takes the others with
 * it; so a refusal is read from libbpf's words (the program that failed,
 * and in the verifier's log the global function being verified and the
 * reason), that program's unit is turned off, and the object is opened
 * and loaded again.  A unit is a hook group, a tracepoint program, or one
 * part of the syscall dispatcher (its handler's read-only switch).
 */
#define _GNU_SOURCE /* memmem */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <ptecheck/fault.h>
#include <ptecheck/lru.h>
#include "ptecheck.skel.h"
#include "cli.h"
#include "calib.h"
#include "load.h"
#include "report.h"
#include "session.h"

/* ---- libbpf's words ------------------------------------------------------ */

/* What libbpf printed during the current load (its verifier logs too). */
static struct {
	char *text;
	size_t len, cap;
} words;

static int keep_words(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	va_list again;
	int n;

	if (level == LIBBPF_DEBUG && !pc_verbose)
		return 0;
	if (pc_verbose) {
		va_copy(again, ap);
		vfprintf(stderr, fmt, again);
		va_end(again);
	}
	va_copy(again, ap);
	n = vsnprintf(NULL, 0, fmt, again);
	va_end(again);
	if (n < 0)
		return 0;
	if (words.len + n + 1 > words.cap) {
		size_t cap = (words.len + n + 1) * 2;
		char *t = realloc(words.text, cap);

		if (!t)
			return 0; /* the words are lost, the load goes on */
		words.text = t;
		words.cap = cap;
	}
	vsnprintf(words.text + words.len, words.cap - words.len, fmt, ap);
	words.len += n;
	return n;
}

/* The last line of text that starts with prefix and contains part (or any
   when NULL), from the start of text, or NULL. */
static const char *last_line(const char *text, const char *end, const char *prefix,
			     const char *part)
{
	const char *found = NULL;
	size_t n = strlen(prefix);

	for (const char *l = text; l && l < end; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		const char *eol = memchr(l, '\n', end - l);

		if (!eol)
			eol = end;
		if ((size_t)(eol - l) < n || strncmp(l, prefix, n))
			continue;
		if (part && !memmem(l, eol - l, part, strlen(part)))
			continue;
		found = l;
	}
	return found;
}

/* What a refusal says: the program, the global function being verified
   when it failed ("" for the program's own body) and the verifier's
   reason in a few words. */
struct refusal_words {
	char prog[64], func[64], reason[200];
};

/* The verifier's reason: its "too large" line, else the line before its
   closing "processed N insns" (the error), else the last line. */
static void verifier_reason(const char *log, const char *end, char *out, size_t len)
{
	const char *l = last_line(log, end, "BPF program is too large", NULL);
	unsigned long n;

	if (l && sscanf(l, "BPF program is too large. Processed %lu", &n) == 1) {
		snprintf(out, len, "program too large (%lu instructions)", n);
		return;
	}
	l = last_line(log, end, "processed ", " insns");
	if (l)
		end = l;
	while (end > log && end[-1] == '\n')
		end--;
	for (l = end; l > log && l[-1] != '\n'; l--)
		;
	snprintf(out, len, "%.*s", (int)(end - l), l);
	if (!out[0])
		snprintf(out, len, "no reason in its log");
}

/* Which program failed and why, from libbpf's words; false when none is
   named (a map, BTF or the kernel's memory: not a program's fault). */
static bool read_refusal(struct refusal_words *w)
{
	const char *text = words.text, *end = text + words.len, *l, *log, *log_end, *v, *ok;
	char begin[128], safe[32];
	int fn = -1;

	memset(w, 0, sizeof(*w));
	if (!text)
		return false;
	l = last_line(text, end, "libbpf: prog '", "': failed to load");
	if (!l || sscanf(l, "libbpf: prog '%63[^']'", w->prog) != 1)
		return false;
	snprintf(begin, sizeof(begin), "libbpf: prog '%s': -- BEGIN PROG LOAD LOG --", w->prog);
	log = last_line(text, end, begin, NULL);
	if (!log) {
		snprintf(w->reason, sizeof(w->reason), "no verifier log");
		return true;
	}
	log = strchr(log, '\n');
	if (!log)
		return true;
	log++;
	log_end = memmem(log, end - log, "-- END PROG LOAD LOG --", 23);
	if (!log_end)
		log_end = end;
	verifier_reason(log, log_end, w->reason, sizeof(w->reason));
	/* A global function is verified on its own, announced by "Validating
	   NAME() func#N..." and closed by "Func#N ... is safe ..." (v5.6+). */
	v = last_line(log, log_end, "Validating ", "() func#");
	if (!v || sscanf(v, "Validating %63[^(]() func#%d", w->func, &fn) != 2)
		return true;
	snprintf(safe, sizeof(safe), "Func#%d ", fn);
	ok = last_line(v, log_end, safe, "is safe");
	if (ok)
		w->func[0] = 0; /* it passed: the program's own body failed */
	return true;
}

/* Where libbpf's words go when something was refused: a file named in
   the one-line message (thousands of lines never flood the terminal). */
static void save_words(struct pc_session *s)
{
	char path[sizeof(s->load_log)];
	FILE *f;

	if (!words.len || s->load_log[0])
		return;
	if (snprintf(path, sizeof(path), "%s/ptecheck-load.%d.log",
		     getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
		     (int)getpid()) >= (int)sizeof(path))
		return; /* no file: -v gives the words on stderr */
	f = fopen(path, "we");
	if (!f)
		return;
	if (fwrite(words.text, 1, words.len, f) == words.len && fclose(f) == 0)
		snprintf(s->load_log, sizeof(s->load_log), "%s", path);
	else
		fclose(f);
}

/* ---- units ---------------------------------------------------------------- */

static const struct {
	const char *prefix[2]; /* the part's global functions, by name prefix */
	const char *what;
} sys_parts[PC_SYS__COUNT] = {
#define PC_SYS_ROW(NAME, name, HOOKS, prefix, prefix2, what)                                       \
	[PC_SYS_##NAME] = {{prefix, prefix2}, what},
	PC_SYS_PARTS(PC_SYS_ROW)
#undef PC_SYS_ROW
};

static int sys_part_of(const char *func)
{
	for (int p = 0; p < PC_SYS__COUNT; p++)
		for (int k = 0; k < 2 && sys_parts[p].prefix[k]; k++)
			if (!strncmp(func, sys_parts[p].prefix[k], strlen(sys_parts[p].prefix[k])))
				return p;
	return -1;
}

const char *pc_load_sys_refused(const struct pc_session *s, enum pc_sys_part part)
{
	for (int i = 0; i < s->n_refused; i++)
		if (s->refused[i].sys_part == (int)part)
			return s->refused[i].line;
	return NULL;
}

const char *pc_load_walk_part_why(const struct pc_session *s, enum pc_sys_part part)
{
	const char *refused = pc_load_sys_refused(s, part);

	if (refused)
		return refused;
	if (!s->walk_enabled)
		return s->walk_reason[0] ? s->walk_reason : "no page-table walk";
	return pc_calib_vmemmap_why(&s->calib, "no vmemmap: the folios of PTEs cannot be read");
}

static struct pc_refusal *add_refusal(struct pc_session *s, const char *prog, int sys_part,
				      const char *what, const struct refusal_words *w)
{
	bool named = strcmp(what, prog) != 0;
	struct pc_refusal *r;
	char in[160] = "";

	if (s->n_refused >= PC_REFUSED_MAX)
		return NULL;
	r = &s->refused[s->n_refused++];
	snprintf(r->prog, sizeof(r->prog), "%s", prog);
	r->sys_part = sys_part;
	/* "the verifier refused the derived batch runs (syscalls_enter,
	   pc_walk_sys_enter): program too large (1000001 instructions)" */
	if (named || w->func[0])
		snprintf(in, sizeof(in), " (%s%s%s)", named ? prog : "in ",
			 named && w->func[0] ? ", " : "", w->func);
	snprintf(r->line, sizeof(r->line), "the verifier refused %s%s: %s", what, in, w->reason);
	return r;
}

/* A refused program's hook group, off with the reason: 1, or 0 when the
   program is in none. */
static int refuse_group(struct pc_session *s, const struct refusal_words *w)
{
	for (int p = 0; p < PC_N_TRACE_PATHS; p++) {
		for (int g = 0; g < pc_trace_paths[p]->n_groups; g++) {
			struct pc_hook_choice *c = &s->hooks[p][g];
			struct bpf_program *const *on;
			struct pc_hook_progs all;
			struct pc_refusal *r;

			pc_session_group_programs(s, p, g, &all);
			on = pc_hook_chosen(&all, c);
			for (int k = 0; k < PC_HOOK_PROGS && on[k]; k++) {
				if (strcmp(bpf_program__name(on[k]), w->prog))
					continue;
				r = add_refusal(s, w->prog, -1, w->prog, w);
				if (!r)
					return -1;
				snprintf(c->reason, sizeof(c->reason), "%s", r->line);
				c->mech = PC_MECH_NONE;
				/* A group that continues this one's goes too. */
				pc_hooks_drop_orphans(pc_trace_paths[p]->groups,
						      pc_trace_paths[p]->n_groups, s->hooks[p]);
				return 1;
			}
		}
	}
	return 0;
}

/* Turns off the unit of the refused program w->prog: 0, or -1 when there
   is none to turn off (nothing would change on another try). */
static int refuse(struct pc_session *s, const struct refusal_words *w)
{
	bool dispatcher = !strncmp(w->prog, "syscalls_", 9);
	int part = dispatcher && w->func[0] ? sys_part_of(w->func) : -1, done;

	for (int i = 0; i < s->n_refused; i++)
		if (!strcmp(s->refused[i].prog, w->prog) && s->refused[i].sys_part == part)
			return -1; /* refused again: turning it off did not take */
	if (part >= 0)
		return add_refusal(s, w->prog, part, sys_parts[part].what, w) ? 0 : -1;
	done = dispatcher ? 0 : refuse_group(s, w);
	if (done)
		return done > 0 ? 0 : -1;
	/* A tracepoint program, or the dispatcher's own body: off alone. */
	return add_refusal(s, w->prog, -1, w->prog, w) ? 0 : -1;
}

/* Each refusal applied to a freshly opened object, before it loads. */
static void apply_refusals(struct pc_session *s)
{
	struct bpf_program *prog;

	for (int i = 0; i < s->n_refused; i++) {
		const struct pc_refusal *r = &s->refused[i];

		if (r->sys_part >= 0) {
#define PC_SYS_OFF(NAME, name, HOOKS, prefix, prefix2, what)                                       \
	if (r->sys_part == PC_SYS_##NAME)                                                          \
		s->skel->rodata->sys_##name = false;
			PC_SYS_PARTS(PC_SYS_OFF)
#undef PC_SYS_OFF
		} else if ((prog = bpf_object__find_program_by_name(s->skel->obj, r->prog)))
			bpf_program__set_autoload(prog, false);
	}
}

/* ---- loading -------------------------------------------------------------- */

#ifdef PC_FAULT_INJECT
/* The points PTECHECK_FAULT_REFUSE names (include/ptecheck/fault.h). */
static __u32 fault_points(void)
{
	const char *env = getenv("PTECHECK_FAULT_REFUSE");
	__u32 bits = 0;

#define FAULT_NAMED(bit, name)                                                                     \
	if (env && strstr(env, name))                                                              \
		bits |= (bit);
	PC_FAULT_POINTS(FAULT_NAMED)
#undef FAULT_NAMED
	return bits;
}
#endif

/* A per-CPU LRU map (ptecheck/lru.h): its entries split among the CPUs,
   PC_LRU_PER_CPU_MIN each at least. */
static int size_per_cpu(struct bpf_map *map)
{
	int ncpu = libbpf_num_possible_cpus();
	__u32 want;

	if (ncpu < 0)
		return ncpu;
	want = (__u32)ncpu * PC_LRU_PER_CPU_MIN;
	return want > bpf_map__max_entries(map) ? bpf_map__set_max_entries(map, want) : 0;
}

double pc_load_now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* Opens the object, sets what the session chose and loads it: 0 or -errno. */
static int load_object(struct pc_session *s, const struct pc_session_opts *o)
{
	double t0;
	int err;

	s->skel = ptecheck_bpf__open();
	if (!s->skel)
		return -errno;
	s->skel->rodata->filter_mode = o->filter_mode;
	if (o->comm)
		strncpy((char *)s->skel->rodata->filter_comm, o->comm, 15);
	/* Without --by the keyed table is never written: one entry. */
	s->skel->rodata->hist_by = o->hist_by;
	s->skel->rodata->sample_every = o->sample;
	s->skel->rodata->crash_witness = o->crash_witness;
	/* Every path that walks page tables reads them where calibrated. */
	s->skel->rodata->walk_base = s->calib.direct_map_base;
	s->skel->rodata->walk_levels = s->calib.levels;
	s->skel->rodata->walk_phys_limit = s->walk_phys_limit;
	/* And find the struct page of a PFN there (0 where not found: the
	   parts that need it are off, with the reason). */
	if (pc_calib_vmemmap_ok(&s->calib)) {
		s->skel->rodata->walk_vmemmap = s->calib.vmemmap;
		s->skel->rodata->walk_page_size = s->calib.page_size;
	}
#ifdef PC_FAULT_INJECT
	s->skel->rodata->fault_refuse = fault_points();
#endif
	err = bpf_map__set_max_entries(s->skel->maps.hist_keys, o->hist_by ? PC_HIST_KEYS_MAX : 1);
	if (!err)
		err = size_per_cpu(s->skel->maps.mr_calls);
	if (!err)
		err = size_per_cpu(s->skel->maps.bw_states);
	if (err)
		return err;
	pc_session_select_programs(s);
	for (int p = 0; p < PC_N_TRACE_PATHS; p++)
		if (pc_trace_paths[p]->configure)
			pc_trace_paths[p]->configure(s);
	apply_refusals(s);
	t0 = pc_load_now_ms();
	err = ptecheck_bpf__load(s->skel);
	s->load_ms += pc_load_now_ms() - t0; /* every try: what the user waits */
	return err;
}

/* Every hook group off, with the same reason. */
static void hooks_off(struct pc_session *s, const char *why)
{
	for (int p = 0; p < PC_N_TRACE_PATHS; p++) {
		for (int g = 0; g < pc_trace_paths[p]->n_groups; g++) {
			struct pc_hook_choice *c = &s->hooks[p][g];

			if (c->mech == PC_MECH_NONE)
				continue;
			c->mech = PC_MECH_NONE;
			snprintf(c->reason, sizeof(c->reason), "%s", why);
		}
	}
}

static void unload(struct pc_session *s)
{
	ptecheck_bpf__destroy(s->skel);
	s->skel = NULL;
}

/* Loads; each refused program's unit off and again, at most once a unit.
   A failure no program is named in: once more with tracepoints only.
   *named: the last failure named a program the verifier refused. */
static int load_parts(struct pc_session *s, const struct pc_session_opts *o, bool *named)
{
	struct refusal_words w;
	char why[200];
	int err;

	for (;;) {
		words.len = 0;
		err = load_object(s, o);
		if (!err || !read_refusal(&w) || refuse(s, &w))
			break;
		pc_dbg("refused: %s", s->refused[s->n_refused - 1].line);
		save_words(s);
		unload(s);
	}
	if (err) {
		save_words(s);
		unload(s);
		snprintf(why, sizeof(why), "the kernel refused the hook programs: %s",
			 strerror(-err));
		hooks_off(s, why);
		words.len = 0;
		err = load_object(s, o);
	}
	*named = err && read_refusal(&w);
	return err;
}

/* --cgroup: the filter map holds the cgroup (its directory's fd). */
static int set_cgroup(struct pc_session *s, const struct pc_session_opts *o)
{
	__u32 key = 0, fd = (__u32)o->cgroup_fd;

	if (o->filter_mode != PC_FILTER_CGROUP)
		return 0;
	if (bpf_map__update_elem(s->skel->maps.filter_cgroup, &key, sizeof(key), &fd, sizeof(fd),
				 BPF_ANY))
		return -errno;
	return 0;
}

int pc_load_session(struct pc_session *s, const struct pc_session_opts *o)
{
	libbpf_print_fn_t before = libbpf_set_print(keep_words);
	bool named;
	int err = load_parts(s, o, &named);

	libbpf_set_print(before);
	if (!err) {
		err = set_cgroup(s, o);
		if (err) {
			snprintf(s->load_error, sizeof(s->load_error), "--cgroup: %s",
				 strerror(-err));
			unload(s);
			return err;
		}
	}
	if (err) {
		/* The verifier refused a program of ptecheck's: ptecheck's failure
		   (exit 3).  No program named (no BPF here, no memory for a
		   map): the kernel's, and the commands skip (exit 4). */
		save_words(s);
		s->load_refused = named;
		snprintf(s->load_error, sizeof(s->load_error), "%s the tracing programs: %s%s%s",
			 named ? "the kernel refused" : "could not load", strerror(-err),
			 s->load_log[0] ? "; libbpf's log: " : "", s->load_log);
		unload(s);
	}
	/* Each refusal says where the verifier's whole log is. */
	for (int i = 0; i < s->n_refused && s->load_log[0]; i++) {
		size_t n = strlen(s->refused[i].line);

		snprintf(s->refused[i].line + n, sizeof(s->refused[i].line) - n, " (log: %s)",
			 s->load_log);
	}
	free(words.text);
	words.text = NULL;
	words.len = words.cap = 0;
	return err;
}

void pc_load_measure(struct pc_session *s)
{
	struct bpf_program *prog;

	s->n_costs = 0;
	bpf_object__for_each_program(prog, s->skel->obj)
	{
		struct bpf_prog_info info;
		__u32 len = sizeof(info);
		struct pc_prog_cost *c;
		int fd = bpf_program__fd(prog);

		if (fd < 0 || s->n_costs >= PC_PROG_COSTS_MAX)
			continue;
		memset(&info, 0, sizeof(info));
		if (bpf_obj_get_info_by_fd(fd, &info, &len))
			continue;
		c = &s->costs[s->n_costs++];
		snprintf(c->name, sizeof(c->name), "%s", bpf_program__name(prog));
		c->verified_insns = info.verified_insns;
	}
}

void pc_load_record(const struct pc_session *s, struct pc_report *r)
{
	struct pc_report_bpf *b = &r->bpf;

	b->loaded = s->loaded;
	b->load_ms = s->load_ms;
	b->attach_ms = s->attach_ms;
	b->n_progs = 0;
	for (int i = 0; i < s->n_costs && i < PC_REPORT_PROGS; i++) {
		snprintf(b->progs[i].name, sizeof(b->progs[i].name), "%s", s->costs[i].name);
		b->progs[i].verified_insns = s->costs[i].verified_insns;
		b->n_progs++;
	}
	b->n_refused = 0;
	for (int i = 0; i < s->n_refused && i < PC_REPORT_REFUSED; i++)
		snprintf(b->refused[b->n_refused++], sizeof(b->refused[0]), "%s",
			 s->refused[i].line);
	if (s->load_refused && b->n_refused < PC_REPORT_REFUSED)
		snprintf(b->refused[b->n_refused++], sizeof(b->refused[0]), "%s", s->load_error);
}
