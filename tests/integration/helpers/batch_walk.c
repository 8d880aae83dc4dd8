// SPDX-License-Identifier: GPL-2.0
/*
 * A workload of known shape for the batch path's derived source
 * (tests/integration/test_batch_walk.sh): N 64 KiB-aligned blocks of
 * anonymous memory, written; how many became one order-4 folio each (a
 * head and 15 tails of consecutive PFNs, /proc/self/pagemap and
 * /proc/kpageflags) in the first and second half; then mprotect of 8
 * pages inside block 0 and of all,
 * MADV_DONTNEED of the second half, mlock and munlock of the first, and
 * munmap of all.  Prints "first F second S block0 B" (the order-4 folios of
 * each half; B 1 when block 0 is one) on stdout.  Exit 0, 1 on error.  Needs root (PFNs).
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define BLOCK	 (64 * 1024UL)
#define PAGES	 (BLOCK / 4096)
#define KPF_HEAD (1ULL << 15) /* KPF_COMPOUND_HEAD */
#define KPF_TAIL (1ULL << 16) /* KPF_COMPOUND_TAIL */
#define PFN_MASK ((1ULL << 55) - 1)
#define PRESENT	 (1ULL << 63)

static int pagemap_fd, kpageflags_fd;

static int pfn_flags(const char *addr, uint64_t *pfn, uint64_t *flags)
{
	uint64_t e;

	if (pread(pagemap_fd, &e, 8, (off_t)((uintptr_t)addr / 4096) * 8) != 8 || !(e & PRESENT))
		return -1;
	*pfn = e & PFN_MASK;
	return pread(kpageflags_fd, flags, 8, (off_t)*pfn * 8) == 8 ? 0 : -1;
}

/* Is the block at b one order-4 folio: its own head, 15 tails, and the
   page after it no tail of the same folio? */
static int one_folio(const char *b, int last)
{
	uint64_t pfn0, pfn, f;

	if (pfn_flags(b, &pfn0, &f) || !(f & KPF_HEAD))
		return 0;
	for (unsigned long i = 1; i < PAGES; i++)
		if (pfn_flags(b + i * 4096, &pfn, &f) || !(f & KPF_TAIL) || pfn != pfn0 + i)
			return 0;
	if (last || pfn_flags(b + BLOCK, &pfn, &f))
		return 1;
	return !(f & KPF_TAIL) || pfn != pfn0 + PAGES;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 16, half = n / 2, first = 0, second = 0, block0;
	char *raw, *m;

	pagemap_fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	kpageflags_fd = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);
	if (n < 2 || pagemap_fd < 0 || kpageflags_fd < 0)
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
	for (int i = 0; i < n; i++) {
		if (i < half)
			first += one_folio(m + i * BLOCK, i == n - 1);
		else
			second += one_folio(m + i * BLOCK, i == n - 1);
	}
	block0 = one_folio(m, 0);
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
