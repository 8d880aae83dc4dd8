// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE /* setresuid, setresgid */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cli.h"
#include "privilege.h"

static int last_cap(void)
{
	FILE *f = fopen("/proc/sys/kernel/cap_last_cap", "re");
	int last = 40; /* CAP_CHECKPOINT_RESTORE: the last one as of 6.x */

	if (f) {
		if (fscanf(f, "%d", &last) != 1 || last < 0 || last > 63)
			last = 40;
		fclose(f);
	}
	return last;
}

static int caps_get(struct __user_cap_data_struct data[2])
{
	struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3};

	memset(data, 0, 2 * sizeof(*data));
	return syscall(SYS_capget, &hdr, data) ? -errno : 0;
}

unsigned long long pc_caps_effective(void)
{
	struct __user_cap_data_struct data[2];

	if (caps_get(data))
		return 0;
	return data[0].effective | ((unsigned long long)data[1].effective << 32);
}

int pc_caps_limit(unsigned long long keep)
{
	struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct data[2];
	int last = last_cap(), err;

	err = caps_get(data);
	if (err)
		return err;
	/* The bounding set first: dropping from it needs CAP_SETPCAP, which
	   the capset below takes away. */
	for (int cap = 0; cap <= last; cap++) {
		if (keep & (1ULL << cap))
			continue;
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) && errno != EINVAL)
			return -errno;
	}
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) && errno != EINVAL)
		return -errno;
	for (int w = 0; w < 2; w++) {
		__u32 mask = (__u32)(keep >> (32 * w));

		data[w].permitted &= mask;
		data[w].effective &= mask;
		data[w].inheritable &= mask;
	}
	if (syscall(SYS_capset, &hdr, data))
		return -errno;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -errno;
	return 0;
}

int pc_caps_limit_if_privileged(unsigned long long keep)
{
	return pc_caps_effective() ? pc_caps_limit(keep) : 0;
}

/* A uid or gid: decimal, below (uid_t)-1 (which means "no change"). */
static bool parse_id(const char *s, unsigned long *out)
{
	return s && pc_parse_ulong(s, out) && *out < (uid_t)-1;
}

int pc_user_lookup(const char *spec, struct pc_user *u)
{
	struct passwd *pw;
	unsigned long id;

	memset(u, 0, sizeof(*u));
	if (!spec || !*spec)
		return -EINVAL;
	errno = 0;
	pw = getpwnam(spec);
	if (!pw && *spec >= '0' && *spec <= '9') {
		if (!parse_id(spec, &id))
			return -EINVAL;
		pw = getpwuid((uid_t)id);
		if (!pw) {
			/* A uid with no passwd entry: its own gid, no groups. */
			u->uid = (uid_t)id;
			u->gid = (gid_t)id;
			return 0;
		}
	}
	if (!pw)
		return errno ? -errno : -ENOENT;
	u->uid = pw->pw_uid;
	u->gid = pw->pw_gid;
	snprintf(u->name, sizeof(u->name), "%s", pw->pw_name);
	return 0;
}

int pc_become_user(const struct pc_user *u)
{
	int err = u->name[0] ? initgroups(u->name, u->gid) : setgroups(1, &u->gid);

	if (err)
		return -errno;
	if (setresgid(u->gid, u->gid, u->gid) || setresuid(u->uid, u->uid, u->uid))
		return -errno;
	/* Proof that it is for good: root could switch back. */
	if (u->uid != 0 && setuid(0) == 0)
		return -EPERM;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -errno;
	return 0;
}

bool pc_report_user(struct pc_user *u)
{
	unsigned long uid, gid;
	struct passwd *pw;

	if (geteuid() != 0 || !parse_id(getenv("SUDO_UID"), &uid) || uid == 0)
		return false;
	memset(u, 0, sizeof(*u));
	u->uid = (uid_t)uid;
	u->gid = parse_id(getenv("SUDO_GID"), &gid) ? (gid_t)gid : (gid_t)uid;
	pw = getpwuid(u->uid);
	if (pw)
		snprintf(u->name, sizeof(u->name), "%s", pw->pw_name);
	return true;
}

/* Child side: become u, open, send the descriptor or the errno back. */
static void __attribute__((noreturn))
open_child(int sock, const struct pc_user *u, const char *path, int flags, mode_t mode)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	int err = 0, fd = -1;
	struct iovec iov = {.iov_base = &err, .iov_len = sizeof(err)};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};

	err = pc_become_user(u);
	if (!err) {
		fd = open(path, flags, mode);
		if (fd < 0)
			err = -errno;
	}
	if (fd >= 0) {
		struct cmsghdr *c;

		memset(cbuf, 0, sizeof(cbuf));
		msg.msg_control = cbuf;
		msg.msg_controllen = sizeof(cbuf);
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	_exit(sendmsg(sock, &msg, 0) == (ssize_t)sizeof(err) ? 0 : 1);
}

int pc_open_as_user(const struct pc_user *u, const char *path, int flags, mode_t mode)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	int sv[2], err = -EIO, fd = -1, status;
	struct iovec iov = {.iov_base = &err, .iov_len = sizeof(err)};
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = cbuf,
		.msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *c;
	ssize_t n;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		return -errno;
	fflush(NULL); /* no buffered output is written twice */
	pid = fork();
	if (pid < 0) {
		err = -errno;
		close(sv[0]);
		close(sv[1]);
		return err;
	}
	if (pid == 0) {
		close(sv[0]);
		open_child(sv[1], u, path, flags, mode);
	}
	close(sv[1]);
	do {
		n = recvmsg(sv[0], &msg, MSG_CMSG_CLOEXEC);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		err = -errno;
	else if (n != (ssize_t)sizeof(err))
		err = -EIO;
	close(sv[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	c = n > 0 ? CMSG_FIRSTHDR(&msg) : NULL;
	if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
		memcpy(&fd, CMSG_DATA(c), sizeof(int));
	if (err == 0 && fd >= 0)
		return fd;
	if (fd >= 0)
		close(fd);
	return err ? err : -EIO;
}
