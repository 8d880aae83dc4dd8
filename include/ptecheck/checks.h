/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every check of every path, one identifier each: the index of the BPF
 * counters, of oracle verdicts and of the names and evidence texts
 * reports print (report/check_text.c).  A path lists its checks in its own
 * header (PC_<PATH>_CHECKS); this file only gathers them.
 */
#ifndef PTECHECK_CHECKS_H
#define PTECHECK_CHECKS_H

#include "mremap.h"
#include "filemap.h"
#include "contpte.h"
#include "mprotect.h"
#include "zap.h"

/* The paths, in run order: every layer that lists them expands this list
   (trace/session.c, loader/paths.c), so a new path is named once. */
#define PC_PATHS(X)	  X(mremap) X(filemap) X(contpte) X(mprotect) X(zap)
#define PC_PATH_ONE(path) +1
#define PC_N_PATHS	  (0 PC_PATHS(PC_PATH_ONE))
/* The paths a tracing session traces: the suites' and `batch`, whose
   histograms have no suite (trace/batch.c). */
#define PC_TRACE_PATHS(X) PC_PATHS(X) X(batch)
#define PC_N_TRACE_PATHS  (0 PC_TRACE_PATHS(PC_PATH_ONE))

#define PC_ALL_CHECKS(X)                                                                           \
	PC_MREMAP_CHECKS(X)                                                                        \
	PC_FILEMAP_CHECKS(X) PC_CONTPTE_CHECKS(X) PC_MPROTECT_CHECKS(X) PC_ZAP_CHECKS(X)
#define PC_ALL_EVIDENCE(E)                                                                         \
	PC_MREMAP_EVIDENCE(E)                                                                      \
	PC_FILEMAP_EVIDENCE(E) PC_CONTPTE_EVIDENCE(E) PC_MPROTECT_EVIDENCE(E) PC_ZAP_EVIDENCE(E)

enum pc_check_id {
#define PC_CHECK_ID(id, name) PC_CHK_##id,
	PC_ALL_CHECKS(PC_CHECK_ID)
#undef PC_CHECK_ID
		PC_CHK__COUNT,
};

#endif
