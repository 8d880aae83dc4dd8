/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The words reports use for checks and verdicts: one table, used by every
 * tier (BPF events, oracle verdicts) and every writer.
 */
#ifndef PTECHECK_CHECK_TEXT_H
#define PTECHECK_CHECK_TEXT_H

#include <ptecheck/checks.h>
#include <ptecheck/events.h>

/* "mremap/moved"; "unknown" for an id out of range. */
const char *pc_check_name(__u32 check);
/* The check named name ("filemap/rmap-count"), or -1. */
int pc_check_find(const char *name);
/* What a verdict means in general ("dirty bit lost"). */
const char *pc_verdict_text(__u32 verdict);
/* What a violation of check with verdict shows: the check's own text where
   its path gives one (PC_EVIDENCE_<path>), else the verdict's. */
const char *pc_evidence_text(__u32 check, __u32 verdict);
/* The report name of a tier (enum pc_tier): "kernel:fexit", ... */
const char *pc_tier_name(__u32 tier);

#endif
