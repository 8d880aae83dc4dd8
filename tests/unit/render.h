/* SPDX-License-Identifier: GPL-2.0 */
/* What the report tests share: a report rendered to a string, and its lines. */
#ifndef PTECHECK_TEST_RENDER_H
#define PTECHECK_TEST_RENDER_H

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "report.h"

/* A writer of what into f in format fmt: 0 or -errno. */
typedef int (*test_writer)(const void *what, int fmt, FILE *f);

/* What w writes, as a malloc'ed string (NULL if it cannot be had); *ret
   is w's result. */
static inline char *render_with(test_writer w, const void *what, int fmt, int *ret)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	*ret = -ENOMEM;
	if (!f)
		return NULL;
	*ret = w(what, fmt, f);
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

static inline int writer_report(const void *r, int fmt, FILE *f)
{
	return pc_report_write(r, (enum pc_format)fmt, f);
}

/* Renders a report into a malloc'ed string; NULL on failure. */
static inline char *render(const struct pc_report *r, enum pc_format fmt, int *ret)
{
	return render_with(writer_report, r, fmt, ret);
}

/* The same, NULL when the writer failed too. */
static inline char *render_report(const struct pc_report *r, enum pc_format fmt)
{
	int ret;
	char *s = render(r, fmt, &ret);

	if (ret) {
		free(s);
		return NULL;
	}
	return s;
}

/*
 * The report JSON js against docs/report-schema.json, by python3's
 * jsonschema: 0 valid, 1 not, -1 when it cannot be checked here (no
 * jsonschema, or the tree unknown).  test_file is the caller's __FILE__:
 * CMake compiles it by its absolute path, tests/unit/ of the tree.
 */
static inline int schema_check(const char *js, const char *test_file)
{
	char path[] = "/tmp/ptecheck-schema.XXXXXX", cmd[1200], schema[512];
	const char *tail = strstr(test_file, "tests/unit/");
	int fd, st;
	FILE *f;

	if (!tail || test_file[0] != '/' ||
	    system("python3 -c 'import jsonschema' >/dev/null 2>&1") != 0)
		return -1;
	snprintf(schema, sizeof(schema), "%.*sdocs/report-schema.json", (int)(tail - test_file),
		 test_file);
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	f = fdopen(fd, "w");
	if (!f || fputs(js, f) < 0 || fclose(f)) {
		if (!f)
			close(fd);
		unlink(path);
		return -1;
	}
	snprintf(cmd, sizeof(cmd),
		 "python3 -c 'import json,sys,jsonschema; "
		 "jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))' "
		 "%s %s",
		 path, schema);
	st = system(cmd);
	unlink(path);
	return st == 0 ? 0 : 1;
}

/* True if some line of text is exactly line. */
static inline bool has_line(const char *text, const char *line)
{
	size_t n = strlen(line);
	const char *p = text;

	while (p && *p) {
		if (!strncmp(p, line, n) && (p[n] == '\n' || p[n] == '\0'))
			return true;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return false;
}

/* True if some line starts with prefix. */
static inline bool has_line_prefix(const char *text, const char *prefix)
{
	size_t n = strlen(prefix);
	const char *p = text;

	while (p && *p) {
		if (!strncmp(p, prefix, n))
			return true;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return false;
}

#endif
