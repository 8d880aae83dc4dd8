// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fullio.h"
#include "textfile.h"

int pc_textfile_write(const char *dir, const char *body, size_t len)
{
	char tmp[4096], dst[4096];
	int fd, dfd, err = 0;

	if (snprintf(tmp, sizeof(tmp), "%s/." PC_TEXTFILE_NAME ".XXXXXX", dir) >=
		    (int)sizeof(tmp) ||
	    snprintf(dst, sizeof(dst), "%s/" PC_TEXTFILE_NAME, dir) >= (int)sizeof(dst))
		return -ENAMETOOLONG;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* The collector runs as another user: readable by all, as 0644. */
	err = fchmod(fd, 0644) ? -errno : pc_write_full(fd, body, len);
	if (!err && fsync(fd))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	if (!err && rename(tmp, dst))
		err = -errno;
	if (err) {
		unlink(tmp);
		return err;
	}
	/* The rename itself durable too. */
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	err = fsync(dfd) ? -errno : 0;
	close(dfd);
	return err;
}
