/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A BPF tracing session: calibrates the page-table walk, loads the mremap
 * programs the kernel accepts, attaches each one it can (saying why not for
 * the others), and turns maps and ring-buffer events into report results.
 */
#ifndef PTECHECK_SESSION_H
#define PTECHECK_SESSION_H

#include <stdbool.h>
#include <ptecheck/events.h>
#include "hooks.h"
#include "report.h"

struct ptecheck_bpf;

struct pc_session_opts {
	__u32 filter_mode; /* enum pc_filter_mode */
	const char *comm;  /* for PC_FILTER_COMM */
	bool want_walk;	   /* calibrate and enable the page-table walk */
};

struct pc_session {
	struct ptecheck_bpf *skel;
	bool loaded;
	char load_error[200]; /* why nothing is traced, when !loaded */
	bool walk_enabled;
	char walk_reason[200]; /* calibration outcome */
	struct pc_walk_calib calib;
	int n_attached, n_attach_failed;
	bool disturbance_complete; /* every disturbance tracepoint attached */
	char missing_disturbance[200];
	bool tlb_attached;
	bool filemap_attached;
	int mremap_attached;
	/* Hooks beyond tracepoints: the mechanism chosen and whether it is live. */
	struct pc_hook_choice hooks[PC_HOOK__COUNT];
	bool hook_live[PC_HOOK__COUNT];
	/* One slot per program of the object (sized when it loads). */
	struct bpf_link **links;
	int *link_group; /* enum pc_hook_group, or -1 */
	int n_links, cap_links;
	/* Tracepoint programs that did not attach (events, comma-separated). */
	char missing_tracepoints[400];
	bool locked_walks_traced; /* the contpte locked-walk syscalls attached */
	struct ring_buffer *rb;
	struct pc_report *report; /* violation events go here */
};

/* 0, or -errno with s->load_error set (tracing unavailable). */
int pc_session_open(struct pc_session *s, const struct pc_session_opts *o);
void pc_session_close(struct pc_session *s);
int pc_session_track(struct pc_session *s, int tgid, __u32 flags);
int pc_session_untrack(struct pc_session *s, int tgid);
int pc_session_disturb_fd(const struct pc_session *s);
/* Drains pending violation events into s->report. */
int pc_session_poll(struct pc_session *s, int timeout_ms);
/* Adds the syscall-walk results for the mremap checks. */
void pc_session_mremap_results(struct pc_session *s, struct pc_report *r);
/* Adds the in-kernel results for the contpte checks. */
void pc_session_contpte_results(struct pc_session *s, struct pc_report *r);
/* Adds the in-kernel results for the filemap checks. */
void pc_session_filemap_results(struct pc_session *s, struct pc_report *r);
/* Adds the histograms of one path ("mremap", ...) the session collected. */
void pc_session_hists(struct pc_session *s, struct pc_report *r, const char *path);
void pc_session_stats(struct pc_session *s, struct pc_report *r);

#endif
