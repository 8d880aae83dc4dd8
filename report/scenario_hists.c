// SPDX-License-Identifier: GPL-2.0
/*
 * Each scenario's histograms: the events counted while it ran, kept apart
 * so that a comparison of two kernels can sum the same scenarios on both
 * sides (gate/like.c) instead of whatever each side happened to run.
 */
#include <errno.h>
#include <string.h>
#include "report_writers.h"

struct pc_scenario_hists *pc_report_scenario(struct pc_report *r, const char *suite,
					     const char *scenario, bool add)
{
	struct pc_scenario_hists *arr, *sc;

	for (int i = 0; i < r->n_scens; i++)
		if (!strncmp(r->scens[i].suite, suite, sizeof(r->scens[i].suite)) &&
		    !strncmp(r->scens[i].scenario, scenario, sizeof(r->scens[i].scenario)))
			return &r->scens[i];
	if (!add)
		return NULL;
	arr = pc_report_grow(r->scens, &r->cap_scens, r->n_scens, sizeof(*arr));
	if (!arr)
		return NULL;
	r->scens = arr;
	sc = &arr[r->n_scens++];
	snprintf(sc->suite, sizeof(sc->suite), "%s", suite);
	snprintf(sc->scenario, sizeof(sc->scenario), "%s", scenario);
	return sc;
}

const struct pc_hist_report *pc_scenario_hist(const struct pc_scenario_hists *sc, const char *id)
{
	for (int i = 0; i < sc->n_hists; i++)
		if (!strncmp(sc->hists[i].id, id, sizeof(sc->hists[i].id)))
			return &sc->hists[i];
	return NULL;
}

int pc_scenario_hists_add(struct pc_scenario_hists *sc, const struct pc_hist_report *h)
{
	struct pc_hist_report *m = (struct pc_hist_report *)pc_scenario_hist(sc, h->id);

	if (!m) {
		struct pc_hist_report *arr =
			pc_report_grow(sc->hists, &sc->cap_hists, sc->n_hists, sizeof(*arr));

		if (!arr)
			return -ENOMEM;
		sc->hists = arr;
		m = &arr[sc->n_hists++];
		*m = *h;
		memset(m->slots, 0, sizeof(m->slots));
		m->has_sum = false;
		m->sum = 0;
	} else if (m->kind != h->kind) {
		return -EINVAL;
	}
	for (int i = 0; i < PC_HIST_SLOTS; i++)
		m->slots[i] = pc_sat_add(m->slots[i], h->slots[i]);
	return 0;
}

int pc_scenario_hists_add_delta(struct pc_scenario_hists *sc, const struct pc_report *before,
				const struct pc_report *after)
{
	for (int i = 0; i < after->n_hists; i++) {
		const struct pc_hist_report *a = &after->hists[i];
		const struct pc_hist_report *b = pc_report_find_hist(before, a->id);
		struct pc_hist_report d = *a;
		__u64 n = 0;
		int err;

		/* The counters only grow; a histogram that did not (a kind
		   changed under us) counts from zero. */
		for (int k = 0; k < PC_HIST_SLOTS; k++) {
			__u64 was = b && b->kind == a->kind ? b->slots[k] : 0;

			d.slots[k] = a->slots[k] >= was ? a->slots[k] - was : 0;
			n += d.slots[k];
		}
		if (!n)
			continue;
		err = pc_scenario_hists_add(sc, &d);
		if (err == -ENOMEM)
			return err;
	}
	return 0;
}
