// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <string.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "measure.h"

__u8 pc_page_byte(size_t page, __u8 salt)
{
	__u8 b = (__u8)(page * 31 + salt);

	return b ? b : 1;
}

bool pc_pin_cpu(cpu_set_t *old)
{
	cpu_set_t one;
	int cpu = sched_getcpu();

	if (cpu < 0 || sched_getaffinity(0, sizeof(*old), old))
		return false;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	return sched_setaffinity(0, sizeof(one), &one) == 0;
}

size_t pc_scaled_len(const struct pc_scenario_ctx *ctx, size_t full, size_t min, size_t granule)
{
	size_t len = full / (ctx->scale ? ctx->scale : 1);

	if (len < min)
		len = min;
	return len & ~(granule - 1);
}

char *pc_resv_map(struct pc_resv *r, size_t len)
{
	r->len = len;
	r->base = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (r->base == MAP_FAILED) {
		r->base = NULL;
		return NULL;
	}
	return (char *)ALIGN_UP((uintptr_t)r->base, PMD);
}

void pc_resv_release(struct pc_resv *r)
{
	if (r->base)
		munmap(r->base, r->len);
	r->base = NULL;
}

int pc_map_fixed(char *addr, size_t len, int fd, int advice)
{
	int flags = MAP_FIXED | (fd >= 0 ? MAP_SHARED : MAP_PRIVATE | MAP_ANONYMOUS);

	if (mmap(addr, len, PROT_READ | PROT_WRITE, flags, fd, 0) == MAP_FAILED)
		return -errno;
	if (advice && madvise(addr, len, advice))
		return -errno;
	return 0;
}

/* ---- probed accesses: SIGBUS and SIGSEGV caught ---------------------------- */

static sigjmp_buf probe_env;
static volatile sig_atomic_t probe_armed;

static void probe_handler(int sig)
{
	if (probe_armed)
		siglongjmp(probe_env, sig);
	signal(sig, SIG_DFL); /* not ours: die as we would have */
	raise(sig);
}

/* One access to *p: a write of v, or a read when v < 0. */
static int probe_access(volatile char *p, int v)
{
	int sig;

	probe_armed = 1;
	sig = sigsetjmp(probe_env, 1);
	if (sig == 0) {
		if (v < 0)
			(void)*p;
		else
			*p = (char)v;
	}
	probe_armed = 0;
	return sig;
}

int pc_probe_read(const volatile char *p)
{
	return probe_access((volatile char *)p, -1);
}

int pc_probe_write(volatile char *p, __u8 v)
{
	return probe_access(p, v);
}

int pc_probe_write_within(volatile char *p, __u8 v, unsigned int seconds)
{
	struct sigaction sa, old;
	int sig;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = probe_handler;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, &old);
	alarm(seconds);
	sig = probe_access(p, v);
	alarm(0);
	sigaction(SIGALRM, &old, NULL);
	return sig;
}

void pc_probe_install(struct pc_probe_handlers *old)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = probe_handler;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, &old->bus);
	sigaction(SIGSEGV, &sa, &old->segv);
}

void pc_probe_restore(const struct pc_probe_handlers *old)
{
	sigaction(SIGBUS, &old->bus, NULL);
	sigaction(SIGSEGV, &old->segv, NULL);
}

__u64 pc_faults_self(void)
{
	struct rusage ru;

	/* RUSAGE_SELF of a valid pointer cannot fail. */
	getrusage(RUSAGE_SELF, &ru);
	return (__u64)ru.ru_minflt + (__u64)ru.ru_majflt;
}

__u64 pc_write_faults(char *at, char byte)
{
	__u64 before = pc_faults_self();

	*(volatile char *)at = byte;
	return pc_faults_self() - before;
}
