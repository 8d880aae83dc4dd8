// SPDX-License-Identifier: GPL-2.0
/*
 * Truncation into a PMD-mapped file folio whose split fails
 * (filemap/batch-bounds [oracle:pagemap, oracle:sigbus]): nothing may stay
 * mapped past the new EOF.
 *
 * The state (fa04f5b60fda's): a file on the run's block filesystem
 * written with one 2 MiB pwrite at offset 0, so that the write path makes
 * one PMD-sized folio where the filesystem has them (xfs; ext4 from
 * v6.16); fsync'd before the window; mapped shared at a 2 MiB boundary
 * under MADV_HUGEPAGE and read, so that fault-around maps the folio by a
 * PMD (smaps FilePmdMapped: the state read back); one page of it pinned
 * by vmsplice into a pipe (an extra reference: the folio cannot be
 * split).  Then ftruncate to 1 MiB + 100 bytes, EOF inside the folio:
 * truncate_inode_partial_folio tries to split it, fails (the folio is
 * still PMD-sized: kpageflags by its PFN, the state read back again), and
 * must then unmap it so that it is faulted again by PTEs, none past EOF.
 * Judged: pagemap shows no page at or past the EOF page present
 * [oracle:pagemap], and a read of the first page past it raises SIGBUS
 * [oracle:sigbus].  A split that succeeded is no split failure: a skip
 * that says so.  Not for shmem, which maps whole folios across i_size on
 * purpose.
 *
 * The collapse variant (trunc-pinned-collapse-blockfs) dirties the folio
 * (a pwrite of one byte) before the truncation, so that the unsplit folio
 * stays in the page cache across the new EOF (truncate_inode_partial_folio
 * drops a clean one; mincore past EOF: the state read back), then asks
 * MADV_COLLAPSE for the 2 MiB.  khugepaged's try_collapse_pte_mapped_thp()
 * maps a PMD-order folio of the page cache by a PMD without looking at
 * i_size: on 7.x, whose file_thp_enabled() lets it collapse any regular
 * file of a filesystem with PMD folios, the PMD maps the pages past EOF
 * and SIGBUS is lost (docs/findings.md).  Where the kernel refuses the
 * collapse of a writable file (6.x: EINVAL), the state cannot be made:
 * a skip that says so.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include <ptecheck/filemap.h>
#include "filemap_int.h"
#include "procmm.h"
#include "shape.h"

#define NPAGES	 512				/* one PMD-sized folio */
#define NEW_SIZE ((size_t)(1 * MIB) + 100)	/* EOF inside the folio */
#define EOF_PAGE ((NEW_SIZE + PAGE - 1) / PAGE) /* the first page past EOF */
#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25 /* include/uapi/asm-generic/mman-common.h, v6.1 */
#endif

struct tp_run {
	struct pc_range rg;
	int pipe[2];
	__u64 pm[NPAGES];
	__u64 head_pfn;
	char fs[128];
	char how[96]; /* what was done after the failed split, for the summaries */
};

/* Mapped at the 2 MiB boundary under MADV_HUGEPAGE, read, PMD-mapped, one
   page pinned.  0, 1 when not made (slots skipped), or pc_skip_rest's. */
static int tp_state(struct pc_attempt *a, struct tp_run *r)
{
	struct iovec iov;
	struct pc_smaps sm;
	__u32 order = 0;
	int ret;

	r->rg.n = NPAGES;
	r->rg.base = pc_resv_map(&r->rg.resv, NPAGES * PAGE + PMD);
	if (!r->rg.base)
		return pc_skip_rest(a, "mmap", errno);
	ret = pc_map_fixed(r->rg.base, NPAGES * PAGE, r->rg.fd, MADV_HUGEPAGE);
	if (ret)
		return pc_skip_rest(a, "mmap of the file", -ret);
	(void)((volatile char *)r->rg.base)[0];
	ret = pc_smaps_read(0, (__u64)(uintptr_t)r->rg.base, &sm);
	if (ret)
		return pc_skip_rest(a, "smaps", -ret);
	if (sm.file_pmd_kb * KIB < PMD) {
		pc_skip_all(a, "the file's folio was not mapped by a PMD (smaps FilePmdMapped "
			       "0: no 2 MiB folio on this filesystem, or file THP off)");
		return 1;
	}
	ret = pc_pagemap_read(0, (__u64)(uintptr_t)r->rg.base, NPAGES, r->pm);
	if (ret)
		return pc_skip_rest(a, "pagemap", -ret);
	r->head_pfn = r->pm[0] & PC_PM_PFN_MASK;
	if (!r->head_pfn || pc_folio_orders(&r->head_pfn, 1, &order) || order != 9) {
		pc_skip_all(a, "the PMD mapping's folio is not one 2 MiB folio (kpageflags)");
		return 1;
	}
	if (pipe2(r->pipe, O_CLOEXEC))
		return pc_skip_rest(a, "pipe", errno);
	iov.iov_base = r->rg.base + PAGE;
	iov.iov_len = PAGE;
	if (vmsplice(r->pipe[1], &iov, 1, 0) != (ssize_t)PAGE)
		return pc_skip_rest(a, "vmsplice (the pin)", errno);
	return 0;
}

/* The truncation (the folio dirtied first when asked), then the split
   read back: 0, 1 when the split succeeded (slots skipped), or
   pc_skip_rest's. */
static int tp_truncate(struct pc_attempt *a, struct tp_run *r, bool dirty)
{
	char why[120];
	__u32 order = 0;
	int ret;

	if (dirty && pwrite(r->rg.fd, "d", 1, 0) != 1)
		return pc_skip_rest(a, "pwrite (dirtying the folio)", errno);
	if (ftruncate(r->rg.fd, (off_t)NEW_SIZE))
		return pc_skip_rest(a, "ftruncate", errno);
	ret = pc_folio_orders(&r->head_pfn, 1, &order);
	if (ret)
		return pc_skip_rest(a, "kpageflags", -ret);
	if (order == 9)
		return 0;
	snprintf(why, sizeof(why),
		 "the truncation split the pinned folio (order %u after it): no split "
		 "failure to judge",
		 order);
	pc_skip_all(a, why);
	return 1;
}

/* The unsplit folio still cached past EOF, then MADV_COLLAPSE over it:
   0, 1 when the state could not be made (slots skipped), or
   pc_skip_rest's. */
static int tp_collapse(struct pc_attempt *a, struct tp_run *r)
{
	unsigned char vec[NPAGES - EOF_PAGE];
	struct pc_smaps sm;
	char why[200];
	long cached = pc_pages_cached(r->rg.base + EOF_PAGE * PAGE, NPAGES - EOF_PAGE, vec);
	int ret;

	if (cached < 0)
		return pc_skip_rest(a, "mincore", (int)-cached);
	if (!cached) {
		pc_skip_all(a, "the dirty unsplit folio left the page cache at the truncation: "
			       "no folio across EOF to collapse");
		return 1;
	}
	if (madvise(r->rg.base, NPAGES * PAGE, MADV_COLLAPSE)) {
		int err = errno;

		snprintf(why, sizeof(why),
			 "MADV_COLLAPSE of the file's 2 MiB refused (%s)%s: the state is not made "
			 "here",
			 strerror(err),
			 err == EINVAL ? ": this kernel does not collapse a writable regular "
					 "file (6.x)"
				       : "");
		pc_skip_all(a, why);
		return 1;
	}
	ret = pc_smaps_read(0, (__u64)(uintptr_t)r->rg.base, &sm);
	if (ret)
		return pc_skip_rest(a, "smaps", -ret);
	snprintf(r->how, sizeof(r->how), "then MADV_COLLAPSE: FilePmdMapped %llu kB",
		 (unsigned long long)sm.file_pmd_kb);
	return 0;
}

static void tp_judge(struct pc_attempt *a, int s_pm, int s_bus, struct tp_run *r)
{
	struct pc_oracle_msg *pm = &a->msg[s_pm], *bus = &a->msg[s_bus];
	struct pc_probe_handlers old;
	size_t mapped = 0;
	int ret, sig;

	ret = pc_pagemap_read(0, (__u64)(uintptr_t)r->rg.base, NPAGES, r->pm);
	if (ret) {
		pc_skip_rest(a, "pagemap", -ret);
		return;
	}
	for (size_t i = EOF_PAGE; i < NPAGES; i++) {
		pm->checked++;
		if (!(r->pm[i] & PC_PM_PRESENT))
			continue;
		if (!mapped++)
			pc_oracle_add_evidence(
				pm, PC_V_PAST_EOF, (__u64)(uintptr_t)(r->rg.base + i * PAGE), 0, 0,
				r->pm[i] & PC_PM_PFN_MASK,
				"index %zu mapped after ftruncate to %zu%s", i, NEW_SIZE,
				r->how[0] ? " and MADV_COLLAPSE" : " (split failed)");
		else
			pm->violations++;
	}
	pc_slot_judge(a, s_pm);
	pc_oracle_appendf(pm,
			  "%zu of %zu pages past EOF mapped after ftruncate into the pinned "
			  "PMD-mapped 2 MiB folio (%s; its split failed%s%s)",
			  mapped, (size_t)(NPAGES - EOF_PAGE), r->fs, r->how[0] ? "; " : "",
			  r->how);
	pc_probe_install(&old);
	sig = pc_probe_read(r->rg.base + EOF_PAGE * PAGE);
	pc_probe_restore(&old);
	bus->checked++;
	if (sig != SIGBUS)
		pc_oracle_add_evidence(
			bus, PC_V_PAST_EOF, (__u64)(uintptr_t)(r->rg.base + EOF_PAGE * PAGE), 0,
			SIGBUS, (__u64)sig, "read of index %zu (i_size %zu) raised %s",
			(size_t)EOF_PAGE, NEW_SIZE, sig ? "another signal" : "no signal");
	pc_slot_judge(a, s_bus);
	pc_oracle_appendf(bus, "read of index %zu past EOF after the failed split%s: %s",
			  (size_t)EOF_PAGE, r->how[0] ? " and MADV_COLLAPSE" : "",
			  sig == SIGBUS ? "SIGBUS" : "no SIGBUS");
}

int fm_measure_trunc_pinned(struct pc_scenario_ctx *ctx, const void *data, struct pc_attempt *a)
{
	int s_pm = pc_slot_add(a, ctx, PC_CHK_FM_BOUNDS, TIER_PAGEMAP);
	int s_bus = pc_slot_add(a, ctx, PC_CHK_FM_BOUNDS, TIER_SIGBUS);
	const struct fm_trunc_pinned *v = data;
	struct tp_run r = {.rg = {.fd = -1}, .pipe = {-1, -1}};
	int ret;

	if (ctx->known_bug_skipped) {
		pc_skip_all(a, "makes the state of a bug released kernels carry "
			       "(docs/findings.md): skipped by --skip-known-bugs");
		return 0;
	}
	/* The file, written and fsync'd before the window (its writeback). */
	ret = pc_range_file_for(ctx, a, &r.rg, NPAGES, NPAGES, 0, r.fs, sizeof(r.fs));
	if (ret)
		goto out;
	pc_window_begin(ctx, &a->win, &a->disturbed);
	ret = tp_state(a, &r);
	if (!ret)
		ret = tp_truncate(a, &r, v->collapse);
	if (!ret && v->collapse)
		ret = tp_collapse(a, &r);
	if (!ret)
		tp_judge(a, s_pm, s_bus, &r);
	pc_window_end(ctx, &a->win, &a->disturbed);
out:
	for (int i = 0; i < 2; i++)
		if (r.pipe[i] >= 0)
			close(r.pipe[i]);
	pc_range_release(&r.rg);
	return ret < 0 ? ret : 0;
}
