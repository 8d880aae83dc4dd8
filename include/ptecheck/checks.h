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

#define PC_ALL_CHECKS(X)   PC_MREMAP_CHECKS(X) PC_FILEMAP_CHECKS(X) PC_CONTPTE_CHECKS(X)
#define PC_ALL_EVIDENCE(E) PC_MREMAP_EVIDENCE(E) PC_FILEMAP_EVIDENCE(E) PC_CONTPTE_EVIDENCE(E)

enum pc_check_id {
#define PC_CHECK_ID(id, name) PC_CHK_##id,
	PC_ALL_CHECKS(PC_CHECK_ID)
#undef PC_CHECK_ID
		PC_CHK__COUNT,
};

#endif
