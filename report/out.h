/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A writer that remembers its first error: the report and gate writers
 * print many pieces and check once at the end, so a full disk or a closed
 * pipe is never taken for success.
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

#endif
