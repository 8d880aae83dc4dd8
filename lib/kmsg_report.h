/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The shape of a kernel report's lines (kmsg_report.c), as the scanner
 * (kmsg.c) reads them to group a splat.  For the matcher's files alone.
 */
#ifndef PTECHECK_KMSG_REPORT_H
#define PTECHECK_KMSG_REPORT_H

#include <stddef.h>

enum kmsg_kind {
	K_OTHER,
	K_CUT,	   /* "------------[ cut here ]------------" */
	K_END,	   /* "---[ end trace ...", "---[ end Kernel panic ..." */
	K_TASKEND, /* " </TASK>": the end of an x86 stack dump */
	K_SEP,	   /* "=====...": KASAN, KFENCE, KMSAN, SLUB, lockdep frames */
	K_HEAD,	   /* a report's headline */
	K_FOLLOW,  /* printed after a headline by the same report: oops, panic */
};

enum kmsg_kind kmsg_line_kind(const char *s);
/* The first line of a dump_page(). */
int kmsg_is_dump_start(const char *s);
/* raw's n bytes with all but printable ASCII and tab as \xNN; dst holds
   4 * n + 1 bytes at most (kmsg_display_dup() sizes it exactly). */
void kmsg_display_copy(char *dst, const char *raw, size_t n);
char *kmsg_display_dup(const char *raw);
/* The task a report line names: *pid (-1: none) and *comm (NULL: none),
 *clen bytes of it. */
void kmsg_extract_task(const char *s, int *pid, const char **comm, size_t *clen);

#endif
