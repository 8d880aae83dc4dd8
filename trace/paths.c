// SPDX-License-Identifier: GPL-2.0
/* Interim: the paths' entries over the session's functions (trace/session.c). */
#include "path.h"
#include "session.h"

#define PATH_HISTS(path)                                                                           \
	static void path##_hists(struct pc_session *s, struct pc_report *r)                        \
	{                                                                                          \
		pc_session_hists(s, r, #path);                                                     \
	}
PATH_HISTS(mremap)
PATH_HISTS(filemap)
PATH_HISTS(contpte)

const struct pc_trace_path pc_mremap_trace = {"mremap", pc_session_mremap_results, mremap_hists};
const struct pc_trace_path pc_filemap_trace = {"filemap", pc_session_filemap_results,
					       filemap_hists};
const struct pc_trace_path pc_contpte_trace = {"contpte", pc_session_contpte_results,
					       contpte_hists};
