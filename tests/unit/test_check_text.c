// SPDX-License-Identifier: GPL-2.0
/*
 * The one table of check names and evidence texts (report/check_text.c): every
 * check of every path has a unique "path/name" found back by name; every
 * verdict has its own text; a check whose path gives its own words for a
 * verdict gets those words, and only that check (filemap/rmap-count must
 * not read like mremap's batch pairs).
 */
#include <string.h>
#include "check_text.h"
#include "tap.h"

/* name starts with one of the paths (PC_PATHS) and '/'. */
static bool path_prefixed(const char *name)
{
#define PATH_NAME(path) #path,
	static const char *const paths[] = {PC_PATHS(PATH_NAME)};
#undef PATH_NAME

	for (size_t k = 0; k < sizeof(paths) / sizeof(paths[0]); k++) {
		size_t n = strlen(paths[k]);

		if (!strncmp(name, paths[k], n) && name[n] == '/')
			return true;
	}
	return false;
}

static void check_names(void)
{
	for (int i = 0; i < PC_CHK__COUNT; i++) {
		const char *name = pc_check_name(i);
		bool prefixed = path_prefixed(name);

		TAP_CHECK(prefixed, "check %d (%s) is named path/check", i, name);
		TAP_CHECK_EQ(pc_check_find(name), i, "check %s is found by its name", name);
	}
	TAP_CHECK(!strcmp(pc_check_name(PC_CHK__COUNT), "unknown"),
		  "an id out of range is unknown");
	TAP_CHECK_EQ(pc_check_find("mremap/nonesuch"), -1, "an unknown name is not found");
}

static void check_texts(void)
{
	for (int v = PC_V_PTE_LOST; v < PC_V__COUNT; v++)
		TAP_CHECK(strcmp(pc_verdict_text(v), "violation") != 0, "verdict %d has a text", v);
	TAP_CHECK(!strcmp(pc_evidence_text(PC_CHK_BATCH, PC_V_BATCH_NR_MISMATCH),
			  "PTEs set differ in number from PTEs cleared"),
		  "mremap/batch names its pair: cleared and set");
	TAP_CHECK(strstr(pc_evidence_text(PC_CHK_FM_RMAP, PC_V_BATCH_NR_MISMATCH),
			 "folio_add_file_rmap_ptes") != NULL,
		  "filemap/rmap-count names its pair: set_pte_range and the rmap");
	TAP_CHECK(strstr(pc_evidence_text(PC_CHK_FM_RMAP, PC_V_BATCH_NR_MISMATCH), "cleared") ==
			  NULL,
		  "filemap/rmap-count does not speak of cleared PTEs");
	TAP_CHECK(strstr(pc_evidence_text(PC_CHK_CP_MLOCK, PC_V_MAPCOUNT), "Locked") != NULL,
		  "contpte/mlock speaks of Locked, not of mapcounts");
	TAP_CHECK(!strcmp(pc_evidence_text(PC_CHK_FM_RMAP, PC_V_MAPCOUNT),
			  pc_verdict_text(PC_V_MAPCOUNT)),
		  "a verdict without words of the check's own reads as the verdict");
	TAP_CHECK(!strcmp(pc_evidence_text(PC_CHK_MOVED, PC_V_DIRTY_LOST), "dirty bit lost"),
		  "mremap/moved dirty lost reads as the verdict");
}

int main(void)
{
	tap_plan(0);
	check_names();
	check_texts();
	return tap_finish();
}
