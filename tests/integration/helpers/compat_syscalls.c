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
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

static long int80(long nr, long arg)
{
	long ret;

	__asm__ volatile("int $0x80" : "=a"(ret) : "a"(nr), "b"(arg) : "memory");
	return ret;
}

static sigjmp_buf probe_env;

static void probe_fault(int sig)
{
	siglongjmp(probe_env, sig);
}

/*
 * i386's 20 is getpid: a number above 0 when IA32 emulation takes int
 * $0x80.  Where it does not (ia32_emulation=0, or a hypervisor such as
 * this project's CI host, CONFIG_IA32_EMULATION=y and yet no vector 0x80
 * for user mode) the instruction faults: SIGSEGV, caught and said.
 */
static int ia32_works(void)
{
	struct sigaction sa = {.sa_handler = probe_fault}, old;
	volatile int ok = 0; /* read after a siglongjmp */
	int sig;

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSEGV, &sa, &old))
		return 0;
	sig = sigsetjmp(probe_env, 1);
	if (!sig)
		ok = int80(20, 0) > 0;
	sigaction(SIGSEGV, &old, NULL);
	if (sig)
		fprintf(stderr,
			"compat_syscalls: int $0x80 raised signal %d: no i386 syscalls here\n",
			sig);
	else if (!ok)
		fprintf(stderr, "compat_syscalls: i386 getpid failed: no IA32 emulation here\n");
	return ok;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 50;
	size_t page = 4096;
	char *p, *q;

	if (!ia32_works())
		return 4;
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
