// SPDX-License-Identifier: GPL-2.0
/*
 * ptecheck watch / ptecheck hist: attach to the live kernel while the
 * user's own program runs (a command we start, a pid, or a comm), report
 * violations as they happen, then the results and histograms.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ptecheck/sample.h>
#include "cli.h"
#include "out.h"
#include "report.h"
#include "live.h"
#include "paths.h"
#include "sessions.h"
#include "cmd_watch.h"

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
		"                 host pays for a few; the histograms the hooks feed still\n"
		"                 count every one, those a page-table walk gives (derived\n"
		"                 batch runs too) the sampled ones (docs/fleet.md)\n"
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
	struct pc_live_opts live;
	enum pc_format format;
	const char *output; /* --output, or NULL */
};

/* A watch in progress: the live session and the last interval. */
struct watch {
	struct pc_live l;
	const struct watch_opts *o;
	struct pc_report *last; /* -i: the histograms at the last interval */
};

int pc_sample_option(const char *arg, __u32 *every)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(arg, &end, 10);
	if (errno || *end || n < 1 || n > PC_SAMPLE_MAX) {
		pc_err(0, "--sample takes a number 1 <= N <= %d, not '%s'", PC_SAMPLE_MAX, arg);
		return PC_EXIT_USAGE;
	}
	*every = (__u32)n;
	return -1;
}

/* One option into o; -1 to go on, else the exit code. */
static int take_option(int c, struct watch_opts *o)
{
	int err;

	switch (c) {
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
	case 'i':
		return pc_seconds_option("--interval", optarg, 0.1, true, &o->live.interval);
	case 'b':
		err = pc_hist_by_parse(optarg);
		if (err < 0) {
			pc_err(0, "--by takes comm or pid, not '%s'", optarg);
			return PC_EXIT_USAGE;
		}
		o->live.so.hist_by = (__u32)err;
		return -1;
	case 'S':
		if (o->hist) {
			pc_err(0, "hist judges nothing: --sample is for watch");
			return PC_EXIT_USAGE;
		}
		return pc_sample_option(optarg, &o->live.so.sample);
	case 'h':
		usage(stdout, o->hist);
		return PC_EXIT_PASS;
	default:
		err = pc_live_option(c, &o->live);
		if (err != PC_LIVE_NOT_MINE)
			return err;
		usage(stderr, o->hist);
		return PC_EXIT_USAGE;
	}
}

/* Options and their combinations; -1 to go on, else the exit code. */
static int parse_args(int argc, char **argv, struct watch_opts *o)
{
	static const struct option opts[] = {
		PC_LIVE_LONGOPTS,
		{"format", required_argument, NULL, 'f'},
		{"output", required_argument, NULL, 'o'},
		{"interval", required_argument, NULL, 'i'},
		{"by", required_argument, NULL, 'b'},
		{"sample", required_argument, NULL, 'S'},
		{"help", no_argument, NULL, 'h'},
		{},
	};
	int c, code;

	while ((c = getopt_long(argc, argv, "+" PC_LIVE_SHORTOPTS "f:o:i:h", opts, NULL)) != -1) {
		code = take_option(c, o);
		if (code >= 0)
			return code;
	}
	return pc_live_args(argc, argv, &o->live);
}

/* -i: the histograms of the interval since the last one, on stderr. */
static void print_interval(struct pc_live *l, bool due, void *ctx)
{
	struct watch *w = ctx;
	struct pc_report *now;
	char stamp[64];
	struct tm tm;
	time_t t = time(NULL);

	if (!due)
		return;
	now = pc_report_new("interval", "live");
	if (!now)
		return;
	pc_paths_hists(&l->s, now, NULL);
	strftime(stamp, sizeof(stamp), "%H:%M:%S", localtime_r(&t, &tm));
	snprintf(stamp + strlen(stamp), sizeof(stamp) - strlen(stamp), " (the last %g s)",
		 l->o->interval);
	if (pc_report_write_interval(now, w->last, stamp, stderr))
		pc_err(errno, "cannot write the interval");
	pc_report_free(w->last);
	w->last = now;
}

/* The results (watch) and histograms (both) of what was seen. */
static void add_results(struct watch *w)
{
	struct pc_session *s = &w->l.s;
	struct pc_report *r = w->l.r;

	if (!w->o->hist) {
		pc_session_notes(s, r);
		/* Past-EOF and mapcount deltas are observed, not enforced, here:
		   a live program may resize files or share them (track flags 0). */
		pc_paths_results(s, r, NULL);
		pc_klog_judge(&w->l.klog, r, "kernel-log", w->l.who, &w->l);
	}
	pc_paths_hists(s, r, NULL);
	pc_session_stats(s, r);
	pc_live_close(&w->l);
	/* hist's text shows histograms: what it cannot show is one line
	   there (-v, and JSON and TAP, give each with why). */
	if (w->o->hist && w->o->format == PC_FORMAT_TEXT && !pc_verbose) {
		int n = pc_report_drop_notes(r, PC_NOT_SHOWN);

		if (n)
			pc_report_note(
				r,
				"%d histograms not available here: ptecheck -v hist lists them, "
				"each with why",
				n);
	}
}

/* Closes an --output file (not stdout or stderr); 0 or EOF with errno. */
static int close_output(FILE *out)
{
	return out == stdout || out == stderr ? 0 : fclose(out);
}

int pc_cmd_watch(int argc, char **argv)
{
	struct watch_opts o = {.hist = strcmp(argv[0], "hist") == 0, .format = PC_FORMAT_TEXT};
	struct watch w = {.o = &o};
	FILE *out;
	int code;

	o.live = (struct pc_live_opts){
		.name = o.hist ? "hist" : "watch",
		.checks = !o.hist,
		.so = pc_command_session(o.hist ? "hist" : "watch"),
	};
	code = parse_args(argc, argv, &o);
	if (code >= 0)
		return code;
	/* The report never shares stdout with the command's output. */
	out = o.output ? pc_open_report_said(o.output) : o.live.cmd ? stderr : stdout;
	if (!out)
		return PC_EXIT_USAGE;
	code = pc_live_start(&w.l, &o.live);
	if (code) {
		close_output(out);
		return code;
	}
	pc_live_run(&w.l, print_interval, &w);
	pc_report_free(w.last);
	add_results(&w);
	/* hist judges nothing: it passes unless a program of its own was
	   refused (its histograms are missing: exit 3). */
	code = !o.hist		      ? pc_report_exit_code(w.l.r)
	       : w.l.r->bpf.n_refused ? PC_EXIT_ERROR
				      : PC_EXIT_PASS;
	if (w.l.exec_errno)
		code = PC_EXIT_USAGE; /* bad input: nothing of it was watched */
	if (pc_report_write(w.l.r, o.format, out) || close_output(out)) {
		pc_err(errno, "cannot write the report");
		code = PC_EXIT_ERROR;
	}
	pc_report_free(w.l.r);
	return code;
}
