/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tracing session each command opens, as it opens it by default (its
 * filter, its walk, its sampling: read-only values the verifier folds
 * into the programs), in one table: run, watch, hist and export start
 * from it, and `ptecheck features` test-loads each entry, so what it says
 * loads is what they load.
 */
#ifndef PTECHECK_LOADER_SESSIONS_H
#define PTECHECK_LOADER_SESSIONS_H

#include "session.h"

#define PC_EXPORT_DEFAULT_SAMPLE 16 /* export judges 1 in 16 windows (docs/fleet.md) */

struct pc_command_session {
	const char *command; /* "run", "watch", "hist", "export" */
	struct pc_session_opts so;
};

extern const struct pc_command_session pc_command_sessions[];
extern const int pc_n_command_sessions;

/* The session options command opens by default (command must be one of
   the table's). */
struct pc_session_opts pc_command_session(const char *command);

#endif
