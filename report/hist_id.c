// SPDX-License-Identifier: GPL-2.0
/*
 * Histogram ids: the names gates, policies and exporters key on, so that a
 * histogram's title can change without switching a rule off.  A path's
 * histograms are "<path>/<what>" ("mremap/latency", "filemap/window"); a
 * batch histogram is "<context>/batch/<source>", from the labels
 * trace/batch.c reports it with ("fork/batch/folio_pte_batch",
 * "munmap/batch/derived"); docs/report.md lists them.
 */
#include <ctype.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>
#include "report.h"

static bool id_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
}

bool pc_hist_id_valid(const char *id)
{
	size_t n = id ? strnlen(id, PC_HIST_ID_MAX) : 0;

	if (n == 0 || n >= PC_HIST_ID_MAX || id[0] == '/' || id[n - 1] == '/')
		return false;
	for (size_t i = 0; i < n; i++)
		if (id[i] == '/' ? id[i + 1] == '/' : !id_char(id[i]))
			return false;
	return true;
}

void pc_hist_id_part(char *buf, size_t len, const char *label)
{
	size_t o = 0;
	bool gap = false;

	if (!len)
		return;
	for (const char *p = label ? label : ""; *p && o + 1 < len; p++) {
		char c = (char)tolower((unsigned char)*p);

		if (c == '*')
			continue;
		if (!id_char(c) || c == '-') {
			gap = o > 0;
			continue;
		}
		if (gap && o + 2 < len)
			buf[o++] = '-';
		gap = false;
		buf[o++] = c;
	}
	buf[o] = '\0';
}

void pc_hist_batch_id(char *buf, size_t len, const char *ctx, const char *src)
{
	char c[PC_HIST_ID_MAX / 2], s[PC_HIST_ID_MAX / 2];

	pc_hist_id_part(c, sizeof(c), ctx);
	pc_hist_id_part(s, sizeof(s), src);
	snprintf(buf, len, "%s/batch/%s", *c ? c : "unknown", *s ? s : "unknown");
}

bool pc_hist_id_match(const char *pattern, const char *id)
{
	return !fnmatch(pattern, id, 0);
}
