// SPDX-License-Identifier: GPL-2.0
/*
 * ptecheck gate: the decision in five formats, one file each
 * (output_text.c, output_tap.c, output_junit.c, output_json.c,
 * output_html.c).  Every format names every rule per group with its
 * verdict, reasons and evidence, and lists the improvements.  Here: the
 * choice of a writer and what they share.
 */
#include "gate_output.h"

static const char *const format_names[] = {
	[PC_GATE_FMT_TEXT] = "text",   [PC_GATE_FMT_JSON] = "json", [PC_GATE_FMT_TAP] = "tap",
	[PC_GATE_FMT_JUNIT] = "junit", [PC_GATE_FMT_HTML] = "html",
};

static pc_writer_fn *const writers[] = {
	[PC_GATE_FMT_TEXT] = pc_gate_write_text, [PC_GATE_FMT_JSON] = pc_gate_write_json,
	[PC_GATE_FMT_TAP] = pc_gate_write_tap,	 [PC_GATE_FMT_JUNIT] = pc_gate_write_junit,
	[PC_GATE_FMT_HTML] = pc_gate_write_html,
};

static const char *const verdict_tags[] = {
	[PC_GATE_PASS] = "PASS",
	[PC_GATE_WARN] = "WARN",
	[PC_GATE_FAIL] = "FAIL",
	[PC_GATE_NOT_JUDGED] = "NOT JUDGED",
};

int pc_gate_format_parse(const char *s)
{
	return pc_name_find(format_names, PC_NAMES_N(format_names), s);
}

int pc_gate_write(const struct pc_gate_result *g, enum pc_gate_format fmt, FILE *f)
{
	return pc_out_write(f, writers, PC_NAMES_N(writers), fmt, g);
}

const char *pc_gate_esc(const char *s, unsigned int mode)
{
	/* An XML entity is at most 6 bytes for one. */
	static char bufs[8][PC_GATE_CLEAN_MAX * 6 + 16];
	static int k;

	k = (k + 1) % 8;
	return pc_clean(bufs[k], sizeof(bufs[k]), s, PC_GATE_CLEAN_MAX, mode | PC_CLEAN_NONCHAR);
}

const char *pc_gate_decision(const struct pc_gate_result *g)
{
	return g->ship ? "SHIP" : "DO NOT SHIP";
}

/* Did a side of a group judge a kernel tier (a kernel: result that passed
   or failed)? */
static bool kernel_judged(const struct pc_report *r)
{
	for (int i = 0; r && i < r->n_results; i++)
		if (!strncmp(r->results[i].tier, "kernel:", 7) &&
		    r->results[i].status != PC_STATUS_SKIP)
			return true;
	return false;
}

const char *pc_gate_headline(const struct pc_gate_result *g)
{
	static char line[160];

	for (int i = 0; i < g->n_groups; i++)
		if (kernel_judged(g->groups[i].base.merged) ||
		    kernel_judged(g->groups[i].cand.merged))
			return pc_gate_decision(g);
	snprintf(line, sizeof(line),
		 "%s (neither side judged any kernel tier: the userspace oracles only)",
		 pc_gate_decision(g));
	return line;
}

const char *pc_gate_verdict_tag(enum pc_gate_verdict v)
{
	return pc_name_get(verdict_tags, PC_NAMES_N(verdict_tags), v, "FAIL");
}

void pc_gate_group_label(const struct pc_gate_group *grp, char *buf, size_t sz)
{
	snprintf(buf, sz, "%s suite %s scale %u", grp->machine, grp->suite, grp->scale);
}

void pc_gate_releases(const struct pc_gate_side *s, char *buf, size_t sz)
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

int pc_gate_count_improvements(const struct pc_gate_result *g)
{
	int i, r, n = 0;

	for (i = 0; i < g->n_groups; i++)
		for (r = 0; r < PC_GATE_RULE__COUNT; r++)
			n += g->groups[i].rules[r].n_improvements;
	return n;
}

const char *pc_gate_first_problem(const struct pc_gate_rule_result *rr)
{
	int i;

	for (i = 0; i < rr->n_findings; i++)
		if (rr->findings[i].problem && rr->findings[i].text)
			return rr->findings[i].text;
	return rr->verdict == PC_GATE_FAIL ? "failed (details lost: out of memory)" : "";
}
