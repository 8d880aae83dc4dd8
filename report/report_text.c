// SPDX-License-Identifier: GPL-2.0
/*
 * The text writer, for people: a header, one line per result with its
 * counts and evidence where it failed, histograms in the libbpf-tools
 * layout, notes, totals and stats.  TAP reuses the pieces behind "# ".
 */
#define _GNU_SOURCE /* strerrorname_np */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <ptecheck/events.h>
#include "clean.h"
#include "report_writers.h"

static int digits(__u64 v)
{
	int n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

/* The header line: name (unit) — kernel|derived: source. */
static void hist_title(struct pc_out *o, const struct pc_hist_report *h, const char *pfx)
{
	char buf[PC_CLEAN_MAX];

	pc_outf(o, "%s%s", pfx,
		pc_clean(buf, sizeof(buf), h->name, sizeof(h->name), PC_CLEAN_LINE));
	if (h->unit[0])
		pc_outf(o, " (%s)",
			pc_clean(buf, sizeof(buf), h->unit, sizeof(h->unit), PC_CLEAN_LINE));
	pc_outf(o, " \u2014 %s", h->in_kernel ? "kernel" : "derived");
	if (h->source[0])
		pc_outf(o, ": %s",
			pc_clean(buf, sizeof(buf), h->source, sizeof(h->source), PC_CLEAN_LINE));
	pc_outf(o, "\n");
}

/* The libbpf-tools / bpftrace layout. */
void pc_text_hist(struct pc_out *o, const struct pc_hist_report *h, const char *pfx)
{
	char unit[PC_CLEAN_MAX], label[112];
	int first, last, i, width, stars, nstars, j;
	__u64 lo, hi, vmax = 0;

	hist_title(o, h, pfx);
	if (h->by)
		pc_outf(o, "%s%s\n", pfx, pc_hist_key_text(h, label, sizeof(label)));
	if (!pc_hist_report_range(h, &first, &last)) {
		pc_outf(o, "%s     (no events)\n", pfx);
		return;
	}
	for (i = first; i <= last; i++)
		if (h->slots[i] > vmax)
			vmax = h->slots[i];
	pc_hist_report_bounds(h, last, &lo, &hi);
	/* Narrow columns while the numbers fit, as libbpf-tools does. */
	width = digits(hi) <= 10 ? 10 : 20;
	stars = width == 10 ? 40 : 20;

	pc_clean(unit, sizeof(unit), h->unit[0] ? h->unit : "value", sizeof(h->unit),
		 PC_CLEAN_LINE);
	pc_outf(o, "%s%*s%-*s : count    distribution\n", pfx, width - 5, "", width + 9, unit);
	for (i = first; i <= last; i++) {
		pc_hist_report_bounds(h, i, &lo, &hi);
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

int pc_report_write_interval(const struct pc_report *now, const struct pc_report *before,
			     const char *stamp, FILE *out)
{
	struct pc_out o = {.f = out};
	struct pc_hist_report *d = calloc((size_t)now->n_hists + 1, sizeof(*d));
	int n = 0;

	if (!d)
		return -errno;
	for (int i = 0; i < now->n_hists; i++) {
		const struct pc_hist_report *b = pc_report_find_hist_key(before, &now->hists[i]);

		d[n] = now->hists[i];
		/* Counters only grow: the interval's events are the difference. */
		for (int k = 0; b && k < PC_HIST_SLOTS; k++)
			d[n].slots[k] =
				d[n].slots[k] >= b->slots[k] ? d[n].slots[k] - b->slots[k] : 0;
		/* A key with no events in the interval has no section in it. */
		n += !d[n].by || pc_hist_report_total(&d[n]) > 0;
	}
	/* The keys by the interval's events, not the run's. */
	pc_hist_order_keys(d, n);
	pc_outf(&o, "\n%s\n", stamp);
	for (int i = 0; i < n; i++) {
		pc_outf(&o, "\n");
		pc_text_hist(&o, &d[i], "");
	}
	free(d);
	return pc_out_finish(&o);
}

void pc_text_stats(struct pc_out *o, const struct pc_report *r, const char *pfx)
{
	char buf[32];
	int i, n = pc_report_n_stats(r);

	if (!n)
		return;
	pc_outf(o, "%sstats:\n", pfx);
	for (i = 0; i < n; i++)
		pc_outf(o, "%s  %-16s %llu\n", pfx, pc_report_stat_name(i, buf, sizeof(buf)),
			(unsigned long long)r->stats[i]);
	/* Lost evidence must be loud: a clean result may be an incomplete one. */
	if (n > PC_STAT_EVENTS_DROPPED && r->stats[PC_STAT_EVENTS_DROPPED])
		pc_outf(o, "%swarning: %llu violation records dropped (ring buffer full)\n", pfx,
			(unsigned long long)r->stats[PC_STAT_EVENTS_DROPPED]);
	if (n > PC_STAT_STATE_FULL && r->stats[PC_STAT_STATE_FULL])
		pc_outf(o, "%swarning: %llu calls not checked (no per-call state slot free)\n", pfx,
			(unsigned long long)r->stats[PC_STAT_STATE_FULL]);
	if (n > PC_STAT_STATE_LOST && r->stats[PC_STAT_STATE_LOST])
		pc_outf(o,
			"%swarning: %llu calls not checked (their state was gone at their exit)\n",
			pfx, (unsigned long long)r->stats[PC_STAT_STATE_LOST]);
}

void pc_text_notes(struct pc_out *o, const struct pc_report *r, const char *pfx)
{
	char buf[PC_CLEAN_MAX];
	int i;

	for (i = 0; i < r->bpf.n_refused; i++)
		pc_outf(o, "%serror: %s\n", pfx,
			pc_clean(buf, sizeof(buf), r->bpf.refused[i], PC_NOTE_MAX, PC_CLEAN_LINE));
	for (i = 0; i < r->n_notes; i++)
		pc_outf(o, "%snote: %s\n", pfx,
			pc_clean(buf, sizeof(buf), r->notes[i], PC_NOTE_MAX, PC_CLEAN_LINE));
}

void pc_text_log_lines(struct pc_out *o, const struct pc_evidence *ev, const char *pfx,
		       unsigned int how)
{
	char buf[PC_CLEAN_MAX];
	const char *p = ev->lines, *end = ev->lines + strnlen(ev->lines, sizeof(ev->lines));

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		pc_outf(o, "%s| %s\n", pfx, pc_clean(buf, sizeof(buf), p, n, how));
		p += n + 1;
	}
}

void pc_text_variants(struct pc_out *o, const struct pc_result *res, const char *pfx)
{
	int n = pc_result_n_variants(res), skipped = pc_result_variants_skipped(res), k = 0;
	char buf[PC_CLEAN_MAX];

	if (!skipped)
		return;
	pc_outf(o, "%svariants run: %d of %d", pfx, n - skipped, n);
	for (int i = 0; i < n; i++)
		if (res->variants[i].status != PC_STATUS_SKIP)
			pc_outf(o, "%s%s", k++ ? ", " : ": ",
				pc_clean(buf, sizeof(buf), res->variants[i].scenario,
					 sizeof(res->variants[i].scenario), PC_CLEAN_LINE));
	pc_outf(o, "\n");
	for (int i = 0; i < n; i++) {
		const struct pc_variant *v = &res->variants[i];

		if (v->status != PC_STATUS_SKIP)
			continue;
		pc_outf(o, "%snot run: %s", pfx,
			pc_clean(buf, sizeof(buf), v->scenario, sizeof(v->scenario),
				 PC_CLEAN_LINE));
		pc_outf(o, ": %s\n",
			pc_clean(buf, sizeof(buf), v->why, sizeof(v->why), PC_CLEAN_LINE));
	}
}

const char *pc_variant_words(const struct pc_variant *v, char *buf, size_t sz, unsigned int how)
{
	char raw[3 * PC_VARIANT_TEXT];

	if (v->status == PC_STATUS_SKIP)
		snprintf(raw, sizeof(raw), "%.*s: %.*s", FLD(v->scenario), FLD(v->why));
	else if (v->rounds > 1)
		snprintf(
			raw, sizeof(raw),
			"%.*s: judged in %u of %u rounds, %llu checked, %llu violation%s; %s: %.*s",
			FLD(v->scenario), v->judged, v->rounds, (unsigned long long)v->checked,
			(unsigned long long)v->violations, v->violations == 1 ? "" : "s",
			v->status == PC_STATUS_FAIL ? "first failing round" : "first round",
			FLD(v->summary));
	else
		snprintf(raw, sizeof(raw), "%.*s: %.*s", FLD(v->scenario), FLD(v->summary));
	return pc_clean(buf, sz, raw, sizeof(raw), how);
}

void pc_text_scenarios(struct pc_out *o, const struct pc_result *res, const char *pfx)
{
	char buf[PC_CLEAN_MAX];

	for (int i = 0; i < pc_result_n_variants(res); i++) {
		const struct pc_variant *v = &res->variants[i];

		pc_outf(o, "%s%-4s  %s\n", pfx, pc_status_name(pc_variant_status(v)),
			pc_variant_words(v, buf, sizeof(buf), PC_CLEAN_LINE));
	}
}

/* "EFAULT: Bad address" for err, into buf. */
static const char *errno_text(int err, char *buf, size_t len)
{
	const char *name = strerrorname_np(err);

	if (name)
		snprintf(buf, len, "%s: %s", name, strerror(err));
	else
		snprintf(buf, len, "errno %d", err);
	return buf;
}

static int n_frames(const struct pc_evidence *ev)
{
	return ev->n_frames < PC_EVIDENCE_FRAMES ? ev->n_frames : PC_EVIDENCE_FRAMES;
}

/* The same frames: the violations of one call or batch share a stack. */
static bool same_stack(const struct pc_evidence *a, const struct pc_evidence *b)
{
	if (!b || n_frames(a) <= 0 || n_frames(a) != n_frames(b))
		return false;
	for (int i = 0; i < n_frames(a); i++)
		if (a->frames[i].addr != b->frames[i].addr)
			return false;
	return true;
}

void pc_text_stack(struct pc_out *o, const struct pc_evidence *ev, const struct pc_evidence *prev,
		   const char *pfx, unsigned int how)
{
	char buf[PC_CLEAN_MAX];
	int n = n_frames(ev);

	if (same_stack(ev, prev)) {
		pc_outf(o, "%skernel stack: as above\n", pfx);
		return;
	}
	if (ev->stack_err) {
		pc_outf(o, "%skernel stack: unavailable (%s)\n", pfx,
			errno_text(ev->stack_err, buf, sizeof(buf)));
		return;
	}
	if (n <= 0)
		return;
	pc_outf(o, "%skernel stack", pfx);
	if (ev->stack_note[0])
		pc_outf(o, " (%s)",
			pc_clean(buf, sizeof(buf), ev->stack_note, sizeof(ev->stack_note), how));
	pc_outf(o, ":\n");
	for (int i = 0; i < n; i++) {
		pc_clean(buf, sizeof(buf), ev->frames[i].sym, sizeof(ev->frames[i].sym), how);
		pc_outf(o, "%s  #%-2d %016llx%s%s\n", pfx, i,
			(unsigned long long)ev->frames[i].addr, buf[0] ? " " : "", buf);
	}
}

static void evidence_line(struct pc_out *o, const struct pc_evidence *ev,
			  const struct pc_evidence *prev, const char *pfx, unsigned int how)
{
	char what[PC_CLEAN_MAX], sub[32];

	pc_clean(what, sizeof(what), ev->what, sizeof(ev->what), how);
	if (ev->lines[0]) {
		pc_outf(o, "%spid %d: %s\n", pfx, ev->pid, what);
		pc_text_log_lines(o, ev, pfx, how);
		return;
	}
	pc_outf(o, "%spid %d addr 0x%llx", pfx, ev->pid, (unsigned long long)ev->addr);
	if (ev->new_addr)
		pc_outf(o, " -> 0x%llx", (unsigned long long)ev->new_addr);
	pc_outf(o, ": expected 0x%llx seen 0x%llx", (unsigned long long)ev->expected,
		(unsigned long long)ev->seen);
	if (what[0])
		pc_outf(o, " (%s)", what);
	pc_outf(o, "\n");
	snprintf(sub, sizeof(sub), "%s  ", pfx); /* the stack under its evidence */
	pc_text_stack(o, ev, prev, sub, how);
}

void pc_text_counts(struct pc_out *o, const struct pc_result *res, const char *pfx)
{
	pc_outf(o, "%schecked %llu, violations %llu, inconclusive %llu\n", pfx,
		(unsigned long long)res->checked, (unsigned long long)res->violations,
		(unsigned long long)res->inconclusive);
}

void pc_text_evidence(struct pc_out *o, const struct pc_result *res, const char *pfx,
		      unsigned int how)
{
	int j, ne = pc_result_n_evidence(res);

	for (j = 0; j < ne; j++)
		evidence_line(o, &res->evidence[j], j ? &res->evidence[j - 1] : NULL, pfx, how);
	if (ne && res->violations > (__u64)ne)
		pc_outf(o, "%s... %llu more not shown\n", pfx,
			(unsigned long long)(res->violations - ne));
}

/* One result: status, name and tier in columns, summary; counts and evidence below. */
static void result_lines(struct pc_out *o, const struct pc_result *res, int wname, int wtier,
			 bool verbose)
{
	static const char *const tag[] = {"PASS", "FAIL", "SKIP"};
	enum pc_status st = pc_result_status(res);
	char buf[PC_CLEAN_MAX];

	snprintf(buf, sizeof(buf), "[%.*s]", FLD(res->tier));
	pc_outf(o, "%s  %-*.*s  %-*s  %-9s", tag[st], wname, FLD(res->name), wtier, buf,
		res->in_kernel ? "(kernel)" : "(derived)");
	if (res->summary[0])
		pc_outf(o, "  %s",
			pc_clean(buf, sizeof(buf), res->summary, sizeof(res->summary),
				 PC_CLEAN_LINE));
	pc_outf(o, "\n");
	if (st == PC_STATUS_FAIL || (st == PC_STATUS_PASS && res->inconclusive))
		pc_text_counts(o, res, "      ");
	if (verbose)
		pc_text_scenarios(o, res, "      ");
	else
		pc_text_variants(o, res, "      ");
	pc_text_evidence(o, res, "      ", PC_CLEAN_LINE);
}

void pc_report_write_text(struct pc_out *o, const void *what)
{
	const struct pc_report *r = what;
	int i, pass, fail, skip, wname = 0, wtier = 0;
	const char *why;

	pc_outf(o, "ptecheck %.*s suite %.*s on %.*s %.*s\n", FLD(r->command), FLD(r->suite),
		FLD(r->kernel_release), FLD(r->machine));
	pc_outf(o, "started %.*s, %.3f s%s\n", FLD(r->started), pc_report_duration(r),
		r->partial ? ", interrupted: partial results" : "");
	if (r->n_results)
		pc_outf(o, "\n");

	for (i = 0; i < r->n_results; i++) {
		int n = (int)strnlen(r->results[i].name, sizeof(r->results[i].name));
		int t = (int)strnlen(r->results[i].tier, sizeof(r->results[i].tier)) + 2;

		wname = n > wname ? n : wname;
		wtier = t > wtier ? t : wtier;
	}
	for (i = 0; i < r->n_results; i++)
		result_lines(o, &r->results[i], wname, wtier, r->verbose);

	for (i = 0; i < r->n_hists; i++) {
		pc_outf(o, "\n");
		pc_text_hist(o, &r->hists[i], "");
	}
	if (r->n_notes || r->bpf.n_refused)
		pc_outf(o, "\n");
	pc_text_notes(o, r, "");

	pc_report_count(r, &pass, &fail, &skip);
	if (r->partial)
		pc_outf(o, "\ninterrupted: results so far\n");
	/* hist checks nothing: no counts of checks, no checks' counters. */
	if (!r->n_results && !strcmp(r->command, "hist"))
		return;
	pc_outf(o, "\n%d passed, %d failed, %d skipped\n", pass, fail, skip);
	why = pc_report_skip_why(r);
	if (why)
		pc_outf(o, "%s\n", why);
	pc_text_stats(o, r, "");
}
