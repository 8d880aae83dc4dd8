/* SPDX-License-Identifier: GPL-2.0 */
/* The cost of ptecheck export: `ptecheck bench`'s exporter table. */
#ifndef PTECHECK_BENCH_EXPORT_H
#define PTECHECK_BENCH_EXPORT_H

#include "runner.h"

extern const struct pc_bench_table pc_bench_export;

#endif
