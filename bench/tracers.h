/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tracers the overhead rows of `ptecheck bench` compare ptecheck with:
 * the empty BPF programs of empty.bpf.c on the same tracepoints (the
 * floor), and the same histograms as a bpftrace one-liner.
 */
#ifndef PTECHECK_BENCH_TRACERS_H
#define PTECHECK_BENCH_TRACERS_H

#include <stddef.h>

/* The bpftrace executable, or NULL when it is not installed. */
const char *pc_bench_bpftrace_path(void);
/* The bpftrace program of `ptecheck hist`'s histograms, for its command (cpid). */
void pc_bench_bpftrace_prog(char *buf, size_t len);

struct bench_empty_bpf;
struct bpf_link;

/* The empty programs, attached on every tracepoint that exists here. */
struct pc_bench_empty {
	struct bench_empty_bpf *skel;
	struct bpf_link *links[64];
	int n;
};

/* Loads and attaches them: 0, or -1 with why (pc_bench_empty_detach undoes either). */
int pc_bench_empty_attach(struct pc_bench_empty *e, char *why, size_t len);
void pc_bench_empty_detach(struct pc_bench_empty *e);

#endif
