// SPDX-License-Identifier: GPL-2.0
/*
 * Histograms per key (watch and hist --by comm|pid): the key's name and
 * text, finding a key's histogram in another report (the -i deltas) and
 * the order they are reported in.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "clean.h"
#include "report.h"

const char *pc_hist_by_name(__u32 by)
{
	return by == PC_BY_PID ? "pid" : by == PC_BY_COMM ? "comm" : NULL;
}

int pc_hist_by_parse(const char *s)
{
	if (!strcmp(s, "pid"))
		return PC_BY_PID;
	if (!strcmp(s, "comm"))
		return PC_BY_COMM;
	return -1;
}

char *pc_hist_key_text(const struct pc_hist_report *h, char *buf, size_t len)
{
	const char *by = pc_hist_by_name(h->by);
	char comm[64]; /* 16 bytes cleaned: no longer */

	pc_clean(comm, sizeof(comm), h->comm, sizeof(h->comm), PC_CLEAN_LINE);
	if (!by)
		snprintf(buf, len, "%s", "");
	else if (h->unattributed)
		snprintf(buf, len,
			 "%s = ? (not attributed: the kernel's table of %d keys was full)", by,
			 PC_HIST_KEYS_MAX);
	else if (h->by == PC_BY_PID)
		snprintf(buf, len, "pid = %u (%s)", h->pid, comm);
	else
		snprintf(buf, len, "comm = %s", comm);
	return buf;
}

bool pc_hist_same_key(const struct pc_hist_report *a, const struct pc_hist_report *b)
{
	return !strncmp(a->id, b->id, sizeof(a->id)) && a->by == b->by &&
	       a->unattributed == b->unattributed && a->pid == b->pid &&
	       !strncmp(a->comm, b->comm, sizeof(a->comm));
}

const struct pc_hist_report *pc_report_find_hist_key(const struct pc_report *r,
						     const struct pc_hist_report *h)
{
	for (int i = 0; r && i < r->n_hists; i++)
		if (pc_hist_same_key(&r->hists[i], h))
			return &r->hists[i];
	return NULL;
}

/* Larger totals first; the unattributed last; then by pid, then comm. */
static int by_events(const void *pa, const void *pb)
{
	const struct pc_hist_report *a = pa, *b = pb;
	__u64 ta = pc_hist_report_total(a), tb = pc_hist_report_total(b);

	if (a->unattributed != b->unattributed)
		return a->unattributed ? 1 : -1;
	if (ta != tb)
		return ta > tb ? -1 : 1;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return strncmp(a->comm, b->comm, sizeof(a->comm));
}

void pc_hist_order_keys(struct pc_hist_report *h, int n)
{
	for (int i = 0, j; i < n; i = j) {
		for (j = i + 1; h[i].by && j < n && h[j].by == h[i].by &&
				!strncmp(h[j].id, h[i].id, sizeof(h[i].id));
		     j++)
			;
		qsort(&h[i], (size_t)(j - i), sizeof(*h), by_events);
	}
}
