// SPDX-License-Identifier: GPL-2.0
/*
 * The undo actions of `ptecheck restore`, one per record kind: a setting
 * written back, a scratch mount unmounted, a loop device detached, a file
 * or directory deleted.  Each says what it did, or why it could not.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/loop.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "undo.h"

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
static const struct pc_journal *live_setter(const struct pc_restore *st, const struct pc_rec *r)
{
	for (int i = 0; i < st->nr; i++) {
		const struct pc_rec *o = &st->r[i];

		if (o->state != PC_REC_BAD && !st->j[o->j].act && !strcmp(o->kind, "set") &&
		    !strcmp(o->a1, r->a1))
			return &st->j[o->j];
	}
	return NULL;
}

static int undo_set(struct pc_restore *st, struct pc_rec *r, char *msg, size_t len)
{
	const struct pc_journal *live;
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
		return PC_REC_LEFT;
	}
	err = pc_sysfs_choice(r->a1, cur, sizeof(cur));
	if (err == -ENOENT) {
		snprintf(msg, len, "%s no longer exists: nothing to undo", r->a1);
		return PC_REC_DONE;
	}
	if (err) {
		snprintf(msg, len, "reading %s: %s", r->a1, strerror(-err));
		return PC_REC_LEFT;
	}
	if (!strcmp(cur, r->a2)) {
		snprintf(msg, len, "%s is already \"%s\"", r->a1, r->a2);
		return PC_REC_DONE;
	}
	if (st->dry) {
		snprintf(msg, len, "would write \"%s\" to %s (now \"%s\")", r->a2, r->a1, cur);
		return PC_REC_DONE;
	}
	err = pc_write_file(r->a1, r->a2);
	if (err) {
		snprintf(msg, len, "writing \"%s\" to %s: %s", r->a2, r->a1, strerror(-err));
		return PC_REC_LEFT;
	}
	snprintf(msg, len, "wrote \"%s\" to %s (was \"%s\")", r->a2, r->a1, cur);
	return PC_REC_DONE;
}

static int undo_mount(struct pc_restore *st, struct pc_rec *r, char *msg, size_t len)
{
	bool other, lazy = false;
	int rc, tries;

	for (tries = 0; tries < 4; tries++) {
		rc = mounted_on(r->a1, r->a2, &other);
		if (rc < 0) {
			snprintf(msg, len, "reading /proc/self/mountinfo: %s", strerror(-rc));
			return PC_REC_LEFT;
		}
		if (!rc)
			break;
		if (st->dry) {
			snprintf(msg, len, "would unmount %s (%s)", r->a1, r->a2);
			return PC_REC_DONE;
		}
		/* UMOUNT_NOFOLLOW: a symlink put in its place must not redirect us. */
		if (umount2(r->a1, UMOUNT_NOFOLLOW)) {
			if (errno != EBUSY || umount2(r->a1, MNT_DETACH | UMOUNT_NOFOLLOW)) {
				snprintf(msg, len, "unmounting %s (%s): %s", r->a1, r->a2,
					 strerror(errno));
				return PC_REC_LEFT;
			}
			lazy = true;
		}
	}
	if (!tries) {
		snprintf(msg, len, "%s is not mounted%s: nothing to undo", r->a1,
			 other ? " (another filesystem is, left alone)" : "");
		return PC_REC_DONE;
	}
	if (rc) {
		snprintf(msg, len, "%s (%s) is still mounted after %d unmounts", r->a1, r->a2,
			 tries);
		return PC_REC_LEFT;
	}
	snprintf(msg, len, "unmounted %s (%s)%s", r->a1, r->a2,
		 lazy ? " lazily (MNT_DETACH): it was busy" : "");
	return PC_REC_DONE;
}

static int undo_loop(struct pc_restore *st, struct pc_rec *r, char *msg, size_t len)
{
	char names[8][32], dev[48], path[300], autoclear[8];
	size_t used = 0;
	int n, i, fd, state = PC_REC_DONE;

	n = loops_backed_by(r->a2, names, 8);
	if (n < 0) {
		snprintf(msg, len, "listing /sys/block: %s", strerror(-n));
		return PC_REC_LEFT;
	}
	if (!n) {
		/* Autoclear detaches it as soon as the unmount releases it. */
		snprintf(msg, len,
			 "no loop device is backed by %s any more (%s was): nothing to undo", r->a2,
			 r->a1);
		return PC_REC_DONE;
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
			state = PC_REC_LEFT;
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
				state = PC_REC_LEFT;
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
static int undo_path(struct pc_restore *st, struct pc_rec *r, char *msg, size_t len)
{
	bool file = !strcmp(r->kind, "file"), tmpdir = !strcmp(r->kind, "tmpdir");
	struct stat sb;

	if (lstat(r->a1, &sb)) {
		if (errno == ENOENT) {
			snprintf(msg, len, "%s is already gone", r->a1);
			return PC_REC_DONE;
		}
		snprintf(msg, len, "stat %s: %s", r->a1, strerror(errno));
		return PC_REC_LEFT;
	}
	if (file ? !S_ISREG(sb.st_mode) : !S_ISDIR(sb.st_mode)) {
		snprintf(msg, len, "%s is no longer a %s: left alone", r->a1,
			 file ? "regular file" : "directory");
		return PC_REC_LEFT;
	}
	if (st->dry) {
		snprintf(msg, len, "would delete %s%s", r->a1, tmpdir ? " if empty" : "");
		return PC_REC_DONE;
	}
	if (file ? !unlink(r->a1) : !rmdir(r->a1)) {
		snprintf(msg, len, "deleted %s", r->a1);
		return PC_REC_DONE;
	}
	if (tmpdir && (errno == ENOTEMPTY || errno == EEXIST)) {
		snprintf(msg, len, "kept %s: not empty", r->a1);
		return PC_REC_DONE;
	}
	snprintf(msg, len, "deleting %s: %s", r->a1, strerror(errno));
	return PC_REC_LEFT;
}

/* A later tmpdir record for the same directory (a second scratch fs in it). */
static bool duplicate_tmpdir(const struct pc_restore *st, const struct pc_rec *r)
{
	for (int i = 0; i < st->nr; i++) {
		const struct pc_rec *o = &st->r[i];

		if (o != r && o->state == PC_REC_PENDING && st->j[o->j].act &&
		    !strcmp(o->kind, "tmpdir") && !strcmp(o->a1, r->a1) &&
		    (o->time < r->time || (o->time == r->time && o->seq < r->seq)))
			return true;
	}
	return false;
}

static int undo(struct pc_restore *st, struct pc_rec *r, char *msg, size_t len)
{
	bool kernel_state =
		!strcmp(r->kind, "set") || !strcmp(r->kind, "mount") || !strcmp(r->kind, "loop");

	/* Settings, mounts and loop devices do not survive a reboot; files do. */
	if (kernel_state && strcmp(r->boot, st->boot)) {
		snprintf(msg, len, "%s %s: made before the last reboot, which undid it", r->kind,
			 r->a1);
		return PC_REC_DONE;
	}
	if (!strcmp(r->kind, "set"))
		return undo_set(st, r, msg, len);
	if (!strcmp(r->kind, "mount"))
		return undo_mount(st, r, msg, len);
	if (!strcmp(r->kind, "loop"))
		return undo_loop(st, r, msg, len);
	return undo_path(st, r, msg, len);
}

void pc_restore_undo(struct pc_restore *st, struct pc_rec *r)
{
	char msg[2048];

	if (r->state == PC_REC_BAD) {
		st->left++;
		return;
	}
	if (!strcmp(r->kind, "tmpdir") && duplicate_tmpdir(st, r)) {
		r->state = PC_REC_DONE;
		return;
	}
	r->state = undo(st, r, msg, sizeof(msg));
	if (r->state == PC_REC_DONE) {
		st->undone++;
		pc_restore_say("pid %d: %s", (int)r->pid, msg);
	} else {
		st->left++;
		pc_restore_warn("pid %d: could not undo: %s", (int)r->pid, msg);
	}
}
