/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside gate/: like with like (like.c).  The views of a group's runs in
 * which each histogram sums only the scenarios judged in every run of
 * both sides, for the batching rule and --noise; and, for reports without
 * per-scenario histograms, whether the two sides judged different
 * scenarios at all.
 */
#ifndef PTECHECK_GATE_LIKE_H
#define PTECHECK_GATE_LIKE_H

#include "gate_rules.h"

struct pc_gate_like_scenario {
	char suite[32], scenario[32];
};

struct pc_gate_like {
	/* Every run of the group has per-scenario histograms (schema 7). */
	bool available;
	int n_common, cap_common;
	struct pc_gate_like_scenario *common;
	/* Judged in every run of one side and not of the other: a list. */
	char only_base[512], only_cand[512];
	int n_only_base, n_only_cand;
	/* The views (NULL-terminated) and their merges; base's NULL without
	   baseline runs. */
	struct pc_report **base_runs, **cand_runs;
	struct pc_report *base_merged, *cand_merged;
};

/* l for group g: 0 (l->available false when a run has no per-scenario
   histograms), or -1 out of memory.  pc_gate_like_free() either way. */
int pc_gate_like_build(const struct pc_gate_group *g, struct pc_gate_like *l);
void pc_gate_like_free(struct pc_gate_like *l);
/* A copy of g whose sides are l's views (the rules array copied too). */
void pc_gate_like_group(const struct pc_gate_group *g, const struct pc_gate_like *l,
			struct pc_gate_group *view);
/* Reports without per-scenario histograms: whether a scenario judged a
   check on one side only (into l's only_ lists). */
bool pc_gate_mix_differs(const struct pc_gate_group *g, struct pc_gate_like *l);

#endif
