/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel-log check (docs/kernel-log.md): /dev/kmsg is read from where
 * it ended when the run started, and every memory-management splat the
 * rules name fails the check of the suite (or watch) it appeared in, with
 * its lines as evidence.
 */
#ifndef PTECHECK_KERNEL_LOG_H
#define PTECHECK_KERNEL_LOG_H

#include <stdbool.h>
#include <stdio.h>
#include <time.h>
#include "kmsg.h"
#include "report.h"

struct pc_klog {
	int fd;	       /* /dev/kmsg, or -1 */
	char why[160]; /* why fd is -1 */
	struct pc_kmsg_rules *rules;
	struct pc_kmsg_scan *scan;
	size_t next_live;	     /* first splat not yet shown live */
	size_t next_judged;	     /* first splat not yet in a result */
	struct pc_kmsg_stats judged; /* the stats when the last result was made */
	int read_error;		     /* errno of a failed read since the last verdict */
	unsigned long long seen_records;
	struct timespec quiet_since; /* no new record since */
};

/* --log-rules FILE and --log-user-lines, which run and watch share. */
struct pc_klog_opts {
	const char *rules; /* consulted before the built-in rules, or NULL */
	bool user_lines;   /* judge what user space writes to /dev/kmsg too */
};
#define PC_KLOG_LONGOPTS                                                                           \
	{"log-rules", required_argument, NULL, 'R'},                                               \
	{                                                                                          \
		"log-user-lines", no_argument, NULL, 'U'                                           \
	}
/* Takes getopt's c when it is one of PC_KLOG_LONGOPTS; false otherwise. */
bool pc_klog_option(int c, struct pc_klog_opts *o);

/* Names a pid for evidence ("scenario anon-64k of suite mremap"); NULL
   when it is not one of ours. */
typedef const char *(*pc_klog_who_fn)(int pid, void *ctx);

/*
 * Loads the default rules, then rules_file's (if not NULL) before them,
 * and opens /dev/kmsg at its end.  match_user: lines user space writes to
 * /dev/kmsg are judged too (--log-user-lines: tests that inject a splat).  -EINVAL/-errno with a
 * message in err for a bad rules file (a usage error); a log that cannot be opened is not an error:
 * the check skips with the reason.
 */
int pc_klog_start(struct pc_klog *k, const char *rules_file, bool match_user, char *err,
		  size_t errlen);
/* Skips what the log holds now (a run that waited for another starts
   here). */
void pc_klog_skip_to_end(struct pc_klog *k);
/* Reads what the log has now; shows splats that are complete on live
   (NULL: quietly). */
void pc_klog_poll(struct pc_klog *k, FILE *live, pc_klog_who_fn who, void *ctx);
/*
 * Adds the result `name` (e.g. "mremap/kernel-log") for what the log said
 * since the previous call: FAIL with each splat's lines, SKIP when records
 * were lost and nothing failed (they could have held a splat) or the log
 * cannot be read, else PASS.
 */
void pc_klog_judge(struct pc_klog *k, struct pc_report *r, const char *name, pc_klog_who_fn who,
		   void *ctx);
void pc_klog_stop(struct pc_klog *k);

#endif
