// SPDX-License-Identifier: GPL-2.0
/*
 * The live session watch, hist and export share (loader/live.h): the
 * targets' options, the command we start and hold until it is tracked,
 * the session and the kernel log, and the polling loop.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "cli.h"
#include "live.h"
#include "probe.h"
#include "report.h"
#include "tracefs.h"

static volatile sig_atomic_t stop;
static struct pc_live *signalled; /* whose hup flag SIGHUP sets */

static void on_signal(int sig)
{
	if (sig == SIGHUP && signalled && signalled->o->hup_continues)
		signalled->hup = 1;
	else
		stop = 1;
}

/* Names the processes a live session follows in kernel-log evidence. */
static const char *who_is(int pid, void *ctx)
{
	const struct pc_live *l = ctx;

	if (l->child > 0 && pid == l->child)
		return "the watched command";
	if (l->o->pid > 0 && pid == l->o->pid)
		return "the watched process";
	return NULL;
}

/* --cgroup PATH: a cgroup v2 directory; -1 to go on, else the exit code. */
static int open_cgroup(const char *path, struct pc_live_opts *o)
{
	struct statfs sfs;
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0) {
		pc_err(errno, "--cgroup %s", path);
		return PC_EXIT_USAGE;
	}
	if (fstatfs(fd, &sfs) || sfs.f_type != CGROUP2_SUPER_MAGIC) {
		pc_err(0, "--cgroup %s: not a cgroup v2 directory (/sys/fs/cgroup/...)", path);
		close(fd);
		return PC_EXIT_USAGE;
	}
	o->cgroup = path;
	o->so.cgroup_fd = fd;
	o->so.filter_mode = PC_FILTER_CGROUP;
	return -1;
}

int pc_seconds_option(const char *opt, const char *arg, double lo, bool lo_incl, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(arg, &end);
	if (!errno && !*end && (lo_incl ? *out >= lo : *out > lo) && *out <= 86400)
		return -1;
	pc_err(0, "%s takes seconds (%g %s S <= 86400), not '%s'", opt, lo, lo_incl ? "<=" : "<",
	       arg);
	return PC_EXIT_USAGE;
}

int pc_live_option(int c, struct pc_live_opts *o)
{
	char *end;
	int err;

	switch (c) {
	case 'p':
		errno = 0;
		o->pid = strtol(optarg, &end, 10);
		if (errno || *end || o->pid <= 0) {
			pc_err(0, "--pid takes a process id, not '%s'", optarg);
			return PC_EXIT_USAGE;
		}
		if (kill((pid_t)o->pid, 0) && errno == ESRCH) {
			pc_err(0, "no process %ld", o->pid);
			return PC_EXIT_USAGE;
		}
		o->so.filter_mode = PC_FILTER_TRACKED;
		return -1;
	case 'c':
		if (strlen(optarg) == 0 || strlen(optarg) > 15) {
			pc_err(0, "--comm takes a name of 1 to 15 characters");
			return PC_EXIT_USAGE;
		}
		o->so.filter_mode = PC_FILTER_COMM;
		o->so.comm = optarg;
		return -1;
	case 'd':
		return pc_seconds_option("--duration", optarg, 0, false, &o->duration);
	case 'I':
		o->no_inherit = true;
		return -1;
	case 'G':
		return open_cgroup(optarg, o);
	case 'u':
		err = pc_user_lookup(optarg, &o->user);
		if (err) {
			pc_err(err == -ENOENT ? 0 : -err, "--user: no user '%s'", optarg);
			return PC_EXIT_USAGE;
		}
		o->as_user = true;
		return -1;
	default:
		return pc_klog_option(c, &o->klog) ? -1 : PC_LIVE_NOT_MINE;
	}
}
/* Whether path is a file execve may run: 0 or the errno it would give. */
static int runnable(const char *path)
{
	struct stat st;

	if (stat(path, &st))
		return errno;
	if (!S_ISREG(st.st_mode))
		return EACCES;
	return access(path, X_OK) ? errno : 0;
}

/* 0 when execvp(name) can find an executable file, else the errno it
   would fail with: a command that cannot run is bad input, said before
   any BPF is loaded (the exec pipe still catches what this cannot see,
   e.g. a file that is not a program). */
static int command_findable(const char *name)
{
	const char *path = getenv("PATH");
	char buf[4096];
	int err = ENOENT;

	if (!name[0])
		return ENOENT;
	if (strchr(name, '/'))
		return runnable(name);
	for (const char *p = path && path[0] ? path : "/usr/local/bin:/usr/bin:/bin"; p;) {
		const char *end = strchr(p, ':');
		int len = end ? (int)(end - p) : (int)strlen(p), e;

		/* An empty PATH entry is the current directory, as for execvp. */
		snprintf(buf, sizeof(buf), "%.*s/%s", len ? len : 1, len ? p : ".", name);
		e = runnable(buf);
		if (!e)
			return 0;
		if (e == EACCES)
			err = EACCES;
		p = end ? end + 1 : NULL;
	}
	return err;
}

int pc_live_args(int argc, char **argv, struct pc_live_opts *o)
{
	int err;

	if (optind < argc && strcmp(argv[optind - 1], "--") && optind == 1) {
		pc_err(0, "unexpected argument '%s' (put the command after --)", argv[optind]);
		return PC_EXIT_USAGE;
	}
	o->cmd = optind < argc ? &argv[optind] : NULL;
	if (o->as_user && !o->cmd) {
		pc_err(0, "--user applies to a command: put it after --");
		return PC_EXIT_USAGE;
	}
	if ((o->pid || o->so.comm) && o->cmd) {
		pc_err(0, "give either --pid/--comm or a command, not both");
		return PC_EXIT_USAGE;
	}
	if (o->no_inherit && !o->pid && !o->cmd) {
		pc_err(0, "--no-inherit applies to --pid or a command");
		return PC_EXIT_USAGE;
	}
	if (!!o->pid + !!o->so.comm + !!o->cgroup > 1) {
		pc_err(0, "give one of --pid, --comm and --cgroup");
		return PC_EXIT_USAGE;
	}
	if (o->cgroup && o->cmd) {
		pc_err(0, "give either --cgroup or a command, not both");
		return PC_EXIT_USAGE;
	}
	err = o->cmd ? command_findable(o->cmd[0]) : 0;
	if (err) {
		pc_err(err, "cannot run %s", o->cmd[0]);
		return PC_EXIT_USAGE;
	}
	if (!o->forever && !o->pid && !o->so.comm && !o->cmd && o->duration == 0) {
		pc_err(0, "nothing to watch: give --pid, --comm, --duration or -- CMD");
		return PC_EXIT_USAGE;
	}
	if (!pc_have_bpf_privilege()) {
		pc_err(0, "%s needs root (CAP_BPF and CAP_PERFMON)", o->name);
		return PC_EXIT_USAGE;
	}
	return -1;
}

/* The command's child: waits for the go (it is tracked by then), then
   execs, or sends the errno of what failed through the exec pipe. */
static void __attribute__((noreturn))
command_child(const struct pc_live_opts *o, int go_pipe[2], int exec_pipe[2])
{
	char go;
	int err;

	close(go_pipe[1]);
	close(exec_pipe[0]);
	if (read(go_pipe[0], &go, 1) != 1)
		_exit(127);
	err = o->as_user ? -pc_become_user(&o->user) : 0;
	if (!err) {
		execvp(o->cmd[0], o->cmd);
		err = errno;
	}
	if (write(exec_pipe[1], &err, sizeof(err)) != sizeof(err))
		_exit(127);
	fprintf(stderr, "ptecheck: cannot run %s: %s\n", o->cmd[0], strerror(err));
	_exit(127);
}

/* Forks the command, held before its exec; 0 or the exit code. */
static int start_command(struct pc_live *w, struct pc_live_opts *o)
{
	int go_pipe[2], exec_pipe[2];

	/* exec_pipe: closed by a successful exec, else carries its errno, so a
	   command that exits 127 by itself is not taken for one not started. */
	if (pipe2(go_pipe, O_CLOEXEC) || pipe2(exec_pipe, O_CLOEXEC)) {
		pc_err(errno, "pipe");
		return PC_EXIT_ERROR;
	}
	o->so.filter_mode = PC_FILTER_TRACKED;
	w->child = fork();
	if (w->child < 0) {
		pc_err(errno, "fork");
		return PC_EXIT_ERROR;
	}
	if (w->child == 0)
		command_child(o, go_pipe, exec_pipe);
	close(go_pipe[0]);
	close(exec_pipe[1]);
	w->go_fd = go_pipe[1];
	w->exec_fd = exec_pipe[0];
	return 0;
}

/* Tracks the targets and lets the command go. */
static void track_targets(struct pc_live *w)
{
	/* Their children too, as perf does, unless --no-inherit. */
	__u32 flags = w->o->no_inherit ? 0 : PC_TRACK_CHILDREN;

	if (w->o->pid)
		pc_session_track(&w->s, (int)w->o->pid, flags);
	if (w->child > 0) {
		pc_session_track(&w->s, w->child, flags);
		if (write(w->go_fd, "g", 1) != 1)
			pc_err(errno, "cannot start the command");
		close(w->go_fd);
		w->go_fd = -1;
	}
}

/* What is traced, on stderr once it is (libbpf-tools and perf say so). */
static void banner(const struct pc_live *w)
{
	const struct pc_live_opts *o = w->o;
	char who[96];

	if (w->child > 0)
		snprintf(who, sizeof(who), "%s (pid %d)%s", o->cmd[0], (int)w->child,
			 o->no_inherit ? "" : " and its children");
	else if (o->pid)
		snprintf(who, sizeof(who), "pid %ld%s", o->pid,
			 o->no_inherit ? "" : " and its children");
	else if (o->so.comm)
		snprintf(who, sizeof(who), "processes named %s", o->so.comm);
	else if (o->cgroup)
		snprintf(who, sizeof(who), "the tasks of cgroup %s and below", o->cgroup);
	else
		snprintf(who, sizeof(who), "every process");
	fprintf(stderr, "ptecheck %s: %d programs attached; tracing %s", o->name, w->s.n_links,
		who);
	if (o->so.hist_by)
		fprintf(stderr, ", histograms by %s", pc_hist_by_name(o->so.hist_by));
	if (o->duration > 0)
		fprintf(stderr, " for %g s", o->duration);
	fprintf(stderr, "%s\n", w->child > 0 ? "" : "; Ctrl-C to end");
}

static double seconds_since(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - t0->tv_sec) + (now.tv_nsec - t0->tv_nsec) / 1e9;
}

/* Whether the command we started has ended (and is reaped, with a note). */
static bool command_ended(struct pc_live *w)
{
	int status;

	if (w->child <= 0 || waitpid(w->child, &status, WNOHANG) != w->child)
		return false;
	if (read(w->exec_fd, &w->exec_errno, sizeof(w->exec_errno)) == sizeof(w->exec_errno))
		pc_report_note(w->r, "the command could not be started: %s",
			       strerror(w->exec_errno));
	else
		pc_report_note(w->r, "command exited with status %d",
			       WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	w->child = 0;
	return true;
}

void pc_live_run(struct pc_live *w, void (*each)(struct pc_live *l, bool due, void *ctx), void *ctx)
{
	struct timespec t0;
	double next = w->o->interval;
	bool due;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!stop) {
		pc_session_poll(&w->s, 100);
		if (w->o->checks)
			pc_klog_poll(&w->klog, stderr, w->who, w);
		if (command_ended(w))
			break;
		if (w->o->pid && kill((pid_t)w->o->pid, 0) && errno == ESRCH) {
			pc_report_note(w->r, "process %ld exited", w->o->pid);
			break;
		}
		if (w->o->duration > 0 && seconds_since(&t0) >= w->o->duration)
			break;
		due = next > 0 && seconds_since(&t0) >= next;
		if (due)
			next += w->o->interval;
		if (each)
			each(w, due, ctx);
	}
	if (stop) {
		w->r->partial = true;
		pc_report_note(w->r, "interrupted: results so far, marked partial");
		if (w->child > 0) {
			kill(w->child, SIGTERM);
			waitpid(w->child, NULL, 0);
		}
	}
	w->r->duration_s = seconds_since(&t0);
}

/* Opens the session; 0, or the exit code when nothing can be traced. */
static int open_session(struct pc_live *w)
{
	int err;

	pc_tracefs_ensure();
	err = pc_session_open(&w->s, &w->o->so);
	pc_session_tell_refused(&w->s);
	w->s.report = w->r;
	/* The filter map holds the cgroup now (or nothing will trace). */
	if (w->o->so.filter_mode == PC_FILTER_CGROUP)
		close(w->o->so.cgroup_fd);
	if (!err)
		return 0;
	/* A refusal has said its reason, errno has nothing to add. */
	pc_err(pc_session_refused(&w->s) ? 0 : err, "cannot trace: %s", w->s.load_error);
	if (w->child > 0) {
		kill(w->child, SIGKILL);
		waitpid(w->child, NULL, 0);
	}
	/* The kernel refused ptecheck's own programs: ptecheck failed. */
	return pc_session_refused(&w->s) ? PC_EXIT_ERROR : PC_EXIT_SKIP;
}

int pc_live_start(struct pc_live *w, struct pc_live_opts *o)
{
	char rules_err[512];
	int code;

	*w = (struct pc_live){.o = o, .go_fd = -1, .exec_fd = -1};
	/* From here on, the kernel's own complaints are part of the session. */
	if (pc_klog_start(&w->klog, o->klog.rules, o->klog.user_lines, rules_err,
			  sizeof(rules_err))) {
		pc_err(0, "--log-rules: %s", rules_err);
		return PC_EXIT_USAGE;
	}
	code = o->cmd ? start_command(w, o) : 0;
	/* Watching everything: no process is "not ours". */
	w->who = o->pid || w->child > 0 ? who_is : NULL;
	w->r = code ? NULL : pc_report_new(o->name, "live");
	if (!code && !w->r)
		code = PC_EXIT_ERROR;
	/* Caught from before the load: a SIGINT or SIGTERM then ends the
	   command as one while tracing does (the loop sees stop at once, the
	   results so far: none), not by the signal's default (exit 143). */
	signalled = w;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);
	if (!code)
		code = open_session(w);
	if (code) {
		pc_report_free(w->r);
		w->r = NULL;
		pc_klog_stop(&w->klog);
		return code;
	}
	track_targets(w);
	banner(w);
	return 0;
}

void pc_live_close(struct pc_live *l)
{
	pc_klog_stop(&l->klog);
	pc_session_close(&l->s);
}
