// SPDX-License-Identifier: GPL-2.0
/*
 * ptecheck gate, JSON (schema ptecheck-gate, version 1; docs/gate.md).
 */
#include "gate_output.h"
#include "json_out.h"

#define JTXT(s) pc_jstr((s), PC_GATE_CLEAN_MAX, PC_CLEAN_LINE | PC_CLEAN_NONCHAR)

/* batch_noise_pct, batch_share_noise_pp: {"name substring": floor, ...}. */
static json_t *json_floors(struct pc_jb *b, const struct pc_gate_floor *floors, int n)
{
	json_t *o = json_object();

	for (int i = 0; i < n && i < PC_GATE_MAX_BATCH_NAMES; i++)
		pc_jset(b, o, floors[i].name, json_real(floors[i].pct));
	return o;
}

static json_t *json_policy(struct pc_jb *b, const struct pc_gate_policy *p)
{
	json_t *o = json_object(), *a = json_array();
	int i;

	pc_jset(b, o, "coverage_loss", json_string(p->coverage_loss ? "fail" : "report"));
	pc_jset(b, o, "batching_regression",
		json_string(p->batching_regression ? "fail" : "report"));
	pc_jset(b, o, "performance_regression",
		json_string(p->performance_regression ? "fail" : "report"));
	pc_jset(b, o, "batching_tolerance_pct", json_real(p->batching_tolerance_pct));
	pc_jset(b, o, "perf_threshold_pct", json_real(p->perf_threshold_pct));
	pc_jset(b, o, "perf_min_runs", json_integer(p->perf_min_runs));
	pc_jset(b, o, "allow_partial", json_boolean(p->allow_partial));
	pc_jset(b, o, "allow_no_baseline", json_boolean(p->allow_no_baseline));
	for (i = 0; i < p->n_batch_names && i < PC_GATE_MAX_BATCH_NAMES; i++)
		pc_jpush(b, a, JTXT(p->batch_names[i]));
	pc_jset(b, o, "batch_histograms", a);
	pc_jset(b, o, "batch_min_batches", json_integer(p->batch_min_batches));
	pc_jset(b, o, "batch_noise_pct", json_floors(b, p->noise, p->n_noise));
	pc_jset(b, o, "noise_default_pct", json_real(p->noise_default_pct));
	pc_jset(b, o, "batch_share_noise_pp", json_floors(b, p->share_noise, p->n_share_noise));
	pc_jset(b, o, "share_noise_default_pp", json_real(p->share_noise_default_pp));
	a = json_array();
	if (p->order_all[0]) {
		pc_jpush(b, a, JTXT(p->order_all));
		pc_jpush(b, a, JTXT(p->order_full));
	}
	pc_jset(b, o, "order_histograms", a);
	pc_jset(b, o, "order_noise_pp", json_real(p->order_noise_pp));
	pc_jset(b, o, "batch_sampling_sigmas", json_real(p->batch_sampling_sigmas));
	pc_jset(b, o, "order_min_batches", json_integer(p->order_min_batches));
	pc_jset(b, o, "latency_histogram", JTXT(p->latency_histogram));
	return o;
}

static json_t *json_side(struct pc_jb *b, const struct pc_gate_side *s)
{
	json_t *o = json_object(), *files = json_array(), *kernels = json_array();
	int i;

	for (i = 0; i < s->n_runs; i++) {
		pc_jpush(b, files, JTXT(s->files[i]));
		pc_jpush(b, kernels, JTXT(s->runs[i]->kernel_release));
	}
	pc_jset(b, o, "runs", json_integer(s->n_runs));
	pc_jset(b, o, "files", files);
	pc_jset(b, o, "kernels", kernels);
	return o;
}

/* The group a rule or improvement is of: machine, suite, scale. */
static void json_key(struct pc_jb *b, json_t *o, const struct pc_gate_group *grp)
{
	pc_jset(b, o, "machine", JTXT(grp->machine));
	pc_jset(b, o, "suite", JTXT(grp->suite));
	pc_jset(b, o, "scale", json_integer(grp->scale));
}

static json_t *json_rule(struct pc_jb *b, const struct pc_gate_group *grp, int r)
{
	const struct pc_gate_rule_result *rr = &grp->rules[r];
	json_t *ro = json_object(), *reasons = json_array();
	int k;

	pc_jset(b, ro, "rule", json_string(pc_gate_rule_name(r)));
	json_key(b, ro, grp);
	pc_jset(b, ro, "verdict", json_string(pc_gate_verdict_name(rr->verdict)));
	pc_jset(b, ro, "fails_gate", json_boolean(rr->verdict == PC_GATE_FAIL));
	pc_jset(b, ro, "not_judged", rr->not_judged ? JTXT(rr->not_judged) : json_null());
	for (k = 0; k < rr->n_findings; k++) {
		const struct pc_gate_finding *f = &rr->findings[k];
		json_t *fo = json_object();

		pc_jset(b, fo, "problem", json_boolean(f->problem));
		pc_jset(b, fo, "text", JTXT(f->text));
		pc_jset(b, fo, "evidence", f->evidence ? JTXT(f->evidence) : json_null());
		pc_jpush(b, reasons, fo);
	}
	pc_jset(b, ro, "reasons", reasons);
	return ro;
}

static void json_improvements(struct pc_jb *b, json_t *imps, const struct pc_gate_group *grp, int r)
{
	const struct pc_gate_rule_result *rr = &grp->rules[r];
	int k;

	for (k = 0; k < rr->n_improvements; k++) {
		json_t *io = json_object();

		pc_jset(b, io, "rule", json_string(pc_gate_rule_name(r)));
		json_key(b, io, grp);
		pc_jset(b, io, "text", JTXT(rr->improvements[k]));
		pc_jpush(b, imps, io);
	}
}

/* The group's runs and its checks, baseline status vs candidate status. */
static json_t *json_group(struct pc_jb *b, const struct pc_gate_group *grp)
{
	json_t *go = json_object(), *checks = json_array();
	int k;

	json_key(b, go, grp);
	pc_jset(b, go, "candidate", json_side(b, &grp->cand));
	pc_jset(b, go, "baseline", grp->has_baseline ? json_side(b, &grp->base) : json_null());
	for (k = 0; k < grp->n_rows; k++) {
		const struct pc_gate_check_row *row = &grp->rows[k];
		json_t *co = json_object();

		pc_jset(b, co, "check", JTXT(row->check));
		pc_jset(b, co, "tier", JTXT(row->tier));
		pc_jset(b, co, "baseline",
			grp->has_baseline ? json_string(pc_gate_status_name(row->base))
					  : json_null());
		pc_jset(b, co, "candidate", json_string(pc_gate_status_name(row->cand)));
		pc_jpush(b, checks, co);
	}
	pc_jset(b, go, "checks", checks);
	return go;
}

static json_t *json_gate(struct pc_jb *b, const struct pc_gate_result *g)
{
	json_t *root = json_object(), *rules = json_array(), *imps = json_array(),
	       *groups = json_array();
	int i, r;

	pc_jset(b, root, "schema", json_string("ptecheck-gate"));
	pc_jset(b, root, "schema_version", json_integer(1));
	pc_jset(b, root, "decision", json_string(g->ship ? "ship" : "do-not-ship"));
	pc_jset(b, root, "exit_code",
		json_integer(g->ship ? PC_GATE_EXIT_SHIP : PC_GATE_EXIT_NO_SHIP));
	if (g->policy)
		pc_jset(b, root, "policy", json_policy(b, g->policy));
	for (i = 0; i < g->n_groups; i++) {
		for (r = 0; r < PC_GATE_RULE__COUNT; r++) {
			pc_jpush(b, rules, json_rule(b, &g->groups[i], r));
			json_improvements(b, imps, &g->groups[i], r);
		}
		pc_jpush(b, groups, json_group(b, &g->groups[i]));
	}
	pc_jset(b, root, "rules", rules);
	pc_jset(b, root, "improvements", imps);
	pc_jset(b, root, "groups", groups);
	return root;
}

void pc_gate_write_json(struct pc_out *o, const void *what)
{
	struct pc_jb b = {.failed = false};

	pc_out_json(o, &b, json_gate(&b, what));
}
