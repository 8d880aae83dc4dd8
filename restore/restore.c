// SPDX-License-Identifier: GPL-2.0
/*
 * ptecheck restore: undoes what a killed (SIGKILL, crash) ptecheck run or
 * workload left changed, from the journals in /run/ptecheck (see
 * lib/settings.h for the format).  Journals whose owner still runs (same
 * pid, same start time, same boot) are left alone unless --force.  The
 * records of the rest are undone newest first, across journals (a workload
 * under a run changes what the run changed), and a journal is removed once
 * all of it is undone, else rewritten with what is left.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <linux/loop.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "restore.h"
#include "settings.h"

#define EXIT_LEFT 1 /* something could not be undone */
#define EXIT_IO	  3 /* a journal could not be read */
/* A journal holds at most a few hundred short lines. */
#define JOURNAL_FILE_MAX (1 << 20)

enum { R_PENDING, R_DONE, R_LEFT, R_BAD };

struct rec {
	unsigned long long time;
	unsigned long long start;
	unsigned int seq; /* file order, for records of the same nanosecond */
	int j;		  /* index of its journal */
	int state;
	pid_t pid;
	char boot[40];
	char kind[16];
	char a1[PC_JOURNAL_ARG_MAX], a2[PC_JOURNAL_ARG_MAX];
	char line[PC_JOURNAL_LINE_MAX];
};

struct journal {
	char name[64];
	pid_t pid;
	unsigned long long start;
	char boot[40];
	bool tmp;	 /* a rewrite's leftover temporary file */
	bool has_owner;	 /* a record named its start time and boot */
	bool alive;	 /* the owner still runs */
	bool act;	 /* undone by this restore */
	bool unreadable; /* left as it is */
	int nrec, torn;
};

struct state {
	int dfd;
	bool dry, force;
	char boot[40];
	struct journal *j;
	int nj;
	struct rec *r;
	int nr;
	int undone, left, io_err;
};

#define say(fmt, ...)  printf("ptecheck: restore: " fmt "\n", ##__VA_ARGS__)
#define warn(fmt, ...) fprintf(stderr, "ptecheck: restore: " fmt "\n", ##__VA_ARGS__)

static const struct {
	const char *kind;
	int args;
} kinds[] = {
	{"set", 2}, {"mount", 2}, {"loop", 2}, {"file", 1}, {"dir", 1}, {"tmpdir", 1},
};

/* "journal.PID" or "journal.PID.tmp"; the pid, or 0 for another name. */
static pid_t journal_pid(const char *name, bool *tmp)
{
	const char *p = name + strlen(PC_JOURNAL_PREFIX);
	char *end;
	long pid;

	if (strncmp(name, PC_JOURNAL_PREFIX, strlen(PC_JOURNAL_PREFIX)) || *p < '1' || *p > '9')
		return 0;
	pid = strtol(p, &end, 10);
	if (pid <= 0 || pid > 0x3fffffff)
		return 0;
	*tmp = !strcmp(end, ".tmp");
	if (*end && !*tmp)
		return 0;
	return (pid_t)pid;
}

/* Parses one line (newline removed) into r; 0, or -EINVAL with why set. */
static int parse_line(char *line, struct rec *r, char *why, size_t len)
{
	char *f[9], *save = NULL, *end;
	int n = 0, args = -1;
	size_t i;

	for (char *t = strtok_r(line, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
		if (n == 9) {
			snprintf(why, len, "too many fields");
			return -EINVAL;
		}
		f[n++] = t;
	}
	if (n < 7 || strcmp(f[0], PC_JOURNAL_VERSION)) {
		snprintf(why, len, "not a %s record", PC_JOURNAL_VERSION);
		return -EINVAL;
	}
	errno = 0;
	r->time = strtoull(f[1], &end, 10);
	if (errno || *end)
		goto bad_number;
	r->pid = (pid_t)strtol(f[2], &end, 10);
	if (errno || *end || r->pid <= 0)
		goto bad_number;
	r->start = strtoull(f[3], &end, 10);
	if (errno || *end)
		goto bad_number;
	snprintf(r->boot, sizeof(r->boot), "%s", f[4]);
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(f[5], kinds[i].kind))
			args = kinds[i].args;
	if (args < 0 || n != 6 + args) {
		snprintf(why, len, "unknown record kind or wrong field count (%s)", f[5]);
		return -EINVAL;
	}
	snprintf(r->kind, sizeof(r->kind), "%s", f[5]);
	if (strlen(f[6]) >= sizeof(r->a1) || (args > 1 && strlen(f[7]) >= sizeof(r->a2))) {
		snprintf(why, len, "field too long");
		return -EINVAL;
	}
	strcpy(r->a1, f[6]);
	strcpy(r->a2, args > 1 ? f[7] : "");
	if (pc_journal_unescape(r->a1) || pc_journal_unescape(r->a2)) {
		snprintf(why, len, "bad escape");
		return -EINVAL;
	}
	/* Every path acted on must be absolute: no record means the cwd. */
	if (r->a1[0] != '/') {
		snprintf(why, len, "%s is not an absolute path", r->a1);
		return -EINVAL;
	}
	return 0;
bad_number:
	snprintf(why, len, "bad number");
	return -EINVAL;
}

static struct rec *new_rec(struct state *st)
{
	struct rec *r;

	if (st->nr % 64 == 0) {
		r = realloc(st->r, (size_t)(st->nr + 64) * sizeof(*r));
		if (!r)
			return NULL;
		st->r = r;
	}
	r = &st->r[st->nr];
	memset(r, 0, sizeof(*r));
	return r;
}

/* Reads a journal whole; only root may have written it. */
static int read_journal(struct state *st, const char *name, char **out, size_t *out_len, char *why,
			size_t len)
{
	struct stat sb;
	size_t off = 0;
	ssize_t n;
	char *buf;
	int fd, err;

	fd = openat(st->dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		snprintf(why, len, "opening %s/%s: %s", PC_JOURNAL_DIR, name, strerror(errno));
		return err;
	}
	if (fstat(fd, &sb)) {
		err = -errno;
		snprintf(why, len, "stat %s/%s: %s", PC_JOURNAL_DIR, name, strerror(errno));
		close(fd);
		return err;
	}
	if (!S_ISREG(sb.st_mode) || sb.st_uid != 0 || (sb.st_mode & 077) ||
	    sb.st_size > JOURNAL_FILE_MAX) {
		snprintf(why, len,
			 "%s/%s is not a root-owned private regular file of at most %d bytes: "
			 "refusing to act on it",
			 PC_JOURNAL_DIR, name, JOURNAL_FILE_MAX);
		close(fd);
		return -EPERM;
	}
	buf = malloc((size_t)sb.st_size + 1);
	if (!buf) {
		close(fd);
		snprintf(why, len, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	while (off < (size_t)sb.st_size) {
		n = read(fd, buf + off, (size_t)sb.st_size - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			snprintf(why, len, "reading %s/%s: %s", PC_JOURNAL_DIR, name,
				 strerror(errno));
			free(buf);
			close(fd);
			return err;
		}
		if (n == 0)
			break;
		off += (size_t)n;
	}
	close(fd);
	buf[off] = '\0';
	*out = buf;
	*out_len = off;
	return 0;
}

static bool owner_alive(const struct state *st, const struct journal *j)
{
	unsigned long long start;

	if (pc_proc_starttime(j->pid, &start))
		return false;
	/* Without a record to compare, a live pid may be a journal being started. */
	if (!j->has_owner)
		return true;
	return start == j->start && !strcmp(j->boot, st->boot);
}

/* Parses one journal's records into st. */
static int load_journal(struct state *st, struct journal *j)
{
	char why[256], *buf = NULL, *line, *nl;
	size_t size = 0;
	unsigned int seq = 0;
	int err;

	err = read_journal(st, j->name, &buf, &size, why, sizeof(why));
	if (err) {
		warn("%s", why);
		j->unreadable = true;
		st->io_err = 1;
		return err;
	}
	for (line = buf; *line; line = nl + 1) {
		struct rec *r;

		nl = strchr(line, '\n');
		/* Cut short by the crash: fsync never returned, so the change was never made. */
		if (!nl) {
			j->torn = 1;
			break;
		}
		*nl = '\0';
		r = new_rec(st);
		if (!r) {
			free(buf);
			return -ENOMEM;
		}
		snprintf(r->line, sizeof(r->line), "%s\n", line);
		r->j = (int)(j - st->j);
		r->seq = seq++;
		if (strlen(line) + 1 >= sizeof(r->line) || parse_line(line, r, why, sizeof(why))) {
			if (strlen(line) + 1 >= sizeof(r->line))
				snprintf(why, sizeof(why), "line too long");
			warn("%s/%s: record %u unreadable (%s): kept", PC_JOURNAL_DIR, j->name, seq,
			     why);
			r->state = R_BAD;
		} else if (r->pid != j->pid) {
			warn("%s/%s: record %u belongs to pid %d: kept", PC_JOURNAL_DIR, j->name,
			     seq, (int)r->pid);
			r->state = R_BAD;
		} else if (!j->has_owner) {
			j->has_owner = true;
			j->start = r->start;
			snprintf(j->boot, sizeof(j->boot), "%s", r->boot);
		}
		st->nr++;
		j->nrec++;
	}
	free(buf);
	return 0;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(((const struct journal *)a)->name, ((const struct journal *)b)->name);
}

/* Reads every journal.  0, or -errno with why set when the directory is unusable. */
static int load_all(struct state *st, char *why, size_t len)
{
	struct dirent *de;
	DIR *d;
	int fd, unsafe, i;

	pc_boot_id(st->boot, sizeof(st->boot));
	st->dfd = pc_journal_open_dir(0, &unsafe, why, len);
	if (st->dfd < 0)
		return st->dfd;
	fd = dup(st->dfd);
	d = fd < 0 ? NULL : fdopendir(fd);
	if (!d) {
		int err = -errno;

		if (fd >= 0)
			close(fd);
		snprintf(why, len, "reading %s: %s", PC_JOURNAL_DIR, strerror(-err));
		return err;
	}
	while ((de = readdir(d))) {
		struct journal *j;
		bool tmp = false;
		pid_t pid = journal_pid(de->d_name, &tmp);

		if (!pid)
			continue;
		if (st->nj % 16 == 0) {
			j = realloc(st->j, (size_t)(st->nj + 16) * sizeof(*j));
			if (!j) {
				closedir(d);
				snprintf(why, len, "%s", strerror(ENOMEM));
				return -ENOMEM;
			}
			st->j = j;
		}
		j = &st->j[st->nj++];
		memset(j, 0, sizeof(*j));
		snprintf(j->name, sizeof(j->name), "%s", de->d_name);
		j->pid = pid;
		j->tmp = tmp;
	}
	closedir(d);
	/* Stable output, whatever the directory order. */
	if (st->nj)
		qsort(st->j, (size_t)st->nj, sizeof(*st->j), cmp_name);
	for (i = 0; i < st->nj; i++) {
		struct journal *j = &st->j[i];

		if (j->tmp)
			continue;
		if (load_journal(st, j) == -ENOMEM) {
			snprintf(why, len, "%s", strerror(ENOMEM));
			return -ENOMEM;
		}
		j->alive = owner_alive(st, j);
	}
	return 0;
}

static void free_state(struct state *st)
{
	free(st->j);
	free(st->r);
	if (st->dfd >= 0)
		close(st->dfd);
}

/* 1 if an fstype filesystem is mounted on dir, 0 if not (*other: another is), or -errno. */
static int mounted_on(const char *dir, const char *fstype, bool *other)
{
	char line[4096];
	FILE *f = fopen("/proc/self/mountinfo", "re");
	int found = 0;

	*other = false;
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *save = NULL, *mnt = NULL, *type = NULL, *t;
		int n = 0;
		bool sep = false;

		/* "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [TAGS...] - FSTYPE SOURCE SUPER" */
		for (t = strtok_r(line, " \n", &save); t; t = strtok_r(NULL, " \n", &save), n++) {
			if (n == 4)
				mnt = t;
			else if (sep) {
				type = t;
				break;
			} else if (n > 5 && !strcmp(t, "-"))
				sep = true;
		}
		if (!mnt || !type || pc_journal_unescape(mnt) || strcmp(mnt, dir))
			continue;
		if (!strcmp(type, fstype))
			found = 1;
		else
			*other = true;
	}
	fclose(f);
	return found;
}

/* Loop devices ("loop3") whose backing file is image, deleted or not. */
static int loops_backed_by(const char *image, char names[][32], int max)
{
	char path[300], backing[PATH_MAX + 16], deleted[PATH_MAX + 16];
	struct dirent *de;
	DIR *d = opendir("/sys/block");
	int n = 0;

	if (!d)
		return -errno;
	snprintf(deleted, sizeof(deleted), "%s (deleted)", image);
	while ((de = readdir(d)) && n < max) {
		if (strncmp(de->d_name, "loop", 4))
			continue;
		snprintf(path, sizeof(path), "/sys/block/%s/loop/backing_file", de->d_name);
		if (pc_read_file(path, backing, sizeof(backing)))
			continue;
		if (!strcmp(backing, image) || !strcmp(backing, deleted))
			snprintf(names[n++], 32, "%s", de->d_name);
	}
	closedir(d);
	return n;
}

/* Another journal left alone (its owner runs) changed the same setting. */
static const struct journal *live_setter(const struct state *st, const struct rec *r)
{
	for (int i = 0; i < st->nr; i++) {
		const struct rec *o = &st->r[i];

		if (o->state != R_BAD && !st->j[o->j].act && !strcmp(o->kind, "set") &&
		    !strcmp(o->a1, r->a1))
			return &st->j[o->j];
	}
	return NULL;
}

static int undo_set(struct state *st, struct rec *r, char *msg, size_t len)
{
	const struct journal *live;
	char cur[PC_JOURNAL_ARG_MAX];
	int err;

	live = live_setter(st, r);
	if (live) {
		/* Writing now would pull the setting from under it, and it restores
		   its own old value (ours) when it ends: the next restore finishes. */
		snprintf(msg, len,
			 "%s: left as it is: pid %d, still running, changed it too; run "
			 "'ptecheck restore' again once it has ended",
			 r->a1, (int)live->pid);
		return R_LEFT;
	}
	err = pc_sysfs_choice(r->a1, cur, sizeof(cur));
	if (err == -ENOENT) {
		snprintf(msg, len, "%s no longer exists: nothing to undo", r->a1);
		return R_DONE;
	}
	if (err) {
		snprintf(msg, len, "reading %s: %s", r->a1, strerror(-err));
		return R_LEFT;
	}
	if (!strcmp(cur, r->a2)) {
		snprintf(msg, len, "%s is already \"%s\"", r->a1, r->a2);
		return R_DONE;
	}
	if (st->dry) {
		snprintf(msg, len, "would write \"%s\" to %s (now \"%s\")", r->a2, r->a1, cur);
		return R_DONE;
	}
	err = pc_write_file(r->a1, r->a2);
	if (err) {
		snprintf(msg, len, "writing \"%s\" to %s: %s", r->a2, r->a1, strerror(-err));
		return R_LEFT;
	}
	snprintf(msg, len, "wrote \"%s\" to %s (was \"%s\")", r->a2, r->a1, cur);
	return R_DONE;
}

static int undo_mount(struct state *st, struct rec *r, char *msg, size_t len)
{
	bool other, lazy = false;
	int rc, tries;

	for (tries = 0; tries < 4; tries++) {
		rc = mounted_on(r->a1, r->a2, &other);
		if (rc < 0) {
			snprintf(msg, len, "reading /proc/self/mountinfo: %s", strerror(-rc));
			return R_LEFT;
		}
		if (!rc)
			break;
		if (st->dry) {
			snprintf(msg, len, "would unmount %s (%s)", r->a1, r->a2);
			return R_DONE;
		}
		/* UMOUNT_NOFOLLOW: a symlink put in its place must not redirect us. */
		if (umount2(r->a1, UMOUNT_NOFOLLOW)) {
			if (errno != EBUSY || umount2(r->a1, MNT_DETACH | UMOUNT_NOFOLLOW)) {
				snprintf(msg, len, "unmounting %s (%s): %s", r->a1, r->a2,
					 strerror(errno));
				return R_LEFT;
			}
			lazy = true;
		}
	}
	if (!tries) {
		snprintf(msg, len, "%s is not mounted%s: nothing to undo", r->a1,
			 other ? " (another filesystem is, left alone)" : "");
		return R_DONE;
	}
	if (rc) {
		snprintf(msg, len, "%s (%s) is still mounted after %d unmounts", r->a1, r->a2,
			 tries);
		return R_LEFT;
	}
	snprintf(msg, len, "unmounted %s (%s)%s", r->a1, r->a2,
		 lazy ? " lazily (MNT_DETACH): it was busy" : "");
	return R_DONE;
}

static int undo_loop(struct state *st, struct rec *r, char *msg, size_t len)
{
	char names[8][32], dev[48], path[300], autoclear[8];
	size_t used = 0;
	int n, i, fd, state = R_DONE;

	n = loops_backed_by(r->a2, names, 8);
	if (n < 0) {
		snprintf(msg, len, "listing /sys/block: %s", strerror(-n));
		return R_LEFT;
	}
	if (!n) {
		/* Autoclear detaches it as soon as the unmount releases it. */
		snprintf(msg, len,
			 "no loop device is backed by %s any more (%s was): nothing to undo", r->a2,
			 r->a1);
		return R_DONE;
	}
	msg[0] = '\0';
	for (i = 0; i < n; i++) {
		const char *what;

		fd = -1;
		snprintf(dev, sizeof(dev), "/dev/%s", names[i]);
		if (st->dry) {
			what = "would detach";
		} else if ((fd = open(dev, O_RDWR | O_CLOEXEC)) < 0) {
			what = "cannot open";
			state = R_LEFT;
		} else if (!ioctl(fd, LOOP_CLR_FD, 0) || errno == ENXIO) {
			what = "detached";
		} else {
			int e = errno;

			snprintf(path, sizeof(path), "/sys/block/%s/loop/autoclear", names[i]);
			/* Busy (a lazy unmount): with autoclear it goes on the last release. */
			if (e == EBUSY && !pc_read_file(path, autoclear, sizeof(autoclear)) &&
			    !strcmp(autoclear, "1")) {
				what = "will detach on its last release (busy, autoclear)";
			} else {
				what = e == EBUSY ? "busy: cannot detach" : "cannot detach";
				state = R_LEFT;
			}
		}
		if (fd >= 0)
			close(fd);
		used += snprintf(msg + used, used < len ? len - used : 0, "%s%s %s", i ? "; " : "",
				 what, dev);
	}
	if (used < len)
		snprintf(msg + used, len - used, " (backed by %s)", r->a2);
	return state;
}

/* file, dir and tmpdir: remove what the killed process made. */
static int undo_path(struct state *st, struct rec *r, char *msg, size_t len)
{
	bool file = !strcmp(r->kind, "file"), tmpdir = !strcmp(r->kind, "tmpdir");
	struct stat sb;

	if (lstat(r->a1, &sb)) {
		if (errno == ENOENT) {
			snprintf(msg, len, "%s is already gone", r->a1);
			return R_DONE;
		}
		snprintf(msg, len, "stat %s: %s", r->a1, strerror(errno));
		return R_LEFT;
	}
	if (file ? !S_ISREG(sb.st_mode) : !S_ISDIR(sb.st_mode)) {
		snprintf(msg, len, "%s is no longer a %s: left alone", r->a1,
			 file ? "regular file" : "directory");
		return R_LEFT;
	}
	if (st->dry) {
		snprintf(msg, len, "would delete %s%s", r->a1, tmpdir ? " if empty" : "");
		return R_DONE;
	}
	if (file ? !unlink(r->a1) : !rmdir(r->a1)) {
		snprintf(msg, len, "deleted %s", r->a1);
		return R_DONE;
	}
	if (tmpdir && (errno == ENOTEMPTY || errno == EEXIST)) {
		snprintf(msg, len, "kept %s: not empty", r->a1);
		return R_DONE;
	}
	snprintf(msg, len, "deleting %s: %s", r->a1, strerror(errno));
	return R_LEFT;
}

/* A later tmpdir record for the same directory (a second scratch fs in it). */
static bool duplicate_tmpdir(const struct state *st, const struct rec *r)
{
	for (int i = 0; i < st->nr; i++) {
		const struct rec *o = &st->r[i];

		if (o != r && o->state == R_PENDING && st->j[o->j].act &&
		    !strcmp(o->kind, "tmpdir") && !strcmp(o->a1, r->a1) &&
		    (o->time < r->time || (o->time == r->time && o->seq < r->seq)))
			return true;
	}
	return false;
}

static int undo(struct state *st, struct rec *r, char *msg, size_t len)
{
	bool kernel_state =
		!strcmp(r->kind, "set") || !strcmp(r->kind, "mount") || !strcmp(r->kind, "loop");

	/* Settings, mounts and loop devices do not survive a reboot; files do. */
	if (kernel_state && strcmp(r->boot, st->boot)) {
		snprintf(msg, len, "%s %s: made before the last reboot, which undid it", r->kind,
			 r->a1);
		return R_DONE;
	}
	if (!strcmp(r->kind, "set"))
		return undo_set(st, r, msg, len);
	if (!strcmp(r->kind, "mount"))
		return undo_mount(st, r, msg, len);
	if (!strcmp(r->kind, "loop"))
		return undo_loop(st, r, msg, len);
	return undo_path(st, r, msg, len);
}

/* Newest first; file order breaks ties within a journal. */
static int cmp_newest(const void *a, const void *b)
{
	const struct rec *x = *(const struct rec *const *)a, *y = *(const struct rec *const *)b;

	if (x->time != y->time)
		return x->time < y->time ? 1 : -1;
	if (x->j != y->j)
		return x->j < y->j ? 1 : -1;
	return x->seq < y->seq ? 1 : x->seq > y->seq ? -1 : 0;
}

/* Removes a journal all undone, or rewrites it (via a rename) with what is left. */
static int finish_journal(struct state *st, struct journal *j)
{
	char tmp[80];
	int fd, kept = 0, err = 0;

	for (int i = 0; i < st->nr; i++)
		if (st->r[i].j == j - st->j && st->r[i].state != R_DONE)
			kept++;
	if (st->dry)
		return kept;
	if (!kept) {
		if (unlinkat(st->dfd, j->name, 0) && errno != ENOENT) {
			warn("removing %s/%s: %s", PC_JOURNAL_DIR, j->name, strerror(errno));
			return -errno;
		}
		return 0;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp", j->name);
	fd = openat(st->dfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		err = -errno;
	for (int i = 0; i < st->nr && !err; i++) {
		struct rec *r = &st->r[i];
		size_t n = strlen(r->line);

		if (r->j == j - st->j && r->state != R_DONE && write(fd, r->line, n) != (ssize_t)n)
			err = errno ? -errno : -EIO;
	}
	if (fd >= 0) {
		if (!err && fsync(fd))
			err = -errno;
		close(fd);
	}
	if (!err && renameat(st->dfd, tmp, st->dfd, j->name))
		err = -errno;
	if (err) {
		unlinkat(st->dfd, tmp, 0);
		warn("rewriting %s/%s: %s", PC_JOURNAL_DIR, j->name, strerror(-err));
		return err;
	}
	fsync(st->dfd);
	return kept;
}

/* Keeps 'ptecheck run' from starting (and recording our half-undone state) meanwhile. */
static int lock_runs(void)
{
	int fd = open("/run/ptecheck.lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);

	if (fd < 0)
		return -1;
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		close(fd);
		return -1;
	}
	return fd;
}

static void usage(FILE *f)
{
	fprintf(f, "Usage: ptecheck restore [--dry-run] [--force]\n\n"
		   "Undoes what a ptecheck run or workload killed by SIGKILL (or a crash)\n"
		   "left changed: mTHP settings, scratch mounts, loop devices, image files\n"
		   "and directories, from the journals in " PC_JOURNAL_DIR ".  Journals of\n"
		   "processes still running are left alone.  Newest change first.\n\n"
		   "  --dry-run   print what would be undone; change nothing\n"
		   "  --force     undo the journals of running processes too\n\n"
		   "Exit: 0 nothing left changed, 1 something could not be undone (said why),\n"
		   "      2 usage or privilege, 3 the journals could not be read.\n");
}

int pc_cmd_restore(int argc, char **argv)
{
	static const struct option opts[] = {
		{"dry-run", no_argument, NULL, 'n'},
		{"force", no_argument, NULL, 'f'},
		{"help", no_argument, NULL, 'h'},
		{},
	};
	struct state st = {.dfd = -1};
	struct rec **order = NULL;
	char why[512], msg[2048];
	int c, i, n = 0, skipped = 0, lock_fd = -1, kept_journals = 0, code;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			st.dry = true;
			break;
		case 'f':
			st.force = true;
			break;
		case 'h':
			usage(stdout);
			return PC_EXIT_PASS;
		default:
			usage(stderr);
			return PC_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		warn("unexpected argument '%s'", argv[optind]);
		usage(stderr);
		return PC_EXIT_USAGE;
	}
	if (geteuid() != 0) {
		warn("needs root: the journals in %s are root's, and so are the changes",
		     PC_JOURNAL_DIR);
		return PC_EXIT_USAGE;
	}
	if (!st.dry)
		lock_fd = lock_runs();
	c = load_all(&st, why, sizeof(why));
	if (c == -ENOENT) {
		say("nothing to do: no %s", PC_JOURNAL_DIR);
		code = PC_EXIT_PASS;
		goto out;
	}
	if (c) {
		warn("%s", why);
		code = EXIT_IO;
		goto out;
	}
	for (i = 0; i < st.nj; i++) {
		struct journal *j = &st.j[i];

		if (j->tmp) {
			/* A rewrite interrupted before its rename: the journal itself is whole. */
			unsigned long long start;

			if (!pc_proc_starttime(j->pid, &start))
				continue;
			if (st.dry) {
				say("would delete %s/%s (an interrupted rewrite)", PC_JOURNAL_DIR,
				    j->name);
			} else if (!unlinkat(st.dfd, j->name, 0)) {
				say("deleted %s/%s (an interrupted rewrite)", PC_JOURNAL_DIR,
				    j->name);
			}
			continue;
		}
		if (j->unreadable)
			continue;
		if (j->pid == getpid())
			continue;
		if (j->alive && !st.force) {
			skipped++;
			say("pid %d is still running: its journal %s/%s (%d record%s) is left "
			    "alone (--force undoes it anyway)",
			    (int)j->pid, PC_JOURNAL_DIR, j->name, j->nrec, j->nrec == 1 ? "" : "s");
			continue;
		}
		j->act = true;
		say("pid %d %s: %s the %d record%s of %s/%s, newest first", (int)j->pid,
		    j->alive ? "is still running (--force)" : "is gone",
		    st.dry ? "would undo" : "undoing", j->nrec, j->nrec == 1 ? "" : "s",
		    PC_JOURNAL_DIR, j->name);
		if (j->torn)
			say("pid %d: ignoring a partial last record: it died writing it, before "
			    "making that change",
			    (int)j->pid);
	}
	order = calloc((size_t)st.nr + 1, sizeof(*order));
	if (!order) {
		warn("%s", strerror(ENOMEM));
		code = EXIT_IO;
		goto out;
	}
	for (i = 0; i < st.nr; i++)
		if (st.j[st.r[i].j].act)
			order[n++] = &st.r[i];
	qsort(order, (size_t)n, sizeof(*order), cmp_newest);
	for (i = 0; i < n; i++) {
		struct rec *r = order[i];

		if (r->state == R_BAD) {
			st.left++;
			continue;
		}
		if (!strcmp(r->kind, "tmpdir") && duplicate_tmpdir(&st, r)) {
			r->state = R_DONE;
			continue;
		}
		r->state = undo(&st, r, msg, sizeof(msg));
		if (r->state == R_DONE) {
			st.undone++;
			say("pid %d: %s", (int)r->pid, msg);
		} else {
			st.left++;
			warn("pid %d: could not undo: %s", (int)r->pid, msg);
		}
	}
	for (i = 0; i < st.nj; i++) {
		struct journal *j = &st.j[i];

		if (!j->act)
			continue;
		c = finish_journal(&st, j);
		if (c < 0) {
			st.io_err = 1;
		} else if (c > 0) {
			kept_journals++;
			if (!st.dry)
				say("kept %s/%s with the %d record%s not undone", PC_JOURNAL_DIR,
				    j->name, c, c == 1 ? "" : "s");
		} else if (!st.dry) {
			say("removed %s/%s: all undone", PC_JOURNAL_DIR, j->name);
		}
	}
	if (!n && !st.left && !skipped && !st.io_err)
		say("nothing to do: no change was left behind");
	else if (st.dry)
		say("dry run: %d change%s would be undone, %d could not, %d journal%s of "
		    "running processes left alone; nothing was changed",
		    st.undone, st.undone == 1 ? "" : "s", st.left, skipped,
		    skipped == 1 ? "" : "s");
	else
		say("%d change%s undone, %d could not be undone, %d journal%s of running "
		    "processes left alone",
		    st.undone, st.undone == 1 ? "" : "s", st.left, skipped,
		    skipped == 1 ? "" : "s");
	code = st.io_err ? EXIT_IO : st.left ? EXIT_LEFT : PC_EXIT_PASS;
out:
	free(order);
	free_state(&st);
	if (lock_fd >= 0)
		close(lock_fd);
	return code;
}

int pc_restore_pending(char *msg, size_t len)
{
	struct state st = {.dfd = -1};
	char why[512];
	int err, i, dead = 0;
	pid_t first = 0;

	msg[0] = '\0';
	err = load_all(&st, why, sizeof(why));
	if (err == -ENOENT) {
		free_state(&st);
		return 0;
	}
	if (err) {
		snprintf(msg, len, "%s", why);
		free_state(&st);
		return err;
	}
	for (i = 0; i < st.nj; i++) {
		struct journal *j = &st.j[i];

		if (j->tmp || j->alive || j->pid == getpid() || (!j->nrec && !j->unreadable))
			continue;
		if (!dead++)
			first = j->pid;
	}
	if (dead == 1)
		snprintf(msg, len,
			 "a previous run (pid %d) was killed and left changes behind: "
			 "run 'ptecheck restore'",
			 (int)first);
	else if (dead > 1)
		snprintf(msg, len,
			 "%d previous runs (pid %d, ...) were killed and left changes "
			 "behind: run 'ptecheck restore'",
			 dead, (int)first);
	free_state(&st);
	return dead;
}
