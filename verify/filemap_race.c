// SPDX-License-Identifier: GPL-2.0
/*
 * trunc-race-deep's race: the state of f58df566524e's bug, where
 * filemap_map_pages() read i_size after next_uptodate_folio() had taken
 * the window's first folio, so a truncation between the two left
 * end_pgoff below the folio's index and nr underflowed to about 2^32.
 *
 * The file's one large folio is pinned (it survives every truncation
 * whole), and its pages past the short EOF fill whole fault-around
 * windows.  This process populates those windows again and again
 * (MADV_POPULATE_READ: one fault-around each, back to back in one call,
 * and EFAULT, not a signal, where the file is short) while a child on
 * another CPU shrinks the file and grows it back.  The file is long only
 * between two ftruncates: where faults are quick (x86_64 under TCG) the
 * shrink that follows the grow at once lands among faults that began on
 * the long file; where they are slow (arm64 under TCG) none begins in that
 * time, so every other shrink waits until this process begins a round.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "filemap_int.h"

#define WAIT_NS 5000000L /* for the other side, at most, each round */

/* Shared by the two processes. */
struct deep_sync {
	volatile unsigned long ready; /* the faulter's faults begin */
};

static long ns_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000000000L + t.tv_nsec - t0->tv_nsec;
}

/* Spins until *v is no longer was, or max_ns passed. */
static void wait_change(volatile unsigned long *v, unsigned long was, long max_ns)
{
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (*v == was && ns_since(&t0) < max_ns)
		;
}

/* The child: shrink, grow, and every other time wait until the faulter
   begins a round; ending short. */
static void racer(const struct fm_file *f, size_t i_size, unsigned int cycles, struct deep_sync *s)
{
	for (unsigned int c = 0; c < cycles; c++) {
		unsigned long ready;

		if (ftruncate(f->fd, (off_t)i_size) || ftruncate(f->fd, (off_t)f->len))
			_exit(1);
		ready = s->ready;
		if (c % 2)
			wait_change(&s->ready, ready, WAIT_NS);
	}
	_exit(ftruncate(f->fd, (off_t)i_size) ? 1 : 0);
}

/* Whether a page of the file past from is in the page cache (mincore
   reads the cache, whatever i_size says); vec: npages - from bytes. */
static bool cached_past(const struct fm_map *m, size_t from, unsigned char *vec)
{
	/* Negative: cannot tell; race, and let the judge see. */
	return pc_pages_cached(m->addr + from * PAGE, m->npages - from, vec) != 0;
}

/* The faulter's rounds until the racer is done: 0, -EOPNOTSUPP without
   MADV_POPULATE_READ (before v5.14), or -EIO when the racer failed. */
static int fault_rounds(pid_t pid, struct fm_map *m, size_t from, size_t full_pages,
			struct deep_sync *s, struct fm_race *race)
{
	int st = 0;

	for (;;) {
		pid_t w = waitpid(pid, &st, WNOHANG);

		if (w == pid || (w < 0 && errno != EINTR))
			break;
		madvise(m->addr + from * PAGE, m->len - from * PAGE, MADV_DONTNEED);
		s->ready++;
		race->rounds++;
		if (!madvise(m->addr + from * PAGE, (full_pages - from) * PAGE,
			     MADV_POPULATE_READ)) {
			race->populated++;
		} else if (errno == EFAULT) {
			race->sigbus++;
		} else {
			int err = errno;

			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			return err == EINVAL ? -EOPNOTSUPP : -err;
		}
	}
	return WIFEXITED(st) && !WEXITSTATUS(st) ? 0 : -EIO;
}

int fm_deep_race(const struct pc_scenario_ctx *ctx, struct fm_file *f, struct fm_map *m,
		 size_t i_size, const cpu_set_t *cpus, struct fm_race *race)
{
	/* Never fewer than 4000 shrinks: 2000 met the window in 2 of 3 TCG
	   boots of each arch (docs/mutation.md). */
	unsigned int cycles = 16000 / (ctx->scale ? ctx->scale : 1);
	size_t from = fm_deep_from(i_size), full_pages = f->len / PAGE;
	struct deep_sync *s;
	unsigned char *vec;
	pid_t pid;
	int ret;

	*race = (struct fm_race){0};
	if (cycles < 4000)
		cycles = 4000;
	if (from >= m->npages || from >= full_pages)
		return -EINVAL;
	vec = malloc(m->npages - from);
	if (!vec)
		return -ENOMEM;
	/* No page cached past the short EOF (no large folio across it, as
	   on ext4 before v6.16): nothing to race over, and the judge says so
	   (fm_judge_bounds); no thousands of cycles for nothing. */
	if (!cached_past(m, from, vec)) {
		free(vec);
		f->i_size = i_size;
		return 0;
	}
	s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (s == MAP_FAILED) {
		free(vec);
		return -errno;
	}
	/* The racer needs the file, not the mapping. */
	pc_fork_copies(m->addr, m->len, false);
	pid = fork();
	pc_fork_copies(m->addr, m->len, true);
	if (pid == 0) {
		fm_race_off_cpu(cpus);
		racer(f, i_size, cycles, s);
	}
	ret = pid < 0 ? -errno : fault_rounds(pid, m, from, full_pages, s, race);
	if (!ret) {
		f->i_size = i_size;
		race->lost = !cached_past(m, from, vec);
		race->unheld = ctx->dirty_held	? NULL
			       : ctx->dirty_why ? ctx->dirty_why
						: "dirty pages not held from writeback";
	}
	munmap(s, sizeof(*s));
	free(vec);
	return ret;
}
