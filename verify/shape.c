// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "filemap_fs.h"
#include "fullio.h"
#include "measure.h"
#include "procmm.h"
#include "shape.h"

int pc_folios_alloc(struct pc_folios *f, size_t n, size_t fp)
{
	f->n = n;
	f->fp = fp ? fp : 1;
	f->pagemap = calloc(n, sizeof(*f->pagemap));
	f->pfns = calloc(n, sizeof(*f->pfns));
	f->orders = calloc(n, sizeof(*f->orders));
	f->whole = calloc(n / f->fp + 1, sizeof(*f->whole));
	return f->pagemap && f->pfns && f->orders && f->whole ? 0 : -ENOMEM;
}

void pc_folios_free(struct pc_folios *f)
{
	free(f->pagemap);
	free(f->pfns);
	free(f->orders);
	free(f->whole);
	f->pagemap = f->pfns = NULL;
	f->orders = NULL;
	f->whole = NULL;
}

int pc_folios_read(struct pc_folios *f, const void *base)
{
	int ret = pc_pagemap_read(0, (__u64)(uintptr_t)base, f->n, f->pagemap);
	__u32 order = 0;

	if (ret)
		return ret;
	if (!pc_pagemap_pfns_visible(f->pagemap, f->n))
		return -EPERM;
	while ((1UL << order) < f->fp)
		order++;
	for (size_t i = 0; i < f->n; i++)
		f->pfns[i] = f->pagemap[i] & PC_PM_PRESENT ? f->pagemap[i] & PC_PM_PFN_MASK : 0;
	ret = pc_folio_orders(f->pfns, f->n, f->orders);
	if (ret)
		return ret;
	f->n_whole = 0;
	for (size_t k = 0; k < f->n / f->fp; k++) {
		size_t i0 = k * f->fp;
		bool ok = f->pfns[i0] && f->pfns[i0] % f->fp == 0;

		for (size_t j = 0; ok && j < f->fp; j++)
			ok = f->pfns[i0 + j] == f->pfns[i0] + j && f->orders[i0 + j] == order;
		f->whole[k] = ok;
		f->n_whole += ok;
	}
	return 0;
}

/* r's n pages mapped, nothing touched: 0 or -errno, *what the step. */
static int range_mmap(struct pc_range *r, size_t n, bool shmem, const char **what)
{
	size_t len = n * PAGE;

	r->n = n;
	*what = "mmap";
	r->base = pc_resv_map(&r->resv, len + PMD);
	if (!r->base)
		return -errno;
	if (shmem) {
		*what = "memfd_create/ftruncate";
		r->fd = memfd_create("ptecheck-range", MFD_CLOEXEC);
		if (r->fd < 0 || ftruncate(r->fd, (off_t)len))
			return -errno;
	}
	*what = "mmap";
	return pc_map_fixed(r->base, len, r->fd, r->fd < 0 ? MADV_HUGEPAGE : 0);
}

int pc_range_map(struct pc_range *r, size_t n, bool shmem, size_t off, const char **what)
{
	int ret = range_mmap(r, n, shmem, what);

	if (ret)
		return ret;
	for (size_t i = 0; i < n; i++)
		r->base[i * PAGE + off] = (char)pc_page_byte(i, SALT_A);
	return 0;
}

int pc_range_map_clean(struct pc_range *r, size_t n, const char **what)
{
	int ret = range_mmap(r, n, true, what);

	if (ret)
		return ret;
	for (size_t i = 0; i < n; i++)
		(void)((volatile char *)r->base)[i * PAGE];
	return 0;
}

/* An unlinked file in dir, on a block device: fd, 0 when not (fs says
   what it is on), or -errno. */
static int blockfs_open(const char *dir, char *fs, size_t fs_len)
{
	struct pc_fs_info fi;
	char path[4096], desc[96];
	int fd, ret;

	snprintf(path, sizeof(path), "%s/ptecheck-range-XXXXXX", dir);
	fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	unlink(path); /* nobody else maps it; nothing left behind */
	ret = pc_fs_probe_fd(fd, &fi);
	if (ret) {
		close(fd);
		return ret;
	}
	pc_fs_describe(&fi, desc, sizeof(desc));
	if (!pc_fs_is_block(&fi)) {
		snprintf(fs, fs_len,
			 "the block filesystem's directory is on %s, which has no "
			 "block device",
			 desc);
		close(fd);
		return 0;
	}
	snprintf(fs, fs_len, "%s", desc);
	return fd;
}

int pc_range_file_create(const struct pc_scenario_ctx *ctx, struct pc_range *r, size_t n, size_t fp,
			 size_t off, char *fs, size_t fs_len, const char **what)
{
	size_t chunk = fp * PAGE;
	char *buf;
	int ret;

	if (!ctx->blockfs_dir) {
		snprintf(fs, fs_len, "no block filesystem: %s",
			 ctx->blockfs_why ? ctx->blockfs_why : "not prepared");
		return 1;
	}
	*what = "a file on the block filesystem";
	ret = blockfs_open(ctx->blockfs_dir, fs, fs_len);
	if (ret <= 0)
		return ret ? ret : 1;
	r->fd = ret;
	ret = 0;
	buf = calloc(1, chunk);
	if (!buf)
		return -ENOMEM;
	*what = "pwrite";
	for (size_t i0 = 0; i0 < n && !ret; i0 += fp) {
		for (size_t j = 0; j < fp; j++)
			buf[j * PAGE + off] = (char)pc_page_byte(i0 + j, SALT_A);
		ret = pc_pwrite_full(r->fd, buf, chunk, (off_t)(i0 * PAGE));
	}
	free(buf);
	if (ret)
		return ret;
	*what = "fsync";
	return fsync(r->fd) ? -errno : 0;
}

int pc_range_file_for(const struct pc_scenario_ctx *ctx, struct pc_attempt *a, struct pc_range *r,
		      size_t n, size_t fp, size_t off, char *fs, size_t fs_len)
{
	const char *what;
	int ret = pc_range_file_create(ctx, r, n, fp, off, fs, fs_len, &what);

	if (ret > 0) {
		pc_skip_all(a, fs);
		return 1;
	}
	return ret ? pc_skip_rest(a, what, -ret) : 0;
}

int pc_range_map_file(struct pc_range *r, size_t n, size_t off, const char **what)
{
	int ret;

	r->n = n;
	*what = "mmap";
	r->base = pc_resv_map(&r->resv, n * PAGE + PMD);
	if (!r->base)
		return -errno;
	ret = pc_map_fixed(r->base, n * PAGE, r->fd, 0);
	if (ret)
		return ret;
	for (size_t i = 0; i < n; i++)
		(void)((volatile char *)r->base)[i * PAGE + off];
	return 0;
}

int pc_range_misalign(struct pc_range *r)
{
	size_t len = r->n * PAGE, fold = 16 * PAGE;
	char *to = pc_resv_map(&r->moved, len + PMD + 2 * fold), *got;

	if (!to)
		return -errno;
	to += fold + PAGE; /* 64 KiB aligned (a 2 MiB boundary), plus 4 KiB */
	got = mremap(r->base, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, to);
	if (got == MAP_FAILED)
		return -errno;
	r->base = got;
	return 0;
}

void pc_range_release(struct pc_range *r)
{
	pc_resv_release(&r->moved);
	pc_resv_release(&r->resv);
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
}

int pc_split_pmd_mapping(char *base)
{
	if (mprotect(base, PAGE, PROT_READ) || mprotect(base, PAGE, PROT_READ | PROT_WRITE))
		return -errno;
	return 0;
}

long pc_pages_cached(const void *addr, size_t n, unsigned char *vec)
{
	long c = 0;

	if (mincore((void *)addr, n * PAGE, vec))
		return -errno;
	for (size_t i = 0; i < n; i++)
		c += vec[i] & 1;
	return c;
}

int pc_folios_read_for(struct pc_attempt *a, const struct pc_scenario_ctx *ctx, struct pc_folios *f,
		       const void *base, const char *no_folio)
{
	int ret = pc_folios_read(f, base);

	if (ret == -EPERM || (!ret && !ctx->have_kpageflags)) {
		pc_skip_all(a, "PFNs and folios not visible (pagemap, kpageflags: needs root)");
		return 1;
	}
	if (ret == -ESTALE) {
		a->retry = true;
		return pc_skip_rest(a, "kpageflags changed while read (split or reclaim)", ESTALE);
	}
	if (ret)
		return pc_skip_rest(a, "pagemap/kpageflags", -ret);
	if (!f->n_whole) {
		pc_skip_all(a, no_folio);
		return 1;
	}
	return 0;
}

int pc_lazyfree_whole(struct pc_attempt *a, const void *base, size_t n)
{
	struct pc_smaps sm;
	int ret = pc_smaps_read(0, (__u64)(uintptr_t)base, &sm);

	if (ret)
		return pc_skip_rest(a, "smaps", -ret);
	if (sm.lazyfree_kb * KIB < n * PAGE) {
		char why[120];

		snprintf(why, sizeof(why),
			 "MADV_FREE left %llu of %zu kB lazyfree (PTEs not all cleaned)",
			 (unsigned long long)sm.lazyfree_kb, n * PAGE / KIB);
		pc_skip_all(a, why);
		a->retry = true;
		return 1;
	}
	return 0;
}

int pc_madv_free_whole(struct pc_attempt *a, void *base, size_t n)
{
	if (madvise(base, n * PAGE, MADV_FREE))
		return pc_skip_rest(a, errno == EINVAL ? "MADV_FREE unsupported" : "MADV_FREE",
				    errno);
	return pc_lazyfree_whole(a, base, n);
}

bool pc_mthp_on(const struct pc_scenario_ctx *ctx, struct pc_attempt *a, bool shmem,
		unsigned int kb)
{
	bool on = kb == 16 ? (shmem ? ctx->mthp_shmem_16k : ctx->mthp_anon_16k)
			   : (shmem ? ctx->mthp_shmem_64k : ctx->mthp_anon_64k);
	char why[128];

	if (on)
		return true;
	snprintf(why, sizeof(why), "%u KiB %s mTHP not enabled (hugepages-%ukB/%s)", kb,
		 shmem ? "shmem" : "anonymous", kb, shmem ? "shmem_enabled" : "enabled");
	pc_skip_all(a, why);
	return false;
}

bool pc_mthp_64k_on(const struct pc_scenario_ctx *ctx, struct pc_attempt *a, bool shmem)
{
	return pc_mthp_on(ctx, a, shmem, 64);
}

size_t pc_anon_mthp_pages(const struct pc_scenario_ctx *ctx, struct pc_attempt *a, unsigned int kb,
			  size_t granule)
{
	const size_t fp = kb * KIB / PAGE;

	if (!pc_mthp_on(ctx, a, false, kb))
		return 0;
	return pc_scaled_len(ctx, 1 * MIB, 4 * fp * PAGE, granule * fp * PAGE) / PAGE;
}

size_t pc_anon_64k_pages(const struct pc_scenario_ctx *ctx, struct pc_attempt *a, size_t granule)
{
	return pc_anon_mthp_pages(ctx, a, 64, granule);
}

size_t pc_pos_index(enum pc_pos pos, size_t n)
{
	switch (pos) {
	case PC_POS_FIRST:
		return 0;
	case PC_POS_SECOND:
		return 1;
	case PC_POS_MIDDLE:
		return n / 2;
	default:
		return n - 1;
	}
}

const char *pc_pos_name(enum pc_pos pos)
{
	static const char *const names[] = {
		[PC_POS_FIRST] = "first",
		[PC_POS_SECOND] = "second",
		[PC_POS_MIDDLE] = "middle",
		[PC_POS_LAST] = "last",
	};

	return pos <= PC_POS_LAST ? names[pos] : "?";
}

/* The pages RssAnon grew by when n anonymous pages were touched. */
static long rss_anon_probe(size_t n)
{
	struct pc_status_rss a, b;
	char *p = mmap(NULL, n * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long got = -1;

	if (p == MAP_FAILED)
		return -1;
	madvise(p, n * PAGE, MADV_NOHUGEPAGE);
	if (pc_status_rss_read(0, &a) == 0) {
		for (size_t i = 0; i < n; i++)
			((volatile char *)p)[i * PAGE] = 1;
		if (pc_status_rss_read(0, &b) == 0)
			got = (long)((b.anon_kb - a.anon_kb) / (PAGE / KIB));
	}
	munmap(p, n * PAGE);
	return got;
}

bool pc_rss_exact(struct pc_rss_calib *c)
{
	(void)rss_anon_probe(5); /* warm-up: stack, code */
	for (c->rounds = 1; c->rounds <= 3; c->rounds++) {
		c->seen37 = rss_anon_probe(37);
		c->seen23 = rss_anon_probe(23);
		if (c->seen37 == 37 && c->seen23 == 23)
			return true;
	}
	c->rounds = 3;
	return false;
}

int pc_range_map_64k(const struct pc_scenario_ctx *ctx, struct pc_attempt *a, struct pc_range *r,
		     struct pc_folios *fo, size_t off)
{
	const char *what;
	char no_folio[80];
	int ret = pc_range_map(r, fo->n, false, off, &what);

	if (ret)
		return pc_skip_rest(a, what, -ret);
	snprintf(no_folio, sizeof(no_folio),
		 "no %zu KiB folio formed whole (mTHP fell back to small folios)",
		 fo->fp * PAGE / KIB);
	return pc_folios_read_for(a, ctx, fo, r->base, no_folio);
}

int pc_lazyfree_pattern(const struct pc_scenario_ctx *ctx, struct pc_attempt *a, struct pc_range *r,
			struct pc_folios *fo, size_t p, size_t off, bool misaligned)
{
	size_t n = fo->n, fp = fo->fp;
	int ret = pc_range_map_64k(ctx, a, r, fo, off);

	if (ret)
		return ret;
	if (misaligned) {
		ret = pc_range_misalign(r);
		if (ret)
			return pc_skip_rest(a, "mremap (4 KiB off 64 KiB)", -ret);
	}
	ret = pc_madv_free_whole(a, r->base, n);
	if (ret)
		return ret;
	for (size_t f = 0; f < n / fp; f += 2)
		r->base[(f * fp + p) * PAGE + off] = (char)pc_page_byte(f * fp + p, SALT_B);
	return 0;
}

int pc_fork_exit(void)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (pid == 0)
		_exit(0); /* its copy of the range goes with it */
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return 0;
}

int pc_node_reclaim(const void *addr, size_t bytes, char *why, size_t why_len)
{
	void *pages[1] = {(void *)addr};
	int status[1] = {-1}, fd, ret = 0, node = 0;
	char path[96], amount[32];

	/* move_pages with no target nodes reports each page's node. */
	if (syscall(SYS_move_pages, 0, 1UL, pages, NULL, status, 0) == 0 && status[0] >= 0)
		node = status[0];
	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/reclaim", node);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		snprintf(why, why_len, "%s: %s", path,
			 ret == -ENOENT
				 ? "no proactive reclaim of one node in this kernel (v6.17 on)"
				 : strerror(-ret));
		return ret;
	}
	snprintf(amount, sizeof(amount), "%zu", bytes);
	if (write(fd, amount, strlen(amount)) < 0 && errno != EAGAIN) {
		ret = -errno;
		snprintf(why, why_len, "write %s to %s: %s", amount, path, strerror(-ret));
	}
	close(fd);
	return ret;
}

void pc_skip_rss_inexact(struct pc_attempt *a, int slot, const struct pc_rss_calib *c)
{
	pc_slot_skip(a, slot,
		     "RSS not exact (anonymous pages touched, %d rounds: 37 read +%ld, 23 read "
		     "+%ld in the last): RSS counters read approximately on this kernel "
		     "(/proc/pid/status not summed per CPU), or sanitizer shadow pages",
		     c->rounds, c->seen37, c->seen23);
}
