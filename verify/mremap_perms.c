// SPDX-License-Identifier: GPL-2.0
/*
 * The mremap/perms trigger states: a large folio whose PTEs differ in write
 * permission when it moves, made on purpose in four ways (enum wprotect),
 * and the write-fault oracle that shows a move which made a read-only PTE
 * writable.  That is the 6.17 bug: move_ptes batched with
 * folio_pte_batch_flags() without FPB_RESPECT_WRITE, and set_ptes gave the
 * whole batch the write bit of its first PTE.  After the move, every page
 * that was read-only must fault when written (a minor fault, or a uffd-wp
 * event); pagemap cannot show the write bit, a fault can.
 *
 * Why the folio moves twice.  On arm64 mremap batches only from a
 * contpte-folded PTE (pte_batch_hint()), and a folded block has one
 * permission, so the bug needs a folded writable block followed, in the
 * same folio, by read-only PTEs: a folio of several 64 KiB blocks (the
 * PMD-sized folio here, mapped by PTEs).  A write unfolds its block;
 * moving the block one PTE at a time folds it again at the destination
 * (set_ptes of its last PTE).  So the first move makes that state and the
 * second, back to the source address, is the one a batch that ignores the
 * write bit would widen.  On x86 both move one PTE at a time; the state is
 * the same, and the kernel tiers judge the write bit of every PTE.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/magic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <linux/userfaultfd.h>

#include "mremap_int.h"
#include "uffd.h"
#include "shape.h"
#include "fullio.h"
#include "procmm.h"
#include "report.h"
#include "settings.h"

/* The page of the third 64 KiB block that is written again. */
#define REWRITE_MID (2 * PC_CONT_PTES + 5)

/*
 * Written again after the protection, so writable at the move: the first
 * 64 KiB block whole (the first move folds it again, writable) and one
 * page of the third (a block mixing both, after a read-only one).  The
 * rest stays read-only.
 */
static bool rewritten(size_t i)
{
	return i < PC_CONT_PTES || i == REWRITE_MID;
}

/* What pagemap shows of a protection: a bit the read-only pages and the
   rewritten ones carry or not. */
struct marker {
	__u64 bit;
	bool on_ro, on_rw;
	const char *text;
};

static const struct marker markers[] = {
	[WP_FORK_EXIT] = {PC_PM_EXCLUSIVE, true, true, "exclusive again (pagemap bit 56)"},
	[WP_SOFT_DIRTY] = {PC_PM_SOFT_DIRTY, false, true, "soft-dirty as written (bit 55)"},
	[WP_UFFD] = {PC_PM_UFFD_WP, true, false, "uffd-wp as protected (bit 57)"},
};

static const char *const wp_text[] = {
	[WP_FORK_EXIT] = "fork, child exited",
	[WP_NOTIFY] = "write-notify",
	[WP_SOFT_DIRTY] = "soft-dirty clear",
	[WP_UFFD] = "uffd-wp",
};

/* One attempt of a perms scenario. */
struct perms {
	struct pc_scenario_ctx *ctx;
	const struct shape *sh;
	struct pc_attempt *a;
	int s_fault, s_moved, s_folio;
	struct place pl;
	struct mthp_count count;
	struct pc_uffd uffd;
	int fd;
	size_t n;
	bool *ro;		 /* read-only at the move */
	__u32 *faults;		 /* faults of each page's write after the move */
	bool *protected_rw;	 /* rewritten: read-only by the protection before */
	__u32 *rw_faults;	 /* faults of each rewrite */
	struct snap pre;	 /* after the protection, before the rewrites */
	struct snap state;	 /* at the move */
	struct move_snaps ms;	 /* the second move, back to the source address */
	size_t rewrites_faulted; /* rewrites that faulted: they were read-only */
	size_t copied;		 /* rewritten pages whose PFN changed (COW) */
	size_t marked;		 /* pages whose pagemap marker is as expected */
	__u64 pmd_kb;		 /* smaps: kB of the range mapped by a PMD */
	const char *fs;		 /* WP_NOTIFY: the filesystem the file is on */
	char why[160];		 /* the state not made: why */
};

/* Faults of this process so far, or of the uffd reader's count. */
static __u64 faults_now(const struct perms *p)
{
	if (p->sh->wp == WP_UFFD)
		return pc_uffd_faults(&p->uffd);
	return pc_faults_self();
}

/* Writes one byte to page i and returns the faults that took. */
static __u64 write_counted(const struct perms *p, size_t i, __u8 salt)
{
	volatile __u8 *v = (volatile __u8 *)p->pl.src + i * PAGE;
	__u64 before = faults_now(p);

	*v = pc_page_byte(i, salt);
	return faults_now(p) - before;
}

static const char *fs_name(long type)
{
	switch (type) {
	case EXT4_SUPER_MAGIC:
		return "ext4";
	case XFS_SUPER_MAGIC:
		return "xfs";
	case BTRFS_SUPER_MAGIC:
		return "btrfs";
	case TMPFS_MAGIC:
		return "tmpfs";
	default:
		return "another filesystem";
	}
}

/*
 * WP_NOTIFY's file on the block filesystem, filled by one write (so large
 * folios where the filesystem has them) and made clean, so that no
 * writeback runs meanwhile.  0, or -errno with *what naming the step.
 */
static int notify_file(struct perms *p, const char **what)
{
	size_t len = p->n * PAGE;
	struct statfs sfs;
	char *buf;
	int ret;

	*what = "file on the block filesystem";
	p->fd = mr_open_file_in(p->ctx->blockfs_dir, len);
	if (p->fd < 0)
		return p->fd;
	*what = "malloc";
	buf = malloc(len);
	if (!buf)
		return -ENOMEM;
	mr_fill_pages(buf, 0, p->n, SALT_A);
	*what = "pwrite/fsync/fstatfs";
	ret = pc_pwrite_full(p->fd, buf, len, 0);
	free(buf);
	if (!ret && (fsync(p->fd) || fstatfs(p->fd, &sfs)))
		ret = -errno;
	if (!ret)
		p->fs = fs_name((long)sfs.f_type);
	return ret;
}

/* Soft-dirty tracking write-protects every PTE: only where it exists. */
static int soft_dirty_clear(const struct perms *p, const char **what)
{
	__u64 pm = 0;
	int ret;

	*what = "pagemap";
	ret = pc_pagemap_read(0, (__u64)(uintptr_t)p->pl.src, 1, &pm);
	if (ret)
		return ret;
	*what = "soft-dirty tracking (freshly written pages not soft-dirty in pagemap: no "
		"CONFIG_MEM_SOFT_DIRTY; arm64 has none)";
	if (!(pm & PC_PM_SOFT_DIRTY))
		return -EOPNOTSUPP;
	*what = "clear_refs 4";
	return pc_write_file("/proc/self/clear_refs", "4");
}

/* Every PTE of the source read-only: 0, or -errno with *what. */
static int protect(struct perms *p, const char **what)
{
	switch (p->sh->wp) {
	case WP_FORK_EXIT:
		*what = "fork";
		return pc_fork_exit();
	case WP_SOFT_DIRTY:
		return soft_dirty_clear(p, what);
	case WP_UFFD:
		return pc_uffd_protect(&p->uffd, p->pl.src, p->n * PAGE, what);
	default:
		return 0; /* WP_NOTIFY: the read faults mapped the file read-only */
	}
}

/*
 * A protection this kernel lacks (-EOPNOTSUPP from protect or the uffd
 * setup) is a skip that names it, not a failed operation; any other error
 * is pc_skip_rest's.
 */
static int unmade(struct perms *p, const char *what, int err)
{
	if (err != -EOPNOTSUPP)
		return pc_skip_rest(p->a, what, -err);
	snprintf(p->why, sizeof(p->why), "not in this kernel: %s", what);
	pc_skip_all(p->a, p->why);
	return 1;
}

/*
 * The source mapped and protected: for anonymous memory a PMD-sized folio,
 * its PMD split so PTEs map it (an mprotect of one page splits it and the
 * VMA, which the second merges again), khugepaged kept away.  0, or
 * pc_skip_rest's -errno.
 */
static int map_protected(struct perms *p)
{
	const char *what = "mmap";
	int ret = 0;

	if (p->sh->wp == WP_UFFD)
		ret = pc_uffd_open(&p->uffd, UFFD_FEATURE_EVENT_REMAP, &what);
	else if (p->sh->wp == WP_NOTIFY)
		ret = notify_file(p, &what);
	if (ret)
		return unmade(p, what, ret);
	ret = mr_source_map(p->ctx, p->sh, p->a, &p->pl, p->sh->dst_off, p->fd, &p->count);
	if (ret)
		return ret;
	what = "mprotect/madvise(MADV_NOHUGEPAGE)";
	if (p->sh->backing == B_ANON && (mprotect(p->pl.src, PAGE, PROT_READ) ||
					 mprotect(p->pl.src, PAGE, PROT_READ | PROT_WRITE)))
		return pc_skip_rest(p->a, what, errno);
	if (madvise(p->pl.src, p->n * PAGE, MADV_NOHUGEPAGE))
		return pc_skip_rest(p->a, what, errno);
	ret = protect(p, &what);
	return ret ? unmade(p, what, ret) : 0;
}

/* The rewrites, in page order: block 0 first, so that the fault of the
   last one shows the rest of the folio was still read-only. */
static void rewrite(struct perms *p)
{
	for (size_t i = 0; i < p->n; i++) {
		p->ro[i] = !rewritten(i);
		p->protected_rw[i] = !p->ro[i];
		if (!p->ro[i]) {
			p->rw_faults[i] = (__u32)write_counted(p, i, SALT_B);
			p->rewrites_faulted += p->rw_faults[i] > 0;
		}
	}
}

/* The state at the move, from the snapshots: the counts in *p. */
static void count_state(struct perms *p)
{
	const struct marker *mk = &markers[p->sh->wp];

	for (size_t i = 0; i < p->n; i++) {
		if (!p->ro[i] && p->state.pfns_visible && p->pre.pfn[i] != p->state.pfn[i])
			p->copied++;
		if (mk->bit)
			p->marked +=
				!!(p->state.pm[i] & mk->bit) == (p->ro[i] ? mk->on_ro : mk->on_rw);
	}
}

/* The scenario protected every page, and a rewrite did not fault: not a
   state it failed to make but the write permission the protection should
   have taken (a batched write-protect that missed PTEs), judged as such. */
static const char STATE_CONTRADICTED[] = "contradicted";

/*
 * NULL when the state the oracle needs was made: a large folio mapped by
 * PTEs, the rewrites faulted (so those pages were read-only) and stayed in it, the
 * pagemap marker as expected.  Else why not, with *retry when another
 * attempt may make it.
 */
static const char *state_missing(struct perms *p, enum folios_seen fs, bool *retry)
{
	size_t rewrites = PC_CONT_PTES + 1;
	const struct marker *mk = &markers[p->sh->wp];

	*retry = true;
	if (mr_no_large(fs)) {
		*retry = false;
		return "no large folio formed (THP and 64 KiB mTHP off?)";
	}
	if (p->state.order_err == 0 && (p->state.order[0] == PC_FOLIO_ORDER_NONE ||
					(1U << p->state.order[0]) < 2 * PC_CONT_PTES))
		snprintf(p->why, sizeof(p->why),
			 "the first page's folio is smaller than 128 KiB: the writable block and "
			 "the read-only one after it are not one folio");
	else if (p->pmd_kb)
		snprintf(p->why, sizeof(p->why),
			 "%llu kB still mapped by a PMD (smaps): no PTEs to differ there",
			 (unsigned long long)p->pmd_kb);
	else if (p->sh->wp == WP_UFFD && pc_uffd_error(&p->uffd))
		snprintf(p->why, sizeof(p->why), "the uffd reader could not resolve a fault: %s",
			 strerror(pc_uffd_error(&p->uffd)));
	else if (p->rewrites_faulted < rewrites)
		return (*retry = false), STATE_CONTRADICTED;
	else if (p->copied)
		snprintf(p->why, sizeof(p->why),
			 "%zu rewritten pages were copied out of the folio: no reuse of a large "
			 "anonymous folio on a write fault here",
			 p->copied);
	else if (p->sh->wp != WP_NOTIFY && p->marked < p->n)
		snprintf(p->why, sizeof(p->why), "only %zu of %zu pages %s", p->marked, p->n,
			 mk->text);
	else
		return NULL;
	return p->why;
}

/* A rewrite of a page the scenario had protected did not fault: the
   write-fault oracle fails with the pages, and the moves are not made
   (their state would be a page writable already).  Returns 1. */
static int judge_rewrites(struct perms *p)
{
	struct pc_oracle_msg *m = &p->a->msg[p->s_fault];
	char when[96];

	snprintf(when, sizeof(when), "after %s (before any move)", wp_text[p->sh->wp]);
	pc_compare_write_faults(p->rw_faults, p->protected_rw, p->n, (__u64)(uintptr_t)p->pl.src,
				when, m);
	p->a->judged[p->s_fault] = true;
	pc_oracle_appendf(m, "; the protection left pages writable: nothing moved");
	for (int i = 0; i < p->a->n; i++)
		if (!p->a->judged[i])
			pc_slot_skip(p->a, i,
				     "not moved: the protection left pages writable (the "
				     "write-fault oracle failed)");
	return 1;
}

/* The rewrites and the state they leave: 0, 1 when the state was not made
   (every slot skipped), or pc_skip_rest's -errno. */
static int make_state(struct perms *p, enum folios_seen *fs)
{
	struct pc_smaps sm;
	const char *why;
	bool retry;
	int ret = mr_snap_take(&p->pre, p->ctx, p->pl.src, false);

	if (ret)
		return pc_skip_rest(p->a, "pagemap", -ret);
	rewrite(p);
	ret = mr_snap_take(&p->state, p->ctx, p->pl.src, true);
	if (!ret)
		ret = pc_smaps_read(0, (__u64)(uintptr_t)p->pl.src, &sm);
	if (ret)
		return pc_skip_rest(p->a, "pagemap/smaps", -ret);
	p->pmd_kb = sm.anon_huge_kb + sm.file_pmd_kb;
	count_state(p);
	*fs = mr_folios_formed(&p->state, &p->count);
	why = state_missing(p, *fs, &retry);
	if (!why)
		return 0;
	if (why == STATE_CONTRADICTED)
		return judge_rewrites(p);
	pc_skip_all(p->a, why);
	p->a->retry = retry;
	return 1;
}

/* The two moves, then a write to every page counting its faults: 0, or
   pc_skip_rest's -errno. */
static int move_and_write(struct perms *p)
{
	size_t len = p->n * PAGE;
	bool moved = false;
	int ret = mr_move_fixed(p->pl.src, len, p->pl.dst);

	if (!ret)
		ret = mr_move_snapped(p->ctx, &p->ms, p->pl.dst, len, p->pl.src, false, true,
				      &moved);
	if (ret)
		return pc_skip_rest(p->a, moved ? "pagemap after the moves" : "mremap", -ret);
	for (size_t i = 0; i < p->n; i++)
		p->faults[i] = (__u32)write_counted(p, i, SALT_A);
	pc_window_end(p->ctx, &p->a->win, &p->a->disturbed);
	if (p->sh->wp == WP_UFFD && pc_uffd_error(&p->uffd))
		return pc_skip_rest(p->a, "uffd reader", pc_uffd_error(&p->uffd));
	return 0;
}

/* The verdicts, and what the state was (short: the summaries of the
   scenarios share one line). */
static void judge(struct perms *p, enum folios_seen fs)
{
	struct pc_oracle_msg *m = &p->a->msg[p->s_fault];
	__u64 addr = (__u64)(uintptr_t)p->pl.src;

	pc_compare_write_faults(p->faults, p->ro, p->n, addr, "at the move", m);
	p->a->judged[p->s_fault] = true;
	pc_oracle_appendf(m, "; %s%s%s", wp_text[p->sh->wp], p->fs ? " on " : "",
			  p->fs ? p->fs : "");
	if (p->state.order_err == 0 && p->state.order[0] != PC_FOLIO_ORDER_NONE)
		pc_oracle_appendf(m, ", %u-page folio", 1U << p->state.order[0]);
	else
		pc_oracle_appendf(m, ", %s", mr_folios_text(fs));
	if (p->sh->wp == WP_UFFD)
		pc_oracle_appendf(m, ", %llu REMAP events",
				  (unsigned long long)pc_uffd_remaps(&p->uffd));
	mr_judge_moved(p->a, p->s_moved, &p->state, &p->ms.after, &p->ms.vacated, addr, addr);
	pc_oracle_appendf(&p->a->msg[p->s_moved], " (moved away and back)");
	mr_judge_folios(p->a, p->s_folio, p->ctx->have_kpageflags, &p->state, &p->ms.after, true,
			addr, addr);
}

static int perms_start(struct perms *p, struct pc_scenario_ctx *ctx, const struct shape *sh,
		       struct pc_attempt *a)
{
	memset(p, 0, sizeof(*p));
	p->ctx = ctx;
	p->sh = sh;
	p->a = a;
	p->fd = -1;
	p->uffd.fd = -1;
	p->uffd.reader = -1;
	p->count.name = sh->backing == B_ANON ? "anon_fault_alloc" : "file_alloc";
	p->n = mr_len(ctx, sh) / PAGE;
	p->s_fault = pc_slot_add(a, ctx, PC_CHK_PERMS, TIER_WRITE_FAULT);
	p->s_moved = pc_slot_add(a, ctx, PC_CHK_MOVED, TIER_PAGEMAP);
	p->s_folio = pc_slot_add(a, ctx, PC_CHK_FOLIO_INTACT, TIER_KPAGEFLAGS);
	p->ro = calloc(p->n, sizeof(*p->ro));
	p->faults = calloc(p->n, sizeof(*p->faults));
	p->protected_rw = calloc(p->n, sizeof(*p->protected_rw));
	p->rw_faults = calloc(p->n, sizeof(*p->rw_faults));
	if (!p->ro || !p->faults || !p->protected_rw || !p->rw_faults ||
	    mr_snap_alloc(&p->pre, p->n) || mr_snap_alloc(&p->state, p->n) ||
	    mr_move_snaps_alloc(&p->ms, p->n))
		return pc_skip_rest(a, "calloc", ENOMEM);
	if (sh->wp == WP_NOTIFY && !ctx->blockfs_dir) {
		snprintf(p->why, sizeof(p->why), "no block filesystem for the file: %s",
			 ctx->blockfs_why ? ctx->blockfs_why : "not prepared");
		pc_skip_all(a, p->why);
		return 1;
	}
	return 0;
}

static void perms_end(struct perms *p)
{
	pc_window_end(p->ctx, &p->a->win, &p->a->disturbed);
	if (p->sh->wp == WP_UFFD)
		pc_uffd_close(&p->uffd);
	mr_place_release(&p->pl);
	if (p->fd >= 0)
		close(p->fd);
	free(p->ro);
	free(p->faults);
	free(p->protected_rw);
	free(p->rw_faults);
	mr_snap_free(&p->pre);
	mr_snap_free(&p->state);
	mr_move_snaps_free(&p->ms);
}

int mr_measure_perms(struct pc_scenario_ctx *ctx, const struct shape *sh, struct pc_attempt *a)
{
	enum folios_seen fs = FOLIOS_UNKNOWN;
	struct perms p;
	int ret = perms_start(&p, ctx, sh, a);

	if (!ret)
		ret = map_protected(&p);
	if (!ret)
		ret = make_state(&p, &fs);
	if (!ret)
		ret = move_and_write(&p);
	if (!ret)
		judge(&p, fs);
	perms_end(&p);
	return ret < 0 ? ret : 0;
}
