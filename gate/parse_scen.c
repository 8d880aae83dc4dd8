// SPDX-License-Identifier: GPL-2.0
/*
 * ptecheck gate: a report's "scenario_histograms" (schema 7): what the
 * histograms counted while each scenario ran.  Each histogram must be one
 * of the report's run-wide ones, of the same kind, its buckets the low
 * bounds of its slots: anything else is bad input, as in parse.c.
 */
#include <string.h>
#include "cli.h"
#include "gate_input.h"

#define MAX_SCENARIOS 4096 /* per report; a run of every suite has ~110 */

/* One [low, count] bucket of h (c->where names it). */
static int parse_bucket(struct pc_field_ctx *c, json_t *b, size_t i, struct pc_hist_report *h)
{
	json_t *lo = json_array_get(b, 0), *n = json_array_get(b, 1);
	__u32 slot;

	if (!json_is_array(b) || json_array_size(b) != 2 || !json_is_integer(lo) ||
	    !json_is_integer(n) || json_integer_value(lo) < 0 || json_integer_value(n) < 0) {
		FERR(c, "buckets", "item %zu: expected [low, count], two counts", i);
		return -1;
	}
	slot = pc_hist_slot(h->kind, (__u64)json_integer_value(lo));
	if (pc_hist_slot_low(h->kind, slot) != (__u64)json_integer_value(lo)) {
		FERR(c, "buckets", "item %zu: no bucket of a %s histogram starts at %lld", i,
		     h->kind == PC_HIST_LINLOG ? "linlog" : "log2",
		     (long long)json_integer_value(lo));
		return -1;
	}
	h->slots[slot] = pc_sat_add(h->slots[slot], (__u64)json_integer_value(n));
	return 0;
}

/* The run-wide histogram a schema 7 scenario's histogram names by title. */
static const struct pc_hist_report *by_title(const struct pc_report *r, const char *name)
{
	for (int i = 0; i < r->n_hists; i++)
		if (!strncmp(r->hists[i].name, name, sizeof(r->hists[i].name)))
			return &r->hists[i];
	return NULL;
}

/* One histogram of scenario sc (c->where names it): by id (schema 8), by
   title before. */
static int parse_one(struct pc_field_ctx *c, json_t *o, const struct pc_report *r,
		     struct pc_scenario_hists *sc)
{
	const char *key = c->schema < 8 ? "name" : "id";
	const struct pc_hist_report *run_wide;
	struct pc_hist_report h;
	char name[sizeof(h.name)], kind[8];
	json_t *bs, *b;
	size_t i;

	if (pc_field_not_object(c, o))
		return -1;
	if (pc_field_str(c, o, key, name, sizeof(name), true) ||
	    pc_field_str(c, o, "kind", kind, sizeof(kind), true))
		return -1;
	run_wide = c->schema < 8 ? by_title(r, name) : pc_report_find_hist(r, name);
	if (!run_wide) {
		FERR(c, key, "\"%s\" is none of the report's histograms", name);
		return -1;
	}
	if (strcmp(kind, run_wide->kind == PC_HIST_LINLOG ? "linlog" : "log2")) {
		FERR(c, "kind", "\"%s\", but the histogram \"%s\" is not", kind, name);
		return -1;
	}
	h = *run_wide;
	memset(h.slots, 0, sizeof(h.slots));
	h.has_sum = false;
	bs = pc_field_typed(c, o, "buckets", JSON_ARRAY);
	if (!bs)
		return -1;
	json_array_foreach(bs, i, b)
	{
		if (parse_bucket(c, b, i, &h))
			return -1;
	}
	if (pc_scenario_hist(sc, h.id)) {
		FERR(c, key, "\"%s\" twice", name);
		return -1;
	}
	if (pc_scenario_hists_add(sc, &h)) {
		pc_set_err(c->err, c->errlen, "out of memory");
		return -1;
	}
	return 0;
}

/* One scenario (c->where names it). */
static int parse_scenario(struct pc_field_ctx *c, json_t *o, struct pc_report *r)
{
	char suite[32], scenario[32];
	struct pc_scenario_hists *sc;
	size_t i, wl = strlen(c->where);
	json_t *hs, *h;
	bool judged;

	if (pc_field_not_object(c, o))
		return -1;
	if (pc_field_str(c, o, "suite", suite, sizeof(suite), true) ||
	    pc_field_str(c, o, "scenario", scenario, sizeof(scenario), true) ||
	    pc_field_bool(c, o, "judged", &judged))
		return -1;
	if (pc_report_scenario(r, suite, scenario, false)) {
		FERR(c, "scenario", "%s/%s twice", suite, scenario);
		return -1;
	}
	sc = pc_report_scenario(r, suite, scenario, true);
	if (!sc) {
		pc_set_err(c->err, c->errlen, "out of memory");
		return -1;
	}
	sc->judged = judged;
	hs = pc_field_typed(c, o, "histograms", JSON_ARRAY);
	if (!hs)
		return -1;
	json_array_foreach(hs, i, h)
	{
		snprintf(c->where + wl, sizeof(c->where) - wl, ".histograms[%zu]", i);
		if (parse_one(c, h, r, sc))
			return -1;
		c->where[wl] = '\0';
	}
	return 0;
}

int pc_gate_parse_scenario_hists(struct pc_field_ctx *c, json_t *root, struct pc_report *r)
{
	json_t *a = json_object_get(root, "scenario_histograms"), *o;
	size_t i;

	if (!a)
		return 0;
	a = pc_field_typed(c, root, "scenario_histograms", JSON_ARRAY);
	if (!a)
		return -1;
	if (json_array_size(a) > MAX_SCENARIOS) {
		pc_set_err(c->err, c->errlen, "scenario_histograms: %zu items, at most %d",
			   json_array_size(a), MAX_SCENARIOS);
		return -1;
	}
	json_array_foreach(a, i, o)
	{
		snprintf(c->where, sizeof(c->where), "scenario_histograms[%zu]", i);
		if (parse_scenario(c, o, r))
			return -1;
	}
	c->where[0] = '\0';
	return 0;
}
