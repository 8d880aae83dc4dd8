// SPDX-License-Identifier: GPL-2.0
/*
 * The mprotect path's part of a tracing session: its syscall-walk tier
 * (bpf/mprotect.bpf.c: mprotect/write, every writable anonymous PTE of a
 * range mprotect made writable maps an exclusive page; mprotect/soft-dirty
 * and uffd-wp, each entry's bit kept), its results and its `features`
 * lines.  The suite's oracles (verify/mprotect*.c:
 * pagemap's soft-dirty bits and PFNs, the data read back, write faults)
 * judge its checks on every kernel; the batch path counts its batches
 * (mprotect/batch/<source>: trace/batch.c).
 */
#include "report.h"
#include "walk_part.h"

#define FUNC "change_protection"

static void mprotect_configure(struct pc_session *s)
{
	pc_walk_part_configure(s, PC_SYS_MPROTECT);
}

/* Tier kernel:syscall-walk of check, nothing judged: why. */
static void walk_result(struct pc_session *s, struct pc_report *r, __u32 check, const char *none)
{
	struct pc_result *res = pc_session_result(s, r, check, PC_TIER_SYSCALL_WALK);

	if (res && !pc_walk_part_skipped(s, res, PC_SYS_MPROTECT))
		pc_session_judge(s, res, check, PC_TIER_SYSCALL_WALK, "entries", none);
}

/* Tier kernel:syscall-walk of mprotect/write, soft-dirty and uffd-wp
   (one result at a time: adding one may move the others). */
static void mprotect_results(struct pc_session *s, struct pc_report *r)
{
	walk_result(s, r, PC_CHK_MP_WRITE,
		    "nothing to judge: no writable PTE of an anonymous folio in a traced mprotect "
		    "that granted write");
	walk_result(s, r, PC_CHK_MP_SOFT_DIRTY,
		    "nothing to judge: no soft-dirty PTE in a traced mprotect (x86 only; judged "
		    "in ptecheck's own scenarios)");
	walk_result(s, r, PC_CHK_MP_UFFD_WP,
		    "nothing to judge: no uffd-wp-protected PTE in a traced mprotect (judged in "
		    "ptecheck's own scenarios)");
}

static void mprotect_feature_tiers(const struct pc_features *f)
{
	pc_walk_part_tiers(f, PC_SYS_MPROTECT, "mprotect/soft-dirty, uffd-wp", "oracle:pagemap");
	f->tiers("mprotect/mapped", "oracle:pagemap, oracle:data");
	pc_walk_part_tiers(f, PC_SYS_MPROTECT, "mprotect/write", "oracle:write-fault");
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
