/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Feeding /dev/kmsg records to a kernel-log scanner (lib/kmsg.h), for the
 * unit tests of the matcher: test_kmsg.c and test_kmsg_rules.c.
 */
#ifndef PTECHECK_KMSG_FEED_H
#define PTECHECK_KMSG_FEED_H

#include <stdio.h>
#include <string.h>
#include "kmsg.h"

/* One /dev/kmsg record: "PRIO,SEQ,TS,FLAGS[,caller=C];MSG\n" (msg already escaped). */
static inline int feed(struct pc_kmsg_scan *s, int prio, unsigned long long seq,
		       unsigned long long ts, const char *flags, const char *caller,
		       const char *msg)
{
	char rec[4096];
	int n = snprintf(rec, sizeof(rec), "%d,%llu,%llu,%s%s%s;%s\n", prio, seq, ts, flags,
			 caller ? ",caller=" : "", caller ? caller : "", msg);

	return pc_kmsg_scan_record(s, rec, n);
}

struct feeder {
	struct pc_kmsg_scan *s;
	unsigned long long seq, ts;
	int prio;
	const char *caller;
};

/* Each line of text as one record, 10 us apart. */
static inline void feed_text(struct feeder *f, const char *text)
{
	char line[1024];
	const char *p = text, *nl;

	while (*p) {
		size_t n;

		nl = strchr(p, '\n');
		n = nl ? (size_t)(nl - p) : strlen(p);
		snprintf(line, sizeof(line), "%.*s", (int)n, p);
		feed(f->s, f->prio, f->seq++, f->ts, "-", f->caller, line);
		f->ts += 10;
		p += n + (nl ? 1 : 0);
	}
}

#endif
