// SPDX-License-Identifier: GPL-2.0
/*
 * What the exit's zap takes off the folios' mapcounts (zap/rmap): the zap
 * no syscall's range shows (exit_mmap, a full-mm gather).
 *
 * The state: 64 KiB shmem folios (a memfd), every page written (for the
 * read shape: a fresh memfd's holes only read, so that its folios read
 * clean, zap_folios_clean, and the child's read faults map clean PTEs),
 * the range read back (whole folios, their PFNs).  A child forked then
 * maps them by touching every page (a shared file mapping is not copied
 * at fork: its faults map them, reads or, for the dirty shape, writes); the
 * scenario unmaps its own mapping and lets the child exit.  After the
 * exit every page of every whole folio is mapped 0 times (kpagecount:
 * pc_zap_unmapped), the page cache keeping the folios: exit_mmap's
 * batches took them all (zap_present_folio_ptes, each batch's nr).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ptecheck/zap.h>
#include "shape.h"
#include "zap_int.h"

#define OFF 200

/* The child: maps every page of n at base (writes if dirty), says so on
   up, waits for a byte on down, exits (its exit zaps them). */
static void __attribute__((noreturn)) child(char *base, size_t n, bool dirty, int up, int down)
{
	char c = 0;

	for (size_t i = 0; i < n; i++) {
		if (dirty)
			base[i * PAGE + OFF + 1] = (char)i;
		else
			c ^= ((volatile char *)base)[i * PAGE + OFF];
	}
	(void)c;
	if (write(up, "m", 1) != 1 || read(down, &c, 1) != 1)
		_exit(1);
	_exit(0);
}

/* The child forked, mapping the range, then the scenario's own mapping
   gone and the child exited: 0 or -errno, *what the step. */
static int exit_zap(struct pc_range *rg, bool dirty, const char **what)
{
	int up[2], down[2], status, ret = 0;
	pid_t pid;
	char c;

	*what = "pipe";
	if (pipe(up))
		return -errno;
	if (pipe(down)) {
		ret = -errno;
		goto close_up;
	}
	*what = "fork";
	pid = fork();
	if (pid < 0) {
		ret = -errno;
		goto close_down;
	}
	if (pid == 0)
		child(rg->base, rg->n, dirty, up[1], down[0]);
	*what = "the child's mapping";
	if (read(up[0], &c, 1) != 1)
		ret = -EIO;
	*what = ret ? *what : "munmap";
	if (!ret && munmap(rg->base, rg->n * PAGE))
		ret = -errno;
	if (write(down[1], "x", 1) != 1 && !ret)
		ret = -EIO;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!ret && (!WIFEXITED(status) || WEXITSTATUS(status)))
		ret = -ECHILD;
close_down:
	close(down[0]);
	close(down[1]);
close_up:
	close(up[0]);
	close(up[1]);
	return ret;
}

int zap_measure_exit(struct pc_scenario_ctx *ctx, const void *data, struct pc_attempt *a)
{
	const struct zap_scenario *sc = data;
	const struct zap_shape *sh = sc->shape;
	int slot = pc_slot_add(a, ctx, PC_CHK_ZAP_RMAP, TIER_KPAGECOUNT);
	struct pc_oracle_msg *m = &a->msg[slot];
	struct pc_range rg = {.fd = -1};
	struct pc_folios fo = {0};
	size_t fp = sh->folio_pages;
	const char *what;
	long folios, dirty;
	int ret;

	if (!pc_mthp_on(ctx, a, true, (unsigned int)(fp * PAGE / KIB)))
		return 0;
	fo.n = pc_scaled_len(ctx, sh->len, 4 * fp * PAGE, fp * PAGE) / PAGE;
	if (pc_folios_alloc(&fo, fo.n, fp))
		return pc_skip_rest(a, "calloc", ENOMEM);
	pc_window_begin(ctx, &a->win, &a->disturbed);
	/* The read shape's folios clean, so the child's read faults map
	   clean PTEs: a fresh memfd's holes, only read. */
	ret = sh->exit_dirty ? pc_range_map(&rg, fo.n, true, OFF, &what)
			     : pc_range_map_clean(&rg, fo.n, &what);
	if (ret) {
		ret = pc_skip_rest(a, what, -ret);
		goto out;
	}
	ret = pc_folios_read_for(a, ctx, &fo, rg.base, sh->no_folio);
	if (ret)
		goto out;
	dirty = sh->exit_dirty ? 0 : zap_folios_clean(&fo);
	if (dirty < 0) {
		ret = pc_skip_rest(a, "kpageflags", (int)-dirty);
		goto out;
	}
	if (!fo.n_whole) {
		pc_skip_all(a, ZAP_NOT_CLEAN);
		a->retry = true;
		goto out;
	}
	ret = exit_zap(&rg, sh->exit_dirty, &what);
	if (ret) {
		ret = pc_skip_rest(a, what, -ret);
		goto out;
	}
	folios = zap_judge_unmapped(a, slot, &fo, rg.base, 0, fo.n, "the child's exit");
	if (folios < 0) {
		ret = (int)folios;
		goto out;
	}
	pc_slot_judge(a, slot);
	pc_oracle_appendf(m,
			  "%ld whole folios (%s) mapped by a child through %s faults, unmapped "
			  "by its exit, the page cache holding them",
			  folios, sh->what, sh->exit_dirty ? "write" : "read");
	if (!sh->exit_dirty)
		pc_oracle_appendf(m, "; each read clean before (%ld dirty, left out)", dirty);
out:
	pc_window_end(ctx, &a->win, &a->disturbed);
	pc_range_release(&rg);
	pc_folios_free(&fo);
	return ret < 0 ? ret : 0;
}
