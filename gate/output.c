// SPDX-License-Identifier: GPL-2.0
/*
 * ptecheck gate: the decision in five formats.  Every format names every
 * rule per group with its verdict, reasons and evidence, and lists the
 * improvements.  Text from reports is untrusted: cleaned to valid UTF-8,
 * control characters removed, and escaped for the format (TAP '#', XML and
 * HTML entities); JSON goes through jansson.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "gate.h"
#include "out.h"

#define CLEAN_MAX 2048

int pc_gate_format_parse(const char *s)
{
	static const char *const names[] = {
		[PC_GATE_FMT_TEXT] = "text", [PC_GATE_FMT_JSON] = "json",
		[PC_GATE_FMT_TAP] = "tap",   [PC_GATE_FMT_JUNIT] = "junit",
		[PC_GATE_FMT_HTML] = "html",
	};
	size_t i;

	for (i = 0; s && i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i]))
			return (int)i;
	return -1;
}

/* ---- cleaning ------------------------------------------------------------ */

static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len, k;
	__u32 cp;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0) {
		len = 2;
		cp = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		len = 3;
		cp = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0) {
		len = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (k = 1; k < len; k++) {
		if ((s[k] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[k] & 0x3f);
	}
	if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

enum esc { ESC_LINE, ESC_TAP, ESC_XML };

/*
 * One line of valid UTF-8: bad bytes become '?', control characters a
 * space (a newline in a summary must not fake an output line); then
 * escaped for the format.
 */
static const char *clean(char *dst, size_t sz, const char *src, enum esc mode)
{
	size_t n = src ? strnlen(src, CLEAN_MAX) : 0, i = 0, j = 0, len;

	while (i < n && j + 8 < sz) {
		unsigned char c = (unsigned char)src[i];
		const char *rep = NULL;

		len = utf8_len((const unsigned char *)src + i, n - i);
		if (!len) {
			dst[j++] = '?';
			i++;
			continue;
		}
		if (len > 1) {
			/* U+FFFE and U+FFFF are not XML characters. */
			if (len == 3 && (unsigned char)src[i] == 0xef &&
			    (unsigned char)src[i + 1] == 0xbf &&
			    (unsigned char)src[i + 2] >= 0xbe) {
				dst[j++] = '?';
				i += len;
				continue;
			}
			memcpy(dst + j, src + i, len);
			j += len;
			i += len;
			continue;
		}
		i++;
		if (c < 0x20 || c == 0x7f) {
			dst[j++] = ' ';
			continue;
		}
		if (mode == ESC_TAP && c == '#')
			rep = "\\#";
		if (mode == ESC_XML) {
			switch (c) {
			case '&':
				rep = "&amp;";
				break;
			case '<':
				rep = "&lt;";
				break;
			case '>':
				rep = "&gt;";
				break;
			case '"':
				rep = "&quot;";
				break;
			case '\'':
				rep = "&#39;";
				break;
			}
		}
		if (rep) {
			memcpy(dst + j, rep, strlen(rep));
			j += strlen(rep);
		} else {
			dst[j++] = (char)c;
		}
	}
	dst[j] = '\0';
	return dst;
}

/* Cleaned text in a rotating static buffer: several per printf. */
static const char *C(const char *s, enum esc mode)
{
	static char bufs[8][CLEAN_MAX * 6 + 16];
	static int k;

	k = (k + 1) % 8;
	return clean(bufs[k], sizeof(bufs[k]), s, mode);
}

static const char *decision(const struct pc_gate_result *g)
{
	return g->ship ? "SHIP" : "DO NOT SHIP";
}

static const char *VERDICT(enum pc_gate_verdict v)
{
	switch (v) {
	case PC_GATE_PASS:
		return "PASS";
	case PC_GATE_WARN:
		return "WARN";
	case PC_GATE_FAIL:
		return "FAIL";
	case PC_GATE_NOT_JUDGED:
		return "NOT JUDGED";
	}
	return "FAIL";
}

static void group_label(const struct pc_gate_group *grp, char *buf, size_t sz)
{
	snprintf(buf, sz, "%s suite %s scale %u", grp->machine, grp->suite, grp->scale);
}

/* Kernel releases of a side's runs, deduplicated, "a, b". */
static void releases(const struct pc_gate_side *s, char *buf, size_t sz)
{
	size_t len = 0;
	int i, j;

	buf[0] = '\0';
	for (i = 0; i < s->n_runs; i++) {
		bool dup = false;

		for (j = 0; j < i; j++)
			dup |= !strcmp(s->runs[j]->kernel_release, s->runs[i]->kernel_release);
		if (dup)
			continue;
		snprintf(buf + len, sz - len, "%s%s", len ? ", " : "", s->runs[i]->kernel_release);
		len = strnlen(buf, sz);
	}
}

static int count_improvements(const struct pc_gate_result *g)
{
	int i, r, n = 0;

	for (i = 0; i < g->n_groups; i++)
		for (r = 0; r < PC_GATE_RULE__COUNT; r++)
			n += g->groups[i].rules[r].n_improvements;
	return n;
}

/* The first problem of a rule: the one-line reason. */
static const char *first_problem(const struct pc_gate_rule_result *rr)
{
	int i;

	for (i = 0; i < rr->n_findings; i++)
		if (rr->findings[i].problem && rr->findings[i].text)
			return rr->findings[i].text;
	return rr->verdict == PC_GATE_FAIL ? "failed (details lost: out of memory)" : "";
}

/* ---- text ------------------------------------------------------------------ */

static void write_text(struct pc_out *o, const struct pc_gate_result *g)
{
	char label[160], rel[512];
	int i, r, k, nimp = count_improvements(g);

	pc_outf(o, "%s\n", decision(g));
	for (i = 0; i < g->n_groups; i++) {
		const struct pc_gate_group *grp = &g->groups[i];

		group_label(grp, label, sizeof(label));
		for (r = 0; r < PC_GATE_RULE__COUNT; r++) {
			const struct pc_gate_rule_result *rr = &grp->rules[r];

			if (rr->verdict == PC_GATE_FAIL)
				pc_outf(o, "  because %s on %s: %s\n", pc_gate_rule_name(r),
					C(label, ESC_LINE), C(first_problem(rr), ESC_LINE));
		}
	}
	for (i = 0; i < g->n_groups; i++) {
		const struct pc_gate_group *grp = &g->groups[i];

		group_label(grp, label, sizeof(label));
		pc_outf(o, "\n== %s ==\n", C(label, ESC_LINE));
		releases(&grp->cand, rel, sizeof(rel));
		pc_outf(o, "candidate: %d run%s, kernel %s (%s%s)\n", grp->cand.n_runs,
			grp->cand.n_runs == 1 ? "" : "s", C(rel, ESC_LINE),
			C(grp->cand.files[0], ESC_LINE), grp->cand.n_runs > 1 ? ", ..." : "");
		if (grp->has_baseline) {
			releases(&grp->base, rel, sizeof(rel));
			pc_outf(o, "baseline:  %d run%s, kernel %s (%s%s)\n", grp->base.n_runs,
				grp->base.n_runs == 1 ? "" : "s", C(rel, ESC_LINE),
				C(grp->base.files[0], ESC_LINE),
				grp->base.n_runs > 1 ? ", ..." : "");
		} else {
			pc_outf(o, "baseline:  none (allowed by the policy)\n");
		}
		for (r = 0; r < PC_GATE_RULE__COUNT; r++) {
			const struct pc_gate_rule_result *rr = &grp->rules[r];

			pc_outf(o, "%-10s  %s", VERDICT(rr->verdict), pc_gate_rule_name(r));
			if (rr->verdict == PC_GATE_NOT_JUDGED && rr->not_judged)
				pc_outf(o, ": %s", C(rr->not_judged, ESC_LINE));
			pc_outf(o, "\n");
			for (k = 0; k < rr->n_findings; k++) {
				const struct pc_gate_finding *f = &rr->findings[k];

				pc_outf(o, "    %s %s\n", f->problem ? "!" : "-",
					C(f->text, ESC_LINE));
				if (f->evidence)
					pc_outf(o, "        evidence: %s\n",
						C(f->evidence, ESC_LINE));
			}
		}
	}
	pc_outf(o, "\nimprovements:%s\n", nimp ? "" : " none");
	for (i = 0; i < g->n_groups; i++) {
		const struct pc_gate_group *grp = &g->groups[i];

		for (r = 0; r < PC_GATE_RULE__COUNT; r++)
			for (k = 0; k < grp->rules[r].n_improvements; k++)
				pc_outf(o, "  + %s: %s\n", C(grp->machine, ESC_LINE),
					C(grp->rules[r].improvements[k], ESC_LINE));
	}
	pc_outf(o, "\n%s\n", decision(g));
}

/* ---- TAP (kselftest style) --------------------------------------------------- */

static void write_tap(struct pc_out *o, const struct pc_gate_result *g)
{
	int i, r, k, n = 0, npass = 0, nfail = 0, nskip = 0;
	char label[160];

	pc_outf(o, "TAP version 13\n1..%d\n", g->n_groups * PC_GATE_RULE__COUNT);
	pc_outf(o, "# ptecheck gate: %s\n", decision(g));
	for (i = 0; i < g->n_groups; i++) {
		const struct pc_gate_group *grp = &g->groups[i];

		group_label(grp, label, sizeof(label));
		for (r = 0; r < PC_GATE_RULE__COUNT; r++) {
			const struct pc_gate_rule_result *rr = &grp->rules[r];

			n++;
			for (k = 0; k < rr->n_findings; k++) {
				const struct pc_gate_finding *f = &rr->findings[k];

				pc_outf(o, "# %s%s\n", f->problem ? "" : "  ",
					C(f->text, ESC_LINE));
				if (f->evidence)
					pc_outf(o, "#   evidence: %s\n", C(f->evidence, ESC_LINE));
			}
			for (k = 0; k < rr->n_improvements; k++)
				pc_outf(o, "# improvement: %s\n", C(rr->improvements[k], ESC_LINE));
			switch (rr->verdict) {
			case PC_GATE_FAIL:
				nfail++;
				pc_outf(o, "not ok %d %s: %s\n", n, C(label, ESC_TAP),
					pc_gate_rule_name(r));
				break;
			case PC_GATE_NOT_JUDGED:
				nskip++;
				pc_outf(o, "ok %d %s: %s # SKIP %s\n", n, C(label, ESC_TAP),
					pc_gate_rule_name(r),
					C(rr->not_judged ? rr->not_judged : "not judged", ESC_TAP));
				break;
			default:
				npass++;
				pc_outf(o, "ok %d %s: %s%s\n", n, C(label, ESC_TAP),
					pc_gate_rule_name(r),
					rr->verdict == PC_GATE_WARN ? " (warning, see above)" : "");
				break;
			}
		}
	}
	pc_outf(o, "# %s\n", decision(g));
	pc_outf(o, "# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:%d error:0\n", npass, nfail,
		nskip);
}

/* ---- JUnit XML ------------------------------------------------------------- */

static void xml_findings(struct pc_out *o, const struct pc_gate_rule_result *rr)
{
	int k;

	for (k = 0; k < rr->n_findings; k++) {
		const struct pc_gate_finding *f = &rr->findings[k];

		pc_outf(o, "%s %s\n", f->problem ? "!" : "-", C(f->text, ESC_XML));
		if (f->evidence)
			pc_outf(o, "    evidence: %s\n", C(f->evidence, ESC_XML));
	}
	for (k = 0; k < rr->n_improvements; k++)
		pc_outf(o, "+ %s\n", C(rr->improvements[k], ESC_XML));
}

static void write_junit(struct pc_out *o, const struct pc_gate_result *g)
{
	int i, r, nfail = 0, nskip = 0;
	char label[160], rel[512];

	for (i = 0; i < g->n_groups; i++)
		for (r = 0; r < PC_GATE_RULE__COUNT; r++) {
			nfail += g->groups[i].rules[r].verdict == PC_GATE_FAIL;
			nskip += g->groups[i].rules[r].verdict == PC_GATE_NOT_JUDGED;
		}
	pc_outf(o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	pc_outf(o,
		"<testsuites name=\"ptecheck gate: %s\" tests=\"%d\" failures=\"%d\" errors=\"0\" "
		"skipped=\"%d\">\n",
		decision(g), g->n_groups * PC_GATE_RULE__COUNT, nfail, nskip);
	for (i = 0; i < g->n_groups; i++) {
		const struct pc_gate_group *grp = &g->groups[i];
		int gf = 0, gs = 0;

		for (r = 0; r < PC_GATE_RULE__COUNT; r++) {
			gf += grp->rules[r].verdict == PC_GATE_FAIL;
			gs += grp->rules[r].verdict == PC_GATE_NOT_JUDGED;
		}
		group_label(grp, label, sizeof(label));
		pc_outf(o,
			"  <testsuite name=\"ptecheck gate %s\" tests=\"%d\" failures=\"%d\" "
			"errors=\"0\" skipped=\"%d\">\n",
			C(label, ESC_XML), PC_GATE_RULE__COUNT, gf, gs);
		pc_outf(o, "    <properties>\n");
		pc_outf(o, "      <property name=\"decision\" value=\"%s\"/>\n", decision(g));
		releases(&grp->cand, rel, sizeof(rel));
		pc_outf(o, "      <property name=\"candidate.kernel\" value=\"%s\"/>\n",
			C(rel, ESC_XML));
		pc_outf(o, "      <property name=\"candidate.runs\" value=\"%d\"/>\n",
			grp->cand.n_runs);
		if (grp->has_baseline) {
			releases(&grp->base, rel, sizeof(rel));
			pc_outf(o, "      <property name=\"baseline.kernel\" value=\"%s\"/>\n",
				C(rel, ESC_XML));
			pc_outf(o, "      <property name=\"baseline.runs\" value=\"%d\"/>\n",
				grp->base.n_runs);
		}
		pc_outf(o, "    </properties>\n");
		for (r = 0; r < PC_GATE_RULE__COUNT; r++) {
			const struct pc_gate_rule_result *rr = &grp->rules[r];

			/* Dots separate packages in reporters' trees: machine.suite.scaleN. */
			pc_outf(o,
				"    <testcase classname=\"ptecheck.gate.%s.%s.scale%u\" "
				"name=\"%s\" "
				"time=\"0\">\n",
				C(grp->machine, ESC_XML), C(grp->suite, ESC_XML), grp->scale,
				pc_gate_rule_name(r));
			if (rr->verdict == PC_GATE_FAIL) {
				pc_outf(o, "      <failure type=\"%s\" message=\"%s\">",
					pc_gate_rule_name(r), C(first_problem(rr), ESC_XML));
				xml_findings(o, rr);
				pc_outf(o, "</failure>\n");
			} else if (rr->verdict == PC_GATE_NOT_JUDGED) {
				pc_outf(o, "      <skipped message=\"not judged: %s\"/>\n",
					C(rr->not_judged ? rr->not_judged : "", ESC_XML));
			}
			pc_outf(o, "      <system-out>verdict: %s\n",
				pc_gate_verdict_name(rr->verdict));
			xml_findings(o, rr);
			pc_outf(o, "</system-out>\n    </testcase>\n");
		}
		pc_outf(o, "  </testsuite>\n");
	}
	pc_outf(o, "</testsuites>\n");
}

/* ---- JSON ------------------------------------------------------------------ */

struct jb {
	bool failed;
};

static json_t *jstr(const char *s)
{
	char buf[CLEAN_MAX + 16];

	return json_string(clean(buf, sizeof(buf), s ? s : "", ESC_LINE));
}

static void jset(struct jb *b, json_t *o, const char *key, json_t *v)
{
	if (!v || !o || json_object_set_new(o, key, v))
		b->failed = true;
}

static void jpush(struct jb *b, json_t *a, json_t *v)
{
	if (!v || !a || json_array_append_new(a, v))
		b->failed = true;
}

static json_t *json_policy(struct jb *b, const struct pc_gate_policy *p)
{
	json_t *o = json_object(), *a = json_array();
	int i;

	jset(b, o, "coverage_loss", json_string(p->coverage_loss ? "fail" : "report"));
	jset(b, o, "batching_regression", json_string(p->batching_regression ? "fail" : "report"));
	jset(b, o, "performance_regression",
	     json_string(p->performance_regression ? "fail" : "report"));
	jset(b, o, "batching_tolerance_pct", json_real(p->batching_tolerance_pct));
	jset(b, o, "perf_threshold_pct", json_real(p->perf_threshold_pct));
	jset(b, o, "perf_min_runs", json_integer(p->perf_min_runs));
	jset(b, o, "allow_partial", json_boolean(p->allow_partial));
	jset(b, o, "allow_no_baseline", json_boolean(p->allow_no_baseline));
	for (i = 0; i < p->n_batch_names && i < PC_GATE_MAX_BATCH_NAMES; i++)
		jpush(b, a, jstr(p->batch_names[i]));
	jset(b, o, "batch_histograms", a);
	jset(b, o, "latency_histogram", jstr(p->latency_histogram));
	return o;
}

static json_t *json_side(struct jb *b, const struct pc_gate_side *s)
{
	json_t *o = json_object(), *files = json_array(), *kernels = json_array();
	int i;

	for (i = 0; i < s->n_runs; i++) {
		jpush(b, files, jstr(s->files[i]));
		jpush(b, kernels, jstr(s->runs[i]->kernel_release));
	}
	jset(b, o, "runs", json_integer(s->n_runs));
	jset(b, o, "files", files);
	jset(b, o, "kernels", kernels);
	return o;
}

static json_t *json_gate(const struct pc_gate_result *g)
{
	struct jb b = {.failed = false};
	json_t *root = json_object(), *rules = json_array(), *imps = json_array(),
	       *groups = json_array();
	int i, r, k;

	jset(&b, root, "schema", json_string("ptecheck-gate"));
	jset(&b, root, "schema_version", json_integer(1));
	jset(&b, root, "decision", json_string(g->ship ? "ship" : "do-not-ship"));
	jset(&b, root, "exit_code",
	     json_integer(g->ship ? PC_GATE_EXIT_SHIP : PC_GATE_EXIT_NO_SHIP));
	if (g->policy)
		jset(&b, root, "policy", json_policy(&b, g->policy));
	for (i = 0; i < g->n_groups; i++) {
		const struct pc_gate_group *grp = &g->groups[i];
		json_t *go = json_object(), *checks = json_array();

		for (r = 0; r < PC_GATE_RULE__COUNT; r++) {
			const struct pc_gate_rule_result *rr = &grp->rules[r];
			json_t *ro = json_object(), *reasons = json_array();

			jset(&b, ro, "rule", json_string(pc_gate_rule_name(r)));
			jset(&b, ro, "machine", jstr(grp->machine));
			jset(&b, ro, "suite", jstr(grp->suite));
			jset(&b, ro, "scale", json_integer(grp->scale));
			jset(&b, ro, "verdict", json_string(pc_gate_verdict_name(rr->verdict)));
			jset(&b, ro, "fails_gate", json_boolean(rr->verdict == PC_GATE_FAIL));
			jset(&b, ro, "not_judged",
			     rr->not_judged ? jstr(rr->not_judged) : json_null());
			for (k = 0; k < rr->n_findings; k++) {
				const struct pc_gate_finding *f = &rr->findings[k];
				json_t *fo = json_object();

				jset(&b, fo, "problem", json_boolean(f->problem));
				jset(&b, fo, "text", jstr(f->text));
				jset(&b, fo, "evidence",
				     f->evidence ? jstr(f->evidence) : json_null());
				jpush(&b, reasons, fo);
			}
			jset(&b, ro, "reasons", reasons);
			jpush(&b, rules, ro);
			for (k = 0; k < rr->n_improvements; k++) {
				json_t *io = json_object();

				jset(&b, io, "rule", json_string(pc_gate_rule_name(r)));
				jset(&b, io, "machine", jstr(grp->machine));
				jset(&b, io, "suite", jstr(grp->suite));
				jset(&b, io, "scale", json_integer(grp->scale));
				jset(&b, io, "text", jstr(rr->improvements[k]));
				jpush(&b, imps, io);
			}
		}
		jset(&b, go, "machine", jstr(grp->machine));
		jset(&b, go, "suite", jstr(grp->suite));
		jset(&b, go, "scale", json_integer(grp->scale));
		jset(&b, go, "candidate", json_side(&b, &grp->cand));
		jset(&b, go, "baseline",
		     grp->has_baseline ? json_side(&b, &grp->base) : json_null());
		for (k = 0; k < grp->n_rows; k++) {
			json_t *co = json_object();

			jset(&b, co, "check", jstr(grp->rows[k].check));
			jset(&b, co, "tier", jstr(grp->rows[k].tier));
			jset(&b, co, "baseline",
			     grp->has_baseline ? json_string(pc_gate_status_name(grp->rows[k].base))
					       : json_null());
			jset(&b, co, "candidate",
			     json_string(pc_gate_status_name(grp->rows[k].cand)));
			jpush(&b, checks, co);
		}
		jset(&b, go, "checks", checks);
		jpush(&b, groups, go);
	}
	jset(&b, root, "rules", rules);
	jset(&b, root, "improvements", imps);
	jset(&b, root, "groups", groups);
	if (b.failed) {
		json_decref(root);
		return NULL;
	}
	return root;
}

static void write_json(struct pc_out *o, const struct pc_gate_result *g)
{
	json_t *root = json_gate(g);

	if (!root) {
		o->err = ENOMEM;
		return;
	}
	if (json_dumpf(root, o->f, JSON_INDENT(2) | JSON_PRESERVE_ORDER) != 0)
		o->err = errno ? errno : EIO;
	json_decref(root);
	pc_outf(o, "\n");
}

/* ---- HTML ------------------------------------------------------------------ */

static const char html_style[] =
	"body{font-family:sans-serif;margin:1.5em;color:#222}"
	"h1.ship{color:#1a7f37}h1.noship{color:#c62828}"
	"table{border-collapse:collapse;margin:.5em 0}"
	"td,th{border:1px solid #ccc;padding:2px 8px;text-align:left;font-size:90%}"
	".pass{background:#e6f4ea}.fail{background:#fde7e9}.warn{background:#fff4ce}"
	".skip,.missing,.not-judged{background:#eee}"
	".charts{display:flex;flex-wrap:wrap;gap:1.5em}.chart{font-size:85%}"
	"li.problem{color:#c62828}.ev{color:#555;font-family:monospace}";

static __u64 total_of(const struct pc_hist_report *h)
{
	__u64 t = 0;
	int i;

	for (i = 0; h && i < PC_HIST_SLOTS; i++)
		t = t + h->slots[i] < t ? UINT64_MAX : t + h->slots[i];
	return t;
}

static const struct pc_hist_report *hist_by_name(const struct pc_report *r, const char *name)
{
	int i;

	for (i = 0; r && i < r->n_hists; i++)
		if (!strncmp(r->hists[i].name, name, sizeof(r->hists[i].name)))
			return &r->hists[i];
	return NULL;
}

/* Bucket bounds are powers of two past 16: 131072 -> "128K" keeps labels short. */
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
	__u64 t = total_of(h);
	char num[32];

	pc_outf(o,
		"<div class=\"chart\"><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		"height=\"%d\" role=\"img\"><title>%s</title>",
		w, top + ph + bottom, C(title, ESC_XML));
	pc_outf(o, "<text x=\"%d\" y=\"14\" font-size=\"12\">%s (%llu events)</text>", left,
		C(title, ESC_XML), (unsigned long long)t);
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
	const struct pc_hist_report *bh = hist_by_name(grp->base.merged, name);
	const struct pc_hist_report *ch = hist_by_name(grp->cand.merged, name);
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
		t = total_of(bh);
		if (bh && t && 100.0 * (double)bh->slots[i] / (double)t > ymax)
			ymax = 100.0 * (double)bh->slots[i] / (double)t;
		t = total_of(ch);
		if (ch && t && 100.0 * (double)ch->slots[i] / (double)t > ymax)
			ymax = 100.0 * (double)ch->slots[i] / (double)t;
	}
	pc_outf(o, "<h4>%s (%s)</h4>\n", C(name, ESC_XML), C(any->unit, ESC_XML));
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
		pc_gate_rule_name(rr->rule), VERDICT(rr->verdict));
	if (rr->not_judged)
		pc_outf(o, ": %s", C(rr->not_judged, ESC_XML));
	pc_outf(o, "</td><td><ul>");
	for (k = 0; k < rr->n_findings; k++) {
		const struct pc_gate_finding *f = &rr->findings[k];

		pc_outf(o, "<li%s>%s", f->problem ? " class=\"problem\"" : "", C(f->text, ESC_XML));
		if (f->evidence)
			pc_outf(o, "<br><span class=\"ev\">%s</span>", C(f->evidence, ESC_XML));
		pc_outf(o, "</li>");
	}
	for (k = 0; k < rr->n_improvements; k++)
		pc_outf(o, "<li>+ %s</li>", C(rr->improvements[k], ESC_XML));
	pc_outf(o, "</ul></td></tr>\n");
}

static void write_html(struct pc_out *o, const struct pc_gate_result *g)
{
	char label[160], rel[512];
	int i, r, k, nimp = count_improvements(g);

	pc_outf(o,
		"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		"<title>ptecheck gate: %s</title><style>%s</style></head><body>\n",
		decision(g), html_style);
	pc_outf(o, "<h1 class=\"%s\">%s</h1>\n", g->ship ? "ship" : "noship", decision(g));
	pc_outf(o, "<ul>\n");
	for (i = 0; i < g->n_groups; i++) {
		const struct pc_gate_group *grp = &g->groups[i];

		group_label(grp, label, sizeof(label));
		for (r = 0; r < PC_GATE_RULE__COUNT; r++)
			if (grp->rules[r].verdict == PC_GATE_FAIL)
				pc_outf(o, "<li class=\"problem\">%s on %s: %s</li>\n",
					pc_gate_rule_name(r), C(label, ESC_XML),
					C(first_problem(&grp->rules[r]), ESC_XML));
	}
	if (g->ship)
		pc_outf(o, "<li>no rule failed</li>\n");
	pc_outf(o, "</ul>\n<h2>Improvements</h2>\n<ul>\n");
	if (!nimp)
		pc_outf(o, "<li>none</li>\n");
	for (i = 0; i < g->n_groups; i++)
		for (r = 0; r < PC_GATE_RULE__COUNT; r++)
			for (k = 0; k < g->groups[i].rules[r].n_improvements; k++)
				pc_outf(o, "<li>%s: %s</li>\n", C(g->groups[i].machine, ESC_XML),
					C(g->groups[i].rules[r].improvements[k], ESC_XML));
	pc_outf(o, "</ul>\n");

	for (i = 0; i < g->n_groups; i++) {
		const struct pc_gate_group *grp = &g->groups[i];
		const struct pc_report *names[2] = {grp->cand.merged, grp->base.merged};
		int s;

		group_label(grp, label, sizeof(label));
		pc_outf(o, "<h2>%s</h2>\n", C(label, ESC_XML));
		releases(&grp->cand, rel, sizeof(rel));
		pc_outf(o, "<p>candidate: %d run(s), kernel %s<br>\n", grp->cand.n_runs,
			C(rel, ESC_XML));
		if (grp->has_baseline) {
			releases(&grp->base, rel, sizeof(rel));
			pc_outf(o, "baseline: %d run(s), kernel %s</p>\n", grp->base.n_runs,
				C(rel, ESC_XML));
		} else {
			pc_outf(o, "baseline: none</p>\n");
		}
		pc_outf(o, "<table><tr><th>rule</th><th>verdict</th><th>reasons</th></tr>\n");
		for (r = 0; r < PC_GATE_RULE__COUNT; r++)
			html_rule(o, &grp->rules[r]);
		pc_outf(o, "</table>\n<h3>Batch histograms</h3>\n");
		/* Candidate's names first, then those only the baseline has. */
		for (s = 0; s < 2; s++) {
			for (k = 0; names[s] && k < names[s]->n_hists; k++) {
				const char *name = names[s]->hists[k].name;

				if (!pc_gate_is_batch_hist(g->policy, name) &&
				    strcmp(name, g->policy->latency_histogram) != 0)
					continue;
				if (s == 1 && hist_by_name(grp->cand.merged, name))
					continue;
				html_hist_pair(o, grp, name);
			}
		}
		pc_outf(o, "<h3>Checks</h3>\n<table><tr><th>check</th><th>tier</th>"
			   "<th>baseline</th><th>candidate</th></tr>\n");
		for (k = 0; k < grp->n_rows; k++) {
			const struct pc_gate_check_row *row = &grp->rows[k];
			const char *bs = grp->has_baseline ? pc_gate_status_name(row->base) : "-";
			const char *cs = pc_gate_status_name(row->cand);

			pc_outf(o,
				"<tr><td>%s</td><td>%s</td><td class=\"%s\">%s</td>"
				"<td class=\"%s\">%s</td></tr>\n",
				C(row->check, ESC_XML), C(row->tier, ESC_XML), bs, bs, cs, cs);
		}
		pc_outf(o, "</table>\n");
	}
	pc_outf(o, "</body></html>\n");
}

int pc_gate_write(const struct pc_gate_result *g, enum pc_gate_format fmt, FILE *f)
{
	struct pc_out o = {.f = f, .err = 0};

	if (!g || !f)
		return -EINVAL;
	errno = 0;
	switch (fmt) {
	case PC_GATE_FMT_TEXT:
		write_text(&o, g);
		break;
	case PC_GATE_FMT_TAP:
		write_tap(&o, g);
		break;
	case PC_GATE_FMT_JUNIT:
		write_junit(&o, g);
		break;
	case PC_GATE_FMT_JSON:
		write_json(&o, g);
		break;
	case PC_GATE_FMT_HTML:
		write_html(&o, g);
		break;
	default:
		return -EINVAL;
	}
	return pc_out_finish(&o);
}
