/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel paths ptecheck checks, one entry each: the path's suite of
 * scenarios (verify/) and its part of a tracing session (trace/).  run,
 * watch, hist and features loop over this table.
 */
#ifndef PTECHECK_PATHS_H
#define PTECHECK_PATHS_H

#include <stdbool.h>
#include "path.h"
#include "scenario.h"

struct pc_path {
	const char *name;
	const struct pc_suite *suite;
	const struct pc_trace_path *trace;
};

extern const struct pc_path pc_paths[];
extern const int pc_n_paths;

/* The path named name, or NULL. */
const struct pc_path *pc_path_find(const char *name);
/* "mremap, filemap, ..." in paths.list order (for messages and help). */
const char *pc_path_names(void);
/* Whether --suite arg ("all", a path's name, or names separated by
   commas) selects path p. */
bool pc_path_selected(const struct pc_path *p, const char *arg);
/* NULL when --suite arg is "all" or a list of known paths' names; else
   the first entry that names none (written to bad[len]; "" for an empty
   one). */
const char *pc_suite_arg_bad(const char *arg, char *bad, size_t len);

/* What a session's paths add to report r: each path's results (with
   results) and histograms, of the paths --suite arg selects (NULL: all);
   a path without a suite (batch) is always in. */
void pc_paths_results(struct pc_session *s, struct pc_report *r, const char *arg);
void pc_paths_hists(struct pc_session *s, struct pc_report *r, const char *arg);

#endif
