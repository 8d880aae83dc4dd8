// SPDX-License-Identifier: GPL-2.0
/*
 * Record-then-change for system settings.  The old value of each path is
 * stored, already formatted for writing back, before the first change, so
 * that restoring needs only open/write/close and is safe from a signal
 * handler.  The same record goes to the crash-safe journal first (see
 * settings.h), fsync'ed before the change.
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
#include <time.h>
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
	int jid; /* journal record */
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

void pc_block_fatal_signals(sigset_t *old)
{
	sigset_t block;
	size_t i;

	sigemptyset(&block);
	for (i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++)
		sigaddset(&block, fatal_signals[i]);
	sigprocmask(SIG_BLOCK, &block, old);
}

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

/* ---- crash-safe journal (settings.h) ---- */

#define PC_JOURNAL_MAX 160

enum { J_UNKNOWN, J_READY, J_NONE, J_REFUSED };

struct pc_jrec {
	char line[PC_JOURNAL_LINE_MAX];
	size_t len;
	pid_t owner;
	volatile sig_atomic_t live;
};

static struct pc_jrec jrecs[PC_JOURNAL_MAX];
static volatile sig_atomic_t nr_jrecs;
static int jstate = J_UNKNOWN, jerr, jdir_fd = -1;
static char jwhy[320];
/* This process's journal file, named in advance for the signal path. */
static pid_t jfile_pid;
static char jname[40], jtmp[48], jboot[40];
static unsigned long long jstart;

const char *pc_journal_error(void)
{
	return jwhy;
}

int pc_journal_open_dir(int create, int *unsafe, char *why, size_t why_len)
{
	const char *dir = PC_JOURNAL_DIR;
	struct stat st;
	int fd, made = 0, err;

	*unsafe = 0;
	if (create) {
		if (!mkdir(dir, 0700)) {
			made = 1;
		} else if (errno != EEXIST) {
			err = -errno;
			snprintf(why, why_len, "creating %s: %s", dir, strerror(errno));
			return err;
		}
	}
	/* O_NOFOLLOW: a symlink planted in /run must not redirect root's writes. */
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		if (!lstat(dir, &st) && !S_ISDIR(st.st_mode)) {
			*unsafe = 1;
			snprintf(why, why_len, "%s is %s, not a directory: refusing to use it", dir,
				 S_ISLNK(st.st_mode) ? "a symlink" : "a file");
			return -ENOTDIR;
		}
		snprintf(why, why_len, "opening %s: %s", dir, strerror(-err));
		return err;
	}
	/* The umask may have taken bits off: exactly 0700. */
	if (made && fchmod(fd, 0700)) {
		err = -errno;
		snprintf(why, why_len, "chmod 0700 %s: %s", dir, strerror(errno));
		close(fd);
		return err;
	}
	if (fstat(fd, &st)) {
		err = -errno;
		snprintf(why, why_len, "stat %s: %s", dir, strerror(errno));
		close(fd);
		return err;
	}
	/* Anyone else who can write there could plant records root would act on. */
	if (!S_ISDIR(st.st_mode) || st.st_uid != 0 || (st.st_mode & 07777) != 0700) {
		*unsafe = 1;
		snprintf(why, why_len,
			 "%s is not a root-owned 0700 directory (owner uid %u, mode %04o): "
			 "refusing to use it",
			 dir, (unsigned int)st.st_uid, (unsigned int)(st.st_mode & 07777));
		close(fd);
		return -EPERM;
	}
	return fd;
}

/* Escapes src into dst as a journal field.  0 or -ENAMETOOLONG. */
static int journal_escape(char *dst, size_t len, const char *src)
{
	static const char octal[] = "01234567";
	size_t o = 0;

	if (!*src) {
		/* An empty field would vanish between the separators. */
		if (len < 5)
			return -ENAMETOOLONG;
		memcpy(dst, "\\000", 5);
		return 0;
	}
	for (; *src; src++) {
		unsigned char c = (unsigned char)*src;

		if (c <= ' ' || c == 0x7f || c == '\\') {
			if (o + 4 >= len)
				return -ENAMETOOLONG;
			dst[o++] = '\\';
			dst[o++] = octal[c >> 6];
			dst[o++] = octal[(c >> 3) & 7];
			dst[o++] = octal[c & 7];
		} else {
			if (o + 1 >= len)
				return -ENAMETOOLONG;
			dst[o++] = (char)c;
		}
	}
	dst[o] = '\0';
	return 0;
}

int pc_journal_unescape(char *s)
{
	char *in = s, *out = s;

	while (*in) {
		if (*in != '\\') {
			*out++ = *in++;
			continue;
		}
		if (in[1] < '0' || in[1] > '3' || in[2] < '0' || in[2] > '7' || in[3] < '0' ||
		    in[3] > '7')
			return -EINVAL;
		*out++ = (char)(((in[1] - '0') << 6) | ((in[2] - '0') << 3) | (in[3] - '0'));
		in += 4;
	}
	*out = '\0';
	return 0;
}

int pc_proc_starttime(pid_t pid, unsigned long long *start)
{
	char path[64], buf[1024], *p, *end;
	int err, field;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	err = pc_read_file(path, buf, sizeof(buf));
	if (err)
		return err;
	/* comm may hold spaces and ')': the fields start after the last ')'. */
	p = strrchr(buf, ')');
	if (!p)
		return -EINVAL;
	/* p + 2 is field 3 (state); starttime is field 22. */
	p += 2;
	/* A zombie has died: it will undo nothing. */
	if (*p == 'Z' || *p == 'X' || *p == 'x')
		return -ESRCH;
	for (field = 3; field < 22; field++) {
		p = strchr(p, ' ');
		if (!p)
			return -EINVAL;
		p++;
	}
	errno = 0;
	*start = strtoull(p, &end, 10);
	if (errno || end == p)
		return -EINVAL;
	return 0;
}

void pc_boot_id(char *buf, size_t len)
{
	if (pc_read_file("/proc/sys/kernel/random/boot_id", buf, len) || !buf[0] ||
	    strchr(buf, ' '))
		snprintf(buf, len, "-");
}

/* Decides once per process whether there is a journal, and whether it is safe. */
static void journal_init(void)
{
	int fd, unsafe;

	fd = pc_journal_open_dir(1, &unsafe, jwhy, sizeof(jwhy));
	if (fd >= 0) {
		jdir_fd = fd;
		jstate = J_READY;
		return;
	}
	/* No /run (initramfs), read-only, or not root (a fake sysfs tree): as before. */
	if (!unsafe && (fd == -ENOENT || fd == -EROFS ||
			((fd == -EACCES || fd == -EPERM) && geteuid() != 0))) {
		jstate = J_NONE;
		return;
	}
	jstate = J_REFUSED;
	jerr = fd;
	fprintf(stderr, "ptecheck: journal: %s; making no system change that it cannot record\n",
		jwhy);
}

/* Names this process's journal (a forked child gets its own). */
static int journal_self(pid_t self)
{
	int err;

	if (jfile_pid == self)
		return 0;
	err = pc_proc_starttime(self, &jstart);
	if (err) {
		snprintf(jwhy, sizeof(jwhy), "reading /proc/%d/stat: %s", (int)self,
			 strerror(-err));
		return err;
	}
	if (!jboot[0])
		pc_boot_id(jboot, sizeof(jboot));
	snprintf(jname, sizeof(jname), PC_JOURNAL_PREFIX "%d", (int)self);
	snprintf(jtmp, sizeof(jtmp), PC_JOURNAL_PREFIX "%d.tmp", (int)self);
	jfile_pid = self;
	return 0;
}

/* Async-signal-safe. */
static int write_all(int fd, const char *buf, size_t len)
{
	ssize_t n;

	while (len) {
		n = write(fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

static int journal_append(const struct pc_jrec *r)
{
	struct stat st;
	int fd, err = 0;

	fd = openat(jdir_fd, jname, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	err = write_all(fd, r->line, r->len);
	if (!err && fsync(fd))
		err = -errno;
	/* A torn line would glue itself to the next record. */
	if (err && ftruncate(fd, st.st_size))
		err = -EIO;
	close(fd);
	/* The file's name must be as durable as its content. */
	if (!err && st.st_size == 0 && fsync(jdir_fd))
		err = -errno;
	return err;
}

int pc_journal_add(int *id, const char *kind, const char *a1, const char *a2)
{
	char e1[PC_JOURNAL_ARG_MAX], e2[PC_JOURNAL_ARG_MAX];
	pid_t self = getpid();
	struct pc_jrec *r;
	struct timespec ts;
	sigset_t old;
	int n, err = 0, len;

	*id = -1;
	if (!kind || !a1)
		return -EINVAL;
	pc_block_fatal_signals(&old);
	if (jstate == J_UNKNOWN)
		journal_init();
	if (jstate == J_NONE)
		goto out;
	if (jstate == J_REFUSED) {
		err = jerr;
		goto out;
	}
	/* Without /proc/self/stat no restore could tell this process alive: no journal. */
	if (journal_self(self)) {
		jstate = J_NONE;
		goto out;
	}
	/* Undone records at the end are free again (a long bench mounts many times). */
	n = nr_jrecs;
	while (n > 0 && !jrecs[n - 1].live)
		n--;
	nr_jrecs = n;
	if (n >= PC_JOURNAL_MAX) {
		snprintf(jwhy, sizeof(jwhy), "more than %d journal records", PC_JOURNAL_MAX);
		err = -ENOSPC;
		goto out;
	}
	if (journal_escape(e1, sizeof(e1), a1) || (a2 && journal_escape(e2, sizeof(e2), a2))) {
		snprintf(jwhy, sizeof(jwhy), "a journal field of %s is too long", kind);
		err = -ENAMETOOLONG;
		goto out;
	}
	/* Wall-clock time orders records across processes (workloads under a run). */
	clock_gettime(CLOCK_REALTIME, &ts);
	r = &jrecs[n];
	len = snprintf(r->line, sizeof(r->line), PC_JOURNAL_VERSION " %llu %d %llu %s %s %s%s%s\n",
		       (unsigned long long)ts.tv_sec * 1000000000ULL +
			       (unsigned long long)ts.tv_nsec,
		       (int)self, jstart, jboot, kind, e1, a2 ? " " : "", a2 ? e2 : "");
	if (len < 0 || (size_t)len >= sizeof(r->line)) {
		snprintf(jwhy, sizeof(jwhy), "a journal record of %s is too long", kind);
		err = -ENAMETOOLONG;
		goto out;
	}
	r->len = (size_t)len;
	r->owner = self;
	err = journal_append(r);
	if (err) {
		snprintf(jwhy, sizeof(jwhy), "writing " PC_JOURNAL_DIR "/%s: %s", jname,
			 strerror(-err));
		goto out;
	}
	r->live = 1;
	atomic_signal_fence(memory_order_release);
	nr_jrecs = n + 1;
	*id = n;
out:
	sigprocmask(SIG_SETMASK, &old, NULL);
	return err;
}

void pc_journal_done(int id)
{
	if (id >= 0 && id < nr_jrecs && jrecs[id].owner == getpid())
		jrecs[id].live = 0;
}

int pc_journal_sync(void)
{
	pid_t self = getpid();
	int i, fd, live = 0, err = 0;

	if (jstate != J_READY || jfile_pid != self)
		return 0;
	atomic_signal_fence(memory_order_acquire);
	for (i = 0; i < nr_jrecs; i++)
		if (jrecs[i].owner == self && jrecs[i].live)
			live++;
	if (!live) {
		if (unlinkat(jdir_fd, jname, 0) && errno != ENOENT)
			return -errno;
		fsync(jdir_fd);
		return 0;
	}
	/* Write aside and rename: a crash leaves the old or the new journal, whole. */
	fd = openat(jdir_fd, jtmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	for (i = 0; i < nr_jrecs && !err; i++)
		if (jrecs[i].owner == self && jrecs[i].live)
			err = write_all(fd, jrecs[i].line, jrecs[i].len);
	if (!err && fsync(fd))
		err = -errno;
	close(fd);
	if (!err && renameat(jdir_fd, jtmp, jdir_fd, jname))
		err = -errno;
	if (err)
		unlinkat(jdir_fd, jtmp, 0);
	else
		fsync(jdir_fd);
	return err;
}

void pc_journal_drop(int id)
{
	pc_journal_done(id);
	pc_journal_sync();
}

static int find_setting(const char *path, pid_t self)
{
	int i;

	for (i = 0; i < nr_settings; i++)
		if (settings[i].owner == self && !strcmp(settings[i].path, path))
			return i;
	return -1;
}

/* Writes value to path, recording the old value first.  0 or -errno. */
static int setting_set(const char *path, const char *value)
{
	pid_t self = getpid();
	int n = 0, err, recorded = 0, jid = -1;
	struct pc_setting *s;
	sigset_t old;

	if (!path || !value)
		return -EINVAL;
	/* A handler sees the setting recorded and journaled, or neither. */
	pc_block_fatal_signals(&old);
	if (find_setting(path, self) < 0) {
		n = nr_settings;
		err = -ENOSPC;
		if (n >= PC_MAX_SETTINGS)
			goto out;
		err = -ENAMETOOLONG;
		if (strlen(path) >= sizeof(s->path))
			goto out;
		s = &settings[n];
		/* Choice files are written back as the bare word: "[madvise]" is not accepted. */
		err = pc_sysfs_choice(path, s->old, sizeof(s->old));
		if (err)
			goto out;
		/* Journaled (and fsync'ed) before the change: a SIGKILL cannot lose it. */
		err = pc_journal_add(&jid, "set", path, s->old);
		if (err)
			goto out;
		strcpy(s->path, path);
		s->old_len = strlen(s->old);
		s->owner = self;
		s->jid = jid;
		/* The entry must be complete before a handler can see it. */
		atomic_signal_fence(memory_order_release);
		nr_settings = n + 1;
		recorded = 1;
	}
	err = pc_write_file(path, value);
	/* Nothing changed, so nothing to restore. */
	if (err && recorded && nr_settings == n + 1) {
		nr_settings = n;
		pc_journal_drop(jid);
	}
out:
	sigprocmask(SIG_SETMASK, &old, NULL);
	return err;
}

int pc_settings_add_undo(int (*undo)(void))
{
	sigset_t old;
	pid_t self = getpid();
	int i, n, err = 0;

	if (!undo)
		return -EINVAL;
	/* A handler must not run the list while it grows. */
	pc_block_fatal_signals(&old);
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
	sigset_t old;
	pid_t self = getpid();
	int n, err = 0, rc;

	/* A signal during an atexit() restore waits until the records are consistent. */
	pc_block_fatal_signals(&old);
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
		/* A record not undone stays in the journal for `ptecheck restore`. */
		if (!rc)
			pc_journal_done(s->jid);
		else if (!err)
			err = rc;
	}
	nr_settings = 0;
	rc = pc_journal_sync();
	if (rc && !err)
		err = rc;
	sigprocmask(SIG_SETMASK, &old, NULL);
	return err;
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

/* The file of size_kb's mTHP mode into path: 0 or -ENAMETOOLONG. */
static int mthp_path(char *path, size_t size, unsigned int size_kb, int shmem)
{
	const char *root = getenv("PTECHECK_SYSFS_ROOT");
	int n = snprintf(path, size, "%s/kernel/mm/transparent_hugepage/hugepages-%ukB/%s",
			 root && *root ? root : "/sys", size_kb,
			 shmem ? "shmem_enabled" : "enabled");

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

int pc_mthp_set(unsigned int size_kb, int shmem, const char *mode)
{
	char path[PC_SETTING_PATH_MAX];
	int err = mthp_path(path, sizeof(path), size_kb, shmem);

	if (err)
		return err;
	/* An absent file means the kernel lacks this size; say so before recording. */
	if (access(path, F_OK))
		return -errno;
	return setting_set(path, mode);
}

int pc_setting_write(const char *path, const char *value)
{
	return setting_set(path, value);
}

int pc_setting_reset(const char *path)
{
	int i = find_setting(path, getpid());

	/* Still recorded: the exit restores it again, whatever it is then. */
	return i < 0 ? 0 : pc_write_file(path, settings[i].old);
}

int pc_mthp_reset(unsigned int size_kb, int shmem)
{
	char path[PC_SETTING_PATH_MAX];
	int err = mthp_path(path, sizeof(path), size_kb, shmem);

	return err ? err : pc_setting_reset(path);
}
