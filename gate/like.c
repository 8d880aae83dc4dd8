// SPDX-License-Identifier: GPL-2.0
/*
 * ptecheck gate: like with like (docs/gate.md).  A run-wide histogram sums
 * every scenario a run judged; when a scenario skips on one side (a
 * kernel bug that breaks its setup, an older ptecheck without it) the
 * sums judge the mix, not the kernel.  So the batching rule and --noise
 * compare views of the runs: each histogram summed over the scenarios
 * judged in every run of both sides, from the reports' per-scenario
 * histograms (schema 7).  Reports without them are compared run-wide
 * only when both sides' scenarios judged the same.
 */
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "gate_like.h"

/* Did scenario (suite, name) judge a check in every run of side s? */
static bool judged_in_all(const struct pc_gate_side *s, const char *suite, const char *name)
{
	for (int i = 0; i < s->n_runs; i++) {
		const struct pc_scenario_hists *sc =
			pc_report_scenario((struct pc_report *)s->runs[i], suite, name, false);

		if (!sc || !sc->judged)
			return false;
	}
	return true;
}

static bool side_has_scenarios(const struct pc_gate_side *s)
{
	for (int i = 0; i < s->n_runs; i++)
		if (!s->runs[i]->n_scens)
			return false;
	return true;
}

/* Is item in the ", "-separated list? */
static bool listed(const char *list, const char *item)
{
	size_t n = strlen(item);

	for (const char *p = strstr(list, item); p; p = strstr(p + 1, item))
		if ((p == list || p[-1] == ' ') && (p[n] == ',' || !p[n]))
			return true;
	return false;
}

/* Appends "suite/name" ("name" without a suite) to a ", "-separated list
   of at most sz bytes, once; *n counts each, kept or cut. */
static void list_add(char *list, size_t sz, int *n, const char *suite, const char *name)
{
	char item[80];
	size_t len = strlen(list);

	snprintf(item, sizeof(item), "%s%s%s", suite, *suite ? "/" : "", name);
	if (listed(list, item))
		return;
	if (len + strlen(item) + 3 < sz)
		snprintf(list + len, sz - len, "%s%s", len ? ", " : "", item);
	else if (len >= 3 && len + 5 < sz && strcmp(list + len - 3, "..."))
		snprintf(list + len, sz - len, ", ...");
	(*n)++;
}

static int add_common(struct pc_gate_like *l, const struct pc_scenario_hists *sc)
{
	struct pc_gate_like_scenario *c =
		pc_gate_grow(l->common, l->n_common, &l->cap_common, sizeof(*c), 64);

	if (!c)
		return -1;
	l->common = c;
	c = &l->common[l->n_common++];
	snprintf(c->suite, sizeof(c->suite), "%s", sc->suite);
	snprintf(c->scenario, sizeof(c->scenario), "%s", sc->scenario);
	return 0;
}

/* The views of one side's runs (and their merge): each run-wide
   histogram, summed over the common scenarios only. */
static int view_side(const struct pc_gate_side *s, const struct pc_gate_like *l,
		     struct pc_report ***views, struct pc_report **merged)
{
	*views = calloc((size_t)s->n_runs + 1, sizeof(**views));
	*merged = pc_report_new("run", "");
	if (!*views || !*merged)
		return -1;
	for (int i = 0; i < s->n_runs; i++) {
		const struct pc_report *r = s->runs[i];
		struct pc_report *v = pc_report_new("run", r->suite);

		if (!v)
			return -1;
		(*views)[i] = v;
		for (int k = 0; k < r->n_hists; k++) {
			const struct pc_hist_report *h = &r->hists[k];
			struct pc_hist_report *vh = pc_report_add_hist(
				v, h->id, h->name, h->unit, h->source, h->in_kernel, h->kind);

			if (!vh)
				return -1;
			pc_report_hist_batch(vh, h->batch_ctx, h->batch_src);
			for (int c = 0; c < l->n_common; c++) {
				const struct pc_scenario_hists *sc = pc_report_scenario(
					(struct pc_report *)r, l->common[c].suite,
					l->common[c].scenario, false);
				const struct pc_hist_report *sh = pc_scenario_hist(sc, h->id);

				for (int j = 0; sh && sh->kind == h->kind && j < PC_HIST_SLOTS; j++)
					vh->slots[j] = pc_sat_add(vh->slots[j], sh->slots[j]);
			}
		}
		if (pc_gate_merge_report(*merged, v, "", "", NULL, 0))
			return -1;
	}
	return 0;
}

int pc_gate_like_build(const struct pc_gate_group *g, struct pc_gate_like *l)
{
	const struct pc_gate_side *sides[2] = {&g->base, &g->cand};

	memset(l, 0, sizeof(*l));
	l->available =
		side_has_scenarios(&g->cand) && (!g->has_baseline || side_has_scenarios(&g->base));
	if (!l->available)
		return 0;
	/* Every scenario of either side's first run: common (judged in every
	   run of both sides; with no baseline, of the one side), or one
	   side's. */
	for (int s = 0; s < 2; s++) {
		const struct pc_gate_side *side = sides[s], *other = sides[1 - s];
		const struct pc_report *first = side->n_runs ? side->runs[0] : NULL;

		for (int i = 0; first && i < first->n_scens; i++) {
			const struct pc_scenario_hists *sc = &first->scens[i];
			bool here = judged_in_all(side, sc->suite, sc->scenario);
			bool there =
				!other->n_runs || judged_in_all(other, sc->suite, sc->scenario);

			if (here && there && (s == 0 || !other->n_runs)) {
				if (add_common(l, sc))
					return -1;
			} else if (here && !there) {
				list_add(s == 0 ? l->only_base : l->only_cand, sizeof(l->only_base),
					 s == 0 ? &l->n_only_base : &l->n_only_cand, sc->suite,
					 sc->scenario);
			}
		}
	}
	if (view_side(&g->cand, l, &l->cand_runs, &l->cand_merged) ||
	    (g->base.n_runs && view_side(&g->base, l, &l->base_runs, &l->base_merged)))
		return -1;
	return 0;
}

static void free_views(struct pc_report **views, struct pc_report *merged)
{
	for (int i = 0; views && views[i]; i++)
		pc_report_free(views[i]);
	free(views);
	pc_report_free(merged);
}

void pc_gate_like_free(struct pc_gate_like *l)
{
	free_views(l->base_runs, l->base_merged);
	free_views(l->cand_runs, l->cand_merged);
	free(l->common);
	memset(l, 0, sizeof(*l));
}

void pc_gate_like_group(const struct pc_gate_group *g, const struct pc_gate_like *l,
			struct pc_gate_group *view)
{
	*view = *g;
	view->cand.runs = (const struct pc_report **)l->cand_runs;
	view->cand.merged = l->cand_merged;
	if (l->base_runs) {
		view->base.runs = (const struct pc_report **)l->base_runs;
		view->base.merged = l->base_merged;
	}
}

/* Did the scenario judge a check on a side (a variant of its merged
   results that passed or failed)? */
static bool ran_on(const struct pc_report *r, const char *scenario)
{
	for (int i = 0; r && i < r->n_results; i++) {
		const struct pc_variant *v = pc_result_find_variant(&r->results[i], scenario);

		if (v && (v->status == PC_STATUS_PASS || v->status == PC_STATUS_FAIL))
			return true;
	}
	return false;
}

/* Every scenario named in r's variants that judged on r but not on other:
   into list. */
static void ran_only(const struct pc_report *r, const struct pc_report *other, char *list,
		     size_t sz, int *n)
{
	for (int i = 0; r && i < r->n_results; i++)
		for (int k = 0; k < pc_result_n_variants(&r->results[i]); k++) {
			const char *name = r->results[i].variants[k].scenario;

			if (ran_on(r, name) && !ran_on(other, name))
				list_add(list, sz, n, "", name);
		}
}

bool pc_gate_mix_differs(const struct pc_gate_group *g, struct pc_gate_like *l)
{
	ran_only(g->base.merged, g->cand.merged, l->only_base, sizeof(l->only_base),
		 &l->n_only_base);
	ran_only(g->cand.merged, g->base.merged, l->only_cand, sizeof(l->only_cand),
		 &l->n_only_cand);
	return l->n_only_base || l->n_only_cand;
}
