/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A BPF tracing session over every path: calibrates the page-table walk,
 * chooses each path's hooks, loads the programs the kernel accepts,
 * attaches each one it can (saying why not for the others), and turns maps
 * and ring-buffer events into report results with the paths' help
 * (trace/path.h).
 */
#ifndef PTECHECK_SESSION_H
#define PTECHECK_SESSION_H

#include <stdbool.h>
#include <ptecheck/events.h>
#include "hooks.h"
#include "path.h"
#include "report.h"
#include "stack.h"

struct bpf_link;

/* The paths a session traces (PC_TRACE_PATHS), in the order their results
   are reported. */
extern const struct pc_trace_path *const pc_trace_paths[PC_N_TRACE_PATHS];

struct pc_session_opts {
	__u32 filter_mode;  /* enum pc_filter_mode */
	const char *comm;   /* for PC_FILTER_COMM */
	int cgroup_fd;	    /* for PC_FILTER_CGROUP: the cgroup v2 directory */
	bool want_walk;	    /* calibrate and enable the page-table walk */
	__u32 hist_by;	    /* enum pc_hist_by: histograms per comm or process */
	__u32 sample;	    /* --sample N: judge 1 in N windows (0, 1: all) */
	bool crash_witness; /* print entry verdicts that may kill the kernel (events.h) */
	/* The verifier's tests (test_load_budget): this calibration instead
	   of the running kernel's, with the end of RAM, and the object loaded
	   and measured only, never attached.  NULL: the kernel's, attached. */
	const struct pc_walk_calib *calib;
	__u64 calib_phys_limit;
};

/* A unit the kernel's verifier refused (trace/load.c): off, the others
   loaded without it. */
#define PC_REFUSED_MAX 8
struct pc_refusal {
	char prog[64];	/* the program the kernel refused */
	int sys_part;	/* enum pc_sys_part turned off, -1: the program's own unit */
	char line[400]; /* "the verifier refused WHAT (PROG, FUNC): REASON (log: F)" */
};

/* What the verifier made of one loaded program. */
#define PC_PROG_COSTS_MAX 64
struct pc_prog_cost {
	char name[48];
	__u32 verified_insns; /* instructions the verifier processed */
};

/* A program the session attached. */
struct pc_session_link {
	const struct bpf_program *prog;
	struct bpf_link *link;
};

struct pc_session {
	struct ptecheck_bpf *skel;
	bool loaded;
	char load_error[200]; /* why nothing is traced, when !loaded */
	/* Programs of ptecheck's own that the kernel refused: a failure of
	   ptecheck (exit 3), their units off, the rest loaded. */
	int n_refused;
	struct pc_refusal refused[PC_REFUSED_MAX];
	bool load_refused;	   /* nothing loaded: the verifier refused a program */
	char load_log[128];	   /* libbpf's words, when something was refused */
	double load_ms, attach_ms; /* the object's load (verification), its attach */
	int n_costs;
	struct pc_prog_cost costs[PC_PROG_COSTS_MAX];
	bool walk_enabled;
	char walk_reason[280]; /* calibration outcome */
	struct pc_walk_calib calib;
	__u64 walk_phys_limit; /* the walk reads below this physical address */
	/* Each path's hook groups (pc_trace_paths order, the path's groups[]
	   order): the mechanism chosen, none once one of its programs did not
	   load or attach. */
	struct pc_hook_choice hooks[PC_N_TRACE_PATHS][PC_PATH_GROUPS];
	bool disturbance_complete; /* every disturbance tracepoint attached */
	char missing_disturbance[200];
	/* Tracepoint programs that did not attach (events, comma-separated). */
	char missing_tracepoints[400];
	struct pc_session_link *links; /* one slot per program of the object */
	int n_links;
	struct ring_buffer *rb;
	struct pc_report *report; /* violation events go here */
	/* Told of every violation event as it is drained, with its evidence
	   (ptecheck export's log); NULL: none. */
	void (*on_violation)(void *ctx, const char *check, const char *tier,
			     const struct pc_evidence *e);
	void *on_violation_ctx;
	/* Who a violation's pid is ("scenario X of suite Y"), added to its
	   evidence; NULL, or a NULL answer: nothing added. */
	const char *(*who_is)(int pid, void *ctx);
	struct pc_stack_syms stack_syms; /* names their stacks' frames */
};

/* 0, or -errno with s->load_error set (tracing unavailable). */
int pc_session_open(struct pc_session *s, const struct pc_session_opts *o);
void pc_session_close(struct pc_session *s);
int pc_session_track(struct pc_session *s, int tgid, __u32 flags);
int pc_session_untrack(struct pc_session *s, int tgid);
int pc_session_disturb_fd(const struct pc_session *s);
/* Drains pending violation events into s->report. */
int pc_session_poll(struct pc_session *s, int timeout_ms);
/* Notes what the session could do: the walk, the hook groups chosen and
   the tracepoints that did not attach (or why nothing is traced). */
void pc_session_notes(struct pc_session *s, struct pc_report *r);
void pc_session_stats(struct pc_session *s, struct pc_report *r);
/* Global statistic id (enum pc_stat_id) so far; 0 when nothing is traced. */
__u64 pc_session_stat(struct pc_session *s, __u32 id);

/* A program of ptecheck's own was refused by the kernel: exit 3. */
bool pc_session_refused(const struct pc_session *s);
/* Each refusal on stderr, a line each (run, watch, hist, export). */
void pc_session_tell_refused(const struct pc_session *s);

/* ---- for the paths (trace/<path>.c) ------------------------------------ */

/* The programs of group g of path p through s->skel, all mechanisms. */
void pc_session_group_programs(const struct pc_session *s, int p, int g, struct pc_hook_progs *out);
/* Autoload for what the session chose: tracepoint programs whose
   tracepoint exists, each hook group's chosen programs. */
void pc_session_select_programs(struct pc_session *s);

/* Hook group g of path p as chosen, and whether its programs are attached. */
const struct pc_hook_choice *pc_session_hook(const struct pc_session *s,
					     const struct pc_trace_path *p, int g);
bool pc_session_hook_live(const struct pc_session *s, const struct pc_trace_path *p, int g);
/* NULL when hook group g of path p is attached, else why not. */
const char *pc_session_hook_why(const struct pc_session *s, const struct pc_trace_path *p, int g);
/* A hook group that judges PTEs against their folios (through the
   vmemmap): chosen here and the vmemmap calibrated (before the load, for
   the path's switch), or, after it, why it cannot judge (NULL: it can). */
bool pc_session_hook_walk_on(const struct pc_session *s, const struct pc_trace_path *p, int g);
const char *pc_session_hook_walk_why(const struct pc_session *s, const struct pc_trace_path *p,
				     int g);
/* NULL when prog is attached, else why not (naming what, e.g. its tracepoint). */
const char *pc_session_prog_why(const struct pc_session *s, const struct bpf_program *prog,
				const char *what);
/* prog attaches to a tracepoint, raw (raw_tp/) or BTF-typed (tp_btf/): the
   session attaches every one whose tracepoint exists, in no hook group. */
bool pc_session_tracepoint_prog(const struct bpf_program *prog);
/* prog is a tracepoint program whose tracepoint is in this kernel. */
bool pc_session_tracepoint_here(const struct bpf_program *prog);
/* Program prog of s->skel is attached. */
bool pc_session_attached(const struct pc_session *s, const struct bpf_program *prog);
/* Program prog was to run (its tracepoint exists) but did not attach. */
bool pc_session_missing(const struct pc_session *s, const struct bpf_program *prog);
/* The result of (check, tier) in r, found or added; NULL when there is
   nothing more to say (nothing traced: skipped with the reason). */
struct pc_result *pc_session_result(struct pc_session *s, struct pc_report *r, __u32 check,
				    __u32 tier);
/* Pass, fail or skip of res from the counters of (check, tier): what names
   the things judged ("entries"), none_reason says why there were none. */
void pc_session_judge(struct pc_session *s, struct pc_result *res, __u32 check, __u32 tier,
		      const char *what, const char *none_reason);
/* What begins hist's note on a histogram it cannot show. */
#define PC_NOT_SHOWN "not shown: "
/* Adds the histograms of table h[n] whose gate says the session filled;
   with hist_by, each once per key, then what no key took (with a note). */
void pc_session_hists(struct pc_session *s, struct pc_report *r, const struct pc_trace_hist *h,
		      int n);

#endif
