// SPDX-License-Identifier: GPL-2.0
/*
 * Record-then-change for system settings.  The old value of each path is
 * stored, already formatted for writing back, before the first change, so
 * that restoring needs only open/write/close and is safe from a signal
 * handler.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "settings.h"

#define PC_MAX_SETTINGS	     64
#define PC_SETTING_PATH_MAX  256
#define PC_SETTING_VALUE_MAX 128
/* sysfs attributes are at most one page. */
#define PC_SYSFS_FILE_MAX 4096

struct pc_setting {
	char path[PC_SETTING_PATH_MAX];
	char old[PC_SETTING_VALUE_MAX];
	size_t old_len;
	/* A forked child inherits the records but must not restore them. */
	pid_t owner;
};

static struct pc_setting settings[PC_MAX_SETTINGS];
/* Bumped only once an entry is complete, so a handler never sees half of one. */
static volatile sig_atomic_t nr_settings;

#define PC_MAX_UNDOS 16

struct pc_undo {
	int (*fn)(void);
	pid_t owner;
};

static struct pc_undo undos[PC_MAX_UNDOS];
static volatile sig_atomic_t nr_undos;

static const int fatal_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

/* Async-signal-safe: used by the restore path as well. */
static int write_value(const char *path, const char *value, size_t len)
{
	ssize_t n;
	int fd, err = 0;

	/* O_TRUNC so a plain file (e.g. a fake sysfs tree) holds only the value. */
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* sysfs takes one write per value: no partial-write loop. */
	do {
		n = write(fd, value, len);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		err = -errno;
	else if ((size_t)n != len)
		err = -EIO;
	if (close(fd) && !err && errno != EINTR)
		err = -errno;
	return err;
}

int pc_read_file(const char *path, char *buf, size_t len)
{
	size_t off = 0;
	ssize_t n;
	int fd, err = 0;

	if (!path || !buf || !len)
		return -EINVAL;
	buf[0] = '\0';
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		if (off == len - 1) {
			char extra;

			/* Full buffer: more data means the caller would get a truncated value. */
			do {
				n = read(fd, &extra, 1);
			} while (n < 0 && errno == EINTR);
			if (n > 0)
				err = -EOVERFLOW;
			else if (n < 0)
				err = -errno;
			break;
		}
		n = read(fd, buf + off, len - 1 - off);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			break;
		}
		if (n == 0)
			break;
		off += (size_t)n;
	}
	close(fd);
	buf[off] = '\0';
	while (off > 0 && buf[off - 1] == '\n')
		buf[--off] = '\0';
	return err;
}

int pc_write_file(const char *path, const char *value)
{
	if (!path || !value)
		return -EINVAL;
	return write_value(path, value, strlen(value));
}

int pc_sysfs_choice(const char *path, char *buf, size_t len)
{
	char content[PC_SYSFS_FILE_MAX];
	const char *start = content, *open_br, *close_br = NULL;
	size_t n;
	int err;

	if (!buf || !len)
		return -EINVAL;
	buf[0] = '\0';
	err = pc_read_file(path, content, sizeof(content));
	if (err)
		return err;
	open_br = strchr(content, '[');
	if (open_br)
		close_br = strchr(open_br + 1, ']');
	if (close_br) {
		start = open_br + 1;
		n = (size_t)(close_br - start);
	} else {
		n = strlen(content);
	}
	if (n >= len)
		return -EOVERFLOW;
	memcpy(buf, start, n);
	buf[n] = '\0';
	return 0;
}

static int find_setting(const char *path, pid_t self)
{
	int i;

	for (i = 0; i < nr_settings; i++)
		if (settings[i].owner == self && !strcmp(settings[i].path, path))
			return i;
	return -1;
}

int pc_setting_set(const char *path, const char *value)
{
	pid_t self = getpid();
	int n = 0, err, recorded = 0;
	struct pc_setting *s;

	if (!path || !value)
		return -EINVAL;
	if (find_setting(path, self) < 0) {
		n = nr_settings;
		if (n >= PC_MAX_SETTINGS)
			return -ENOSPC;
		if (strlen(path) >= sizeof(s->path))
			return -ENAMETOOLONG;
		s = &settings[n];
		/* Choice files are written back as the bare word: "[madvise]" is not accepted. */
		err = pc_sysfs_choice(path, s->old, sizeof(s->old));
		if (err)
			return err;
		strcpy(s->path, path);
		s->old_len = strlen(s->old);
		s->owner = self;
		/* The entry must be complete before a handler can see it. */
		atomic_signal_fence(memory_order_release);
		nr_settings = n + 1;
		recorded = 1;
	}
	err = pc_write_file(path, value);
	/* Nothing changed, so nothing to restore; keeps pc_settings_changed() honest. */
	if (err && recorded && nr_settings == n + 1)
		nr_settings = n;
	return err;
}

int pc_settings_add_undo(int (*undo)(void))
{
	sigset_t block, old;
	pid_t self = getpid();
	int i, n, err = 0;

	if (!undo)
		return -EINVAL;
	/* A handler must not run the list while it grows. */
	sigemptyset(&block);
	for (i = 0; i < (int)(sizeof(fatal_signals) / sizeof(fatal_signals[0])); i++)
		sigaddset(&block, fatal_signals[i]);
	sigprocmask(SIG_BLOCK, &block, &old);
	n = nr_undos;
	for (i = 0; i < n; i++)
		if (undos[i].fn == undo && undos[i].owner == self)
			goto out;
	if (n >= PC_MAX_UNDOS) {
		err = -ENOSPC;
		goto out;
	}
	undos[n].fn = undo;
	undos[n].owner = self;
	atomic_signal_fence(memory_order_release);
	nr_undos = n + 1;
out:
	sigprocmask(SIG_SETMASK, &old, NULL);
	return err;
}

int pc_settings_restore_all(void)
{
	sigset_t block, old;
	pid_t self = getpid();
	size_t i;
	int n, err = 0, rc;

	/* A signal during an atexit() restore waits until the records are consistent. */
	sigemptyset(&block);
	for (i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++)
		sigaddset(&block, fatal_signals[i]);
	sigprocmask(SIG_BLOCK, &block, &old);
	atomic_signal_fence(memory_order_acquire);
	/* Undos first: what they release (mounts) was made under the settings. */
	for (n = nr_undos - 1; n >= 0; n--) {
		if (undos[n].owner != self)
			continue;
		rc = undos[n].fn();
		if (rc && !err)
			err = rc;
	}
	nr_undos = 0;
	for (n = nr_settings - 1; n >= 0; n--) {
		struct pc_setting *s = &settings[n];

		if (s->owner != self)
			continue;
		rc = write_value(s->path, s->old, s->old_len);
		if (rc && !err)
			err = rc;
	}
	nr_settings = 0;
	sigprocmask(SIG_SETMASK, &old, NULL);
	return err;
}

int pc_settings_changed(void)
{
	return nr_settings;
}

static void restore_at_exit(void)
{
	pc_settings_restore_all();
}

static void restore_and_die(int sig)
{
	struct sigaction dfl = {.sa_handler = SIG_DFL};
	sigset_t unblock;

	pc_settings_restore_all();
	/* Die by the same signal so the parent sees WIFSIGNALED, not an exit code. */
	sigemptyset(&dfl.sa_mask);
	sigaction(sig, &dfl, NULL);
	raise(sig);
	sigemptyset(&unblock);
	sigaddset(&unblock, sig);
	sigprocmask(SIG_UNBLOCK, &unblock, NULL);
}

void pc_settings_install_handlers(void)
{
	static int installed;
	struct sigaction sa = {.sa_handler = restore_and_die}, cur;
	size_t i;

	if (installed)
		return;
	installed = 1;
	atexit(restore_at_exit);
	/* Block the other fatal signals so two handlers never interleave. */
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++)
		sigaddset(&sa.sa_mask, fatal_signals[i]);
	for (i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++) {
		/* An ignored signal (nohup, background job) stays ignored. */
		if (!sigaction(fatal_signals[i], NULL, &cur) && cur.sa_handler == SIG_IGN)
			continue;
		sigaction(fatal_signals[i], &sa, NULL);
	}
}

static const char *sysfs_root(void)
{
	const char *root = getenv("PTECHECK_SYSFS_ROOT");

	return root && *root ? root : "/sys";
}

static int set_thp_file(const char *subdir, const char *file, const char *mode)
{
	char path[PC_SETTING_PATH_MAX];
	int n;

	n = snprintf(path, sizeof(path), "%s/kernel/mm/transparent_hugepage/%s%s", sysfs_root(),
		     subdir, file);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	/* An absent file means the kernel lacks this size; say so before recording. */
	if (access(path, F_OK))
		return -errno;
	return pc_setting_set(path, mode);
}

int pc_mthp_set(unsigned int size_kb, int shmem, const char *mode)
{
	char subdir[64];

	snprintf(subdir, sizeof(subdir), "hugepages-%ukB/", size_kb);
	return set_thp_file(subdir, shmem ? "shmem_enabled" : "enabled", mode);
}

int pc_thp_set(const char *mode)
{
	return set_thp_file("", "enabled", mode);
}
