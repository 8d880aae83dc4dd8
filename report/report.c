// SPDX-License-Identifier: GPL-2.0
/*
 * The result model and its three writers: text for people, TAP for
 * kselftest-style harnesses, JSON (docs/report-schema.json) for tools.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <jansson.h>
#include <ptecheck/events.h>
#include "out.h"
#include "privilege.h"
#include "report.h"

#ifndef PTECHECK_VERSION
#define PTECHECK_VERSION "0.0.0"
#endif

/* Notes are free text; bound them so one runaway message cannot flood. */
#define PC_NOTE_MAX 512
/* Large enough for any field after escaping (at most two bytes per byte). */
#define PC_CLEAN_MAX (2 * PC_NOTE_MAX + 1)

#define N_STATS_MAX ((int)(sizeof(((struct pc_report *)0)->stats) / sizeof(__u64)))
_Static_assert(PC_STAT__COUNT <= N_STATS_MAX, "pc_report.stats too small for enum pc_stat_id");

/* The same names in text, TAP and JSON: enum pc_stat_id, lowercased. */
static const char *const stat_names[PC_STAT__COUNT] = {
	[PC_STAT_CALLS] = "calls",
	[PC_STAT_CALLS_CHECKED] = "calls_checked",
	[PC_STAT_CALLS_FAILED] = "calls_failed",
	[PC_STAT_CALLS_DISTURBED] = "calls_disturbed",
	[PC_STAT_CALLS_SHARED_MM] = "calls_shared_mm",
	[PC_STAT_PAGES_UNCOVERED] = "pages_uncovered",
	[PC_STAT_WALK_ERRORS] = "walk_errors",
	[PC_STAT_EVENTS_DROPPED] = "events_dropped",
	[PC_STAT_STATE_FULL] = "state_full",
	[PC_STAT_CP_GET] = "contpte_ptep_get_calls",
	[PC_STAT_CP_FOLD] = "contpte_folds",
	[PC_STAT_CP_UNFOLD] = "contpte_unfolds",
	[PC_STAT_CP_YOUNG] = "contpte_clear_young_calls",
};

static const char *stat_name(int i, char *buf, size_t sz)
{
	if (i >= 0 && i < PC_STAT__COUNT && stat_names[i])
		return stat_names[i];
	/* A stat added to the enum but not named here still gets printed. */
	snprintf(buf, sz, "stat_%d", i);
	return buf;
}

static int n_stats(const struct pc_report *r)
{
	if (r->n_stats <= 0)
		return 0;
	return r->n_stats < N_STATS_MAX ? r->n_stats : N_STATS_MAX;
}

/* Fixed-size fields may in principle lack a NUL: never read past them. */
#define FLD(s) (int)strnlen((s), sizeof(s)), (s)

static void copy_str(char *dst, size_t sz, const char *src)
{
	snprintf(dst, sz, "%s", src ? src : "");
}

/* Grows a dynamic array by doubling; returns the (maybe moved) array or NULL. */
static void *grow(void *arr, int *cap, int n, size_t elem)
{
	void *p;
	int ncap;

	if (n < *cap)
		return arr;
	if (*cap > INT_MAX / 2)
		return NULL;
	ncap = *cap ? *cap * 2 : 8;
	p = realloc(arr, (size_t)ncap * elem);
	if (!p)
		return NULL;
	*cap = ncap;
	return p;
}

struct pc_report *pc_report_new(const char *command, const char *suite)
{
	struct pc_report *r = calloc(1, sizeof(*r));
	struct utsname u;
	struct tm tm;
	time_t now;

	if (!r)
		return NULL;
	copy_str(r->command, sizeof(r->command), command);
	copy_str(r->suite, sizeof(r->suite), suite);
	if (uname(&u) == 0) {
		copy_str(r->kernel_release, sizeof(r->kernel_release), u.release);
		copy_str(r->machine, sizeof(r->machine), u.machine);
	} else {
		copy_str(r->kernel_release, sizeof(r->kernel_release), "unknown");
		copy_str(r->machine, sizeof(r->machine), "unknown");
	}
	now = time(NULL);
	if (now == (time_t)-1 || !gmtime_r(&now, &tm) ||
	    !strftime(r->started, sizeof(r->started), "%Y-%m-%dT%H:%M:%SZ", &tm))
		copy_str(r->started, sizeof(r->started), "1970-01-01T00:00:00Z");
	return r;
}

void pc_report_free(struct pc_report *r)
{
	int i;

	if (!r)
		return;
	for (i = 0; i < r->n_notes; i++)
		free(r->notes[i]);
	free(r->notes);
	free(r->results);
	free(r->hists);
	free(r);
}

/*
 * Results live in one array that realloc may move: a pointer returned here
 * is valid until the next pc_report_add_result() on the same report.
 */
struct pc_result *pc_report_add_result(struct pc_report *r, const char *name, const char *tier,
				       bool in_kernel)
{
	struct pc_result *arr, *res;

	arr = grow(r->results, &r->cap_results, r->n_results, sizeof(*arr));
	if (!arr) {
		errno = ENOMEM;
		return NULL;
	}
	r->results = arr;
	res = &arr[r->n_results++];
	memset(res, 0, sizeof(*res));
	copy_str(res->name, sizeof(res->name), name);
	copy_str(res->tier, sizeof(res->tier), tier);
	res->in_kernel = in_kernel;
	res->status = PC_STATUS_SKIP;
	return res;
}

/* A NULL tier matches the first result of that name, whatever its tier. */
struct pc_result *pc_report_find_result(struct pc_report *r, const char *name, const char *tier)
{
	int i;

	if (!r || !name)
		return NULL;
	for (i = 0; i < r->n_results; i++) {
		struct pc_result *res = &r->results[i];

		if (strncmp(res->name, name, sizeof(res->name)) != 0)
			continue;
		if (tier && strncmp(res->tier, tier, sizeof(res->tier)) != 0)
			continue;
		return res;
	}
	return NULL;
}

void pc_result_set(struct pc_result *res, enum pc_status st, const char *fmt, ...)
{
	va_list ap;

	res->status = st;
	if (!fmt) {
		res->summary[0] = '\0';
		return;
	}
	va_start(ap, fmt);
	vsnprintf(res->summary, sizeof(res->summary), fmt, ap);
	va_end(ap);
}

void pc_result_add_evidence(struct pc_result *res, int pid, __u64 addr, __u64 new_addr,
			    __u64 expected, __u64 seen, const char *what)
{
	struct pc_evidence *ev;

	/* The caller owns the counts: past the cap, evidence is just not kept. */
	if (res->n_evidence < 0 || res->n_evidence >= PC_MAX_EVIDENCE)
		return;
	ev = &res->evidence[res->n_evidence++];
	ev->pid = pid;
	ev->addr = addr;
	ev->new_addr = new_addr;
	ev->expected = expected;
	ev->seen = seen;
	copy_str(ev->what, sizeof(ev->what), what);
}

void pc_result_add_log_evidence(struct pc_result *res, int pid, const char *what, const char *lines)
{
	int n = res->n_evidence;

	pc_result_add_evidence(res, pid, 0, 0, 0, 0, what);
	if (res->n_evidence > n)
		copy_str(res->evidence[n].lines, sizeof(res->evidence[n].lines), lines);
}

struct pc_hist_report *pc_report_add_hist(struct pc_report *r, const char *name, const char *unit,
					  const char *source, bool in_kernel, __u32 kind)
{
	struct pc_hist_report *arr, *h;

	/* Bucket bounds depend on the kind: refuse one we cannot print. */
	if (kind != PC_HIST_LOG2 && kind != PC_HIST_LINLOG) {
		errno = EINVAL;
		return NULL;
	}
	arr = grow(r->hists, &r->cap_hists, r->n_hists, sizeof(*arr));
	if (!arr) {
		errno = ENOMEM;
		return NULL;
	}
	r->hists = arr;
	h = &arr[r->n_hists++];
	memset(h, 0, sizeof(*h));
	copy_str(h->name, sizeof(h->name), name);
	copy_str(h->unit, sizeof(h->unit), unit);
	copy_str(h->source, sizeof(h->source), source);
	h->in_kernel = in_kernel;
	h->kind = kind;
	return h;
}

void pc_report_note(struct pc_report *r, const char *fmt, ...)
{
	char buf[PC_NOTE_MAX];
	char **arr, *s;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	s = strdup(buf);
	if (!s)
		return;
	arr = grow(r->notes, &r->cap_notes, r->n_notes, sizeof(*arr));
	if (!arr) {
		free(s);
		return;
	}
	r->notes = arr;
	arr[r->n_notes++] = s;
}

/* An out-of-range status is reported as a failure, never as a pass. */
static enum pc_status norm_status(enum pc_status st)
{
	return st == PC_STATUS_PASS || st == PC_STATUS_SKIP ? st : PC_STATUS_FAIL;
}

static void count_status(const struct pc_report *r, int *pass, int *fail, int *skip)
{
	int i;

	*pass = *fail = *skip = 0;
	for (i = 0; i < r->n_results; i++) {
		switch (norm_status(r->results[i].status)) {
		case PC_STATUS_PASS:
			(*pass)++;
			break;
		case PC_STATUS_SKIP:
			(*skip)++;
			break;
		default:
			(*fail)++;
			break;
		}
	}
}

int pc_report_exit_code(const struct pc_report *r)
{
	int pass, fail, skip;

	count_status(r, &pass, &fail, &skip);
	if (fail)
		return PC_EXIT_FAIL;
	if (!pass)
		return PC_EXIT_SKIP;
	return PC_EXIT_PASS;
}

const char *pc_status_name(enum pc_status st)
{
	switch (st) {
	case PC_STATUS_PASS:
		return "pass";
	case PC_STATUS_FAIL:
		return "fail";
	case PC_STATUS_SKIP:
		return "skip";
	}
	return "unknown";
}

int pc_format_parse(const char *s)
{
	if (!s)
		return -1;
	if (!strcmp(s, "text"))
		return PC_FORMAT_TEXT;
	if (!strcmp(s, "json"))
		return PC_FORMAT_JSON;
	if (!strcmp(s, "tap"))
		return PC_FORMAT_TAP;
	return -1;
}

/* ---- output helpers ---------------------------------------------------- */

/* Remembers the first write error; later output is skipped. */

/*
 * jansson refuses invalid UTF-8 and TAP parsers may choke on it: replace
 * bad bytes rather than lose the field.
 */
/* Length of the sequence a UTF-8 lead byte starts (0: none); *cp gets its bits. */
static size_t utf8_lead(unsigned char c, __u32 *cp)
{
	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if ((c & 0xe0) == 0xc0) {
		*cp = c & 0x1f;
		return 2;
	}
	if ((c & 0xf0) == 0xe0) {
		*cp = c & 0x0f;
		return 3;
	}
	if ((c & 0xf8) == 0xf0) {
		*cp = c & 0x07;
		return 4;
	}
	*cp = 0;
	return 0;
}

static void utf8_clean(char *dst, size_t sz, const char *src, size_t max)
{
	size_t n = strnlen(src, max), i = 0, j = 0, len, k;

	while (i < n && j + 1 < sz) {
		__u32 cp;
		bool ok;

		len = utf8_lead((unsigned char)src[i], &cp);
		ok = len && i + len <= n && j + len < sz;
		for (k = 1; ok && k < len; k++) {
			ok = ((unsigned char)src[i + k] & 0xc0) == 0x80;
			cp = (cp << 6) | ((unsigned char)src[i + k] & 0x3f);
		}
		/* No overlong forms, surrogates or values past U+10FFFF. */
		if (ok && ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) ||
			   (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
			   (cp >= 0xd800 && cp <= 0xdfff)))
			ok = false;
		if (!ok) {
			dst[j++] = '?';
			i++;
			continue;
		}
		memcpy(dst + j, src + i, len);
		i += len;
		j += len;
	}
	dst[j] = '\0';
}

enum clean_mode {
	CLEAN_LINE,   /* control characters become spaces: one record, one line */
	CLEAN_TAP,    /* also escape '#', which would start a TAP directive */
	CLEAN_DQUOTE, /* also escape '"' and '\' inside a double-quoted string */
};

/*
 * Free text (summaries, notes, evidence) must not break the line-oriented
 * formats: a newline in a summary could fake the summary line CI parses.
 */
static const char *clean(char *dst, size_t sz, const char *src, size_t max, enum clean_mode mode)
{
	char tmp[PC_CLEAN_MAX];
	size_t n, i, j = 0;

	utf8_clean(tmp, sizeof(tmp), src, max);
	n = strlen(tmp);
	for (i = 0; i < n && j + 2 < sz; i++) {
		unsigned char c = tmp[i];

		if (c < 0x20 || c == 0x7f) {
			dst[j++] = ' ';
			continue;
		}
		if ((mode == CLEAN_TAP && c == '#') ||
		    (mode == CLEAN_DQUOTE && (c == '"' || c == '\\')))
			dst[j++] = '\\';
		dst[j++] = c;
	}
	dst[j] = '\0';
	return dst;
}

static __u64 sat_add(__u64 a, __u64 b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

static void hist_bounds(const struct pc_hist_report *h, int slot, __u64 *lo, __u64 *hi)
{
	__u32 kind = h->kind == PC_HIST_LINLOG ? PC_HIST_LINLOG : PC_HIST_LOG2;

	*lo = pc_hist_slot_low(kind, slot);
	*hi = pc_hist_slot_high(kind, slot);
}

/* First and last non-empty slot; false if the histogram is empty. */
static bool hist_range(const struct pc_hist_report *h, int *first, int *last)
{
	int i;

	*first = -1;
	*last = -1;
	for (i = 0; i < PC_HIST_SLOTS; i++) {
		if (!h->slots[i])
			continue;
		if (*first < 0)
			*first = i;
		*last = i;
	}
	return *first >= 0;
}

static int digits(__u64 v)
{
	int n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

/* The libbpf-tools / bpftrace layout, each line behind a prefix ("# " for TAP). */
static void write_hist(struct pc_out *o, const struct pc_hist_report *h, const char *pfx)
{
	char unit[PC_CLEAN_MAX], label[64];
	int first, last, i, width, stars, nstars, j;
	__u64 lo, hi, vmax = 0;

	pc_outf(o, "%s%s", pfx, clean(unit, sizeof(unit), h->name, sizeof(h->name), CLEAN_LINE));
	if (h->unit[0])
		pc_outf(o, " (%s)",
			clean(unit, sizeof(unit), h->unit, sizeof(h->unit), CLEAN_LINE));
	pc_outf(o, " \u2014 %s", h->in_kernel ? "kernel" : "derived");
	if (h->source[0])
		pc_outf(o, ": %s",
			clean(unit, sizeof(unit), h->source, sizeof(h->source), CLEAN_LINE));
	pc_outf(o, "\n");

	if (!hist_range(h, &first, &last)) {
		pc_outf(o, "%s     (no events)\n", pfx);
		return;
	}
	for (i = first; i <= last; i++)
		if (h->slots[i] > vmax)
			vmax = h->slots[i];
	hist_bounds(h, last, &lo, &hi);
	/* Narrow columns while the numbers fit, as libbpf-tools does. */
	width = digits(hi) <= 10 ? 10 : 20;
	stars = width == 10 ? 40 : 20;

	clean(unit, sizeof(unit), h->unit[0] ? h->unit : "value", sizeof(h->unit), CLEAN_LINE);
	pc_outf(o, "%s%*s%-*s : count    distribution\n", pfx, width - 5, "", width + 9, unit);
	for (i = first; i <= last; i++) {
		hist_bounds(h, i, &lo, &hi);
		if (lo == hi)
			snprintf(label, sizeof(label), "%*llu%*s", width, (unsigned long long)lo,
				 width + 4, "");
		else
			snprintf(label, sizeof(label), "%*llu -> %-*llu", width,
				 (unsigned long long)lo, width, (unsigned long long)hi);
		/* Floating point: count * stars may not fit in 64 bits. */
		nstars = (int)((long double)h->slots[i] * stars / vmax);
		pc_outf(o, "%s%s : %-8llu |", pfx, label, (unsigned long long)h->slots[i]);
		for (j = 0; j < stars; j++)
			pc_outf(o, "%c", j < nstars ? '*' : ' ');
		pc_outf(o, "|\n");
	}
}

static void write_stats(struct pc_out *o, const struct pc_report *r, const char *pfx)
{
	char buf[32];
	int i, n = n_stats(r);

	if (!n)
		return;
	pc_outf(o, "%sstats:\n", pfx);
	for (i = 0; i < n; i++)
		pc_outf(o, "%s  %-16s %llu\n", pfx, stat_name(i, buf, sizeof(buf)),
			(unsigned long long)r->stats[i]);
	/* Lost evidence must be loud: a clean result may be an incomplete one. */
	if (n > PC_STAT_EVENTS_DROPPED && r->stats[PC_STAT_EVENTS_DROPPED])
		pc_outf(o, "%swarning: %llu violation records dropped (ring buffer full)\n", pfx,
			(unsigned long long)r->stats[PC_STAT_EVENTS_DROPPED]);
	if (n > PC_STAT_STATE_FULL && r->stats[PC_STAT_STATE_FULL])
		pc_outf(o, "%swarning: %llu calls not checked (no per-call state slot free)\n", pfx,
			(unsigned long long)r->stats[PC_STAT_STATE_FULL]);
}

static void write_notes(struct pc_out *o, const struct pc_report *r, const char *pfx)
{
	char buf[PC_CLEAN_MAX];
	int i;

	for (i = 0; i < r->n_notes; i++)
		pc_outf(o, "%snote: %s\n", pfx,
			clean(buf, sizeof(buf), r->notes[i], PC_NOTE_MAX, CLEAN_LINE));
}

/* Each of ev->lines as "PFX| line", cleaned like any free text. */
static void write_evidence_lines(struct pc_out *o, const struct pc_evidence *ev, const char *pfx)
{
	char buf[PC_CLEAN_MAX];
	const char *p = ev->lines, *end = ev->lines + strnlen(ev->lines, sizeof(ev->lines));

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		pc_outf(o, "%s| %s\n", pfx, clean(buf, sizeof(buf), p, n, CLEAN_LINE));
		p += n + 1;
	}
}

static void write_evidence_line(struct pc_out *o, const struct pc_evidence *ev, const char *pfx)
{
	char what[PC_CLEAN_MAX];

	if (ev->lines[0]) {
		pc_outf(o, "%spid %d: %s\n", pfx, ev->pid,
			clean(what, sizeof(what), ev->what, sizeof(ev->what), CLEAN_LINE));
		write_evidence_lines(o, ev, pfx);
		return;
	}
	pc_outf(o, "%spid %d addr 0x%llx", pfx, ev->pid, (unsigned long long)ev->addr);
	if (ev->new_addr)
		pc_outf(o, " -> 0x%llx", (unsigned long long)ev->new_addr);
	pc_outf(o, ": expected 0x%llx seen 0x%llx", (unsigned long long)ev->expected,
		(unsigned long long)ev->seen);
	if (ev->what[0])
		pc_outf(o, " (%s)",
			clean(what, sizeof(what), ev->what, sizeof(ev->what), CLEAN_LINE));
	pc_outf(o, "\n");
}

static int n_evidence(const struct pc_result *res)
{
	if (res->n_evidence <= 0)
		return 0;
	return res->n_evidence < PC_MAX_EVIDENCE ? res->n_evidence : PC_MAX_EVIDENCE;
}

/* NaN, infinity or a clock step backwards: print 0 rather than nonsense. */
static double duration(const struct pc_report *r)
{
	return isfinite(r->duration_s) && r->duration_s > 0 ? r->duration_s : 0.0;
}

/* ---- text -------------------------------------------------------------- */

static void write_text(struct pc_out *o, const struct pc_report *r)
{
	static const char *const tag[] = {"PASS", "FAIL", "SKIP"};
	char buf[PC_CLEAN_MAX];
	int i, j, pass, fail, skip, wname = 0, wtier = 0;

	pc_outf(o, "ptecheck %.*s suite %.*s on %.*s %.*s\n", FLD(r->command), FLD(r->suite),
		FLD(r->kernel_release), FLD(r->machine));
	pc_outf(o, "started %.*s, %.3f s%s\n", FLD(r->started), duration(r),
		r->partial ? ", interrupted: partial results" : "");
	if (r->n_results)
		pc_outf(o, "\n");

	for (i = 0; i < r->n_results; i++) {
		int n = (int)strnlen(r->results[i].name, sizeof(r->results[i].name));
		int t = (int)strnlen(r->results[i].tier, sizeof(r->results[i].tier)) + 2;

		wname = n > wname ? n : wname;
		wtier = t > wtier ? t : wtier;
	}
	for (i = 0; i < r->n_results; i++) {
		const struct pc_result *res = &r->results[i];
		enum pc_status st = norm_status(res->status);
		int ne = n_evidence(res);

		snprintf(buf, sizeof(buf), "[%.*s]", FLD(res->tier));
		pc_outf(o, "%s  %-*.*s  %-*s  %-9s", tag[st], wname, FLD(res->name), wtier, buf,
			res->in_kernel ? "(kernel)" : "(derived)");
		if (res->summary[0])
			pc_outf(o, "  %s",
				clean(buf, sizeof(buf), res->summary, sizeof(res->summary),
				      CLEAN_LINE));
		pc_outf(o, "\n");
		if (st == PC_STATUS_FAIL || (st == PC_STATUS_PASS && res->inconclusive))
			pc_outf(o, "      checked %llu, violations %llu, inconclusive %llu\n",
				(unsigned long long)res->checked,
				(unsigned long long)res->violations,
				(unsigned long long)res->inconclusive);
		for (j = 0; j < ne; j++)
			write_evidence_line(o, &res->evidence[j], "      ");
		if (ne && res->violations > (__u64)ne)
			pc_outf(o, "      ... %llu more not shown\n",
				(unsigned long long)(res->violations - ne));
	}

	for (i = 0; i < r->n_hists; i++) {
		pc_outf(o, "\n");
		write_hist(o, &r->hists[i], "");
	}
	if (r->n_notes)
		pc_outf(o, "\n");
	write_notes(o, r, "");

	count_status(r, &pass, &fail, &skip);
	pc_outf(o, "\n");
	if (r->partial)
		pc_outf(o, "interrupted: results so far\n");
	pc_outf(o, "%d passed, %d failed, %d skipped\n", pass, fail, skip);
	write_stats(o, r, "");
}

/* ---- TAP --------------------------------------------------------------- */

static void write_tap(struct pc_out *o, const struct pc_report *r)
{
	char buf[PC_CLEAN_MAX];
	int i, j, pass, fail, skip;

	pc_outf(o, "TAP version 13\n");
	pc_outf(o, "1..%d\n", r->n_results);
	pc_outf(o, "# ptecheck %.*s suite %.*s on %.*s %.*s\n", FLD(r->command), FLD(r->suite),
		FLD(r->kernel_release), FLD(r->machine));
	pc_outf(o, "# started %.*s, %.3f s%s\n", FLD(r->started), duration(r),
		r->partial ? ", interrupted: partial results" : "");

	for (i = 0; i < r->n_results; i++) {
		const struct pc_result *res = &r->results[i];
		enum pc_status st = norm_status(res->status);
		int ne = n_evidence(res);

		/* '#' in a name would start a directive: escape everything. */
		pc_outf(o, "%s %d %s", st == PC_STATUS_FAIL ? "not ok" : "ok", i + 1,
			clean(buf, sizeof(buf), res->name, sizeof(res->name), CLEAN_TAP));
		pc_outf(o, " [%s]",
			clean(buf, sizeof(buf), res->tier, sizeof(res->tier), CLEAN_TAP));
		clean(buf, sizeof(buf), res->summary, sizeof(res->summary),
		      st == PC_STATUS_SKIP ? CLEAN_LINE : CLEAN_TAP);
		if (st == PC_STATUS_SKIP)
			pc_outf(o, " # SKIP%s%s\n", buf[0] ? " " : "", buf);
		else
			pc_outf(o, "%s%s\n", buf[0] ? " " : "", buf);
		if (st != PC_STATUS_FAIL)
			continue;

		pc_outf(o, "# in_kernel: %s\n", res->in_kernel ? "true" : "false");
		pc_outf(o, "# checked: %llu\n", (unsigned long long)res->checked);
		pc_outf(o, "# violations: %llu\n", (unsigned long long)res->violations);
		pc_outf(o, "# inconclusive: %llu\n", (unsigned long long)res->inconclusive);
		if (ne)
			pc_outf(o, "# evidence:\n");
		for (j = 0; j < ne; j++) {
			const struct pc_evidence *ev = &res->evidence[j];

			pc_outf(o,
				"#   - {pid: %d, addr: 0x%llx, new_addr: 0x%llx, expected: 0x%llx, "
				"seen: 0x%llx, what: \"%s\"}\n",
				ev->pid, (unsigned long long)ev->addr,
				(unsigned long long)ev->new_addr, (unsigned long long)ev->expected,
				(unsigned long long)ev->seen,
				clean(buf, sizeof(buf), ev->what, sizeof(ev->what), CLEAN_DQUOTE));
			write_evidence_lines(o, ev, "#     ");
		}
		if (ne && res->violations > (__u64)ne)
			pc_outf(o, "# evidence_not_shown: %llu\n",
				(unsigned long long)(res->violations - ne));
	}

	for (i = 0; i < r->n_hists; i++) {
		pc_outf(o, "#\n");
		write_hist(o, &r->hists[i], "# ");
	}
	write_notes(o, r, "# ");
	write_stats(o, r, "# ");
	if (r->partial)
		pc_outf(o, "# interrupted: results so far\n");
	count_status(r, &pass, &fail, &skip);
	pc_outf(o, "# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:%d error:0\n", pass, fail, skip);
}

/* ---- JSON -------------------------------------------------------------- */

struct jb {
	bool failed;
};

static json_t *jstr(const char *s, size_t max)
{
	char buf[PC_CLEAN_MAX];

	utf8_clean(buf, sizeof(buf), s, max);
	return json_string(buf);
}

/* JSON integers are signed 64-bit in jansson; counts saturate there. */
static json_t *juint(__u64 v)
{
	return json_integer(v > (__u64)INT64_MAX ? INT64_MAX : (json_int_t)v);
}

/* Raw values and addresses use all 64 bits: always hex strings. */
static json_t *jhex(__u64 v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)v);
	return json_string(buf);
}

/* Both setters steal v (jansson drops it on error) and accept a NULL parent. */
static void jset(struct jb *b, json_t *obj, const char *key, json_t *v)
{
	if (!v || !obj || json_object_set_new(obj, key, v)) {
		if (v && !obj)
			json_decref(v);
		b->failed = true;
	}
}

static void jpush(struct jb *b, json_t *arr, json_t *v)
{
	if (!v || !arr || json_array_append_new(arr, v)) {
		if (v && !arr)
			json_decref(v);
		b->failed = true;
	}
}

#define JSTR(field) jstr((field), sizeof(field))

static json_t *json_result(struct jb *b, const struct pc_result *res)
{
	json_t *o = json_object(), *evs = json_array();
	int i, ne = n_evidence(res);

	jset(b, o, "check", JSTR(res->name));
	jset(b, o, "tier", JSTR(res->tier));
	jset(b, o, "in_kernel", json_boolean(res->in_kernel));
	jset(b, o, "status", json_string(pc_status_name(norm_status(res->status))));
	jset(b, o, "summary", JSTR(res->summary));
	jset(b, o, "checked", juint(res->checked));
	jset(b, o, "violations", juint(res->violations));
	jset(b, o, "inconclusive", juint(res->inconclusive));
	for (i = 0; i < ne; i++) {
		const struct pc_evidence *ev = &res->evidence[i];
		json_t *e = json_object();

		jset(b, e, "pid", json_integer(ev->pid));
		jset(b, e, "addr", jhex(ev->addr));
		jset(b, e, "new_addr", jhex(ev->new_addr));
		jset(b, e, "expected", jhex(ev->expected));
		jset(b, e, "seen", jhex(ev->seen));
		jset(b, e, "what", JSTR(ev->what));
		if (ev->lines[0]) {
			json_t *lines = json_array();
			const char *p = ev->lines;
			const char *end = p + strnlen(p, sizeof(ev->lines));

			while (p < end) {
				const char *nl = memchr(p, '\n', (size_t)(end - p));
				size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

				jpush(b, lines, jstr(p, n));
				p += n + 1;
			}
			jset(b, e, "lines", lines);
		}
		jpush(b, evs, e);
	}
	jset(b, o, "evidence", evs);
	return o;
}

static json_t *json_hist(struct jb *b, const struct pc_hist_report *h)
{
	json_t *o = json_object(), *buckets = json_array();
	int first, last, i;
	__u64 total = 0, lo, hi;

	jset(b, o, "name", JSTR(h->name));
	jset(b, o, "unit", JSTR(h->unit));
	jset(b, o, "source", JSTR(h->source));
	jset(b, o, "in_kernel", json_boolean(h->in_kernel));
	jset(b, o, "kind", json_string(h->kind == PC_HIST_LINLOG ? "linlog" : "log2"));
	if (hist_range(h, &first, &last)) {
		for (i = first; i <= last; i++) {
			json_t *bk = json_object();

			hist_bounds(h, i, &lo, &hi);
			jset(b, bk, "low", juint(lo));
			jset(b, bk, "high", juint(hi));
			jset(b, bk, "count", juint(h->slots[i]));
			jpush(b, buckets, bk);
			total = sat_add(total, h->slots[i]);
		}
	}
	jset(b, o, "buckets", buckets);
	jset(b, o, "total", juint(total));
	return o;
}

static json_t *json_report(const struct pc_report *r)
{
	struct jb b = {.failed = false};
	json_t *root = json_object(), *o, *a;
	int i, n, pass, fail, skip;
	char buf[32];

	jset(&b, root, "schema", json_string("ptecheck-report"));
	jset(&b, root, "schema_version", json_integer(PC_REPORT_SCHEMA_VERSION));
	jset(&b, root, "tool_version", json_string(PTECHECK_VERSION));
	jset(&b, root, "command", JSTR(r->command));
	jset(&b, root, "suite", JSTR(r->suite));
	o = json_object();
	jset(&b, o, "release", JSTR(r->kernel_release));
	jset(&b, o, "machine", JSTR(r->machine));
	jset(&b, root, "kernel", o);
	jset(&b, root, "started", JSTR(r->started));
	jset(&b, root, "duration_s", json_real(duration(r)));
	if (r->scale)
		jset(&b, root, "scale", json_integer(r->scale));
	jset(&b, root, "partial", json_boolean(r->partial));

	count_status(r, &pass, &fail, &skip);
	o = json_object();
	jset(&b, o, "passed", json_integer(pass));
	jset(&b, o, "failed", json_integer(fail));
	jset(&b, o, "skipped", json_integer(skip));
	jset(&b, o, "exit_code", json_integer(pc_report_exit_code(r)));
	jset(&b, root, "summary", o);

	a = json_array();
	for (i = 0; i < r->n_results; i++)
		jpush(&b, a, json_result(&b, &r->results[i]));
	jset(&b, root, "results", a);

	a = json_array();
	for (i = 0; i < r->n_hists; i++)
		jpush(&b, a, json_hist(&b, &r->hists[i]));
	jset(&b, root, "histograms", a);

	n = n_stats(r);
	if (n) {
		o = json_object();
		for (i = 0; i < n; i++)
			jset(&b, o, stat_name(i, buf, sizeof(buf)), juint(r->stats[i]));
		jset(&b, root, "stats", o);
	}

	a = json_array();
	for (i = 0; i < r->n_notes; i++)
		jpush(&b, a, jstr(r->notes[i], PC_NOTE_MAX));
	jset(&b, root, "notes", a);

	if (b.failed) {
		json_decref(root);
		return NULL;
	}
	return root;
}

static void write_json(struct pc_out *o, const struct pc_report *r)
{
	json_t *root = json_report(r);

	if (!root) {
		o->err = ENOMEM;
		return;
	}
	if (json_dumpf(root, o->f, JSON_INDENT(2) | JSON_PRESERVE_ORDER) != 0)
		o->err = errno ? errno : EIO;
	json_decref(root);
	pc_outf(o, "\n");
}

int pc_report_write(const struct pc_report *r, enum pc_format fmt, FILE *out)
{
	struct pc_out o = {.f = out, .err = 0};

	if (!r || !out)
		return -EINVAL;
	/* errno is only read after a failed call; start clean so it is not stale. */
	errno = 0;
	switch (fmt) {
	case PC_FORMAT_TEXT:
		write_text(&o, r);
		break;
	case PC_FORMAT_TAP:
		write_tap(&o, r);
		break;
	case PC_FORMAT_JSON:
		write_json(&o, r);
		break;
	default:
		return -EINVAL;
	}
	return pc_out_finish(&o);
}

/*
 * Opens a report file for writing.  In a sticky, world-writable directory
 * (/tmp) a symlink is refused: another user could point it anywhere root
 * may write.  Elsewhere paths are followed as given (/dev/stdout works).
 * Under sudo the file is opened as the user who ran sudo.
 */
FILE *pc_open_report(const char *path)
{
	char dir[4096];
	struct stat st, dst;
	const char *slash = strrchr(path, '/');
	struct pc_user u;
	int fd;

	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
		size_t n = slash ? (size_t)(slash - path) : 0;

		snprintf(dir, sizeof(dir), "%.*s", (int)(n ? n : 1), slash ? path : ".");
		if (stat(dir, &dst) == 0 && (dst.st_mode & S_ISVTX) && (dst.st_mode & S_IWOTH)) {
			errno = ELOOP;
			return NULL;
		}
	}
	/* Under sudo, the file is the user's: opened with their rights, so
	   root never truncates or creates a file they could not. */
	if (pc_report_user(&u)) {
		fd = pc_open_as_user(&u, path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0) {
			errno = -fd;
			return NULL;
		}
	} else {
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0)
			return NULL;
	}
	return fdopen(fd, "w");
}
