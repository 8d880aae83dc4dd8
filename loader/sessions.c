// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>
#include "sessions.h"

const struct pc_command_session pc_command_sessions[] = {
	/* The scenarios' children, tracked: the walk judges mremap. */
	{"run", {.filter_mode = PC_FILTER_TRACKED, .want_walk = true}},
	/* Every process (or those --pid, --comm, --cgroup name). */
	{"watch", {.filter_mode = PC_FILTER_ALL, .want_walk = true}},
	/* Histograms only: no check's walk. */
	{"hist", {.filter_mode = PC_FILTER_ALL, .want_walk = false}},
	{"export",
	 {.filter_mode = PC_FILTER_ALL, .want_walk = true, .sample = PC_EXPORT_DEFAULT_SAMPLE}},
};

const int pc_n_command_sessions = sizeof(pc_command_sessions) / sizeof(pc_command_sessions[0]);

struct pc_session_opts pc_command_session(const char *command)
{
	for (int i = 0; i < pc_n_command_sessions; i++)
		if (!strcmp(pc_command_sessions[i].command, command))
			return pc_command_sessions[i].so;
	abort(); /* a command not in the table: a bug, not input */
}
