// SPDX-License-Identifier: GPL-2.0
/*
 * A workload of known shape for the batch path's derived source
 * (tests/integration/test_batch_walk.sh): N 64 KiB-aligned blocks of
 * anonymous memory, written; how many became one order-4 folio each (a
 * head and 15 tails: the workloads' census, lib/procmm.c, of
 * /proc/self/pagemap and /proc/kpageflags) in the first and second half; then mprotect of 8
 * pages inside block 0 and of all,
 * MADV_DONTNEED of the second half, mlock and munlock of the first, and
 * munmap of all.  Prints "first F second S block0 B" (the order-4 folios of
 * each half; B 1 when block 0 is one) on stdout.  Exit 0, 1 on error.  Needs root (PFNs).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include "procmm.h"

#define BLOCK (64 * 1024UL)
#define PAGES (BLOCK / 4096)

/* Order-4 folios in the n blocks from b (lib/procmm.c's census: a folio
   the range cuts counts the pages inside it, so a block of a larger one
   is not counted as one). */
static int folios_64k(const char *b, int n)
{
	unsigned long long hist[6]; /* order 5 holds the larger ones */
	char why[160];

	if (pc_folio_census(b, n * PAGES, 4096, hist, 5, why, sizeof(why))) {
		fprintf(stderr, "batch_walk_shape: %s\n", why);
		exit(1);
	}
	return (int)hist[4];
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 16, half = n / 2, first, second, block0;
	char *raw, *m;

	if (n < 2)
		return 1;
	raw = mmap(NULL, (n + 1) * BLOCK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		   0);
	if (raw == MAP_FAILED)
		return 1;
	/* Aligned, and its own mapping: the slack on either side goes. */
	m = (char *)(((uintptr_t)raw + BLOCK - 1) & ~(BLOCK - 1));
	if (m > raw)
		munmap(raw, m - raw);
	if (m + n * BLOCK < raw + (n + 1) * BLOCK)
		munmap(m + n * BLOCK, raw + (n + 1) * BLOCK - (m + n * BLOCK));
	for (unsigned long off = 0; off < n * BLOCK; off += 4096)
		m[off] = 1;
	first = folios_64k(m, half);
	second = folios_64k(m + half * BLOCK, n - half);
	block0 = folios_64k(m, 1);
	/* Pages 4..11 of block 0 first: a run the range ends (8); then, in
	   the whole range, read-only pages amid writable ones (4, 8, 4: the
	   kernel's mprotect compares the write bit, and the VMAs split). */
	if (mprotect(m + 4 * 4096, 8 * 4096, PROT_READ) || mprotect(m, n * BLOCK, PROT_READ) ||
	    madvise(m + half * BLOCK, (n - half) * BLOCK, MADV_DONTNEED) ||
	    mlock(m, half * BLOCK) || munlock(m, half * BLOCK) || munmap(m, n * BLOCK))
		return 1;
	printf("first %d second %d block0 %d\n", first, second, block0);
	return 0;
}
