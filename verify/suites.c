// SPDX-License-Identifier: GPL-2.0
#include <string.h>
#include "scenario.h"

const struct pc_suite pc_suites[] = {
	{"mremap", "mremap PTE batching and PMD-level moves", pc_mremap_scenarios,
	 &pc_mremap_n_scenarios},
	{"filemap", "folio-based fault-around: batches, rmap and RSS counts", pc_filemap_scenarios,
	 &pc_filemap_n_scenarios},
	{"contpte", "arm64 contiguous PTEs: access/dirty gathering, fold/unfold, mlock",
	 pc_contpte_scenarios, &pc_contpte_n_scenarios},
};
const int pc_n_suites = sizeof(pc_suites) / sizeof(pc_suites[0]);

const struct pc_suite *pc_suite_find(const char *name)
{
	for (int i = 0; i < pc_n_suites; i++)
		if (strcmp(pc_suites[i].name, name) == 0)
			return &pc_suites[i];
	return NULL;
}
