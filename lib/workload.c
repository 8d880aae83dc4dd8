// SPDX-License-Identifier: GPL-2.0
/* The frame of the standalone workloads (workload.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "privilege.h"
#include "settings.h"
#include "workload.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

/* Above every single-byte val a workload gives its own options. */
enum { OPT_ITERATIONS = 256, OPT_SIZE, OPT_JSON, OPT_HELP };

static const struct pc_workload *self;

static void common_opt(struct pc_workload *w, int c, const char *arg)
{
	switch (c) {
	case OPT_ITERATIONS:
		if (!pc_parse_ulong(arg, &w->iterations) || !w->iterations)
			pc_usage_error(w->prog, "--iterations wants a positive integer, not '%s'",
				       arg);
		break;
	case OPT_SIZE:
		if (!pc_parse_size(arg, w->size_max, &w->size))
			pc_usage_error(w->prog, "--size wants BYTES[K|M|G]%s%s, not '%s'",
				       w->size_limit ? " up to " : "",
				       w->size_limit ? w->size_limit : "", arg);
		break;
	case OPT_JSON:
		w->json = true;
		break;
	case OPT_HELP:
		w->usage(stdout);
		exit(0);
	default:
		/* getopt_long() has already named the bad option. */
		fprintf(stderr, "Try '%s --help'.\n", w->prog);
		exit(PC_EXIT_USAGE);
	}
}

void pc_wl_parse(struct pc_workload *w, int argc, char **argv, const struct option *own,
		 void (*own_opt)(int opt, char *arg, void *ctx), void *ctx)
{
	/* After the workload's own: the order getopt_long() lists an ambiguous
	   abbreviation's candidates in (--s: --seconds, --size) stays theirs. */
	static const struct option common[] = {
		{"iterations", required_argument, NULL, OPT_ITERATIONS},
		{"size", required_argument, NULL, OPT_SIZE},
		{"json", no_argument, NULL, OPT_JSON},
		{"help", no_argument, NULL, OPT_HELP},
	};
	const size_t nr_common = sizeof(common) / sizeof(common[0]);
	struct option *opts;
	size_t n;
	int c;

	self = w;
	for (n = 0; own[n].name; n++)
		;
	/* Zeroed: the entry after the last is the end. */
	opts = calloc(n + nr_common + 1, sizeof(*opts));
	if (!opts)
		pc_wl_die("calloc() of the options");
	memcpy(opts, own, n * sizeof(*opts));
	memcpy(opts + n, common, sizeof(common));
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c > 0 && c < OPT_ITERATIONS && c != '?')
			own_opt(c, optarg, ctx);
		else
			common_opt(w, c, optarg);
	}
	free(opts);
	if (optind < argc)
		pc_usage_error(w->prog, "unexpected argument '%s'", argv[optind]);
	if (w->size_step && (w->size < w->size_step || w->size % w->size_step))
		pc_usage_error(w->prog, "--size must be a multiple of %s and at least %s",
			       w->size_step_text, w->size_step_text);
}

/* The length of a choice's name: up to its first alias. */
static size_t name_len(const char *choice)
{
	return strcspn(choice, "|");
}

int pc_wl_lookup(const char *arg, const char *const *choices)
{
	const char *p;
	size_t len;
	int i;

	for (i = 0; choices[i]; i++) {
		for (p = choices[i]; *p; p += len + (p[len] == '|')) {
			len = name_len(p);
			if (strlen(arg) == len && !strncmp(arg, p, len))
				return i;
		}
	}
	return -1;
}

int pc_wl_choice(const char *opt, const char *arg, const char *const *choices)
{
	char list[256];
	size_t off = 0;
	int i = pc_wl_lookup(arg, choices);

	if (i >= 0)
		return i;
	for (i = 0; choices[i] && off < sizeof(list); i++)
		off += snprintf(list + off, sizeof(list) - off, "%s%.*s",
				!i		 ? ""
				: choices[i + 1] ? ", "
						 : " or ",
				(int)name_len(choices[i]), choices[i]);
	pc_usage_error(self->prog, "%s wants %s, not '%s'", opt, list, arg);
}

unsigned int pc_wl_folio_kb(const char *arg)
{
	static const char *const folio_choices[] = {"64k|64K", "4k|4K", NULL};

	return pc_wl_choice("--folio", arg, folio_choices) ? 4 : 64;
}

void pc_wl_die(const char *what)
{
	int err = errno;

	fprintf(stderr, "%s: %s: %s\n", self->prog, what, strerror(err));
	/* exit(), not _exit(): the atexit() handler restores the settings. */
	exit(self->error_exit);
}

void pc_wl_need_4k_pages(void)
{
	long page = sysconf(_SC_PAGESIZE);

	if (page == 4096)
		return;
	fprintf(stderr, "%s: needs 4 KiB base pages, this kernel uses %ld\n", self->prog, page);
	exit(PC_WL_EXIT_CANNOT_RUN);
}

void pc_wl_start(void)
{
	/* Before anything is changed, so that every exit path restores. */
	pc_settings_install_handlers();
	/* Keep what the workload and the undo of its settings need (PFNs,
	   mounts, mlock), shed the rest. */
	errno = -pc_caps_limit_if_privileged(PC_CAPS_SCENARIO);
	if (errno)
		pc_wl_die("dropping capabilities");
}

static const char *mthp_file(int shmem)
{
	return shmem ? "shmem_enabled" : "enabled";
}

int pc_wl_mthp_set(unsigned int size_kb, int shmem, const char *mode)
{
	int err = pc_mthp_set(size_kb, shmem, mode);

	if (!err || err == -ENOENT || err == -EACCES || err == -EPERM || err == -EROFS)
		return err;
	fprintf(stderr, "%s: writing \"%s\" to hugepages-%ukB/%s: %s\n", self->prog, mode, size_kb,
		mthp_file(shmem), strerror(-err));
	exit(self->error_exit);
}

void pc_wl_mthp_require(unsigned int size_kb, int shmem, const char *mode, bool missing_ok)
{
	int err = pc_wl_mthp_set(size_kb, shmem, mode);

	if (!err || (err == -ENOENT && missing_ok))
		return;
	fprintf(stderr, "%s: %u KiB mTHP unavailable here: hugepages-%ukB/%s: %s\n", self->prog,
		size_kb, size_kb, mthp_file(shmem), strerror(-err));
	exit(PC_WL_EXIT_CANNOT_RUN);
}

long long pc_wl_mthp64_stat(const char *root, const char *name)
{
	char path[160], buf[32];

	snprintf(path, sizeof(path), "%s/kernel/mm/transparent_hugepage/hugepages-64kB/stats/%s",
		 root && *root ? root : "/sys", name);
	if (pc_read_file(path, buf, sizeof(buf)))
		return -1;
	return strtoll(buf, NULL, 10);
}

const char *pc_wl_tmpdir(void)
{
	const char *tmp = getenv("TMPDIR");

	return tmp && *tmp ? tmp : "/tmp";
}

uint64_t pc_wl_now_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts))
		pc_wl_die("clock_gettime(CLOCK_MONOTONIC)");
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/*
 * The base is chosen, not left to the kernel: alignment keeps the layout
 * identical from run to run.  The reservation is dropped again because the
 * workloads mremap into an empty destination; unmapping a placeholder
 * there would be timed too.
 */
void pc_wl_fork_child_exits(void)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		pc_wl_die("fork()");
	if (pid == 0)
		_exit(0); /* not exit(): the parent owns the settings */
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			pc_wl_die("waitpid()");
}

char *pc_wl_free_range(size_t len, size_t align)
{
	size_t span = len + align;
	char *res;
	uintptr_t base;

	res = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (res == MAP_FAILED)
		pc_wl_die("mmap() of the address reservation");
	base = ((uintptr_t)res + align - 1) & ~(align - 1);
	if (munmap(res, span))
		pc_wl_die("munmap() of the address reservation");
	return (char *)base;
}

char *pc_wl_map_at(char *base, size_t len, int flags, int fd)
{
	/* MAP_FIXED_NOREPLACE until a kernel shows it does not know the flag. */
	static int fixed_flag = MAP_FIXED_NOREPLACE;
	char *p;

	p = mmap(base, len, PROT_READ | PROT_WRITE, flags | fixed_flag, fd, 0);
	if (p == MAP_FAILED) {
		if (errno == EEXIST)
			fprintf(stderr, "%s: something else got mapped inside the reserved range\n",
				self->prog);
		pc_wl_die("mmap() of the source region");
	}
	if (p != base) {
		/* Before 4.17 the flag is only a hint; the range was ours, so MAP_FIXED is safe. */
		if (munmap(p, len))
			pc_wl_die("munmap() of a misplaced mapping");
		fixed_flag = MAP_FIXED;
		p = mmap(base, len, PROT_READ | PROT_WRITE, flags | fixed_flag, fd, 0);
		if (p == MAP_FAILED)
			pc_wl_die("mmap(MAP_FIXED) of the source region");
	}
	return p;
}

/* One mremap timed alone, which must land at want. */
static uint64_t timed_mremap(char *p, size_t len, size_t new_len, int flags, char *want,
			     const char *what)
{
	uint64_t t0, t1;
	char *q;

	t0 = pc_wl_now_ns();
	q = flags & MREMAP_FIXED ? mremap(p, len, new_len, flags, want)
				 : mremap(p, len, new_len, flags);
	t1 = pc_wl_now_ns();
	if (q == MAP_FAILED)
		pc_wl_die(what);
	if (q != want) {
		fprintf(stderr, "%s: %s moved to %p, not %p\n", self->prog, what, (void *)q,
			(void *)want);
		exit(self->error_exit);
	}
	return t1 - t0;
}

uint64_t pc_wl_timed_move(char *p, size_t len, char *dst)
{
	return timed_mremap(p, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, dst,
			    "mremap(MREMAP_MAYMOVE|MREMAP_FIXED)");
}

uint64_t pc_wl_timed_shrink(char *p, size_t len, size_t new_len)
{
	return timed_mremap(p, len, new_len, MREMAP_MAYMOVE, p, "mremap() shrinking in place");
}

/* ---- the workers ---- */

static void (*worker_fn)(unsigned int w);
/* For the undo hook, which may run in a signal handler. */
static pid_t workers_parent;
static pid_t worker_pids[PC_WL_MAX_WORKERS];
static volatile sig_atomic_t nr_worker_pids;

/* An undo hook: the worker processes go before anything they may hold. */
static int kill_workers(void)
{
	int i, status;

	if (workers_parent != getpid())
		return 0;
	for (i = 0; i < nr_worker_pids; i++)
		if (worker_pids[i] > 0)
			kill(worker_pids[i], SIGKILL);
	for (i = 0; i < nr_worker_pids; i++) {
		if (worker_pids[i] <= 0)
			continue;
		while (waitpid(worker_pids[i], &status, 0) < 0 && errno == EINTR)
			;
		worker_pids[i] = 0;
	}
	nr_worker_pids = 0;
	return 0;
}

/* Each worker is in worker_pids before a handler can run. */
static void start_processes(unsigned int n)
{
	sigset_t old;
	unsigned int w;
	pid_t pid;

	pc_settings_add_undo(kill_workers);
	for (w = 0; w < n; w++) {
		pc_block_fatal_signals(&old);
		pid = fork();
		if (pid == 0) {
			/* Workers die with the run, never outlive its mounts. */
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() != workers_parent)
				_exit(self->error_exit);
			sigprocmask(SIG_SETMASK, &old, NULL);
			worker_fn(w);
			_exit(0);
		}
		if (pid < 0) {
			sigprocmask(SIG_SETMASK, &old, NULL);
			pc_wl_die("fork()");
		}
		worker_pids[nr_worker_pids] = pid;
		nr_worker_pids = nr_worker_pids + 1;
		sigprocmask(SIG_SETMASK, &old, NULL);
	}
}

static void wait_processes(unsigned int n)
{
	unsigned int w;
	int status;

	for (w = 0; w < n; w++) {
		while (waitpid(worker_pids[w], &status, 0) < 0)
			if (errno != EINTR)
				pc_wl_die("waitpid()");
		worker_pids[w] = 0;
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			fprintf(stderr, "%s: worker process %u %s %d\n", self->prog, w,
				WIFSIGNALED(status) ? "killed by signal" : "exited with",
				WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
			exit(self->error_exit);
		}
	}
	nr_worker_pids = 0;
}

static void *thread_main(void *arg)
{
	worker_fn((unsigned int)(uintptr_t)arg);
	return NULL;
}

static pthread_t *start_threads(unsigned int n)
{
	pthread_t *threads = calloc(n, sizeof(*threads));
	sigset_t old;
	unsigned int w;
	int err;

	if (!threads)
		pc_wl_die("calloc()");
	/* The calling thread alone takes the fatal signals: the workers inherit
	   them blocked (sigprocmask() while this is the only thread). */
	pc_block_fatal_signals(&old);
	for (w = 0; w < n; w++) {
		err = pthread_create(&threads[w], NULL, thread_main, (void *)(uintptr_t)w);
		if (err) {
			errno = err;
			pc_wl_die("pthread_create()");
		}
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return threads;
}

void pc_wl_run_workers(unsigned int n, bool processes, void (*work)(unsigned int w),
		       void (*meanwhile)(void))
{
	pthread_t *threads;
	unsigned int w;

	if (n > PC_WL_MAX_WORKERS) {
		errno = E2BIG;
		pc_wl_die("starting the workers");
	}
	worker_fn = work;
	workers_parent = getpid();
	if (processes) {
		start_processes(n);
		meanwhile();
		wait_processes(n);
		return;
	}
	threads = start_threads(n);
	meanwhile();
	for (w = 0; w < n; w++)
		pthread_join(threads[w], NULL);
	free(threads);
}

void pc_wl_json_begin(void)
{
	printf("{\"workload\":\"%s\"", self->prog);
}

void pc_wl_flush(void)
{
	if (fflush(stdout))
		pc_wl_die("writing the result");
}
