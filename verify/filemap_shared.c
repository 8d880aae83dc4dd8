// SPDX-License-Identifier: GPL-2.0
/*
 * filemap/rmap-count [oracle:kpagecount]: nproc children and this process
 * map every page of one file; /proc/kpagecount must show nproc + 1 for
 * each.  Judged only when every mapper showed the same PFNs before and
 * after the count.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "filemap_int.h"
#include "fullio.h"
#include "report.h"

#define MAX_MAPPERS 16

/* One mapper; reports its PFNs, twice, and how many of its pages read wrong. */
static void __attribute__((noreturn)) shared_child(const struct fm_file *f, const struct fm_map *m,
						   const unsigned char *file, int cmd, int res)
{
	size_t n = m->npages;
	__u64 *pm = calloc(n + 1, sizeof(*pm));
	char *p, c;

	/* The inherited VMA has no PTEs; map afresh anyway, elsewhere. */
	munmap(m->addr, m->len);
	p = mmap(NULL, m->len, PROT_READ, MAP_SHARED, f->fd, (off_t)m->off);
	if (!pm || p == MAP_FAILED)
		_exit(1);
	pm[n] = 0; /* pages with wrong data */
	for (size_t i = 0; i < n; i++) {
		size_t first;

		(void)((volatile char *)p)[i * PAGE];
		pm[n] += fm_page_mismatches(p + i * PAGE, m->first_idx + i, file, f->i_size, &first,
					    NULL) != 0;
	}
	for (int round = 0; round < 2; round++) {
		if (pc_pagemap_read(0, (__u64)(uintptr_t)p, n, pm) ||
		    pc_write_full(res, pm, (n + 1) * sizeof(*pm)) || pc_read_full(cmd, &c, 1) != 1)
			_exit(1);
	}
	_exit(0);
}

struct shared_run {
	int n;
	pid_t pid[MAX_MAPPERS];
	int cmd[MAX_MAPPERS], res[MAX_MAPPERS];
};

static void shared_stop(struct shared_run *s)
{
	for (int k = 0; k < s->n; k++) {
		int st;

		close(s->cmd[k]);
		close(s->res[k]);
		while (waitpid(s->pid[k], &st, 0) < 0 && errno == EINTR)
			;
	}
	s->n = 0;
}

/* Forks nproc mappers, each with a command and a result pipe: 0 or -errno. */
static int shared_start(struct shared_run *s, const struct fm_run *r, int nproc)
{
	for (int k = 0; k < nproc; k++) {
		int c[2], rr[2], err;

		if (pipe2(c, O_CLOEXEC))
			return -errno;
		if (pipe2(rr, O_CLOEXEC)) {
			err = -errno;
			close(c[0]);
			close(c[1]);
			return err;
		}
		s->pid[k] = fork();
		if (s->pid[k] == 0) {
			/* Siblings' pipe ends too: else no child ever sees EOF. */
			for (int j = 0; j < s->n; j++) {
				close(s->cmd[j]);
				close(s->res[j]);
			}
			close(c[1]);
			close(rr[0]);
			shared_child(&r->f, &r->m, r->file, c[0], rr[1]);
		}
		err = s->pid[k] < 0 ? -errno : 0;
		close(c[0]);
		close(rr[1]);
		if (err) {
			close(c[1]);
			close(rr[0]);
			return err;
		}
		s->cmd[k] = c[1];
		s->res[k] = rr[0];
		s->n++;
	}
	return 0;
}

/* Pages whose entry in pm (pagemap) is not the PFN this process maps. */
static size_t unlike(const __u64 *pm, const struct fm_map *m)
{
	size_t c = 0;

	for (size_t i = 0; i < m->npages; i++)
		c += !(pm[i] & PC_PM_PRESENT) || m->pte[i].kind != PC_PTE_PRESENT ||
		     (pm[i] & PC_PM_PFN_MASK) != m->pte[i].pfn;
	return c;
}

/*
 * One report of every mapper (the second after a command): the pages not
 * mapped alike, or -EPIPE.  *bad_data adds the pages they read wrong.
 */
static long shared_round(struct shared_run *s, const struct fm_map *m, __u64 *pfns, bool command,
			 size_t *bad_data)
{
	size_t len = (m->npages + 1) * sizeof(*pfns);
	long unstable = 0;

	for (int k = 0; k < s->n; k++) {
		if ((command && pc_write_full(s->cmd[k], "c", 1)) ||
		    pc_read_full(s->res[k], pfns, len) != (ssize_t)len)
			return -EPIPE;
		if (bad_data)
			*bad_data += pfns[m->npages];
		unstable += (long)unlike(pfns, m);
	}
	return unstable;
}

/*
 * kpagecount of each page between the mappers' two reports, and this
 * process's pagemap after it: the pages not mapped alike meanwhile, or
 * -errno.
 */
static long shared_count(struct shared_run *s, const struct fm_map *m, __u64 *pfns, __u64 *cnt,
			 size_t *bad_data)
{
	long unstable = shared_round(s, m, pfns, false, bad_data), again;
	__u64 *own = calloc(m->npages, sizeof(*own));

	if (!own || unstable < 0) {
		free(own);
		return own ? unstable : -ENOMEM;
	}
	for (size_t i = 0; i < m->npages; i++)
		if (m->pte[i].kind != PC_PTE_PRESENT || !m->pte[i].pfn ||
		    pc_kpagecount_read(m->pte[i].pfn, 1, &cnt[i]))
			unstable++;
	/* Round 2: nothing moved while counted (this process and the children). */
	if (pc_pagemap_read(0, fm_va(m, 0), m->npages, own)) {
		free(own);
		return -EIO;
	}
	unstable += (long)unlike(own, m);
	free(own);
	again = shared_round(s, m, pfns, true, NULL);
	return again < 0 ? again : unstable + again;
}

int fm_judge_rmap(const struct pc_scenario_ctx *ctx, struct pc_attempt *a, const struct fm_run *r)
{
	struct pc_oracle_msg *rm = &a->msg[S_RMAP];
	const struct fm_map *m = &r->m;
	struct shared_run s = {0};
	size_t n = m->npages, bad_data = 0;
	__u64 *pfns = calloc(n + 1, sizeof(*pfns)), *cnt = calloc(n, sizeof(*cnt));
	int nproc = r->sh->nproc < MAX_MAPPERS ? r->sh->nproc : MAX_MAPPERS;
	long unstable = 0;

	if (!pfns || !cnt) {
		unstable = -ENOMEM;
		goto out;
	}
	if (!ctx->have_kpageflags) {
		pc_slot_skip(a, S_RMAP, "/proc/kpagecount not readable (needs root)");
		goto out;
	}
	unstable = shared_start(&s, r, nproc);
	if (!unstable)
		unstable = shared_count(&s, m, pfns, cnt, &bad_data);
	if (unstable < 0)
		goto out;
	if (bad_data) {
		/* A child read other bytes than the file's: data, not rmap. */
		pc_oracle_add_evidence(&a->msg[S_DATA], PC_V_DATA_MISMATCH, fm_va(m, 0), 0, 0,
				       bad_data, "in %zu pages read by the %d other mappers",
				       bad_data, nproc);
	}
	if (unstable) {
		pc_oracle_skip(
			rm,
			"inconclusive: %ld page(s) not mapped alike by all %d mappers around "
			"the count (reclaim?)",
			unstable, nproc + 1);
		a->retry = true;
		a->judged[S_RMAP] = true;
		unstable = 0;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		int v = pc_count_delta(0, (__s64)cnt[i], nproc + 1);

		rm->checked++;
		if (pc_is_violation(v))
			pc_oracle_add_evidence(rm, v, fm_va(m, i), 0, (__u64)nproc + 1, cnt[i],
					       "index %llu, pfn %#llx: kpagecount",
					       (unsigned long long)(m->first_idx + i),
					       (unsigned long long)m->pte[i].pfn);
	}
	pc_slot_judge(a, S_RMAP);
	snprintf(rm->summary, sizeof(rm->summary),
		 "%s: %zu pages mapped by %d processes: %llu with another mapcount", r->f.what, n,
		 nproc + 1, (unsigned long long)rm->violations);
out:
	shared_stop(&s);
	free(pfns);
	free(cnt);
	return unstable < 0 ? (int)unstable : 0;
}
