// SPDX-License-Identifier: GPL-2.0
/*
 * The Prometheus text exposition (format 0.0.4) of a live session's report:
 * every family once, HELP and TYPE before its samples, no per-pid or
 * per-address label, so the series are bounded by the checks, tiers,
 * kernel-log rules and batch contexts.
 *
 * Histograms: a report slot is a bucket whose le is the slot's highest
 * value (linlog: 0..16 each, then one per power of two; log2 for latency),
 * cumulated; _sum is the exact sum the BPF side keeps beside the slots
 * (the hist_sums map), never an estimate from slot bounds.  Exported: the
 * batch histograms (ptecheck_batch_ptes{context,source}), mremap latency
 * (ptecheck_mremap_latency_seconds) and every other one as
 * ptecheck_distribution{id,unit}, by the histogram's stable id (its title
 * may change; the id never does: report/hist_id.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <ptecheck/events.h>
#include "metrics.h"

/* Buckets above these bounds go to +Inf only: a stable bucket set every
   scrape, as Prometheus' functions over buckets want. */
#define PTES_BUCKET_MAX 65535ULL       /* a PTE table holds at most 512 */
#define NS_BUCKET_MAX	34359738367ULL /* 2^35 - 1 ns, about 34 s */
/* The others count pages, PTEs, PMDs, flushes, reads per call: a 1 GiB
   mremap moves 262144 PTEs. */
#define OTHER_BUCKET_MAX 1048575ULL
/* The histogram of ptecheck_mremap_latency_seconds (trace/mremap.c). */
#define LATENCY_ID "mremap/latency"

void pc_metrics_label_value(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\\\", out);
		else if (*s == '"')
			fputs("\\\"", out);
		else if (*s == '\n')
			fputs("\\n", out);
		else
			fputc(*s, out);
	}
}

/* {k0="v0",k1="v1"} of n labels, extra (NULL: none) appended raw. */
static void labels(FILE *out, int n, const char *const *keys, const char *const *vals,
		   const char *extra)
{
	if (!n && !extra)
		return;
	fputc('{', out);
	for (int i = 0; i < n; i++) {
		fprintf(out, "%s%s=\"", i ? "," : "", keys[i]);
		pc_metrics_label_value(out, vals[i]);
		fputc('"', out);
	}
	if (extra)
		fprintf(out, "%s%s", n ? "," : "", extra);
	fputc('}', out);
}

static void family(FILE *out, const char *name, const char *type, const char *help)
{
	fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* v / 10^digits exactly, into buf: 1500 ns at 9 digits is "0.0000015". */
static const char *scaled(char *buf, size_t len, unsigned long long v, int digits)
{
	unsigned long long div = 1;
	int n;

	for (int i = 0; i < digits; i++)
		div *= 10;
	n = snprintf(buf, len, "%llu.%0*llu", v / div, digits, v % div);
	/* Trailing zeros go, and the point with them when nothing follows it. */
	while (n > 0 && (size_t)n < len && buf[n - 1] == '0')
		buf[--n] = '\0';
	if (n > 0 && (size_t)n < len && buf[n - 1] == '.')
		buf[--n] = '\0';
	return buf;
}

/* The results' counters and their state, each in-kernel (check, tier) once. */
static void results(FILE *out, const struct pc_report *r)
{
	static const struct {
		const char *name, *help;
		size_t off;
	} counters[] = {
		{"ptecheck_checks_judged_total", "Predicate evaluations judged in quiet windows.",
		 offsetof(struct pc_result, checked)},
		{"ptecheck_violations_total", "Evaluations that violated the invariant.",
		 offsetof(struct pc_result, violations)},
		{"ptecheck_inconclusive_total",
		 "Evaluations not judged: disturbed, shared or unenforced windows.",
		 offsetof(struct pc_result, inconclusive)},
	};
	static const char *const keys[] = {"check", "tier", "state"};

	for (size_t c = 0; c < sizeof(counters) / sizeof(counters[0]); c++) {
		family(out, counters[c].name, "counter", counters[c].help);
		for (int i = 0; i < r->n_results; i++) {
			const struct pc_result *res = &r->results[i];
			const char *vals[] = {res->name, res->tier};

			if (!res->in_kernel)
				continue;
			fputs(counters[c].name, out);
			labels(out, 2, keys, vals, NULL);
			fprintf(out, " %llu\n",
				*(const unsigned long long *)((const char *)res + counters[c].off));
		}
	}
	/* A state set: every state a series of its own, always there, 1 for
	   the one the check is in, 0 for the others, so no series appears or
	   vanishes as a check's state changes. */
	family(out, "ptecheck_check_tier_info", "gauge",
	       "For each check and the tier it runs in here, one series per state (pass, fail, "
	       "skip): 1 for the state it is in so far, 0 for the others.");
	for (int i = 0; i < r->n_results; i++) {
		const struct pc_result *res = &r->results[i];
		static const enum pc_status states[] = {PC_STATUS_PASS, PC_STATUS_FAIL,
							PC_STATUS_SKIP};

		if (!res->in_kernel)
			continue;
		for (size_t k = 0; k < sizeof(states) / sizeof(states[0]); k++) {
			const char *vals[] = {res->name, res->tier, pc_status_name(states[k])};

			fputs("ptecheck_check_tier_info", out);
			labels(out, 3, keys, vals, NULL);
			fprintf(out, " %d\n", res->status == states[k]);
		}
	}
}

/* Splats by rule: the stored ones by their rule, those not stored apart. */
static int splats(FILE *out, const struct pc_kmsg_scan *scan)
{
	static const char *const key[] = {"rule"};
	size_t n = scan ? pc_kmsg_scan_nsplats(scan) : 0, n_rules = 0;
	const char **rules = calloc(n + 1, sizeof(*rules));
	unsigned long long *counts = calloc(n + 1, sizeof(*counts)), dropped;

	if (!rules || !counts) {
		free(rules);
		free(counts);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		const char *rule = pc_kmsg_scan_splat(scan, i)->rule;
		size_t k = 0;

		while (k < n_rules && strcmp(rules[k], rule))
			k++;
		rules[k] = rule;
		counts[k]++;
		n_rules += k == n_rules;
	}
	dropped = scan ? pc_kmsg_scan_stats(scan)->splats_dropped : 0;
	if (dropped) {
		rules[n_rules] = "(not stored)";
		counts[n_rules++] = dropped;
	}
	family(out, "ptecheck_kernel_log_splats_total", "counter",
	       "Memory-management splats in the kernel log, by the rule that matched.");
	for (size_t k = 0; k < n_rules; k++) {
		fputs("ptecheck_kernel_log_splats_total", out);
		labels(out, 1, key, &rules[k], NULL);
		fprintf(out, " %llu\n", counts[k]);
	}
	free(rules);
	free(counts);
	return 0;
}

/* One histogram's samples: cumulative buckets to the last slot at most max
   (value / 10^digits as le), +Inf, _sum (when the kernel kept it), _count. */
static void histogram(FILE *out, const char *fam, const char *const *keys, const char *const *vals,
		      int n, const struct pc_hist_report *h, unsigned long long max, int digits)
{
	unsigned long long cum = 0, total = pc_hist_report_total(h);
	char le[48], num[32];

	for (__u32 slot = 0; slot < PC_HIST_SLOTS - 1; slot++) {
		unsigned long long high = pc_hist_slot_high(h->kind, slot);

		if (high > max)
			break;
		cum = pc_sat_add(cum, h->slots[slot]);
		snprintf(le, sizeof(le), "le=\"%s\"", scaled(num, sizeof(num), high, digits));
		fprintf(out, "%s_bucket", fam);
		labels(out, n, keys, vals, le);
		fprintf(out, " %llu\n", cum);
	}
	fprintf(out, "%s_bucket", fam);
	labels(out, n, keys, vals, "le=\"+Inf\"");
	fprintf(out, " %llu\n", total);
	if (h->has_sum) {
		fprintf(out, "%s_sum", fam);
		labels(out, n, keys, vals, NULL);
		fprintf(out, " %s\n", scaled(num, sizeof(num), h->sum, digits));
	}
	fprintf(out, "%s_count", fam);
	labels(out, n, keys, vals, NULL);
	fprintf(out, " %llu\n", total);
}

/* Whether an earlier histogram of r has h[i]'s batch labels (a second one
   would be a duplicate series). */
static bool batch_seen(const struct pc_report *r, int i)
{
	const struct pc_hist_report *h = &r->hists[i];

	for (int k = 0; k < i; k++)
		if (!strcmp(r->hists[k].batch_ctx, h->batch_ctx) &&
		    !strcmp(r->hists[k].batch_src, h->batch_src))
			return true;
	return false;
}

/* Every histogram a session gave that is neither a batch histogram nor
   mremap's latency (each has a family of its own): the fault-around
   window, TLB flushes, PTEs and PMDs moved, per-order batches ... by id
   and unit. */
static void other_histograms(FILE *out, const struct pc_report *r)
{
	static const char *const keys[] = {"id", "unit"};

	family(out, "ptecheck_distribution", "histogram",
	       "Every other histogram ptecheck hist shows, by its id and unit.");
	for (int i = 0; i < r->n_hists; i++) {
		const struct pc_hist_report *h = &r->hists[i];
		const char *vals[] = {h->id, h->unit};
		bool dup = false;

		if (h->by != PC_BY_NONE || *h->batch_ctx || !strcmp(h->id, LATENCY_ID))
			continue;
		for (int k = 0; k < i; k++)
			dup = dup ||
			      (r->hists[k].by == PC_BY_NONE && !strcmp(r->hists[k].id, h->id));
		if (!dup)
			histogram(out, "ptecheck_distribution", keys, vals, 2, h, OTHER_BUCKET_MAX,
				  0);
	}
}

/* The batch histograms and mremap latency, then every other one. */
static void histograms(FILE *out, const struct pc_report *r)
{
	static const char *const keys[] = {"context", "source"};
	const struct pc_hist_report *latency = NULL;

	family(out, "ptecheck_batch_ptes", "histogram",
	       "PTEs per batch of the kernel's batched page-table paths, by context and source.");
	for (int i = 0; i < r->n_hists; i++) {
		const struct pc_hist_report *h = &r->hists[i];
		const char *vals[] = {h->batch_ctx, h->batch_src};

		if (h->by == PC_BY_NONE && !strcmp(h->id, LATENCY_ID))
			latency = h;
		if (h->by != PC_BY_NONE || h->kind != PC_HIST_LINLOG || !*h->batch_ctx ||
		    batch_seen(r, i))
			continue;
		histogram(out, "ptecheck_batch_ptes", keys, vals, 2, h, PTES_BUCKET_MAX, 0);
	}
	family(out, "ptecheck_mremap_latency_seconds", "histogram",
	       "Time from mremap's entry to its exit, per call.");
	if (latency)
		histogram(out, "ptecheck_mremap_latency_seconds", NULL, NULL, 0, latency,
			  NS_BUCKET_MAX, 9);
	other_histograms(out, r);
}

/* up, the start time, the build and the sampling: one sample each. */
/* The tracing object: what the kernel refused (a failure of ptecheck's,
   to alert on), each program's instructions verified (the budget, 200000,
   docs/performance.md). */
static void bpf_info(FILE *out, const struct pc_report *r)
{
	static const char *const keys[] = {"program"};

	family(out, "ptecheck_bpf_programs_refused", "gauge",
	       "Programs of ptecheck's the kernel refused: their parts are off, their checks "
	       "and histograms missing (the exporter's log says which and why).");
	fprintf(out, "ptecheck_bpf_programs_refused %d\n", r->bpf.n_refused);
	family(out, "ptecheck_bpf_verified_instructions", "gauge",
	       "Instructions the kernel's verifier processed for each loaded program.");
	for (int i = 0; i < r->bpf.n_progs; i++) {
		const char *vals[] = {r->bpf.progs[i].name};

		fputs("ptecheck_bpf_verified_instructions", out);
		labels(out, 1, keys, vals, NULL);
		fprintf(out, " %u\n", r->bpf.progs[i].verified_insns);
	}
}

static void info(FILE *out, const struct pc_metrics_src *m)
{
	static const char *const keys[] = {"version", "kernel_release", "machine"};
	const char *vals[] = {PTECHECK_VERSION, m->r->kernel_release, m->r->machine};

	family(out, "ptecheck_up", "gauge", "1 while the exporter traces.");
	fputs("ptecheck_up 1\n", out);
	family(out, "ptecheck_start_time_seconds", "gauge",
	       "When the exporter started, in seconds since the Unix epoch.");
	fprintf(out, "ptecheck_start_time_seconds %.3f\n", m->start_time);
	family(out, "ptecheck_build_info", "gauge", "1, with ptecheck's version and the kernel's.");
	fputs("ptecheck_build_info", out);
	labels(out, 3, keys, vals, NULL);
	fputs(" 1\n", out);
	family(out, "ptecheck_sample_every", "gauge",
	       "Windows judged and page-table walks made: 1 in this many of each kind, per CPU "
	       "(--sample; 1: all).  The derived batch histograms (a walk gives them) "
	       "count those only.");
	fprintf(out, "ptecheck_sample_every %u\n", m->r->sample_every ? m->r->sample_every : 1);
	bpf_info(out, m->r);
}

int pc_metrics_write(const struct pc_metrics_src *m, FILE *out)
{
	int err;

	info(out, m);
	results(out, m->r);
	family(out, "ptecheck_events_lost_total", "counter",
	       "Violation records the ring buffer had no room for.");
	fprintf(out, "ptecheck_events_lost_total %llu\n",
		(unsigned long long)(m->r->n_stats > PC_STAT_EVENTS_DROPPED
					     ? m->r->stats[PC_STAT_EVENTS_DROPPED]
					     : 0));
	err = splats(out, m->klog);
	if (err)
		return err;
	histograms(out, m->r);
	return ferror(out) ? -EIO : 0;
}
