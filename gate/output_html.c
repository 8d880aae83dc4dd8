// SPDX-License-Identifier: GPL-2.0
/*
 * ptecheck gate, HTML: one self-contained page (no scripts, no external
 * resources) with the decision, the rules, per group every histogram of
 * both sides as inline SVG bar charts (batch histograms, then latency),
 * and the checks with the reasons of skips.
 *
 * Titles and captions are HTML, laid out by the browser; an SVG holds only
 * bars and axis labels, whose widths are estimated generously so that no
 * label leaves its viewBox: 0.7 em a digit, 1 em anything else (DejaVu
 * Sans, the sans-serif of Debian's Chromium, has digits of 0.64 em, '+'
 * of 0.84, 'M' of 0.86, '%' of 0.95).
 */
#include <errno.h>
#include <stdlib.h>
#include "gate_output.h"

static const char html_style[] =
	"body{font-family:sans-serif;margin:1.5em;color:#222;max-width:1400px}"
	"h1.ship{color:#1a7f37}h1.noship{color:#c62828}"
	"table{border-collapse:collapse;margin:.5em 0}"
	"td,th{border:1px solid #ccc;padding:2px 8px;text-align:left;font-size:90%;"
	"vertical-align:top}"
	".pass{background:#e6f4ea}.fail{background:#fde7e9}.warn{background:#fff4ce}"
	".skip,.missing,.not-judged{background:#eee}"
	".why{color:#555;font-size:90%}table.checks{width:100%;table-layout:fixed}"
	"col.name{width:14em}"
	".hist{margin:1em 0 1.5em}.hist h4{margin:.2em 0}.hist p{margin:.2em 0;color:#555}"
	"h4.path{font-size:115%;margin:1.2em 0 .3em;border-bottom:1px solid #ccc}"
	".pair{display:grid;grid-template-columns:repeat(2,minmax(0,1fr));gap:24px}"
	".chart{min-width:0;overflow-x:auto}.chart svg{display:block;width:100%;height:auto}"
	".cap{font-size:90%;margin-bottom:2px}.judged{color:#1a5fb4;font-size:85%}"
	".side{font-weight:bold}li.problem{color:#c62828}.ev{color:#555;font-family:monospace}";

/* Chart geometry, in viewBox units (about px at the page's usual width). */
#define CH_W	    600 /* the width a chart aims at; more when bars need it */
#define CH_FS	    13	/* axis label font size */
#define CH_PLOT_H   200
#define CH_TOP	    10
#define CH_SLOT_MIN 22 /* a slot's width at least */
#define CH_BAR_MAX  56 /* a bar's width at most: few slots fill the plot */

struct chart {
	__u32 kind;
	int first, last, n; /* the slots drawn */
	double ymax;	    /* % of the y axis's top, both sides alike */
	double bw, left, bottom, w;
	bool rotate; /* x labels at -45 degrees */
};

static bool is_time_unit(const char *unit)
{
	static const char *const units[] = {"ns", "us", "\xc2\xb5s", "ms", "s"};

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(unit, units[i]))
			return true;
	return false;
}

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

/* The estimated width of a label, in viewBox units. */
static double label_width(const char *s)
{
	double em = 0;

	for (; *s; s++)
		em += *s >= '0' && *s <= '9' ? 0.7 : 1.0;
	return em * CH_FS;
}

/* "17+" for a slot holding 17..31, "4" for one holding 4 only. */
static const char *slot_label(__u32 kind, int slot, char *buf, size_t sz)
{
	__u64 lo = pc_hist_slot_low(kind, slot), hi = pc_hist_slot_high(kind, slot);

	short_num(lo, buf, sz);
	if (hi > lo)
		snprintf(buf + strlen(buf), sz - strlen(buf), "+");
	return buf;
}

static double share(const struct pc_hist_report *h, int slot)
{
	__u64 t = pc_hist_report_total(h);

	return h && t ? 100.0 * (double)h->slots[slot] / (double)t : 0;
}

/* The slots with events of h into c->first/last (widened), the top share into c->ymax. */
static void chart_range(struct chart *c, const struct pc_hist_report *h)
{
	for (int i = 0; h && i < PC_HIST_SLOTS; i++) {
		if (!h->slots[i])
			continue;
		c->first = i < c->first ? i : c->first;
		c->last = i > c->last ? i : c->last;
		c->ymax = share(h, i) > c->ymax ? share(h, i) : c->ymax;
	}
}

/* Bar width, margins and label orientation from the longest label. */
static void chart_layout(struct chart *c)
{
	double lw = 0, ylw = label_width("100%");
	char num[32];

	c->n = c->last - c->first + 1;
	for (int i = c->first; i <= c->last; i++) {
		double w = label_width(slot_label(c->kind, i, num, sizeof(num)));

		lw = w > lw ? w : lw;
	}
	c->left = ylw + 10;
	c->bw = (CH_W - c->left - 10) / c->n;
	c->bw = c->bw < CH_SLOT_MIN ? CH_SLOT_MIN : c->bw;
	c->rotate = lw + 6 > c->bw;
	if (c->rotate) {
		/* A label ends at its bar's centre and runs down-left at 45 degrees. */
		double reach = lw * 0.71 + CH_FS * 0.71;

		if (reach - c->bw / 2 + 4 > c->left)
			c->left = reach - c->bw / 2 + 4;
		c->bottom = reach + CH_FS + 8;
	} else {
		c->bottom = CH_FS * 2 + 8;
	}
	c->w = c->left + c->n * c->bw + 10;
	if (c->w < CH_W)
		c->w = CH_W;
}

static void svg_axes(struct pc_out *o, const struct chart *c)
{
	const double base = CH_TOP + CH_PLOT_H, right = c->left + c->n * c->bw;

	for (int k = 0; k <= 2; k++) {
		double y = base - CH_PLOT_H * k / 2.0;

		pc_outf(o,
			"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>"
			"<text x=\"%.1f\" y=\"%.1f\" font-size=\"%d\" "
			"text-anchor=\"end\">%.0f%%</text>",
			c->left, y, right, y, k ? "#ddd" : "#888", c->left - 6, y + CH_FS * 0.35,
			CH_FS, c->ymax * k / 2);
	}
}

/* One side's bars as shares of its total; the page's test measures every <text>. */
static void svg_hist(struct pc_out *o, const struct chart *c, const struct pc_hist_report *h)
{
	const double base = CH_TOP + CH_PLOT_H;
	char num[32];

	pc_outf(o,
		"<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %.0f %.0f\" "
		"font-family=\"sans-serif\" role=\"img\"",
		c->w, base + c->bottom);
	/* Many slots: the chart scrolls rather than shrink its labels unreadable. */
	if (c->w > CH_W)
		pc_outf(o, " style=\"min-width:%.0fpx\"", c->w);
	pc_outf(o, ">");
	svg_axes(o, c);
	for (int i = 0; i < c->n; i++) {
		int slot = c->first + i;
		double s = share(h, slot), x = c->left + i * c->bw, cx = x + c->bw / 2;
		double bh = c->ymax > 0 ? s / c->ymax * CH_PLOT_H : 0;
		double bw = c->bw - 4 > CH_BAR_MAX ? CH_BAR_MAX : c->bw - 4;

		if (h && h->slots[slot] && bh < 1)
			bh = 1;
		slot_label(c->kind, slot, num, sizeof(num));
		pc_outf(o,
			"<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
			"fill=\"#3b6fb6\">"
			"<title>%s: %llu (%.1f%%)</title></rect>",
			cx - bw / 2, base - bh, bw, bh, num,
			(unsigned long long)(h ? h->slots[slot] : 0), s);
		if (c->rotate)
			pc_outf(o,
				"<text x=\"%.1f\" y=\"%.1f\" font-size=\"%d\" text-anchor=\"end\" "
				"transform=\"rotate(-45 %.1f %.1f)\">%s</text>",
				cx, base + CH_FS, CH_FS, cx, base + CH_FS, num);
		else
			pc_outf(o,
				"<text x=\"%.1f\" y=\"%.1f\" font-size=\"%d\" "
				"text-anchor=\"middle\">%s</text>",
				cx, base + CH_FS + 4, CH_FS, num);
	}
	pc_outf(o, "</svg>");
}

/* One side: its caption (HTML, so the browser lays it out) over its chart. */
static void html_side(struct pc_out *o, const char *which, const struct pc_gate_side *side,
		      const struct pc_hist_report *h, const struct chart *c)
{
	char rel[512];

	pc_gate_releases(side, rel, sizeof(rel));
	pc_outf(o, "<div class=\"chart %s\"><div class=\"cap\"><span class=\"side\">%s</span>",
		which, which);
	if (!side->n_runs) /* allow_no_baseline */
		pc_outf(o, ": none");
	else if (h)
		pc_outf(o, " %s: %llu events", ESC_XML(rel),
			(unsigned long long)pc_hist_report_total(h));
	else
		pc_outf(o, " %s: no such histogram in its reports", ESC_XML(rel));
	pc_outf(o, "</div>");
	svg_hist(o, c, h);
	pc_outf(o, "</div>\n");
}

/* Both sides on one y scale, and on one x axis unless the kinds differ. */
static void html_hist_pair(struct pc_out *o, const struct pc_gate_policy *pol,
			   const struct pc_gate_group *grp, const char *id)
{
	const struct pc_hist_report *bh = pc_report_find_hist(grp->base.merged, id);
	const struct pc_hist_report *ch = pc_report_find_hist(grp->cand.merged, id);
	const struct pc_hist_report *any = ch ? ch : bh;
	struct chart cb = {.kind = bh ? bh->kind : any->kind, .first = PC_HIST_SLOTS, .last = -1};
	struct chart cc = {.kind = any->kind, .first = PC_HIST_SLOTS, .last = -1};

	chart_range(&cb, bh);
	chart_range(&cc, ch);
	if (cb.kind == cc.kind) {
		chart_range(&cc, bh);
		cb = cc;
	}
	/* A side without events still gets its axes: the pair stays side by side. */
	if (cb.last < 0)
		cb = cc;
	if (cc.last < 0)
		cc = cb;
	cb.ymax = cc.ymax = cb.ymax > cc.ymax ? cb.ymax : cc.ymax;
	/* The id is what a policy names (docs/gate.md): shown beside the title. */
	pc_outf(o, "<div class=\"hist\" data-id=\"%s\"><h4>%s</h4>", ESC_XML(id),
		ESC_XML(any->name));
	pc_outf(o, "<p><code class=\"id\">%s</code> x: %s (%s); y: share of each side's events",
		ESC_XML(id), ESC_XML(any->unit), ESC_XML(any->source));
	if (pc_gate_is_batch_hist(pol, id))
		pc_outf(o, " <span class=\"judged\">judged by batching-regression</span>");
	else if (pc_hist_id_match(pol->latency_histogram, id))
		pc_outf(o, " <span class=\"judged\">judged by performance-regression</span>");
	pc_outf(o, "</p>\n");
	if (cc.last < 0) {
		pc_outf(o, "<p>no events on either side</p></div>\n");
		return;
	}
	chart_layout(&cb);
	chart_layout(&cc);
	pc_outf(o, "<div class=\"pair\">\n");
	html_side(o, "baseline", &grp->base, bh, &cb);
	html_side(o, "candidate", &grp->cand, ch, &cc);
	pc_outf(o, "</div></div>\n");
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

/* The histograms of a section, in report order: the candidate's ids
   first, then those only the baseline has; each with its path, its id's
   first part ("fork/batch/folio_pte_batch": fork; "filemap/window":
   filemap), "" for an id of one part. */
struct hist_names {
	int n;
	struct {
		const char *id;
		char path[PC_HIST_ID_MAX];
	} e[2 * PC_GATE_MAX_HISTS];
};

static void list_hists(struct hist_names *l, const struct pc_gate_group *grp, bool latency)
{
	const struct pc_report *sides[2] = {grp->cand.merged, grp->base.merged};

	l->n = 0;
	for (int s = 0; s < 2; s++)
		for (int k = 0; sides[s] && k < sides[s]->n_hists; k++) {
			const struct pc_hist_report *h = &sides[s]->hists[k];
			const char *slash = strchr(h->id, '/');

			if (is_time_unit(h->unit) != latency ||
			    (s == 1 && pc_report_find_hist(grp->cand.merged, h->id)) ||
			    l->n >= (int)(sizeof(l->e) / sizeof(l->e[0])))
				continue;
			snprintf(l->e[l->n].path, sizeof(l->e[l->n].path), "%.*s",
				 slash ? (int)(slash - h->id) : 0, h->id);
			l->e[l->n++].id = h->id;
		}
}

/* Path i's histograms under its subheading, unless an earlier one had that path. */
static void html_path(struct pc_out *o, const struct pc_gate_policy *pol,
		      const struct pc_gate_group *grp, const struct hist_names *l, int i)
{
	const char *path = l->e[i].path;

	for (int j = 0; j < i; j++)
		if (!strcmp(l->e[j].path, path))
			return;
	pc_outf(o, "<div class=\"path\"><h4 class=\"path\">%s</h4>\n",
		path[0] ? ESC_XML(path) : "other histograms");
	for (int j = i; j < l->n; j++)
		if (!strcmp(l->e[j].path, path))
			html_hist_pair(o, pol, grp, l->e[j].id);
	pc_outf(o, "</div>\n");
}

/*
 * One section of histograms, batch (every unit but time: PTEs, pages,
 * orders, ...) grouped per path (the paths in report order, the
 * histograms without one last), or latency (time units) in report order.
 */
static void html_hists(struct pc_out *o, const struct pc_gate_policy *pol,
		       const struct pc_gate_group *grp, bool latency)
{
	struct hist_names *l = malloc(sizeof(*l));

	if (!l) { /* the page fails to write rather than lack a section */
		o->err = o->err ? o->err : ENOMEM;
		return;
	}
	pc_outf(o, "<section class=\"hists %s\"><h3>%s</h3>\n", latency ? "latency" : "batch",
		latency ? "Latency histograms" : "Batch histograms");
	list_hists(l, grp, latency);
	for (int i = 0; i < l->n; i++)
		if (latency)
			html_hist_pair(o, pol, grp, l->e[i].id);
		else if (l->e[i].path[0])
			html_path(o, pol, grp, l, i);
	for (int i = 0; !latency && i < l->n; i++)
		if (!l->e[i].path[0]) {
			html_path(o, pol, grp, l, i);
			break;
		}
	if (!l->n)
		pc_outf(o, "<p>none in the reports of either side</p>\n");
	pc_outf(o, "</section>\n");
	free(l);
}

/* A side's status of a check; a skip with its reason, as the report gave it. */
static void html_status(struct pc_out *o, const struct pc_gate_side *side, bool has,
			const struct pc_gate_check_row *row, enum pc_gate_status st)
{
	const char *name = has ? pc_gate_status_name(st) : "-";
	const struct pc_result *res =
		has ? pc_report_find_result(side->merged, row->check, row->tier) : NULL;

	pc_outf(o, "<td class=\"%s\">%s", name, name);
	if (st == PC_GATE_ST_SKIP && res && res->summary[0])
		pc_outf(o, "<div class=\"why\">%s</div>", ESC_XML(res->summary));
	pc_outf(o, "</td>");
}

static void html_checks(struct pc_out *o, const struct pc_gate_group *grp)
{
	pc_outf(o, "<h3>Checks</h3>\n<table class=\"checks\"><colgroup><col class=\"name\">"
		   "<col class=\"name\"><col><col></colgroup><tr><th>check</th><th>tier</th>"
		   "<th>baseline</th><th>candidate</th></tr>\n");
	for (int k = 0; k < grp->n_rows; k++) {
		const struct pc_gate_check_row *row = &grp->rows[k];

		pc_outf(o, "<tr><td>%s</td><td>%s</td>", ESC_XML(row->check), ESC_XML(row->tier));
		html_status(o, &grp->base, grp->has_baseline, row, row->base);
		html_status(o, &grp->cand, true, row, row->cand);
		pc_outf(o, "</tr>\n");
	}
	pc_outf(o, "</table>\n");
}

static void html_group(struct pc_out *o, const struct pc_gate_policy *pol,
		       const struct pc_gate_group *grp)
{
	char label[160], rel[512];
	int r;

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
	html_hists(o, pol, grp, false);
	html_hists(o, pol, grp, true);
	html_checks(o, grp);
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
