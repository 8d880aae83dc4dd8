// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <sys/mman.h>

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
