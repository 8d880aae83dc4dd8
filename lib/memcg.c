// SPDX-License-Identifier: GPL-2.0
/*
 * A memory cgroup of this process's own (memcg.h).  The child is made
 * under the v2 root, not under the process's own cgroup: a cgroup that
 * holds processes cannot give its children a controller ("no internal
 * processes"), and the root's children have the memory controller where
 * systemd (or guest/init) enabled it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "memcg.h"
#include "settings.h"

#define MC_PATH 512

static struct {
	char dir[MC_PATH];	  /* the cgroup made */
	char procs[MC_PATH + 16]; /* its cgroup.procs */
	char home[MC_PATH + 16];  /* cgroup.procs of the process's own */
	char pid[24];
	pid_t owner;
	int jid;
	volatile sig_atomic_t entered;
} mc = {.jid = -1};

bool pc_memcg_mountinfo_line(const char *line, char *mnt, size_t len)
{
	char root[MC_PATH], point[MC_PATH], fstype[64];
	const char *sep = strstr(line, " - ");

	/* "ID PARENT MAJ:MIN ROOT POINT OPTIONS [OPTIONAL...] - FSTYPE ..." */
	if (!sep || sscanf(sep + 3, "%63s", fstype) != 1 || strcmp(fstype, "cgroup2"))
		return false;
	if (sscanf(line, "%*s %*s %*s %511s %511s", root, point) != 2)
		return false;
	/* A cgroup namespace's or a bind mount's view is not the root. */
	if (strcmp(root, "/") || pc_journal_unescape(point) || strlen(point) >= len)
		return false;
	snprintf(mnt, len, "%s", point);
	return true;
}

bool pc_memcg_v2_path(const char *text, char *path, size_t len)
{
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		size_t n = strcspn(l, "\n");

		if (n >= 3 && !strncmp(l, "0::", 3) && n - 3 < len) {
			memcpy(path, l + 3, n - 3);
			path[n - 3] = '\0';
			return true;
		}
	}
	return false;
}

/* The v2 root: $PTECHECK_CGROUP_ROOT, or the first cgroup2 mount. */
static int find_root(char *root, size_t len, char *why, size_t why_len)
{
	const char *env = getenv("PTECHECK_CGROUP_ROOT");
	char *line = NULL;
	size_t cap = 0;
	bool found = false;
	FILE *f;

	if (env && *env) {
		snprintf(root, len, "%s", env);
		return 0;
	}
	f = fopen("/proc/self/mountinfo", "re");
	if (!f) {
		snprintf(why, why_len, "/proc/self/mountinfo: %s", strerror(errno));
		return -errno;
	}
	while (!found && getline(&line, &cap, f) > 0)
		found = pc_memcg_mountinfo_line(line, root, len);
	free(line);
	fclose(f);
	if (found)
		return 0;
	snprintf(why, why_len, "no cgroup v2 hierarchy mounted at its root");
	return -ENOENT;
}

/* Whether a space-separated controller list names "memory". */
static bool has_memory(const char *list)
{
	for (const char *p = list; (p = strstr(p, "memory")); p += 6)
		if ((p == list || p[-1] == ' ') && (p[6] == '\0' || p[6] == ' '))
			return true;
	return false;
}

/* The process's own cgroup.procs under root into mc.home. */
static int find_home(const char *root, char *why, size_t why_len)
{
	char text[4096], path[MC_PATH];
	int err = pc_read_file("/proc/self/cgroup", text, sizeof(text));

	if (err) {
		snprintf(why, why_len, "/proc/self/cgroup: %s", strerror(-err));
		return err;
	}
	if (!pc_memcg_v2_path(text, path, sizeof(path))) {
		snprintf(why, why_len, "/proc/self/cgroup names no cgroup v2 path");
		return -ENOENT;
	}
	if ((size_t)snprintf(mc.home, sizeof(mc.home), "%s%s/cgroup.procs", root,
			     strcmp(path, "/") ? path : "") >= sizeof(mc.home)) {
		snprintf(why, why_len, "cgroup path %s: %s", path, strerror(ENAMETOOLONG));
		return -ENAMETOOLONG;
	}
	return 0;
}

/* The new cgroup made, journaled; 0 or -errno with why set. */
static int make_dir(const char *root, char *why, size_t why_len)
{
	char reclaim[MC_PATH + 16];
	int err;

	mc.owner = getpid();
	snprintf(mc.pid, sizeof(mc.pid), "%d", (int)mc.owner);
	if ((size_t)snprintf(mc.dir, sizeof(mc.dir), "%s/ptecheck-memcg.%s", root, mc.pid) >=
	    sizeof(mc.dir)) {
		snprintf(why, why_len, "cgroup root %s: %s", root, strerror(ENAMETOOLONG));
		return -ENAMETOOLONG;
	}
	snprintf(mc.procs, sizeof(mc.procs), "%s/cgroup.procs", mc.dir);
	err = pc_journal_add(&mc.jid, "dir", mc.dir, NULL);
	if (err) {
		snprintf(why, why_len, "journal: %s", pc_journal_error());
		return err;
	}
	/* One of an earlier process of this pid (SIGKILL) is empty: reuse. */
	if (mkdir(mc.dir, 0755) && errno != EEXIST) {
		err = -errno;
		snprintf(why, why_len, "mkdir %s: %s", mc.dir, strerror(-err));
		pc_journal_drop(mc.jid);
		mc.jid = -1;
		return err;
	}
	snprintf(reclaim, sizeof(reclaim), "%s/memory.reclaim", mc.dir);
	if (access(reclaim, W_OK)) {
		err = errno == ENOENT ? -EOPNOTSUPP : -errno;
		snprintf(why, why_len, "%s: %s", reclaim,
			 err == -EOPNOTSUPP ? "no proactive reclaim of a cgroup (v5.19 on)"
					    : strerror(-err));
		rmdir(mc.dir);
		pc_journal_drop(mc.jid);
		mc.jid = -1;
		return err;
	}
	return 0;
}

int pc_memcg_enter(char *why, size_t why_len)
{
	char root[MC_PATH], ctl[MC_PATH + 32], list[256];
	sigset_t old;
	int err;

	if (mc.entered) {
		snprintf(why, why_len, "a memory cgroup is entered already (%s)", mc.dir);
		return -EBUSY;
	}
	err = find_root(root, sizeof(root), why, why_len);
	if (err)
		return err;
	snprintf(ctl, sizeof(ctl), "%s/cgroup.subtree_control", root);
	err = pc_read_file(ctl, list, sizeof(list));
	if (err) {
		snprintf(why, why_len, "%s: %s", ctl, strerror(-err));
		return err;
	}
	if (!has_memory(list)) {
		snprintf(why, why_len,
			 "the cgroup v2 root (%s) gives its children no memory controller "
			 "(cgroup.subtree_control \"%s\"; cgroup v1's, or not enabled)",
			 root, list);
		return -EOPNOTSUPP;
	}
	err = find_home(root, why, why_len);
	if (err)
		return err;
	/* Registered before anything exists, so nothing is made unguarded. */
	err = pc_settings_add_undo(pc_memcg_leave);
	if (err) {
		snprintf(why, why_len, "registering the removal: %s", strerror(-err));
		return err;
	}
	pc_block_fatal_signals(&old);
	err = make_dir(root, why, why_len);
	if (!err) {
		mc.entered = 1;
		err = pc_write_file(mc.procs, mc.pid);
		if (err) {
			snprintf(why, why_len, "moving pid %s into %s: %s", mc.pid, mc.dir,
				 strerror(-err));
			pc_memcg_leave();
		}
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return err;
}

int pc_memcg_reclaim(size_t bytes, char *why, size_t why_len)
{
	char path[MC_PATH + 16], amount[32];
	int err;

	if (!mc.entered) {
		snprintf(why, why_len, "no memory cgroup entered");
		return -EINVAL;
	}
	snprintf(path, sizeof(path), "%s/memory.reclaim", mc.dir);
	snprintf(amount, sizeof(amount), "%zu", bytes);
	err = pc_write_file(path, amount);
	if (err && err != -EAGAIN) {
		snprintf(why, why_len, "write %s to %s: %s", amount, path, strerror(-err));
		return err;
	}
	return 0;
}

/* Writes s to path: 0 or -errno.  Async-signal-safe. */
static int put(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, s, strlen(s)) < 0)
		err = -errno;
	close(fd);
	return err;
}

int pc_memcg_leave(void)
{
	int err = 0, rc;

	if (!mc.entered)
		return 0;
	/* Only the process that entered (a forked child inherits mc). */
	if (getpid() != mc.owner)
		return 0;
	rc = put(mc.home, mc.pid);
	if (rc)
		err = rc;
	/* One not removed stays journaled, for `ptecheck restore`. */
	if (!rmdir(mc.dir) || errno == ENOENT)
		pc_journal_done(mc.jid);
	else if (!err)
		err = -errno;
	mc.jid = -1;
	mc.entered = 0;
	atomic_signal_fence(memory_order_release);
	rc = pc_journal_sync();
	return err ? err : rc;
}

const char *pc_memcg_dir(void)
{
	return mc.entered ? mc.dir : NULL;
}
