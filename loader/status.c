// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "cli.h"
#include "status.h"

static int status_fd = -1;

void pc_status_open(void)
{
	const char *path = getenv("PTECHECK_STATUS");

	if (!path || !path[0])
		return;
	/* Never created: a path that does not exist is a harness's mistake. */
	status_fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOCTTY);
	if (status_fd < 0)
		pc_err(errno, "PTECHECK_STATUS=%s: no status records", path);
}

void pc_status_close(void)
{
	if (status_fd >= 0)
		close(status_fd);
	status_fd = -1;
}

/* One record, one write(): a reader never sees half a line. */
static void __attribute__((format(printf, 1, 2))) record(const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;

	if (status_fd < 0)
		return;
	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(line) - 1)
		return;
	line[n++] = '\n';
	if (write(status_fd, line, (size_t)n) != n)
		pc_err(errno, "PTECHECK_STATUS: cannot write a status record");
}

void pc_status_suites(const char *const *names, int n)
{
	char list[256] = "";
	size_t used = 0;

	for (int i = 0; i < n && used < sizeof(list); i++)
		used += snprintf(list + used, sizeof(list) - used, "%s%s", i ? " " : "", names[i]);
	fprintf(stderr, "ptecheck: suites to run: %s\n", list);
	record("suites %s", list);
}

void pc_status_begin(const char *suite, int i, int n)
{
	fprintf(stderr, "ptecheck: suite %s (%d of %d)\n", suite, i, n);
	record("suite %s begin", suite);
}

void pc_status_end(const char *suite)
{
	record("suite %s end", suite);
}

void pc_status_scenario(const char *scenario)
{
	record("scenario %s", scenario);
}

void pc_status_scenario_time(const char *scenario, double seconds)
{
	record("scenario-time %s %.2f", scenario, seconds);
}
