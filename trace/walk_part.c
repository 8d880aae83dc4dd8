// SPDX-License-Identifier: GPL-2.0
/*
 * The user side the syscall-walk parts share (walk_part.h): one wording
 * of why such a part cannot judge, in the report and in `features`.
 */
#include <stdio.h>
#include <string.h>
#include "load.h"
#include "ptecheck.skel.h"
#include "report.h"
#include "walk_part.h"

void pc_walk_part_configure(struct pc_session *s, enum pc_sys_part part)
{
	if (!pc_load_walk_part_why(s, part))
		return;
#define PC_SYS_OFF(NAME, name, HOOKS, prefix, prefix2, what)                                       \
	if (part == PC_SYS_##NAME)                                                                 \
		s->skel->rodata->sys_##name = false;
	PC_SYS_PARTS(PC_SYS_OFF)
#undef PC_SYS_OFF
}

bool pc_walk_part_skipped(const struct pc_session *s, struct pc_result *res, enum pc_sys_part part)
{
	const char *why = pc_load_walk_part_why(s, part);

	if (!why)
		return false;
	if (pc_load_sys_refused(s, part))
		pc_result_set(res, PC_STATUS_SKIP, "%s", why);
	else
		pc_result_set(res, PC_STATUS_SKIP, "page-table walk unavailable: %s", why);
	return true;
}

const char *pc_walk_part_tiers_text(const struct pc_features *f, enum pc_sys_part part,
				    const char *oracles, char *buf, size_t size)
{
	const char *refused = f->session ? pc_load_sys_refused(f->session, part) : NULL;
	const char *why = !f->walk_ok ? "page-table walk unavailable" : refused;

	snprintf(buf, size, "%s%s%s", oracles,
		 why ? "; kernel:syscall-walk skips: " : " + kernel:syscall-walk", why ? why : "");
	return buf;
}

void pc_walk_part_tiers(const struct pc_features *f, enum pc_sys_part part, const char *check,
			const char *oracles)
{
	char tiers[320];

	f->tiers(check, pc_walk_part_tiers_text(f, part, oracles, tiers, sizeof(tiers)));
}

void pc_hook_tier_append(char *buf, size_t size, const struct pc_hook_choice *h)
{
	size_t n = strlen(buf);

	if (n < size)
		snprintf(buf + n, size - n, "%s%s",
			 h->mech ? " + kernel:fexit" : "; kernel:fexit skips: ",
			 h->mech ? "" : h->reason);
}

struct pc_result *pc_walk_tier_result(struct pc_session *s, struct pc_report *r,
				      enum pc_sys_part part, __u32 check, __u32 tier,
				      const char *funcs, const char *hook_why, const char *what,
				      const char *none)
{
	struct pc_result *res = pc_session_result(s, r, check, tier);

	if (!res)
		return NULL;
	if (tier == PC_TIER_FEXIT && hook_why) {
		pc_result_set(res, PC_STATUS_SKIP, "no fentry/fexit on %s: %s", funcs, hook_why);
		return NULL;
	}
	if (tier != PC_TIER_FEXIT && pc_walk_part_skipped(s, res, part))
		return NULL;
	pc_session_judge(s, res, check, tier, what, none);
	return res;
}

void pc_walk_needs_disturbance(const struct pc_session *s, struct pc_result *res)
{
	if (res && res->status != PC_STATUS_FAIL && !s->disturbance_complete)
		pc_result_set(res, PC_STATUS_SKIP,
			      "cannot observe concurrent reclaim/writeback (%s missing)",
			      s->missing_disturbance);
}
