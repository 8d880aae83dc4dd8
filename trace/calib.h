/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PTECHECK_CALIB_H
#define PTECHECK_CALIB_H

#include <stdbool.h>
#include <stddef.h>
#include <ptecheck/events.h>

/* Page-table walk calibration (bpf/calib.bpf.c explains the method): 0
   with *out and the end of RAM in *phys_limit, or -errno; reason says
   what was found or tried. */
int pc_calibrate_walk(struct pc_walk_calib *out, __u64 *phys_limit, char *reason, size_t len);

/* Whether the calibration c found the vmemmap and the size of a struct
   page: the parts can read the pages of PTEs. */
static inline bool pc_calib_vmemmap_ok(const struct pc_walk_calib *c)
{
	return c->valid && c->page_size;
}

/* NULL when pc_calib_vmemmap_ok(c), else why not: the calibration's own
   words, or fallback where it has none. */
const char *pc_calib_vmemmap_why(const struct pc_walk_calib *c, const char *fallback);

#endif
