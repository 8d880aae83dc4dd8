/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One `ptecheck run`: the options cmd_run.c parsed, and the state the run
 * carries from its preparation through the suites to its report
 * (loader/run.c), the scenario children it forks (loader/run_scenario.c)
 * and its status records (loader/status.c).
 */
#ifndef PTECHECK_RUN_H
#define PTECHECK_RUN_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include "kernel_log.h"
#include "paths.h"
#include "report.h"
#include "scenario.h"
#include "session.h"

struct pc_run_opts {
	const char *suite;  /* "all" or a path's name */
	const char *output; /* report file, or NULL for stdout */
	const char *fs_dir; /* --fs-dir, or NULL */
	struct pc_klog_opts klog;
	unsigned int scale;
	unsigned int stress_s; /* 0: no --stress */
	enum pc_format format;
	bool verbose;	      /* -v: each scenario of a check in text and TAP */
	bool dangerous;	      /* --dangerous: PC_SCENARIO_MAY_CRASH scenarios run too */
	bool skip_known_bugs; /* --skip-known-bugs: PC_SCENARIO_KNOWN_BUG ones skip */
	bool no_dangerous;    /* --no-dangerous: not them, whatever --dangerous says */
};

struct pc_run {
	const struct pc_run_opts *o;
	struct pc_report *r;
	struct pc_session s;
	struct pc_scenario_ctx ctx;
	struct pc_klog klog; /* the kernel log since the run began */
	int lock_fd;
	FILE *out;
	char tmpdir[32];
	char shmem_dir[64], blockfs_dir[64];
	char shmem_why[160], blockfs_why[160];
};

/* Set by SIGINT, SIGTERM and SIGHUP: the run ends after the scenario in
   progress and reports what it has, marked partial. */
extern volatile sig_atomic_t pc_run_interrupted;

/* Runs the selected suites and writes the report; returns the exit code. */
int pc_run(const struct pc_run_opts *o);

/* Runs one scenario in a child the BPF side tracks and merges its
   verdicts into run->r; 0, or -errno when it could not be started. */
int pc_run_scenario(struct pc_run *run, const struct pc_suite *su, const struct pc_scenario *sc);
/* One oracle verdict of a scenario into r: its (check, tier) result's
   counts, evidence, status and summary, and the scenario's variant. */
void pc_run_merge_verdict(struct pc_report *r, struct pc_oracle_msg *m);
/* Names a pid for kernel-log evidence: a scenario of this run or a
   stressor ("scenario anon-64k of suite mremap"), else NULL. */
const char *pc_run_who_is(int pid, void *ctx);

#endif
