// SPDX-License-Identifier: GPL-2.0
/* Where the mremap scenarios put their mappings, and what backs them. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mremap_int.h"

size_t mr_len(const struct pc_scenario_ctx *ctx, const struct shape *sh)
{
	return pc_scaled_len(ctx, sh->full_len, sh->min_len, sh->align);
}

void mr_fill_pages(char *p, size_t first, size_t npages, __u8 salt)
{
	for (size_t i = 0; i < npages; i++)
		memset(p + i * PAGE, pc_page_byte(first + i, salt), PAGE);
}

void mr_read_pages(const char *p, size_t npages)
{
	const volatile char *v = p;

	for (size_t i = 0; i < npages; i++)
		(void)v[i * PAGE];
}

bool mr_pte_dirty_page(size_t i, size_t npages)
{
	/* One entry per folio, by turns the last, the second, a middle one. */
	static const size_t pos[] = {PAGES_64K - 1, 1, PAGES_64K / 2 - 1};
	size_t f = i / PAGES_64K;

	return i % PAGES_64K == pos[f % 3] && i + PAGES_64K < npages;
}

/*
 * Reserves PROT_NONE address space: the source at a 2 MiB boundary +
 * src_off, the destination at a later 2 MiB boundary + dst_off, a whole
 * PMD apart, so the two never share a page table and nothing (no page
 * table either) exists at the destination before the move.
 */
static int place_reserve(struct place *pl, size_t len, size_t src_off, size_t dst_off)
{
	size_t span_src = ALIGN_UP(src_off + len, PMD);
	size_t span_dst = ALIGN_UP(dst_off + len, PMD);
	char *base;

	memset(pl, 0, sizeof(*pl));
	base = pc_resv_map(&pl->resv, PMD + span_src + PMD + span_dst + PMD);
	if (!base)
		return -errno;
	pl->src = base + src_off;
	pl->dst = base + span_src + PMD + dst_off;
	pl->len = len;
	return 0;
}

void mr_place_release(struct place *pl)
{
	pc_resv_release(&pl->resv);
}

/*
 * The file's folios read in (clean) through a mapping at the 64 KiB
 * boundary below src, which the kernel's fault wants congruent with the
 * file offset, then that address space PROT_NONE again: 0 or -errno.
 */
static int form_aligned(const struct shape *sh, const struct place *pl, int fd)
{
	char *at = pl->src - (uintptr_t)pl->src % FOLIO_64K;
	int ret = pc_map_fixed(at, pl->len, fd, sh->advice);

	if (ret)
		return ret;
	mr_read_pages(at, pl->len / PAGE);
	if (mmap(at, pl->len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED,
		 -1, 0) == MAP_FAILED)
		return -errno;
	return 0;
}

int mr_source_map(struct pc_scenario_ctx *ctx, const struct shape *sh, struct pc_attempt *a,
		  struct place *pl, size_t dst_off, int fd, struct mthp_count *count)
{
	size_t len = mr_len(ctx, sh);
	int ret = place_reserve(pl, len, sh->src_off, dst_off);

	if (ret)
		return pc_skip_rest(a, "mmap reservation", -ret);
	count->ok = pc_mthp_stat(count->name, &count->before) == 0;
	pc_window_begin(ctx, &a->win, &a->disturbed);
	ret = sh->form_aligned ? form_aligned(sh, pl, fd) : 0;
	if (ret)
		return pc_skip_rest(a, "mmap/madvise of the aligned mapping", -ret);
	ret = pc_map_fixed(pl->src, len, fd, sh->advice);
	if (ret)
		return pc_skip_rest(a, "mmap/madvise source", -ret);
	if (!sh->read_fault) {
		mr_fill_pages(pl->src, 0, len / PAGE, SALT_A);
		return 0;
	}
	mr_read_pages(pl->src, len / PAGE);
	/* No fault now (the PTEs are writable, no write-notify): only the
	   PTEs' dirty bits know these pages were written. */
	for (size_t i = 0; sh->pte_dirty && i < len / PAGE; i++)
		if (mr_pte_dirty_page(i, len / PAGE))
			mr_fill_pages(pl->src + i * PAGE, i, 1, SALT_A);
	return 0;
}

int mr_move_fixed(char *from, size_t len, char *to)
{
	void *r = mremap(from, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, to);

	if (r == MAP_FAILED)
		return -errno;
	return r == to ? 0 : -EFAULT;
}

/* fd (or -errno) made len bytes long; closed when that fails. */
static int sized(int fd, size_t len)
{
	int err;

	if (fd < 0 || !ftruncate(fd, (off_t)len))
		return fd;
	err = errno;
	close(fd);
	return -err;
}

int mr_open_file_in(const char *dir, size_t len)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/ptecheck-file-XXXXXX", dir);
	fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	unlink(path); /* the fd is all we need; nothing left behind */
	return sized(fd, len);
}

int mr_open_backing(const struct pc_scenario_ctx *ctx, enum backing b, size_t len)
{
	int fd;

	if (b == B_FILE)
		return mr_open_file_in(ctx->tmpdir && *ctx->tmpdir ? ctx->tmpdir : "/tmp", len);
	fd = memfd_create("ptecheck-shmem", MFD_CLOEXEC);
	return sized(fd < 0 ? -errno : fd, len);
}
