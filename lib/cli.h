/* SPDX-License-Identifier: GPL-2.0 */
/* Command-line value parsing shared by the workloads. */
#ifndef PTECHECK_CLI_H
#define PTECHECK_CLI_H

#include <stdbool.h>
#include <stddef.h>

/* "4096", "64K", "1M", "2G" (k/m/g too) -> bytes in *out; false when the
   text is malformed or the size exceeds max. */
bool pc_parse_size(const char *s, size_t max, size_t *out);

#endif
