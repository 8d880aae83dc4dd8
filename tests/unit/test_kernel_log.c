// SPDX-License-Identifier: GPL-2.0
/*
 * loader/kernel_log.c, the verdicts of the kernel-log check, fed through a
 * socket pair that keeps record boundaries as /dev/kmsg does: a splat
 * fails the window it appeared in (and only that one) with its lines and
 * the process named; a quiet window passes; lost records or a failed read
 * make the window skip, never pass; a bad rule file is refused.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "kernel_log.h"
#include "tap.h"

static int writer = -1;

/* Points k at a fresh socket pair instead of /dev/kmsg. */
static void attach(struct pc_klog *k)
{
	int sv[2];

	if (k->fd >= 0)
		close(k->fd);
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv)) {
		k->fd = -1;
		return;
	}
	k->fd = sv[0];
	writer = sv[1];
}

static void record(unsigned long long seq, const char *msg)
{
	char buf[512];
	int n = snprintf(buf, sizeof(buf), "4,%llu,%llu,-;%s\n", seq, seq * 1000, msg);

	if (write(writer, buf, (size_t)n) != n)
		perror("write");
}

static const char *who(int pid, void *ctx)
{
	(void)ctx;
	return pid == 4242 ? "scenario anon-64k of suite mremap" : NULL;
}

static const struct pc_result *judge(struct pc_klog *k, struct pc_report *r, const char *name)
{
	pc_klog_judge(k, r, name, who, NULL);
	return pc_report_find_result(r, name, "oracle:kmsg");
}

int main(void)
{
	struct pc_report *r = pc_report_new("run", "all");
	const struct pc_result *res;
	struct pc_klog k;
	char err[256], path[] = "/tmp/test_kernel_log.XXXXXX";
	int fd;

	tap_plan(0);
	TAP_CHECK_EQ(pc_klog_start(&k, NULL, false, err, sizeof(err)), 0, "defaults load");
	attach(&k);
	TAP_CHECK(k.fd >= 0, "a socket pair stands in for /dev/kmsg");

	record(10, "usb 1-1: new high-speed USB device number 2");
	res = judge(&k, r, "quiet/kernel-log");
	TAP_CHECK(res && res->status == PC_STATUS_PASS && res->checked == 1,
		  "a window with harmless lines passes, with the lines counted");

	record(11, "BUG: Bad rss-counter state mm:00000000c0ffee00 type:MM_ANONPAGES val:-1 "
		   "Comm:mremap_folios Pid:4242");
	res = judge(&k, r, "mremap/kernel-log");
	TAP_CHECK(res && res->status == PC_STATUS_FAIL && res->violations == 1,
		  "a splat fails the window it appeared in");
	TAP_CHECK(res && res->n_evidence == 1 && res->evidence[0].pid == 4242 &&
			  strstr(res->evidence[0].what, "bad-rss-counter") &&
			  strstr(res->evidence[0].what, "scenario anon-64k of suite mremap"),
		  "the evidence names the rule and the scenario of the pid");
	TAP_CHECK(res && strstr(res->evidence[0].lines, "BUG: Bad rss-counter state mm:"),
		  "the evidence holds the splat's line");

	record(12, "EXT4-fs (vda): mounted filesystem");
	res = judge(&k, r, "filemap/kernel-log");
	TAP_CHECK(res && res->status == PC_STATUS_PASS,
		  "the next window is not blamed for the earlier splat");

	record(20, "EXT4-fs (vda): unmounting filesystem");
	res = judge(&k, r, "gap/kernel-log");
	TAP_CHECK(res && res->status == PC_STATUS_SKIP && strstr(res->summary, "lost records"),
		  "records lost (seq 13..19) and no splat: skip, never pass");

	record(21, "BUG: Bad page map in process x  pte:8000000112345067");
	record(30, "random: crng init done");
	res = judge(&k, r, "gap-and-splat/kernel-log");
	TAP_CHECK(res && res->status == PC_STATUS_FAIL && strstr(res->summary, "also lost"),
		  "a splat and a loss: fail, and the loss is said");

	/* A read that fails (EBADF: a write-only descriptor). */
	close(k.fd);
	k.fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	res = judge(&k, r, "readerr/kernel-log");
	TAP_CHECK(res && res->status == PC_STATUS_SKIP && strstr(res->summary, "reading /dev/kmsg"),
		  "a failed read: skip with the error, never pass");
	close(writer);
	pc_klog_stop(&k);

	/* No log at all: the reason, in every window's result. */
	TAP_CHECK_EQ(pc_klog_start(&k, NULL, false, err, sizeof(err)), 0, "defaults load again");
	if (k.fd >= 0)
		close(k.fd);
	k.fd = -1;
	snprintf(k.why, sizeof(k.why), "cannot read the kernel log: /dev/kmsg: Permission denied");
	res = judge(&k, r, "nolog/kernel-log");
	TAP_CHECK(res && res->status == PC_STATUS_SKIP && strstr(res->summary, "Permission denied"),
		  "an unreadable log: skip with the reason");
	pc_klog_stop(&k);

	/* A bad rule file is refused with file:line. */
	fd = mkstemp(path);
	if (fd >= 0) {
		TAP_CHECK(write(fd, "ignore ok ^a\nwarn typo ^b\n", 26) == 26, "rule file written");
		close(fd);
		TAP_CHECK(pc_klog_start(&k, path, false, err, sizeof(err)) != 0 &&
				  strstr(err, ":2:") != NULL,
			  "a bad rule file is refused, naming its line: %s", err);
		unlink(path);
	}
	pc_report_free(r);
	return tap_finish();
}
