// SPDX-License-Identifier: GPL-2.0
/*
 * The mprotect path's part of a tracing session: its syscall-walk tier
 * (bpf/mprotect.bpf.c: mprotect/write, every writable anonymous PTE of a
 * range mprotect made writable maps an exclusive page), its results and
 * its `features` lines.  The suite's oracles (verify/mprotect*.c:
 * pagemap's soft-dirty bits and PFNs, the data read back, write faults)
 * judge its checks on every kernel; the batch path counts its batches
 * (mprotect/batch/<source>: trace/batch.c).
 */
#include <stdio.h>
#include "load.h"
#include "probe.h"
#include "ptecheck.skel.h"
#include "report.h"
#include "session.h"

#define FUNC "change_protection"

/* Why the syscall-walk tier cannot judge here, or NULL. */
static const char *walk_why(const struct pc_session *s)
{
	return pc_load_walk_part_why(s, PC_SYS_MPROTECT);
}

static void mprotect_configure(struct pc_session *s)
{
	if (walk_why(s))
		s->skel->rodata->sys_mprotect = false;
}

/* Tier kernel:syscall-walk of mprotect/write. */
static void mprotect_results(struct pc_session *s, struct pc_report *r)
{
	struct pc_result *res = pc_session_result(s, r, PC_CHK_MP_WRITE, PC_TIER_SYSCALL_WALK);
	const char *why = walk_why(s);

	if (!res)
		return;
	if (why && pc_load_sys_refused(s, PC_SYS_MPROTECT))
		pc_result_set(res, PC_STATUS_SKIP, "%s", why);
	else if (why)
		pc_result_set(res, PC_STATUS_SKIP, "page-table walk unavailable: %s", why);
	else
		pc_session_judge(s, res, PC_CHK_MP_WRITE, PC_TIER_SYSCALL_WALK, "entries",
				 "nothing to judge: no writable PTE of an anonymous folio in a "
				 "traced mprotect that granted write");
}

static void mprotect_feature_tiers(const struct pc_features *f)
{
	const struct pc_session *s = f->session;
	const char *refused = s ? pc_load_sys_refused(s, PC_SYS_MPROTECT) : NULL;
	char tiers[320];

	f->tiers("mprotect/soft-dirty, uffd-wp, mapped", "oracle:pagemap, oracle:data");
	snprintf(tiers, sizeof(tiers), "oracle:write-fault%s%s",
		 !f->walk_ok ? "; kernel:syscall-walk skips: page-table walk unavailable"
		 : refused   ? "; kernel:syscall-walk skips: "
			     : " + kernel:syscall-walk",
		 f->walk_ok && refused ? refused : "");
	f->tiers("mprotect/write", tiers);
}

const struct pc_trace_path pc_mprotect_trace = {
	.name = "mprotect",
	.oracle =
		&(const struct pc_oracle_features){
			.func = FUNC,
			.label = "mprotect (" FUNC ")",
			.have = "its large-folio batches: the batch path's mprotect histograms",
		},
	.configure = mprotect_configure,
	.results = mprotect_results,
	.feature_tiers = mprotect_feature_tiers,
};
