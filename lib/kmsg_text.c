// SPDX-License-Identifier: GPL-2.0
/* The kernel-log matcher's growing strings (kmsg_text.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "kmsg_text.h"

int kmsg_sb_reserve(struct kmsg_sbuf *b, size_t more)
{
	size_t need = b->len + more + 1, cap = b->cap ? b->cap : 256;
	char *p;

	if (need <= b->cap)
		return 0;
	while (cap < need)
		cap *= 2;
	p = realloc(b->p, cap);
	if (!p)
		return -ENOMEM;
	b->p = p;
	b->cap = cap;
	return 0;
}

int kmsg_sb_add(struct kmsg_sbuf *b, const char *s, size_t n)
{
	if (kmsg_sb_reserve(b, n))
		return -ENOMEM;
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
	return 0;
}

int kmsg_sb_clear(struct kmsg_sbuf *b)
{
	b->len = 0;
	if (kmsg_sb_reserve(b, 0))
		return -ENOMEM;
	b->p[0] = '\0';
	return 0;
}
