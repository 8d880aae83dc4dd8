// SPDX-License-Identifier: GPL-2.0
/*
 * The zram swap the reclaim stressor swaps to: added at the start of a
 * stress run, removed at its end, and by a janitor process should
 * ptecheck die without removing it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "settings.h"
#include "stress_int.h"

#ifndef __NR_close_range
#define __NR_close_range 436 /* the same number on every architecture */
#endif

/* The zram swap device this run added, torn down by zram_teardown(). */
static struct {
	bool added, swapped, was_on;
	char id[16];	/* as written back to hot_remove */
	char dev[32];	/* /dev/zramN */
	char reset[64]; /* /sys/block/zramN/reset */
	size_t bytes;
	char why[200]; /* why there is none */
} zram;

static const char zram_hot_add[] = "/sys/class/zram-control/hot_add";
static const char zram_hot_remove[] = "/sys/class/zram-control/hot_remove";

/* nanosleep: async-signal-safe, unlike usleep. */
static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* mkswap's work: a version-1 header and the signature, in the first page. */
static int write_swap_header(const char *dev, size_t bytes)
{
	/* sysconf, not stress_env: the mremap suite swaps here without --stress. */
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	struct {
		uint32_t version, last_page, nr_badpages;
	} h = {1, (uint32_t)(bytes / page - 1), 0};
	char *buf = calloc(1, page);
	int fd, err = 0;

	if (!buf)
		return -ENOMEM;
	memcpy(buf + 1024, &h, sizeof(h));
	memcpy(buf + page - 10, "SWAPSPACE2", 10);
	fd = open(dev, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		err = -errno;
	else if (pwrite(fd, buf, page, 0) != (ssize_t)page || fsync(fd))
		err = errno ? -errno : -EIO;
	if (fd >= 0)
		close(fd);
	free(buf);
	return err;
}

/* Async-signal-safe: also the undo's second half. */
static int zram_teardown(void)
{
	int err = 0;

	if (zram.swapped) {
		if (swapoff(zram.dev) == 0 || errno == EINVAL)
			zram.swapped = false;
		else
			err = -errno;
	}
	if (zram.added && !zram.swapped) {
		pc_write_file(zram.reset, "1");
		/* A prober (udev's blkid) may hold it open for a moment. */
		for (int i = 0; i < 50; i++) {
			err = pc_write_file(zram_hot_remove, zram.id);
			if (err != -EBUSY)
				break;
			sleep_ms(20);
		}
		if (!err)
			zram.added = false;
	}
	return err;
}

/*
 * The zram swap must not outlive ptecheck even when it is SIGKILLed (the
 * stressors die with it by PR_SET_PDEATHSIG): a janitor process, in a
 * session of its own, waits on a pipe only ptecheck writes to.  A byte
 * means "cleaned up"; end of file without one means ptecheck died, and the
 * janitor removes the swap and the device itself.
 */
static int janitor_wfd = -1;
static pid_t janitor_pid;

static void janitor_main(int rfd)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGCHLD};
	sigset_t none;
	ssize_t n;
	char c;

	setsid(); /* no terminal's signals */
	prctl(PR_SET_NAME, PC_STRESS_COMM_PREFIX "janitor");
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (dup2(rfd, 3) == 3 && syscall(__NR_close_range, 4U, ~0U, 0U)) {
		for (int fd = 4; fd < 4096; fd++)
			close(fd);
	}
	do {
		n = read(3, &c, 1);
	} while (n < 0 && errno == EINTR);
	if (n == 1)
		_exit(0);
	sleep_ms(200); /* let the stressors' exits free their swap */
	_exit(zram_teardown() ? 1 : 0);
}

static void janitor_start(void)
{
	int p[2];

	if (pipe2(p, O_CLOEXEC))
		return;
	janitor_pid = fork();
	if (janitor_pid == 0) {
		close(p[1]);
		janitor_main(p[0]);
	}
	close(p[0]);
	if (janitor_pid < 0) {
		janitor_pid = 0;
		close(p[1]);
		return;
	}
	janitor_wfd = p[1];
}

/* Async-signal-safe. */
static void janitor_dismiss(void)
{
	if (janitor_wfd >= 0) {
		if (write(janitor_wfd, "d", 1) != 1) {
			/* It exits on EOF anyway, and cleans up what is left. */
		}
		close(janitor_wfd);
		janitor_wfd = -1;
	}
	if (janitor_pid > 0) {
		while (waitpid(janitor_pid, NULL, 0) < 0 && errno == EINTR)
			;
		janitor_pid = 0;
	}
}

static int zram_setup(size_t bytes)
{
	char buf[32], path[96];
	struct stat st;
	int err;

	if (access(zram_hot_add, R_OK)) {
		snprintf(zram.why, sizeof(zram.why), "%s",
			 access("/sys/module/zram", F_OK)
				 ? "no zram (module not loaded; ptecheck loads no modules)"
				 : "no /sys/class/zram-control/hot_add");
		return -ENOENT;
	}
	/* Reading hot_add creates a device and returns its number. */
	err = pc_read_file(zram_hot_add, buf, sizeof(buf));
	if (err) {
		snprintf(zram.why, sizeof(zram.why), "zram hot_add: %s", strerror(-err));
		return err;
	}
	snprintf(zram.id, sizeof(zram.id), "%d", atoi(buf));
	snprintf(zram.dev, sizeof(zram.dev), "/dev/zram%s", zram.id);
	snprintf(zram.reset, sizeof(zram.reset), "/sys/block/zram%s/reset", zram.id);
	zram.added = true;
	zram.bytes = bytes;
	snprintf(path, sizeof(path), "/sys/block/zram%s/disksize", zram.id);
	snprintf(buf, sizeof(buf), "%zu", bytes);
	err = pc_write_file(path, buf);
	if (err) {
		snprintf(zram.why, sizeof(zram.why), "zram%s disksize: %s", zram.id,
			 strerror(-err));
		goto fail;
	}
	/* devtmpfs creates the node; give it a moment. */
	for (int i = 0; i < 100 && stat(zram.dev, &st); i++)
		usleep(10 * 1000);
	err = write_swap_header(zram.dev, bytes);
	if (err) {
		snprintf(zram.why, sizeof(zram.why), "swap header on %s: %s", zram.dev,
			 strerror(-err));
		goto fail;
	}
	if (swapon(zram.dev, 0)) {
		err = -errno;
		snprintf(zram.why, sizeof(zram.why), "swapon %s: %s", zram.dev, strerror(errno));
		goto fail;
	}
	zram.swapped = true;
	zram.was_on = true;
	return 0;
fail:
	zram_teardown();
	return err;
}

int stress_zram_start(size_t bytes)
{
	int err = zram_setup(bytes);

	if (!err)
		janitor_start();
	return err;
}

int stress_zram_stop(void)
{
	int err = zram_teardown();

	janitor_dismiss();
	return err;
}

bool stress_zram_was_on(void)
{
	return zram.was_on;
}

const char *stress_zram_why(void)
{
	return zram.why;
}

void stress_zram_note(struct pc_report *r, int err)
{
	if (zram.was_on)
		pc_report_note(r, "stress: zram swap %s (%zu MiB) set up and removed%s%s", zram.dev,
			       zram.bytes / MIB, err ? ": removal failed: " : "",
			       err ? strerror(-err) : "");
	else if (zram.why[0])
		pc_report_note(r, "stress: zram swap skipped: %s", zram.why);
}

void stress_zram_forget(void)
{
	memset(&zram, 0, sizeof(zram));
}
