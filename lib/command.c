// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/file.h>
#include <unistd.h>
#include "cli.h"
#include "command.h"

int pc_cmd_getopt(struct pc_cmd_opts *o, int argc, char **argv)
{
	int c = getopt_long(argc, argv, o->shortopts, o->longopts, NULL);

	o->exit_code = -1;
	switch (c) {
	case 'h':
		o->usage(stdout);
		o->exit_code = PC_EXIT_PASS;
		return -1;
	case '?':
	case ':':
		o->usage(stderr);
		o->exit_code = PC_EXIT_USAGE;
		return -1;
	case -1:
		if (optind < argc) {
			pc_err(0, "%s%sunexpected argument '%s'", o->name ? o->name : "",
			       o->name ? ": " : "", argv[optind]);
			o->exit_code = PC_EXIT_USAGE;
		}
		return -1;
	}
	return c;
}

static volatile sig_atomic_t lock_signal;

static void on_lock_signal(int sig)
{
	lock_signal = sig;
}

/* Waits for the lock on fd: 0, -EINTR after a signal (raised again), or -errno. */
static int wait_lock(int fd)
{
	static const int wake[3] = {SIGINT, SIGTERM, SIGHUP};
	struct sigaction sa = {.sa_handler = on_lock_signal}, old[3];
	int err;

	/* Without SA_RESTART a signal ends flock() rather than being noticed
	   once the other run has ended; an ignored signal stays ignored. */
	lock_signal = 0;
	sigemptyset(&sa.sa_mask);
	for (int i = 0; i < 3; i++) {
		sigaction(wake[i], NULL, &old[i]);
		if (old[i].sa_handler != SIG_IGN)
			sigaction(wake[i], &sa, NULL);
	}
	do {
		err = lock_signal ? -EINTR : flock(fd, LOCK_EX) ? -errno : 0;
	} while (err == -EINTR && !lock_signal);
	for (int i = 0; i < 3; i++)
		sigaction(wake[i], &old[i], NULL);
	/* The caller's own disposition sees the signal: its handler, or the end. */
	if (lock_signal)
		raise(lock_signal);
	return err;
}

/* The lock's descriptor while held.  flock() belongs to the open file,
   which a fork shares: a scenario's child that outlives a killed run
   would hold the machine for the next one.  O_CLOEXEC covers children
   that exec; every fork closes it in the child. */
static int held_fd = -1;

static void drop_in_child(void)
{
	if (held_fd >= 0)
		close(held_fd);
	held_fd = -1;
}

static int hold(int fd)
{
	static bool registered;
	int err;

	if (!registered) {
		err = pthread_atfork(NULL, NULL, drop_in_child);
		if (err) {
			close(fd);
			return -err;
		}
		registered = true;
	}
	held_fd = fd;
	return fd;
}

int pc_machine_lock(const char *waiting)
{
	int fd = open(PC_MACHINE_LOCK, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	int err;

	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX | LOCK_NB) == 0)
		return hold(fd);
	err = -errno;
	if (err == -EWOULDBLOCK && waiting) {
		fprintf(stderr, "ptecheck: %s\n", waiting);
		err = wait_lock(fd);
		if (!err)
			return hold(fd);
	}
	close(fd);
	return err;
}

void pc_machine_unlock(int fd)
{
	if (fd < 0)
		return;
	if (fd == held_fd)
		held_fd = -1;
	close(fd);
}
