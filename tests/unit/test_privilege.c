// SPDX-License-Identifier: GPL-2.0
/*
 * lib/privilege.c: the capability trim of scenario processes and
 * stressors, `watch --user`, and report files opened with the sudo user's
 * rights.  Each case runs in a child, so this process keeps root for the
 * next.  Needs root (skips otherwise).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "privilege.h"
#include "tap.h"

#define NOBODY 65534

static char locked_file[] = "/tmp/pc-priv-locked-XXXXXX"; /* mode 0000 */

/* Runs fn in a child; its exit code (0 = all its expectations held). */
static int in_child(int (*fn)(void))
{
	int status;
	pid_t pid = fork();

	if (pid == 0)
		_exit(fn());
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static int trim_to_scenario_set(void)
{
	if (pc_caps_limit(PC_CAPS_SCENARIO))
		return 1;
	if (pc_caps_effective() != PC_CAPS_SCENARIO)
		return 2;
	if (prctl(PR_CAPBSET_READ, 39 /* CAP_BPF */, 0, 0, 0) != 0)
		return 3; /* still in the bounding set: an exec could regain it */
	if (prctl(PR_CAPBSET_READ, 21 /* CAP_SYS_ADMIN */, 0, 0, 0) != 1)
		return 4;
	if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1)
		return 5;
	return 0;
}

static int trim_to_nothing(void)
{
	if (pc_caps_limit(PC_CAPS_NONE))
		return 1;
	if (pc_caps_effective() != 0)
		return 2;
	/* uid 0 without CAP_DAC_OVERRIDE: a 0000 file is unreadable. */
	if (open(locked_file, O_RDONLY) >= 0)
		return 3;
	return 0;
}

static int become_nobody(void)
{
	struct pc_user u;

	if (pc_user_lookup("65534", &u) || u.uid != NOBODY)
		return 1;
	if (pc_become_user(&u))
		return 2;
	if (getuid() != NOBODY || geteuid() != NOBODY || getgid() != u.gid)
		return 3;
	if (setuid(0) == 0 || pc_caps_effective() != 0)
		return 4; /* could regain root */
	return 0;
}

int main(void)
{
	char dir[] = "/tmp/pc-priv-XXXXXX", path[64], sticky[64];
	struct pc_user u;
	struct stat st;
	int fd;

	tap_plan(0);
	if (geteuid() != 0) {
		tap_skip("needs root");
		return tap_finish();
	}
	TAP_CHECK_EQ(in_child(trim_to_scenario_set), 0,
		     "scenario trim: only SYS_ADMIN, IPC_LOCK, DAC_OVERRIDE, FOWNER; "
		     "bounding set and no_new_privs keep it so");
	fd = mkstemp(locked_file);
	if (fd >= 0) {
		fchmod(fd, 0);
		close(fd);
		TAP_CHECK_EQ(in_child(trim_to_nothing), 0,
			     "stressor trim: no capability left, a mode-0000 file closed to it");
		unlink(locked_file);
	} else {
		tap_skip("mkstemp failed");
	}
	TAP_CHECK_EQ(in_child(become_nobody), 0, "--user: uid, gid and groups for good");

	TAP_CHECK_EQ(pc_user_lookup("root", &u), 0, "user 'root' is found");
	TAP_CHECK_EQ(u.uid, 0, "root is uid 0");
	TAP_CHECK_EQ(pc_user_lookup("no-such-user-pc", &u), -ENOENT, "an unknown name: ENOENT");
	TAP_CHECK_EQ(pc_user_lookup("12x", &u), -EINVAL, "a malformed uid: EINVAL");
	TAP_CHECK_EQ(pc_user_lookup("", &u), -EINVAL, "an empty name: EINVAL");

	/* The sudo user's rights for reports. */
	setenv("SUDO_UID", "65534", 1);
	setenv("SUDO_GID", "65534", 1);
	TAP_CHECK(pc_report_user(&u) && u.uid == NOBODY, "SUDO_UID names the report's user");
	setenv("SUDO_UID", "0", 1);
	TAP_CHECK(!pc_report_user(&u), "sudo from root: reports stay root's");
	unsetenv("SUDO_UID");
	TAP_CHECK(!pc_report_user(&u), "no sudo: reports stay root's");

	if (!mkdtemp(dir)) {
		tap_skip("mkdtemp failed");
		return tap_finish();
	}
	pc_user_lookup("65534", &u);
	snprintf(path, sizeof(path), "%s/report.txt", dir);
	fd = pc_open_as_user(&u, path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	TAP_CHECK_EQ(fd, -EACCES, "nobody cannot create a report in root's 0700 directory");
	if (fd >= 0)
		close(fd);
	TAP_CHECK(access(path, F_OK) != 0, "and root did not create it either");

	chmod(dir, 01777);
	snprintf(sticky, sizeof(sticky), "%s/mine.txt", dir);
	fd = pc_open_as_user(&u, sticky, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	TAP_CHECK(fd >= 0, "nobody creates a report in a sticky world-writable directory");
	if (fd >= 0) {
		TAP_CHECK(write(fd, "x\n", 2) == 2, "the passed descriptor is writable");
		TAP_CHECK(fstat(fd, &st) == 0 && st.st_uid == NOBODY,
			  "the report belongs to the user, not root");
		close(fd);
	}
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600); /* root's own file */
	if (fd >= 0)
		close(fd);
	fd = pc_open_as_user(&u, path, O_WRONLY | O_TRUNC | O_CLOEXEC, 0644);
	TAP_CHECK_EQ(fd, -EACCES, "nobody cannot truncate root's 0600 file");
	if (fd >= 0)
		close(fd);
	unlink(path);
	unlink(sticky);
	rmdir(dir);
	return tap_finish();
}
