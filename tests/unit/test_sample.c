// SPDX-License-Identifier: GPL-2.0
/*
 * The --sample predicate (include/ptecheck/sample.h), as the BPF programs
 * run it: 0 and 1 judge every window; N judges exactly one window of
 * every block of N, at a position that follows the random draw, so a
 * workload repeating with a period dividing N is not judged on one phase
 * alone.
 */
#include <stdlib.h>
#include <ptecheck/sample.h>
#include "tap.h"

/* A small deterministic generator standing in for bpf_get_prandom_u32(). */
static __u32 rnd_state = 12345;

static __u32 rnd(void)
{
	rnd_state = rnd_state * 1103515245u + 12345u;
	return rnd_state >> 8;
}

/* Windows judged of n, judging 1 in every. */
static unsigned int judged_of(unsigned int n, __u32 every)
{
	struct pc_sample_state s = {0};
	unsigned int k = 0;

	for (unsigned int i = 0; i < n; i++)
		k += pc_sample_next(&s, every, rnd());
	return k;
}

/* Every block of every windows holds exactly one judged window. */
static bool one_per_block(__u32 every, unsigned int blocks)
{
	struct pc_sample_state s = {0};

	for (unsigned int b = 0; b < blocks; b++) {
		unsigned int k = 0;

		for (__u32 i = 0; i < every; i++)
			k += pc_sample_next(&s, every, rnd());
		if (k != 1)
			return false;
	}
	return true;
}

/* A workload alternating two kinds of call (move, move back), sampled
   1 in 2: both kinds are judged, in about equal numbers. */
static void alternating_workload(void)
{
	struct pc_sample_state s = {0};
	unsigned int judged[2] = {0, 0};

	for (unsigned int i = 0; i < 2000; i++)
		judged[i & 1] += pc_sample_next(&s, 2, rnd());
	TAP_CHECK_EQ(judged[0] + judged[1], 1000u, "1 in 2 over 2000: 1000 judged");
	TAP_CHECK(judged[0] > 400 && judged[1] > 400,
		  "both phases of a period-2 workload are judged (not one alone)");
}

/* With one draw every time, the position judged is that draw mod N. */
static void position_follows_draw(void)
{
	struct pc_sample_state s = {0};
	bool got[4];

	for (int i = 0; i < 4; i++)
		got[i] = pc_sample_next(&s, 4, 6); /* 6 % 4: the third window */
	TAP_CHECK(!got[0] && !got[1] && got[2] && !got[3], "the draw picks the block's window");
	TAP_CHECK(pc_sample_next(&s, 4, 0), "the next block draws again: its first window");
}

int main(void)
{
	tap_plan(0);
	TAP_CHECK_EQ(judged_of(1000, 0), 1000u, "0: every window judged");
	TAP_CHECK_EQ(judged_of(1000, 1), 1000u, "1: every window judged");
	TAP_CHECK_EQ(judged_of(1000, 4), 250u, "4: a quarter of 1000 judged");
	TAP_CHECK(judged_of(1001, 4) - 250 <= 1, "a block begun: its window judged or not yet");
	TAP_CHECK_EQ(judged_of(7000, 7), 1000u, "7: exactly 1000 of 7000");
	TAP_CHECK(one_per_block(4, 500), "1 in 4: one window judged in each block of 4");
	TAP_CHECK(one_per_block(PC_SAMPLE_MAX, 2), "the largest N: one per block");
	TAP_CHECK(judged_of(3, 1000) <= 1, "fewer windows than N: at most one judged");
	alternating_workload();
	position_follows_draw();
	return tap_finish();
}
