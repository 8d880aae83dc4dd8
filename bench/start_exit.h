/* SPDX-License-Identifier: GPL-2.0 */
/* The start-exit rows of `ptecheck bench` (start_exit.c). */
#ifndef PTECHECK_BENCH_START_EXIT_H
#define PTECHECK_BENCH_START_EXIT_H

#include "runner.h"

/* Appends the selected rows start-exit-hist and start-exit-watch to b. */
void pc_bench_start_exit(struct pc_bench *b);

#endif
