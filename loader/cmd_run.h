/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PTECHECK_CMD_RUN_H
#define PTECHECK_CMD_RUN_H

int pc_cmd_run(int argc, char **argv);

#endif
