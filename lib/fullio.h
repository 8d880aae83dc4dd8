/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Whole reads and writes: a pipe or a file may take or give fewer bytes
 * than asked, and a signal may interrupt the call.  Each helper loops until
 * all len bytes moved (or the file ended) and says so with -errno.
 */
#ifndef PTECHECK_FULLIO_H
#define PTECHECK_FULLIO_H

#include <stddef.h>
#include <sys/types.h>

/* Up to len bytes: the bytes read (fewer once the other end closed), or -errno. */
ssize_t pc_read_full(int fd, void *buf, size_t len);
/* All len bytes: 0, or -errno (-EIO when the fd took none). */
int pc_write_full(int fd, const void *buf, size_t len);
/* Exactly len bytes at off: 0, or -errno (-EIO when the file ends first). */
int pc_pread_full(int fd, void *buf, size_t len, off_t off);
/* All len bytes at off: 0, or -errno (-EIO when the file took none). */
int pc_pwrite_full(int fd, const void *buf, size_t len, off_t off);

#endif
