// SPDX-License-Identifier: GPL-2.0
/*
 * The shape of a kernel report's lines, for the kernel-log scanner
 * (kmsg.c): which line cuts, heads, follows or ends a report, how a line
 * is shown as evidence, and the task a line names, from the kernel's own
 * format strings.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "kmsg_report.h"
#include "kmsg_text.h"

/* x86 die() before 6.10 had no "Oops: " prefix: "invalid opcode: 0000 [#1] SMP". */
static int is_oops_header(const char *s)
{
	const char *p = s;
	int i;

	while ((p = strstr(p, " [#"))) {
		if (p - s >= 6 && p[-6] == ':' && p[-5] == ' ' && isdigit((unsigned char)p[3])) {
			for (i = 1; i <= 4 && isxdigit((unsigned char)p[-i]); i++)
				;
			if (i > 4)
				return 1;
		}
		p += 3;
	}
	return 0;
}

enum kmsg_kind kmsg_line_kind(const char *s)
{
	const char *t = s;
	size_t eq;

	if (kmsg_starts(s, "------------[ cut here ]"))
		return K_CUT;
	if (kmsg_starts(s, "---[ end trace") || kmsg_starts(s, "---[ end Kernel panic"))
		return K_END;
	while (kmsg_is_blank(*t))
		t++;
	if (!strcmp(t, "</TASK>"))
		return K_TASKEND;
	eq = strspn(s, "=");
	if (eq >= 32 && !s[eq])
		return K_SEP;
	if (kmsg_starts(s, "Oops: ") || kmsg_starts(s, "Internal error: ") ||
	    kmsg_starts(s, "Kernel panic - not syncing") || is_oops_header(s))
		return K_FOLLOW;
	if (kmsg_starts(s, "BUG: ") || kmsg_starts(s, "WARNING: ") ||
	    kmsg_starts(s, "kernel BUG at ") || kmsg_starts(s, "Unable to handle kernel ") ||
	    (kmsg_starts(s, "BUG ") && strstr(s, "): ")))
		return K_HEAD;
	return K_OTHER;
}

int kmsg_is_dump_start(const char *s)
{
	return kmsg_starts(s, "page: refcount:") || kmsg_starts(s, "page does not match folio") ||
	       (kmsg_starts(s, "page:") && strstr(s, " is uninitialized and poisoned"));
}

/* ---- display form and the task named in a line --------------------------- */

static size_t display_len(const char *raw, size_t n)
{
	size_t i, len = 0;

	for (i = 0; i < n; i++) {
		unsigned char c = raw[i];

		len += (c >= 0x20 && c < 0x7f) || c == '\t' ? 1 : 4;
	}
	return len;
}

/* dst holds display_len(raw, n) + 1 bytes. */
void kmsg_display_copy(char *dst, const char *raw, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char c = raw[i];

		if ((c >= 0x20 && c < 0x7f) || c == '\t') {
			*dst++ = c;
		} else {
			*dst++ = '\\';
			*dst++ = 'x';
			*dst++ = hex[c >> 4];
			*dst++ = hex[c & 15];
		}
	}
	*dst = '\0';
}

char *kmsg_display_dup(const char *raw)
{
	size_t n = strlen(raw);
	char *d = malloc(display_len(raw, n) + 1);

	if (d)
		kmsg_display_copy(d, raw, n);
	return d;
}

/* A pid: decimal digits up to end (or to the end of the string). */
static int parse_pid(const char *p, const char **end)
{
	long v = 0;

	if (!isdigit((unsigned char)*p))
		return -1;
	while (isdigit((unsigned char)*p)) {
		v = v * 10 + (*p++ - '0');
		if (v > INT_MAX)
			return -1;
	}
	if (end)
		*end = p;
	return (int)v;
}

static const char *last_strstr(const char *s, const char *needle)
{
	const char *p, *last = NULL;

	for (p = strstr(s, needle); p; p = strstr(p + 1, needle))
		last = p;
	return last;
}

/* "COMM/PID" to the end of the line (7.2's WARNING line, KASAN's "by task"). */
static void comm_slash_pid(const char *p, int *pid, const char **comm, size_t *clen)
{
	const char *slash = strrchr(p, '/'), *e;
	int v;

	if (!slash || slash == p)
		return;
	v = parse_pid(slash + 1, &e);
	if (v < 0 || *e)
		return;
	*pid = v;
	*comm = p;
	*clen = slash - p;
}

/*
 * The task a report line names, from the kernel's format strings:
 *   "CPU: %d UID: %u PID: %d Comm: %.20s %s..." (lib/dump_stack.c; before
 *	6.10 "CPU: %d PID: %d Comm: %.20s %s...")
 *   "WARNING: %s:%d at %pS, CPU#%d: %s/%d" (kernel/panic.c __warn, 7.x),
 *	"WARNING: CPU: %d PID: %d at %s:%d %pS" (before)
 *   "BUG: Bad page map in process %s  %s:%08llx" (mm/memory.c),
 *	"BUG: Bad page state in process %s  pfn:%05lx" (mm/page_alloc.c),
 *	"BUG: Bad page cache in process %s  pfn:%05lx" (mm/filemap.c)
 *   "BUG: Bad rss-counter state mm:%p type:%s val:%ld Comm:%s Pid:%d"
 *	(kernel/fork.c check_mm, 6.16+)
 *   "... by task %s/%d" (mm/kasan/report.c)
 *   "..., pid: %d, name: %s" (kernel/sched/core.c __might_resched)
 */
void kmsg_extract_task(const char *s, int *pid, const char **comm, size_t *clen)
{
	const char *p, *q, *e;

	*pid = -1;
	*comm = NULL;
	*clen = 0;
	if (kmsg_starts(s, "CPU: ") && (p = strstr(s, " PID: "))) {
		*pid = parse_pid(p + 6, NULL);
		q = strstr(p, " Comm: ");
		if (q) {
			const char *ends[] = {" Not tainted", " Tainted: ", " Kdump: loaded"};
			size_t i;

			q += 7;
			e = NULL;
			for (i = 0; i < sizeof(ends) / sizeof(ends[0]); i++) {
				const char *x = strstr(q, ends[i]);

				if (x && (!e || x < e))
					e = x;
			}
			if (!e)
				e = q + strcspn(q, " ");
			*comm = q;
			*clen = e - q;
		}
	} else if (kmsg_starts(s, "WARNING: CPU: ") && (p = strstr(s, " PID: "))) {
		*pid = parse_pid(p + 6, NULL);
	} else if (kmsg_starts(s, "WARNING: ") && (p = last_strstr(s, ", CPU#"))) {
		if (parse_pid(p + 6, &e) >= 0 && e[0] == ':' && e[1] == ' ')
			comm_slash_pid(e + 2, pid, comm, clen);
	} else if (kmsg_starts(s, "BUG: Bad page ") && (p = strstr(s, " in process "))) {
		p += 12;
		e = last_strstr(p, "  ");
		*comm = p;
		*clen = e ? (size_t)(e - p) : strlen(p);
	} else if (kmsg_starts(s, "BUG: Bad rss-counter state ") && (p = strstr(s, " Comm:")) &&
		   (q = last_strstr(p, " Pid:"))) {
		*comm = p + 6;
		*clen = q - (p + 6);
		*pid = parse_pid(q + 5, NULL);
	} else if ((p = last_strstr(s, " by task "))) {
		comm_slash_pid(p + 9, pid, comm, clen);
	} else if ((p = strstr(s, " pid: ")) && (q = strstr(p, ", name: "))) {
		*pid = parse_pid(p + 6, &e);
		if (*pid >= 0 && e == q) {
			*comm = q + 8;
			*clen = strlen(q + 8);
		}
	}
	if (*clen == 0 || *clen > 64) {
		*comm = NULL;
		*clen = 0;
	}
}
