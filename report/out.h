/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Writing a report or a gate decision out.  A writer remembers its first
 * error: the writers print many pieces and check once at the end, so a
 * full disk or a closed pipe is never taken for success.
 */
#ifndef PTECHECK_OUT_H
#define PTECHECK_OUT_H

#include <stdio.h>

struct pc_out {
	FILE *f;
	int err; /* errno of the first failed write, 0 if none */
};

/* fprintf() to o->f unless a write failed already. */
void pc_outf(struct pc_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* After the last pc_outf(): flushes o->f and returns 0 or -errno of the
   first failure (buffered data fails only here: ENOSPC, EPIPE). */
int pc_out_finish(struct pc_out *o);

/* One output format: prints what (a report, a gate result) through o. */
typedef void pc_writer_fn(struct pc_out *o, const void *what);

/*
 * Writes what to f in format fmt, by writers[fmt] of n, and finishes:
 * 0, or -errno of the first failed write; -EINVAL for a NULL what or f or
 * a format without a writer.
 */
int pc_out_write(FILE *f, pc_writer_fn *const *writers, int n, int fmt, const void *what);

/* fopen(path, "w") that refuses a symlink in a sticky world-writable
   directory (errno ELOOP); NULL with errno on failure. */
FILE *pc_open_report(const char *path);
/* pc_open_report(), saying why not on stderr (--output's error). */
FILE *pc_open_report_said(const char *path);

/* The index of s in names[n] (NULL entries never match); -1 if absent. */
int pc_name_find(const char *const *names, int n, const char *s);
/* names[i], or dflt if i is out of range or has no name. */
const char *pc_name_get(const char *const *names, int n, int i, const char *dflt);

#define PC_NAMES_N(names) ((int)(sizeof(names) / sizeof((names)[0])))

#endif
