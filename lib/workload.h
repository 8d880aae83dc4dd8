/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The frame the standalone workloads (workloads/) share: the options every
 * one has (--iterations, --size, --json, --help) parsed beside its own, its
 * messages and error exits, the start of a run (the settings restored on
 * every exit path, least privilege), the mTHP knobs it needs and the JSON
 * result line.  A workload is a program: pc_wl_parse() remembers it for the
 * helpers below, which may be called only after it.
 */
#ifndef PTECHECK_WORKLOAD_H
#define PTECHECK_WORKLOAD_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Exit status of every workload when this machine cannot run it. */
#define PC_WL_EXIT_CANNOT_RUN 4

struct pc_workload {
	const char *prog; /* the first word of every message */
	int error_exit;	  /* exit status when a system call fails */
	void (*usage)(FILE *out);
	size_t size_max;	/* the largest --size accepted */
	const char *size_limit; /* size_max as the --size message says it, or NULL */
	/* When set: --size must be a multiple of size_step (size_step_text in
	   the message), checked once all options are read. */
	size_t size_step;
	const char *size_step_text;
	/* The common options: as initialised unless given. */
	unsigned long iterations; /* --iterations: positive */
	size_t size;		  /* --size BYTES[K|M|G] */
	bool json;		  /* --json */
};

/*
 * Parses argv: the common options into w, the workload's own (own, ended by
 * a zeroed entry, each val a character) through own_opt(val, optarg, ctx).
 * --help prints w->usage and exits 0; a bad or stray argument exits 2 with
 * a pointer to --help; so does a --size off w->size_step.
 */
void pc_wl_parse(struct pc_workload *w, int argc, char **argv, const struct option *own,
		 void (*own_opt)(int opt, char *arg, void *ctx), void *ctx);

/*
 * The index of arg in choices (ended by NULL); an entry may list aliases
 * after its name, "64k|64K".  pc_wl_lookup() returns -1 for none,
 * pc_wl_choice() exits 2 with "OPT wants A, B or C, not 'ARG'".
 */
int pc_wl_lookup(const char *arg, const char *const *choices);
int pc_wl_choice(const char *opt, const char *arg, const char *const *choices);
/* --folio 64k|4k (or 64K|4K): 64 or 4, the folio size in KiB. */
unsigned int pc_wl_folio_kb(const char *arg);

/* "PROG: WHAT: strerror(errno)" on stderr, exit(w->error_exit). */
void __attribute__((noreturn)) pc_wl_die(const char *what);

/* The --help paragraph of a workload that changes mTHP settings. */
#define PC_WL_HELP_RESTORES                                                                        \
	"Every sysfs setting changed is restored on exit, including on SIGINT,\n"                  \
	"SIGTERM, SIGHUP and SIGQUIT.  PTECHECK_SYSFS_ROOT (default /sys) moves\n"                 \
	"the mTHP files, for tests.\n"

/* Exits PC_WL_EXIT_CANNOT_RUN, saying so, unless base pages are 4 KiB. */
void pc_wl_need_4k_pages(void);

/*
 * Before the workload changes anything: the settings restore on every exit
 * path (exit, SIGINT, SIGTERM, SIGHUP, SIGQUIT), then least privilege
 * (docs/robustness.md).
 */
void pc_wl_start(void);

/*
 * pc_mthp_set(), exiting (w->error_exit, "writing MODE to ...: why") when
 * the write fails; a knob this machine lacks or refuses (-ENOENT, -EACCES,
 * -EPERM, -EROFS) is returned instead, for the caller to say why it cannot
 * run.  pc_wl_mthp_require() says so itself and exits
 * PC_WL_EXIT_CANNOT_RUN, but returns for an absent knob if missing_ok.
 */
int pc_wl_mthp_set(unsigned int size_kb, int shmem, const char *mode);
void pc_wl_mthp_require(unsigned int size_kb, int shmem, const char *mode, bool missing_ok);

/* A system-wide hugepages-64kB/stats counter under the sysfs root
   (NULL or "": /sys), or -1 when it cannot be read. */
long long pc_wl_mthp64_stat(const char *root, const char *name);

/* $TMPDIR, or /tmp when unset or empty. */
const char *pc_wl_tmpdir(void);

/* CLOCK_MONOTONIC in ns. */
uint64_t pc_wl_now_ns(void);

/* fork() of a child that exits at once (its copy of the mm is what
   counts), waited for; exits (w->error_exit) when fork or wait fails. */
void pc_wl_fork_child_exits(void);

/*
 * An address where len bytes aligned to align (a power of two) were free a
 * moment ago: a reservation, dropped again so that the workload maps into
 * an empty range.  Nothing may allocate address space until it is used.
 */
char *pc_wl_free_range(size_t len, size_t align);
/* mmap(PROT_READ|PROT_WRITE) of len bytes at exactly base (in a range from
   pc_wl_free_range()), with flags | MAP_FIXED_NOREPLACE where known. */
char *pc_wl_map_at(char *base, size_t len, int flags, int fd);
/* mremap(MREMAP_MAYMOVE|MREMAP_FIXED) of p to dst, timed alone: its ns.
   Exits (w->error_exit) when it fails or lands elsewhere. */
uint64_t pc_wl_timed_move(char *p, size_t len, char *dst);
/* mremap(MREMAP_MAYMOVE) of p from len to new_len < len, timed alone: a
   shrink in place, which moves nothing.  Exits as pc_wl_timed_move(). */
uint64_t pc_wl_timed_shrink(char *p, size_t len, size_t new_len);

/* The most workers pc_wl_run_workers() runs. */
#define PC_WL_MAX_WORKERS 1024

/*
 * Runs work(0) to work(n - 1) at once, in n threads, or in n processes that
 * die with the workload (PR_SET_PDEATHSIG) and are killed first on every
 * exit path: they may hold what the other undos release (a file mapped on a
 * scratch mount).  meanwhile() runs once all exist; then waits for them.
 * A process that does not exit 0 exits the workload (w->error_exit).  The
 * fatal signals go to the calling thread alone.
 */
void pc_wl_run_workers(unsigned int n, bool processes, void (*work)(unsigned int w),
		       void (*meanwhile)(void));

/* The result: pc_wl_json_begin() opens the JSON line, {"workload":"PROG";
   pc_wl_flush() writes it out, exiting when it cannot. */
void pc_wl_json_begin(void);
void pc_wl_flush(void);

#endif
