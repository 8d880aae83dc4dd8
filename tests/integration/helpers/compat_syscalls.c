// SPDX-License-Identifier: GPL-2.0
/*
 * compat_syscalls: N 32-bit syscalls numbered as mremap is in the 64-bit
 * table (int $0x80, eax 25: stime(NULL) in i386's, failing with EFAULT),
 * then one 64-bit mremap that moves.  Traced, mremap's histograms must
 * count exactly one call: the raw_syscalls programs dispatch on the
 * number, and a compat syscall's is of another table.
 * Usage: compat_syscalls [N]; exit 0, or 4 without IA32 emulation.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

static long int80(long nr, long arg)
{
	long ret;

	__asm__ volatile("int $0x80" : "=a"(ret) : "a"(nr), "b"(arg) : "memory");
	return ret;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 50;
	size_t page = 4096;
	char *p, *q;

	/* i386's 20 is getpid: a number above 0 when IA32 emulation is on. */
	if (int80(20, 0) <= 0) {
		fprintf(stderr, "compat_syscalls: no IA32 emulation here\n");
		return 4;
	}
	for (int i = 0; i < n; i++)
		if (int80(25, 0) != -EFAULT) {
			fprintf(stderr,
				"compat_syscalls: i386 stime(NULL) did not fail with EFAULT\n");
			return 1;
		}
	p = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 1;
	p[0] = 1;
	/* Growing with the next page unmapped makes it move. */
	munmap(p + page, page);
	q = mremap(p, page, 64 * page, MREMAP_MAYMOVE);
	if (q == MAP_FAILED)
		return 1;
	printf("%d compat syscalls, 1 mremap (%s)\n", n, q == p ? "in place" : "moved");
	return 0;
}
