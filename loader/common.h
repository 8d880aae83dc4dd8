/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PTECHECK_COMMON_H
#define PTECHECK_COMMON_H

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "report.h"

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

#endif
