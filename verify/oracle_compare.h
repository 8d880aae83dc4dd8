/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pure comparison logic of the userspace oracles: before/after snapshots in,
 * a filled struct pc_oracle_msg out.  Every element is judged by one of the
 * shared predicates of <ptecheck/checks.h>, so the unit tests exercise
 * the very decisions the scenarios make, with crafted data.
 */
#ifndef PTECHECK_ORACLE_COMPARE_H
#define PTECHECK_ORACLE_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include "scenario.h"

/* A page order meaning "no folio here" (not present): not compared. */
#define PC_ORDER_NONE 0xffffffffU

/* Empties m and names the scenario, check and tier; status SKIP until judged. */
void pc_oracle_msg_init(struct pc_oracle_msg *m, const char *scenario, __u32 check,
			const char *tier);
/* Counts a violation of verdict; keeps the first four as evidence, with
   the detail that says where (the parent names the verdict, in the
   check's words: report/check_text.c). */
void pc_oracle_add_evidence(struct pc_oracle_msg *m, int verdict, __u64 addr, __u64 new_addr,
			    __u64 expected, __u64 seen, const char *fmt, ...)
	__attribute__((format(printf, 7, 8)));
/* Status from the counts: FAIL with violations, else PASS when anything
   was checked, else SKIP. */
void pc_oracle_judge(struct pc_oracle_msg *m);
/* Status SKIP, summary = the reason. */
void pc_oracle_skip(struct pc_oracle_msg *m, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Appends to the summary (truncating). */
void pc_oracle_appendf(struct pc_oracle_msg *m, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * mremap/moved: slot i of the old range at entry (before[i], at old_addr +
 * i pages) against slot i of the new range after the move (after[i]), with
 * pc_moved_entry.  Sets PASS or FAIL and a summary.
 */
void pc_compare_moved(const struct pc_pte *before, const struct pc_pte *after, size_t n,
		      __u64 old_addr, __u64 new_addr, __u32 move, struct pc_oracle_msg *m);

/*
 * mremap/moved, the other half: after the move nothing is mapped in the old
 * range (each slot judged as "empty stays empty").  Adds to the counts of m
 * and re-judges its status; call after pc_compare_moved.
 */
void pc_compare_vacated(const struct pc_pte *old_after, size_t n, __u64 old_addr,
			struct pc_oracle_msg *m);

/*
 * mremap/folio-intact: the order of the folio of each page before and after
 * the move, with pc_folio_intact.  Pages with PC_ORDER_NONE on either side
 * are not compared (the moved oracle judges presence).
 */
void pc_compare_folio_orders(const __u32 *before, const __u32 *after, size_t n, __u64 old_addr,
			     __u64 new_addr, struct pc_oracle_msg *m);

/*
 * Data-loss oracle: for each element i with was_written[i] (all when NULL),
 * the byte written must be the byte seen, with pc_written_survives.  Element
 * i is at addr + i * stride (the evidence names page i, or block i when the
 * stride is not a page).  The elements not written are the scenario's
 * liveness control and are not judged here.
 */
void pc_compare_written(const __u8 *written, const __u8 *seen, const bool *was_written, size_t n,
			__u64 addr, __u64 stride, struct pc_oracle_msg *m);

/* COW oracle: what a process sharing the pages expected against what it saw
   where the other process wrote. */
void pc_compare_cow(const __u8 *expected, const __u8 *seen, size_t n, __u64 addr, __u64 stride,
		    struct pc_oracle_msg *m);

/*
 * Write-fault oracle (perms): faults[i] were counted around one write to
 * page i of the range at addr after the operation `when` names ("at the
 * move"); every page read-only then (readonly[i]) must have faulted, with
 * pc_write_faulted.  The writable pages are the control: counted in the
 * summary, not judged.
 */
void pc_compare_write_faults(const __u32 *faults, const bool *readonly, size_t n, __u64 addr,
			     const char *when, struct pc_oracle_msg *m);

/*
 * Referenced oracle: the referenced pages of the VMA judged (at addr, or
 * moved there from addr to new_addr; 0 when not moved) cover the touched
 * ones.
 */
void pc_compare_referenced(__u64 referenced_pages, __u64 touched_pages, __u64 addr, __u64 new_addr,
			   struct pc_oracle_msg *m);

/*
 * Reduces one page (or any block) to the byte the data oracles compare: the
 * expected byte when every byte equals it, else the first byte that differs.
 * Sets *off to that byte's offset (0 when all match).
 */
__u8 pc_block_seen(const __u8 *block, size_t len, __u8 expected, size_t *off);

/* Appends note to the summary, cutting the summary short if both do not fit. */
void pc_oracle_add_note(struct pc_oracle_msg *m, const char *note);

/*
 * The final verdict of one check measured n times (msgs[k] from attempt k,
 * disturbed[k] when the BPF disturbance counter moved meanwhile, NULL for
 * none).  Zero false positives: a PASS in any attempt passes, noting
 * violations that did not reproduce; FAIL needs all n attempts to fail, at
 * least required of them undisturbed; any other violation is an
 * inconclusive SKIP; no PASS and no FAIL is the last attempt's SKIP.
 */
void pc_oracle_combine(const struct pc_oracle_msg *const *msgs, const bool *disturbed, int n,
		       int required, struct pc_oracle_msg *out);

#endif
