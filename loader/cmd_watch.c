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
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <ptecheck/sample.h>
#include "cli.h"
#include "out.h"
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
		"Usage: ptecheck %s [--pid P | --comm C | --cgroup PATH] [--duration S]\n"
		"                     [--format F] [--output FILE] [--no-inherit] [-i S]\n"
		"                     [--by comm|pid] [--user U] [--sample N]"
		" [--log-rules FILE] [-- CMD ARGS...]\n\n"
		"%s\n\n"
		"  --pid P        only process P (its threads included)\n"
		"  --comm C       only processes whose name is C\n"
		"  --cgroup PATH  only tasks in the cgroup v2 directory PATH or below it\n"
		"  --duration S   stop after S seconds (default: until CMD exits, or Ctrl-C)\n"
		"  --format F     text (default), json, tap; junit (watch only: hist\n"
		"                 checks nothing, it has no testcases)\n"
		"  --output FILE  write the report to FILE (default: stdout, or stderr with\n"
		"                 a command)\n"
		"  -- CMD ARGS    start CMD and follow it; its stdout and stderr stay its\n"
		"                 own, the report goes to stderr or FILE\n"
		"  --no-inherit   follow P or CMD only, not the processes they fork (by\n"
		"                 default those are followed from their fork on)\n"
		"  -i, --interval S  every S seconds, the histograms of that interval on\n"
		"                 stderr with a timestamp (the report at the end still\n"
		"                 holds the whole run)\n"
		"  --by comm|pid  each histogram per command name or per process, the\n"
		"                 keys with most events first (as biolatency -D)\n"
		"  --user U       run CMD as user U (name or uid) with U's groups and no\n"
		"                 capabilities, as strace -u does (default: as root)\n"
		"  --sample N     (watch) judge 1 in N windows of each kind, per CPU: a busy\n"
		"                 host pays for a few; the histograms still count every\n"
		"                 one (docs/fleet.md)\n"
		"  --log-rules F  kernel-log rules consulted before the built-in ones; the\n"
		"                 kernel's memory-management splats are shown as they come\n"
		"                 and fail the kernel-log check (docs/kernel-log.md)\n"
		"  --log-user-lines  judge lines user space writes to /dev/kmsg too\n\n"
		"Exit: 0 ok, 1 a violation was seen, 2 usage or privilege, 3 an operation\n"
		"      failed, 4 nothing could be traced.\n\n"
		"Examples:\n  sudo ptecheck %s -- ./build/workloads/mremap_folios --iterations "
		"1000\n"
		"  sudo ptecheck %s --comm postgres --duration 30\n"
		"  sudo ptecheck %s --by comm -i 5 --duration 60\n",
		cmd,
		hist ? "Per-call histograms of the batched paths this kernel lets us observe,\n"
		       "in the libbpf-tools shape (linear for small values, log2 above)."
		     : "Checks the mremap invariants on every mremap of the watched program,\n"
		       "and the filemap ones on every fault-around batch where the kernel\n"
		       "allows the hooks (past-EOF and mapcount deltas are observed, not\n"
		       "enforced: a live program may resize or share its files), and\n"
		       "reports violations as they happen, then a summary.",
		cmd, cmd, cmd);
}

struct watch_opts {
	bool hist;
	struct pc_session_opts so;
	enum pc_format format;
	double duration; /* 0: until the target ends or a signal */
	long pid;
	struct pc_user user;
	bool as_user;
	struct pc_klog_opts klog;
	char **cmd;	    /* after --, or NULL */
	const char *output; /* --output, or NULL */
	bool no_inherit;    /* --no-inherit: not the targets' child processes */
	double interval;    /* -i: seconds between interval histograms, 0: none */
	const char *cgroup; /* --cgroup: its path, or NULL */
};

/* A watch in progress: what it follows and what it has seen. */
struct watch {
	const struct watch_opts *o;
	pid_t child; /* the command we started, 0 once reaped */
	int go_fd;   /* tells the child to exec, once it is tracked */
	int exec_fd; /* carries the exec's errno, closed by a good exec */
	int exec_errno;
	struct pc_klog klog;
	pc_klog_who_fn who; /* NULL when watching everything */
	struct pc_session s;
	struct pc_report *r;
	struct pc_report *last; /* -i: the histograms at the last interval */
};

/* Names the processes a watch follows in kernel-log evidence. */
static const char *who_is(int pid, void *ctx)
{
	const struct watch *w = ctx;

	if (w->child > 0 && pid == w->child)
		return "the watched command";
	if (w->o->pid > 0 && pid == w->o->pid)
		return "the watched process";
	return NULL;
}

/* --cgroup PATH: a cgroup v2 directory; -1 to go on, else the exit code. */
static int open_cgroup(const char *path, struct watch_opts *o)
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

/* Seconds for opt, above lo (lo_incl: lo or above) and at most a day; -1
   to go on, else the exit code. */
static int seconds_option(const char *opt, const char *arg, double lo, bool lo_incl, double *out)
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

/* --sample N (watch only: hist judges nothing); -1 to go on, else the exit code. */
static int sample_option(const char *arg, struct watch_opts *o)
{
	char *end;
	long n;

	if (o->hist) {
		pc_err(0, "hist judges nothing: --sample is for watch");
		return PC_EXIT_USAGE;
	}
	errno = 0;
	n = strtol(arg, &end, 10);
	if (errno || *end || n < 1 || n > PC_SAMPLE_MAX) {
		pc_err(0, "--sample takes a number 1 <= N <= %d, not '%s'", PC_SAMPLE_MAX, arg);
		return PC_EXIT_USAGE;
	}
	o->so.sample = (__u32)n;
	return -1;
}

/* One option into o; -1 to go on, else the exit code. */
static int take_option(int c, struct watch_opts *o)
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
		return seconds_option("--duration", optarg, 0, false, &o->duration);
	case 'f':
		if (!pc_format_option(optarg, &o->format))
			return PC_EXIT_USAGE;
		if (o->hist && o->format == PC_FORMAT_JUNIT) {
			pc_err(0, "hist checks nothing: no testcases for --format junit "
				  "(text, json, tap; watch gives junit)");
			return PC_EXIT_USAGE;
		}
		return -1;
	case 'o':
		o->output = optarg;
		return -1;
	case 'I':
		o->no_inherit = true;
		return -1;
	case 'G':
		return open_cgroup(optarg, o);
	case 'i':
		return seconds_option("--interval", optarg, 0.1, true, &o->interval);
	case 'b':
		err = pc_hist_by_parse(optarg);
		if (err < 0) {
			pc_err(0, "--by takes comm or pid, not '%s'", optarg);
			return PC_EXIT_USAGE;
		}
		o->so.hist_by = (__u32)err;
		return -1;
	case 'S':
		return sample_option(optarg, o);
	case 'u':
		err = pc_user_lookup(optarg, &o->user);
		if (err) {
			pc_err(err == -ENOENT ? 0 : -err, "--user: no user '%s'", optarg);
			return PC_EXIT_USAGE;
		}
		o->as_user = true;
		return -1;
	case 'h':
		usage(stdout, o->hist);
		return PC_EXIT_PASS;
	default:
		if (pc_klog_option(c, &o->klog))
			return -1;
		usage(stderr, o->hist);
		return PC_EXIT_USAGE;
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

/* Options and their combinations; -1 to go on, else the exit code. */
static int parse_args(int argc, char **argv, struct watch_opts *o)
{
	static const struct option opts[] = {
		{"pid", required_argument, NULL, 'p'},
		{"comm", required_argument, NULL, 'c'},
		{"duration", required_argument, NULL, 'd'},
		{"format", required_argument, NULL, 'f'},
		{"output", required_argument, NULL, 'o'},
		{"no-inherit", no_argument, NULL, 'I'},
		{"interval", required_argument, NULL, 'i'},
		{"cgroup", required_argument, NULL, 'G'},
		{"by", required_argument, NULL, 'b'},
		{"user", required_argument, NULL, 'u'},
		{"sample", required_argument, NULL, 'S'},
		PC_KLOG_LONGOPTS,
		{"help", no_argument, NULL, 'h'},
		{},
	};
	int c, code, err;

	while ((c = getopt_long(argc, argv, "+p:c:d:f:o:i:u:R:h", opts, NULL)) != -1) {
		code = take_option(c, o);
		if (code >= 0)
			return code;
	}
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
	if (!o->pid && !o->so.comm && !o->cmd && o->duration == 0) {
		pc_err(0, "nothing to watch: give --pid, --comm, --duration or -- CMD");
		return PC_EXIT_USAGE;
	}
	return -1;
}

/* The command's child: waits for the go (it is tracked by then), then
   execs, or sends the errno of what failed through the exec pipe. */
static void __attribute__((noreturn))
command_child(const struct watch_opts *o, int go_pipe[2], int exec_pipe[2])
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
static int start_command(struct watch *w, struct watch_opts *o)
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
static void track_targets(struct watch *w)
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
static void banner(const struct watch *w)
{
	const struct watch_opts *o = w->o;
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
	fprintf(stderr, "ptecheck %s: %d programs attached; tracing %s", o->hist ? "hist" : "watch",
		w->s.n_links, who);
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
static bool command_ended(struct watch *w)
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

/* -i: the histograms of the interval since the last one, on stderr. */
static void print_interval(struct watch *w)
{
	struct pc_report *now = pc_report_new("interval", "live");
	char stamp[64];
	struct tm tm;
	time_t t = time(NULL);

	if (!now)
		return;
	pc_paths_hists(&w->s, now, NULL);
	strftime(stamp, sizeof(stamp), "%H:%M:%S", localtime_r(&t, &tm));
	snprintf(stamp + strlen(stamp), sizeof(stamp) - strlen(stamp), " (the last %g s)",
		 w->o->interval);
	if (pc_report_write_interval(now, w->last, stamp, stderr))
		pc_err(errno, "cannot write the interval");
	pc_report_free(w->last);
	w->last = now;
}

/* Until the target ends, the duration is up or a signal comes. */
static void watch_until_done(struct watch *w)
{
	struct timespec t0;
	double next = w->o->interval;

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!stop) {
		pc_session_poll(&w->s, 100);
		if (!w->o->hist)
			pc_klog_poll(&w->klog, stderr, w->who, w);
		if (command_ended(w))
			break;
		if (w->o->pid && kill((pid_t)w->o->pid, 0) && errno == ESRCH) {
			pc_report_note(w->r, "process %ld exited", w->o->pid);
			break;
		}
		if (w->o->duration > 0 && seconds_since(&t0) >= w->o->duration)
			break;
		if (next > 0 && seconds_since(&t0) >= next) {
			print_interval(w);
			next += w->o->interval;
		}
	}
	pc_report_free(w->last);
	w->last = NULL;
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

/* The results (watch) and histograms (both) of what was seen. */
static void add_results(struct watch *w)
{
	struct pc_session *s = &w->s;
	struct pc_report *r = w->r;

	if (!w->o->hist) {
		pc_session_notes(s, r);
		/* Past-EOF and mapcount deltas are observed, not enforced, here:
		   a live program may resize files or share them (track flags 0). */
		pc_paths_results(s, r, NULL);
		pc_klog_judge(&w->klog, r, "kernel-log", w->who, w);
	}
	pc_klog_stop(&w->klog);
	pc_paths_hists(s, r, NULL);
	pc_session_stats(s, r);
	pc_session_close(s);
}

/* Closes an --output file (not stdout or stderr); 0 or EOF with errno. */
static int close_output(FILE *out)
{
	return out == stdout || out == stderr ? 0 : fclose(out);
}

/* Opens the session; 0, or the exit code when nothing can be traced. */
static int open_session(struct watch *w)
{
	int err;

	pc_tracefs_ensure();
	err = pc_session_open(&w->s, &w->o->so);
	w->s.report = w->r;
	/* The filter map holds the cgroup now (or nothing will trace). */
	if (w->o->so.filter_mode == PC_FILTER_CGROUP)
		close(w->o->so.cgroup_fd);
	if (!err)
		return 0;
	pc_err(err, "cannot trace: %s", w->s.load_error);
	if (w->child > 0) {
		kill(w->child, SIGKILL);
		waitpid(w->child, NULL, 0);
	}
	return PC_EXIT_SKIP;
}

int pc_cmd_watch(int argc, char **argv)
{
	struct watch_opts o = {.hist = strcmp(argv[0], "hist") == 0, .format = PC_FORMAT_TEXT};
	struct watch w = {.o = &o, .go_fd = -1, .exec_fd = -1};
	char rules_err[512];
	FILE *out;
	int code;

	o.so = (struct pc_session_opts){.filter_mode = PC_FILTER_ALL, .want_walk = !o.hist};
	code = parse_args(argc, argv, &o);
	if (code >= 0)
		return code;
	if (!pc_have_bpf_privilege()) {
		pc_err(0, "%s needs root (CAP_BPF and CAP_PERFMON)", argv[0]);
		return PC_EXIT_USAGE;
	}
	/* The report never shares stdout with the command's output. */
	out = o.output ? pc_open_report_said(o.output) : o.cmd ? stderr : stdout;
	if (!out)
		return PC_EXIT_USAGE;
	/* From here on, the kernel's own complaints are part of the watch. */
	if (pc_klog_start(&w.klog, o.klog.rules, o.klog.user_lines, rules_err, sizeof(rules_err))) {
		pc_err(0, "--log-rules: %s", rules_err);
		close_output(out);
		return PC_EXIT_USAGE;
	}
	code = o.cmd ? start_command(&w, &o) : 0;
	/* Watching everything: no process is "not ours". */
	w.who = o.pid || w.child > 0 ? who_is : NULL;
	w.r = code ? NULL : pc_report_new(o.hist ? "hist" : "watch", "live");
	if (!code && !w.r)
		code = PC_EXIT_ERROR;
	if (!code)
		code = open_session(&w);
	if (code) {
		pc_report_free(w.r);
		pc_klog_stop(&w.klog);
		close_output(out);
		return code;
	}
	track_targets(&w);
	banner(&w);
	watch_until_done(&w);
	add_results(&w);
	code = o.hist ? PC_EXIT_PASS : pc_report_exit_code(w.r);
	if (w.exec_errno)
		code = PC_EXIT_USAGE; /* bad input: nothing of it was watched */
	if (pc_report_write(w.r, o.format, out) || close_output(out)) {
		pc_err(errno, "cannot write the report");
		code = PC_EXIT_ERROR;
	}
	pc_report_free(w.r);
	return code;
}
