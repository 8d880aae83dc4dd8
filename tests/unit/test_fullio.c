// SPDX-License-Identifier: GPL-2.0
/*
 * lib/fullio.c: whole reads and writes through a pipe (short reads, the
 * other end closing) and a file (reading past its end), with -errno.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fullio.h"
#include "tap.h"

static void test_pipe(void)
{
	char in[8] = {0};
	int p[2];

	if (pipe(p)) {
		tap_skip("pipe: %s", strerror(errno));
		return;
	}
	TAP_CHECK_EQ(pc_write_full(p[1], "abc", 3), 0, "pipe: a whole write");
	TAP_CHECK_EQ(pc_write_full(p[1], "de", 2), 0, "pipe: a second write");
	close(p[1]);
	/* Two writes, one read: the short reads add up; EOF ends it early. */
	TAP_CHECK_EQ(pc_read_full(p[0], in, sizeof(in)), 5, "pipe: read up to EOF gives 5");
	TAP_CHECK(memcmp(in, "abcde", 5) == 0, "pipe: the bytes in order");
	TAP_CHECK_EQ(pc_read_full(p[0], in, sizeof(in)), 0, "pipe: at EOF, 0 bytes");
	close(p[0]);
	TAP_CHECK_EQ(pc_read_full(p[0], in, 1), -EBADF, "pipe: a closed fd gives -EBADF");
	TAP_CHECK_EQ(pc_write_full(p[1], "x", 1), -EBADF, "pipe: write to a closed fd: -EBADF");
}

static void test_file(void)
{
	char path[] = "/tmp/ptecheck-fullio-XXXXXX", buf[16] = {0};
	int fd = mkostemp(path, O_CLOEXEC);

	if (fd < 0) {
		tap_skip("mkostemp: %s", strerror(errno));
		return;
	}
	unlink(path);
	TAP_CHECK_EQ(pc_pwrite_full(fd, "0123456789", 10, 0), 0, "file: pwrite at 0");
	TAP_CHECK_EQ(pc_pwrite_full(fd, "AB", 2, 4), 0, "file: pwrite inside");
	TAP_CHECK_EQ(pc_pread_full(fd, buf, 10, 0), 0, "file: pread of the whole file");
	TAP_CHECK(memcmp(buf, "0123AB6789", 10) == 0, "file: what was written where");
	TAP_CHECK_EQ(pc_pread_full(fd, buf, 4, 8), -EIO, "file: pread past the end: -EIO");
	TAP_CHECK_EQ(pc_pread_full(fd, buf, 1, -1), -EINVAL, "file: a negative offset: -EINVAL");
	TAP_CHECK_EQ(pc_pwrite_full(fd, "x", 1, -1), -EINVAL,
		     "file: a negative write offset: -EINVAL");
	close(fd);
}

int main(void)
{
	tap_plan(0);
	test_pipe();
	test_file();
	return tap_finish();
}
