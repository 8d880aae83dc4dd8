// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"
#include "out.h"
#include "privilege.h"

void pc_outf(struct pc_out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->err)
		return;
	va_start(ap, fmt);
	n = vfprintf(o->f, fmt, ap);
	va_end(ap);
	if (n < 0 || ferror(o->f))
		o->err = errno ? errno : EIO;
}

int pc_out_finish(struct pc_out *o)
{
	if (fflush(o->f) != 0 && !o->err)
		o->err = errno ? errno : EIO;
	if (ferror(o->f) && !o->err)
		o->err = EIO;
	return o->err ? -o->err : 0;
}

int pc_out_write(FILE *f, pc_writer_fn *const *writers, int n, int fmt, const void *what)
{
	struct pc_out o = {.f = f, .err = 0};

	if (!what || !f || fmt < 0 || fmt >= n || !writers[fmt])
		return -EINVAL;
	/* errno is only read after a failed call; start clean so it is not stale. */
	errno = 0;
	writers[fmt](&o, what);
	return pc_out_finish(&o);
}

/*
 * Opens a report file for writing.  In a sticky, world-writable directory
 * (/tmp) a symlink is refused: another user could point it anywhere root
 * may write.  Elsewhere paths are followed as given (/dev/stdout works).
 * Under sudo the file is opened as the user who ran sudo.
 */
FILE *pc_open_report(const char *path)
{
	char dir[4096];
	struct stat st, dst;
	const char *slash = strrchr(path, '/');
	struct pc_user u;
	int fd, err;
	FILE *f;

	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
		size_t n = slash ? (size_t)(slash - path) : 0;

		snprintf(dir, sizeof(dir), "%.*s", (int)(n ? n : 1), slash ? path : ".");
		if (stat(dir, &dst) == 0 && (dst.st_mode & S_ISVTX) && (dst.st_mode & S_IWOTH)) {
			errno = ELOOP;
			return NULL;
		}
	}
	/* Under sudo, the file is the user's: opened with their rights, so
	   root never truncates or creates a file they could not. */
	if (pc_report_user(&u)) {
		fd = pc_open_as_user(&u, path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0) {
			errno = -fd;
			return NULL;
		}
	} else {
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0)
			return NULL;
	}
	f = fdopen(fd, "w");
	if (!f) {
		err = errno;
		close(fd);
		errno = err;
	}
	return f;
}

FILE *pc_open_report_said(const char *path)
{
	FILE *f = pc_open_report(path);

	if (!f)
		pc_err(errno, "cannot open %s%s", path,
		       errno == ELOOP ? " (a symlink in a shared directory is refused)" : "");
	return f;
}

int pc_name_find(const char *const *names, int n, const char *s)
{
	int i;

	for (i = 0; s && i < n; i++)
		if (names[i] && !strcmp(s, names[i]))
			return i;
	return -1;
}

const char *pc_name_get(const char *const *names, int n, int i, const char *dflt)
{
	return i >= 0 && i < n && names[i] ? names[i] : dflt;
}
