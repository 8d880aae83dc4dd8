// SPDX-License-Identifier: GPL-2.0
/*
 * Judging the control and the mutants (judge.h) from their reports, read
 * with the gate's report parser, and from the gate's JSON decision.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <ptecheck/budget.h>
#include "cli.h"
#include "gate.h"
#include "gate_input.h"
#include "judge.h"
#include "merge.h"

#define GATE_JSON_MAX_BYTES (8u << 20)

/* The first line of DIR/NAME, one of the files mutate/mutate writes beside
   the reports: `failed` when it has none to give (build or boot failed),
   `note` when they were had another way; false when there is none. */
static bool read_line(const char *dir, const char *name, char *line, size_t sz)
{
	char path[4096], err[PC_GATE_ERR_MAX];
	size_t len;
	char *buf;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	buf = pc_gate_read_file(path, 65536, &len, err, sizeof(err));
	if (!buf)
		return false;
	buf[strcspn(buf, "\n")] = '\0';
	snprintf(line, sz, "%s", buf[0] ? buf : "(no reason given)");
	free(buf);
	return true;
}

/* Keeps res once per (check, tier) over the runs. */
static void keep_failure(struct pc_mutate_run *run, const struct pc_result *res)
{
	struct pc_mutate_failure *f;

	for (int i = 0; i < run->n_failed; i++)
		if (!strcmp(run->failed[i].check, res->name) &&
		    !strcmp(run->failed[i].tier, res->tier))
			return;
	if (run->n_failed == PC_MUTATE_MAX_FAILED)
		return;
	f = &run->failed[run->n_failed++];
	snprintf(f->check, sizeof(f->check), "%s", res->name);
	snprintf(f->tier, sizeof(f->tier), "%s", res->tier);
	snprintf(f->evidence, sizeof(f->evidence), "%s",
		 res->n_evidence ? res->evidence[0].what : res->summary);
}

/* The kernel log of one report: a splat is a failed PATH/kernel-log check
   (counted with the failures); one that was not read leaves the run
   unproven (why in *unread). */
static void judge_log(const struct pc_report *r, struct pc_mutate_run *run)
{
	for (int i = 0; i < r->n_results; i++) {
		const struct pc_result *res = &r->results[i];

		if (strcmp(res->tier, PC_TIER_KMSG) != 0)
			continue;
		run->logs++;
		if (res->status == PC_STATUS_SKIP && !run->log_unread[0])
			snprintf(run->log_unread, sizeof(run->log_unread), "%s: %s", res->name,
				 res->summary);
	}
}

/* One report of DIR's run (report.json, then report-2.json ... for
   --runs): false when there is none; a bad one sets run->why. */
static bool load_report(const char *dir, int k, struct pc_mutate_run *run)
{
	char path[4096], err[PC_GATE_ERR_MAX];
	struct pc_report *r;
	int pass, fail, skip;

	if (k == 1)
		snprintf(path, sizeof(path), "%s/report.json", dir);
	else
		snprintf(path, sizeof(path), "%s/report-%d.json", dir, k);
	if (k > 1 && access(path, F_OK) != 0)
		return false;
	if (pc_gate_report_load(path, false, &r, err, sizeof(err))) {
		snprintf(run->why, sizeof(run->why), "%s: %s", path, err);
		return false;
	}
	run->n_reports++;
	snprintf(run->release, sizeof(run->release), "%s", r->kernel_release);
	pc_report_count(r, &pass, &fail, &skip);
	run->pass += pass;
	run->fail += fail;
	run->skip += skip;
	for (int i = 0; i < r->n_results; i++)
		if (r->results[i].status == PC_STATUS_FAIL)
			keep_failure(run, &r->results[i]);
	judge_log(r, run);
	if (r->bpf.n_refused && !run->refused[0])
		snprintf(run->refused, sizeof(run->refused), "%s", r->bpf.refused[0]);
	/* The verifier's budget, as on every kernel CI boots (trace/load.h). */
	for (int i = 0; i < r->bpf.n_progs && !run->refused[0]; i++)
		if (r->bpf.progs[i].verified_insns > PC_VERIFY_BUDGET_INSNS)
			snprintf(run->refused, sizeof(run->refused),
				 "%s: %u instructions verified, over the budget of %d", path,
				 r->bpf.progs[i].verified_insns, PC_VERIFY_BUDGET_INSNS);
	pc_report_free(r);
	return true;
}

/*
 * The reports mutate/mutate keeps of boots that died (report-K-died.json)
 * or that page_table_check panicked (report-K-ptc.json): the crash itself
 * ([console]) is not one of ptecheck's checks catching the bug, but a
 * check another tier judged before the kernel died is (the crash witness,
 * merge/died.c, judged on entry to the call the kernel died in).  How many
 * such failures were kept.
 */
static int load_dead_boots(const char *dir, struct pc_mutate_run *run)
{
	static const char *const kinds[] = {"died", "ptc"};
	char path[4096], err[PC_GATE_ERR_MAX];
	struct pc_report *r;
	int kept = 0;

	for (int k = 1; k <= PC_MUTATE_MAX_RUNS; k++)
		for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
			snprintf(path, sizeof(path), "%s/report-%d-%s.json", dir, k, kinds[i]);
			if (access(path, F_OK) != 0 ||
			    pc_gate_report_load(path, false, &r, err, sizeof(err)))
				continue;
			for (int j = 0; j < r->n_results; j++)
				if (r->results[j].status == PC_STATUS_FAIL &&
				    strcmp(r->results[j].tier, PC_TIER_CONSOLE) != 0) {
					keep_failure(run, &r->results[j]);
					kept++;
				}
			pc_report_free(r);
		}
	return kept;
}

/* Reads DIR's run: every report, or why there is none. */
static void load_run(const char *dir, struct pc_mutate_run *run)
{
	memset(run, 0, sizeof(*run));
	if (read_line(dir, "failed", run->why, sizeof(run->why))) {
		/* A kernel that died judged by what ptecheck saw before. */
		if (load_dead_boots(dir, run)) {
			snprintf(run->note, sizeof(run->note), "%s", run->why);
			run->why[0] = '\0';
			run->died = run->have_report = true;
		}
		return;
	}
	read_line(dir, "note", run->note, sizeof(run->note));
	for (int k = 1; load_report(dir, k, run); k++)
		;
	load_dead_boots(dir, run);
	run->have_report = run->n_reports > 0 && !run->why[0];
}

void pc_mutate_judge_control(const char *dir, struct pc_mutate_control *c)
{
	memset(c, 0, sizeof(*c));
	load_run(dir, &c->run);
	if (!c->run.have_report)
		snprintf(c->reason, sizeof(c->reason), "no report: %s", c->run.why);
	else if (c->run.fail)
		snprintf(c->reason, sizeof(c->reason), "%d check tiers failed, first %s [%s]: %s",
			 c->run.fail, c->run.failed[0].check, c->run.failed[0].tier,
			 c->run.failed[0].evidence);
	else if (c->run.refused[0])
		snprintf(c->reason, sizeof(c->reason), "ptecheck's programs on this kernel: %s",
			 c->run.refused);
	else if (c->run.log_unread[0])
		snprintf(c->reason, sizeof(c->reason), "kernel log not judged: %s",
			 c->run.log_unread);
	else if (!c->run.logs)
		snprintf(c->reason, sizeof(c->reason), "the report has no kernel-log check");
	c->clean = !c->reason[0];
	if (c->clean)
		snprintf(c->reason, sizeof(c->reason),
			 "%d run%s: %d passed, %d skipped, none failed; kernel log read by %d "
			 "checks, no splat",
			 c->run.n_reports, c->run.n_reports == 1 ? "" : "s", c->run.pass,
			 c->run.skip, c->run.logs);
}

/* The gate's decision from DIR/gate.json (its --format json output). */
static int load_gate(const char *dir, struct pc_mutate_row *row, char *err, size_t errlen)
{
	struct pc_field_ctx fc = {.err = err, .errlen = errlen};
	char path[4096];
	size_t len, i;
	json_t *root, *rules, *rule;
	char *buf;
	int ret = -1;

	snprintf(path, sizeof(path), "%s/gate.json", dir);
	buf = pc_gate_read_file(path, GATE_JSON_MAX_BYTES, &len, err, errlen);
	if (!buf)
		return -1;
	root = pc_gate_json_load(buf, len, err, errlen);
	free(buf);
	if (!root ||
	    pc_field_str(&fc, root, "decision", row->decision, sizeof(row->decision), true))
		goto out;
	rules = pc_field_typed(&fc, root, "rules", JSON_ARRAY);
	if (!rules)
		goto out;
	json_array_foreach(rules, i, rule)
	{
		char name[48], verdict[16];
		json_t *reasons = json_object_get(rule, "reasons"), *first = NULL, *f;
		size_t k;

		/* The first problem, not the context before it ("like with like"). */
		json_array_foreach(reasons, k, f)
		{
			if (!first && json_is_true(json_object_get(f, "problem")))
				first = f;
		}
		first = first ? first : json_array_get(reasons, 0);

		snprintf(fc.where, sizeof(fc.where), "rules[%zu]", i);
		if (pc_field_str(&fc, rule, "rule", name, sizeof(name), true) ||
		    pc_field_str(&fc, rule, "verdict", verdict, sizeof(verdict), true))
			goto out;
		if (strcmp(verdict, "fail") != 0 || row->n_rules == PC_MUTATE_MAX_RULES)
			continue;
		snprintf(row->rules[row->n_rules++], sizeof(row->rules[0]), "%s", name);
		if (!row->gate_evidence[0] && json_is_string(json_object_get(first, "text")))
			snprintf(row->gate_evidence, sizeof(row->gate_evidence), "%s: %s%s%s", name,
				 json_string_value(json_object_get(first, "text")),
				 json_is_string(json_object_get(first, "evidence")) ? "; " : "",
				 json_is_string(json_object_get(first, "evidence"))
					 ? json_string_value(json_object_get(first, "evidence"))
					 : "");
	}
	ret = 0;
out:
	if (ret)
		pc_set_err(err, errlen, "%s: %s", path, strdupa(err));
	json_decref(root);
	return ret;
}

/* The first expectation the run meets, into row->reason; false if none. */
static bool meets(struct pc_mutate_row *row)
{
	for (int e = 0; e < row->m.n_expect; e++) {
		const char *want = row->m.expect[e];

		for (int r = 0; r < row->n_rules && !strncmp(want, "gate:", 5); r++)
			if (strcmp(want + 5, row->rules[r]) == 0) {
				snprintf(row->reason, sizeof(row->reason), "the gate's %s failed",
					 row->rules[r]);
				return true;
			}
		for (int f = 0; f < row->run.n_failed; f++)
			if (strcmp(want, row->run.failed[f].check) == 0) {
				snprintf(row->reason, sizeof(row->reason), "%s failed [%s]", want,
					 row->run.failed[f].tier);
				return true;
			}
	}
	return false;
}

int pc_mutate_judge_mutant(const char *patch, const char *dir, struct pc_mutate_row *row, char *err,
			   size_t errlen)
{
	char gate_err[PC_GATE_ERR_MAX] = "";
	memset(row, 0, sizeof(*row));
	if (pc_mutant_load(patch, &row->m, err, errlen))
		return -1;
	load_run(dir, &row->run);
	if (!row->run.have_report) {
		snprintf(row->reason, sizeof(row->reason), "no report: %s", row->run.why);
		return 0;
	}
	if (load_gate(dir, row, gate_err, sizeof(gate_err)))
		row->decision[0] = '\0';
	if (row->run.refused[0]) {
		snprintf(row->reason, sizeof(row->reason), "ptecheck's programs on this kernel: %s",
			 row->run.refused);
		return 0;
	}
	row->caught = meets(row);
	if (!row->caught)
		snprintf(row->reason, sizeof(row->reason), "%s%s%s",
			 row->run.n_failed ? "only checks not expected failed"
					   : "no expected check failed",
			 gate_err[0] ? "; gate not read: " : "", gate_err);
	return 0;
}

int pc_mutate_exit_code(const struct pc_mutate_control *c, const struct pc_mutate_row *rows, int n)
{
	if (!c->clean)
		return PC_MUTATE_NOT_OK;
	for (int i = 0; i < n; i++)
		if (!rows[i].caught)
			return PC_MUTATE_NOT_OK;
	return PC_MUTATE_OK;
}
