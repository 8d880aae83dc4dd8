// SPDX-License-Identifier: GPL-2.0
/*
 * verify/oracle.c's disturbance window as the oracles use it, against a
 * BPF array shaped like bpf/common.bpf.c's `disturb` map ([0] generation,
 * [1] long operations in progress): a window is quiet only when the
 * generation did not move and no operation (swapoff, reclaim, compaction,
 * migration) was in progress at either end.  Needs CAP_BPF (skips
 * otherwise).
 */
#include <bpf/bpf.h>
#include <errno.h>
#include <unistd.h>
#include "scenario.h"
#include "tap.h"

static int map_fd;

static void set_slot(__u32 key, __u64 val)
{
	bpf_map_update_elem(map_fd, &key, &val, BPF_ANY);
}

/* One window with the map changed between its ends by between(). */
static bool window(void (*between)(void))
{
	struct pc_scenario_ctx ctx = {.disturb_map_fd = map_fd};
	struct pc_window w = {0};
	bool disturbed = false;

	pc_window_begin(&ctx, &w, &disturbed);
	if (between)
		between();
	pc_window_end(&ctx, &w, &disturbed);
	return disturbed;
}

static void bump_gen(void)
{
	__u32 key = 0;
	__u64 v = 0;

	bpf_map_lookup_elem(map_fd, &key, &v);
	set_slot(0, v + 1);
}

static void span_begins(void)
{
	set_slot(1, 1);
}

static void span_ends(void)
{
	set_slot(1, 0);
}

int main(void)
{
	bool quiet = false;

	tap_plan(0);
	map_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "pc_disturb", sizeof(__u32), sizeof(__u64), 2,
				NULL);
	if (map_fd < 0) {
		tap_skip("cannot create a BPF array (needs CAP_BPF): %d", map_fd);
		return tap_finish();
	}
	/* vmstat's reclaim and migration counters may move on their own: a
	   quiet map must give a quiet window at least once in five. */
	for (int i = 0; i < 5 && !quiet; i++)
		quiet = !window(NULL);
	TAP_CHECK(quiet, "no generation change, no operation in progress: quiet");
	TAP_CHECK(window(bump_gen), "the generation moved meanwhile: disturbed");

	set_slot(1, 1);
	TAP_CHECK(window(NULL), "an operation in progress throughout (same generation): disturbed");
	TAP_CHECK(window(span_ends), "an operation that ends inside the window: disturbed");
	span_ends();
	TAP_CHECK(window(span_begins), "an operation that begins inside the window: disturbed");
	span_ends();

	close(map_fd); /* the number stays: lookups fail with EBADF */
	TAP_CHECK(window(NULL), "the map cannot be read: disturbed (never quiet by mistake)");
	return tap_finish();
}
