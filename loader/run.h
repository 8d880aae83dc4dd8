/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PTECHECK_RUN_H
#define PTECHECK_RUN_H

int pc_cmd_run(int argc, char **argv);
int pc_cmd_watch(int argc, char **argv); /* also "hist" */

#endif
