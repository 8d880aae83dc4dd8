// SPDX-License-Identifier: GPL-2.0
/*
 * A write fault on one page of a large file folio whose other pages are
 * mapped (filemap/fault-progress): finish_fault maps the whole folio only
 * where every PTE of its range is empty, else the one page.
 *
 * The state: 64 KiB folios of a memfd (shmem mTHP) or of a file on the
 * run's block filesystem (pc_range_file_create), mapped shared, every
 * page written (the memfd) or read (the file) so that every PTE of each
 * folio is present; the range read back (whole folios); then entry p of
 * each whole folio zapped alone (MADV_DONTNEED: the folio stays in the
 * page cache, its PTE empty) and pagemap read again: entry p empty, the
 * others present, the state made.  Then entry p of each folio written,
 * with a time limit (pc_probe_write_within): a write fault on a shared
 * mapping goes to finish_fault (no fault-around), which before
 * 34b82f33cf3f returned without mapping anything when the folio's range
 * was not all empty, and the write faulted forever.  Judged: every write
 * completed, and pagemap shows entry p present after it
 * (pc_fault_progress), each write's faults counted for the evidence.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include <ptecheck/filemap.h>
#include "filemap_int.h"
#include "procmm.h"
#include "shape.h"

#define OFF	      300
#define WRITE_SECONDS 10 /* a single write fault takes far less, even under TCG */

struct rf_run {
	const struct fm_refault *sc;
	struct pc_range rg;
	struct pc_folios fo;
	size_t n, fp, p;
	__u64 *pm;     /* pagemap after the zap, then after the writes */
	bool *tried;   /* per folio: entry p written (until one write is stuck) */
	bool *done;    /* per folio: entry p's write returned in time */
	__u64 *faults; /* per folio: the faults it took */
	char fs[128];
};

/* The range: a memfd written through its mapping, or a block-fs file
   made before the window and read.  0, 1 when there is no block
   filesystem (slots skipped), or pc_skip_rest's. */
static int rf_map(struct pc_attempt *a, struct rf_run *r)
{
	const char *what;
	int ret;

	if (!r->sc->file) {
		ret = pc_range_map(&r->rg, r->n, true, OFF, &what);
		return ret ? pc_skip_rest(a, what, -ret) : 0;
	}
	ret = pc_range_map_file(&r->rg, r->n, OFF, &what);
	return ret ? pc_skip_rest(a, what, -ret) : 0;
}

/* The state: entry p of every whole folio zapped alone.  0, 1 when not
   made (slots skipped, retried), or pc_skip_rest's. */
static int rf_state(struct pc_scenario_ctx *ctx, struct pc_attempt *a, struct rf_run *r)
{
	size_t wrong = 0;
	int ret = rf_map(a, r);

	if (ret)
		return ret;
	ret = pc_folios_read_for(a, ctx, &r->fo, r->rg.base, r->sc->no_folio);
	if (ret)
		return ret;
	for (size_t f = 0; f < r->n / r->fp; f++)
		if (r->fo.whole[f] &&
		    madvise(r->rg.base + (f * r->fp + r->p) * PAGE, PAGE, MADV_DONTNEED))
			return pc_skip_rest(a, "madvise(MADV_DONTNEED)", errno);
	ret = pc_pagemap_read(0, (__u64)(uintptr_t)r->rg.base, r->n, r->pm);
	if (ret)
		return pc_skip_rest(a, "pagemap", -ret);
	for (size_t f = 0; f < r->n / r->fp; f++)
		for (size_t j = 0; r->fo.whole[f] && j < r->fp; j++)
			wrong += !(r->pm[f * r->fp + j] & PC_PM_PRESENT) != (j == r->p);
	if (!wrong)
		return 0;
	pc_skip_all(a, "after MADV_DONTNEED of entry p alone, pagemap did not show it alone "
		       "empty in every whole folio");
	a->retry = true;
	return 1;
}

/* The writes and the judgement. */
static int rf_judge(struct pc_attempt *a, int slot, struct rf_run *r)
{
	struct pc_oracle_msg *m = &a->msg[slot];
	size_t folios = r->n / r->fp, stuck = 0;
	int ret;

	/* Written until one write does not return: that one is the evidence,
	   and the others would each cost the whole limit again. */
	for (size_t f = 0; f < folios && !stuck; f++) {
		size_t i = f * r->fp + r->p;
		__u64 before = pc_faults_self();

		if (!r->fo.whole[f])
			continue;
		r->tried[f] = true;
		r->done[f] = pc_probe_write_within(r->rg.base + i * PAGE + OFF,
						   pc_page_byte(i, SALT_B), WRITE_SECONDS) == 0;
		r->faults[f] = pc_faults_self() - before;
		stuck += !r->done[f];
	}
	ret = pc_pagemap_read(0, (__u64)(uintptr_t)r->rg.base, r->n, r->pm);
	if (ret)
		return pc_skip_rest(a, "pagemap", -ret);
	for (size_t f = 0; f < folios; f++) {
		size_t i = f * r->fp + r->p;
		bool mapped = r->pm[i] & PC_PM_PRESENT;
		int v;

		if (!r->tried[f])
			continue;
		v = pc_fault_progress(r->done[f], mapped);
		m->checked++;
		if (pc_is_violation(v))
			pc_oracle_add_evidence(
				m, v, (__u64)(uintptr_t)(r->rg.base + i * PAGE), 0, 1, r->faults[f],
				"folio %zu entry %zu: %s in %d s, %llu faults", f, r->p,
				r->done[f] ? "written, not mapped" : "write not done",
				WRITE_SECONDS, (unsigned long long)r->faults[f]);
	}
	pc_slot_judge(a, slot);
	pc_oracle_appendf(m,
			  "%zu of %zu folios (%s%s%s) whole, entry %zu of each zapped alone and "
			  "written: %zu writes not done in %d s (the others then not tried)",
			  r->fo.n_whole, r->n / r->fp, r->sc->what, r->fs[0] ? " on " : "", r->fs,
			  r->p, stuck, WRITE_SECONDS);
	return 0;
}

int fm_measure_refault(struct pc_scenario_ctx *ctx, const void *data, struct pc_attempt *a)
{
	const struct fm_refault *sc = data;
	int slot = pc_slot_add(a, ctx, PC_CHK_FM_PROGRESS, TIER_PROGRESS);
	struct rf_run r = {.sc = sc, .rg = {.fd = -1}, .fp = 16};
	int ret = 0;

	if (!sc->file && !pc_mthp_64k_on(ctx, a, true))
		return 0;
	r.n = pc_scaled_len(ctx, 1 * MIB, 4 * r.fp * PAGE, r.fp * PAGE) / PAGE;
	r.p = pc_pos_index(sc->pos, r.fp);
	r.pm = calloc(r.n, sizeof(*r.pm));
	r.tried = calloc(r.n / r.fp, sizeof(*r.tried));
	r.done = calloc(r.n / r.fp, sizeof(*r.done));
	r.faults = calloc(r.n / r.fp, sizeof(*r.faults));
	if (!r.pm || !r.tried || !r.done || !r.faults || pc_folios_alloc(&r.fo, r.n, r.fp)) {
		ret = pc_skip_rest(a, "calloc", ENOMEM);
		goto out;
	}
	/* The file is written and fsync'd before the window (writeback). */
	if (sc->file) {
		ret = pc_range_file_for(ctx, a, &r.rg, r.n, r.fp, OFF, r.fs, sizeof(r.fs));
		if (ret)
			goto out;
	}
	pc_window_begin(ctx, &a->win, &a->disturbed);
	ret = rf_state(ctx, a, &r);
	if (!ret)
		ret = rf_judge(a, slot, &r);
	pc_window_end(ctx, &a->win, &a->disturbed);
out:
	pc_range_release(&r.rg);
	pc_folios_free(&r.fo);
	free(r.pm);
	free(r.tried);
	free(r.done);
	free(r.faults);
	return ret < 0 ? ret : 0;
}
