/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The measuring loop every scenario suite shares: a measurement fills one
 * verdict per slot (a check and tier) and says whether it can be trusted;
 * it is repeated on fresh mappings up to PC_ATTEMPTS times until it
 * settles, and the attempts are combined per slot (pc_oracle_combine) and
 * reported.
 */
#ifndef PTECHECK_ATTEMPT_H
#define PTECHECK_ATTEMPT_H

#include <stdbool.h>
#include <stddef.h>
#include "oracle_compare.h"
#include "scenario.h"

#define PC_ATTEMPTS	 3
#define PC_ATTEMPT_SLOTS 6

/* One attempt: a verdict per slot, and whether it can be trusted. */
struct pc_attempt {
	struct pc_oracle_msg msg[PC_ATTEMPT_SLOTS];
	bool judged[PC_ATTEMPT_SLOTS];
	int n;		      /* slots 0..n-1 may be in use (see pc_slot_used) */
	bool disturbed;	      /* BPF or vmstat counters moved (or could not be read) */
	bool retry;	      /* inconclusive: another attempt may settle it */
	struct pc_window win; /* the measurement's disturbance window */
};

/* Slot i reports check in tier for this scenario; not judged yet. */
void pc_slot_init(struct pc_attempt *a, int i, const struct pc_scenario_ctx *ctx, __u32 check,
		  const char *tier);
/* The next free slot initialised as pc_slot_init does; returns its index. */
int pc_slot_add(struct pc_attempt *a, const struct pc_scenario_ctx *ctx, __u32 check,
		const char *tier);
/* Slot i was initialised in this attempt. */
bool pc_slot_used(const struct pc_attempt *a, int i);
/* Slot i (no-op when i < 0) skips with the reason. */
void pc_slot_skip(struct pc_attempt *a, int i, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Slot i judged from its counts (pc_oracle_judge). */
void pc_slot_judge(struct pc_attempt *a, int i);
/* Every slot not judged yet skips for the same reason. */
void pc_skip_all(struct pc_attempt *a, const char *why);
/* Every slot not judged yet: could not run because what failed with err.
   Returns -err. */
int pc_skip_rest(struct pc_attempt *a, const char *what, int err);

typedef int (*pc_measure_fn)(struct pc_scenario_ctx *ctx, const void *data, struct pc_attempt *a);
/* Measures up to PC_ATTEMPTS times (until an attempt settles: nothing to
   retry and nothing failed) and reports each used slot combined over the
   attempts.  Returns the last measurement's error, or -ENOMEM. */
int pc_attempts_run(struct pc_scenario_ctx *ctx, pc_measure_fn measure, const void *data);

#endif
