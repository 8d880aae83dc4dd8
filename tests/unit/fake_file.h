/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Files of the fake sysfs and cgroup trees unit tests make: one written
 * whole, one's first line compared.
 */
#ifndef PTECHECK_FAKE_FILE_H
#define PTECHECK_FAKE_FILE_H

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* mkdir -p of path's components after its first skip bytes (an existing
   root), 0700.  0 or -errno. */
static inline int fake_mkdirs(char *path, size_t skip)
{
	for (char *p = path + skip + 1; (p = strchr(p, '/')); p++) {
		*p = 0;
		if (mkdir(path, 0700) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	return mkdir(path, 0700) && errno != EEXIST ? -errno : 0;
}

/* path made (or truncated) holding text. */
static inline bool fake_put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return false;
	fputs(text, f);
	return !fclose(f);
}

/* Whether path's first line, without its newline, is want. */
static inline bool fake_reads(const char *path, const char *want)
{
	char buf[128] = "";
	FILE *f = fopen(path, "r");

	if (!f)
		return false;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	return !strcmp(buf, want);
}

#endif
