// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of export/: the Prometheus exposition of a report and a kernel
 * log (metrics.c: escaping, cumulative buckets, +Inf and _count, one HELP
 * and TYPE per family, no duplicate series; promtool's verdict where it is
 * installed), --listen's parser (http.c), --textfile's atomic write
 * (textfile.c) and the rate-limited violation log (vlog.c).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <ptecheck/events.h>
#include "http.h"
#include "kmsg_feed.h"
#include "metrics.h"
#include "tap.h"
#include "textfile.h"
#include "vlog.h"

static struct pc_hist_report *hist(struct pc_report *r, const char *id, const char *name,
				   __u32 kind)
{
	return pc_report_add_hist(r, id, name, "PTEs", "test", true, kind);
}

/* A batch histogram of path ctx and source src, named as the tracer does. */
static struct pc_hist_report *batch(struct pc_report *r, const char *ctx, const char *src)
{
	char name[96], id[PC_HIST_ID_MAX];
	struct pc_hist_report *h;

	snprintf(name, sizeof(name), "%s PTEs per batch (%s)", ctx, src);
	pc_hist_batch_id(id, sizeof(id), ctx, src);
	h = hist(r, id, name, PC_HIST_LINLOG);
	pc_report_hist_batch(h, ctx, src);
	return h;
}

static struct pc_report *sample(void)
{
	struct pc_report *r = pc_report_new("export", "live");
	struct pc_result *res;
	struct pc_hist_report *h;

	res = pc_report_add_result(r, "mremap/moved", "kernel:syscall-walk", true);
	pc_result_set(res, PC_STATUS_PASS, "ok");
	res->checked = 512;
	res->inconclusive = 3;
	res = pc_report_add_result(r, "we\"ird\\check\nname", "kernel:fexit", true);
	pc_result_set(res, PC_STATUS_FAIL, "bad");
	res->checked = 9;
	res->violations = 2;
	/* A userspace oracle's result: not one of the session's counters. */
	pc_report_add_result(r, "mremap/oracle", "oracle:pagemap", false);
	h = batch(r, "munmap", "folio_pte_batch");
	h->slots[1] = 5;
	h->slots[16] = 2;
	h->slots[pc_hist_slot(PC_HIST_LINLOG, 512)] = 1;
	h->has_sum = true;
	h->sum = 5 + 32 + 512;
	/* The same labels again: not a second series. */
	h = batch(r, "munmap", "folio_pte_batch");
	h->slots[3] = 7;
	h = hist(r, "fork/batch/derived", "fork PTEs per large-folio run (derived)",
		 PC_HIST_LINLOG);
	pc_report_hist_batch(h, "fork", "derived");
	h->slots[pc_hist_slot(PC_HIST_LINLOG, 1 << 20)] = 4; /* past the buckets: +Inf only */
	h->has_sum = true;
	h->sum = 4ULL << 20;
	h = hist(r, "mremap/batch", "mremap PTEs per batch", PC_HIST_LINLOG);
	pc_report_hist_batch(h, "mremap", "contpte_set_ptes");
	h->slots[2] = 1;
	h = hist(r, "filemap/batch", "fault-around PTEs per set_pte_range", PC_HIST_LINLOG);
	pc_report_hist_batch(h, "fault-around", "set_pte_range");
	h->slots[16] = 1;
	hist(r, "mremap/tlb-flushes", "mremap TLB flushes per call", PC_HIST_LINLOG)->slots[1] = 1;
	/* Named like one, not marked one: the labels come from the tracer. */
	hist(r, "mlock/odd", "mlock PTEs per batch (folio_pte_batch)", PC_HIST_LINLOG)->slots[1] =
		1;
	h = batch(r, "madvise FREE", "folio_pte_batch");
	h->by = PC_BY_PID; /* keyed: per-pid labels are not exported */
	h->slots[1] = 1;
	h = pc_report_add_hist(r, "mremap/latency", "mremap latency", "ns", "test", true,
			       PC_HIST_LOG2);
	h->slots[10] = 3; /* 1024..2047 ns */
	h->has_sum = true;
	h->sum = 1500 + 1024 + 2047;
	r->stats[PC_STAT_EVENTS_DROPPED] = 6;
	r->sample_every = 16;
	r->bpf.loaded = true;
	r->bpf.n_progs = 1;
	snprintf(r->bpf.progs[0].name, sizeof(r->bpf.progs[0].name), "syscalls_exit");
	r->bpf.progs[0].verified_insns = 19528;
	snprintf(r->bpf.refused[r->bpf.n_refused++], sizeof(r->bpf.refused[0]),
		 "the verifier refused filemap_window: invalid read from stack");
	r->n_stats = PC_STAT__COUNT;
	return r;
}

/* The exposition of r and a log with two splats of one rule, in a buffer. */
static char *expose(const struct pc_report *r, struct pc_kmsg_scan *scan)
{
	struct pc_metrics_src m = {.r = r, .klog = scan, .start_time = 1700000000.25};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int err = pc_metrics_write(&m, f);

	fclose(f);
	TAP_CHECK_EQ(err, 0, "pc_metrics_write succeeds");
	return buf;
}

/* The value of the sample line that starts with series + ' '; -1 if none. */
static double value_of(const char *text, const char *series)
{
	size_t n = strlen(series);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, series, n) && p[n] == ' ')
			return strtod(p + n + 1, NULL);
	return -1;
}

/* Every family once (HELP then TYPE, before its samples), counters named
   _total, no series twice. */
static void check_structure(char *text)
{
	char *copy = strdup(text), *save = NULL, *series[512], *fams[64], *cur = NULL;
	int n_series = 0, n_fams = 0, dup = 0, order = 0, counter_name = 0;

	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[128], type[16];

		if (sscanf(line, "# TYPE %127s %15s", name, type) == 2) {
			for (int i = 0; i < n_fams; i++)
				dup += !strcmp(fams[i], name);
			if (n_fams < 64)
				fams[n_fams++] = cur = line + 7;
			cur[strlen(name)] = '\0';
			counter_name += !strcmp(type, "counter") &&
					strcmp(name + strlen(name) - 6, "_total");
			continue;
		}
		if (line[0] == '#')
			continue;
		/* A sample belongs to the family last typed. */
		order += !cur || strncmp(line, cur, strlen(cur));
		*strrchr(line, ' ') = '\0';
		for (int i = 0; i < n_series; i++)
			dup += !strcmp(series[i], line);
		if (n_series < 512)
			series[n_series++] = line;
	}
	TAP_CHECK_EQ(dup, 0, "no family typed twice, no series twice");
	TAP_CHECK_EQ(order, 0, "each sample follows its family's TYPE line");
	TAP_CHECK_EQ(counter_name, 0, "every counter's name ends in _total");
	TAP_CHECK(n_fams == 15, "the 15 families of the contract (%d)", n_fams);
	free(copy);
}

/* Buckets of series prefix (with its labels' opening, e.g. 'x_bucket{a="b",')
   non-decreasing, the last +Inf, equal to _count. */
static void check_buckets(const char *text, const char *bucket_prefix, const char *count_series,
			  double want_count)
{
	double prev = 0, v = 0, count = value_of(text, count_series);
	int n = 0, down = 0, inf = 0;

	for (const char *p = strstr(text, bucket_prefix); p; p = strstr(p + 1, bucket_prefix)) {
		const char *sp = strchr(p, ' ');

		v = strtod(sp + 1, NULL);
		down += v < prev;
		prev = v;
		inf = !strncmp(sp - 7, "\"+Inf\"}", 7);
		n++;
	}
	TAP_CHECK(n > 1 && !down, "%s: %d buckets, cumulative", count_series, n);
	TAP_CHECK(inf, "%s: the last bucket is +Inf", count_series);
	TAP_CHECK(v == count && count == want_count, "%s: +Inf bucket %g == _count %g == %g",
		  count_series, v, count, want_count);
}

static void test_metrics(void)
{
	struct pc_kmsg_rules *rules;
	struct feeder f = {.seq = 1, .ts = 1000000, .prio = 4};
	struct pc_report *r = sample();
	char err[256], *text, *cmd;
	FILE *p;

	pc_kmsg_rules_new(&rules);
	pc_kmsg_rules_load_default(rules, err, sizeof(err));
	pc_kmsg_scan_new(&f.s, rules);
	feed_text(&f, "BUG: Bad page map in process a  pte:8000000107a4d867\n");
	f.ts += 10000000;
	feed_text(&f, "BUG: Bad page map in process b  pte:8000000107a4d867\n");
	pc_kmsg_scan_finish(f.s);
	text = expose(r, f.s);
	check_structure(text);
	TAP_CHECK(strstr(text, "{check=\"we\\\"ird\\\\check\\nname\",tier=\"kernel:fexit\"} 2\n"),
		  "label values escape quote, backslash and newline");
	TAP_CHECK(!strstr(text, "mremap/oracle"), "userspace oracles' results are not counters");
	TAP_CHECK_EQ(value_of(text, "ptecheck_inconclusive_total{check=\"mremap/moved\","
				    "tier=\"kernel:syscall-walk\"}"),
		     3, "inconclusive counter");
	TAP_CHECK(strstr(text, "ptecheck_check_tier_info{check=\"mremap/moved\",tier=\"kernel:"
			       "syscall-walk\",state=\"pass\"} 1\n") &&
			  strstr(text,
				 "ptecheck_check_tier_info{check=\"mremap/moved\",tier=\"kernel:"
				 "syscall-walk\",state=\"fail\"} 0\n") &&
			  strstr(text,
				 "ptecheck_check_tier_info{check=\"mremap/moved\",tier=\"kernel:"
				 "syscall-walk\",state=\"skip\"} 0\n"),
		  "the tier a check runs in: a series per state, always there, 1 for its own");
	TAP_CHECK_EQ(value_of(text, "ptecheck_events_lost_total"), 6, "events lost");
	TAP_CHECK_EQ(value_of(text, "ptecheck_kernel_log_splats_total{rule=\"bad-page-map\"}"), 2,
		     "splats counted by rule");
	check_buckets(
		text, "ptecheck_batch_ptes_bucket{context=\"munmap\",source=\"folio_pte_batch\"",
		"ptecheck_batch_ptes_count{context=\"munmap\",source=\"folio_pte_batch\"}", 8);
	TAP_CHECK_EQ(value_of(text, "ptecheck_batch_ptes_bucket{context=\"munmap\",source=\"folio_"
				    "pte_batch\",le=\"16\"}"),
		     7, "le=16 holds the values up to 16");
	TAP_CHECK_EQ(value_of(text, "ptecheck_batch_ptes_bucket{context=\"munmap\",source=\"folio_"
				    "pte_batch\",le=\"511\"}"),
		     7, "le=511: 512 is above it");
	TAP_CHECK_EQ(value_of(text, "ptecheck_batch_ptes_sum{context=\"munmap\",source=\"folio_"
				    "pte_batch\"}"),
		     549, "the exact sum");
	check_buckets(text, "ptecheck_batch_ptes_bucket{context=\"fork\",source=\"derived\"",
		      "ptecheck_batch_ptes_count{context=\"fork\",source=\"derived\"}", 4);
	TAP_CHECK_EQ(value_of(text, "ptecheck_batch_ptes_bucket{context=\"fork\",source=\"derived\""
				    ",le=\"65535\"}"),
		     0, "a value past the last bucket is in +Inf only");
	TAP_CHECK(strstr(text, "{context=\"mremap\",source=\"contpte_set_ptes\"}") &&
			  strstr(text, "{context=\"fault-around\",source=\"set_pte_range\"}"),
		  "mremap's and fault-around's batch histograms");
	TAP_CHECK(!strstr(text, "madvise FREE") && !strstr(text, "source=\"folio_pte_batch\"} 1") &&
			  !strstr(text, "context=\"mlock\""),
		  "keyed histograms are not exported, nor is one only named like a batch "
		  "histogram exported as one");
	TAP_CHECK_EQ(value_of(text, "ptecheck_distribution_count{id=\"mremap/tlb-flushes\","
				    "unit=\"PTEs\"}"),
		     1, "every other histogram hist shows, by its id and unit");
	TAP_CHECK(!strstr(text, "TLB flushes per call"), "no title in a label: titles may change");
	check_buckets(text, "ptecheck_mremap_latency_seconds_bucket{",
		      "ptecheck_mremap_latency_seconds_count", 3);
	TAP_CHECK(strstr(text, "ptecheck_mremap_latency_seconds_bucket{le=\"0.000002047\"} 3\n") &&
			  strstr(text,
				 "ptecheck_mremap_latency_seconds_bucket{le=\"0.000001023\"} 0\n"),
		  "latency buckets in seconds, exactly");
	TAP_CHECK(strstr(text, "ptecheck_mremap_latency_seconds_sum 0.000004571\n"),
		  "latency sum in seconds, exactly");
	TAP_CHECK(strstr(text, "ptecheck_start_time_seconds 1700000000.250\n"), "start time");
	TAP_CHECK_EQ(value_of(text, "ptecheck_sample_every"), 16, "the sampling, 1 in 16");
	TAP_CHECK_EQ(value_of(text, "ptecheck_bpf_programs_refused"), 1,
		     "a refused program counted, to alert on");
	TAP_CHECK(strstr(text, "ptecheck_bpf_verified_instructions{program=\"syscalls_exit\"} "
			       "19528\n"),
		  "each program's verified instructions");
	/* promtool is Prometheus' own judge of the format. */
	if (access("/usr/bin/promtool", X_OK)) {
		tap_skip("promtool not installed (prometheus package)");
	} else if (asprintf(&cmd, "/usr/bin/promtool check metrics >/dev/null 2>&1") > 0) {
		p = popen(cmd, "w");
		fputs(text, p);
		TAP_CHECK_EQ(pclose(p), 0, "promtool check metrics accepts the exposition");
		free(cmd);
	}
	free(text);
	pc_kmsg_scan_free(f.s);
	pc_kmsg_rules_free(rules);
	pc_report_free(r);
}

static void test_listen(void)
{
	struct sockaddr_storage sa;
	char why[160];

	TAP_CHECK(pc_http_parse_listen("127.0.0.1:9863", &sa, why, sizeof(why)) &&
			  sa.ss_family == AF_INET,
		  "IPv4:port");
	TAP_CHECK(pc_http_parse_listen("[::1]:9863", &sa, why, sizeof(why)) &&
			  sa.ss_family == AF_INET6,
		  "[IPv6]:port");
	TAP_CHECK(pc_http_parse_listen("127.0.0.1:0", &sa, why, sizeof(why)) &&
			  ((struct sockaddr_in *)&sa)->sin_port == 0,
		  "port 0 (the kernel's pick)");
	TAP_CHECK(!pc_http_parse_listen("127.0.0.1:http", &sa, why, sizeof(why)) &&
			  !pc_http_parse_listen("127.0.0.1:65536", &sa, why, sizeof(why)) &&
			  !pc_http_parse_listen("127.0.0.1:-1", &sa, why, sizeof(why)) &&
			  !pc_http_parse_listen("127.0.0.1", &sa, why, sizeof(why)) &&
			  !pc_http_parse_listen(":9863", &sa, why, sizeof(why)) &&
			  !pc_http_parse_listen("localhost:9863", &sa, why, sizeof(why)) &&
			  !pc_http_parse_listen("::1:9863", &sa, why, sizeof(why)),
		  "bad ports and names refused (%s)", why);
}

#ifdef PTECHECK_HAVE_MICROHTTPD
/* Port 0 serves on the kernel's pick, which pc_http_port says: a client
   connects there. */
static void test_listen_any_port(void)
{
	struct sockaddr_storage sa;
	struct sockaddr_in to = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	struct pc_http *h = NULL;
	char why[160];
	int err, port = -1, fd, connected = -1;

	pc_http_parse_listen("127.0.0.1:0", &sa, why, sizeof(why));
	err = pc_http_start(&h, &sa);
	if (!err) {
		port = pc_http_port(h);
		fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		to.sin_port = htons((uint16_t)(port > 0 ? port : 0));
		if (fd >= 0 && port > 0)
			connected = connect(fd, (struct sockaddr *)&to, sizeof(to));
		if (fd >= 0)
			close(fd);
		pc_http_stop(h);
	}
	TAP_CHECK(!err && port > 0 && connected == 0,
		  "port 0: serves on the port it says (start %d, port %d, connect %d)", err, port,
		  connected);
}
#endif

/* Files in dir. */
static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		n += e->d_name[0] != '.' || (e->d_name[1] && e->d_name[1] != '.');
	if (d)
		closedir(d);
	return n;
}

static void test_textfile(void)
{
	char dir[] = "/tmp/ptecheck-textfile.XXXXXX", path[64], buf[64] = "";
	struct stat st;
	FILE *f;

	TAP_CHECK(mkdtemp(dir), "a directory");
	TAP_CHECK_EQ(pc_textfile_write(dir, "a 1\n", 4), 0, "written");
	TAP_CHECK_EQ(pc_textfile_write(dir, "b 2\n", 4), 0, "written over");
	snprintf(path, sizeof(path), "%s/" PC_TEXTFILE_NAME, dir);
	f = fopen(path, "r");
	TAP_CHECK(f && fgets(buf, sizeof(buf), f) && !strcmp(buf, "b 2\n"), "the last content");
	if (f)
		fclose(f);
	TAP_CHECK(!stat(path, &st) && (st.st_mode & 0777) == 0644, "readable by the collector");
	TAP_CHECK_EQ(entries(dir), 1, "no temporary file left");
	unlink(path);
	rmdir(dir);
	TAP_CHECK_EQ(pc_textfile_write(dir, "a 1\n", 4), -ENOENT, "a missing directory: ENOENT");
}

/* Lines of path, and the sum of the "suppressed" counts in them. */
static int log_lines(const char *path, long *suppressed)
{
	char line[8192];
	FILE *f = fopen(path, "r");
	int n = 0;

	*suppressed = 0;
	while (f && fgets(line, sizeof(line), f)) {
		const char *s = strstr(line, "{\"suppressed\":");

		if (s)
			*suppressed += strtol(s + 14, NULL, 10);
		else
			n++;
	}
	if (f)
		fclose(f);
	return n;
}

static void test_vlog(void)
{
	char dir[] = "/tmp/ptecheck-vlog.XXXXXX", path[64], moved[64], line[4096];
	struct pc_evidence e = {
		.pid = 42, .addr = 0x7f0000001000, .expected = 1, .seen = 2, .n_frames = 2};
	struct pc_vlog v;
	long suppressed;
	int n;
	FILE *f;

	mkdtemp(dir);
	snprintf(path, sizeof(path), "%s/v.log", dir);
	snprintf(moved, sizeof(moved), "%s/v.log.1", dir);
	snprintf(e.what, sizeof(e.what), "dirty bit lost");
	snprintf(e.frames[0].sym, sizeof(e.frames[0].sym), "move_ptes+0x1c");
	e.frames[1].addr = 0xffffffff81000000ULL;
	TAP_CHECK_EQ(pc_vlog_open(&v, path, 3), 0, "log opened");
	for (int i = 0; i < 50; i++)
		pc_vlog_violation(&v, "mremap/ad-bits", "kernel:fexit", &e);
	pc_vlog_close(&v);
	n = log_lines(path, &suppressed);
	TAP_CHECK(n >= 3 && n <= 6 && n + suppressed == 50,
		  "at most 3 a second, the rest counted: %d lines + %ld suppressed", n, suppressed);
	f = fopen(path, "r");
	TAP_CHECK(f && fgets(line, sizeof(line), f) &&
			  strstr(line, "\"check\":\"mremap/ad-bits\",\"tier\":\"kernel:fexit\","
				       "\"pid\":42,\"addr\":\"0x7f0000001000\"") &&
			  strstr(line, "\"stack\":[\"move_ptes+0x1c\",\"0xffffffff81000000\"]"),
		  "one JSON line with the evidence");
	if (f)
		fclose(f);
	/* logrotate: the file moved away, then SIGHUP's reopen. */
	pc_vlog_open(&v, path, 3);
	rename(path, moved);
	TAP_CHECK_EQ(pc_vlog_reopen(&v), 0, "reopened");
	sleep(1); /* a new second: lines go out again */
	pc_vlog_violation(&v, "mremap/moved", "kernel:fexit", &e);
	pc_vlog_close(&v);
	TAP_CHECK_EQ(log_lines(path, &suppressed), 1, "the new file takes the next line");
	unlink(path);
	unlink(moved);
	rmdir(dir);
}

int main(void)
{
	tap_plan(0);
	test_metrics();
	test_listen();
#ifdef PTECHECK_HAVE_MICROHTTPD
	test_listen_any_port();
#endif
	test_textfile();
	test_vlog();
	return tap_finish();
}
