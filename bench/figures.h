/* SPDX-License-Identifier: GPL-2.0 */
/* The figures of the original patches: `ptecheck bench`'s first table. */
#ifndef PTECHECK_BENCH_FIGURES_H
#define PTECHECK_BENCH_FIGURES_H

#include "runner.h"

extern const struct pc_bench_table pc_bench_figures;

#endif
