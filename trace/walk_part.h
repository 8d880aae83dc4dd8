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

/* Appends to the tiers text in buf the hook tier of a check: "+
   kernel:fexit", or why it skips (h: the group as chosen). */
void pc_hook_tier_append(char *buf, size_t size, const struct pc_hook_choice *h);

#endif
