/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel log matcher for the `kernel-log` check (docs/kernel-log.md).
 *
 * Records read from /dev/kmsg are parsed ("PRIO,SEQ,TS_USEC,FLAGS[,...];
 * MESSAGE\n" plus " KEY=VALUE" dictionary lines), unescaped (\xNN) and split
 * into logical lines; each kernel line is classified by an ordered rule list
 * (`fail NAME REGEX` / `ignore NAME REGEX`, first match wins), and the lines
 * of one kernel report around a fail line are grouped into a splat with
 * the task it names.  Lost records (sequence gaps, EPIPE) are counted.
 *
 * No global state: rules and scanners are objects; a scanner borrows its
 * rules, which must outlive it.  Nothing is truncated without being
 * counted: evidence is capped at PC_KMSG_SPLAT_MAX_LINES lines a splat
 * (the rest counted in ncut) and PC_KMSG_MAX_SPLATS stored splats (the
 * rest counted in stats.splats_dropped).
 */
#ifndef PTECHECK_KMSG_H
#define PTECHECK_KMSG_H

#include <stddef.h>
#include "kmsg_rules.h"

#define PC_KMSG_COMM_MAX	257  /* a comm of up to 64 bytes, each possibly \xNN */
#define PC_KMSG_CALLER_MAX	16   /* "T1234" (task) or "C1" (CPU) */
#define PC_KMSG_SPLAT_MAX_LINES 64   /* evidence lines kept per splat */
#define PC_KMSG_SPLAT_SPAN_MAX	256  /* a splat closes after this many lines */
#define PC_KMSG_MAX_SPLATS	1024 /* splats stored per scanner */
/* A line this long after a splat's last one (same caller) does not join it. */
#define PC_KMSG_SPLAT_GAP_USEC 2000000ULL

/* ---- scanning ------------------------------------------------------------ */

/*
 * The lines of one kernel report around a fail line.  Evidence lines are
 * shown as printed, except that bytes other than printable ASCII and tab
 * are written \xNN (as /dev/kmsg escapes them), so they are plain ASCII.
 */
struct pc_kmsg_splat {
	char rule[PC_KMSG_NAME_MAX];	 /* fail rule of the line that started it */
	unsigned long long seq;		 /* sequence number of that line's record */
	unsigned long long ts_usec;	 /* its timestamp, microseconds since boot */
	int level;			 /* its log level 0..7; -1: malformed record */
	int pid;			 /* task named in the splat, -1 if none */
	char comm[PC_KMSG_COMM_MAX];	 /* its comm, "" if none */
	char caller[PC_KMSG_CALLER_MAX]; /* printk caller id, "" if not logged */
	char **lines;			 /* evidence, in log order */
	size_t nlines;
	size_t ncut;  /* lines of the splat past the evidence cap */
	size_t nfail; /* lines in it matching a fail rule (>= 1) */
	int closed;   /* 0 while later lines may still join */
};

struct pc_kmsg_stats {
	unsigned long long records;	   /* records given to the scanner */
	unsigned long long user_records;   /* written by user space (facility != 0), not matched */
	unsigned long long malformed;	   /* not in the record format; matched as plain lines */
	unsigned long long lines;	   /* logical kernel lines classified */
	unsigned long long dict_lines;	   /* dictionary lines skipped */
	unsigned long long fail_lines;	   /* lines matching a fail rule */
	unsigned long long ignored;	   /* lines matching an ignore rule */
	unsigned long long splats;	   /* splats started, stored or not */
	unsigned long long splats_dropped; /* not stored (past PC_KMSG_MAX_SPLATS, no memory) */
	int have_seq;			   /* first_seq/last_seq are valid */
	unsigned long long first_seq, last_seq;
	unsigned long long seq_resets; /* a record's seq not above the last: new baseline */
	/* Lost records: an EPIPE and the sequence gap it explains count once. */
	unsigned long long lost_events;	 /* sequence gaps and EPIPEs */
	unsigned long long lost_records; /* records known lost (gaps, sizes given) */
	unsigned long long lost_unknown; /* loss events of unknown size */
	unsigned long long epipe;	 /* pc_kmsg_scan_lost() calls */
	int have_lost_range;		 /* lost_first..lost_last: first known gap */
	unsigned long long lost_first, lost_last;
};

struct pc_kmsg_scan;

/* A scanner matching with r (borrowed).  0 or -ENOMEM. */
int pc_kmsg_scan_new(struct pc_kmsg_scan **out, const struct pc_kmsg_rules *r);
/* Judges records user space wrote to /dev/kmsg as well (off by default: a
   program's text is not the kernel's complaint).  For tests that inject a
   splat, and harnesses that relay a kernel's log. */
void pc_kmsg_scan_match_user(struct pc_kmsg_scan *s, int on);
/*
 * One record as read() returned it (len bytes, no NUL needed).  A record
 * not in the format is counted as malformed and its text matched as plain
 * lines.  0, or -ENOMEM (lines of the record may be missing).
 */
int pc_kmsg_scan_record(struct pc_kmsg_scan *s, const char *rec, size_t len);
/*
 * read() failed with EPIPE: records were overwritten before being read.
 * n is their number if known, else 0; the sequence gap seen at the next
 * record gives the exact range.  EPIPEs with no record between them are
 * one loss.
 */
void pc_kmsg_scan_lost(struct pc_kmsg_scan *s, unsigned long long n);
/*
 * End of input: ends a pending continuation line, closes the open splat
 * and settles an EPIPE with no record after it.  Scanning may go on.
 */
void pc_kmsg_scan_finish(struct pc_kmsg_scan *s);
/*
 * Splats stored so far, in order of their start; pointers stay valid until
 * pc_kmsg_scan_free().  A live reader keeps an index and reports splat i
 * once splat(i)->closed (all are, after pc_kmsg_scan_finish()).
 */
size_t pc_kmsg_scan_nsplats(const struct pc_kmsg_scan *s);
const struct pc_kmsg_splat *pc_kmsg_scan_splat(const struct pc_kmsg_scan *s, size_t i);
const struct pc_kmsg_stats *pc_kmsg_scan_stats(const struct pc_kmsg_scan *s);
void pc_kmsg_scan_free(struct pc_kmsg_scan *s);

/* ---- /dev/kmsg ----------------------------------------------------------- */

/*
 * /dev/kmsg opened O_RDONLY|O_NONBLOCK|O_CLOEXEC and positioned after the
 * last record, so that older lines are never blamed.  fd or -errno.
 */
int pc_kmsg_open_at_end(void);
/*
 * Reads every available record of fd (non-blocking) into s until EAGAIN,
 * retrying EINTR and passing EPIPE to pc_kmsg_scan_lost().  0 or -errno.
 */
int pc_kmsg_drain(int fd, struct pc_kmsg_scan *s);

#endif
