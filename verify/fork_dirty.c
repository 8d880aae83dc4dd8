// SPDX-License-Identifier: GPL-2.0
/*
 * What fork's batches give the child (fork/dirty, fork/rmap).
 *
 * The state: 64 KiB (or 16 KiB) anonymous folios, every page written, the range read
 * back (whole folios), MADV_FREE over it (smaps LazyFree the whole range:
 * every PTE clean, every folio lazyfree), then one page of every even
 * folio (the pattern) written again: that PTE alone dirty; the odd folios
 * stay clean (the control).  fork.  Then:
 *  - fork/rmap [oracle:kpagecount]: every page of every whole folio is
 *    mapped twice (pc_fork_mapcount), read by PFN while the child lives;
 *  - the parent unmaps its range: the child's PTEs are the only ones;
 *  - fork/dirty [oracle:data-loss]: the child pages its range out
 *    (MADV_PAGEOUT: a lazyfree folio none of whose PTEs is dirty is
 *    discarded) and reads every written page back: its byte, or the bit
 *    the child's PTE should have kept was lost.  The control folios must
 *    have been discarded (read 0), or the probe could not have seen a
 *    loss: a skip that says so, retried.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ptecheck/fork.h>
#include "fork_int.h"
#include "procmm.h"
#include "shape.h"

#define FP_MAX 16 /* pages per folio at most: 64 KiB */
#define OFF    400

/* What the child saw, sent back whole through a pipe. */
struct fk_seen {
	int err;	      /* -errno of the child's MADV_PAGEOUT, 0 */
	size_t written;	      /* written pages read back */
	size_t lost;	      /* of them, not holding their byte */
	size_t first_lost;    /* page index of the first lost */
	__u8 want, seen;      /* its bytes */
	size_t controls;      /* control folios */
	size_t controls_gone; /* of them, discarded (their first page reads 0) */
};

static bool pattern(size_t folio)
{
	return folio % 2 == 0;
}

/* The child: waits for the parent's unmap, pages out, reads back. */
static void child(int go, int res, char *base, size_t n, const struct pc_folios *fo, size_t p)
{
	struct fk_seen s = {0};
	char c;

	if (read(go, &c, 1) != 1)
		_exit(1);
	if (madvise(base, n * PAGE, MADV_PAGEOUT))
		s.err = -errno;
	for (size_t f = 0; !s.err && f < n / fo->fp; f++) {
		size_t i = f * fo->fp + p;

		if (!fo->whole[f])
			continue;
		if (!pattern(f)) {
			s.controls++;
			s.controls_gone += base[f * fo->fp * PAGE + OFF] == 0;
			continue;
		}
		s.written++;
		if ((__u8)base[i * PAGE + OFF] != pc_page_byte(i, SALT_B)) {
			if (!s.lost++) {
				s.first_lost = i;
				s.want = pc_page_byte(i, SALT_B);
				s.seen = (__u8)base[i * PAGE + OFF];
			}
		}
	}
	_exit(write(res, &s, sizeof(s)) == (ssize_t)sizeof(s) ? 0 : 1);
}

/* Every page of every whole folio mapped twice, by PFN. */
static int judge_rmap(struct pc_attempt *a, int slot, const char *base, const struct pc_folios *fo)
{
	struct pc_oracle_msg *m = &a->msg[slot];
	size_t fp = fo->fp;
	__u64 counts[FP_MAX];

	for (size_t f = 0; f < fo->n / fp && fp <= FP_MAX; f++) {
		int ret;

		if (!fo->whole[f])
			continue;
		ret = pc_kpagecount_read(fo->pfns[f * fp], fp, counts);
		if (ret)
			return ret;
		for (size_t j = 0; j < fp; j++) {
			int v = pc_fork_mapcount(counts[j], 2);

			m->checked++;
			if (pc_is_violation(v))
				pc_oracle_add_evidence(
					m, v, (__u64)(uintptr_t)(base + (f * fp + j) * PAGE), 0, 2,
					counts[j], "folio %zu page %zu, child alive", f, j);
		}
	}
	pc_slot_judge(a, slot);
	pc_oracle_appendf(m, "%zu of %zu folios whole, each page read by PFN with the child alive",
			  fo->n_whole, fo->n / fp);
	return 0;
}

static void judge_dirty(struct pc_attempt *a, int slot, char *base, const struct fk_seen *s,
			size_t p)
{
	struct pc_oracle_msg *m = &a->msg[slot];

	if (!s->controls_gone) {
		pc_slot_skip(
			a, slot,
			"probe inconclusive: MADV_PAGEOUT discarded none of %zu clean lazyfree "
			"control folios, so a lost dirty bit would not show",
			s->controls);
		a->retry = true;
		return;
	}
	m->checked += s->written;
	if (s->lost) {
		pc_oracle_add_evidence(m, PC_V_DATA_LOST,
				       (__u64)(uintptr_t)(base + s->first_lost * PAGE), 0, s->want,
				       s->seen,
				       "page %zu (entry %zu of its folio), in the child after the "
				       "parent unmapped and the child paged out",
				       s->first_lost, p);
		m->violations += s->lost - 1;
	}
	pc_slot_judge(a, slot);
	pc_oracle_appendf(m,
			  "%zu written entries (entry %zu of each pattern folio) read back in the "
			  "child, %zu lost; %zu of %zu control folios discarded",
			  s->written, p, s->lost, s->controls_gone, s->controls);
}

/* fork, the parent's reads and unmap, the child's page-out and reads.  The
   measured window ends before the page-out: that reclaim is the probe's
   own, not a disturbance. */
static int fk_fork(struct pc_scenario_ctx *ctx, struct pc_attempt *a, int s_rmap, char *base,
		   const struct pc_folios *fo, size_t p, struct fk_seen *s)
{
	int go[2], res[2], st, ret;
	pid_t pid;

	if (pipe(go))
		return pc_skip_rest(a, "pipe", errno);
	if (pipe(res)) {
		ret = errno;
		close(go[0]);
		close(go[1]);
		return pc_skip_rest(a, "pipe", ret);
	}
	pid = fork();
	if (pid == 0) {
		close(go[1]);
		close(res[0]);
		child(go[0], res[1], base, fo->n, fo, p);
	}
	close(go[0]);
	close(res[1]);
	ret = pid < 0 ? -errno : judge_rmap(a, s_rmap, base, fo);
	if (!ret && munmap(base, fo->n * PAGE))
		ret = -errno;
	pc_window_end(ctx, &a->win, &a->disturbed);
	if (pid > 0) {
		/* The child goes on (or, on an error here, exits) when go is
		   written or closed. */
		if (!ret && write(go[1], "g", 1) != 1)
			ret = -EPIPE;
		close(go[1]);
		if (!ret && read(res[0], s, sizeof(*s)) != (ssize_t)sizeof(*s))
			ret = -EPIPE;
		waitpid(pid, &st, 0);
	} else {
		close(go[1]);
	}
	close(res[0]);
	if (!ret && s->err)
		ret = s->err;
	return ret ? pc_skip_rest(a, "fork/kpagecount/munmap/MADV_PAGEOUT", -ret) : 0;
}

int fk_measure_dirty(struct pc_scenario_ctx *ctx, const void *data, struct pc_attempt *a)
{
	const struct fk_scenario *sc = data;
	int s_dirty = pc_slot_add(a, ctx, PC_CHK_FORK_DIRTY, TIER_DATA_LOSS);
	int s_rmap = pc_slot_add(a, ctx, PC_CHK_FORK_RMAP, TIER_KPAGECOUNT);
	size_t fp = sc->kb * KIB / PAGE, p = pc_pos_index(sc->pos, fp), n;
	struct pc_folios fo = {0};
	struct pc_range rg = {.fd = -1};
	struct fk_seen s = {0};
	int ret;

	n = pc_anon_mthp_pages(ctx, a, sc->kb, 1);
	if (!n)
		return 0;
	if (pc_folios_alloc(&fo, n, fp)) {
		ret = pc_skip_rest(a, "calloc", ENOMEM);
		goto out;
	}
	pc_window_begin(ctx, &a->win, &a->disturbed);
	ret = pc_lazyfree_pattern(ctx, a, &rg, &fo, p, OFF, sc->misaligned);
	if (!ret)
		ret = fk_fork(ctx, a, s_rmap, rg.base, &fo, p, &s);
	pc_window_end(ctx, &a->win, &a->disturbed);
	if (!ret)
		judge_dirty(a, s_dirty, rg.base, &s, p);
out:
	pc_range_release(&rg);
	pc_folios_free(&fo);
	return ret < 0 ? ret : 0;
}
