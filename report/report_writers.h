/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside report/: what the four writers share.  report.c reads the model
 * for them (normalised statuses, bounded counts, stat names, histogram
 * ranges); report_text.c draws the pieces TAP prints again behind "# "
 * (and JUnit, the evidence, escaped for XML).
 */
#ifndef PTECHECK_REPORT_WRITERS_H
#define PTECHECK_REPORT_WRITERS_H

#include <string.h>
#include "report.h"

/* Large enough for any field after escaping (an XML entity is at most six
   bytes for one): writers print what the model holds, never less. */
#define PC_CLEAN_MAX (6 * PC_EVIDENCE_LINES_MAX + 1)

/* Fixed-size fields may in principle lack a NUL: never read past them. */
#define FLD(s) (int)strnlen((s), sizeof(s)), (s)

/* Room for element n of a dynamic array that grows by doubling, zeroed:
   the (maybe moved) array, or NULL with errno ENOMEM and it unchanged. */
void *pc_report_grow(void *arr, int *cap, int n, size_t elem);

/* An out-of-range status is reported as a failure, never as a pass. */
enum pc_status pc_result_status(const struct pc_result *res);
enum pc_status pc_variant_status(const struct pc_variant *v);
/* The evidence items kept, within [0, PC_MAX_EVIDENCE]. */
int pc_result_n_evidence(const struct pc_result *res);
/* NaN, infinity or a clock step backwards: 0 rather than nonsense. */
double pc_report_duration(const struct pc_report *r);
/* The stats counted, within the array. */
int pc_report_n_stats(const struct pc_report *r);
/* First and last non-empty slot; false if the histogram is empty. */
bool pc_hist_report_range(const struct pc_hist_report *h, int *first, int *last);
void pc_hist_report_bounds(const struct pc_hist_report *h, int slot, __u64 *lo, __u64 *hi);

/* Text pieces, each line behind a prefix ("# " for TAP). */
void pc_text_hist(struct pc_out *o, const struct pc_hist_report *h, const char *pfx);
void pc_text_stats(struct pc_out *o, const struct pc_report *r, const char *pfx);
void pc_text_notes(struct pc_out *o, const struct pc_report *r, const char *pfx);
/* When some of res's scenario variants did not run: those that ran, and
   each that did not with why. */
void pc_text_variants(struct pc_out *o, const struct pc_result *res, const char *pfx);
/* -v: each of res's scenario variants, "PFX<status>  <words>". */
void pc_text_scenarios(struct pc_out *o, const struct pc_result *res, const char *pfx);
/* A variant in words, cleaned by how into buf: "anon-64k: <what it
   judged>" (with its rounds under --stress), skipped: "anon-64k: <why>". */
const char *pc_variant_words(const struct pc_variant *v, char *buf, size_t sz, unsigned int how);
/* Each of ev->lines as "PFX| line", cleaned by how (enum pc_clean). */
void pc_text_log_lines(struct pc_out *o, const struct pc_evidence *ev, const char *pfx,
		       unsigned int how);
/* "PFXchecked N, violations N, inconclusive N" of res. */
void pc_text_counts(struct pc_out *o, const struct pc_result *res, const char *pfx);
/* res's evidence, an item a line (its kernel-log lines below it), and how
   many were not kept; cleaned by how (LINE for text, XML for JUnit). */
void pc_text_evidence(struct pc_out *o, const struct pc_result *res, const char *pfx,
		      unsigned int how);
/* ev's kernel stack, a frame a line, or why it is unavailable; nothing
   for evidence without one; one line when it is the stack of prev (the
   evidence printed before it, or NULL); cleaned by how. */
void pc_text_stack(struct pc_out *o, const struct pc_evidence *ev, const struct pc_evidence *prev,
		   const char *pfx, unsigned int how);

/* The writers, what = a const struct pc_report *. */
void pc_report_write_text(struct pc_out *o, const void *what);
void pc_report_write_tap(struct pc_out *o, const void *what);
void pc_report_write_json(struct pc_out *o, const void *what);
void pc_report_write_junit(struct pc_out *o, const void *what);

#endif
