/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PTECHECK_CALIB_H
#define PTECHECK_CALIB_H

#include <stddef.h>
#include <ptecheck/events.h>

/* Page-table walk calibration (bpf/calib.bpf.c explains the method): 0
   with *out and the end of RAM in *phys_limit, or -errno; reason says
   what was found or tried. */
int pc_calibrate_walk(struct pc_walk_calib *out, __u64 *phys_limit, char *reason, size_t len);

#endif
