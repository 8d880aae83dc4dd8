/* SPDX-License-Identifier: GPL-2.0 */
/* Command-line value parsing and error exits shared by the workloads. */
#ifndef PTECHECK_CLI_H
#define PTECHECK_CLI_H

#include <stdbool.h>
#include <stddef.h>

/* "4096", "64K", "1M", "2G" (k/m/g too) -> bytes in *out; false when the
   text is malformed or the size exceeds max. */
bool pc_parse_size(const char *s, size_t max, size_t *out);

/* A whole decimal number: digits only (strtoul() alone takes "-1" and
   leading blanks), no overflow. */
bool pc_parse_ulong(const char *s, unsigned long *out);

/* "PROG: WHAT: strerror(errno)" on stderr, then exit(code): exit(), not
   _exit(), so the atexit() handler restores the settings. */
void __attribute__((noreturn)) pc_die_errno(const char *prog, int code, const char *what);

/* "PROG: <message>" and "Try 'PROG --help'." on stderr, then exit(2). */
void __attribute__((noreturn, format(printf, 2, 3)))
pc_usage_error(const char *prog, const char *fmt, ...);

/* vsnprintf() into err (a caller's message buffer); nothing when err is
   NULL or errlen 0. */
void pc_set_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
