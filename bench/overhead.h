/* SPDX-License-Identifier: GPL-2.0 */
/* The overhead of the checks: `ptecheck bench`'s second table. */
#ifndef PTECHECK_BENCH_OVERHEAD_H
#define PTECHECK_BENCH_OVERHEAD_H

#include "runner.h"

extern const struct pc_bench_table pc_bench_overhead;

#endif
