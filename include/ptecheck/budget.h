/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the kernel's verifier may process per program of ptecheck's, and
 * the time the whole tracing object may take to verify and attach: a
 * fifth of the kernel's limit (1,000,000), so that no kernel build or
 * calibration constant takes a program to it (docs/performance.md,
 * "Verifier budget").  The loader's measure (trace/load.c), its tests and
 * the mutation judge hold every kernel to it.
 */
#ifndef PTECHECK_BUDGET_H
#define PTECHECK_BUDGET_H

#define PC_VERIFY_BUDGET_INSNS 200000
#define PC_LOAD_BUDGET_MS      300.0

#endif
