/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every command-line program of ptecheck shares: the exit codes of
 * the ptecheck commands, error messages, value parsing and the usage error
 * exit of the workloads (their frame is workload.h).
 */
#ifndef PTECHECK_CLI_H
#define PTECHECK_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* Exit codes of every ptecheck command (documented in README and docs/). */
enum pc_exit {
	PC_EXIT_PASS = 0,  /* every check that ran passed */
	PC_EXIT_FAIL = 1,  /* at least one check failed */
	PC_EXIT_USAGE = 2, /* bad arguments, no privilege, bad input */
	PC_EXIT_ERROR = 3, /* could not run: an operation failed (errno said) */
	PC_EXIT_SKIP = 4,  /* nothing could run: every check skipped */
};

/* -v: pc_dbg() prints. */
extern int pc_verbose;

/* Message on stderr with the errno text when err != 0 (err is -errno or errno). */
#define pc_err(err, fmt, ...)                                                                      \
	fprintf(stderr, "ptecheck: " fmt "%s%s\n", ##__VA_ARGS__, (err) ? ": " : "",               \
		(err) ? strerror((err) < 0 ? -(err) : (err)) : "")
#define pc_dbg(fmt, ...)                                                                           \
	do {                                                                                       \
		if (pc_verbose)                                                                    \
			fprintf(stderr, "ptecheck: " fmt "\n", ##__VA_ARGS__);                     \
	} while (0)

/* "4096", "64K", "1M", "2G" (k/m/g too) -> bytes in *out; false when the
   text is malformed or the size exceeds max. */
bool pc_parse_size(const char *s, size_t max, size_t *out);

/* A whole decimal number: digits only (strtoul() alone takes "-1" and
   leading blanks), no overflow. */
bool pc_parse_ulong(const char *s, unsigned long *out);

/* "PROG: <message>" and "Try 'PROG --help'." on stderr, then exit(2). */
void __attribute__((noreturn, format(printf, 2, 3)))
pc_usage_error(const char *prog, const char *fmt, ...);

/* vsnprintf() into err (a caller's message buffer); nothing when err is
   NULL or errlen 0. */
void pc_set_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
