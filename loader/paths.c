// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>
#include "paths.h"
#include "session.h"

const struct pc_path pc_paths[] = {
#define PATH(path) {#path, &pc_##path##_suite, &pc_##path##_trace},
	PC_PATHS(PATH)
#undef PATH
};
const int pc_n_paths = sizeof(pc_paths) / sizeof(pc_paths[0]);

const struct pc_path *pc_path_find(const char *name)
{
	for (int i = 0; i < pc_n_paths; i++)
		if (strcmp(pc_paths[i].name, name) == 0)
			return &pc_paths[i];
	return NULL;
}

const char *pc_path_names(void)
{
	static char names[128];
	size_t used = 0;

	for (int k = 0; k < pc_n_paths && used < sizeof(names); k++)
		used += snprintf(names + used, sizeof(names) - used, "%s%s", k ? ", " : "",
				 pc_paths[k].name);
	return names;
}

/* Whether the comma-separated list names name, as a whole entry. */
static bool list_has(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *e = list; e; e = strchr(e, ',') ? strchr(e, ',') + 1 : NULL)
		if (strncmp(e, name, n) == 0 && (e[n] == ',' || e[n] == '\0'))
			return true;
	return false;
}

bool pc_path_selected(const struct pc_path *p, const char *arg)
{
	return strcmp(arg, "all") == 0 || list_has(arg, p->name);
}

const char *pc_suite_arg_bad(const char *arg, char *bad, size_t len)
{
	if (strcmp(arg, "all") == 0)
		return NULL;
	for (const char *e = arg; e; e = strchr(e, ',') ? strchr(e, ',') + 1 : NULL) {
		size_t n = strcspn(e, ",");
		int k;

		for (k = 0; k < pc_n_paths; k++)
			if (strlen(pc_paths[k].name) == n && strncmp(e, pc_paths[k].name, n) == 0)
				break;
		if (k == pc_n_paths) {
			snprintf(bad, len, "%.*s", (int)n, e);
			return bad;
		}
	}
	return NULL;
}

/* Is trace path t in a session of --suite arg (NULL: every path)? */
static bool trace_selected(const struct pc_trace_path *t, const char *arg)
{
	const struct pc_path *p = pc_path_find(t->name);

	return !arg || !p || pc_path_selected(p, arg);
}

void pc_paths_results(struct pc_session *s, struct pc_report *r, const char *arg)
{
	for (int k = 0; k < PC_N_TRACE_PATHS; k++)
		if (pc_trace_paths[k]->results && trace_selected(pc_trace_paths[k], arg))
			pc_trace_paths[k]->results(s, r);
}

void pc_paths_hists(struct pc_session *s, struct pc_report *r, const char *arg)
{
	for (int k = 0; k < PC_N_TRACE_PATHS; k++)
		if (trace_selected(pc_trace_paths[k], arg)) {
			pc_session_hists(s, r, pc_trace_paths[k]->hist_table,
					 pc_trace_paths[k]->n_hist_table);
			if (pc_trace_paths[k]->hists)
				pc_trace_paths[k]->hists(s, r);
		}
}
