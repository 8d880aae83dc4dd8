// SPDX-License-Identifier: GPL-2.0
/* Verdicts from the scenario child to the parent, through the report pipe. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <sys/syscall.h>

#include "scenario.h"

void pc_oracle_report(const struct pc_scenario_ctx *ctx, const struct pc_oracle_msg *msg)
{
	struct pc_oracle_msg m = *msg;
	const char *p = (const char *)&m;
	size_t left = sizeof(m);

	if (!ctx || ctx->report_fd < 0)
		return;
	/* The parent files a verdict under its scenario: never leave it unnamed. */
	if (!m.scenario[0] && ctx->scenario)
		strncpy(m.scenario, ctx->scenario, sizeof(m.scenario) - 1);
	m.scenario[sizeof(m.scenario) - 1] = 0;
	m.tier[sizeof(m.tier) - 1] = 0;
	m.summary[sizeof(m.summary) - 1] = 0;
	m.pid = getpid();
	/* One message is below PIPE_BUF, so a pipe takes it whole; loop anyway. */
	while (left > 0) {
		ssize_t w = write(ctx->report_fd, p, left);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return; /* parent gone: nobody to tell */
		}
		p += w;
		left -= (size_t)w;
	}
}

#define MTHP_STATS "/sys/kernel/mm/transparent_hugepage/hugepages-64kB/stats/"

int pc_mthp_stat(const char *name, __u64 *v)
{
	char path[128], buf[32];
	ssize_t r;
	int fd;

	snprintf(path, sizeof(path), MTHP_STATS "%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (r <= 0)
		return -EIO;
	buf[r] = 0;
	*v = strtoull(buf, NULL, 10);
	return 0;
}

static int disturb_slot(int map_fd, __u32 key, __u64 *val)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.map_fd = (__u32)map_fd;
	attr.key = (__u64)(uintptr_t)&key;
	attr.value = (__u64)(uintptr_t)val;
	if (syscall(__NR_bpf, BPF_MAP_LOOKUP_ELEM, &attr, sizeof(attr)) < 0)
		return -errno;
	return 0;
}

/*
 * The BPF disturbance generation, by raw bpf(2): scenario children need no
 * libbpf.  Returns 1 while a long operation (reclaim, compaction,
 * migration, swapoff) is in progress: no window overlapping one is quiet.
 */
static int disturb_read(int map_fd, __u64 *gen)
{
	__u64 busy = 0;
	int err = disturb_slot(map_fd, 0, gen);

	if (!err)
		err = disturb_slot(map_fd, 1, &busy);
	return err ? err : busy != 0;
}

/*
 * System-wide migration, reclaim and split events from /proc/vmstat and the
 * 64 KiB mTHP split counter: a userspace second opinion next to the BPF
 * counter, and the only one without BPF.  Global, so it errs towards
 * "disturbed", which can only turn a failure into a retry or a SKIP.
 */
static const char *const vmstat_disturb[] = {
	"pgmigrate_success", "pgmigrate_fail", "thp_migration_success", "thp_migration_split",
	"pgsteal_kswapd",    "pgsteal_direct", "pgsteal_khugepaged",	"thp_split_page",
};

static int vmstat_events(__u64 *sum)
{
	char line[128], name[64];
	unsigned long long v;
	__u64 split = 0;
	FILE *f = fopen("/proc/vmstat", "re");

	if (!f)
		return -errno;
	*sum = 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s %llu", name, &v) != 2)
			continue;
		for (size_t i = 0; i < sizeof(vmstat_disturb) / sizeof(vmstat_disturb[0]); i++)
			if (strcmp(name, vmstat_disturb[i]) == 0)
				*sum += v;
	}
	fclose(f);
	if (pc_mthp_stat("split", &split) == 0)
		*sum += split;
	return 0;
}

void pc_window_begin(const struct pc_scenario_ctx *ctx, struct pc_window *w, bool *disturbed)
{
	w->open = true;
	/* Cannot prove quiet: treat as disturbed. */
	if (vmstat_events(&w->vmstat_start) < 0)
		*disturbed = true;
	if (ctx->disturb_map_fd >= 0 && disturb_read(ctx->disturb_map_fd, &w->bpf_start) != 0)
		*disturbed = true;
}

void pc_window_end(const struct pc_scenario_ctx *ctx, struct pc_window *w, bool *disturbed)
{
	__u64 now;

	if (!w->open)
		return;
	w->open = false;
	if (ctx->disturb_map_fd >= 0 &&
	    (disturb_read(ctx->disturb_map_fd, &now) != 0 || now != w->bpf_start))
		*disturbed = true;
	if (vmstat_events(&now) < 0 || now != w->vmstat_start)
		*disturbed = true;
}
