/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every check of every path, one identifier each: the index of the BPF
 * counters, of oracle verdicts and of the names and evidence texts
 * reports print (report/check_text.c).  A path lists its checks in its own
 * header (PC_CHECKS_<path>); this file only gathers them.
 */
#ifndef PTECHECK_CHECKS_H
#define PTECHECK_CHECKS_H

/* The paths, in run order (include/ptecheck/paths.list, the one list a new
   path adds a line to): their headers and PC_PATH_LIST, generated. */
#include <ptecheck/paths_gen.h>

#define PC_PATH_NAME_OF(path, X) X(path)
/* X(path) for every path: each layer that lists the paths expands this
   (trace/session.c, loader/paths.c, trace/path.h, verify/scenario.h). */
#define PC_PATHS(X)	  PC_PATH_LIST(PC_PATH_NAME_OF, X)
#define PC_PATH_ONE(path) +1
#define PC_N_PATHS	  (0 PC_PATHS(PC_PATH_ONE))
/* The paths a tracing session traces: the suites' and `batch`, whose
   histograms have no suite (trace/batch.c). */
#define PC_TRACE_PATHS(X) PC_PATHS(X) X(batch)
#define PC_N_TRACE_PATHS  (0 PC_TRACE_PATHS(PC_PATH_ONE))

/* Each path's header lists its checks as PC_CHECKS_<path>(X) and the words
   of their evidence as PC_EVIDENCE_<path>(E). */
#define PC_CHECKS_OF(path, X)	PC_CHECKS_##path(X)
#define PC_EVIDENCE_OF(path, E) PC_EVIDENCE_##path(E)
#define PC_ALL_CHECKS(X)	PC_PATH_LIST(PC_CHECKS_OF, X)
#define PC_ALL_EVIDENCE(E)	PC_PATH_LIST(PC_EVIDENCE_OF, E)

enum pc_check_id {
#define PC_CHECK_ID(id, name) PC_CHK_##id,
	PC_ALL_CHECKS(PC_CHECK_ID)
#undef PC_CHECK_ID
		PC_CHK__COUNT,
};

#endif
