// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <unistd.h>
#include "tracefs.h"

#define TRACEFS "/sys/kernel/tracing"

static bool mounted_by_us;

static void unmount_tracefs(void)
{
	if (mounted_by_us && umount2(TRACEFS, MNT_DETACH) == 0)
		mounted_by_us = false;
}

int pc_tracefs_ensure(void)
{
	if (access(TRACEFS "/events", F_OK) == 0)
		return 0;
	if (mount("nodev", TRACEFS, "tracefs", 0, NULL))
		return -errno;
	mounted_by_us = true;
	atexit(unmount_tracefs);
	return 0;
}

bool pc_tracepoint_exists(const char *cat_event)
{
	char path[256];

	snprintf(path, sizeof(path), TRACEFS "/events/%s/id", cat_event);
	return access(path, F_OK) == 0;
}
