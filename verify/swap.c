// SPDX-License-Identifier: GPL-2.0
/*
 * The swap a scenario pages out to (swap.h).  The zram device is small:
 * the scenarios page out a few MiB, and same-filled pages cost zram
 * nothing.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "stress_zram.h"
#include "swap.h"

#define SWAP_ZRAM_BYTES (16UL * 1024 * 1024)

/* The scenario child runs one scenario: one swap at a time. */
static struct {
	bool added;    /* the zram swap is ours to remove */
	char why[240]; /* why there is no swap to page out to ("": there is) */
} swap;

int pc_swaps_on(void)
{
	char line[512];
	int n = -1;
	FILE *f = fopen("/proc/swaps", "re");

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		n++; /* the first line is the header */
	fclose(f);
	return n < 0 ? 0 : n;
}

int pc_swap_begin(void)
{
	int err;

	memset(&swap, 0, sizeof(swap));
	if (pc_swaps_on() > 0)
		return 0;
	err = stress_zram_start(SWAP_ZRAM_BYTES);
	if (!err) {
		swap.added = true;
		return 0;
	}
	snprintf(swap.why, sizeof(swap.why), "no swap to page out to: %s",
		 stress_zram_why()[0] ? stress_zram_why() : strerror(-err));
	return err;
}

void pc_swap_end(const struct pc_scenario_ctx *ctx)
{
	int err;

	if (!swap.added)
		return;
	err = stress_zram_stop();
	if (err)
		pc_err(err,
		       "%s: removing the zram swap failed (its janitor is dismissed; swapoff it "
		       "by hand)",
		       ctx->scenario);
	swap.added = false;
}

const char *pc_swap_why(void)
{
	return swap.why;
}

const char *pc_swap_text(void)
{
	return swap.added ? "to a zram swap added for the scenario" : "to the swap already on";
}
