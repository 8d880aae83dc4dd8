// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "kernel_log.h"

bool pc_klog_option(int c, struct pc_klog_opts *o)
{
	if (c == 'R')
		o->rules = optarg;
	else if (c == 'U')
		o->user_lines = true;
	return c == 'R' || c == 'U';
}

int pc_klog_start(struct pc_klog *k, const char *rules_file, bool match_user, char *err,
		  size_t errlen)
{
	int ret;

	memset(k, 0, sizeof(*k));
	k->fd = -1;
	ret = pc_kmsg_rules_new(&k->rules);
	/* The user's rules first: they may ignore what a default fails. */
	if (!ret && rules_file)
		ret = pc_kmsg_rules_add_file(k->rules, rules_file, err, errlen);
	if (!ret)
		ret = pc_kmsg_rules_load_default(k->rules, err, errlen);
	if (!ret)
		ret = pc_kmsg_scan_new(&k->scan, k->rules);
	if (ret) {
		if (ret == -ENOMEM)
			snprintf(err, errlen, "kernel-log rules: %s", strerror(ENOMEM));
		pc_klog_stop(k);
		return ret;
	}
	pc_kmsg_scan_match_user(k->scan, match_user);
	k->fd = pc_kmsg_open_at_end();
	if (k->fd < 0) {
		snprintf(k->why, sizeof(k->why), "cannot read the kernel log: /dev/kmsg: %s",
			 strerror(-k->fd));
		k->fd = -1;
	}
	return 0;
}

void pc_klog_skip_to_end(struct pc_klog *k)
{
	if (k->fd >= 0 && lseek(k->fd, 0, SEEK_END) < 0) {
		snprintf(k->why, sizeof(k->why), "cannot seek in /dev/kmsg: %s", strerror(errno));
		close(k->fd);
		k->fd = -1;
	}
}

/* "bad-page-map: pid 42 (mremap_folios), scenario anon-64k of suite mremap" */
static void describe(const struct pc_kmsg_splat *sp, pc_klog_who_fn who, void *ctx, char *buf,
		     size_t len)
{
	const char *mine = who && sp->pid > 0 ? who(sp->pid, ctx) : NULL;

	if (sp->pid > 0)
		snprintf(buf, len, "%s: pid %d (%s)%s%s", sp->rule, sp->pid,
			 sp->comm[0] ? sp->comm : "?",
			 mine  ? ", "
			 : who ? ", not a process this run follows"
			       : "",
			 mine ? mine : "");
	else
		snprintf(buf, len, "%s: no task named%s%s", sp->rule, sp->comm[0] ? ", comm " : "",
			 sp->comm);
}

void pc_klog_poll(struct pc_klog *k, FILE *live, pc_klog_who_fn who, void *ctx)
{
	char what[512];
	unsigned long long records;
	struct timespec now;
	size_t n;
	int err;

	if (k->fd < 0 || !k->scan)
		return;
	err = pc_kmsg_drain(k->fd, k->scan);
	if (err < 0) {
		/* Lines may be missing: the window's verdict cannot be a pass. */
		if (!k->read_error)
			k->read_error = -err;
		return;
	}
	/* A splat is complete when the log has been quiet for a second: show
	   it then rather than when the next report starts. */
	clock_gettime(CLOCK_MONOTONIC, &now);
	records = pc_kmsg_scan_stats(k->scan)->records;
	if (records != k->seen_records) {
		k->seen_records = records;
		k->quiet_since = now;
	} else if (now.tv_sec - k->quiet_since.tv_sec >= 2) {
		pc_kmsg_scan_finish(k->scan);
	}
	n = pc_kmsg_scan_nsplats(k->scan);
	for (; live && k->next_live < n; k->next_live++) {
		const struct pc_kmsg_splat *sp = pc_kmsg_scan_splat(k->scan, k->next_live);

		if (!sp->closed)
			break;
		describe(sp, who, ctx, what, sizeof(what));
		fprintf(live, "ptecheck: kernel log: %s\n", what);
		for (size_t i = 0; i < sp->nlines; i++)
			fprintf(live, "ptecheck:   | %s\n", sp->lines[i]);
		fflush(live);
	}
}

/* The splat's lines, '\n'-separated, as many as fit. */
static void join_lines(const struct pc_kmsg_splat *sp, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = 0;
	for (size_t i = 0; i < sp->nlines && used + 1 < len; i++) {
		int n = snprintf(buf + used, len - used, "%s%s", i ? "\n" : "", sp->lines[i]);

		if (n < 0)
			break;
		used += (size_t)n;
	}
	if (sp->ncut && used + 1 < len)
		snprintf(buf + (used < len ? used : len - 1), len - used, "\n... %zu more lines",
			 sp->ncut);
}

void pc_klog_judge(struct pc_klog *k, struct pc_report *r, const char *name, pc_klog_who_fn who,
		   void *ctx)
{
	struct pc_result *res = pc_report_add_result(r, name, PC_TIER_KMSG, true);
	const struct pc_kmsg_stats *st;
	unsigned long long records, lines, ignored, lost, dropped;
	char what[512], lines_buf[PC_EVIDENCE_LINES_MAX];
	size_t n, found;

	if (!res)
		return;
	if (k->fd < 0 || !k->scan) {
		pc_result_set(res, PC_STATUS_SKIP, "%s",
			      k->why[0] ? k->why : "kernel log not read");
		return;
	}
	pc_klog_poll(k, NULL, who, ctx);
	pc_kmsg_scan_finish(k->scan);
	st = pc_kmsg_scan_stats(k->scan);
	records = st->records - k->judged.records;
	lines = st->lines - k->judged.lines;
	ignored = st->ignored - k->judged.ignored;
	lost = st->lost_events - k->judged.lost_events;
	dropped = st->splats_dropped - k->judged.splats_dropped;
	n = pc_kmsg_scan_nsplats(k->scan);
	found = n - k->next_judged + dropped;
	res->checked = lines;
	res->violations = found;
	for (; k->next_judged < n; k->next_judged++) {
		const struct pc_kmsg_splat *sp = pc_kmsg_scan_splat(k->scan, k->next_judged);

		describe(sp, who, ctx, what, sizeof(what));
		join_lines(sp, lines_buf, sizeof(lines_buf));
		pc_result_add_log_evidence(res, sp->pid, what, lines_buf);
	}
	if (k->next_live < k->next_judged)
		k->next_live = k->next_judged;
	if (found)
		pc_result_set(res, PC_STATUS_FAIL,
			      "%zu memory-management splat%s in the kernel log (%llu lines read)%s",
			      found, found == 1 ? "" : "s", lines,
			      lost ? "; records were also lost" : "");
	else if (k->read_error)
		pc_result_set(res, PC_STATUS_SKIP,
			      "reading /dev/kmsg failed (%s): lines may be missing, so no verdict",
			      strerror(k->read_error));
	else if (lost)
		pc_result_set(res, PC_STATUS_SKIP,
			      "the kernel log lost records while being read (%llu loss event%s, "
			      "%llu records known lost): a splat could have been among them",
			      lost, lost == 1 ? "" : "s",
			      st->lost_records - k->judged.lost_records);
	else
		pc_result_set(res, PC_STATUS_PASS,
			      "%llu kernel log records, %llu lines read: no memory-management "
			      "splat (%llu lines matched ignore rules; %zu rules)",
			      records, lines, ignored, pc_kmsg_rules_count(k->rules));
	k->judged = *st;
	k->read_error = 0;
}

void pc_klog_stop(struct pc_klog *k)
{
	if (k->fd >= 0)
		close(k->fd);
	k->fd = -1;
	pc_kmsg_scan_free(k->scan);
	k->scan = NULL;
	pc_kmsg_rules_free(k->rules);
	k->rules = NULL;
}
