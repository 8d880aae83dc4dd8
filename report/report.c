// SPDX-License-Identifier: GPL-2.0
/*
 * The result model: results, evidence, histograms, notes and stats; what
 * the writers read of it; and the choice of a writer by format.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/utsname.h>
#include <ptecheck/events.h>
#include "procmm.h"
#include "report_writers.h"

#define N_STATS_MAX ((int)(sizeof(((struct pc_report *)0)->stats) / sizeof(__u64)))
_Static_assert(PC_STAT__COUNT <= N_STATS_MAX, "pc_report.stats too small for enum pc_stat_id");

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
	[PC_STAT_CALLS_IN_PLACE] = "calls_in_place",
	[PC_STAT_STATE_LOST] = "state_lost",
};

static const char *const status_names[] = {
	[PC_STATUS_PASS] = "pass",
	[PC_STATUS_FAIL] = "fail",
	[PC_STATUS_SKIP] = "skip",
};

static const char *const format_names[] = {
	[PC_FORMAT_TEXT] = "text",
	[PC_FORMAT_JSON] = "json",
	[PC_FORMAT_TAP] = "tap",
	[PC_FORMAT_JUNIT] = "junit",
};

static pc_writer_fn *const writers[] = {
	[PC_FORMAT_TEXT] = pc_report_write_text,
	[PC_FORMAT_JSON] = pc_report_write_json,
	[PC_FORMAT_TAP] = pc_report_write_tap,
	[PC_FORMAT_JUNIT] = pc_report_write_junit,
};

static void copy_str(char *dst, size_t sz, const char *src)
{
	snprintf(dst, sz, "%s", src ? src : "");
}

void *pc_report_grow(void *arr, int *cap, int n, size_t elem)
{
	char *p = arr;

	if (n >= *cap) {
		int ncap = *cap ? *cap * 2 : 8;

		p = *cap > INT_MAX / 2 ? NULL : realloc(arr, (size_t)ncap * elem);
		if (!p) {
			errno = ENOMEM;
			return NULL;
		}
		*cap = ncap;
	}
	memset(p + (size_t)n * elem, 0, elem);
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
	for (i = 0; i < r->n_scens; i++)
		free(r->scens[i].hists);
	free(r->scens);
	free(r);
}

/*
 * Results live in one array that realloc may move: a pointer returned here
 * is valid until the next pc_report_add_result() on the same report.
 */
struct pc_result *pc_report_add_result(struct pc_report *r, const char *name, const char *tier,
				       bool in_kernel)
{
	struct pc_result *arr = pc_report_grow(r->results, &r->cap_results, r->n_results,
					       sizeof(*arr)),
			 *res;

	if (!arr)
		return NULL;
	r->results = arr;
	res = &arr[r->n_results++];
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

bool pc_text_fit(char *dst, size_t sz, const char *src, const char *mark)
{
	size_t n = strlen(src), room, cut, k;

	if (n < sz) {
		memcpy(dst, src, n + 1);
		return false;
	}
	if (!sz)
		return true;
	mark = mark ? mark : "";
	room = strlen("...") + strlen(mark);
	if (room >= sz) {
		dst[0] = '\0';
		return true;
	}
	/* src[cut] is the first byte that would not fit: back to a space. */
	cut = sz - 1 - room;
	for (k = cut; k > 0 && src[k] != ' '; k--)
		;
	if (k > 0)
		cut = k;
	else /* one long word: at least not inside a character */
		while (cut > 0 && ((unsigned char)src[cut] & 0xc0) == 0x80)
			cut--;
	while (cut > 0 && strchr(" ,;:", src[cut - 1]))
		cut--;
	memcpy(dst, src, cut);
	snprintf(dst + cut, sz - cut, "...%s", mark);
	return true;
}

void pc_result_set(struct pc_result *res, enum pc_status st, const char *fmt, ...)
{
	/* Longer than any summary: text past it is cut and marked below. */
	char text[4 * sizeof(res->summary)];
	va_list ap;

	res->status = st;
	if (!fmt) {
		res->summary[0] = '\0';
		return;
	}
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	pc_text_fit(res->summary, sizeof(res->summary), text, "");
}

struct pc_evidence *pc_result_add_evidence(struct pc_result *res, int pid, __u64 addr,
					   __u64 new_addr, __u64 expected, __u64 seen,
					   const char *what)
{
	struct pc_evidence *ev;

	/* The caller owns the counts: past the cap, evidence is just not kept. */
	if (res->n_evidence < 0 || res->n_evidence >= PC_MAX_EVIDENCE)
		return NULL;
	ev = &res->evidence[res->n_evidence++];
	memset(ev, 0, sizeof(*ev));
	ev->pid = pid;
	ev->addr = addr;
	ev->new_addr = new_addr;
	ev->expected = expected;
	ev->seen = seen;
	pc_text_fit(ev->what, sizeof(ev->what), what ? what : "", "");
	return ev;
}

void pc_result_add_log_evidence(struct pc_result *res, int pid, const char *what, const char *lines)
{
	struct pc_evidence *ev = pc_result_add_evidence(res, pid, 0, 0, 0, 0, what);

	if (ev)
		copy_str(ev->lines, sizeof(ev->lines), lines);
}

struct pc_hist_report *pc_report_add_hist(struct pc_report *r, const char *id, const char *name,
					  const char *unit, const char *source, bool in_kernel,
					  __u32 kind)
{
	struct pc_hist_report *arr, *h;

	/* Bucket bounds depend on the kind: refuse one we cannot print; an
	   id is what others key on: refuse one they could not. */
	if ((kind != PC_HIST_LOG2 && kind != PC_HIST_LINLOG) || !pc_hist_id_valid(id)) {
		errno = EINVAL;
		return NULL;
	}
	arr = pc_report_grow(r->hists, &r->cap_hists, r->n_hists, sizeof(*arr));
	if (!arr)
		return NULL;
	r->hists = arr;
	h = &arr[r->n_hists++];
	copy_str(h->id, sizeof(h->id), id);
	copy_str(h->name, sizeof(h->name), name);
	copy_str(h->unit, sizeof(h->unit), unit);
	copy_str(h->source, sizeof(h->source), source);
	h->in_kernel = in_kernel;
	h->kind = kind;
	return h;
}

void pc_report_hist_batch(struct pc_hist_report *h, const char *ctx, const char *src)
{
	copy_str(h->batch_ctx, sizeof(h->batch_ctx), ctx);
	copy_str(h->batch_src, sizeof(h->batch_src), src);
}

/* Notes are free text; bound them so one runaway message cannot flood
   (cut at a space and marked, as a summary). */
void pc_report_note(struct pc_report *r, const char *fmt, ...)
{
	char text[4 * PC_NOTE_MAX], buf[PC_NOTE_MAX];
	char **arr, *s;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	pc_text_fit(buf, sizeof(buf), text, "");
	s = strdup(buf);
	if (!s)
		return;
	arr = pc_report_grow(r->notes, &r->cap_notes, r->n_notes, sizeof(*arr));
	if (!arr) {
		free(s);
		return;
	}
	r->notes = arr;
	arr[r->n_notes++] = s;
}

int pc_report_drop_notes(struct pc_report *r, const char *prefix)
{
	size_t n = strlen(prefix);
	int kept = 0, gone = 0;

	for (int i = 0; i < r->n_notes; i++) {
		if (!strncmp(r->notes[i], prefix, n)) {
			free(r->notes[i]);
			gone++;
			continue;
		}
		r->notes[kept++] = r->notes[i];
	}
	r->n_notes = kept;
	return gone;
}

struct pc_hist_report *pc_report_find_hist(const struct pc_report *r, const char *id)
{
	int i;

	for (i = 0; r && i < r->n_hists; i++)
		if (!strncmp(r->hists[i].id, id, sizeof(r->hists[i].id)))
			return &r->hists[i];
	return NULL;
}

__u64 pc_hist_report_total(const struct pc_hist_report *h)
{
	__u64 t = 0;
	int i;

	for (i = 0; h && i < PC_HIST_SLOTS; i++)
		t = pc_sat_add(t, h->slots[i]);
	return t;
}

/* ---- what the writers read ---------------------------------------------- */

static enum pc_status status_of(enum pc_status st)
{
	return st == PC_STATUS_PASS || st == PC_STATUS_SKIP ? st : PC_STATUS_FAIL;
}

enum pc_status pc_result_status(const struct pc_result *res)
{
	return status_of(res->status);
}

enum pc_status pc_variant_status(const struct pc_variant *v)
{
	return status_of(v->status);
}

int pc_result_n_evidence(const struct pc_result *res)
{
	if (res->n_evidence <= 0)
		return 0;
	return res->n_evidence < PC_MAX_EVIDENCE ? res->n_evidence : PC_MAX_EVIDENCE;
}

double pc_report_duration(const struct pc_report *r)
{
	return isfinite(r->duration_s) && r->duration_s > 0 ? r->duration_s : 0.0;
}

int pc_report_n_stats(const struct pc_report *r)
{
	if (r->n_stats <= 0)
		return 0;
	return r->n_stats < N_STATS_MAX ? r->n_stats : N_STATS_MAX;
}

const char *pc_report_stat_name(int i, char *buf, size_t sz)
{
	if (i >= 0 && i < PC_STAT__COUNT && stat_names[i])
		return stat_names[i];
	/* A stat added to the enum but not named here still gets printed. */
	snprintf(buf, sz, "stat_%d", i);
	return buf;
}

bool pc_hist_report_range(const struct pc_hist_report *h, int *first, int *last)
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

void pc_hist_report_bounds(const struct pc_hist_report *h, int slot, __u64 *lo, __u64 *hi)
{
	__u32 kind = h->kind == PC_HIST_LINLOG ? PC_HIST_LINLOG : PC_HIST_LOG2;

	*lo = pc_hist_slot_low(kind, slot);
	*hi = pc_hist_slot_high(kind, slot);
}

void pc_report_count(const struct pc_report *r, int *pass, int *fail, int *skip)
{
	int i;

	*pass = *fail = *skip = 0;
	for (i = 0; i < r->n_results; i++) {
		switch (pc_result_status(&r->results[i])) {
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

/* Results that passed, the kernel-log readings not counted. */
static int invariants_passed(const struct pc_report *r)
{
	int n = 0;

	for (int i = 0; i < r->n_results; i++)
		n += pc_result_status(&r->results[i]) == PC_STATUS_PASS &&
		     strcmp(r->results[i].tier, PC_TIER_KMSG) != 0;
	return n;
}

int pc_report_exit_code(const struct pc_report *r)
{
	int pass, fail, skip;

	pc_report_count(r, &pass, &fail, &skip);
	if (fail)
		return PC_EXIT_FAIL;
	/* A program of ptecheck's own refused: its checks did not run, and
	   that is ptecheck's failure, never a pass or a skip. */
	if (r->bpf.n_refused)
		return PC_EXIT_ERROR;
	if (!invariants_passed(r))
		return PC_EXIT_SKIP;
	return PC_EXIT_PASS;
}

const char *pc_report_skip_why(const struct pc_report *r)
{
	int pass, fail, skip;

	pc_report_count(r, &pass, &fail, &skip);
	if (fail || !pass || invariants_passed(r))
		return NULL;
	return "no invariant check ran: only the kernel log was read (exit 4)";
}

const char *pc_status_name(enum pc_status st)
{
	return pc_name_get(status_names, PC_NAMES_N(status_names), st, "unknown");
}

int pc_format_parse(const char *s)
{
	return pc_name_find(format_names, PC_NAMES_N(format_names), s);
}

bool pc_format_option(const char *arg, enum pc_format *out)
{
	int format = pc_format_parse(arg);

	if (format < 0) {
		pc_err(0, "unknown format '%s' (text, json, tap, junit)", arg);
		return false;
	}
	*out = format;
	return true;
}

int pc_report_write(const struct pc_report *r, enum pc_format fmt, FILE *out)
{
	return pc_out_write(out, writers, PC_NAMES_N(writers), fmt, r);
}

void pc_report_dontfork(const struct pc_report *r)
{
	pc_fork_copies(r->results, (size_t)r->cap_results * sizeof(*r->results), false);
	pc_fork_copies(r->hists, (size_t)r->cap_hists * sizeof(*r->hists), false);
	pc_fork_copies(r->scens, (size_t)r->cap_scens * sizeof(*r->scens), false);
	for (int i = 0; i < r->n_scens; i++)
		pc_fork_copies(r->scens[i].hists,
			       (size_t)r->scens[i].cap_hists * sizeof(*r->scens[i].hists), false);
}
