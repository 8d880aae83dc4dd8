// SPDX-License-Identifier: GPL-2.0
/*
 * Reading the journals of /run/ptecheck for `ptecheck restore`, and
 * removing or rewriting one once its records are undone.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "journal.h"

/* A journal holds at most a few hundred short lines. */
#define JOURNAL_FILE_MAX (1 << 20)

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
static int parse_line(char *line, struct pc_rec *r, char *why, size_t len)
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

static struct pc_rec *new_rec(struct pc_restore *st)
{
	struct pc_rec *r;

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
static int read_journal(struct pc_restore *st, const char *name, char **out, size_t *out_len,
			char *why, size_t len)
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

static bool owner_alive(const struct pc_restore *st, const struct pc_journal *j)
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
static int load_journal(struct pc_restore *st, struct pc_journal *j)
{
	char why[256], *buf = NULL, *line, *nl;
	size_t size = 0;
	unsigned int seq = 0;
	int err;

	err = read_journal(st, j->name, &buf, &size, why, sizeof(why));
	if (err) {
		pc_restore_warn("%s", why);
		j->unreadable = true;
		st->io_err = 1;
		return err;
	}
	for (line = buf; *line; line = nl + 1) {
		struct pc_rec *r;

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
			pc_restore_warn("%s/%s: record %u unreadable (%s): kept", PC_JOURNAL_DIR,
					j->name, seq, why);
			r->state = PC_REC_BAD;
		} else if (r->pid != j->pid) {
			pc_restore_warn("%s/%s: record %u belongs to pid %d: kept", PC_JOURNAL_DIR,
					j->name, seq, (int)r->pid);
			r->state = PC_REC_BAD;
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
	return strcmp(((const struct pc_journal *)a)->name, ((const struct pc_journal *)b)->name);
}

int pc_restore_load(struct pc_restore *st, char *why, size_t len)
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
		struct pc_journal *j;
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
		struct pc_journal *j = &st->j[i];

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

void pc_restore_free(struct pc_restore *st)
{
	free(st->j);
	free(st->r);
	if (st->dfd >= 0)
		close(st->dfd);
}

int pc_restore_finish_journal(struct pc_restore *st, struct pc_journal *j)
{
	char tmp[80];
	int fd, kept = 0, err = 0;

	for (int i = 0; i < st->nr; i++)
		if (st->r[i].j == j - st->j && st->r[i].state != PC_REC_DONE)
			kept++;
	if (st->dry)
		return kept;
	if (!kept) {
		if (unlinkat(st->dfd, j->name, 0) && errno != ENOENT) {
			pc_restore_warn("removing %s/%s: %s", PC_JOURNAL_DIR, j->name,
					strerror(errno));
			return -errno;
		}
		return 0;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp", j->name);
	fd = openat(st->dfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		err = -errno;
	for (int i = 0; i < st->nr && !err; i++) {
		struct pc_rec *r = &st->r[i];
		size_t n = strlen(r->line);

		if (r->j == j - st->j && r->state != PC_REC_DONE &&
		    write(fd, r->line, n) != (ssize_t)n)
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
		pc_restore_warn("rewriting %s/%s: %s", PC_JOURNAL_DIR, j->name, strerror(-err));
		return err;
	}
	fsync(st->dfd);
	return kept;
}
