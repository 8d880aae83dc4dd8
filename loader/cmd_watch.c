// SPDX-License-Identifier: GPL-2.0
/*
 * ptecheck watch / ptecheck hist: attach to the live kernel while the
 * user's own program runs (a command we start, a pid, or a comm), report
 * violations as they happen, then the results and histograms.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "cli.h"
#include "report.h"
#include "kernel_log.h"
#include "paths.h"
#include "privilege.h"
#include "probe.h"
#include "cmd_watch.h"
#include "session.h"
#include "tracefs.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void usage(FILE *f, bool hist)
{
	const char *cmd = hist ? "hist" : "watch";

	fprintf(f,
		"Usage: ptecheck %s [--pid P | --comm C] [--duration S] [--format F]\n"
		"                     [--user U] [--log-rules FILE] [-- CMD ARGS...]\n\n"
		"%s\n\n"
		"  --pid P        only process P (its threads included)\n"
		"  --comm C       only processes whose name is C\n"
		"  --duration S   stop after S seconds (default: until CMD exits, or Ctrl-C)\n"
		"  --format F     text (default), json, tap\n"
		"  -- CMD ARGS    start CMD and follow it (not its children); with json/tap\n"
		"                 its output goes to stderr\n"
		"  --user U       run CMD as user U (name or uid) with U's groups and no\n"
		"                 capabilities, as strace -u does (default: as root)\n"
		"  --log-rules F  kernel-log rules consulted before the built-in ones; the\n"
		"                 kernel's memory-management splats are shown as they come\n"
		"                 and fail the kernel-log check (docs/kernel-log.md)\n"
		"  --log-user-lines  judge lines user space writes to /dev/kmsg too\n\n"
		"Exit: 0 ok, 1 a violation was seen, 2 usage or privilege, 3 an operation\n"
		"      failed, 4 nothing could be traced.\n\n"
		"Examples:\n  sudo ptecheck %s -- ./build/workloads/mremap_folios --iterations "
		"1000\n"
		"  sudo ptecheck %s --comm postgres --duration 30\n",
		cmd,
		hist ? "Per-call histograms of the batched paths this kernel lets us observe,\n"
		       "in the libbpf-tools shape (linear for small values, log2 above)."
		     : "Checks the mremap invariants on every mremap of the watched program,\n"
		       "and the filemap ones on every fault-around batch where the kernel\n"
		       "allows the hooks (past-EOF and mapcount deltas are observed, not\n"
		       "enforced: a live program may resize or share its files), and\n"
		       "reports violations as they happen, then a summary.",
		cmd, cmd);
}

/* The processes a watch follows, to name them in kernel-log evidence. */
struct watched {
	long pid;
	pid_t child;
};

static const char *who_is(int pid, void *ctx)
{
	const struct watched *w = ctx;

	if (w->child > 0 && pid == w->child)
		return "the watched command";
	if (w->pid > 0 && pid == w->pid)
		return "the watched process";
	return NULL;
}

int pc_cmd_watch(int argc, char **argv)
{
	static const struct option opts[] = {
		{"pid", required_argument, NULL, 'p'},
		{"comm", required_argument, NULL, 'c'},
		{"duration", required_argument, NULL, 'd'},
		{"format", required_argument, NULL, 'f'},
		{"user", required_argument, NULL, 'u'},
		{"log-rules", required_argument, NULL, 'R'},
		{"log-user-lines", no_argument, NULL, 'U'},
		{"help", no_argument, NULL, 'h'},
		{},
	};
	bool hist = strcmp(argv[0], "hist") == 0;
	struct pc_session_opts so = {.filter_mode = PC_FILTER_ALL, .want_walk = !hist};
	int c, format = PC_FORMAT_TEXT, code, err, go_pipe[2] = {-1, -1}, exec_pipe[2] = {-1, -1};
	int exec_errno = 0;
	double duration = 0;
	long pid = 0;
	pid_t child = 0;
	struct pc_user user;
	bool as_user = false;
	const char *log_rules = NULL;
	bool log_user = false;
	char rules_err[512];
	struct pc_klog klog;
	struct watched watched = {0};
	pc_klog_who_fn watched_who = NULL;
	struct timespec t0, now;
	struct pc_session s;
	struct pc_report *r;
	char *end;

	while ((c = getopt_long(argc, argv, "+p:c:d:f:u:R:h", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			errno = 0;
			pid = strtol(optarg, &end, 10);
			if (errno || *end || pid <= 0) {
				pc_err(0, "--pid takes a process id, not '%s'", optarg);
				return PC_EXIT_USAGE;
			}
			if (kill((pid_t)pid, 0) && errno == ESRCH) {
				pc_err(0, "no process %ld", pid);
				return PC_EXIT_USAGE;
			}
			so.filter_mode = PC_FILTER_TRACKED;
			break;
		case 'c':
			if (strlen(optarg) == 0 || strlen(optarg) > 15) {
				pc_err(0, "--comm takes a name of 1 to 15 characters");
				return PC_EXIT_USAGE;
			}
			so.filter_mode = PC_FILTER_COMM;
			so.comm = optarg;
			break;
		case 'd':
			errno = 0;
			duration = strtod(optarg, &end);
			if (errno || *end || duration <= 0 || duration > 86400) {
				pc_err(0, "--duration takes seconds (0 < S <= 86400), not '%s'",
				       optarg);
				return PC_EXIT_USAGE;
			}
			break;
		case 'f':
			format = pc_format_parse(optarg);
			if (format < 0) {
				pc_err(0, "unknown format '%s' (text, json, tap)", optarg);
				return PC_EXIT_USAGE;
			}
			break;
		case 'R':
			log_rules = optarg;
			break;
		case 'U':
			log_user = true;
			break;
		case 'u':
			err = pc_user_lookup(optarg, &user);
			if (err) {
				pc_err(err == -ENOENT ? 0 : -err, "--user: no user '%s'", optarg);
				return PC_EXIT_USAGE;
			}
			as_user = true;
			break;
		case 'h':
			usage(stdout, hist);
			return PC_EXIT_PASS;
		default:
			usage(stderr, hist);
			return PC_EXIT_USAGE;
		}
	}
	if (optind < argc && strcmp(argv[optind - 1], "--") && optind == 1) {
		pc_err(0, "unexpected argument '%s' (put the command after --)", argv[optind]);
		return PC_EXIT_USAGE;
	}
	if (as_user && optind >= argc) {
		pc_err(0, "--user applies to a command: put it after --");
		return PC_EXIT_USAGE;
	}
	if ((pid || so.comm) && optind < argc) {
		pc_err(0, "give either --pid/--comm or a command, not both");
		return PC_EXIT_USAGE;
	}
	if (!pid && !so.comm && optind >= argc && duration == 0) {
		pc_err(0, "nothing to watch: give --pid, --comm, --duration or -- CMD");
		return PC_EXIT_USAGE;
	}
	if (!pc_have_bpf_privilege()) {
		pc_err(0, "%s needs root (CAP_BPF and CAP_PERFMON)", argv[0]);
		return PC_EXIT_USAGE;
	}
	/* From here on, the kernel's own complaints are part of the watch. */
	if (pc_klog_start(&klog, log_rules, log_user, rules_err, sizeof(rules_err))) {
		pc_err(0, "--log-rules: %s", rules_err);
		return PC_EXIT_USAGE;
	}
	if (optind < argc) {
		/* exec_pipe: closed by a successful exec, else carries its errno, so a
		   command that exits 127 by itself is not taken for one not started. */
		if (pipe2(go_pipe, O_CLOEXEC) || pipe2(exec_pipe, O_CLOEXEC)) {
			pc_err(errno, "pipe");
			pc_klog_stop(&klog);
			return PC_EXIT_ERROR;
		}
		so.filter_mode = PC_FILTER_TRACKED;
		child = fork();
		if (child < 0) {
			pc_err(errno, "fork");
			pc_klog_stop(&klog);
			return PC_EXIT_ERROR;
		}
		if (child == 0) {
			char go;

			close(go_pipe[1]);
			close(exec_pipe[0]);
			if (read(go_pipe[0], &go, 1) != 1)
				_exit(127);
			/* Keep a machine-readable report alone on stdout. */
			if (format != PC_FORMAT_TEXT && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
				_exit(127);
			err = as_user ? -pc_become_user(&user) : 0;
			if (!err) {
				execvp(argv[optind], &argv[optind]);
				err = errno;
			}
			if (write(exec_pipe[1], &err, sizeof(err)) != sizeof(err))
				_exit(127);
			fprintf(stderr, "ptecheck: cannot run %s: %s\n", argv[optind],
				strerror(err));
			_exit(127);
		}
		close(go_pipe[0]);
		close(exec_pipe[1]);
	}
	watched.pid = pid;
	watched.child = child;
	/* Watching everything: no process is "not ours". */
	watched_who = pid || child > 0 ? who_is : NULL;
	r = pc_report_new(hist ? "hist" : "watch", "live");
	if (!r) {
		pc_klog_stop(&klog);
		return PC_EXIT_ERROR;
	}
	pc_tracefs_ensure();
	err = pc_session_open(&s, &so);
	s.report = r;
	if (err) {
		pc_err(err, "cannot trace: %s", s.load_error);
		if (child > 0) {
			kill(child, SIGKILL);
			waitpid(child, NULL, 0);
		}
		pc_report_free(r);
		pc_klog_stop(&klog);
		return PC_EXIT_SKIP;
	}
	if (pid)
		pc_session_track(&s, (int)pid, 0);
	if (child > 0) {
		pc_session_track(&s, child, 0);
		if (write(go_pipe[1], "g", 1) != 1)
			pc_err(errno, "cannot start the command");
		close(go_pipe[1]);
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!stop) {
		int status;

		pc_session_poll(&s, 100);
		if (!hist)
			pc_klog_poll(&klog, stderr, watched_who, &watched);
		if (child > 0 && waitpid(child, &status, WNOHANG) == child) {
			if (read(exec_pipe[0], &exec_errno, sizeof(exec_errno)) ==
			    sizeof(exec_errno))
				pc_report_note(r, "the command could not be started: %s",
					       strerror(exec_errno));
			else
				pc_report_note(r, "command exited with status %d",
					       WIFEXITED(status) ? WEXITSTATUS(status)
								 : 128 + WTERMSIG(status));
			child = 0;
			break;
		}
		if (pid && kill((pid_t)pid, 0) && errno == ESRCH) {
			pc_report_note(r, "process %ld exited", pid);
			break;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (duration > 0 &&
		    (now.tv_sec - t0.tv_sec) + (now.tv_nsec - t0.tv_nsec) / 1e9 >= duration)
			break;
	}
	if (stop) {
		r->partial = true;
		pc_report_note(r, "interrupted: results so far, marked partial");
		if (child > 0) {
			kill(child, SIGTERM);
			waitpid(child, NULL, 0);
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &now);
	r->duration_s = (now.tv_sec - t0.tv_sec) + (now.tv_nsec - t0.tv_nsec) / 1e9;
	if (!hist) {
		pc_session_notes(&s, r);
		/* Past-EOF and mapcount deltas are observed, not enforced, here:
		   a live program may resize files or share them (track flags 0). */
		for (int k = 0; k < pc_n_paths; k++)
			pc_paths[k].trace->results(&s, r);
		pc_klog_judge(&klog, r, "kernel-log", watched_who, &watched);
	}
	pc_klog_stop(&klog);
	for (int k = 0; k < pc_n_paths; k++)
		pc_paths[k].trace->hists(&s, r);
	pc_session_stats(&s, r);
	pc_session_close(&s);
	code = hist ? PC_EXIT_PASS : pc_report_exit_code(r);
	if (exec_errno)
		code = PC_EXIT_USAGE; /* bad input: nothing of it was watched */
	if (pc_report_write(r, format, stdout)) {
		pc_err(errno, "cannot write the report");
		code = PC_EXIT_ERROR;
	}
	pc_report_free(r);
	return code;
}
