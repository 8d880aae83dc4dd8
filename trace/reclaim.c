// SPDX-License-Identifier: GPL-2.0
/*
 * The reclaim path's part of a tracing session: its tiers
 * (bpf/reclaim.bpf.c: reclaim/dirty, the dirty PTEs of lazyfree folios an
 * MADV_PAGEOUT of ptecheck's own scenarios must keep mapped; in guests
 * also at fentry and fexit of try_to_unmap_one, per folio), their results
 * and the path's `features` lines.  The suite's oracles (verify/reclaim*.c: data
 * read back and RSS after MADV_PAGEOUT) judge both checks on every
 * kernel; the batch path counts its batches (reclaim/batch/<source>:
 * trace/batch.c).
 */
#include <stdio.h>
#include "probe.h"
#include "ptecheck.skel.h"
#include "report.h"
#include "walk_part.h"

#define FUNC "try_to_unmap_one"

enum { UNMAP };

static void unmap_programs(const struct ptecheck_bpf *skel, struct pc_hook_progs *p)
{
	*p = (struct pc_hook_progs){
		.fentry = {skel->progs.reclaim_unmap_fentry, skel->progs.reclaim_unmap_fexit}};
}

/* fentry and fexit: the fexit reads again what the fentry read. */
static const struct pc_hook_group groups[] = {
	[UNMAP] = {.name = "reclaim per folio (" FUNC ")",
		   .funcs = {FUNC},
		   .needs_fexit = {true},
		   .needs_walk = true,
		   .programs = unmap_programs},
};

static void reclaim_configure(struct pc_session *s)
{
	pc_walk_part_configure(s, PC_SYS_RECLAIM);
	s->skel->rodata->rc_hook_enabled = pc_session_hook_walk_on(s, &pc_reclaim_trace, UNMAP);
}

#define NONE                                                                                       \
	"nothing to judge: no dirty PTE of a lazyfree folio in "                                   \
	"ptecheck's own scenarios (others may map MAP_DROPPABLE memory, discarded dirty by "       \
	"design) "

#define NONE_WRITE                                                                                 \
	"nothing to judge: no writable PTE of an anonymous folio in ptecheck's own scenarios "

/* Tiers kernel:syscall-walk and kernel:fexit of reclaim/dirty and
   reclaim/write (one result at a time: adding one may move the others). */
static void reclaim_results(struct pc_session *s, struct pc_report *r)
{
	const char *why = pc_session_hook_walk_why(s, &pc_reclaim_trace, UNMAP);

	pc_walk_tier_result(s, r, PC_SYS_RECLAIM, PC_CHK_RECLAIM_DIRTY, PC_TIER_SYSCALL_WALK, NULL,
			    NULL, "entries", NONE "in a traced MADV_PAGEOUT");
	pc_walk_tier_result(s, r, PC_SYS_RECLAIM, PC_CHK_RECLAIM_DIRTY, PC_TIER_FEXIT, FUNC, why,
			    "entries", NONE "in a folio a traced task reclaimed (" FUNC ")");
	pc_walk_tier_result(s, r, PC_SYS_RECLAIM, PC_CHK_RECLAIM_WRITE, PC_TIER_SYSCALL_WALK, NULL,
			    NULL, "entries", NONE_WRITE "after a traced MADV_PAGEOUT");
	pc_walk_tier_result(s, r, PC_SYS_RECLAIM, PC_CHK_RECLAIM_WRITE, PC_TIER_FEXIT, FUNC, why,
			    "entries", NONE_WRITE "after a traced " FUNC);
	pc_walk_tier_result(s, r, PC_SYS_RECLAIM, PC_CHK_RECLAIM_BOUNDS, PC_TIER_FEXIT, FUNC, why,
			    "entries",
			    "nothing to judge: no folio of ptecheck's own scenarios mapped on both "
			    "sides of a VMA's end when " FUNC " unmapped it");
}

static const struct pc_feature_hook feature_hooks[] = {
	{"reclaim", FUNC,
	 "reclaim/dirty, reclaim/write: each folio a traced task unmaps to reclaim it"},
};

static void reclaim_feature_tiers(const struct pc_features *f)
{
	char tiers[480];

	pc_walk_part_tiers_text(f, PC_SYS_RECLAIM, "oracle:data-loss", tiers, sizeof(tiers));
	pc_hook_tier_append(tiers, sizeof(tiers), &f->hooks[UNMAP]);
	f->tiers("reclaim/dirty", tiers);
	f->tiers("reclaim/rss", "oracle:status-rss");
	pc_walk_part_tiers_text(f, PC_SYS_RECLAIM, "oracle:write-fault", tiers, sizeof(tiers));
	pc_hook_tier_append(tiers, sizeof(tiers), &f->hooks[UNMAP]);
	f->tiers("reclaim/write", tiers);
	/* The hook's alone: no syscall's range nor userspace can see which
	   VMA's unmap changed a PTE. */
	snprintf(tiers, sizeof(tiers), "%s%s",
		 f->hooks[UNMAP].mech ? "kernel:fexit" : "none here: kernel:fexit skips: ",
		 f->hooks[UNMAP].mech ? "" : f->hooks[UNMAP].reason);
	f->tiers("reclaim/bounds", tiers);
}

const struct pc_trace_path pc_reclaim_trace = {
	.name = "reclaim",
	.oracle =
		&(const struct pc_oracle_features){
			.func = "try_to_unmap_one",
			.label = "reclaim (try_to_unmap_one's batched unmap)",
			.have = "its large-folio batches: the batch path's reclaim histograms",
		},
	.groups = groups,
	.n_groups = sizeof(groups) / sizeof(groups[0]),
	.configure = reclaim_configure,
	.results = reclaim_results,
	.feature_hooks = feature_hooks,
	.n_feature_hooks = sizeof(feature_hooks) / sizeof(feature_hooks[0]),
	.feature_tiers = reclaim_feature_tiers,
};
