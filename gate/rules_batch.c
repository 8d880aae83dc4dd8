// SPDX-License-Identifier: GPL-2.0
/*
 * ptecheck gate: batching-regression.  It judges what the kernel decided
 * given its inputs, against the noise one run of one kernel shows
 * (docs/gate.md, "Noise"):
 *
 *  - per batch histogram (one per path: "fork PTEs per batch (...)",
 *    "munmap PTEs per large-folio run (derived)", mremap's), its mean
 *    batch size and its share of batches reaching the baseline's mode (a
 *    regression that moves batches off the mode can keep the mean);
 *  - per folio order, the share of fault-around batches of large folios
 *    that mapped all they could (pc_fault_batch_cap): not the raw mean of
 *    PTEs per set_pte_range, which follows the mix of folio orders the
 *    allocator handed out.
 *
 * A drop beyond the tolerance fails only beyond the noise floor of the
 * runs given (the floor of one run over the square root of the runs per
 * side, or the sampling noise of the sides' own counts where that is
 * larger: sampling.c) and, with two or more runs per side, beyond their
 * spread; a drop
 * within the noise is "not judged", with the runs that would settle it,
 * and so is a histogram with fewer batches on a side than the policy's
 * batch_min_batches.
 */
#include <math.h>
#include <stdlib.h>
#include "gate_like.h"

/* One statistic compared between the sides. */
struct stat_cmp {
	char what[192];	   /* "mremap PTEs per batch mean", "... order 4" */
	const char *vunit; /* of the values: "" (a mean) or "%" (a share) */
	const char *unit;  /* of the change: "%" (relative) or " pp" (points of a share) */
	double base, cand;
	double delta;	 /* candidate - baseline, in unit */
	double floor;	 /* the noise of one run, in unit */
	double sampling; /* the noise of the sides' own counts, in unit (sampling.c) */
	__u64 nb, nc;	 /* their batches */
	bool have_spread;
	double blo, bhi, clo, chi; /* per-run values of each side */
};

/* What a comparison came to. */
enum cmp_outcome { CMP_OK, CMP_IMPROVED, CMP_NOISE, CMP_SPREAD, CMP_REGRESSED };

static int min_runs(const struct pc_gate_group *g)
{
	return g->base.n_runs < g->cand.n_runs ? g->base.n_runs : g->cand.n_runs;
}

/* The floor for n runs per side: the median of n runs is less noisy. */
static double floor_for(double one_run, int n)
{
	return n > 1 ? one_run / sqrt((double)n) : one_run;
}

/* The noise a change of s is judged against: the runs' floor, or what its
   counts alone allow when that is larger (few batches). */
static double noise_of(const struct stat_cmp *s, int n)
{
	double f = floor_for(s->floor, n);

	return s->sampling > f ? s->sampling : f;
}

/* The noise s was judged against, in words: "noise of 1 run 10.0 pp" or
   "sampling noise of 12 and 9 batches 61.2 pp"; paren: the figure in
   parentheses, "noise of 1 run per side (10.0 pp)". */
static const char *noise_words(char *buf, size_t len, const struct stat_cmp *s, int n, bool paren)
{
	const char *open = paren ? " (" : " ", *close = paren ? ")" : "";

	if (s->sampling > floor_for(s->floor, n))
		snprintf(buf, len, "sampling noise of %llu and %llu batches%s%.1f%s%s",
			 (unsigned long long)s->nb, (unsigned long long)s->nc, open, s->sampling,
			 s->unit, close);
	else
		snprintf(buf, len, "noise of %d run%s%s%s%.1f%s%s", n, n == 1 ? "" : "s",
			 paren ? " per side" : "", open, floor_for(s->floor, n), s->unit, close);
	return buf;
}

/* Runs per side that bring the floor below a change of size d. */
static int runs_needed(double one_run, double d)
{
	double n = d > 0 ? ceil((one_run / d) * (one_run / d)) : 1000;

	return n < 2 ? 2 : n > 1000 ? 1000 : (int)n;
}

static enum cmp_outcome compare(const struct stat_cmp *s, double tol, int n)
{
	double floor = noise_of(s, n), thr = tol > floor ? tol : floor;

	if (s->delta < -tol) {
		if (n >= 2 && s->have_spread && s->chi >= s->blo)
			return CMP_SPREAD;
		return -s->delta <= floor ? CMP_NOISE : CMP_REGRESSED;
	}
	return s->delta > thr ? CMP_IMPROVED : CMP_OK;
}

/* The finding of a comparison that did not regress; 1 when its drop was
   within the noise (the rule cannot tell then). */
static int note_outcome(struct pc_gate_rule_result *rr, const struct stat_cmp *s,
			enum cmp_outcome o, double tol, int n)
{
	char words[128];

	switch (o) {
	case CMP_IMPROVED:
		pc_gate_add_improvement(rr, "batching improved: %s %.1f%s -> %.1f%s (%+.1f%s)",
					s->what, s->base, s->vunit, s->cand, s->vunit, s->delta,
					s->unit);
		pc_gate_add_finding(rr, false, "%s %.1f%s -> %.1f%s (improved)", s->what, s->base,
				    s->vunit, s->cand, s->vunit);
		return 0;
	case CMP_SPREAD:
		pc_gate_add_finding(rr, false,
				    "%s %.1f%s -> %.1f%s (%+.1f%s) within the runs' spread "
				    "(baseline %.1f..%.1f, candidate %.1f..%.1f)",
				    s->what, s->base, s->vunit, s->cand, s->vunit, s->delta,
				    s->unit, s->blo, s->bhi, s->clo, s->chi);
		return 0;
	case CMP_NOISE:
		/* More runs per side narrow both: the floor as the square root of
		   the runs, the sampling noise as that of the batches they add. */
		pc_gate_add_finding(rr, false,
				    "not judged: %s %.1f%s -> %.1f%s (%+.1f%s) is within the %s; "
				    "run %d times per side",
				    s->what, s->base, s->vunit, s->cand, s->vunit, s->delta,
				    s->unit, noise_words(words, sizeof(words), s, n, true),
				    runs_needed(noise_of(s, n) * sqrt((double)n), -s->delta));
		return 1;
	default:
		pc_gate_add_finding(rr, false, "%s %.1f%s -> %.1f%s (%+.1f%s, within %g%s)",
				    s->what, s->base, s->vunit, s->cand, s->vunit, s->delta,
				    s->unit, tol, s->unit);
		return 0;
	}
}

/* Compares s: 1 when it regressed (the caller words the reason), else 0
   with its finding (and *noise counted when the drop was within it). */
static int judge(struct pc_gate_group *g, const struct stat_cmp *s, double tol, int *noise)
{
	enum cmp_outcome o = compare(s, tol, min_runs(g));

	if (o == CMP_REGRESSED)
		return 1;
	*noise += note_outcome(&g->rules[PC_GATE_RULE_BATCHING], s, o, tol, min_runs(g));
	return 0;
}

/* The reason of a regressed statistic of a histogram; also: the other one. */
static struct pc_gate_finding *regressed(struct pc_gate_group *g, const struct stat_cmp *s,
					 double tol, const char *also)
{
	char words[128];

	return pc_gate_add_finding(&g->rules[PC_GATE_RULE_BATCHING], true,
				   "batching regressed: %s %.1f%s -> %.1f%s (%+.1f%s, tolerance "
				   "%g%s, %s)%s",
				   s->what, s->base, s->vunit, s->cand, s->vunit, s->delta, s->unit,
				   tol, s->unit,
				   noise_words(words, sizeof(words), s, min_runs(g), false), also);
}

/* ---- per-run spreads ------------------------------------------------------- */

/* What a statistic is of, in one run: a histogram (and the baseline's mode)
   or a folio order. */
struct stat_of {
	const char *id;
	int slot;
	const struct pc_gate_policy *pol;
};

/* A statistic of one run; false when the run cannot give it. */
typedef bool (*run_stat_fn)(const struct pc_report *r, const struct stat_of *of, double *v);

/* The smallest and largest per-run value on one side; false when a run
   cannot give it. */
static bool run_range(const struct pc_gate_side *side, run_stat_fn stat, const struct stat_of *of,
		      double *lo, double *hi)
{
	for (int r = 0; r < side->n_runs; r++) {
		double v;

		if (!stat(side->runs[r], of, &v))
			return false;
		if (r == 0 || v < *lo)
			*lo = v;
		if (r == 0 || v > *hi)
			*hi = v;
	}
	return side->n_runs > 0;
}

/* Both sides' per-run ranges of a statistic into s. */
static void spread(struct stat_cmp *s, const struct pc_gate_group *g, run_stat_fn stat,
		   const struct stat_of *of)
{
	s->have_spread = run_range(&g->base, stat, of, &s->blo, &s->bhi) &&
			 run_range(&g->cand, stat, of, &s->clo, &s->chi);
}

/* ---- per batch histogram: its mean and its share of the baseline's mode ---- */

/*
 * The value a batch in slot i stands for: exact for the linear buckets
 * (1..16), the midpoint for log2 ones, the low bound for the last
 * (open-ended) slot.
 */
long double pc_gate_slot_mid(const struct pc_hist_report *h, int i)
{
	__u64 lo = pc_hist_slot_low(h->kind, i), hi = pc_hist_slot_high(h->kind, i);

	return i == PC_HIST_SLOTS - 1 ? (long double)lo : ((long double)lo + (long double)hi) / 2;
}

/* Count-weighted mean of the bucket midpoints. */
double pc_gate_hist_mean(const struct pc_hist_report *h)
{
	long double sum = 0, n = 0;

	for (int i = 0; i < PC_HIST_SLOTS; i++) {
		sum += pc_gate_slot_mid(h, i) * h->slots[i];
		n += h->slots[i];
	}
	return n > 0 ? (double)(sum / n) : 0.0;
}

int pc_gate_hist_mode(const struct pc_hist_report *h)
{
	int m = 0;

	for (int i = 1; i < PC_HIST_SLOTS; i++)
		if (h->slots[i] >= h->slots[m])
			m = i;
	return m;
}

__u64 pc_gate_count_from(const struct pc_hist_report *h, int from)
{
	__u64 n = 0;

	for (int i = from; i < PC_HIST_SLOTS; i++)
		n += h->slots[i];
	return n;
}

double pc_gate_share_from(const struct pc_hist_report *h, int from)
{
	__u64 t = pc_hist_report_total(h);

	return t ? 100.0 * (double)pc_gate_count_from(h, from) / (double)t : 0;
}

/* Whether the share of a mode is judged: not when the mode holds batches
   of one PTE (no batching to lose there; the mean judges the rest). */
bool pc_gate_mode_judged(const struct pc_hist_report *h, int mode)
{
	return pc_hist_slot_high(h->kind, mode) > 1;
}

static double slot_pct(const struct pc_hist_report *h, int slot)
{
	__u64 t = pc_hist_report_total(h);

	return t ? 100.0 * (double)h->slots[slot] / (double)t : 0;
}

static bool run_mean(const struct pc_report *r, const struct stat_of *of, double *v)
{
	const struct pc_hist_report *h = pc_report_find_hist(r, of->id);

	if (!h || !pc_hist_report_total(h))
		return false;
	*v = pc_gate_hist_mean(h);
	return true;
}

static bool run_mode_share(const struct pc_report *r, const struct stat_of *of, double *v)
{
	const struct pc_hist_report *h = pc_report_find_hist(r, of->id);

	if (!h || !pc_hist_report_total(h))
		return false;
	*v = pc_gate_share_from(h, of->slot);
	return true;
}

/*
 * The evidence of a drop: the baseline's largest bucket on both sides and
 * the buckets that held at least 0.5% of the baseline's batches and none
 * of the candidate's.
 */
static char *mean_evidence(const struct pc_hist_report *ch, const struct pc_hist_report *bh)
{
	char buf[PC_GATE_MSG_MAX];
	int top = -1, used, gone = 0;

	for (int i = PC_HIST_SLOTS - 1; i >= 0 && top < 0; i--)
		if (bh->slots[i])
			top = i;
	if (top < 0)
		return NULL;
	used = snprintf(buf, sizeof(buf),
			"largest baseline bucket %llu%s %s: %.1f%% of %llu -> "
			"%.1f%% of %llu",
			(unsigned long long)pc_hist_slot_low(bh->kind, top),
			pc_hist_slot_high(bh->kind, top) > pc_hist_slot_low(bh->kind, top) ? "+"
											   : "",
			bh->unit, slot_pct(bh, top), (unsigned long long)pc_hist_report_total(bh),
			slot_pct(ch, top), (unsigned long long)pc_hist_report_total(ch));
	for (int i = PC_HIST_SLOTS - 1; i >= 0 && used < (int)sizeof(buf) - 64; i--) {
		if (ch->slots[i] || slot_pct(bh, i) < 0.5)
			continue;
		used += snprintf(buf + used, sizeof(buf) - used, "%s%llu %s (%.1f%% -> 0)",
				 gone++ ? ", " : "; buckets gone: ",
				 (unsigned long long)pc_hist_slot_low(bh->kind, i), bh->unit,
				 slot_pct(bh, i));
	}
	return strdup(buf);
}

/* The evidence of a share's drop: the counts reaching the mode, and in it. */
static char *share_evidence(const struct pc_hist_report *ch, const struct pc_hist_report *bh,
			    int mode)
{
	char buf[PC_GATE_MSG_MAX], lo[32];

	snprintf(lo, sizeof(lo), "%llu%s %s", (unsigned long long)pc_hist_slot_low(bh->kind, mode),
		 pc_hist_slot_high(bh->kind, mode) > pc_hist_slot_low(bh->kind, mode) ? "+" : "",
		 bh->unit);
	snprintf(buf, sizeof(buf),
		 "batches of %llu %s or more: %llu of %llu -> %llu of %llu; in the mode bucket %s: "
		 "%.1f%% -> %.1f%%",
		 (unsigned long long)pc_hist_slot_low(bh->kind, mode), bh->unit,
		 (unsigned long long)pc_gate_count_from(bh, mode),
		 (unsigned long long)pc_hist_report_total(bh),
		 (unsigned long long)pc_gate_count_from(ch, mode),
		 (unsigned long long)pc_hist_report_total(ch), lo, slot_pct(bh, mode),
		 slot_pct(ch, mode));
	return strdup(buf);
}

/* Events in the candidate only: newly observable is not better unless it batches. */
static void batch_new(struct pc_gate_rule_result *rr, const struct pc_hist_report *ch,
		      const struct pc_hist_report *bh, double tol)
{
	double cm = pc_gate_hist_mean(ch);

	if (cm > 1.0 + tol)
		pc_gate_add_improvement(rr,
					"batching improved: %s now observed, mean %.1f (%s in the "
					"baseline)",
					ch->name, cm, bh ? "no events" : "absent");
	else
		pc_gate_add_finding(rr, false,
				    "%s now observed, mean %.1f: no batching (%s in the baseline)",
				    ch->name, cm, bh ? "no events" : "absent");
}

/* A histogram on both sides: its two statistics, each saying the other. */
struct hist_cmp {
	const struct pc_hist_report *ch, *bh;
	int mode;
	bool share_judged;
	struct stat_cmp mean, share;
	char mean_also[192], share_also[64];
};

static void hist_cmp_init(struct hist_cmp *hc, const struct pc_gate_group *g,
			  const struct pc_gate_policy *pol)
{
	struct stat_cmp *m = &hc->mean, *s = &hc->share;
	const struct stat_of of_mean = {.id = hc->ch->id};
	const struct stat_of of_share = {.id = hc->ch->id, .slot = hc->mode};

	*m = (struct stat_cmp){
		.vunit = "", .unit = "%", .floor = pc_gate_noise_floor(pol, hc->ch->id)};
	snprintf(m->what, sizeof(m->what), "%s mean", hc->ch->name);
	m->base = pc_gate_hist_mean(hc->bh);
	m->cand = pc_gate_hist_mean(hc->ch);
	m->delta = m->base > 0 ? 100.0 * (m->cand - m->base) / m->base : 0;
	m->nb = pc_hist_report_total(hc->bh);
	m->nc = pc_hist_report_total(hc->ch);
	m->sampling = pc_gate_mean_sampling_pct(hc->bh, hc->ch, pol->batch_sampling_sigmas);
	spread(m, g, run_mean, &of_mean);
	*s = (struct stat_cmp){
		.vunit = "%", .unit = " pp", .floor = pc_gate_share_noise_floor(pol, hc->ch->id)};
	snprintf(s->what, sizeof(s->what),
		 "%s share of batches of %llu %s or more (the baseline's mode)", hc->ch->name,
		 (unsigned long long)pc_hist_slot_low(hc->bh->kind, hc->mode), hc->bh->unit);
	s->base = pc_gate_share_from(hc->bh, hc->mode);
	s->cand = pc_gate_share_from(hc->ch, hc->mode);
	s->delta = s->cand - s->base;
	s->nb = m->nb;
	s->nc = m->nc;
	s->sampling = pc_gate_share_sampling_pp(pc_gate_count_from(hc->bh, hc->mode), s->nb,
						pc_gate_count_from(hc->ch, hc->mode), s->nc,
						pol->batch_sampling_sigmas);
	spread(s, g, run_mode_share, &of_share);
	snprintf(hc->share_also, sizeof(hc->share_also), "; mean %.1f -> %.1f", m->base, m->cand);
	hc->mean_also[0] = 0;
	if (hc->share_judged)
		snprintf(hc->mean_also, sizeof(hc->mean_also),
			 "; share of batches of %llu %s or more %.1f%% -> %.1f%%",
			 (unsigned long long)pc_hist_slot_low(hc->bh->kind, hc->mode), hc->bh->unit,
			 s->base, s->cand);
}

/* A histogram with enough batches on both sides: its regressions (0..2). */
static int hist_compare(struct pc_gate_group *g, const struct pc_gate_policy *pol,
			const struct pc_hist_report *ch, const struct pc_hist_report *bh,
			int *noise)
{
	struct hist_cmp hc = {.ch = ch, .bh = bh, .mode = pc_gate_hist_mode(bh)};
	double tol = pol->batching_tolerance_pct;
	struct pc_gate_finding *f;
	int found = 0;

	/* A slot of another kind holds other sizes: only the means compare. */
	hc.share_judged = ch->kind == bh->kind && pc_gate_mode_judged(bh, hc.mode);
	hist_cmp_init(&hc, g, pol);
	if (judge(g, &hc.mean, tol, noise)) {
		f = regressed(g, &hc.mean, tol, hc.mean_also);
		if (f)
			f->evidence = mean_evidence(ch, bh);
		found++;
	}
	if (hc.share_judged && judge(g, &hc.share, tol, noise)) {
		f = regressed(g, &hc.share, tol, hc.share_also);
		if (f)
			f->evidence = share_evidence(ch, bh, hc.mode);
		found++;
	}
	return found;
}

/* The fewer batches of the two sides (the candidate's alone when only it
   has events) below batch_min_batches: true, with the note. */
static bool too_few(struct pc_gate_rule_result *rr, const struct pc_gate_policy *pol,
		    const struct pc_hist_report *ch, const struct pc_hist_report *bh)
{
	__u64 c = pc_hist_report_total(ch), b = pc_hist_report_total(bh);
	bool cand_fewer = !b || c <= b;

	if ((cand_fewer ? c : b) >= (__u64)pol->batch_min_batches)
		return false;
	pc_gate_add_finding(rr, false,
			    "not judged: %s: %llu batches < %d (batch_min_batches) in the %s "
			    "(baseline %llu, candidate %llu)",
			    ch->name, (unsigned long long)(cand_fewer ? c : b),
			    pol->batch_min_batches, cand_fewer ? "candidate" : "baseline",
			    (unsigned long long)b, (unsigned long long)c);
	return true;
}

/* ---- per folio order: batches that mapped all they could ----------------- */

void pc_gate_order_counts(const struct pc_report *r, const struct pc_gate_policy *pol, int k,
			  __u64 *all, __u64 *full)
{
	const struct pc_hist_report *a = pc_report_find_hist(r, pol->order_all);
	const struct pc_hist_report *f = pc_report_find_hist(r, pol->order_full);

	*all = a && a->kind == PC_HIST_LINLOG ? a->slots[k] : 0;
	*full = f && f->kind == PC_HIST_LINLOG ? f->slots[k] : 0;
	if (*full > *all)
		*full = *all;
}

bool pc_gate_order_share(const struct pc_report *r, const struct pc_gate_policy *pol, int k,
			 double *share)
{
	__u64 all, full;

	pc_gate_order_counts(r, pol, k, &all, &full);
	if (!all || all < (__u64)pol->order_min_batches)
		return false;
	*share = 100.0 * (double)full / (double)all;
	return true;
}

static bool run_order_share(const struct pc_report *r, const struct stat_of *of, double *v)
{
	return pc_gate_order_share(r, of->pol, of->slot, v);
}

/* Order k with enough batches on both sides: 1 if it regressed. */
static int order_compare(struct pc_gate_group *g, const struct pc_gate_policy *pol, int k,
			 int *noise)
{
	struct pc_gate_rule_result *rr = &g->rules[PC_GATE_RULE_BATCHING];
	struct stat_cmp s = {.vunit = "%", .unit = " pp", .floor = pol->order_noise_pp};
	const struct stat_of of = {.slot = k, .pol = pol};
	double tol = pol->batching_tolerance_pct;
	__u64 ba, bf, ca, cf;
	struct pc_gate_finding *f;
	char buf[PC_GATE_MSG_MAX], words[128];

	pc_gate_order_counts(g->base.merged, pol, k, &ba, &bf);
	pc_gate_order_counts(g->cand.merged, pol, k, &ca, &cf);
	snprintf(s.what, sizeof(s.what), "%s: order %d (%llu KiB) share", pol->order_full, k,
		 4ULL << k);
	s.base = 100.0 * (double)bf / (double)ba;
	s.cand = 100.0 * (double)cf / (double)ca;
	s.delta = s.cand - s.base;
	s.nb = ba;
	s.nc = ca;
	s.sampling = pc_gate_share_sampling_pp(bf, ba, cf, ca, pol->batch_sampling_sigmas);
	spread(&s, g, run_order_share, &of);
	if (!judge(g, &s, tol, noise))
		return 0;
	f = pc_gate_add_finding(
		rr, true,
		"batching regressed: fault-around batches of order %d folios that "
		"mapped all they could %.1f%% -> %.1f%% (%+.1f pp, tolerance %g pp, "
		"%s)",
		k, s.base, s.cand, s.delta, tol,
		noise_words(words, sizeof(words), &s, min_runs(g), false));
	snprintf(buf, sizeof(buf),
		 "order %d (%llu KiB folios): %llu of %llu batches reached their cap -> %llu of "
		 "%llu",
		 k, 4ULL << k, (unsigned long long)bf, (unsigned long long)ba,
		 (unsigned long long)cf, (unsigned long long)ca);
	if (f)
		f->evidence = strdup(buf);
	return 1;
}

/* ---- the rule -------------------------------------------------------------- */

/* The rule over g's sides as they are (the runs, or like.c's views). */
static void batching_judge(struct pc_gate_group *g, const struct pc_gate_policy *pol)
{
	struct pc_gate_rule_result *rr = &g->rules[PC_GATE_RULE_BATCHING];
	int found = 0, compared = 0, noise = 0, tiny = 0;

	for (int i = 0; i < g->cand.merged->n_hists; i++) {
		const struct pc_hist_report *ch = &g->cand.merged->hists[i];
		const struct pc_hist_report *bh = pc_report_find_hist(g->base.merged, ch->id);

		if (!pc_gate_is_mean_hist(pol, ch->id) || !pc_hist_report_total(ch))
			continue;
		if (too_few(rr, pol, ch, bh)) {
			tiny++;
			continue;
		}
		if (!bh || !pc_hist_report_total(bh)) {
			batch_new(rr, ch, bh, pol->batching_tolerance_pct / 100.0);
			continue;
		}
		compared++;
		found += hist_compare(g, pol, ch, bh, &noise);
	}
	for (int k = 1; k <= PC_HIST_LINEAR_MAX && pol->order_all[0]; k++) {
		double b, c;

		if (!pc_gate_order_share(g->base.merged, pol, k, &b) ||
		    !pc_gate_order_share(g->cand.merged, pol, k, &c))
			continue;
		compared++;
		found += order_compare(g, pol, k, &noise);
	}
	if (!compared && tiny) {
		pc_gate_not_judged(rr,
				   "%d batch histogram%s with fewer than %d batches on a side "
				   "(batch_min_batches), none with more",
				   tiny, tiny == 1 ? "" : "s", pol->batch_min_batches);
		return;
	}
	if (!compared) {
		pc_gate_not_judged(rr,
				   "no batch histogram with events in both baseline and candidate");
		return;
	}
	if (!found && noise) {
		pc_gate_not_judged(rr,
				   "%d drop%s within the noise of %d run%s per side: see the "
				   "findings for the runs that would settle %s",
				   noise, noise == 1 ? "" : "s", min_runs(g),
				   min_runs(g) == 1 ? "" : "s", noise == 1 ? "it" : "them");
		return;
	}
	pc_gate_settle(rr, found, pol->batching_regression);
}

/* Reports without per-scenario histograms: the run-wide ones, only when
   both sides judged the same scenarios. */
static void batching_run_wide(struct pc_gate_group *g, const struct pc_gate_policy *pol,
			      struct pc_gate_like *l)
{
	struct pc_gate_rule_result *rr = &g->rules[PC_GATE_RULE_BATCHING];

	if (pc_gate_mix_differs(g, l)) {
		pc_gate_not_judged(
			rr,
			"the two sides judged different scenarios (only in the baseline: "
			"%s; only in the candidate: %s) and a side's reports have no "
			"per-scenario histograms (report schema 7): the run-wide "
			"histograms would compare the mix, not the kernel",
			l->n_only_base ? l->only_base : "none",
			l->n_only_cand ? l->only_cand : "none");
		return;
	}
	pc_gate_add_finding(rr, false,
			    "run-wide histograms (a side's reports have no per-scenario ones); "
			    "both sides judged the same scenarios");
	batching_judge(g, pol);
}

void pc_gate_rule_batching(struct pc_gate_group *g, const struct pc_gate_policy *pol)
{
	struct pc_gate_rule_result *rr = &g->rules[PC_GATE_RULE_BATCHING];
	struct pc_gate_group view;
	struct pc_gate_like l;

	if (pc_gate_no_baseline(g, rr))
		return;
	if (pc_gate_like_build(g, &l)) {
		/* Never a pass on what could not be compared. */
		pc_gate_add_finding(rr, true, "out of memory comparing like with like");
		pc_gate_settle(rr, 1, PC_GATE_ACTION_FAIL);
	} else if (!l.available) {
		batching_run_wide(g, pol, &l);
	} else if (!l.n_common) {
		pc_gate_not_judged(rr,
				   "no scenario judged a check in every run of both sides (only in "
				   "the baseline: %s; only in the candidate: %s)",
				   l.n_only_base ? l.only_base : "none",
				   l.n_only_cand ? l.only_cand : "none");
	} else {
		pc_gate_add_finding(rr, false,
				    "like with like: each histogram summed over the %d scenarios "
				    "judged in every run of both sides",
				    l.n_common);
		if (l.n_only_base || l.n_only_cand)
			pc_gate_add_finding(rr, false,
					    "not compared, judged on one side only: %d in the "
					    "baseline (%s), %d in the candidate (%s)",
					    l.n_only_base, l.n_only_base ? l.only_base : "none",
					    l.n_only_cand, l.n_only_cand ? l.only_cand : "none");
		pc_gate_like_group(g, &l, &view);
		batching_judge(&view, pol);
		g->rules[PC_GATE_RULE_BATCHING] = view.rules[PC_GATE_RULE_BATCHING];
	}
	pc_gate_like_free(&l);
}
