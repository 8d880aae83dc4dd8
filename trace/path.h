/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What one kernel path contributes to a tracing session and to `ptecheck
 * features`: its hook groups, its results, its histograms and its lines.
 * One per path, in the path's own file (trace/mremap.c, trace/filemap.c,
 * trace/contpte.c), named with the same word as bpf/<path>.bpf.c,
 * verify/<path>.c and include/ptecheck/<path>.h; trace/session.c is
 * generic over them.
 */
#ifndef PTECHECK_TRACE_PATH_H
#define PTECHECK_TRACE_PATH_H

#include <stdbool.h>
#include <ptecheck/checks.h>
#include "hooks.h"

struct pc_session;
struct pc_report;

#define PC_PATH_GROUPS 8 /* hook groups per path, at most */

/* A histogram of the path, and whether a session could fill it. */
struct pc_trace_hist {
	__u32 map_id; /* enum pc_hist_id: its slots in the kernel's maps */
	__u32 kind;   /* enum pc_hist_kind */
	/* id: what the gate and exporters key on ("mremap/latency", never
	   renamed: report/hist_id.c); name: the title people read. */
	const char *id, *name, *unit, *source;
	/* Why the histogram cannot be filled here, NULL when it can (the
	   member NULL: whenever the programs are loaded); `hist` says it. */
	const char *(*why_not)(const struct pc_session *s);
	/* A batch histogram's labels (export's context and source), NULL: not one. */
	const char *batch_ctx, *batch_src;
};

/* `ptecheck features`: a kernel function the path hooks, and what for. */
struct pc_feature_hook {
	const char *label; /* "mremap", "arm64 contpte" */
	const char *func;
	const char *why;
};

/* What `ptecheck features` found, for a path's own lines. */
struct pc_features {
	bool walk_ok; /* the page-table walk calibrated, and mremap's part loaded */
	/* run's session as `features` test-loaded it (closed), NULL: none. */
	const struct pc_session *session;
	const struct pc_walk_calib *calib;  /* what the calibration found */
	const struct pc_hook_choice *hooks; /* the path's groups, as chosen */
	/* "what  yes|no  detail", and "checks  tiers" */
	void (*line)(const char *what, bool ok, const char *detail);
	void (*tiers)(const char *checks, const char *tiers);
};

/*
 * A path's `features` lines from data.  func: a kernel function whose
 * presence (BTF) says the path is in this kernel, named in the line
 * label; have: the detail when it is.  checks and tiers: the tiers line
 * of a path judged by the suite's oracles alone (no program of its own
 * yet); a path with programs gives feature_tiers instead (NULL here).
 */
struct pc_oracle_features {
	const char *func, *label, *have, *checks, *tiers;
};

struct pc_trace_path {
	const char *name; /* "mremap" */
	/* Its presence line as data (feature_paths NULL then); an
	   oracle-only path's tiers line too (feature_tiers NULL then). */
	const struct pc_oracle_features *oracle;
	const struct pc_hook_group *groups;
	int n_groups;
	/* Sets the path's read-only data in s->skel before it loads (the hook
	   choices are made, the programs selected), and turns off a
	   tracepoint program of the path that would serve nothing here (it
	   would run at every event for nothing).  NULL: none. */
	void (*configure)(struct pc_session *s);
	/* After attach: 0, or -errno with s->load_error set when the session
	   cannot trace without a program of the path that did not attach.
	   NULL: the path needs none. */
	int (*ready)(struct pc_session *s);
	/* Adds the path's in-kernel results: pass, fail or skip with the
	   reason, for every check and tier the path has. */
	void (*results)(struct pc_session *s, struct pc_report *r);
	/* The path's histograms: each id starts with the path's name (the
	   unit test holds them to it); a session adds those it could fill. */
	const struct pc_trace_hist *hist_table;
	int n_hist_table;
	/* Adds histograms made at run time (batch: one per context and
	   source that batched), after hist_table's.  NULL: none. */
	void (*hists)(struct pc_session *s, struct pc_report *r);
	/* ptecheck features: the tracepoints ("category/event", NULL-
	   terminated), the functions, and the path's lines under "Paths this
	   kernel has" and "Checks and the tiers each will use here". */
	const char *const *tracepoints;
	const struct pc_feature_hook *feature_hooks;
	int n_feature_hooks;
	void (*feature_paths)(const struct pc_features *f);
	void (*feature_tiers)(const struct pc_features *f);
};

/* pc_<path>_trace of every path (include/ptecheck/paths.list) and batch's. */
#define PC_TRACE_PATH_DECL(path) extern const struct pc_trace_path pc_##path##_trace;
PC_TRACE_PATHS(PC_TRACE_PATH_DECL)
#undef PC_TRACE_PATH_DECL

#endif
