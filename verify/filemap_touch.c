// SPDX-License-Identifier: GPL-2.0
/*
 * The filemap suite's faults: reads of the mapping (pc_probe_read), the
 * truncation race, and the RSS calibration the rss-count oracle needs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "filemap_int.h"

void fm_touch_range(struct pc_attempt *a, const struct fm_map *m, size_t from, size_t to,
		    bool *touched)
{
	for (size_t i = from; i < to; i++) {
		int sig = pc_probe_read(m->addr + i * PAGE + (i * 64) % PAGE);

		touched[i] = true;
		if (sig)
			pc_oracle_add_evidence(&a->msg[S_PTES], PC_V_PTE_LOST, fm_va(m, i), 0, 0,
					       (__u64)sig,
					       "signal %d reading below EOF (index %llu)", sig,
					       (unsigned long long)(m->first_idx + i));
	}
}

/* ---- the truncation race ------------------------------------------------------ */

/* The child: i_size and back, cycles times, ending short. */
static void truncator(const struct fm_file *f, size_t i_size, unsigned int cycles)
{
	for (unsigned int c = 0; c < cycles; c++) {
		if (ftruncate(f->fd, (off_t)i_size) || ftruncate(f->fd, (off_t)f->len))
			_exit(1);
		sched_yield();
	}
	_exit(ftruncate(f->fd, (off_t)i_size) ? 1 : 0);
}

/* Deep: windows past from (a 64 KiB boundary) of which more than the page
   read is mapped: fault-around mapped page-cache folios there. */
static unsigned long windows_mapped(const struct fm_map *m, size_t from, __u64 *pm)
{
	size_t per = FOLIO_64K / PAGE, n = m->npages - from;
	unsigned long windows = 0;

	if (pc_pagemap_read(0, fm_va(m, from), n, pm))
		return 0;
	for (size_t w = 0; w + per <= n; w += per) {
		size_t present = 0;

		for (size_t i = w; i < w + per; i++)
			present += (pm[i] & PC_PM_PRESENT) != 0;
		windows += present > 1;
	}
	return windows;
}

int fm_truncate_race(const struct pc_scenario_ctx *ctx, const struct fm_shape *sh,
		     struct fm_file *f, struct fm_map *m, size_t i_size, const cpu_set_t *cpus,
		     struct fm_race *race)
{
	unsigned int scale = ctx->scale ? ctx->scale : 1;
	/* Deep: the race is a few instructions wide (between the folio's
	   lookup and the i_size read); never fewer than 1000 cycles, in which
	   a TCG guest met it every time (docs/mutation.md). */
	unsigned int cycles = (sh->deep ? 4000 : 400) / scale, least = sh->deep ? 1000 : 40;
	size_t full_pages = f->len / PAGE, from = 0, step = 1, at = 0;
	__u64 *pm = NULL;
	/* Deep: fault-around as often as possible, each window's fault one
	   after the other in one call, no signal where the file is short. */
	bool populate = sh->deep;
	pid_t pid;
	int st;

	if (cycles < least)
		cycles = least;
	if (sh->deep) {
		/* Without MADV_POPULATE_READ, one read per window past EOF's,
		   at its last page: the window's first folio is past EOF. */
		from = fm_deep_from(i_size);
		step = FOLIO_64K / PAGE;
		at = step - 1;
		if (from >= m->npages)
			return -EINVAL;
		pm = calloc(m->npages - from, sizeof(*pm));
		if (!pm)
			return -ENOMEM;
	}
	/* The racer needs the file, not the mapping (nor the caller's
	   buffers, which it leaves out of the fork too). */
	pc_fork_copies(m->addr, m->len, false);
	pid = fork();
	pc_fork_copies(m->addr, m->len, true);
	if (pid < 0) {
		free(pm);
		return -errno;
	}
	if (pid == 0) {
		/* Off this process's CPU: a race, not an interleaving. */
		cpu_set_t others;
		int me = sched_getcpu();

		if (cpus) {
			others = *cpus;
			if (me >= 0 && CPU_COUNT(&others) > 1)
				CPU_CLR(me, &others);
			sched_setaffinity(0, sizeof(others), &others);
		}
		truncator(f, i_size, cycles);
	}
	*race = (struct fm_race){0};
	for (;;) {
		pid_t w = waitpid(pid, &st, WNOHANG);

		if (w == pid || (w < 0 && errno != EINTR))
			break;
		madvise(m->addr + from * PAGE, m->len - from * PAGE, MADV_DONTNEED);
		if (populate && !madvise(m->addr + from * PAGE, (full_pages - from) * PAGE,
					 MADV_POPULATE_READ)) {
			race->populated++;
		} else if (populate && errno == EFAULT) {
			race->sigbus++; /* a page past EOF: the file was short */
		} else {
			populate = false; /* before v5.14: one read per window */
			for (size_t i = from + at; i < full_pages && i < m->npages; i += step)
				race->sigbus += pc_probe_read(m->addr + i * PAGE) == SIGBUS;
		}
		/* One round in 8: the faults, not this read, are the race. */
		if (pm && race->rounds % 8 == 0) {
			race->windows_past += windows_mapped(m, from, pm);
			race->sampled++;
		}
		race->rounds++;
	}
	free(pm);
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		return -EIO;
	f->i_size = i_size;
	return 0;
}
