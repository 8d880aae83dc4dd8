// SPDX-License-Identifier: GPL-2.0
/*
 * A hook group that continues what the one before it begins
 * (needs_previous: filemap's rmap hooks after its set_pte_range hooks)
 * goes off with it, whether the choice found the one before unavailable or
 * the kernel's verifier refused its program later (trace/load.c): alone
 * its checks would judge half a story.  pc_hooks_drop_orphans is pure.
 */
#include <string.h>
#include "hooks.h"
#include "tap.h"

static const struct pc_hook_group groups[] = {
	{.name = "batches", .funcs = {"set_pte_range"}},
	{.name = "rmap", .funcs = {"folio_add_file_rmap_ptes"}, .needs_previous = true},
	{.name = "rmap detail", .funcs = {"folio_add_file_rmap_ptes"}, .needs_previous = true},
	{.name = "other", .funcs = {"folio_pte_batch"}},
};

#define N ((int)(sizeof(groups) / sizeof(groups[0])))

static void all_on(struct pc_hook_choice *c)
{
	memset(c, 0, sizeof(*c) * N);
	for (int i = 0; i < N; i++)
		c[i].mech = PC_MECH_FENTRY;
}

int main(void)
{
	struct pc_hook_choice c[N];

	tap_plan(0);
	all_on(c);
	pc_hooks_drop_orphans(groups, N, c);
	TAP_CHECK(c[0].mech && c[1].mech && c[2].mech && c[3].mech, "every group on: none dropped");

	all_on(c);
	c[0].mech = PC_MECH_NONE;
	strcpy(c[0].reason, "the verifier refused filemap_set_fexit: program too large");
	pc_hooks_drop_orphans(groups, N, c);
	TAP_CHECK(!c[1].mech && !c[2].mech && c[3].mech,
		  "the first off: both that continue it off, in a chain; the unrelated one on");
	TAP_CHECK(strstr(c[1].reason, "needs the set_pte_range hooks, which are unavailable: "
				      "the verifier refused filemap_set_fexit") != NULL,
		  "the follower says why, with the first's reason (%s)", c[1].reason);

	all_on(c);
	c[1].mech = PC_MECH_NONE;
	pc_hooks_drop_orphans(groups, N, c);
	TAP_CHECK(c[0].mech && !c[2].mech && c[3].mech,
		  "the middle off: only the one after it goes, not the one before");
	return tap_finish();
}
