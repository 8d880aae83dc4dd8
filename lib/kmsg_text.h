/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The text helpers the parts of the kernel-log matcher share (kmsg.c the
 * scanner, kmsg_rules.c the rule list, kmsg_report.c the shape of a
 * report's lines): a growing string and two tests on characters.  For
 * those files alone; the matcher's interface is kmsg.h.
 */
#ifndef PTECHECK_KMSG_TEXT_H
#define PTECHECK_KMSG_TEXT_H

#include <stddef.h>
#include <string.h>

/* A growing NUL-terminated string; its functions return 0 or -ENOMEM. */
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

#endif
