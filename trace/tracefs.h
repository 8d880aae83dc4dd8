/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PTECHECK_TRACEFS_H
#define PTECHECK_TRACEFS_H

#include <stdbool.h>

/* Mounts tracefs at /sys/kernel/tracing when absent; unmounted at exit. */
int pc_tracefs_ensure(void);
/* "category/event" exists in tracefs. */
bool pc_tracepoint_exists(const char *cat_event);

#endif
