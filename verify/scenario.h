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
#include <ptecheck/checks.h>

/* What a scenario needs the parent to set up before the child starts. */
#define PC_NEEDS_SHMEM_HUGE (1U << 0) /* a tmpfs mounted huge=within_size */
#define PC_NEEDS_BLOCKFS    (1U << 1) /* an ext4 filesystem on a loop device */
/* What a scenario does that legitimately races an in-kernel check, so the
   BPF side observes but does not enforce it (counts it inconclusive). */
#define PC_SCENARIO_RESIZES	   (1U << 2) /* changes a file's size while it faults */
#define PC_SCENARIO_SHARED_MAPPERS (1U << 3) /* several processes map one file */
/* A capability the scenario keeps beyond the usual set: CAP_SYS_PTRACE,
   which UFFD_FEATURE_EVENT_FORK needs (userfaultfd_api() checks it: the
   monitor gets a descriptor on the child's memory). */
#define PC_SCENARIO_CAP_PTRACE (1U << 4)
/* Folios of 16 KiB: around the scenario the parent turns the run's 64 KiB
   mTHP off and 16 KiB on (the kernel picks the largest enabled size that
   fits), and back after (ctx->mthp_*_16k say what took). */
#define PC_NEEDS_MTHP_16K (1U << 5)
/* The scenario's child processes are tracked too (PC_TRACK_CHILDREN),
   with its enforcement flags: what a child's exit does to the memory is
   the scenario's state (zap's exit, whose exit_mmap no syscall shows). */
#define PC_SCENARIO_FOLLOW_CHILDREN (1U << 6)
/* KSM running: around the scenario the parent starts ksmd quickly
   (/sys/kernel/mm/ksm: run 1, pages_to_scan, sleep_millisecs), and puts
   back what was there after (ctx->ksm_on, ctx->ksm_why say what took). */
#define PC_NEEDS_KSM (1U << 7)
/* On a kernel that carries the bug it looks for, the scenario may crash
   it (a memory corruption, not a wrong PTE): it runs only with
   --dangerous (ctx->dangerous), else every check it judges skips, saying
   so.  xfstests' "dangerous" group is the same idea. */
#define PC_SCENARIO_MAY_CRASH (1U << 8)
/* The scenario makes the state of a bug that released kernels carry,
   unfixed when it was written (docs/findings.md): it runs, and fails
   there, unless the run was given --skip-known-bugs (ctx->known_bug_skipped),
   which a self-test needing a clean run of such a kernel asks for; then
   every check it judges skips, saying so. */
#define PC_SCENARIO_KNOWN_BUG (1U << 9)
/* Dirty pages kept from expiring: around the scenario the parent raises
   vm.dirty_expire_centisecs to an hour, and puts it back after
   (ctx->dirty_held, ctx->dirty_why say what took).  A pinned large file
   folio that truncation cannot split stays in the page cache only while
   it is dirty (truncate_inode_partial_folio() drops a clean one whole),
   and the flusher writes back what has been dirty longer than the expiry
   (30 s by default), which a long race of truncations outlasts. */
#define PC_NEEDS_DIRTY_HELD (1U << 10)

/* The modes the run sets its mTHP sizes to: anonymous folios where a
   mapping asks (MADV_HUGEPAGE), shmem ones always. */
#define PC_MTHP_ANON_MODE  "madvise"
#define PC_MTHP_SHMEM_MODE "always"

/* One oracle verdict, sent child -> parent through a pipe as is. */
struct pc_oracle_msg {
	__u32 check;   /* enum pc_check_id */
	__u32 status;  /* enum pc_status (report/report.h) */
	__s32 pid;     /* the scenario process (pc_oracle_report sets it) */
	char tier[48]; /* "oracle:pagemap", "oracle:kpageflags", ... */
	char scenario[32];
	char summary[200]; /* what was checked, or why skipped */
	__u64 checked;
	__u64 violations;
	__u32 n_evidence;
	struct {
		__u64 addr, new_addr, expected, seen;
		__u32 verdict;	 /* enum pc_verdict: what was violated */
		char detail[80]; /* where and how: "page 3", "index 7, folio of 16" */
	} evidence[4];
};

struct pc_scenario_ctx {
	int report_fd;	      /* pipe to the parent */
	const char *scenario; /* name of the running scenario */
	/*
	 * Map fd of the BPF disturbance counter (array of __u64: [0] the
	 * generation, [1] long operations in progress), or -1 without BPF.
	 * A changed generation across a window, or an operation in progress,
	 * means reclaim, migration, swapoff or writeback ran meanwhile: retry
	 * before judging.
	 */
	int disturb_map_fd;
	bool mthp_anon_64k;	/* parent enabled 64 KiB anon mTHP */
	bool mthp_shmem_64k;	/* parent enabled 64 KiB shmem mTHP */
	bool mthp_anon_16k;	/* ... 16 KiB anon mTHP, 64 KiB off (PC_NEEDS_MTHP_16K) */
	bool mthp_shmem_16k;	/* ... 16 KiB shmem mTHP, 64 KiB off (likewise) */
	bool have_kpageflags;	/* /proc/kpageflags readable */
	bool ksm_on;		/* ksmd started for this scenario (PC_NEEDS_KSM) */
	const char *ksm_why;	/* why it was not, else NULL */
	bool dirty_held;	/* dirty pages do not expire (PC_NEEDS_DIRTY_HELD) */
	const char *dirty_why;	/* why they may, else NULL */
	unsigned int scale;	/* 1 = full size; larger divides sizes (TCG) */
	bool dangerous;		/* --dangerous: PC_SCENARIO_MAY_CRASH scenarios run */
	bool crash_refused;	/* this one may crash and there was no --dangerous */
	bool skip_known_bugs;	/* --skip-known-bugs: PC_SCENARIO_KNOWN_BUG ones skip */
	bool known_bug_skipped; /* this one makes a known bug's state, and skips */
	const char *tmpdir;	/* private directory for files (file scenarios) */
	/* Directories the parent mounted for PC_NEEDS_SHMEM_HUGE and
	   PC_NEEDS_BLOCKFS, or NULL with the reason in *_why. */
	const char *shmem_huge_dir;
	const char *shmem_huge_why;
	const char *blockfs_dir;
	const char *blockfs_why;
};

/*
 * A window in which a scenario measures: begun and ended around the
 * measurement, it sets *disturbed when the BPF disturbance counter or the
 * migration/reclaim/split counters of /proc/vmstat moved meanwhile (or
 * could not be read), so the scenario retries instead of judging.
 */
struct pc_window {
	bool open;
	__u64 bpf_start;    /* BPF counter at the start */
	__u64 vmstat_start; /* vmstat events at the start */
};
void pc_window_begin(const struct pc_scenario_ctx *ctx, struct pc_window *w, bool *disturbed);
/* Ends an open window (no-op when closed). */
void pc_window_end(const struct pc_scenario_ctx *ctx, struct pc_window *w, bool *disturbed);
/* A 64 KiB mTHP counter (hugepages-64kB/stats/NAME).  0 or -errno. */
int pc_mthp_stat(const char *name, __u64 *v);

/* A verdict.  Call once per (check, tier) the scenario judged. */
void pc_oracle_report(const struct pc_scenario_ctx *ctx, const struct pc_oracle_msg *msg);

struct pc_scenario {
	const char *name;	 /* "anon-64k", "shmem-64k", ... */
	const char *description; /* one line for --list and docs */
	unsigned int needs;	 /* PC_NEEDS_* and PC_SCENARIO_* */
	/* Runs in the child with data; returns 0, or -errno when it could
	   not run at all (after reporting SKIP verdicts with the reason). */
	int (*run)(struct pc_scenario_ctx *ctx, const void *data);
	const void *data; /* the scenario's parameters */
};

/* A path's suite: its scenarios in run order (verify/mremap.c, ...). */
struct pc_suite {
	const char *name; /* the path: "mremap", "filemap", ... (paths.list) */
	const char *description;
	const struct pc_scenario *scenarios;
	int n_scenarios;
};
/* pc_<path>_suite of every path (include/ptecheck/paths.list). */
#define PC_SUITE_DECL(path) extern const struct pc_suite pc_##path##_suite;
PC_PATHS(PC_SUITE_DECL)
#undef PC_SUITE_DECL

#endif
