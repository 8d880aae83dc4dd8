/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PTECHECK_CMD_EXPORT_H
#define PTECHECK_CMD_EXPORT_H

/* ptecheck export: the checks and histograms for Prometheus (docs/fleet.md). */
int pc_cmd_export(int argc, char **argv);

#endif
