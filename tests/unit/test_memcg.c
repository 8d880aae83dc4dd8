// SPDX-License-Identifier: GPL-2.0
/*
 * A memory cgroup of the process's own (lib/memcg.c): the mountinfo and
 * /proc/self/cgroup parsers, and enter/reclaim/leave in a fake cgroup root
 * (PTECHECK_CGROUP_ROOT, plain directories): a root without the memory
 * controller and a child without memory.reclaim refuse with nothing left
 * behind; a child with the files is entered (pid in its cgroup.procs),
 * reclaims through memory.reclaim, and leaves (pid written home, the
 * directory and the journal gone).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fake_file.h"
#include "memcg.h"
#include "settings.h"
#include "tap.h"

static char root[64], home[600];

static bool put(const char *dir, const char *file, const char *text)
{
	char path[700];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return fake_put(path, text);
}

static bool reads(const char *dir, const char *file, const char *want)
{
	char path[700];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return fake_reads(path, want);
}

static void parsers(void)
{
	char mnt[64], path[64];

	TAP_CHECK(pc_memcg_mountinfo_line("30 23 0:26 / /sys/fs/cgroup rw,nosuid shared:4 - "
					  "cgroup2 cgroup2 rw,nsdelegate\n",
					  mnt, sizeof(mnt)) &&
			  !strcmp(mnt, "/sys/fs/cgroup"),
		  "mountinfo: a cgroup2 root mount gives its point");
	TAP_CHECK(pc_memcg_mountinfo_line("31 23 0:27 / /mnt/cg\\040two rw - cgroup2 none rw\n",
					  mnt, sizeof(mnt)) &&
			  !strcmp(mnt, "/mnt/cg two"),
		  "mountinfo: the point unescaped");
	TAP_CHECK(!pc_memcg_mountinfo_line("32 23 0:28 /user.slice /sys/fs/cgroup rw - cgroup2 "
					   "cgroup2 rw\n",
					   mnt, sizeof(mnt)),
		  "mountinfo: a namespace's or bind mount's view (root not /) is not taken");
	TAP_CHECK(!pc_memcg_mountinfo_line("33 23 0:29 / /sys/fs/cgroup/memory rw - cgroup "
					   "cgroup rw,memory\n",
					   mnt, sizeof(mnt)),
		  "mountinfo: cgroup v1 is not taken");
	TAP_CHECK(!pc_memcg_mountinfo_line("garbage", mnt, sizeof(mnt)), "mountinfo: no separator");
	TAP_CHECK(pc_memcg_v2_path("4:memory:/x\n0::/user.slice/a.scope\n", path, sizeof(path)) &&
			  !strcmp(path, "/user.slice/a.scope"),
		  "/proc/self/cgroup: the v2 line of a hybrid");
	TAP_CHECK(!pc_memcg_v2_path("4:memory:/x\n1:cpu:/\n", path, sizeof(path)),
		  "/proc/self/cgroup: no v2 line");
}

/* root/PATH of this process's own cgroup, made, into home. */
static bool make_home(void)
{
	char text[4096], path[256];

	if (pc_read_file("/proc/self/cgroup", text, sizeof(text)) ||
	    !pc_memcg_v2_path(text, path, sizeof(path)))
		return false;
	snprintf(home, sizeof(home), "%s%s", root, strcmp(path, "/") ? path : "");
	return !fake_mkdirs(home, strlen(root)) && put(home, "cgroup.procs", "");
}

int main(void)
{
	char why[600], child[128], pid[24], journal[64];
	int err;

	tap_plan(0);
	parsers();
	snprintf(root, sizeof(root), "/tmp/ptecheck-memcg.XXXXXX");
	if (!mkdtemp(root) || !make_home()) {
		tap_skip("cannot make a fake cgroup root under /tmp");
		return tap_finish();
	}
	setenv("PTECHECK_CGROUP_ROOT", root, 1);
	snprintf(child, sizeof(child), "%s/ptecheck-memcg.%d", root, (int)getpid());
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	snprintf(journal, sizeof(journal), "/run/ptecheck/journal.%d", (int)getpid());

	put(root, "cgroup.subtree_control", "cpu io pids\n");
	err = pc_memcg_enter(why, sizeof(why));
	TAP_CHECK(err == -EOPNOTSUPP && strstr(why, "no memory controller") && access(child, F_OK),
		  "no memory controller for the root's children: refused, nothing made");

	put(root, "cgroup.subtree_control", "cpu memory pids\n");
	err = pc_memcg_enter(why, sizeof(why));
	TAP_CHECK(err == -EOPNOTSUPP && strstr(why, "memory.reclaim") && access(child, F_OK) &&
			  !pc_memcg_dir(),
		  "a child without memory.reclaim: refused, the child removed");
	tap_diag("%s", why);

	/* A child with cgroupfs's files, as the kernel makes them. */
	TAP_CHECK(!mkdir(child, 0755) && put(child, "memory.reclaim", "") &&
			  put(child, "cgroup.procs", ""),
		  "fake child with its files");
	err = pc_memcg_enter(why, sizeof(why));
	TAP_CHECK(err == 0 && pc_memcg_dir() && !strcmp(pc_memcg_dir(), child) &&
			  reads(child, "cgroup.procs", pid),
		  "entered: the pid written to the child's cgroup.procs");
	TAP_CHECK(pc_memcg_enter(why, sizeof(why)) == -EBUSY, "a second enter: EBUSY");
	TAP_CHECK(pc_memcg_reclaim(65536, why, sizeof(why)) == 0 &&
			  reads(child, "memory.reclaim", "65536"),
		  "reclaim: the bytes written to memory.reclaim");
	/* cgroupfs removes its files with the directory; a plain one cannot. */
	unlink(strcat(strcpy(why, child), "/memory.reclaim"));
	unlink(strcat(strcpy(why, child), "/cgroup.procs"));
	TAP_CHECK(pc_memcg_leave() == 0 && access(child, F_OK) &&
			  reads(home, "cgroup.procs", pid) && !pc_memcg_dir() &&
			  access(journal, F_OK),
		  "left: pid written home, the child and the journal gone");
	TAP_CHECK(pc_memcg_leave() == 0, "leave again: a no-op");
	TAP_CHECK(pc_memcg_reclaim(4096, why, sizeof(why)) == -EINVAL,
		  "reclaim with none entered: EINVAL");

	unlink(strcat(strcpy(why, home), "/cgroup.procs"));
	unlink(strcat(strcpy(why, root), "/cgroup.subtree_control"));
	for (char *p = home + strlen(home); p > home + strlen(root); p--)
		if (*p == '/' || !*p) {
			*p = 0;
			rmdir(home);
		}
	rmdir(root);
	return tap_finish();
}
