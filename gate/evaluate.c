// SPDX-License-Identifier: GPL-2.0
/*
 * ptecheck gate: grouping reports by (machine, suite, scale), refusing
 * input the rules cannot judge, merging repeated runs, and applying the
 * rules (rules.c, rules_batch.c, rules_perf.c) to each group.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "gate_rules.h"

/* ---- grouping and merging ------------------------------------------------ */

static bool same_key(const struct pc_report *a, const char *machine, const char *suite,
		     unsigned int scale)
{
	return !strncmp(a->machine, machine, sizeof(a->machine)) &&
	       !strncmp(a->suite, suite, sizeof(a->suite)) && a->scale == scale;
}

static int side_add(struct pc_gate_side *s, const char *file, const struct pc_report *r)
{
	const char **nf;
	const struct pc_report **nr;

	nf = realloc(s->files, (size_t)(s->n_runs + 1) * sizeof(*nf));
	if (!nf)
		return -1;
	s->files = nf;
	nr = realloc(s->runs, (size_t)(s->n_runs + 1) * sizeof(*nr));
	if (!nr)
		return -1;
	s->runs = nr;
	s->files[s->n_runs] = file;
	s->runs[s->n_runs] = r;
	s->n_runs++;
	return 0;
}

/* Worse status wins: fail, then skip, then pass. */
static int rank(enum pc_status st)
{
	return st == PC_STATUS_FAIL ? 2 : st == PC_STATUS_SKIP ? 1 : 0;
}

/* A scenario variant over a side's runs: the worst, as for results, so
   one run where the ext4 variant did not run has lost it. */
static void merge_variants(struct pc_result *m, const struct pc_result *src)
{
	for (int v = 0; v < pc_result_n_variants(src); v++) {
		const struct pc_variant *sv = &src->variants[v];
		const struct pc_variant *found = pc_result_find_variant(m, sv->scenario);
		struct pc_variant *mv = found ? &m->variants[found - m->variants] : NULL;

		if (!mv && pc_result_n_variants(m) < PC_MAX_VARIANTS)
			m->variants[m->n_variants++] = *sv;
		else if (mv && rank(sv->status) > rank(mv->status))
			*mv = *sv;
	}
}

/* Each scenario's histograms add up; it judged only if it did in every
   run (as a variant skipped in one run is skipped for the side). */
static int merge_scenarios(struct pc_report *into, const struct pc_report *r, const char *file,
			   const char *first_file, char *err, size_t errlen)
{
	for (int i = 0; i < r->n_scens; i++) {
		const struct pc_scenario_hists *src = &r->scens[i];
		struct pc_scenario_hists *m =
			pc_report_scenario(into, src->suite, src->scenario, false);
		bool judged = m ? m->judged && src->judged : src->judged;

		m = m ? m : pc_report_scenario(into, src->suite, src->scenario, true);
		if (!m) {
			pc_set_err(err, errlen, "out of memory");
			return -1;
		}
		m->judged = judged;
		for (int k = 0; k < src->n_hists; k++) {
			int rc = pc_scenario_hists_add(m, &src->hists[k]);

			if (rc == -ENOMEM) {
				pc_set_err(err, errlen, "out of memory");
				return -1;
			}
			if (rc) {
				pc_set_err(err, errlen,
					   "%s: scenario %s/%s: histogram %s of another kind "
					   "than in %s: runs of different ptecheck versions cannot "
					   "be merged",
					   file, src->suite, src->scenario, src->hists[k].id,
					   first_file);
				return -1;
			}
		}
	}
	return 0;
}

int pc_gate_merge_report(struct pc_report *into, const struct pc_report *r, const char *file,
			 const char *first_file, char *err, size_t errlen)
{
	int j, k;

	for (j = 0; j < r->n_results; j++) {
		const struct pc_result *src = &r->results[j];
		struct pc_result *m = pc_report_find_result(into, src->name, src->tier);

		if (!m) {
			m = pc_report_add_result(into, src->name, src->tier, src->in_kernel);
			if (!m)
				goto oom;
			*m = *src;
		} else if (rank(src->status) > rank(m->status)) {
			/* Keep the summary and evidence of the worst run. */
			*m = *src;
		}
	}
	for (j = 0; j < r->n_results; j++)
		merge_variants(pc_report_find_result(into, r->results[j].name, r->results[j].tier),
			       &r->results[j]);
	for (j = 0; j < r->n_hists; j++) {
		const struct pc_hist_report *src = &r->hists[j];
		struct pc_hist_report *m = pc_report_find_hist(into, src->id);

		if (!m) {
			m = pc_report_add_hist(into, src->id, src->name, src->unit, src->source,
					       src->in_kernel, src->kind);
			if (!m)
				goto oom;
			pc_report_hist_batch(m, src->batch_ctx, src->batch_src);
		} else if (m->kind != src->kind) {
			pc_set_err(err, errlen,
				   "%s: histogram %s is %s here but %s in %s: runs of "
				   "different ptecheck versions cannot be merged",
				   file, src->id, src->kind == PC_HIST_LINLOG ? "linlog" : "log2",
				   m->kind == PC_HIST_LINLOG ? "linlog" : "log2", first_file);
			return -1;
		}
		for (k = 0; k < PC_HIST_SLOTS; k++)
			m->slots[k] = pc_sat_add(m->slots[k], src->slots[k]);
	}
	return merge_scenarios(into, r, file, first_file, err, errlen);
oom:
	pc_set_err(err, errlen, "out of memory");
	return -1;
}

static int merge_side(struct pc_gate_side *s, const char *suite, char *err, size_t errlen)
{
	s->merged = pc_report_new("run", suite);
	if (!s->merged) {
		pc_set_err(err, errlen, "out of memory");
		return -1;
	}
	for (int i = 0; i < s->n_runs; i++)
		if (pc_gate_merge_report(s->merged, s->runs[i], s->files[i], s->files[0], err,
					 errlen))
			return -1;
	return 0;
}

/* A check's status over the runs of a side; absent from one run counts as skipped there. */
static enum pc_gate_status side_status(const struct pc_gate_side *s, const char *check,
				       const char *tier)
{
	int i, found = 0, worst = 0;

	for (i = 0; i < s->n_runs; i++) {
		const struct pc_result *res =
			pc_report_find_result((struct pc_report *)s->runs[i], check, tier);

		if (!res) {
			worst = worst > 1 ? worst : 1;
			continue;
		}
		found++;
		if (rank(res->status) > worst)
			worst = rank(res->status);
	}
	if (!found)
		return PC_GATE_ST_MISSING;
	return worst == 2 ? PC_GATE_ST_FAIL : worst == 1 ? PC_GATE_ST_SKIP : PC_GATE_ST_PASS;
}

static int add_row(struct pc_gate_group *g, const struct pc_result *res, int *cap)
{
	struct pc_gate_check_row *row;
	int i;

	for (i = 0; i < g->n_rows; i++)
		if (!strcmp(g->rows[i].check, res->name) && !strcmp(g->rows[i].tier, res->tier))
			return 0;
	row = pc_gate_grow(g->rows, g->n_rows, cap, sizeof(*row), 32);
	if (!row)
		return -1;
	g->rows = row;
	row = &g->rows[g->n_rows++];
	memset(row, 0, sizeof(*row));
	snprintf(row->check, sizeof(row->check), "%.*s", (int)strnlen(res->name, 47), res->name);
	snprintf(row->tier, sizeof(row->tier), "%.*s", (int)strnlen(res->tier, 47), res->tier);
	row->base =
		g->has_baseline ? side_status(&g->base, row->check, row->tier) : PC_GATE_ST_MISSING;
	row->cand = side_status(&g->cand, row->check, row->tier);
	return 0;
}

static int build_rows(struct pc_gate_group *g)
{
	int i, cap = 0;

	for (i = 0; i < g->cand.merged->n_results; i++)
		if (add_row(g, &g->cand.merged->results[i], &cap))
			return -1;
	for (i = 0; g->base.merged && i < g->base.merged->n_results; i++)
		if (add_row(g, &g->base.merged->results[i], &cap))
			return -1;
	return 0;
}

/* ---- evaluation ------------------------------------------------------------ */

static struct pc_gate_group *find_group(struct pc_gate_result *g, const struct pc_report *r)
{
	int i;

	for (i = 0; i < g->n_groups; i++)
		if (same_key(r, g->groups[i].machine, g->groups[i].suite, g->groups[i].scale))
			return &g->groups[i];
	return NULL;
}

/* A baseline b (file bfile) of the machine of group grp, of another workload: -1. */
static int different_workloads(const struct pc_gate_group *grp, const struct pc_report *b,
			       const char *bfile, char *err, size_t errlen)
{
	pc_set_err(err, errlen,
		   "%s: different workloads: suite %s scale %u vs suite %s scale %u "
		   "(candidate vs baseline %s, %s)",
		   grp->cand.files[0], grp->suite, grp->scale, b->suite, b->scale, bfile,
		   grp->machine);
	return -1;
}

/* Refuses input the rules cannot judge; the message names the files. */
static int match_baselines(const struct pc_gate_input *in, struct pc_gate_result *g, char *err,
			   size_t errlen)
{
	int i, j;

	for (i = 0; i < in->n_base; i++) {
		const struct pc_report *b = in->base[i];
		struct pc_gate_group *grp = find_group(g, b);

		if (grp) {
			grp->has_baseline = true;
			if (side_add(&grp->base, in->base_files[i], b))
				goto oom;
			continue;
		}
		for (j = 0; j < g->n_groups; j++) {
			if (strcmp(g->groups[j].machine, b->machine) != 0)
				continue;
			return different_workloads(&g->groups[j], b, in->base_files[i], err,
						   errlen);
		}
		/* A candidate job that produced nothing must not pass silently. */
		pc_set_err(
			err, errlen,
			"%s: baseline for %s (suite %s scale %u) has no candidate report of that "
			"machine",
			in->base_files[i], b->machine, b->suite, b->scale);
		return -1;
	}
	for (i = 0; i < g->n_groups; i++) {
		struct pc_gate_group *grp = &g->groups[i];

		if (grp->has_baseline)
			continue;
		for (j = 0; j < in->n_base; j++) {
			if (strcmp(in->base[j]->machine, grp->machine) != 0)
				continue;
			return different_workloads(grp, in->base[j], in->base_files[j], err,
						   errlen);
		}
		if (!in->policy.allow_no_baseline) {
			pc_set_err(err, errlen,
				   "%s: no baseline for %s (suite %s scale %u): give one with "
				   "--baseline, or set \"allow_no_baseline\": true in the policy",
				   grp->cand.files[0], grp->machine, grp->suite, grp->scale);
			return -1;
		}
	}
	return 0;
oom:
	pc_set_err(err, errlen, "out of memory");
	return -1;
}

int pc_gate_evaluate(const struct pc_gate_input *in, struct pc_gate_result **out, char *err,
		     size_t errlen)
{
	struct pc_gate_result *g;
	int i, r;

	*out = NULL;
	if (in->n_cand <= 0) {
		pc_set_err(err, errlen, "no candidate report");
		return -1;
	}
	g = calloc(1, sizeof(*g));
	if (!g)
		goto oom;
	g->policy = &in->policy;
	g->groups = calloc((size_t)in->n_cand, sizeof(*g->groups));
	if (!g->groups)
		goto oom;
	for (i = 0; i < in->n_cand; i++) {
		const struct pc_report *c = in->cand[i];
		struct pc_gate_group *grp = find_group(g, c);

		if (!grp) {
			grp = &g->groups[g->n_groups++];
			snprintf(grp->machine, sizeof(grp->machine), "%.*s",
				 (int)strnlen(c->machine, sizeof(c->machine)), c->machine);
			snprintf(grp->suite, sizeof(grp->suite), "%.*s",
				 (int)strnlen(c->suite, sizeof(c->suite)), c->suite);
			grp->scale = c->scale;
			for (r = 0; r < PC_GATE_RULE__COUNT; r++)
				grp->rules[r].rule = r;
		}
		if (side_add(&grp->cand, in->cand_files[i], c))
			goto oom;
	}
	if (match_baselines(in, g, err, errlen))
		goto fail;
	g->ship = true;
	for (i = 0; i < g->n_groups; i++) {
		struct pc_gate_group *grp = &g->groups[i];

		if (merge_side(&grp->cand, grp->suite, err, errlen) ||
		    (grp->has_baseline && merge_side(&grp->base, grp->suite, err, errlen)))
			goto fail;
		if (build_rows(grp))
			goto oom;
		pc_gate_rule_invariant(grp);
		pc_gate_rule_coverage(grp, &in->policy);
		pc_gate_rule_batching(grp, &in->policy);
		pc_gate_rule_perf(grp, &in->policy);
		for (r = 0; r < PC_GATE_RULE__COUNT; r++)
			if (grp->rules[r].verdict == PC_GATE_FAIL)
				g->ship = false;
	}
	*out = g;
	return 0;
oom:
	pc_set_err(err, errlen, "out of memory");
fail:
	pc_gate_result_free(g);
	return -1;
}

static void free_side(struct pc_gate_side *s)
{
	free(s->files);
	free(s->runs);
	pc_report_free(s->merged);
}

void pc_gate_result_free(struct pc_gate_result *g)
{
	int i, r, k;

	if (!g)
		return;
	for (i = 0; g->groups && i < g->n_groups; i++) {
		struct pc_gate_group *grp = &g->groups[i];

		free_side(&grp->base);
		free_side(&grp->cand);
		free(grp->rows);
		for (r = 0; r < PC_GATE_RULE__COUNT; r++) {
			struct pc_gate_rule_result *rr = &grp->rules[r];

			for (k = 0; k < rr->n_findings; k++) {
				free(rr->findings[k].text);
				free(rr->findings[k].evidence);
			}
			free(rr->findings);
			for (k = 0; k < rr->n_improvements; k++)
				free(rr->improvements[k]);
			free(rr->improvements);
			free(rr->not_judged);
		}
	}
	free(g->groups);
	free(g);
}
