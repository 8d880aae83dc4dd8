// SPDX-License-Identifier: GPL-2.0
/*
 * The filemap suite's backing files (memfd, the huge tmpfs, ext4, the
 * tmpdir) filled with a pattern, and the read-only mapping each attempt
 * faults, with its pagemap and folios.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include "filemap_fs.h"
#include "filemap_int.h"
#include "fullio.h"

/* Distinct 8-byte words per page index: a page mapped at the wrong index shows. */
static void fill_expect(unsigned char *buf, size_t len)
{
	for (size_t pg = 0; pg < len / PAGE; pg++) {
		__u64 *w = (__u64 *)(buf + pg * PAGE);

		for (size_t k = 0; k < PAGE / 8; k++)
			w[k] = 0xa5ULL << 56 | (__u64)pg << 16 | k;
	}
}

/* The directory a backing's file lives in; NULL with the reason in why. */
static const char *backing_dir(const struct pc_scenario_ctx *ctx, enum fm_backing b, char *why,
			       size_t why_len)
{
	switch (b) {
	case FB_TMPFS_HUGE:
		if (!ctx->shmem_huge_dir)
			snprintf(why, why_len, "no huge=within_size tmpfs: %s",
				 ctx->shmem_huge_why ? ctx->shmem_huge_why : "not prepared");
		return ctx->shmem_huge_dir;
	case FB_BLOCKFS:
		if (!ctx->blockfs_dir)
			snprintf(why, why_len, "no ext4 scratch filesystem: %s",
				 ctx->blockfs_why ? ctx->blockfs_why : "not prepared");
		return ctx->blockfs_dir;
	default:
		return ctx->tmpdir && *ctx->tmpdir ? ctx->tmpdir : "/tmp";
	}
}

/*
 * What the file is, by statfs and mountinfo, never by the backing meant:
 * a "blockfs" directory on memory (a guest whose scratch disk did not
 * mount) is said and skipped, not judged as ext4 with shmem's exemptions.
 */
static int file_judge_fs(const struct fm_shape *sh, struct fm_file *f, char *why, size_t why_len)
{
	struct pc_fs_info fi;
	char desc[96];
	int ret = pc_fs_probe_fd(f->fd, &fi);

	if (ret)
		return ret;
	f->shmem = fi.shmem;
	if (sh->backing == FB_BLOCKFS && !pc_fs_is_block(&fi)) {
		snprintf(why, why_len,
			 "the block filesystem's directory is on %s, which has no "
			 "block device",
			 pc_fs_describe(&fi, desc, sizeof(desc)));
		return 1;
	}
	if (sh->backing == FB_TMPFS_HUGE)
		snprintf(f->what_buf, sizeof(f->what_buf), "%s huge=within_size", fi.type);
	else if (sh->backing == FB_BLOCKFS)
		snprintf(f->what_buf, sizeof(f->what_buf), "%s", fi.type);
	else
		snprintf(f->what_buf, sizeof(f->what_buf), "tmpdir file (%s)", fi.type);
	f->what = f->what_buf;
	return 0;
}

const char *fm_scenario_name(const struct pc_scenario_ctx *ctx, const struct fm_shape *sh,
			     char *buf, size_t len)
{
	struct pc_fs_info fi;

	if (sh->backing != FB_BLOCKFS || !ctx->blockfs_dir || pc_fs_probe(ctx->blockfs_dir, &fi))
		return ctx->scenario;
	/* "magic 0x..." (no mountinfo line) is no name: keep the table's. */
	if (strchr(fi.type, ' '))
		return ctx->scenario;
	snprintf(buf, len, "%s-%s", sh->stem, fi.type);
	return buf;
}

int fm_file_open(const struct pc_scenario_ctx *ctx, const struct fm_shape *sh, struct fm_file *f,
		 char *why, size_t why_len)
{
	const char *dir;
	char path[4096];

	f->pin[0] = f->pin[1] = -1;
	if (sh->backing == FB_MEMFD_64K || sh->backing == FB_MEMFD_SMALL) {
		f->fd = memfd_create("ptecheck-filemap", MFD_CLOEXEC);
		f->shmem = true;
		f->what = sh->backing == FB_MEMFD_64K ? "memfd" : "memfd (MADV_NOHUGEPAGE)";
		return f->fd < 0 ? -errno : 0;
	}
	dir = backing_dir(ctx, sh->backing, why, why_len);
	if (!dir)
		return 1;
	snprintf(path, sizeof(path), "%s/ptecheck-filemap-XXXXXX", dir);
	f->fd = mkostemp(path, O_CLOEXEC);
	if (f->fd < 0)
		return -errno;
	unlink(path); /* a fresh file nobody else maps; nothing left behind */
	return file_judge_fs(sh, f, why, why_len);
}

void fm_file_close(struct fm_file *f)
{
	if (f->fd >= 0)
		close(f->fd);
	for (int i = 0; i < 2; i++)
		if (f->pin[i] >= 0)
			close(f->pin[i]);
	free(f->expect);
	memset(f, 0, sizeof(*f));
	f->fd = f->pin[0] = f->pin[1] = -1;
}

/*
 * Writes the pattern: shmem through a 2 MiB-aligned shared mapping (so a
 * fault can allocate 64 KiB or PMD folios; MADV_NOHUGEPAGE for the small
 * control), other files with one pwrite (the write path makes large
 * folios where the filesystem has them), or, with tail_piece, the last
 * 64 KiB in pieces of that size (folios of it).
 */
int fm_file_fill(struct fm_file *f, const struct fm_shape *sh, size_t len)
{
	struct pc_resv resv;
	char *p;
	int ret;

	f->len = f->i_size = len;
	f->expect = malloc(len);
	if (!f->expect)
		return -ENOMEM;
	fill_expect(f->expect, len);
	if (ftruncate(f->fd, (off_t)len))
		return -errno;
	if (!f->shmem && sh->tail_piece && len > FOLIO_64K) {
		ret = pc_pwrite_full(f->fd, f->expect, len - FOLIO_64K, 0);
		for (size_t o = len - FOLIO_64K; !ret && o < len; o += sh->tail_piece)
			ret = pc_pwrite_full(f->fd, f->expect + o, sh->tail_piece, (off_t)o);
		return ret;
	}
	if (!f->shmem)
		return pc_pwrite_full(f->fd, f->expect, len, 0);
	p = pc_resv_map(&resv, len + 2 * PMD);
	if (!p)
		return -errno;
	ret = pc_map_fixed(p, len, f->fd, sh->backing == FB_MEMFD_SMALL ? MADV_NOHUGEPAGE : 0);
	if (!ret)
		memcpy(p, f->expect, len);
	pc_resv_release(&resv);
	return ret;
}

/*
 * A page of EOF's folio is held by a pipe (vmsplice takes a reference), so
 * truncation cannot split the folio: pages past EOF stay in the page
 * cache, where a fault-around that ignored i_size would find them.
 */
int fm_file_truncate_pinned(struct fm_file *f, size_t i_size)
{
	size_t eof_pg = (i_size - 1) / PAGE;
	struct iovec iov;
	char *p;
	int ret = 0;

	p = mmap(NULL, f->len, PROT_READ, MAP_SHARED, f->fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	iov.iov_base = p + eof_pg * PAGE;
	iov.iov_len = PAGE;
	if (pipe2(f->pin, O_CLOEXEC | O_NONBLOCK) || vmsplice(f->pin[1], &iov, 1, 0) != PAGE)
		ret = -errno;
	munmap(p, f->len);
	if (!ret && ftruncate(f->fd, (off_t)i_size))
		ret = -errno;
	if (!ret)
		f->i_size = i_size;
	return ret;
}

int fm_map_place(struct fm_map *m, int fd, size_t off, size_t len, size_t va_off)
{
	size_t n = len / PAGE;
	char *base;
	void *p;

	memset(m, 0, sizeof(*m));
	m->pm = calloc(n + 2 * NEIGHBOURS, sizeof(*m->pm));
	m->pte = calloc(n, sizeof(*m->pte));
	m->head = calloc(n, sizeof(*m->head));
	m->nr = calloc(n, sizeof(*m->nr));
	m->premap = calloc(n, sizeof(*m->premap));
	if (!m->pm || !m->pte || !m->head || !m->nr || !m->premap)
		return -ENOMEM;
	/* PROT_NONE all around: a PTE there could only be fault-around's. */
	base = pc_resv_map(&m->resv, len + 4 * PMD);
	if (!base)
		return -errno;
	m->addr = base + PMD + off % PMD + va_off;
	m->len = len;
	m->npages = n;
	m->off = off;
	m->first_idx = off / PAGE;
	if (munmap(m->addr, len))
		return -errno;
	p = mmap(m->addr, len, PROT_READ, MAP_SHARED | MAP_FIXED_NOREPLACE, fd, (off_t)off);
	if (p == MAP_FAILED)
		return -errno;
	if (p != m->addr) {
		munmap(p, len);
		return -EEXIST;
	}
	return 0;
}

void fm_map_release(struct fm_map *m)
{
	pc_resv_release(&m->resv); /* the VMA lies inside */
	free(m->pm);
	free(m->pte);
	free(m->head);
	free(m->nr);
	free(m->premap);
	memset(m, 0, sizeof(*m));
}

__u64 fm_va(const struct fm_map *m, size_t i)
{
	return (__u64)(uintptr_t)(m->addr + i * PAGE);
}

int fm_map_snapshot(const struct pc_scenario_ctx *ctx, struct fm_map *m, bool folios)
{
	__u64 h = 0, nr = 0;
	int ret = pc_pagemap_read(0, fm_va(m, 0) - NEIGHBOURS * PAGE, m->npages + 2 * NEIGHBOURS,
				  m->pm);

	if (ret)
		return ret;
	pc_pagemap_to_ptes(m->pm + NEIGHBOURS, m->npages, m->pte);
	memset(m->nr, 0, m->npages * sizeof(*m->nr));
	if (!folios || !ctx->have_kpageflags)
		return 0;
	for (size_t i = 0; i < m->npages; i++) {
		__u64 pfn = m->pte[i].pfn;
		__u32 order;

		if (m->pte[i].kind != PC_PTE_PRESENT || pfn == 0)
			continue;
		if (nr == 0 || pfn < h || pfn >= h + nr) {
			ret = pc_folio_of_pfn(pfn, &h, &order);
			if (ret)
				return ret; /* -ESTALE: changed while read */
			nr = 1ULL << order;
		}
		m->head[i] = h;
		m->nr[i] = nr;
	}
	return 0;
}

size_t fm_map_present(const struct fm_map *m)
{
	return pc_pagemap_count_present(m->pm + NEIGHBOURS, m->npages);
}

size_t fm_page_mismatches(const char *page, __u64 idx, const unsigned char *file, size_t i_size,
			  size_t *first, unsigned char *want)
{
	size_t c = 0, base = idx * PAGE;

	*first = 0;
	for (size_t k = 0; k < PAGE; k++) {
		unsigned char w = base + k < i_size ? file[base + k] : 0;

		if ((unsigned char)page[k] != w && c++ == 0) {
			*first = k;
			if (want)
				*want = w;
		}
	}
	return c;
}
