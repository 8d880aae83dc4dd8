// SPDX-License-Identifier: GPL-2.0
/*
 * lib/command.c's machine lock (/run/ptecheck.lock): a forked child does
 * not keep it (a scenario's child outliving a killed run held the next
 * run for a second), the holder keeps it while the child lives, and
 * pc_machine_unlock() gives it back.  Needs root and a free lock (skips
 * otherwise: another run may hold it).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>
#include "command.h"
#include "tap.h"

/* Whether another open of the lock file can take the lock now. */
static bool lock_free(void)
{
	int fd = open(PC_MACHINE_LOCK, O_RDWR | O_CLOEXEC);
	bool free_now;

	if (fd < 0)
		return false;
	free_now = flock(fd, LOCK_EX | LOCK_NB) == 0;
	close(fd);
	return free_now;
}

int main(void)
{
	int fd, status, up[2], down[2];
	char c;
	pid_t pid;

	tap_plan(0);
	if (geteuid() != 0) {
		tap_skip("needs root (/run/ptecheck.lock)");
		return tap_finish();
	}
	fd = pc_machine_lock(NULL);
	if (fd < 0) {
		tap_skip("%s: %s", PC_MACHINE_LOCK,
			 fd == -EWOULDBLOCK ? "held by another run" : strerror(-fd));
		return tap_finish();
	}
	if (pipe(up) || pipe(down)) {
		tap_result(0, "pipe: %s", strerror(errno));
		return tap_finish();
	}
	pid = fork();
	if (pid == 0) {
		/* The child reports whether it still has the descriptor, then
		   lives on (like an orphaned scenario child) until told. */
		int has = fcntl(fd, F_GETFD) != -1;

		if (write(up[1], has ? "1" : "0", 1) != 1 || read(down[0], &c, 1) < 0)
			_exit(2);
		_exit(0);
	}
	TAP_CHECK(pid > 0, "fork");
	if (pid <= 0)
		return tap_finish();
	TAP_CHECK(read(up[0], &c, 1) == 1 && c == '0',
		  "a forked child does not inherit the lock's descriptor");
	TAP_CHECK(!lock_free(), "the holder keeps the lock while its child lives");
	pc_machine_unlock(fd);
	TAP_CHECK(lock_free(), "unlocked with the child still alive: the lock is free");
	TAP_CHECK(write(down[1], "x", 1) == 1, "child told to end");
	TAP_CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && !WEXITSTATUS(status),
		  "child exited 0");
	return tap_finish();
}
