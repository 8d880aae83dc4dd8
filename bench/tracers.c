// SPDX-License-Identifier: GPL-2.0
/* The tracers of the overhead rows: bpftrace, and the empty BPF programs. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "bench_empty.skel.h"
#include "session.h"
#include "tracefs.h"
#include "tracers.h"

const char *pc_bench_bpftrace_path(void)
{
	static const char *const dirs[] = {"/usr/bin", "/usr/sbin", "/usr/local/bin", "/bin"};
	static char path[64];

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/bpftrace", dirs[i]);
		if (!access(path, X_OK))
			return path;
	}
	return NULL;
}

/*
 * The histograms `ptecheck hist` keeps on a kernel with tracepoints only
 * (mremap latency, TLB flushes per mremap, fault-around window per fault),
 * for the command bpftrace starts (cpid), as a bpftrace program.
 */
void pc_bench_bpftrace_prog(char *buf, size_t len)
{
	bool tlb = pc_tracepoint_exists("tlb/tlb_flush");

	snprintf(buf, len,
		 "tracepoint:syscalls:sys_enter_mremap /pid == cpid/ { @start[tid] = nsecs; "
		 "@fl[tid] = 0; }\n"
		 "%s"
		 "tracepoint:syscalls:sys_exit_mremap /@start[tid]/ { @latency_ns = hist(nsecs - "
		 "@start[tid]); @tlb_flushes = lhist(@fl[tid], 0, 16, 1); delete(@start[tid]); "
		 "delete(@fl[tid]); }\n"
		 "tracepoint:filemap:mm_filemap_map_pages /pid == cpid/ { @faultaround_pages = "
		 "hist(args->last_index - args->index + 1); }\n",
		 tlb ? "tracepoint:tlb:tlb_flush /@start[tid]/ { @fl[tid]++; }\n" : "");
}

int pc_bench_empty_attach(struct pc_bench_empty *e, char *why, size_t len)
{
	struct bpf_program *p;
	int err;

	memset(e, 0, sizeof(*e));
	pc_tracefs_ensure();
	e->skel = bench_empty_bpf__open();
	if (!e->skel) {
		snprintf(why, len, "empty BPF object: open: %s", strerror(errno));
		return -1;
	}
	bpf_object__for_each_program(p, e->skel->obj)
		bpf_program__set_autoload(p, pc_session_tracepoint_here(p));
	err = bench_empty_bpf__load(e->skel);
	if (err) {
		snprintf(why, len, "empty BPF object: load: %s", strerror(-err));
		bench_empty_bpf__destroy(e->skel);
		e->skel = NULL;
		return -1;
	}
	bpf_object__for_each_program(p, e->skel->obj)
	{
		struct bpf_link *l;

		if (!bpf_program__autoload(p))
			continue;
		if (e->n >= (int)(sizeof(e->links) / sizeof(e->links[0]))) {
			snprintf(why, len, "empty BPF object: more programs than %zu link slots",
				 sizeof(e->links) / sizeof(e->links[0]));
			return -1; /* the caller destroys what is attached */
		}
		l = bpf_program__attach(p);
		if (l)
			e->links[e->n++] = l;
	}
	return 0;
}

void pc_bench_empty_detach(struct pc_bench_empty *e)
{
	for (int i = 0; i < e->n; i++)
		bpf_link__destroy(e->links[i]);
	bench_empty_bpf__destroy(e->skel);
	e->skel = NULL;
	e->n = 0;
}
