/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A live tracing session of the running system: what it follows (every
 * process, --pid, --comm, --cgroup or a command after --), the kernel log
 * beside it, and the loop that polls both until the targets end, the
 * duration is up or a signal comes.  ptecheck watch, hist and export each
 * run one (loader/cmd_watch.c, loader/cmd_export.c).
 */
#ifndef PTECHECK_LIVE_H
#define PTECHECK_LIVE_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>
#include "kernel_log.h"
#include "privilege.h"
#include "session.h"

struct pc_live_opts {
	const char *name;   /* "watch", "hist", "export": the command, in messages */
	bool checks;	    /* judge (the kernel log too); false: histograms only */
	bool hup_continues; /* SIGHUP does not end the loop (it sets hup) */
	bool forever;	    /* no target nor duration: every process until a signal */
	struct pc_session_opts so;
	double duration; /* 0: until the target ends or a signal */
	long pid;
	struct pc_user user;
	bool as_user;
	struct pc_klog_opts klog;
	char **cmd;	    /* after --, or NULL */
	bool no_inherit;    /* --no-inherit: not the targets' child processes */
	double interval;    /* seconds between the loop's interval calls, 0: none */
	const char *cgroup; /* --cgroup: its path, or NULL */
};

/* The long options of the targets and the kernel log (with PC_KLOG_LONGOPTS). */
#define PC_LIVE_LONGOPTS                                                                           \
	{"pid", required_argument, NULL, 'p'}, {"comm", required_argument, NULL, 'c'},             \
		{"duration", required_argument, NULL, 'd'},                                        \
		{"no-inherit", no_argument, NULL, 'I'}, {"cgroup", required_argument, NULL, 'G'},  \
		{"user", required_argument, NULL, 'u'}, PC_KLOG_LONGOPTS
/* Their short forms, for getopt's optstring. */
#define PC_LIVE_SHORTOPTS "p:c:d:u:R:"
/* pc_live_option: c is not one of PC_LIVE_LONGOPTS. */
#define PC_LIVE_NOT_MINE (-2)

/* A live session in progress: what it follows and what it has seen. */
struct pc_live {
	const struct pc_live_opts *o;
	pid_t child; /* the command we started, 0 once reaped */
	int go_fd;   /* tells the child to exec, once it is tracked */
	int exec_fd; /* carries the exec's errno, closed by a good exec */
	int exec_errno;
	struct pc_klog klog;
	pc_klog_who_fn who; /* NULL when watching everything */
	struct pc_session s;
	struct pc_report *r;	   /* the session's report: violations land here */
	volatile sig_atomic_t hup; /* hup_continues: a SIGHUP came (the caller clears it) */
};

/* Option c of PC_LIVE_LONGOPTS into o: -1 to go on, an exit code, or
   PC_LIVE_NOT_MINE. */
int pc_live_option(int c, struct pc_live_opts *o);
/* Seconds for opt, above lo (lo_incl: lo or above) and at most a day; -1
   to go on, else the exit code. */
int pc_seconds_option(const char *opt, const char *arg, double lo, bool lo_incl, double *out);
/* The command after -- (argv[optind], or none), the options' combinations
   and the privilege: -1 to go on, else the exit code. */
int pc_live_args(int argc, char **argv, struct pc_live_opts *o);

/* The kernel log, the command (held before its exec), the
   report and the session, the targets tracked, then a banner on stderr:
   0, or the exit code (then nothing is left to close). */
int pc_live_start(struct pc_live *l, struct pc_live_opts *o);
/* Polls until the targets end, the duration is up or SIGINT/SIGTERM
   (SIGHUP too unless hup_continues); each(l, due) after every poll, due
   once per interval.  Interrupted: the report is marked partial and the
   command is ended.  Sets the report's duration. */
void pc_live_run(struct pc_live *l, void (*each)(struct pc_live *l, bool due, void *ctx),
		 void *ctx);
/* Detaches everything and stops reading the kernel log (the report stays). */
void pc_live_close(struct pc_live *l);

#endif
