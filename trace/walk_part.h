/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the syscall-walk parts (include/ptecheck/sys_parts.h: madvise's,
 * mprotect's, mlock's) share on the user side: turned off where they
 * cannot judge, the skip of their results, their `features` tiers line.
 */
#ifndef PTECHECK_TRACE_WALK_PART_H
#define PTECHECK_TRACE_WALK_PART_H

#include "load.h"
#include "path.h"
#include "session.h"

struct pc_result;

/* Turns the part off before the load when it cannot judge here (its
   handlers return at once: nothing to verify but that). */
void pc_walk_part_configure(struct pc_session *s, enum pc_sys_part part);

/* Sets res to skip with why the part cannot judge here: true when it
   did, false when the part can judge (res untouched). */
bool pc_walk_part_skipped(const struct pc_session *s, struct pc_result *res, enum pc_sys_part part);

/* The tiers of a check judged by oracles and by the part: its tier or why
   it skips, into buf (returned). */
const char *pc_walk_part_tiers_text(const struct pc_features *f, enum pc_sys_part part,
				    const char *oracles, char *buf, size_t size);
/* The tiers line of check: oracles, and the part's tier or why it skips. */
void pc_walk_part_tiers(const struct pc_features *f, enum pc_sys_part part, const char *check,
			const char *oracles);

/*
 * The result of check at tier, judged from the counters (what: the unit,
 * none: why nothing was judged): kernel:fexit, the path's hook tier on
 * funcs, skipped with hook_why when not NULL; else part's syscall-walk
 * tier, skipped where the part cannot judge.  The result when it was
 * judged (valid until the next result is added), else NULL.
 */
struct pc_result *pc_walk_tier_result(struct pc_session *s, struct pc_report *r,
				      enum pc_sys_part part, __u32 check, __u32 tier,
				      const char *funcs, const char *hook_why, const char *what,
				      const char *none);

/* A judged result (pc_walk_tier_result's; NULL: none) whose bit a
   reclaim or writeback could clear unseen, where the session cannot see
   them (tracepoints missing): a skip that says so, unless it failed. */
void pc_walk_needs_disturbance(const struct pc_session *s, struct pc_result *res);

/* Appends to the tiers text in buf the hook tier of a check: "+
   kernel:fexit", or why it skips (h: the group as chosen). */
void pc_hook_tier_append(char *buf, size_t size, const struct pc_hook_choice *h);

#endif
