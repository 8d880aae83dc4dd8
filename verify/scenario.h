/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Scenarios: each sets up mappings of a chosen shape in a forked child,
 * triggers the kernel path (mremap, ...), and judges the result with
 * userspace oracles (pagemap, kpageflags, smaps, data-loss probes).  The
 * BPF side watches the same child at the same time.
 *
 * A scenario runs in its own child process.  It reports each oracle verdict
 * with pc_oracle_report(); the parent aggregates them per (check, tier).
 */
#ifndef PTECHECK_SCENARIO_H
#define PTECHECK_SCENARIO_H

#include <stdbool.h>
#include <ptecheck/types.h>
#include <ptecheck/invariants.h>

/* What a scenario needs the parent to set up before the child starts. */
#define PC_NEEDS_MTHP_ANON_64K	(1U << 0) /* hugepages-64kB/enabled = madvise */
#define PC_NEEDS_MTHP_SHMEM_64K (1U << 1) /* hugepages-64kB/shmem_enabled = always */
#define PC_NEEDS_ROOT		(1U << 2) /* /proc/kpageflags, clear_refs of others */

/* One oracle verdict, sent child -> parent through a pipe as is. */
struct pc_oracle_msg {
	__u32 check;   /* enum pc_check_id */
	__u32 status;  /* enum pc_status (loader/report.h) */
	char tier[48]; /* "oracle:pagemap", "oracle:kpageflags", ... */
	char scenario[32];
	char summary[200]; /* what was checked, or why skipped */
	__u64 checked;
	__u64 violations;
	__u32 n_evidence;
	struct {
		__u64 addr, new_addr, expected, seen;
		char what[96];
	} evidence[4];
};

struct pc_scenario_ctx {
	int report_fd;	      /* pipe to the parent */
	const char *scenario; /* name of the running scenario */
	/*
	 * Map fd of the BPF disturbance counter (array, 1 entry, __u64), or -1
	 * without BPF.  A changed value across a window means reclaim,
	 * migration or writeback ran meanwhile: retry before judging.
	 */
	int disturb_map_fd;
	bool mthp_anon_64k;   /* parent enabled 64 KiB anon mTHP */
	bool mthp_shmem_64k;  /* parent enabled 64 KiB shmem mTHP */
	bool have_kpageflags; /* /proc/kpageflags readable */
	unsigned int scale;   /* 1 = full size; larger divides sizes (TCG) */
	const char *tmpdir;   /* private directory for files (file scenarios) */
};

/* A verdict.  Call once per (check, tier) the scenario judged. */
void pc_oracle_report(const struct pc_scenario_ctx *ctx, const struct pc_oracle_msg *msg);

struct pc_scenario {
	const char *name;	 /* "anon-64k", "shmem-64k", ... */
	const char *description; /* one line for --list and docs */
	unsigned int needs;	 /* PC_NEEDS_* */
	/* Runs in the child with data; returns 0, or -errno when it could
	   not run at all (after reporting SKIP verdicts with the reason). */
	int (*run)(struct pc_scenario_ctx *ctx, const void *data);
	const void *data; /* the scenario's parameters */
};

/* The mremap suite (verify/mremap_scenarios.c). */
extern const struct pc_scenario pc_mremap_scenarios[];
extern const int pc_mremap_n_scenarios;

#endif
