// SPDX-License-Identifier: GPL-2.0
/*
 * Scratch filesystems: a tmpfs, or a block filesystem on a loop device over
 * a sparse image file.  Each is recorded in a static table as it is built,
 * one flag per finished step, with the fatal signals blocked so that a
 * handler sees either no step or a finished one.  Releasing needs only
 * system calls (umount2, ioctl, close, unlink, rmdir): no malloc, no stdio,
 * so it may run from the settings signal path.  Each step is journaled
 * (settings.h) before it is taken, and dropped from the journal once
 * undone, so `ptecheck restore` can undo what a SIGKILL left.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <linux/loop.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "scratchfs.h"
#include "settings.h"

#ifndef LOOP_CONFIGURE
#define LOOP_CONFIGURE 0x4C0A
struct loop_config {
	__u32 fd;
	__u32 block_size;
	struct loop_info64 info;
	__u64 __reserved[8];
};
#endif

#define PC_MAX_SCRATCH	    8
#define PC_SCRATCH_PATH_MAX 256
/* LOOP_CTL_GET_FREE can hand the same device to a racing process. */
#define PC_LOOP_TRIES 8

enum {
	SCR_DIR_MADE = 1 << 0, /* rmdir at release */
	SCR_IMAGE = 1 << 1,    /* unlink at release */
	SCR_LOOP = 1 << 2,     /* loop_fd attached: LOOP_CLR_FD, close */
	SCR_MOUNTED = 1 << 3,  /* umount2 at release */
};

struct pc_scratch {
	char dir[PC_SCRATCH_PATH_MAX];
	char image[PC_SCRATCH_PATH_MAX];
	int loop_fd;
	volatile sig_atomic_t flags;
	/* Journal records per step (-1: none); j_parent is the mkdtemp() parent. */
	int j_dir, j_image, j_loop, j_mount, j_parent;
	/* A forked child inherits the table but must not release it. */
	pid_t owner;
};

static struct pc_scratch scratch[PC_MAX_SCRATCH];
static volatile sig_atomic_t nr_scratch;

/* Publishes a finished step to a signal handler. */
static void set_flag(struct pc_scratch *s, int flag)
{
	atomic_signal_fence(memory_order_release);
	s->flags |= flag;
}

/* A step undone leaves the journal; one that failed stays for `ptecheck restore`. */
static void step_undone(int jid, int rc, int *err)
{
	if (!rc)
		pc_journal_done(jid);
	else if (!*err)
		*err = rc;
}

/* Undoes one record's steps, newest first.  Async-signal-safe. */
static int release_one(struct pc_scratch *s)
{
	int err = 0;

	int rc;

	if (s->flags & SCR_MOUNTED) {
		/* EBUSY: a mapping or open file (maybe in a dying thread) keeps it. */
		rc = 0;
		if (umount2(s->dir, 0) && (errno != EBUSY || umount2(s->dir, MNT_DETACH)) &&
		    errno != EINVAL && errno != ENOENT)
			rc = -errno;
		s->flags &= ~SCR_MOUNTED;
		step_undone(s->j_mount, rc, &err);
	}
	if (s->flags & SCR_LOOP) {
		/* With AUTOCLEAR and a lazy unmount, detaching completes on the last close. */
		rc = 0;
		if (ioctl(s->loop_fd, LOOP_CLR_FD, 0) && errno != ENXIO && errno != EBUSY)
			rc = -errno;
		close(s->loop_fd);
		s->loop_fd = -1;
		s->flags &= ~SCR_LOOP;
		step_undone(s->j_loop, rc, &err);
	}
	if (s->flags & SCR_IMAGE) {
		rc = unlink(s->image) && errno != ENOENT ? -errno : 0;
		s->flags &= ~SCR_IMAGE;
		step_undone(s->j_image, rc, &err);
	}
	if (s->flags & SCR_DIR_MADE) {
		rc = rmdir(s->dir) && errno != ENOENT ? -errno : 0;
		s->flags &= ~SCR_DIR_MADE;
		step_undone(s->j_dir, rc, &err);
	}
	/* The caller removes its own temporary directory. */
	pc_journal_done(s->j_parent);
	s->j_parent = -1;
	return err;
}

int pc_scratch_release_all(void)
{
	pid_t self = getpid();
	sigset_t old;
	int n, rc, err = 0;

	/* Called directly, a signal must not start a second release halfway. */
	pc_block_fatal_signals(&old);
	atomic_signal_fence(memory_order_acquire);
	for (n = nr_scratch - 1; n >= 0; n--) {
		if (scratch[n].owner != self)
			continue;
		rc = release_one(&scratch[n]);
		if (rc && !err)
			err = rc;
	}
	nr_scratch = 0;
	rc = pc_journal_sync();
	if (rc && !err)
		err = rc;
	sigprocmask(SIG_SETMASK, &old, NULL);
	return err;
}

/* Journals a step before it is taken; 0, or -errno with why set (not taken). */
static int journal(int *jid, const char *kind, const char *a1, const char *a2, char *why,
		   size_t why_len)
{
	int err = pc_journal_add(jid, kind, a1, a2);

	if (err)
		snprintf(why, why_len, "journal: %s", pc_journal_error());
	return err;
}

/*
 * A parent made by mkdtemp() (NAME.XXXXXX, 0700, ours) is journaled for
 * removal when empty: the caller removes it on a normal exit, but after a
 * SIGKILL only `ptecheck restore` can.
 */
static int journal_parent(struct pc_scratch *s, char *why, size_t why_len)
{
	char parent[PC_SCRATCH_PATH_MAX], *dir, *base, *dot;
	struct stat st;
	size_t i;

	snprintf(parent, sizeof(parent), "%s", s->dir);
	dir = dirname(parent);
	base = strrchr(dir, '/');
	base = base ? base + 1 : dir;
	dot = strrchr(base, '.');
	if (!dot || dot == base || strlen(dot + 1) != 6)
		return 0;
	for (i = 1; i <= 6; i++)
		if (!((dot[i] >= 'a' && dot[i] <= 'z') || (dot[i] >= 'A' && dot[i] <= 'Z') ||
		      (dot[i] >= '0' && dot[i] <= '9')))
			return 0;
	if (lstat(dir, &st) || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 07777) != 0700)
		return 0;
	return journal(&s->j_parent, "tmpdir", dir, NULL, why, why_len);
}

/*
 * Takes a record for dir, with the fatal signals blocked (the caller
 * unblocks through finish()).  NULL, with why set, when there is none.
 */
static struct pc_scratch *new_record(const char *dir, const char *suffix, sigset_t *old, char *why,
				     size_t why_len, int *err)
{
	struct pc_scratch *s;
	int n;

	if (strlen(dir) + strlen(suffix) >= PC_SCRATCH_PATH_MAX) {
		snprintf(why, why_len, "scratch path %s: %s", dir, strerror(ENAMETOOLONG));
		*err = -ENAMETOOLONG;
		return NULL;
	}
	/* Registered before anything exists, so nothing is made unguarded. */
	*err = pc_settings_add_undo(pc_scratch_release_all);
	if (*err) {
		snprintf(why, why_len, "registering the release: %s", strerror(-*err));
		return NULL;
	}
	pc_block_fatal_signals(old);
	n = nr_scratch;
	if (n >= PC_MAX_SCRATCH) {
		sigprocmask(SIG_SETMASK, old, NULL);
		snprintf(why, why_len, "more than %d scratch filesystems", PC_MAX_SCRATCH);
		*err = -ENOSPC;
		return NULL;
	}
	s = &scratch[n];
	memset(s, 0, sizeof(*s));
	snprintf(s->dir, sizeof(s->dir), "%s", dir);
	snprintf(s->image, sizeof(s->image), "%s%s", dir, suffix);
	s->loop_fd = -1;
	s->j_dir = s->j_image = s->j_loop = s->j_mount = s->j_parent = -1;
	s->owner = getpid();
	/* First, so that restore removes it last, once emptied. */
	*err = journal_parent(s, why, why_len);
	if (*err) {
		sigprocmask(SIG_SETMASK, old, NULL);
		return NULL;
	}
	atomic_signal_fence(memory_order_release);
	nr_scratch = n + 1;
	return s;
}

/* On failure undoes what the record holds and drops it (it is the newest). */
static int finish(struct pc_scratch *s, int err, sigset_t *old)
{
	if (err) {
		release_one(s);
		if (nr_scratch > 0 && &scratch[nr_scratch - 1] == s)
			nr_scratch = nr_scratch - 1;
		pc_journal_sync();
	}
	sigprocmask(SIG_SETMASK, old, NULL);
	return err;
}

/* mkdir 0700, or accept an existing real directory (not a symlink). */
static int make_dir(struct pc_scratch *s, char *why, size_t why_len)
{
	struct stat st;
	int err;

	err = journal(&s->j_dir, "dir", s->dir, NULL, why, why_len);
	if (err)
		return err;
	if (!mkdir(s->dir, 0700)) {
		set_flag(s, SCR_DIR_MADE);
		return 0;
	}
	err = -errno;
	/* Not made here, so not ours to remove. */
	pc_journal_drop(s->j_dir);
	s->j_dir = -1;
	if (err != -EEXIST) {
		snprintf(why, why_len, "mkdir %s: %s", s->dir, strerror(-err));
		return err;
	}
	if (lstat(s->dir, &st)) {
		snprintf(why, why_len, "stat %s: %s", s->dir, strerror(errno));
		return -errno;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(why, why_len, "%s exists and is not a directory", s->dir);
		return -ENOTDIR;
	}
	return 0;
}

int pc_scratch_tmpfs(const char *dir, const char *options, char *why, size_t why_len)
{
	struct pc_scratch *s;
	sigset_t old;
	int err;

	if (!dir || !*dir || !why || !why_len)
		return -EINVAL;
	why[0] = '\0';
	s = new_record(dir, "", &old, why, why_len, &err);
	if (!s)
		return err;
	err = make_dir(s, why, why_len);
	if (err)
		return finish(s, err, &old);
	err = journal(&s->j_mount, "mount", dir, "tmpfs", why, why_len);
	if (err)
		return finish(s, err, &old);
	if (mount("tmpfs", dir, "tmpfs", MS_NOSUID | MS_NODEV, options)) {
		err = -errno;
		pc_journal_drop(s->j_mount);
		snprintf(why, why_len, "mount tmpfs on %s (%s): %s", dir, options ? options : "",
			 strerror(-err));
		return finish(s, err, &old);
	}
	set_flag(s, SCR_MOUNTED);
	return finish(s, 0, &old);
}

/*
 * Runs argv[0] (searched in PATH, then /usr/sbin and /sbin, which a
 * non-login root PATH may lack) with stdio on /dev/null and the caller's
 * signal mask undone.  The exit status, or -errno when it could not run
 * (-ENOENT: not installed).
 */
static int run_quiet(char *const argv[], const sigset_t *child_mask)
{
	char alt[2][PC_SCRATCH_PATH_MAX];
	int pipefd[2], status, child_err = 0, null;
	ssize_t n;
	pid_t pid;

	snprintf(alt[0], sizeof(alt[0]), "/usr/sbin/%s", argv[0]);
	snprintf(alt[1], sizeof(alt[1]), "/sbin/%s", argv[0]);
	/* exec errors come back through a close-on-exec pipe. */
	if (pipe2(pipefd, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		int err = -errno;

		close(pipefd[0]);
		close(pipefd[1]);
		return err;
	}
	if (pid == 0) {
		int e;

		sigprocmask(SIG_SETMASK, child_mask, NULL);
		null = open("/dev/null", O_RDWR);
		if (null >= 0) {
			dup2(null, STDIN_FILENO);
			dup2(null, STDOUT_FILENO);
			dup2(null, STDERR_FILENO);
		}
		execvp(argv[0], argv);
		e = errno;
		if (e == ENOENT) {
			execv(alt[0], argv);
			execv(alt[1], argv);
		}
		if (write(pipefd[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(pipefd[1]);
	do {
		n = read(pipefd[0], &child_err, sizeof(child_err));
	} while (n < 0 && errno == EINTR);
	close(pipefd[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (n == (ssize_t)sizeof(child_err) && child_err)
		return -child_err;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

/* Quiet, non-interactive flags per mkfs. */
static void mkfs_argv(const char *fstype, const char *image, char *prog, size_t len, char *argv[8])
{
	int i = 0;

	snprintf(prog, len, "mkfs.%s", fstype);
	argv[i++] = prog;
	if (!strncmp(fstype, "ext", 3)) {
		argv[i++] = "-q";
		argv[i++] = "-F";
	} else if (!strcmp(fstype, "xfs") || !strcmp(fstype, "btrfs")) {
		argv[i++] = "-q";
		argv[i++] = "-f";
	}
	argv[i++] = (char *)image;
	argv[i] = NULL;
}

/* /dev/loop-control, loading the loop module once if it is missing. */
static int open_loop_control(const sigset_t *child_mask, char *why, size_t why_len)
{
	static char *modprobe[] = {"modprobe", "-q", "loop", NULL};
	static int tried_modprobe;
	int fd, rc;

	fd = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	if (fd >= 0 || errno != ENOENT || tried_modprobe)
		goto out;
	tried_modprobe = 1;
	rc = run_quiet(modprobe, child_mask);
	fd = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT) {
		if (rc < 0)
			snprintf(why, why_len,
				 "no loop device support: /dev/loop-control is missing and "
				 "modprobe could not run: %s",
				 strerror(-rc));
		else
			snprintf(why, why_len,
				 "no loop device support: /dev/loop-control is missing, "
				 "even after modprobe loop (exit %d)",
				 rc);
		return -ENODEV;
	}
out:
	if (fd < 0) {
		int err = -errno;

		if (err == -EACCES || err == -EPERM)
			snprintf(why, why_len, "/dev/loop-control: %s (loop devices need root)",
				 strerror(errno));
		else
			snprintf(why, why_len, "no loop device support: /dev/loop-control: %s",
				 strerror(errno));
		return err == -ENOENT ? -ENODEV : err;
	}
	return fd;
}

/* Old kernels (before 5.8): attach, then set the flags. */
static int loop_attach_legacy(int loop_fd, int image_fd)
{
	struct loop_info64 info = {.lo_flags = LO_FLAGS_AUTOCLEAR};

	if (ioctl(loop_fd, LOOP_SET_FD, image_fd))
		return -errno;
	if (ioctl(loop_fd, LOOP_SET_STATUS64, &info)) {
		int err = -errno;

		ioctl(loop_fd, LOOP_CLR_FD, 0);
		return err;
	}
	return 0;
}

/* Attaches the image to a free loop device; s->loop_fd set, its path in dev. */
static int loop_attach(struct pc_scratch *s, const sigset_t *child_mask, char *dev, size_t dev_len,
		       char *why, size_t why_len)
{
	struct loop_config cfg;
	int ctl, image_fd, loop_fd = -1, nr, err = 0, tries;

	ctl = open_loop_control(child_mask, why, why_len);
	if (ctl < 0)
		return ctl;
	image_fd = open(s->image, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	if (image_fd < 0) {
		err = -errno;
		snprintf(why, why_len, "reopening %s: %s", s->image, strerror(errno));
		close(ctl);
		return err;
	}
	for (tries = 0; tries < PC_LOOP_TRIES; tries++) {
		nr = ioctl(ctl, LOOP_CTL_GET_FREE);
		if (nr < 0) {
			err = -errno;
			snprintf(why, why_len, "no free loop device: LOOP_CTL_GET_FREE: %s",
				 strerror(errno));
			break;
		}
		snprintf(dev, dev_len, "/dev/loop%d", nr);
		/* Restore finds the device by its backing file; dev is for the reader. */
		err = journal(&s->j_loop, "loop", dev, s->image, why, why_len);
		if (err)
			break;
		loop_fd = open(dev, O_RDWR | O_CLOEXEC);
		if (loop_fd < 0) {
			err = -errno;
			snprintf(why, why_len, "opening %s: %s", dev, strerror(errno));
			pc_journal_drop(s->j_loop);
			s->j_loop = -1;
			break;
		}
		memset(&cfg, 0, sizeof(cfg));
		cfg.fd = (__u32)image_fd;
		cfg.info.lo_flags = LO_FLAGS_AUTOCLEAR;
		snprintf((char *)cfg.info.lo_file_name, sizeof(cfg.info.lo_file_name), "%s",
			 s->image);
		err = ioctl(loop_fd, LOOP_CONFIGURE, &cfg) ? -errno : 0;
		if (err == -EINVAL || err == -ENOTTY)
			err = loop_attach_legacy(loop_fd, image_fd);
		if (!err)
			break;
		close(loop_fd);
		loop_fd = -1;
		pc_journal_drop(s->j_loop);
		s->j_loop = -1;
		snprintf(why, why_len, "attaching %s to %s: %s", s->image, dev, strerror(-err));
		/* EBUSY: another process took the device between GET_FREE and here. */
		if (err != -EBUSY)
			break;
	}
	close(image_fd);
	close(ctl);
	if (err)
		return err;
	s->loop_fd = loop_fd;
	set_flag(s, SCR_LOOP);
	return 0;
}

int pc_scratch_blockfs(const char *dir, const char *fstype, unsigned int size_mb, char *why,
		       size_t why_len)
{
	char prog[64], dev[64], *argv[8];
	struct pc_scratch *s;
	sigset_t old;
	int fd, err, rc;

	if (!dir || !*dir || !fstype || !*fstype || strchr(fstype, '/') || !size_mb || !why ||
	    !why_len)
		return -EINVAL;
	why[0] = '\0';
	s = new_record(dir, ".img", &old, why, why_len, &err);
	if (!s)
		return err;

	err = journal(&s->j_image, "file", s->image, NULL, why, why_len);
	if (err)
		return finish(s, err, &old);
	/* Sparse: only what the filesystem writes takes space. */
	fd = open(s->image, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		err = -errno;
		/* EEXIST: someone else's file, not ours to delete. */
		pc_journal_drop(s->j_image);
		s->j_image = -1;
		snprintf(why, why_len, "creating image %s: %s", s->image, strerror(-err));
		return finish(s, err, &old);
	}
	set_flag(s, SCR_IMAGE);
	if (ftruncate(fd, (off_t)size_mb << 20)) {
		err = -errno;
		snprintf(why, why_len, "sizing image %s to %u MiB: %s", s->image, size_mb,
			 strerror(errno));
		close(fd);
		return finish(s, err, &old);
	}
	close(fd);

	mkfs_argv(fstype, s->image, prog, sizeof(prog), argv);
	rc = run_quiet(argv, &old);
	if (rc) {
		if (rc == -ENOENT)
			snprintf(why, why_len, "%s not found (not in PATH, /usr/sbin or /sbin)",
				 prog);
		else if (rc < 0)
			snprintf(why, why_len, "running %s: %s", prog, strerror(-rc));
		else
			snprintf(why, why_len, "%s %s failed (exit status %d)", prog, s->image, rc);
		return finish(s, rc < 0 ? rc : -EIO, &old);
	}

	err = loop_attach(s, &old, dev, sizeof(dev), why, why_len);
	if (err)
		return finish(s, err, &old);

	err = make_dir(s, why, why_len);
	if (err)
		return finish(s, err, &old);
	err = journal(&s->j_mount, "mount", dir, fstype, why, why_len);
	if (err)
		return finish(s, err, &old);
	if (mount(dev, dir, fstype, MS_NOSUID | MS_NODEV, NULL)) {
		err = -errno;
		pc_journal_drop(s->j_mount);
		snprintf(why, why_len, "mount %s (%s) on %s: %s", dev, fstype, dir, strerror(-err));
		return finish(s, err, &old);
	}
	set_flag(s, SCR_MOUNTED);
	return finish(s, 0, &old);
}
