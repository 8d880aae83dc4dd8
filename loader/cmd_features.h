/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PTECHECK_CMD_FEATURES_H
#define PTECHECK_CMD_FEATURES_H

/* ptecheck features: prints the features report; returns an exit code. */
int pc_cmd_features(int argc, char **argv);

#endif
