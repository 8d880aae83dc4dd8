// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <unistd.h>

#include "fullio.h"

/*
 * Reads into in, or writes out (the other NULL), until len bytes moved or
 * the file ended; off < 0: read/write, else pread/pwrite from off.
 */
static ssize_t transfer(int fd, void *in, const void *out, size_t len, off_t off)
{
	size_t done = 0;

	while (done < len) {
		size_t left = len - done;
		off_t at = off + (off_t)done;
		ssize_t n;

		if (out)
			n = off < 0 ? write(fd, (const char *)out + done, left)
				    : pwrite(fd, (const char *)out + done, left, at);
		else
			n = off < 0 ? read(fd, (char *)in + done, left)
				    : pread(fd, (char *)in + done, left, at);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		done += (size_t)n;
	}
	return (ssize_t)done;
}

/* 0 when all len bytes moved, else -errno or -EIO. */
static int all_or_error(ssize_t n, size_t len)
{
	if (n < 0)
		return (int)n;
	return (size_t)n == len ? 0 : -EIO;
}

ssize_t pc_read_full(int fd, void *buf, size_t len)
{
	return transfer(fd, buf, NULL, len, -1);
}

int pc_write_full(int fd, const void *buf, size_t len)
{
	return all_or_error(transfer(fd, NULL, buf, len, -1), len);
}

int pc_pread_full(int fd, void *buf, size_t len, off_t off)
{
	if (off < 0)
		return -EINVAL;
	return all_or_error(transfer(fd, buf, NULL, len, off), len);
}

int pc_pwrite_full(int fd, const void *buf, size_t len, off_t off)
{
	if (off < 0)
		return -EINVAL;
	return all_or_error(transfer(fd, NULL, buf, len, off), len);
}
