// SPDX-License-Identifier: GPL-2.0
/*
 * ptecheck export: the live session of watch, left running (fleet mode,
 * docs/fleet.md); every second its report becomes the Prometheus
 * exposition (export/metrics.c) that GET /metrics answers, each interval
 * the file --textfile writes, and each violation a JSON line in --log.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include "cli.h"
#include "cmd_export.h"
#include "cmd_watch.h"
#include "http.h"
#include "live.h"
#include "metrics.h"
#include "paths.h"
#include "sessions.h"
#include "textfile.h"
#include "vlog.h"

#define DEFAULT_LISTEN "127.0.0.1:9863"
/* Judge 1 in 16 windows: the checks' cost on a busy canary (docs/fleet.md). */
#define DEFAULT_SAMPLE	 PC_EXPORT_DEFAULT_SAMPLE
#define DEFAULT_INTERVAL 15.0

#ifdef PTECHECK_HAVE_MICROHTTPD
#define HTTP_NOTE ""
#else
#define HTTP_NOTE "\n                 (this build has no HTTP endpoint: no libmicrohttpd)"
#endif

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: ptecheck export [--listen ADDR:PORT] [--textfile DIR] [-i S]\n"
		"                       [--log FILE] [--log-rate N]\n"
		"                       [--comm C | --cgroup PATH | --pid P] [--duration S]\n"
		"                       [--log-rules FILE] [-- CMD ARGS...]\n\n"
		"Runs the checks and histograms of watch until SIGTERM or SIGINT (every\n"
		"process by default) and exports them to Prometheus: the text exposition\n"
		"format at GET /metrics, and for node_exporter's textfile collector.\n\n"
		"  --listen ADDR:PORT  serve /metrics there (default " DEFAULT_LISTEN "; numeric\n"
		"                 addresses, [::1]:PORT for IPv6; PORT 0: a free one, said\n"
		"                 on stderr)%s\n"
		"  --textfile DIR also write DIR/" PC_TEXTFILE_NAME " each interval (atomically:\n"
		"                 a temporary file in DIR, synced, renamed)\n"
		"  -i, --interval S  seconds between writes of --textfile (default %g); GET\n"
		"                 /metrics answers what is at most a second old\n"
		"  --log FILE     each violation as one JSON line with its evidence\n"
		"                 (default: stderr); SIGHUP reopens FILE\n"
		"  --sample N     judge 1 in N windows of each kind, and make 1 in N derived\n"
		"                 batch walks, per CPU (as watch; default %d: a canary is\n"
		"                 busy; 1 judges and walks every window)\n"
		"  --log-rate N   at most N lines a second (default %d), the rest counted\n"
		"                 in a {\"suppressed\": K} line\n"
		"  --comm C, --cgroup PATH, --pid P, --no-inherit, --duration S, --user U,\n"
		"  --log-rules F, --log-user-lines, -- CMD ARGS: as for ptecheck watch\n\n"
		"It changes no system setting.  Exit: 0 after SIGTERM/SIGINT, the duration\n"
		"or CMD's end; 2 usage or privilege; 3 an operation failed (e.g. the port\n"
		"is taken); 4 nothing could be traced.\n\n"
		"Examples:\n  sudo ptecheck export\n"
		"  sudo ptecheck export --listen 127.0.0.1:9863 --textfile "
		"/var/lib/prometheus/node-exporter\n",
		HTTP_NOTE, DEFAULT_INTERVAL, DEFAULT_SAMPLE, PC_VLOG_PER_S);
}

struct export_opts {
	struct pc_live_opts live;
	const char *listen; /* NULL: the default */
	const char *textfile;
	const char *log;
	unsigned int log_rate;
	struct sockaddr_storage addr;
};

struct exporter {
	struct pc_live l;
	const struct export_opts *o;
	struct pc_http *http;
	struct pc_vlog vlog;
	double start_time;
	size_t next_splat; /* the first splat not yet logged */
	double published;  /* when the exposition was last made (monotonic_s) */
};

#define PUBLISH_EVERY_S 1.0 /* the HTTP exposition's age, at most */

/* One option into o; -1 to go on, else the exit code. */
static int take_option(int c, struct export_opts *o)
{
	char *end;
	unsigned long n;
	int err;

	switch (c) {
	case 'l':
		o->listen = optarg;
		return -1;
	case 't':
		o->textfile = optarg;
		return -1;
	case 'i':
		return pc_seconds_option("--interval", optarg, 0.1, true, &o->live.interval);
	case 'S':
		return pc_sample_option(optarg, &o->live.so.sample);
	case 'L':
		o->log = optarg;
		return -1;
	case 'r':
		errno = 0;
		n = strtoul(optarg, &end, 10);
		if (errno || *end || optarg[0] < '0' || optarg[0] > '9' || n < 1 || n > 100000) {
			pc_err(0, "--log-rate takes lines a second (1 to 100000), not '%s'",
			       optarg);
			return PC_EXIT_USAGE;
		}
		o->log_rate = (unsigned int)n;
		return -1;
	case 'h':
		usage(stdout);
		return PC_EXIT_PASS;
	default:
		err = pc_live_option(c, &o->live);
		if (err != PC_LIVE_NOT_MINE)
			return err;
		usage(stderr);
		return PC_EXIT_USAGE;
	}
}

/* Whether dir is a directory we can write in; else the message said. */
static bool textfile_dir_ok(const char *dir)
{
	struct stat st;

	if (stat(dir, &st)) {
		pc_err(errno, "--textfile %s", dir);
		return false;
	}
	if (!S_ISDIR(st.st_mode)) {
		pc_err(ENOTDIR, "--textfile %s", dir);
		return false;
	}
	return true;
}

static int parse_args(int argc, char **argv, struct export_opts *o)
{
	static const struct option opts[] = {
		PC_LIVE_LONGOPTS,
		{"listen", required_argument, NULL, 'l'},
		{"textfile", required_argument, NULL, 't'},
		{"interval", required_argument, NULL, 'i'},
		{"log", required_argument, NULL, 'L'},
		{"log-rate", required_argument, NULL, 'r'},
		{"sample", required_argument, NULL, 'S'},
		{"help", no_argument, NULL, 'h'},
		{},
	};
	char why[160];
	int c, code;

	while ((c = getopt_long(argc, argv, "+" PC_LIVE_SHORTOPTS "i:h", opts, NULL)) != -1) {
		code = take_option(c, o);
		if (code >= 0)
			return code;
	}
#ifndef PTECHECK_HAVE_MICROHTTPD
	if (o->listen || !o->textfile) {
		pc_err(0, "this ptecheck was built without libmicrohttpd: no HTTP endpoint "
			  "(--listen); give --textfile DIR");
		return PC_EXIT_USAGE;
	}
#endif
	if (!pc_http_parse_listen(o->listen ? o->listen : DEFAULT_LISTEN, &o->addr, why,
				  sizeof(why))) {
		pc_err(0, "--listen %s: %s", o->listen, why);
		return PC_EXIT_USAGE;
	}
	if (o->textfile && !textfile_dir_ok(o->textfile))
		return PC_EXIT_USAGE;
	return pc_live_args(argc, argv, &o->live);
}

/* The session's report now: results, histograms and statistics. */
static struct pc_report *snapshot(struct pc_live *l)
{
	struct pc_report *r = pc_report_new("export", "live");

	if (!r)
		return NULL;
	pc_paths_results(&l->s, r, NULL);
	pc_paths_hists(&l->s, r, NULL);
	pc_session_stats(&l->s, r);
	return r;
}

/* The exposition of now, published, and written to --textfile when the
   interval is due. */
static void refresh(struct exporter *x, bool textfile)
{
	struct pc_report *r = snapshot(&x->l);
	struct pc_metrics_src m = {.r = r, .klog = x->l.klog.scan, .start_time = x->start_time};
	char *body = NULL;
	size_t len = 0;
	FILE *mem = r ? open_memstream(&body, &len) : NULL;
	int err = mem ? pc_metrics_write(&m, mem) : -ENOMEM;

	if (mem && fclose(mem) && !err)
		err = -errno;
	pc_report_free(r);
	if (err) {
		pc_err(-err, "export: cannot make the metrics");
		free(body);
		return;
	}
#ifdef PTECHECK_HAVE_MICROHTTPD
	err = x->http ? pc_http_publish(x->http, body, len) : 0;
	if (err)
		pc_err(-err, "export: cannot publish the metrics");
#endif
	err = textfile && x->o->textfile ? pc_textfile_write(x->o->textfile, body, len) : 0;
	if (err)
		pc_err(-err, "export: --textfile %s", x->o->textfile);
	free(body);
}

static void on_violation(void *ctx, const char *check, const char *tier,
			 const struct pc_evidence *e)
{
	struct exporter *x = ctx;

	pc_vlog_violation(&x->vlog, check, tier, e);
}

static double monotonic_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* After each poll: new kernel-log splats logged, SIGHUP, the interval. */
static void each_poll(struct pc_live *l, bool due, void *ctx)
{
	struct exporter *x = ctx;
	size_t n = l->klog.scan ? pc_kmsg_scan_nsplats(l->klog.scan) : 0;
	int err;

	/* A splat is logged once it is closed: its lines are all there. */
	while (x->next_splat < n && pc_kmsg_scan_splat(l->klog.scan, x->next_splat)->closed)
		pc_vlog_splat(&x->vlog, pc_kmsg_scan_splat(l->klog.scan, x->next_splat++));
	if (l->hup) {
		l->hup = 0;
		err = pc_vlog_reopen(&x->vlog);
		if (err)
			pc_err(-err, "export: cannot reopen --log %s (still writing the old one)",
			       x->o->log);
	}
	/* A scrape reads what happened up to a second ago, whatever -i is
	   (it paces --textfile): right after a workload, its events. */
	if (due || monotonic_s() - x->published >= PUBLISH_EVERY_S) {
		x->published = monotonic_s();
		refresh(x, due);
	}
}

/* The HTTP endpoint: 0, or the exit code. */
static int serve(struct exporter *x)
{
#ifdef PTECHECK_HAVE_MICROHTTPD
	const char *listen = x->o->listen ? x->o->listen : DEFAULT_LISTEN;
	int err = pc_http_start(&x->http, &x->o->addr), port;

	if (err) {
		pc_err(-err, "export: cannot serve on %s", listen);
		return PC_EXIT_ERROR;
	}
	/* The port bound, not the one asked: for port 0 the kernel's pick,
	   which a caller (a test, the bench) reads here. */
	port = pc_http_port(x->http);
	if (port < 0) {
		pc_err(-port, "export: cannot tell the port it serves on (%s)", listen);
		return PC_EXIT_ERROR;
	}
	fprintf(stderr, "ptecheck export: serving http://%.*s:%d/metrics\n",
		(int)(strrchr(listen, ':') - listen), listen, port);
#else
	(void)x;
#endif
	return 0;
}

int pc_cmd_export(int argc, char **argv)
{
	struct export_opts o = {
		.log_rate = PC_VLOG_PER_S,
		.live = {.name = "export",
			 .checks = true,
			 .hup_continues = true,
			 .forever = true,
			 .interval = DEFAULT_INTERVAL,
			 .so = pc_command_session("export")},
	};
	struct exporter x = {.o = &o};
	struct timespec now;
	int code, err;

	code = parse_args(argc, argv, &o);
	if (code >= 0)
		return code;
	err = pc_vlog_open(&x.vlog, o.log, o.log_rate);
	if (err) {
		pc_err(-err, "--log %s", o.log);
		return PC_EXIT_USAGE;
	}
	clock_gettime(CLOCK_REALTIME, &now);
	x.start_time = now.tv_sec + now.tv_nsec / 1e9;
	/* The port first: one taken fails before anything is attached. */
	code = serve(&x);
	if (!code)
		code = pc_live_start(&x.l, &o.live);
	if (!code) {
		x.l.s.on_violation = on_violation;
		x.l.s.on_violation_ctx = &x;
		refresh(&x, true);
		pc_live_run(&x.l, each_poll, &x);
		refresh(&x, true); /* the last counts, for --textfile */
		/* Served what loaded; a refused program is ptecheck's failure. */
		if (pc_session_refused(&x.l.s))
			code = PC_EXIT_ERROR;
		pc_live_close(&x.l);
		pc_report_free(x.l.r);
	}
#ifdef PTECHECK_HAVE_MICROHTTPD
	pc_http_stop(x.http);
#endif
	pc_vlog_close(&x.vlog);
	return code;
}
