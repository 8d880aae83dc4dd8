// SPDX-License-Identifier: GPL-2.0
/*
 * ptecheck gate, HTML: one self-contained page (no scripts, no external
 * resources) with the decision, the rules, the batch and latency
 * histograms of both sides as inline SVG, and the checks.
 */
#include "gate_output.h"

static const char html_style[] =
	"body{font-family:sans-serif;margin:1.5em;color:#222}"
	"h1.ship{color:#1a7f37}h1.noship{color:#c62828}"
	"table{border-collapse:collapse;margin:.5em 0}"
	"td,th{border:1px solid #ccc;padding:2px 8px;text-align:left;font-size:90%}"
	".pass{background:#e6f4ea}.fail{background:#fde7e9}.warn{background:#fff4ce}"
	".skip,.missing,.not-judged{background:#eee}"
	".charts{display:flex;flex-wrap:wrap;gap:1.5em}.chart{font-size:85%}"
	"li.problem{color:#c62828}.ev{color:#555;font-family:monospace}";

static const char *short_num(__u64 v, char *buf, size_t sz)
{
	static const char units[] = "KMGTPE";
	int u = -1;

	while (v >= 1024 && !(v & 1023) && u < 5) {
		v >>= 10;
		u++;
	}
	/* Two plain calls: GCC 12's printf checker crashes on "%.*s" here
	   under -fsanitize (an internal compiler error). */
	if (u >= 0)
		snprintf(buf, sz, "%llu%c", (unsigned long long)v, units[u]);
	else
		snprintf(buf, sz, "%llu", (unsigned long long)v);
	return buf;
}

/* One side's bars as shares of its total, over the slots [first, last] both sides use. */
static void svg_hist(struct pc_out *o, const char *title, const struct pc_hist_report *h,
		     __u32 kind, int first, int last, double ymax)
{
	const int bw = 22, ph = 120, top = 20, bottom = 44, left = 36;
	int n = last - first + 1, i, w = left + n * bw + 10;
	__u64 t = pc_hist_report_total(h);
	char num[32];

	pc_outf(o,
		"<div class=\"chart\"><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		"height=\"%d\" role=\"img\"><title>%s</title>",
		w, top + ph + bottom, ESC_XML(title));
	pc_outf(o, "<text x=\"%d\" y=\"14\" font-size=\"12\">%s (%llu events)</text>", left,
		ESC_XML(title), (unsigned long long)t);
	pc_outf(o, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#888\"/>", left,
		top + ph, w - 5, top + ph);
	pc_outf(o, "<text x=\"2\" y=\"%d\" font-size=\"10\">%.0f%%</text>", top + 8, ymax);
	pc_outf(o, "<text x=\"2\" y=\"%d\" font-size=\"10\">0%%</text>", top + ph);
	for (i = 0; i < n; i++) {
		int slot = first + i;
		__u64 cnt = h ? h->slots[slot] : 0;
		double share = t ? 100.0 * (double)cnt / (double)t : 0;
		int bh = ymax > 0 ? (int)(share / ymax * ph + 0.5) : 0;
		__u64 lo = pc_hist_slot_low(kind, slot), hi = pc_hist_slot_high(kind, slot);

		if (cnt && bh < 1)
			bh = 1;
		pc_outf(o,
			"<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#3b6fb6\">"
			"<title>%llu%s: %llu (%.1f%%)</title></rect>",
			left + i * bw + 2, top + ph - bh, bw - 4, bh, (unsigned long long)lo,
			hi > lo ? "+" : "", (unsigned long long)cnt, share);
		pc_outf(o,
			"<text x=\"%d\" y=\"%d\" font-size=\"9\" text-anchor=\"end\" "
			"transform=\"rotate(-60 %d %d)\">%s%s</text>",
			left + i * bw + bw / 2 + 3, top + ph + 12, left + i * bw + bw / 2 + 3,
			top + ph + 12, short_num(lo, num, sizeof(num)), hi > lo ? "+" : "");
	}
	pc_outf(o, "</svg></div>\n");
}

static void html_hist_pair(struct pc_out *o, const struct pc_gate_group *grp, const char *name)
{
	const struct pc_hist_report *bh = pc_report_find_hist(grp->base.merged, name);
	const struct pc_hist_report *ch = pc_report_find_hist(grp->cand.merged, name);
	const struct pc_hist_report *any = ch ? ch : bh;
	int first = PC_HIST_SLOTS, last = -1, i;
	double ymax = 0;
	char title[160];

	if (!any)
		return;
	/* Both sides on one x axis; a kind mismatch draws each on the candidate's. */
	for (i = 0; i < PC_HIST_SLOTS; i++) {
		__u64 t;

		if ((bh && bh->slots[i]) || (ch && ch->slots[i])) {
			first = i < first ? i : first;
			last = i;
		}
		t = pc_hist_report_total(bh);
		if (bh && t && 100.0 * (double)bh->slots[i] / (double)t > ymax)
			ymax = 100.0 * (double)bh->slots[i] / (double)t;
		t = pc_hist_report_total(ch);
		if (ch && t && 100.0 * (double)ch->slots[i] / (double)t > ymax)
			ymax = 100.0 * (double)ch->slots[i] / (double)t;
	}
	pc_outf(o, "<h4>%s (%s)</h4>\n", ESC_XML(name), ESC_XML(any->unit));
	if (last < 0) {
		pc_outf(o, "<p>no events on either side</p>\n");
		return;
	}
	pc_outf(o, "<div class=\"charts\">\n");
	snprintf(title, sizeof(title), "baseline%s", bh ? "" : ": absent");
	svg_hist(o, title, bh, any->kind, first, last, ymax);
	snprintf(title, sizeof(title), "candidate%s", ch ? "" : ": absent");
	svg_hist(o, title, ch, any->kind, first, last, ymax);
	pc_outf(o, "</div>\n");
}

static void html_rule(struct pc_out *o, const struct pc_gate_rule_result *rr)
{
	int k;

	pc_outf(o, "<tr class=\"%s\"><td>%s</td><td>%s", pc_gate_verdict_name(rr->verdict),
		pc_gate_rule_name(rr->rule), pc_gate_verdict_tag(rr->verdict));
	if (rr->not_judged)
		pc_outf(o, ": %s", ESC_XML(rr->not_judged));
	pc_outf(o, "</td><td><ul>");
	for (k = 0; k < rr->n_findings; k++) {
		const struct pc_gate_finding *f = &rr->findings[k];

		pc_outf(o, "<li%s>%s", f->problem ? " class=\"problem\"" : "", ESC_XML(f->text));
		if (f->evidence)
			pc_outf(o, "<br><span class=\"ev\">%s</span>", ESC_XML(f->evidence));
		pc_outf(o, "</li>");
	}
	for (k = 0; k < rr->n_improvements; k++)
		pc_outf(o, "<li>+ %s</li>", ESC_XML(rr->improvements[k]));
	pc_outf(o, "</ul></td></tr>\n");
}

/* The decision, its reasons and the improvements. */
static void html_summary(struct pc_out *o, const struct pc_gate_result *g)
{
	int i, r, k, nimp = pc_gate_count_improvements(g);
	char label[160];

	pc_outf(o, "<h1 class=\"%s\">%s</h1>\n", g->ship ? "ship" : "noship", pc_gate_decision(g));
	pc_outf(o, "<ul>\n");
	for (i = 0; i < g->n_groups; i++) {
		const struct pc_gate_group *grp = &g->groups[i];

		pc_gate_group_label(grp, label, sizeof(label));
		for (r = 0; r < PC_GATE_RULE__COUNT; r++)
			if (grp->rules[r].verdict == PC_GATE_FAIL)
				pc_outf(o, "<li class=\"problem\">%s on %s: %s</li>\n",
					pc_gate_rule_name(r), ESC_XML(label),
					ESC_XML(pc_gate_first_problem(&grp->rules[r])));
	}
	if (g->ship)
		pc_outf(o, "<li>no rule failed</li>\n");
	pc_outf(o, "</ul>\n<h2>Improvements</h2>\n<ul>\n");
	if (!nimp)
		pc_outf(o, "<li>none</li>\n");
	for (i = 0; i < g->n_groups; i++)
		for (r = 0; r < PC_GATE_RULE__COUNT; r++)
			for (k = 0; k < g->groups[i].rules[r].n_improvements; k++)
				pc_outf(o, "<li>%s: %s</li>\n", ESC_XML(g->groups[i].machine),
					ESC_XML(g->groups[i].rules[r].improvements[k]));
	pc_outf(o, "</ul>\n");
}

/* The batch histograms and the latency one: the candidate's names first,
   then those only the baseline has. */
static void html_hists(struct pc_out *o, const struct pc_gate_policy *pol,
		       const struct pc_gate_group *grp)
{
	const struct pc_report *names[2] = {grp->cand.merged, grp->base.merged};
	int s, k;

	pc_outf(o, "<h3>Batch histograms</h3>\n");
	for (s = 0; s < 2; s++) {
		for (k = 0; names[s] && k < names[s]->n_hists; k++) {
			const char *name = names[s]->hists[k].name;

			if (!pc_gate_is_batch_hist(pol, name) &&
			    strcmp(name, pol->latency_histogram) != 0)
				continue;
			if (s == 1 && pc_report_find_hist(grp->cand.merged, name))
				continue;
			html_hist_pair(o, grp, name);
		}
	}
}

static void html_group(struct pc_out *o, const struct pc_gate_policy *pol,
		       const struct pc_gate_group *grp)
{
	char label[160], rel[512];
	int r, k;

	pc_gate_group_label(grp, label, sizeof(label));
	pc_outf(o, "<h2>%s</h2>\n", ESC_XML(label));
	pc_gate_releases(&grp->cand, rel, sizeof(rel));
	pc_outf(o, "<p>candidate: %d run(s), kernel %s<br>\n", grp->cand.n_runs, ESC_XML(rel));
	if (grp->has_baseline) {
		pc_gate_releases(&grp->base, rel, sizeof(rel));
		pc_outf(o, "baseline: %d run(s), kernel %s</p>\n", grp->base.n_runs, ESC_XML(rel));
	} else {
		pc_outf(o, "baseline: none</p>\n");
	}
	pc_outf(o, "<table><tr><th>rule</th><th>verdict</th><th>reasons</th></tr>\n");
	for (r = 0; r < PC_GATE_RULE__COUNT; r++)
		html_rule(o, &grp->rules[r]);
	pc_outf(o, "</table>\n");
	html_hists(o, pol, grp);
	pc_outf(o, "<h3>Checks</h3>\n<table><tr><th>check</th><th>tier</th>"
		   "<th>baseline</th><th>candidate</th></tr>\n");
	for (k = 0; k < grp->n_rows; k++) {
		const struct pc_gate_check_row *row = &grp->rows[k];
		const char *bs = grp->has_baseline ? pc_gate_status_name(row->base) : "-";
		const char *cs = pc_gate_status_name(row->cand);

		pc_outf(o,
			"<tr><td>%s</td><td>%s</td><td class=\"%s\">%s</td>"
			"<td class=\"%s\">%s</td></tr>\n",
			ESC_XML(row->check), ESC_XML(row->tier), bs, bs, cs, cs);
	}
	pc_outf(o, "</table>\n");
}

void pc_gate_write_html(struct pc_out *o, const void *what)
{
	const struct pc_gate_result *g = what;
	int i;

	pc_outf(o,
		"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		"<title>ptecheck gate: %s</title><style>%s</style></head><body>\n",
		pc_gate_decision(g), html_style);
	html_summary(o, g);
	for (i = 0; i < g->n_groups; i++)
		html_group(o, g->policy, &g->groups[i]);
	pc_outf(o, "</body></html>\n");
}
