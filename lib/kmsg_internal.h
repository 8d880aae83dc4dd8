/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the parts of the kernel-log matcher share: kmsg.c (the record
 * reader and the scanner), kmsg_rules.c (the rule list) and kmsg_report.c
 * (the shape of a kernel report's lines).  Their interface is kmsg.h; this
 * header is for those three files alone.
 */
#ifndef PTECHECK_KMSG_INTERNAL_H
#define PTECHECK_KMSG_INTERNAL_H

#include <stddef.h>
#include <string.h>

/* A growing NUL-terminated string (kmsg.c); its functions return 0 or -ENOMEM. */
struct kmsg_sbuf {
	char *p;
	size_t len, cap;
};

int kmsg_sb_reserve(struct kmsg_sbuf *b, size_t more);
int kmsg_sb_add(struct kmsg_sbuf *b, const char *s, size_t n);
int kmsg_sb_clear(struct kmsg_sbuf *b);

static inline int kmsg_starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

static inline int kmsg_is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* ---- the shape of a report's lines (kmsg_report.c) ---- */

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
