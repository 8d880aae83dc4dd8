/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PTECHECK_CMD_WATCH_H
#define PTECHECK_CMD_WATCH_H

#include <linux/types.h>

/* ptecheck watch and ptecheck hist (argv[0] tells which). */
int pc_cmd_watch(int argc, char **argv);

/* --sample N (watch, export: docs/fleet.md) into *every: -1 to go on,
   else the exit code. */
int pc_sample_option(const char *arg, __u32 *every);

#endif
