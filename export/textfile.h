/* SPDX-License-Identifier: GPL-2.0 */
/* ptecheck export --textfile DIR: node_exporter's textfile collector. */
#ifndef PTECHECK_EXPORT_TEXTFILE_H
#define PTECHECK_EXPORT_TEXTFILE_H

#include <stddef.h>

#define PC_TEXTFILE_NAME "ptecheck.prom"

/* DIR/ptecheck.prom holds body, atomically: a temporary file in DIR
   (".ptecheck.prom.XXXXXX", which the collector ignores) written, synced
   and renamed over it, then DIR synced.  0, or -errno (nothing left). */
int pc_textfile_write(const char *dir, const char *body, size_t len);

#endif
