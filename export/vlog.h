/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ptecheck export --log: each violation as one JSON line with its evidence,
 * at most max_per_s a second; the lines held back are counted and said in
 * one {"suppressed": K} line when the next second lets lines through (or at
 * the end).  SIGHUP reopens the file (logrotate).
 */
#ifndef PTECHECK_EXPORT_VLOG_H
#define PTECHECK_EXPORT_VLOG_H

#include <stdio.h>
#include <time.h>
#include "kmsg.h"
#include "report.h"

#define PC_VLOG_PER_S 20 /* default lines a second */

struct pc_vlog {
	const char *path; /* NULL: stderr */
	FILE *f;
	unsigned int max_per_s;
	time_t second; /* the second the count is of */
	unsigned int in_second;
	unsigned long long suppressed;
};

/* 0, or -errno when path cannot be opened for appending. */
int pc_vlog_open(struct pc_vlog *v, const char *path, unsigned int max_per_s);
/* Reopens path (a new file once logrotate moved the old one): 0 or -errno,
   the old file kept on failure. */
int pc_vlog_reopen(struct pc_vlog *v);
/* An in-kernel violation of check (tier) with its evidence. */
void pc_vlog_violation(struct pc_vlog *v, const char *check, const char *tier,
		       const struct pc_evidence *e);
/* A kernel-log splat: the kernel-log check's violation. */
void pc_vlog_splat(struct pc_vlog *v, const struct pc_kmsg_splat *sp);
/* Says what is still suppressed, then closes the file. */
void pc_vlog_close(struct pc_vlog *v);

#endif
