/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PTECHECK_CMD_WATCH_H
#define PTECHECK_CMD_WATCH_H

/* ptecheck watch and ptecheck hist (argv[0] tells which). */
int pc_cmd_watch(int argc, char **argv);

#endif
