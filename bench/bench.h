/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ptecheck bench: the figures of the original patches, each a ratio of two
 * sides measured alternately in one run, and the overhead of the checks
 * (docs/performance.md).
 */
#ifndef PTECHECK_BENCH_H
#define PTECHECK_BENCH_H

int pc_cmd_bench(int argc, char **argv);

#endif
