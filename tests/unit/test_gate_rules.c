// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of `ptecheck gate`'s rules (gate/evaluate.c, rules.c,
 * rules_batch.c, rules_perf.c): each rule tripped and not tripped, repeated
 * runs, batching per folio order, and the grouping of reports by machine,
 * suite and scale.  Against the noise: test_gate_noise.c.
 * Prints kselftest-style TAP; exits 0 if all passed.
 */
#define _GNU_SOURCE
#include "gate_fixture.h"

/* ---- rule tests ---------------------------------------------------------------- */

static void test_invariant(void)
{
	struct gate g;
	struct pc_report *c;
	struct pc_result *res;

	gate_init(&g);
	add_base(&g, mk("x86_64", "mremap", 1));
	add_cand(&g, mk("x86_64", "mremap", 1));
	TAP_CHECK(gate_run(&g) == 0 && g.res->ship, "clean candidate: ship");
	TAP_CHECK_EQ(rule(&g, 0, PC_GATE_RULE_INVARIANT)->verdict, PC_GATE_PASS,
		     "invariant-failure passes without failures");
	gate_free(&g);

	gate_init(&g);
	add_base(&g, mk("x86_64", "mremap", 1));
	c = mk("x86_64", "mremap", 1);
	res = pc_report_find_result(c, "mremap/moved", "oracle:pagemap");
	pc_result_set(res, PC_STATUS_FAIL, "1 pfn changed");
	res->violations = 1;
	pc_result_add_evidence(res, 42, 0x7f0000001000ULL, 0x7f0000101000ULL, 0x1234, 0x5678,
			       "pfn changed");
	add_cand(&g, c);
	TAP_CHECK(gate_run(&g) == 0 && !g.res->ship, "failing check: do not ship");
	TAP_CHECK_EQ(rule(&g, 0, PC_GATE_RULE_INVARIANT)->verdict, PC_GATE_FAIL,
		     "invariant-failure fails");
	TAP_CHECK(has_finding(rule(&g, 0, PC_GATE_RULE_INVARIANT), true,
			      "mremap/moved [oracle:pagemap] failed on x86_64"),
		  "reason names check, tier and machine");
	TAP_CHECK(has_finding(rule(&g, 0, PC_GATE_RULE_INVARIANT), true, "1 pfn changed"),
		  "reason quotes the summary");
	TAP_CHECK(has_evidence(rule(&g, 0, PC_GATE_RULE_INVARIANT),
			       "pid 42 addr 0x7f0000001000 -> 0x7f0000101000"),
		  "first evidence is quoted");
	gate_free(&g);

	/* Repeated runs: a failure in one of three is a failure. */
	gate_init(&g);
	add_base(&g, mk("x86_64", "mremap", 1));
	add_cand(&g, mk("x86_64", "mremap", 1));
	c = mk("x86_64", "mremap", 1);
	set_status(c, "mremap/batch", "kernel:kprobe", PC_STATUS_FAIL, "count mismatch");
	add_cand(&g, c);
	add_cand(&g, mk("x86_64", "mremap", 1));
	TAP_CHECK(gate_run(&g) == 0 && !g.res->ship &&
			  has_finding(rule(&g, 0, PC_GATE_RULE_INVARIANT), true, "1 of 3 runs"),
		  "failure in 1 of 3 repeated runs: do not ship");
	gate_free(&g);

	/* A candidate that judged nothing but the kernel log cannot ship. */
	gate_init(&g);
	add_base(&g, mk("x86_64", "mremap", 1));
	c = mk("x86_64", "mremap", 1);
	set_status(c, "mremap/moved", "oracle:pagemap", PC_STATUS_SKIP, "no mTHP");
	set_status(c, "mremap/batch", "kernel:kprobe", PC_STATUS_SKIP, "no kprobes");
	set_status(c, "mremap/kernel-log", PC_TIER_KMSG, PC_STATUS_PASS, "no splat");
	add_cand(&g, c);
	TAP_CHECK(gate_run(&g) == 0 && !g.res->ship &&
			  rule(&g, 0, PC_GATE_RULE_INVARIANT)->verdict == PC_GATE_FAIL &&
			  has_finding(rule(&g, 0, PC_GATE_RULE_INVARIANT), true,
				      "no invariant check ran in 1 candidate run (only the kernel "
				      "log was read)"),
		  "only the kernel log judged: invariant-failure fails, do not ship");
	gate_free(&g);
}

static void test_coverage(void)
{
	struct gate g;
	struct pc_report *c;

	gate_init(&g);
	add_base(&g, mk("x86_64", "mremap", 1));
	c = mk("x86_64", "mremap", 1);
	set_status(c, "mremap/batch", "kernel:kprobe", PC_STATUS_SKIP, "no kprobes here");
	add_cand(&g, c);
	TAP_CHECK(gate_run(&g) == 0 && !g.res->ship,
		  "coverage loss alone does not ship (default policy: fail)");
	TAP_CHECK_EQ(rule(&g, 0, PC_GATE_RULE_COVERAGE)->verdict, PC_GATE_FAIL,
		     "coverage-loss fails by default");
	TAP_CHECK(has_finding(rule(&g, 0, PC_GATE_RULE_COVERAGE), true,
			      "mremap/batch [kernel:kprobe] passed in the baseline, skipped in the "
			      "candidate: no kprobes here"),
		  "coverage-loss names the check and the reason");
	gate_free(&g);

	TAP_CHECK(gate_warn(&g) == 0 && g.res->ship &&
			  rule(&g, 0, PC_GATE_RULE_COVERAGE)->verdict == PC_GATE_WARN,
		  "coverage_loss: report: the loss is a warning, the gate ships");
	gate_free(&g);

	gate_init(&g);
	add_base(&g, mk("x86_64", "mremap", 1));
	c = mk("x86_64", "mremap", 1);
	remove_result(c, "mremap/batch", "kernel:kprobe");
	add_cand(&g, c);
	TAP_CHECK(gate_run(&g) == 0 && !g.res->ship, "coverage_loss: fail, missing check fails");
	TAP_CHECK(has_finding(rule(&g, 0, PC_GATE_RULE_COVERAGE), true, "missing in the candidate"),
		  "missing check is named as missing");
	gate_free(&g);

	/* A loss to a program of ptecheck's the kernel refused: fails anyway. */
	gate_init(&g);
	g.in.policy.coverage_loss = PC_GATE_ACTION_REPORT;
	add_base(&g, mk("x86_64", "mremap", 1));
	c = mk("x86_64", "mremap", 1);
	snprintf(c->bpf.refused[c->bpf.n_refused++], sizeof(c->bpf.refused[0]),
		 "the verifier refused mremap_batch_kprobe: program too large");
	set_status(c, "mremap/batch", "kernel:kprobe", PC_STATUS_SKIP, c->bpf.refused[0]);
	add_cand(&g, c);
	TAP_CHECK(gate_run(&g) == 0 && !g.res->ship &&
			  rule(&g, 0, PC_GATE_RULE_COVERAGE)->verdict == PC_GATE_FAIL,
		  "coverage lost to a refused program fails (policy coverage_loss: report)");
	TAP_CHECK(has_finding(rule(&g, 0, PC_GATE_RULE_COVERAGE), true,
			      "the verifier refused mremap_batch_kprobe"),
		  "the refusal is named among the findings");
	gate_free(&g);

	/* A refusal that cost nothing the baseline judged: no coverage lost. */
	gate_init(&g);
	add_base(&g, mk("x86_64", "mremap", 1));
	c = mk("x86_64", "mremap", 1);
	snprintf(c->bpf.refused[c->bpf.n_refused++], sizeof(c->bpf.refused[0]),
		 "the verifier refused filemap_window: invalid read from stack");
	add_cand(&g, c);
	TAP_CHECK(gate_run(&g) == 0 && g.res->ship &&
			  rule(&g, 0, PC_GATE_RULE_COVERAGE)->verdict == PC_GATE_PASS,
		  "a refusal that lost no coverage is not a loss");
	gate_free(&g);

	gate_init(&g);
	add_base(&g, mk("x86_64", "mremap", 1));
	c = mk("x86_64", "mremap", 1);
	set_status(c, "mremap/perms", "kernel:fexit", PC_STATUS_PASS, "256 checked");
	add_cand(&g, c);
	TAP_CHECK(gate_run(&g) == 0 && g.res->ship &&
			  rule(&g, 0, PC_GATE_RULE_COVERAGE)->verdict == PC_GATE_PASS &&
			  has_improvement(
				  rule(&g, 0, PC_GATE_RULE_COVERAGE),
				  "coverage gained: mremap/perms [kernel:fexit] skip -> pass"),
		  "coverage gained is an improvement");
	gate_free(&g);
}

static void test_batching(void)
{
	__u64 b16[17] = {[16] = 100}, c8[17] = {[8] = 100}, c15[17] = {[15] = 100};
	__u64 ones[17] = {[1] = 100}, c32[17] = {[1] = 60, [4] = 20, [9] = 20};
	__u64 c16_8[17] = {[8] = 8, [16] = 92};
	struct gate g;

	gate_init(&g);
	add_run(&g, true, "aarch64", BATCH_NAME, b16);
	add_run(&g, false, "aarch64", BATCH_NAME, c8);
	TAP_CHECK(gate_run(&g) == 0 && !g.res->ship, "batch mean 16 -> 8: do not ship");
	TAP_CHECK_EQ(rule(&g, 0, PC_GATE_RULE_BATCHING)->verdict, PC_GATE_FAIL,
		     "batching-regression fails");
	TAP_CHECK(has_finding(rule(&g, 0, PC_GATE_RULE_BATCHING), true,
			      "batching regressed: mremap PTEs per batch mean 16.0 -> 8.0"),
		  "regression names histogram and means");
	TAP_CHECK(has_evidence(rule(&g, 0, PC_GATE_RULE_BATCHING),
			       "largest baseline bucket 16 PTEs: 100.0% of 100 -> 0.0% of 100"),
		  "largest-bucket share is evidence");
	gate_free(&g);

	gate_init(&g);
	g.in.policy.batching_regression = PC_GATE_ACTION_REPORT;
	add_run(&g, true, "aarch64", BATCH_NAME, b16);
	add_run(&g, false, "aarch64", BATCH_NAME, c8);
	TAP_CHECK(gate_run(&g) == 0 && g.res->ship &&
			  rule(&g, 0, PC_GATE_RULE_BATCHING)->verdict == PC_GATE_WARN,
		  "batching_regression: report only warns");
	gate_free(&g);

	/* Every batch one PTE short of a full contpte block: the mean moves
	   6%, within the tolerance; the share of batches of 16 (the mode)
	   falls from all to none, which is the regression (issue #17). */
	gate_init(&g);
	add_run(&g, true, "aarch64", BATCH_NAME, b16);
	add_run(&g, false, "aarch64", BATCH_NAME, c15);
	TAP_CHECK(
		gate_run(&g) == 0 &&
			has_finding(rule(&g, 0, PC_GATE_RULE_BATCHING), false,
				    "mremap PTEs per batch mean 16.0 -> 15.0 (-6.2%, within 10%)"),
		"batch mean 16 -> 15 is within the 10%% tolerance");
	TAP_CHECK(
		g.res && !g.res->ship &&
			has_finding(rule(&g, 0, PC_GATE_RULE_BATCHING), true,
				    "batching regressed: mremap PTEs per batch share of batches of "
				    "16 PTEs or more (the baseline's mode) 100.0% -> 0.0%"),
		"batch 16 -> 15: the share of the mode falls 100 pp: do not ship");
	gate_free(&g);

	/* A few batches leave the mode, within the tolerance of both. */
	gate_init(&g);
	add_run(&g, true, "aarch64", BATCH_NAME, b16);
	add_run(&g, false, "aarch64", BATCH_NAME, c16_8);
	TAP_CHECK(gate_run(&g) == 0 && g.res->ship &&
			  rule(&g, 0, PC_GATE_RULE_BATCHING)->verdict == PC_GATE_PASS,
		  "8 of 100 batches of 16 -> 8: mean and share within the tolerance, ships");
	gate_free(&g);

	gate_init(&g);
	add_run(&g, true, "x86_64", BATCH_NAME, ones);
	add_run(&g, false, "x86_64", BATCH_NAME, c32);
	TAP_CHECK(gate_run(&g) == 0 && g.res->ship &&
			  rule(&g, 0, PC_GATE_RULE_BATCHING)->verdict == PC_GATE_PASS,
		  "batch mean 1 -> 3.2 ships");
	TAP_CHECK(has_improvement(rule(&g, 0, PC_GATE_RULE_BATCHING),
				  "batching improved: mremap PTEs per batch mean 1.0 -> 3.2"),
		  "batch mean 1 -> 3.2 is an improvement");
	gate_free(&g);

	/* Only in the candidate: improvement; only in the baseline: coverage loss. */
	gate_init(&g);
	add_run(&g, true, "x86_64", "fault-around large-folio batches, by order", ones);
	add_run(&g, false, "x86_64", BATCH_NAME, c32);
	TAP_CHECK(gate_run(&g) == 0 && !g.res->ship &&
			  rule(&g, 0, PC_GATE_RULE_COVERAGE)->verdict == PC_GATE_FAIL &&
			  rule(&g, 0, PC_GATE_RULE_BATCHING)->verdict != PC_GATE_FAIL,
		  "a histogram the candidate lost fails coverage-loss (the default), not "
		  "batching");
	TAP_CHECK(has_improvement(rule(&g, 0, PC_GATE_RULE_BATCHING),
				  "batching improved: mremap PTEs per batch now observed"),
		  "histogram only in the candidate is an improvement");
	TAP_CHECK(has_finding(rule(&g, 0, PC_GATE_RULE_COVERAGE), true,
			      "\"fault-around large-folio batches, by order\" has 100 events in "
			      "the baseline"),
		  "histogram only in the baseline is coverage loss");
	TAP_CHECK_EQ(rule(&g, 0, PC_GATE_RULE_BATCHING)->verdict, PC_GATE_NOT_JUDGED,
		     "no histogram in both: batching not judged");
	gate_free(&g);

	/* Newly visible but unbatched (mean 1) is a finding, not an improvement. */
	gate_init(&g);
	add_base(&g, mk("aarch64", "mremap", 1));
	add_run(&g, false, "aarch64", BATCH_NAME, ones);
	TAP_CHECK(gate_run(&g) == 0 && g.res->ship &&
			  !has_improvement(rule(&g, 0, PC_GATE_RULE_BATCHING), BATCH_NAME) &&
			  has_finding(rule(&g, 0, PC_GATE_RULE_BATCHING), false, "no batching"),
		  "histogram newly observed with mean 1: reported, not an improvement");
	gate_free(&g);

	/* Repeated runs whose spreads overlap: baseline runs 16 and 8, candidate
	   runs 8 and 8: the mean drops by a third, but within the baseline's own
	   spread (as folio_pte_batch swings 41 -> 19 on one kernel). */
	{
		__u64 r1[17] = {[16] = 100}, r2[17] = {[8] = 100};

		gate_init(&g);
		add_run(&g, true, "aarch64", BATCH_NAME, r1);
		add_run(&g, true, "aarch64", BATCH_NAME, r2);
		add_run(&g, false, "aarch64", BATCH_NAME, r2);
		add_run(&g, false, "aarch64", BATCH_NAME, r2);
		TAP_CHECK(gate_run(&g) == 0 && g.res->ship &&
				  has_finding(rule(&g, 0, PC_GATE_RULE_BATCHING), false,
					      "within the runs' spread"),
			  "2 runs a side, spreads overlap: within the spread, ships");
		gate_free(&g);

		gate_init(&g);
		for (int k = 0; k < 2; k++) {
			add_run(&g, true, "aarch64", BATCH_NAME, r1);
			add_run(&g, false, "aarch64", BATCH_NAME, r2);
		}
		TAP_CHECK(gate_run(&g) == 0 && !g.res->ship,
			  "2 runs a side, 16 -> 8 with no overlap: do not ship");
		gate_free(&g);
	}

	/* A name outside the policy's list is not a batch histogram. */
	gate_init(&g);
	snprintf(g.in.policy.batch_names[0], sizeof(g.in.policy.batch_names[0]), "nothing");
	g.in.policy.n_batch_names = 1;
	add_run(&g, true, "aarch64", BATCH_NAME, b16);
	add_run(&g, false, "aarch64", BATCH_NAME, c8);
	TAP_CHECK(gate_run(&g) == 0 && g.res->ship, "batch histogram names come from the policy");
	gate_free(&g);
}

/* ---- per-path batch histograms (issue #17) --------------------------------- */

/*
 * Each path's histogram judged by its mean and by its share of batches
 * reaching the baseline's mode, under the default policy (whose
 * batch_histograms judged mremap's alone before: every case but the
 * mremap-less "batches grew" one fails there).
 */
static void test_paths(void)
{
	/* fork: the mode (16) falls 95% -> 60%, the mean 15.6 -> 14.4 (-7.7%). */
	__u64 fb[17] = {[8] = 5, [16] = 95}, fc[17] = {[12] = 40, [16] = 60};
	/* munmap: the mode holds 55%, the rest shrinks 8 -> 2: mean -22%
	   (of 1000 batches: the noise of 100 would be 19.5%). */
	__u64 zb[17] = {[8] = 450, [16] = 550}, zc[17] = {[2] = 450, [16] = 550};
	__u64 tb[17] = {[16] = 5}, tc[17] = {[8] = 3};
	__u64 same[17] = {[1] = 20, [16] = 200};
	__u64 db[17] = {[16] = 100}, dc[17] = {[4] = 50, [16] = 50};
	__u64 grown[19] = {[18] = 100};
	const struct pc_gate_rule_result *rr;
	struct gate g;

	rr = path_gate(&g, FORK, fb, fc);
	TAP_CHECK(g.ret == 0 && !g.res->ship && rr->verdict == PC_GATE_FAIL,
		  "fork: mode share 95%% -> 60%% with the mean within 10%%: do not ship");
	TAP_CHECK(
		has_finding(rr, true,
			    "batching regressed: " FORK " share of batches of 16 PTEs or more "
			    "(the baseline's mode) 95.0% -> 60.0% (-35.0 pp, tolerance 10 pp, "
			    "sampling noise of 100 and 100 batches 17.7 pp); mean 15.6 -> 14.4") &&
			has_finding(rr, false, FORK " mean 15.6 -> 14.4 (-7.7%, within 10%)"),
		"fork: the reason names the histogram, the shares and the means");
	TAP_CHECK(has_evidence(rr, "batches of 16 PTEs or more: 95 of 100 -> 60 of 100; in the "
				   "mode bucket 16 PTEs: 95.0% -> 60.0%"),
		  "fork: the evidence gives the counts");
	gate_free(&g);

	rr = path_gate(&g, ZAP, zb, zc);
	TAP_CHECK(g.ret == 0 && !g.res->ship && rr->verdict == PC_GATE_FAIL &&
			  has_finding(rr, true,
				      "batching regressed: " ZAP " mean 12.4 -> 9.7 (-21.8%, "
				      "tolerance 10%, noise of 1 run 10.0%); share of batches of "
				      "16 PTEs or more 55.0% -> 55.0%") &&
			  has_finding(rr, false,
				      ZAP " share of batches of 16 PTEs or more (the "
					  "baseline's mode) 55.0% -> 55.0% (+0.0 pp, within"),
		  "munmap: the mean falls 22%% with the mode share held: fails on the mean");
	gate_free(&g);

	rr = path_gate(&g, MLOCK, tb, tc);
	TAP_CHECK(g.ret == 0 && g.res->ship && rr->verdict == PC_GATE_NOT_JUDGED &&
			  has_finding(rr, false,
				      "not judged: " MLOCK
				      ": 3 batches < 10 (batch_min_batches) in "
				      "the candidate (baseline 5, candidate 3)") &&
			  strstr(rr->not_judged, "fewer than 10 batches on a side"),
		  "mlock: 5 and 3 batches are not judged, and the note says so");
	gate_free(&g);

	rr = path_gate(&g, MPROT, same, same);
	TAP_CHECK(g.ret == 0 && g.res->ship && rr->verdict == PC_GATE_PASS &&
			  has_finding(rr, false, MPROT " mean 14.6 -> 14.6 (+0.0%, within 10%)") &&
			  has_finding(rr, false,
				      MPROT " share of batches of 16 PTEs or more (the "
					    "baseline's mode) 90.9% -> 90.9%"),
		  "mprotect: unchanged: both statistics compared, ships");
	gate_free(&g);

	rr = path_gate(&g, DERIVED, db, dc);
	TAP_CHECK(g.ret == 0 && !g.res->ship &&
			  has_finding(rr, true,
				      "batching regressed: " DERIVED " mean 16.0 -> 10.0") &&
			  has_finding(rr, true,
				      "batching regressed: " DERIVED " share of batches of 16 PTEs "
				      "or more (the baseline's mode) 100.0% -> 50.0%"),
		  "derived: runs of a large folio judged like the kernel's batches");
	gate_free(&g);

	/* Batches grew past the mode (16 -> 32..63): no share regression. */
	gate_init(&g);
	add_run(&g, true, "x86_64", FORK, db);
	{
		struct pc_report *r = mk("x86_64", "mremap", 1);

		add_batch_hist(r, FORK, grown, 19);
		add_cand(&g, r);
	}
	gate_run(&g);
	rr = rule(&g, 0, PC_GATE_RULE_BATCHING);
	TAP_CHECK(g.ret == 0 && g.res->ship && rr->verdict == PC_GATE_PASS &&
			  has_improvement(rr, "batching improved: " FORK " mean 16.0 -> 47.5") &&
			  has_finding(rr, false, "(the baseline's mode) 100.0% -> 100.0%"),
		  "fork: batches grown past the mode: an improvement, not a share regression");
	gate_free(&g);

	/* The candidate lost a path's histogram: coverage loss names it. */
	gate_init(&g);
	add_run(&g, true, "x86_64", FORK, fb);
	add_cand(&g, mk("x86_64", "mremap", 1));
	gate_run(&g);
	TAP_CHECK(g.ret == 0 &&
			  has_finding(rule(&g, 0, PC_GATE_RULE_COVERAGE), true,
				      "histogram \"" FORK "\" has 100 events in the baseline, "
				      "absent in the candidate"),
		  "fork histogram lost by the candidate: coverage loss");
	gate_free(&g);

	/* Three batches khugepaged made by chance in the baseline: not a lost tier. */
	gate_init(&g);
	add_run(&g, true, "x86_64", "khugepaged PTEs per batch (folio_pte_batch)", tc);
	add_cand(&g, mk("x86_64", "mremap", 1));
	gate_run(&g);
	TAP_CHECK(g.ret == 0 && rule(&g, 0, PC_GATE_RULE_COVERAGE)->verdict == PC_GATE_PASS &&
			  has_finding(rule(&g, 0, PC_GATE_RULE_COVERAGE), false,
				      "not judged: histogram \"khugepaged PTEs per batch "
				      "(folio_pte_batch)\" has 3 events in the baseline (< 10, "
				      "batch_min_batches), absent in the candidate"),
		  "khugepaged: 3 batches in the baseline only: a note, not coverage loss");
	gate_free(&g);

	/* Noise: the same fork drop within a share floor of 40 points. */
	gate_init(&g);
	snprintf(g.in.policy.share_noise[0].name, sizeof(g.in.policy.share_noise[0].name),
		 "fork/*");
	g.in.policy.share_noise[0].pct = 40;
	g.in.policy.n_share_noise = 1;
	add_run(&g, true, "x86_64", FORK, fb);
	add_run(&g, false, "x86_64", FORK, fc);
	gate_run(&g);
	TAP_CHECK(g.ret == 0 && g.res->ship &&
			  rule(&g, 0, PC_GATE_RULE_BATCHING)->verdict == PC_GATE_NOT_JUDGED &&
			  has_finding(rule(&g, 0, PC_GATE_RULE_BATCHING), false,
				      "is within the noise of 1 run per side (40.0 pp); run 2 "
				      "times per side"),
		  "fork: a share drop within its floor (batch_share_noise_pp) is not judged");
	gate_free(&g);
}

/* Three runs each side; latency slot per run and duration per run. */
static void perf_case(struct gate *g, const int *bk, const double *bd, int nb, const int *ck,
		      const double *cd, int nc)
{
	int i;

	gate_init(g);
	for (i = 0; i < nb; i++) {
		struct pc_report *r = mk("x86_64", "mremap", 1);

		add_latency(r, bk[i], 11);
		r->duration_s = bd[i];
		add_base(g, r);
	}
	for (i = 0; i < nc; i++) {
		struct pc_report *r = mk("x86_64", "mremap", 1);

		add_latency(r, ck[i], 11);
		r->duration_s = cd[i];
		add_cand(g, r);
	}
	gate_run(g);
}

static void test_perf(void)
{
	const int k_overlap_b[] = {10, 11, 10}, k_overlap_c[] = {11, 10, 11};
	const int k10[] = {10, 10, 10}, k12[] = {12, 12, 12};
	const double d2[] = {2.0, 2.1, 2.2}, d2b[] = {2.1, 2.0, 2.2};
	const double d3[] = {3.0, 3.1, 3.2}, d1[] = {1.0, 1.1, 1.2};
	struct gate g;

	perf_case(&g, k_overlap_b, d2, 3, k_overlap_c, d2b, 3);
	TAP_CHECK(g.ret == 0 && g.res->ship &&
			  rule(&g, 0, PC_GATE_RULE_PERF)->verdict == PC_GATE_PASS,
		  "latency median 1024 -> 2048 with overlapping runs: not a regression");
	TAP_CHECK(has_finding(rule(&g, 0, PC_GATE_RULE_PERF), false, "runs overlap"),
		  "overlap is stated");
	gate_free(&g);

	perf_case(&g, k10, d2, 3, k12, d2b, 3);
	TAP_CHECK(g.ret == 0 && !g.res->ship &&
			  rule(&g, 0, PC_GATE_RULE_PERF)->verdict == PC_GATE_FAIL,
		  "latency 1024 -> 4096 in all runs: regression, do not ship");
	TAP_CHECK(has_finding(rule(&g, 0, PC_GATE_RULE_PERF), true,
			      "slower: mremap latency median 1024 -> 4096 ns"),
		  "latency regression names the medians");
	TAP_CHECK(has_evidence(rule(&g, 0, PC_GATE_RULE_PERF),
			       "candidate best 4096 > baseline worst 1024"),
		  "disjoint spread is evidence");
	gate_free(&g);

	perf_case(&g, k10, d2, 3, k10, d3, 3);
	TAP_CHECK(g.ret == 0 && !g.res->ship &&
			  has_finding(rule(&g, 0, PC_GATE_RULE_PERF), true,
				      "slower: run duration median 2.1 -> 3.1 s"),
		  "duration 2.1 s -> 3.1 s, disjoint: regression");
	gate_free(&g);

	perf_case(&g, k12, d2, 3, k10, d1, 3);
	TAP_CHECK(g.ret == 0 && g.res->ship &&
			  has_improvement(rule(&g, 0, PC_GATE_RULE_PERF),
					  "faster: mremap latency median 4096 -> 1024") &&
			  has_improvement(rule(&g, 0, PC_GATE_RULE_PERF), "faster: run duration"),
		  "faster is an improvement");
	gate_free(&g);

	perf_case(&g, k10, d2, 1, k12, d3, 1);
	TAP_CHECK(g.ret == 0 && g.res->ship &&
			  rule(&g, 0, PC_GATE_RULE_PERF)->verdict == PC_GATE_NOT_JUDGED &&
			  strstr(rule(&g, 0, PC_GATE_RULE_PERF)->not_judged,
				 "need >= 3 runs per side"),
		  "single run: not judged (need >= 3 runs per side), never fails");
	gate_free(&g);

	perf_case(&g, k10, d2, 3, k12, d3, 3);
	g.in.policy.performance_regression = PC_GATE_ACTION_REPORT;
	pc_gate_result_free(g.res);
	g.res = NULL;
	gate_run(&g);
	TAP_CHECK(g.ret == 0 && g.res->ship &&
			  rule(&g, 0, PC_GATE_RULE_PERF)->verdict == PC_GATE_WARN,
		  "performance_regression: report only warns");
	gate_free(&g);
}

/* ---- grouping and bad input -------------------------------------------------- */

static void test_groups(void)
{
	__u64 b16[17] = {[16] = 100}, c8[17] = {[8] = 100};
	struct gate g;

	/* Two machines: each compared with its own baseline. */
	gate_init(&g);
	add_base(&g, mk("x86_64", "mremap", 1));
	add_run(&g, true, "aarch64", BATCH_NAME, b16);
	add_run(&g, false, "aarch64", BATCH_NAME, c8);
	add_cand(&g, mk("x86_64", "mremap", 1));
	TAP_CHECK(gate_run(&g) == 0 && g.res->n_groups == 2 && !g.res->ship,
		  "two machines, two groups; aarch64 batching regression fails the gate");
	TAP_CHECK(!strcmp(g.res->groups[0].machine, "aarch64") &&
			  rule(&g, 0, PC_GATE_RULE_BATCHING)->verdict == PC_GATE_FAIL &&
			  rule(&g, 1, PC_GATE_RULE_BATCHING)->verdict == PC_GATE_NOT_JUDGED,
		  "the regression is on aarch64 only");
	gate_free(&g);

	gate_init(&g);
	add_base(&g, mk("x86_64", "mremap", 1));
	add_cand(&g, mk("x86_64", "mremap", 1));
	add_cand(&g, mk("aarch64", "mremap", 1));
	TAP_CHECK(gate_run(&g) == -1 && strstr(g.err, "no baseline for aarch64"),
		  "no baseline for a machine: bad input");
	gate_free(&g);

	gate_init(&g);
	g.in.policy.allow_no_baseline = true;
	add_base(&g, mk("x86_64", "mremap", 1));
	add_cand(&g, mk("x86_64", "mremap", 1));
	add_cand(&g, mk("aarch64", "mremap", 1));
	TAP_CHECK(gate_run(&g) == 0 && g.res->ship &&
			  rule(&g, 1, PC_GATE_RULE_COVERAGE)->verdict == PC_GATE_NOT_JUDGED &&
			  rule(&g, 1, PC_GATE_RULE_INVARIANT)->verdict == PC_GATE_PASS,
		  "allow_no_baseline: only invariant-failure judged there");
	gate_free(&g);

	gate_init(&g);
	add_base(&g, mk("x86_64", "mremap", 1));
	add_base(&g, mk("aarch64", "mremap", 1));
	add_cand(&g, mk("x86_64", "mremap", 1));
	TAP_CHECK(gate_run(&g) == -1 && strstr(g.err, "has no candidate report"),
		  "a baseline without a candidate: bad input (no silent pass)");
	gate_free(&g);

	gate_init(&g);
	add_base(&g, mk("x86_64", "filemap", 1));
	add_cand(&g, mk("x86_64", "mremap", 1));
	TAP_CHECK(gate_run(&g) == -1 &&
			  strstr(g.err, "different workloads: suite mremap scale 1 vs suite "
					"filemap scale 1"),
		  "different suites: bad input");
	gate_free(&g);

	gate_init(&g);
	add_base(&g, mk("x86_64", "mremap", 1));
	add_cand(&g, mk("x86_64", "mremap", 4));
	TAP_CHECK(gate_run(&g) == -1 &&
			  strstr(g.err, "different workloads: suite mremap scale 4 vs suite "
					"mremap scale 1"),
		  "different scales: bad input");
	gate_free(&g);
}
#define ORDER_ALL  "fault-around large-folio batches, by order"
#define ORDER_FULL "fault-around batches mapping all they could, by order"

/* One run of a side with fault-around order histograms: all[k] batches of
   order k folios, full[k] of them mapping all they could. */
static void add_orders(struct gate *g, bool base, const __u64 *all, const __u64 *full)
{
	struct pc_report *r = mk("x86_64", "all", 4);

	add_batch_hist(r, ORDER_ALL, all, 17);
	add_batch_hist(r, ORDER_FULL, full, 17);
	if (base)
		add_base(g, r);
	else
		add_cand(g, r);
}

/*
 * Fault-around batches judged per folio order: a changed mix of orders
 * (what the allocator handed out) is no regression; order 4 batches that
 * stop mapping all they could are, with the order and the counts as
 * evidence; orders with too few batches are not judged.
 */
static void test_orders(void)
{
	__u64 ba[17] = {[2] = 48, [4] = 256, [6] = 342}, bf[17] = {[2] = 48, [4] = 208, [6] = 333};
	__u64 ma[17] = {[2] = 3, [4] = 512, [6] = 40}, mf[17] = {[2] = 3, [4] = 416, [6] = 39};
	__u64 ra[17] = {[2] = 48, [4] = 256, [6] = 342}, rf[17] = {[2] = 48, [4] = 0, [6] = 333};
	struct gate g;

	gate_init(&g);
	add_orders(&g, true, ba, bf);
	add_orders(&g, false, ma, mf);
	TAP_CHECK(gate_run(&g) == 0 && g.res->ship &&
			  rule(&g, 0, PC_GATE_RULE_BATCHING)->verdict == PC_GATE_PASS,
		  "orders: another mix of folio orders, the same shares: ships");
	TAP_CHECK(has_finding(rule(&g, 0, PC_GATE_RULE_BATCHING), false, "order 4 (64 KiB) share"),
		  "orders: order 4 is compared");
	TAP_CHECK(!has_finding(rule(&g, 0, PC_GATE_RULE_BATCHING), false, "order 2 (16 KiB)"),
		  "orders: order 2 with 3 batches in the candidate is not judged");
	gate_free(&g);

	gate_init(&g);
	add_orders(&g, true, ba, bf);
	add_orders(&g, false, ra, rf);
	TAP_CHECK(gate_run(&g) == 0 && !g.res->ship &&
			  rule(&g, 0, PC_GATE_RULE_BATCHING)->verdict == PC_GATE_FAIL,
		  "orders: order 4 batches no longer mapping all they could: do not ship");
	TAP_CHECK(has_finding(rule(&g, 0, PC_GATE_RULE_BATCHING), true,
			      "fault-around batches of order 4 folios that mapped all they could "
			      "81.2% -> 0.0%"),
		  "orders: the regression names the order and the shares");
	TAP_CHECK(has_evidence(
			  rule(&g, 0, PC_GATE_RULE_BATCHING),
			  "order 4 (64 KiB folios): 208 of 256 batches reached their cap -> 0 of "
			  "256"),
		  "orders: the evidence gives the counts on both sides");
	gate_free(&g);
}

int main(void)
{
	tap_plan(0);
	test_invariant();
	test_coverage();
	test_batching();
	test_orders();
	test_paths();
	test_perf();
	test_groups();
	return tap_finish();
}
