// SPDX-License-Identifier: GPL-2.0
/*
 * The scenario variants of a result: what each scenario judged (its
 * status, counts and own words) or why it did not run, and the short
 * per-check summary made of them.  The writers give each one in full.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "report.h"

/* Where a cut per-check summary is whole: each scenario's words. */
#define WHOLE_MARK " (each scenario: -v, JSON)"

int pc_result_n_variants(const struct pc_result *res)
{
	if (res->n_variants <= 0)
		return 0;
	return res->n_variants < PC_MAX_VARIANTS ? res->n_variants : PC_MAX_VARIANTS;
}

const struct pc_variant *pc_result_find_variant(const struct pc_result *res, const char *scenario)
{
	for (int i = 0; i < pc_result_n_variants(res); i++)
		if (!strncmp(res->variants[i].scenario, scenario,
			     sizeof(res->variants[i].scenario)))
			return &res->variants[i];
	return NULL;
}

int pc_result_add_variant(struct pc_result *res, const char *scenario, enum pc_status st,
			  const char *text, __u64 checked, __u64 violations)
{
	struct pc_variant *v = (struct pc_variant *)pc_result_find_variant(res, scenario);

	if (!v) {
		if (pc_result_n_variants(res) >= PC_MAX_VARIANTS)
			return -ENOSPC;
		v = &res->variants[res->n_variants++];
		memset(v, 0, sizeof(*v));
		snprintf(v->scenario, sizeof(v->scenario), "%s", scenario);
		v->status = PC_STATUS_SKIP;
	}
	text = text ? text : "";
	v->rounds++;
	if (st == PC_STATUS_PASS || st == PC_STATUS_FAIL) {
		v->judged++;
		v->checked = pc_sat_add(v->checked, checked);
		v->violations = pc_sat_add(v->violations, violations);
	}
	/* Ran beats skipped, fail beats pass: the words of the first round
	   that made the status what it is. */
	if ((st == PC_STATUS_FAIL && v->status != PC_STATUS_FAIL) ||
	    (st == PC_STATUS_PASS && v->status == PC_STATUS_SKIP)) {
		v->status = st;
		v->why[0] = '\0';
		snprintf(v->summary, sizeof(v->summary), "%s", text);
	} else if (st == PC_STATUS_SKIP && v->status == PC_STATUS_SKIP) {
		snprintf(v->why, sizeof(v->why), "%s", text);
	}
	return 0;
}

int pc_result_variants_skipped(const struct pc_result *res)
{
	int n = 0;

	for (int i = 0; i < pc_result_n_variants(res); i++)
		n += res->variants[i].status == PC_STATUS_SKIP;
	return n;
}

/* None ran: the reason when all give the same, else the first one's. */
static void not_run(const struct pc_result *res, int n, char *buf, size_t sz)
{
	const struct pc_variant *v = &res->variants[0];
	bool same = true;

	for (int i = 1; i < n; i++)
		same &= !strncmp(res->variants[i].why, v->why, sizeof(v->why));
	if (n == 1)
		snprintf(buf, sz, "not run (%.*s): %.*s", (int)sizeof(v->scenario), v->scenario,
			 (int)sizeof(v->why), v->why);
	else if (same)
		snprintf(buf, sz, "not run in %d scenarios: %.*s", n, (int)sizeof(v->why), v->why);
	else
		snprintf(buf, sz, "not run in %d scenarios; first, %.*s: %.*s", n,
			 (int)sizeof(v->scenario), v->scenario, (int)sizeof(v->why), v->why);
}

void pc_result_summarize_variants(struct pc_result *res)
{
	int n = pc_result_n_variants(res), skipped = pc_result_variants_skipped(res);
	int ran = n - skipped, len;
	const struct pc_variant *fail = NULL;
	char buf[3 * PC_VARIANT_TEXT];

	if (!n)
		return;
	if (!ran) {
		not_run(res, n, buf, sizeof(buf));
		pc_text_fit(res->summary, sizeof(res->summary), buf, WHOLE_MARK);
		return;
	}
	for (int i = 0; i < n && !fail; i++)
		if (res->variants[i].status == PC_STATUS_FAIL)
			fail = &res->variants[i];
	len = snprintf(buf, sizeof(buf), "judged by %d scenario%s: %llu checked, %llu violation%s",
		       ran, ran == 1 ? "" : "s", (unsigned long long)res->checked,
		       (unsigned long long)res->violations, res->violations == 1 ? "" : "s");
	if (skipped && len >= 0 && (size_t)len < sizeof(buf))
		len += snprintf(buf + len, sizeof(buf) - len, "; %d not run", skipped);
	if (fail && len >= 0 && (size_t)len < sizeof(buf))
		snprintf(buf + len, sizeof(buf) - len, "; first failure, %.*s: %.*s",
			 (int)sizeof(fail->scenario), fail->scenario, (int)sizeof(fail->summary),
			 fail->summary);
	pc_text_fit(res->summary, sizeof(res->summary), buf, WHOLE_MARK);
}
