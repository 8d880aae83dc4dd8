// SPDX-License-Identifier: GPL-2.0
/*
 * A kernel that died (or hung) during a suite, as that suite's failed
 * result: the console the host kept is cleaned of its timestamps and
 * terminal escapes and read by the kernel-log check's own matcher (lib/
 * kmsg.c, data/kernel-log.patterns), so a crash is named with the same
 * rules as a splat ptecheck reads live.  The line that killed the boot
 * and the function it names go in the summary, since that is what the
 * gate prints.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <regex.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check_text.h"
#include "kmsg.h"
#include "merge.h"

#define CONSOLE_MAX (64u << 20) /* a boot's console is a few hundred KiB */
#define TAIL_LINES  30		/* shown for a hang or a death no rule names */
#define MAX_SYM	    64
/* Lines that end a boot, as guest/lib/results.sh's crash_re: the first of
   them is the crash. */
#define CRASH_RE                                                                                   \
	"kernel BUG at|Kernel panic|Oops|BUG:|Unable to handle kernel|general protection fault"

struct console {
	char **lines;
	size_t n;
};

static void console_free(struct console *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->lines[i]);
	free(c->lines);
}

/* A console line as the kernel printed it: no CR, no terminal escapes, no
   "[   12.345678] " time or "[  T123] " caller in front. */
static void clean_line(char *s)
{
	char *w = s, *p = s;

	while (*p) {
		if (p[0] == '\x1b' && p[1] == '[') {
			p += 2;
			while (*p && !((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z')))
				p++;
			p += *p != '\0';
			continue;
		}
		if (*p != '\r')
			*w++ = *p;
		p++;
	}
	*w = '\0';
	for (int k = 0; k < 2 && s[0] == '['; k++) {
		char *end = strchr(s, ']');

		if (!end || strspn(s + 1, " 0123456789.CT") != (size_t)(end - s - 1))
			break;
		end += end[1] == ' ' ? 2 : 1;
		memmove(s, end, strlen(end) + 1);
	}
}

static int console_read(const char *path, struct console *c, char *err, size_t errlen)
{
	FILE *f = fopen(path, "re");
	char *line = NULL, **nl;
	size_t cap = 0, total = 0;
	ssize_t len;
	int rc = 0;

	if (!f) {
		rc = -errno;
		pc_set_err(err, errlen, "cannot open the console log %s: %s", path,
			   strerror(errno));
		return rc;
	}
	while ((len = getline(&line, &cap, f)) >= 0 && total < CONSOLE_MAX) {
		total += (size_t)len;
		if (len && line[len - 1] == '\n')
			line[len - 1] = '\0';
		clean_line(line);
		nl = realloc(c->lines, (c->n + 1) * sizeof(*nl));
		if (!nl) {
			rc = -ENOMEM;
			break;
		}
		c->lines = nl;
		/* getline's buffer becomes the line: a new one is grown next. */
		c->lines[c->n++] = line;
		line = NULL;
		cap = 0;
	}
	if (!rc && ferror(f))
		rc = -EIO;
	free(line);
	fclose(f);
	if (rc)
		pc_set_err(err, errlen, "cannot read the console log %s: %s", path, strerror(-rc));
	return rc;
}

/* The first line matching re (from line from on), or -1. */
static long find_line(const struct console *c, size_t from, const char *re)
{
	regex_t rx;
	long at = -1;

	if (regcomp(&rx, re, REG_EXTENDED | REG_NOSUB))
		return -1;
	for (size_t i = from; i < c->n && at < 0; i++)
		if (!regexec(&rx, c->lines[i], 0, NULL, 0))
			at = (long)i;
	regfree(&rx);
	return at;
}

/* The symbol of a "func+0x12/0x340" frame at s (after blanks), or "". */
static void frame_sym(const char *s, char *sym)
{
	size_t n;

	s += strspn(s, " \t");
	n = strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.");
	sym[0] = '\0';
	if (n && n < MAX_SYM && !strncmp(s + n, "+0x", 3))
		snprintf(sym, MAX_SYM, "%.*s", (int)n, s);
}

/* A frame of the kernel's reporting of the crash (printing, panicking,
   trapping), not of the code that crashed. */
static bool reporting_frame(const char *sym)
{
	static const char *const words[] = {
		"dump_stack", "panic", "show_", "warn",	       "report_bug", "die",   "trap",
		"handle_bug", "exc_",  "asm_",	"bug_handler", "oops",	     "print", "nmi_"};

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strstr(sym, words[i]))
			return true;
	return false;
}

/*
 * The function the crash at line at names (x86 "RIP: 0010:func+0x..",
 * arm64 "pc : func+0x..") and the first caller in its call trace that is
 * neither it nor the page-table checker's own (which names the mm
 * function whose PTE it caught).  A panic has no such line: then the
 * function is the first frame past the reporting of it.
 */
static void crash_place(const struct console *c, size_t at, char *fn, char *caller)
{
	size_t i, end = at + 200 < c->n ? at + 200 : c->n;
	bool trace = false;
	char sym[MAX_SYM];

	fn[0] = caller[0] = '\0';
	for (i = at; i < end && !fn[0]; i++) {
		const char *rip = strstr(c->lines[i], "RIP: ");

		if (rip && strlen(rip) > 10 && rip[9] == ':')
			frame_sym(rip + 10, fn);
		else if (!strncmp(c->lines[i], "pc : ", 5))
			frame_sym(c->lines[i] + 5, fn);
	}
	for (i = at; i < end && !caller[0]; i++) {
		if (strstr(c->lines[i], "Call Trace:") || strstr(c->lines[i], "Call trace:")) {
			trace = true;
			continue;
		}
		if (!trace || strstr(c->lines[i], " ? "))
			continue;
		frame_sym(c->lines[i], sym);
		/* ptecheck's own BPF frames (a trampoline, a program) are not
		   the caller the crash names. */
		if (!sym[0] || !strcmp(sym, fn) || reporting_frame(sym) ||
		    !strncmp(sym, "bpf_trampoline", 14) || !strncmp(sym, "bpf_prog_", 9))
			continue;
		if (!fn[0])
			snprintf(fn, MAX_SYM, "%s", sym);
		else if (!strstr(sym, "page_table_check"))
			snprintf(caller, MAX_SYM, "%s", sym);
	}
}

/* Lines from..to-1 of the console, '\n'-joined into buf. */
static void join_lines(const struct console *c, size_t from, size_t to, char *buf, size_t sz)
{
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = from; i < to && len + 1 < sz; i++) {
		int n = snprintf(buf + len, sz - len, "%s%s", len ? "\n" : "", c->lines[i]);

		if (n < 0)
			break;
		len += (size_t)n < sz - len ? (size_t)n : sz - len - 1;
	}
}

/* Each kernel report the rules name, as evidence; how many. */
static int add_splats(struct pc_result *res, const struct console *c, char *err, size_t errlen)
{
	struct pc_kmsg_rules *rules = NULL;
	struct pc_kmsg_scan *scan = NULL;
	char lines[PC_EVIDENCE_LINES_MAX];
	int rc, n = 0;

	rc = pc_kmsg_rules_new(&rules);
	if (!rc)
		rc = pc_kmsg_rules_load_default(rules, err, errlen);
	if (!rc)
		rc = pc_kmsg_scan_new(&scan, rules);
	for (size_t i = 0; !rc && i < c->n; i++)
		rc = pc_kmsg_scan_record(scan, c->lines[i], strlen(c->lines[i]));
	if (!rc) {
		pc_kmsg_scan_finish(scan);
		for (size_t i = 0; i < pc_kmsg_scan_nsplats(scan); i++) {
			const struct pc_kmsg_splat *sp = pc_kmsg_scan_splat(scan, i);
			char what[160];
			size_t len = 0, k;

			lines[0] = '\0';
			for (k = 0; k < sp->nlines && len + 1 < sizeof(lines); k++)
				len += (size_t)snprintf(lines + len, sizeof(lines) - len, "%s%s",
							k ? "\n" : "", sp->lines[k]);
			/* Named by its line the rule matched, not by "cut here". */
			for (k = 0; k + 1 < sp->nlines; k++)
				if (pc_kmsg_classify(rules, sp->lines[k], NULL) == PC_KMSG_FAIL)
					break;
			snprintf(what, sizeof(what), "%s: %s", sp->rule,
				 sp->nlines ? sp->lines[k] : "");
			pc_result_add_log_evidence(res, sp->pid, what, lines);
			n++;
		}
	}
	if (rc == -ENOMEM)
		pc_set_err(err, errlen, "out of memory");
	pc_kmsg_scan_free(scan);
	pc_kmsg_rules_free(rules);
	return rc ? rc : n;
}

/*
 * A crash witness line of the console (include/ptecheck/events.h): the
 * verdict ptecheck's BPF side judged on entry to the call the kernel died
 * in, dumped with the trace buffer (ftrace_dump_on_oops).  Its check's
 * failed result, in the tier that judged it.  0, 1 for a line that is not
 * one, -ENOMEM.
 */
static int add_witness(struct pc_report *r, const char *line, const char *where)
{
	const char *at = strstr(line, PC_WITNESS_TAG);
	unsigned int check, tier, pid;
	unsigned long long addr, expected, seen;
	struct pc_result *res;
	char what[200];
	int verdict, end = 0;

	if (!at ||
	    sscanf(at, PC_WITNESS_SCAN, &check, &verdict, &tier, &pid, &addr, &expected, &seen,
		   &end) != 7 ||
	    !end || check >= PC_CHK__COUNT || verdict <= 0 || tier >= PC_TIER__COUNT)
		return 1;
	res = pc_report_find_result(r, pc_check_name(check), pc_tier_name(tier));
	if (!res)
		res = pc_report_add_result(r, pc_check_name(check), pc_tier_name(tier), true);
	if (!res)
		return -ENOMEM;
	res->checked++;
	res->violations++;
	pc_result_set(res, PC_STATUS_FAIL,
		      "%llu batch(es) judged on entry, before the kernel died during %s (its "
		      "trace buffer, dumped on the console, holds them)",
		      (unsigned long long)res->violations, where);
	snprintf(what, sizeof(what), "%s (judged on entry; the kernel died before the exit)",
		 pc_evidence_text(check, (__u32)verdict));
	pc_result_add_evidence(res, (int)pid, addr, 0, expected, seen, what);
	return 0;
}

int pc_merge_death(struct pc_report *r, const struct pc_death *d, char *err, size_t errlen)
{
	struct console c = {0};
	char name[48], where[160], fn[MAX_SYM], caller[MAX_SYM], lines[PC_EVIDENCE_LINES_MAX];
	struct pc_result *res;
	long at;
	int rc, n;

	rc = console_read(d->console, &c, err, errlen);
	if (rc)
		return rc;
	snprintf(name, sizeof(name), "%s/kernel-log", d->suite);
	res = pc_report_add_result(r, name, PC_TIER_CONSOLE, true);
	if (!res) {
		console_free(&c);
		pc_set_err(err, errlen, "out of memory");
		return -ENOMEM;
	}
	snprintf(where, sizeof(where), "suite %s%s%s%s", d->suite, d->scenario ? " (scenario " : "",
		 d->scenario ? d->scenario : "", d->scenario ? " running)" : "");
	at = d->hung_s ? -1 : find_line(&c, 0, CRASH_RE);
	res->checked = 1;
	res->violations = 1;
	if (at >= 0) {
		crash_place(&c, (size_t)at, fn, caller);
		pc_result_set(
			res, PC_STATUS_FAIL,
			"the kernel died during %s: %s%s%s%s%s; the suite's results are missing",
			where, c.lines[at], fn[0] ? ", in " : "", fn,
			caller[0] ? ", called from " : "", caller);
	} else if (d->hung_s) {
		pc_result_set(
			res, PC_STATUS_FAIL,
			"the kernel did not finish %s within %u s (hung?); the suite's results "
			"are missing",
			where, d->hung_s);
	} else {
		pc_result_set(res, PC_STATUS_FAIL,
			      "the guest ended during %s with no crash line on its console and no "
			      "exit status; the suite's results are missing",
			      where);
	}
	n = add_splats(res, &c, err, errlen);
	if (n >= 0 && (at < 0 || !n)) {
		/* Nothing the rules name, or a hang: what the console said last. */
		join_lines(&c, c.n > TAIL_LINES ? c.n - TAIL_LINES : 0, c.n, lines, sizeof(lines));
		pc_result_add_log_evidence(res, -1, "the console's last lines", lines);
	}
	/* Last: a result added may move res. */
	for (size_t i = 0; n >= 0 && i < c.n; i++)
		if (add_witness(r, c.lines[i], where) < 0) {
			pc_set_err(err, errlen, "out of memory");
			n = -ENOMEM;
		}
	console_free(&c);
	return n < 0 ? n : 0;
}
