// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of the batching rule against noise (gate/rules_batch.c,
 * sampling.c) and of `ptecheck gate --noise` (noise.c): the floor of one
 * run, the runs that would settle a drop, the spreads --noise measures,
 * and the sampling noise of a statistic's own counts.
 * Prints kselftest-style TAP; exits 0 if all passed.
 */
#define _GNU_SOURCE
#include <math.h>
#include "gate_fixture.h"
#include "gate_rules.h"

/*
 * Against the noise of one run: a drop beyond the tolerance but within
 * the measured noise floor is not judged, with the runs that would settle
 * it; the same drop over enough runs per side (the floor shrinks with
 * their square root) and with spreads apart fails.
 */
static void test_noise(void)
{
	/* 1000 batches a run: the sampling noise (21%) below the floor. */
	__u64 b[17] = {[1] = 850, [16] = 150}, c[17] = {[1] = 880, [16] = 120};
	struct gate g;

	gate_init(&g);
	g.in.policy.noise[0].pct = 30; /* a noisy histogram: 30% per run */
	add_run(&g, true, "aarch64", BATCH_NAME, b);
	add_run(&g, false, "aarch64", BATCH_NAME, c);
	TAP_CHECK(gate_run(&g) == 0 && g.res->ship &&
			  rule(&g, 0, PC_GATE_RULE_BATCHING)->verdict == PC_GATE_NOT_JUDGED,
		  "noise: -14%% of a mean within 30%% noise of one run: not judged, ships");
	TAP_CHECK(
		has_finding(rule(&g, 0, PC_GATE_RULE_BATCHING), false,
			    "is within the noise of 1 run per side (30.0%); run 5 times per side"),
		"noise: says how many runs per side would judge it");
	gate_free(&g);

	gate_init(&g);
	g.in.policy.noise[0].pct = 30;
	for (int k = 0; k < 8; k++) {
		add_run(&g, true, "aarch64", BATCH_NAME, b);
		add_run(&g, false, "aarch64", BATCH_NAME, c);
	}
	TAP_CHECK(gate_run(&g) == 0 && !g.res->ship,
		  "noise: the same drop over 8 runs a side, spreads apart: do not ship");
	gate_free(&g);
}

/* --noise: the spread of a path's mode share over repeated runs of one
   kernel, beside its floor (share_noise_default_pp). */
static void test_noise_shares(void)
{
	/* Of 1000 batches a run: their sampling noise (4.4 pp) below the floor. */
	__u64 r1[17] = {[8] = 50, [16] = 950}, r2[17] = {[8] = 200, [16] = 800};
	/* Of 12: 9 of them 16 PTEs in one run, 6 in the other (25 pp). */
	__u64 s1[17] = {[8] = 3, [16] = 9}, s2[17] = {[8] = 6, [16] = 6};
	char *buf;
	struct gate g;
	int ret;

	gate_init(&g);
	add_run(&g, false, "x86_64", FORK, r1);
	add_run(&g, false, "x86_64", FORK, r2);
	ret = noise_of(&g, &buf);
	TAP_CHECK(ret == 1 && buf &&
			  strstr(buf, FORK_ID " share of batches of 16 PTEs or more (the mode)") &&
			  strstr(buf, "80.00 .. 95.00") &&
			  strstr(buf, "15.00 pp (floor 10 pp)  EXCEEDS THE FLOOR"),
		  "noise: a fork mode share 80..95%% over two runs exceeds its 10 pp floor");
	free(buf);
	gate_free(&g);

	gate_init(&g);
	add_run(&g, false, "x86_64", FORK, s1);
	add_run(&g, false, "x86_64", FORK, s2);
	ret = noise_of(&g, &buf);
	TAP_CHECK(ret == 0 && buf && strstr(buf, "50.00 .. 75.00") &&
			  strstr(buf, "25.00 pp (floor 10 pp, sampling noise of 12 and 12 "
				      "batches 59.3 pp)") &&
			  !strstr(buf, "EXCEEDS"),
		  "noise: 25 pp between runs of 12 batches is their sampling noise, not over "
		  "the floor");
	free(buf);
	gate_free(&g);
}

/* --noise measures a histogram over the runs the rule would judge it in:
   those with batch_min_batches (10) or more.  A run of 5 batches of 1 PTE
   beside two of 100 batches of 16 is left out (a 1500% spread else). */
static void test_noise_min_batches(void)
{
	__u64 full[17] = {[16] = 100}, few[17] = {[1] = 5};
	char *buf;
	struct gate g;
	int ret;

	gate_init(&g);
	add_run(&g, false, "x86_64", FORK, full);
	add_run(&g, false, "x86_64", FORK, full);
	add_run(&g, false, "x86_64", FORK, few);
	ret = noise_of(&g, &buf);
	TAP_CHECK(ret == 0 && buf && strstr(buf, FORK_ID " mean (2 of 3 runs)") &&
			  strstr(buf, "16.00 .. 16.00") && !strstr(buf, "EXCEEDS"),
		  "noise: a run below batch_min_batches is left out, and the runs used said");
	free(buf);
	gate_free(&g);

	gate_init(&g);
	add_run(&g, false, "x86_64", FORK, full);
	add_run(&g, false, "x86_64", FORK, few);
	add_run(&g, false, "x86_64", FORK, few);
	ret = noise_of(&g, &buf);
	TAP_CHECK(ret == 0 && buf && strstr(buf, FORK_ID) &&
			  strstr(buf, "not judged: 1 of 3 runs have 10 batches or "
				      "more (batch_min_batches)"),
		  "noise: a histogram one run has enough batches of is not judged, and said");
	free(buf);
	gate_free(&g);
}

/*
 * The sampling noise of a statistic's own counts (gate/sampling.c): a
 * path that batched a dozen times a run moves its mode share 8 points per
 * batch whatever the kernel did (arm64's other-syscall contpte_set_ptes:
 * 8 to 12 batches a boot, its share 10 to 25 points apart between boots
 * of one kernel, which failed the gate of unrelated mutants).  Such a drop
 * is not judged, saying how many batches; the same drop over enough
 * batches fails.
 */
static void test_sampling(void)
{
	__u64 b[17] = {[8] = 3, [16] = 9}, c[17] = {[8] = 6, [16] = 6};
	__u64 bb[17] = {[8] = 300, [16] = 900}, cc[17] = {[8] = 600, [16] = 600};
	const struct pc_gate_rule_result *rr;
	struct gate g;

	TAP_CHECK(fabs(pc_gate_share_sampling_pp(95, 100, 60, 100, 3) - 17.7) < 0.05 &&
			  pc_gate_share_sampling_pp(95, 100, 60, 100, 0) == 0 &&
			  pc_gate_share_sampling_pp(0, 100, 0, 100, 3) == 0 &&
			  pc_gate_share_sampling_pp(5, 0, 5, 10, 3) == 0,
		  "sampling: 95 of 100 beside 60 of 100 is 17.7 pp at 3 sigmas; 0 with no "
		  "sigmas, no spread or an empty side");

	rr = path_gate(&g, FORK, b, c);
	TAP_CHECK(g.ret == 0 && g.res->ship && rr->verdict == PC_GATE_NOT_JUDGED &&
			  has_finding(rr, false,
				      "(the baseline's mode) 75.0% -> 50.0% (-25.0 pp) is within "
				      "the sampling noise of 12 and 12 batches (59.3 pp); run 6 "
				      "times per side"),
		  "sampling: a 25 pp drop of 12 batches is not judged, naming the counts");
	gate_free(&g);

	gate_init(&g);
	g.in.policy.batch_sampling_sigmas = 0;
	add_run(&g, true, "x86_64", FORK, b);
	add_run(&g, false, "x86_64", FORK, c);
	gate_run(&g);
	TAP_CHECK(g.ret == 0 && !g.res->ship &&
			  rule(&g, 0, PC_GATE_RULE_BATCHING)->verdict == PC_GATE_FAIL,
		  "sampling: batch_sampling_sigmas 0 judges it on the floors alone: do not ship");
	gate_free(&g);

	rr = path_gate(&g, FORK, bb, cc);
	TAP_CHECK(g.ret == 0 && !g.res->ship && rr->verdict == PC_GATE_FAIL &&
			  has_finding(rr, true,
				      "75.0% -> 50.0% (-25.0 pp, tolerance 10 pp, "
				      "noise of 1 run 10.0 pp)"),
		  "sampling: the same drop over 1200 batches a side fails");
	gate_free(&g);
}

int main(void)
{
	tap_plan(0);
	test_noise();
	test_noise_shares();
	test_noise_min_batches();
	test_sampling();
	return tap_finish();
}
