/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What one kernel path contributes to a tracing session: its results and
 * its histograms (and, inside trace/, its hooks).  One per path, in the
 * path's own file (trace/mremap.c, trace/filemap.c, trace/contpte.c), named
 * with the same word as bpf/<path>.bpf.c, verify/<path>.c and
 * include/ptecheck/<path>.h.
 */
#ifndef PTECHECK_TRACE_PATH_H
#define PTECHECK_TRACE_PATH_H

struct pc_session;
struct pc_report;

struct pc_trace_path {
	const char *name; /* "mremap" */
	/* Adds the path's in-kernel results: pass, fail or skip with the
	   reason, for every check and tier the path has. */
	void (*results)(struct pc_session *s, struct pc_report *r);
	/* Adds the histograms of the path this session could fill. */
	void (*hists)(struct pc_session *s, struct pc_report *r);
};

extern const struct pc_trace_path pc_mremap_trace;
extern const struct pc_trace_path pc_filemap_trace;
extern const struct pc_trace_path pc_contpte_trace;

#endif
