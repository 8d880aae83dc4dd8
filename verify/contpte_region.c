// SPDX-License-Identifier: GPL-2.0
/*
 * The contpte suite's region: 64 KiB blocks in 1 MiB anonymous chunks, the
 * calls that rewrite, lock and reclaim all of it, its smaps counts, and
 * whether its blocks really are 64 KiB folios.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "contpte_int.h"
#include "procmm.h"

size_t cp_scaled_blocks(const struct pc_scenario_ctx *ctx, unsigned int full)
{
	unsigned int s = ctx->scale ? ctx->scale : 1;
	size_t n = full / s;

	if (n < 16)
		n = 16;
	if (n > (size_t)MAX_CHUNKS * CHUNK_BLOCKS)
		n = (size_t)MAX_CHUNKS * CHUNK_BLOCKS;
	return n & ~(size_t)1; /* pattern and control blocks alternate */
}

char *cp_block_addr(const struct region *r, size_t b)
{
	return r->chunk[b / CHUNK_BLOCKS] + (b % CHUNK_BLOCKS) * BLOCK;
}

char *cp_page_addr(const struct region *r, size_t b, int k)
{
	return cp_block_addr(r, b) + (size_t)k * PAGE;
}

static size_t chunk_len(const struct region *r, int c)
{
	size_t left = r->nblocks - (size_t)c * CHUNK_BLOCKS;

	return (left < CHUNK_BLOCKS ? left : CHUNK_BLOCKS) * BLOCK;
}

void cp_region_release(struct region *r)
{
	pc_resv_release(&r->resv);
	memset(r, 0, sizeof(*r));
}

/*
 * nblocks 64 KiB blocks in chunks of at most 1 MiB, each chunk a VMA of its
 * own at 512 KiB past a 2 MiB boundary: every block 64 KiB aligned, and no
 * PMD-sized THP can take the place of the 64 KiB folios.
 */
static int region_map(struct region *r, size_t nblocks)
{
	char *base;
	int ret;

	memset(r, 0, sizeof(*r));
	r->nblocks = nblocks;
	r->nchunks = (int)((nblocks + CHUNK_BLOCKS - 1) / CHUNK_BLOCKS);
	base = pc_resv_map(&r->resv, ((size_t)r->nchunks + 1) * PMD);
	if (!base)
		return -errno;
	for (int c = 0; c < r->nchunks; c++) {
		r->chunk[c] = base + (size_t)c * PMD + CHUNK_OFF;
		ret = pc_map_fixed(r->chunk[c], chunk_len(r, c), -1, MADV_HUGEPAGE);
		if (ret)
			return ret;
	}
	return 0;
}

int cp_region_madvise(const struct region *r, int advice)
{
	for (int c = 0; c < r->nchunks; c++)
		if (madvise(r->chunk[c], chunk_len(r, c), advice))
			return -errno;
	return 0;
}

/*
 * PROT_READ and back: mprotect rewrites every block from its gathered value
 * (modify_prot_start_ptes = get_and_clear, then set_ptes) and flushes the
 * TLB, so no later access goes through a translation cached before.
 */
int cp_region_bounce(const struct region *r)
{
	for (int c = 0; c < r->nchunks; c++)
		if (mprotect(r->chunk[c], chunk_len(r, c), PROT_READ) ||
		    mprotect(r->chunk[c], chunk_len(r, c), PROT_READ | PROT_WRITE))
			return -errno;
	return 0;
}

int cp_region_protect_page(const struct region *r, int k, int prot)
{
	for (size_t b = 0; b < r->nblocks; b += 2)
		if (mprotect(cp_page_addr(r, b, k), PAGE, prot))
			return -errno;
	return 0;
}

int cp_region_mlock(const struct region *r, bool lock, bool misaligned)
{
	for (int c = 0; c < r->nchunks; c++) {
		size_t cut = misaligned ? PAGE : 0;
		char *p = r->chunk[c] + cut;
		size_t len = chunk_len(r, c) - 2 * cut;

		/* The system calls: ASan's mlock() and munlock() do nothing. */
		int ret = lock ? pc_mlock(p, len) : pc_munlock(p, len);

		if (ret)
			return ret;
	}
	return 0;
}

/* Sums a smaps field over every VMA of every chunk (mlock may split them). */
enum smaps_field { SM_REFERENCED, SM_LOCKED };

static int region_smaps(const struct region *r, enum smaps_field f, __u64 *kb)
{
	*kb = 0;
	for (int c = 0; c < r->nchunks; c++) {
		__u64 addr = (__u64)(uintptr_t)r->chunk[c], end = addr + chunk_len(r, c);

		while (addr < end) {
			struct pc_smaps sm;
			int ret = pc_smaps_read(0, addr, &sm);

			if (ret)
				return ret;
			*kb += f == SM_REFERENCED ? sm.referenced_kb : sm.locked_kb;
			if (sm.end <= addr)
				return -EIO;
			addr = sm.end;
		}
	}
	return 0;
}

int cp_region_locked_kb(const struct region *r, __u64 *kb)
{
	return region_smaps(r, SM_LOCKED, kb);
}

int cp_region_referenced_pages(const struct region *r, __u64 *pages)
{
	int ret = region_smaps(r, SM_REFERENCED, pages);

	*pages /= PAGE / KIB;
	return ret;
}

int cp_region_locked_reads(const struct region *r)
{
	__u64 kb, pm[CONT];
	int ret = region_smaps(r, SM_REFERENCED, &kb);

	for (size_t b = 0; b < r->nblocks && !ret; b++)
		ret = pc_pagemap_read(0, (__u64)(uintptr_t)cp_block_addr(r, b), CONT, pm);
	return ret;
}

/*
 * Blocks that are exactly one naturally aligned 64 KiB folio: 16 PFNs in a
 * row from a 16-aligned PFN, each page of order 4 (kpageflags).  -errno when
 * that cannot be told (no kpageflags, PFNs hidden, a folio changing).
 */
static long region_64k_blocks(const struct pc_scenario_ctx *ctx, const struct region *r,
			      size_t *pattern_64k)
{
	__u64 pm[CONT], pfn[CONT];
	__u32 order[CONT];
	long n = 0;

	*pattern_64k = 0;
	if (!ctx->have_kpageflags)
		return -EACCES;
	for (size_t b = 0; b < r->nblocks; b++) {
		struct pc_pte pte[CONT];
		bool ok = true;
		int ret = pc_pagemap_read(0, (__u64)(uintptr_t)cp_block_addr(r, b), CONT, pm);

		if (ret)
			return ret;
		if (!pc_pagemap_pfns_visible(pm, CONT))
			return pc_pagemap_count_present(pm, CONT) ? -EPERM : 0;
		pc_pagemap_to_ptes(pm, CONT, pte);
		for (int i = 0; i < CONT; i++)
			pfn[i] = pte[i].kind == PC_PTE_PRESENT ? pte[i].pfn : 0;
		ret = pc_folio_orders(pfn, CONT, order);
		if (ret)
			return ret;
		for (int i = 0; i < CONT && ok; i++)
			ok = pfn[i] && pfn[i] == pfn[0] + (__u64)i && order[i] == 4;
		ok = ok && pfn[0] % CONT == 0;
		n += ok;
		if (ok && b % 2 == 0)
			(*pattern_64k)++;
	}
	return n;
}

/* Why the region cannot carry the probe, or NULL: its pattern blocks are 64 KiB folios. */
static const char *folios_missing(const struct pc_scenario_ctx *ctx, const struct region *r,
				  char *buf, size_t len, size_t *pattern_64k)
{
	long n = region_64k_blocks(ctx, r, pattern_64k);

	if (n < 0) {
		snprintf(buf, len, "cannot tell whether 64 KiB folios formed: %s",
			 n == -EACCES  ? "/proc/kpageflags not readable (needs root)"
			 : n == -EPERM ? "PFNs hidden by pagemap (no CAP_SYS_ADMIN)"
				       : strerror((int)-n));
		return buf;
	}
	/* Half the pattern blocks at least: a few fallbacks to small pages are fine. */
	if (*pattern_64k * 4 < r->nblocks) {
		snprintf(buf, len,
			 "no 64 KiB folios formed: %zu of %zu pattern blocks are 64 KiB folios "
			 "(kpageflags)",
			 *pattern_64k, r->nblocks / 2);
		return buf;
	}
	return NULL;
}

int cp_region_start(struct pc_scenario_ctx *ctx, struct pc_attempt *a, struct region *r,
		    size_t nblocks, size_t *pattern_64k)
{
	char why[200];
	int ret = region_map(r, nblocks);

	*pattern_64k = 0;
	if (ret)
		return pc_skip_rest(a, "mmap/madvise(MADV_HUGEPAGE)", -ret);
	pc_window_begin(ctx, &a->win, &a->disturbed);
	for (size_t b = 0; b < nblocks; b++)
		for (int k = 0; k < CONT; k++)
			memset(cp_page_addr(r, b, k), pc_page_byte(b * CONT + (size_t)k, SALT_A),
			       PAGE);
	if (folios_missing(ctx, r, why, sizeof(why), pattern_64k)) {
		pc_skip_all(a, why);
		return 1;
	}
	return 0;
}
