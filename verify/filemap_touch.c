// SPDX-License-Identifier: GPL-2.0
/*
 * The filemap suite's faults: reads of the mapping (pc_probe_read), the
 * truncation race, and the RSS calibration the rss-count oracle needs.
 */
#define _GNU_SOURCE
#include <errno.h>
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

void fm_race_off_cpu(const cpu_set_t *cpus)
{
	int me = sched_getcpu();
	cpu_set_t others;

	if (!cpus)
		return;
	others = *cpus;
	if (me >= 0 && CPU_COUNT(&others) > 1)
		CPU_CLR(me, &others);
	sched_setaffinity(0, sizeof(others), &others);
}

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

int fm_truncate_race(const struct pc_scenario_ctx *ctx, const struct fm_shape *sh,
		     struct fm_file *f, struct fm_map *m, size_t i_size, const cpu_set_t *cpus,
		     struct fm_race *race)
{
	unsigned int cycles = 400 / (ctx->scale ? ctx->scale : 1);
	size_t full_pages = f->len / PAGE;
	pid_t pid;
	int st;

	if (sh->deep)
		return fm_deep_race(ctx, f, m, i_size, cpus, race);
	if (cycles < 40)
		cycles = 40;
	/* The racer needs the file, not the mapping (nor the caller's
	   buffers, which it leaves out of the fork too). */
	pc_fork_copies(m->addr, m->len, false);
	pid = fork();
	pc_fork_copies(m->addr, m->len, true);
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		fm_race_off_cpu(cpus);
		truncator(f, i_size, cycles);
	}
	*race = (struct fm_race){0};
	for (;;) {
		pid_t w = waitpid(pid, &st, WNOHANG);

		if (w == pid || (w < 0 && errno != EINTR))
			break;
		madvise(m->addr, m->len, MADV_DONTNEED);
		for (size_t i = 0; i < full_pages && i < m->npages; i++)
			race->sigbus += pc_probe_read(m->addr + i * PAGE) == SIGBUS;
		race->rounds++;
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		return -EIO;
	f->i_size = i_size;
	return 0;
}
