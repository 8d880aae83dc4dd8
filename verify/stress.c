// SPDX-License-Identifier: GPL-2.0
/*
 * ptecheck run --stress: the stressors (see stress.h).  Each is a forked
 * child working only on its own memory; what it does and how often is
 * counted in a shared page the parent reads after killing it, so the
 * counts survive SIGKILL.  A stressor that cannot work here says why
 * (in the parent before forking, or in its slot) and is reported as
 * skipped, never silently absent.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "privilege.h"
#include "settings.h"
#include "stress.h"

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif
#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif
#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif
#ifndef __NR_close_range
#define __NR_close_range 436 /* the same number on every architecture */
#endif

#define KIB   1024UL
#define MIB   (1024UL * KIB)
#define PIECE (64 * KIB) /* an mTHP-sized piece */

/* One per stressor, in a MAP_SHARED page: written by the child, read by us. */
struct stress_slot {
	unsigned long long iterations; /* __atomic: the stressor's main loop */
	unsigned long long extra[3];   /* per stressor, see describe() */
	char why[160];		       /* set by a stressor that gave up */
};

struct stressor {
	const char *name;
	const char *comm; /* PC_STRESS_COMM_PREFIX + short name, <= 15 chars */
	void (*fn)(struct stress_slot *slot);
	pid_t pid;
	int status;	 /* wait status once reaped */
	bool died_early; /* exited before we killed it */
	char skip[200];	 /* why it was not started (parent side) */
};

static void stress_reclaim(struct stress_slot *slot);
static void stress_compact(struct stress_slot *slot);
static void stress_collapse(struct stress_slot *slot);
static void stress_migrate(struct stress_slot *slot);
static void stress_forkexit(struct stress_slot *slot);
static void stress_mprotect(struct stress_slot *slot);
static void stress_touch(struct stress_slot *slot);

enum { S_RECLAIM, S_COMPACT, S_COLLAPSE, S_MIGRATE, S_FORKEXIT, S_MPROTECT, S_TOUCH, S__COUNT };

static struct stressor stressors[S__COUNT] = {
	[S_RECLAIM] = {"reclaim", PC_STRESS_COMM_PREFIX "reclaim", stress_reclaim},
	[S_COMPACT] = {"compaction", PC_STRESS_COMM_PREFIX "compact", stress_compact},
	[S_COLLAPSE] = {"collapse", PC_STRESS_COMM_PREFIX "collapse", stress_collapse},
	[S_MIGRATE] = {"migration", PC_STRESS_COMM_PREFIX "migrate", stress_migrate},
	[S_FORKEXIT] = {"fork-exit", PC_STRESS_COMM_PREFIX "forkexit", stress_forkexit},
	[S_MPROTECT] = {"mprotect-munmap", PC_STRESS_COMM_PREFIX "mprotect", stress_mprotect},
	[S_TOUCH] = {"touch", PC_STRESS_COMM_PREFIX "touch", stress_touch},
};

static struct stress_slot *slots;
static pid_t parent_pid, group;
static bool started;
static struct pc_stress_opts opts;
static size_t page_size;
static int numa_from = -1, numa_to = -1;

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
static const char compact_path[] = "/proc/sys/vm/compact_memory";

/* ---- helpers for the children ------------------------------------------- */

/* nanosleep: async-signal-safe, unlike usleep. */
static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static size_t scaled(size_t bytes)
{
	size_t s = bytes / (opts.scale ? opts.scale : 1);

	s = (s + PIECE - 1) & ~(PIECE - 1);
	return s < 2 * PIECE ? 2 * PIECE : s;
}

/* The PMD size for 4/16/64 KiB pages: a page table holds page/8 entries. */
static size_t pmd_size(void)
{
	return page_size * (page_size / 8);
}

static void count(unsigned long long *c)
{
	__atomic_add_fetch(c, 1, __ATOMIC_RELAXED);
}

static __attribute__((noreturn, format(printf, 2, 3))) void give_up(struct stress_slot *slot,
								    const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(slot->why, sizeof(slot->why), fmt, ap);
	va_end(ap);
	_exit(0);
}

static void *map_aligned(size_t len, size_t align)
{
	size_t total = len + align;
	char *p = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uintptr_t a, base = (uintptr_t)p;

	if (p == MAP_FAILED)
		return NULL;
	a = (base + align - 1) & ~(uintptr_t)(align - 1);
	if (a > base)
		munmap(p, a - base);
	if (a + len < base + total)
		munmap((void *)(a + len), base + total - (a + len));
	return (void *)a;
}

static void touch_range(char *p, size_t len, bool write)
{
	volatile char *v = p;

	for (size_t off = 0; off < len; off += page_size) {
		if (write)
			v[off]++;
		else
			(void)v[off];
	}
}

/* A thread whose loads or stores make hardware set access/dirty bits. */
struct toucher {
	char *p;
	size_t len;
	bool write;
	unsigned long long *passes;
};

static void *toucher_main(void *arg)
{
	struct toucher *t = arg;

	for (;;) {
		touch_range(t->p, t->len, t->write);
		count(t->passes);
	}
	return NULL;
}

static void start_toucher(struct stress_slot *slot, struct toucher *t)
{
	pthread_t th;
	int err = pthread_create(&th, NULL, toucher_main, t);

	if (err)
		give_up(slot, "cannot start a toucher thread: %s", strerror(err));
}

/* The child's first steps: die with ptecheck, hold nothing of it. */
static void child_init(const char *comm)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGCHLD};
	sigset_t none;
	int err;

	/* Even when ptecheck is SIGKILLed; the check closes the fork race. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent_pid)
		_exit(0);
	prctl(PR_SET_NAME, comm);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* Not the run lock, BPF objects or files on the scratch filesystems:
	   nothing of ours may outlive ptecheck or keep a mount busy. */
	if (syscall(__NR_close_range, 3U, ~0U, 0U)) {
		for (int fd = 3; fd < 4096; fd++)
			close(fd);
	}
	/* Concurrency, not starvation: the scenarios keep their share of CPU. */
	setpriority(PRIO_PROCESS, 0, 10);
	/* Their own memory and root-owned files (compact_memory) need no
	   capability; a stressor that cannot shed them does not run. */
	err = pc_caps_limit(PC_CAPS_NONE);
	if (err) {
		fprintf(stderr, "ptecheck: stressor %s: cannot drop capabilities: %s\n", comm,
			strerror(-err));
		_exit(1);
	}
}

/* ---- the stressors ---------------------------------------------------- */

/*
 * MADV_PAGEOUT over anonymous (mTHP-enabled) and file memory while two
 * threads write it back in: reclaim unmaps, splits and swaps (to the zram
 * device when there is one), writeback cleans, faults remap.
 */
static void stress_reclaim(struct stress_slot *slot)
{
	size_t alen = scaled(64 * MIB), flen = scaled(16 * MIB);
	struct toucher ta, tf;
	char path[PATH_MAX], *anon, *file;
	int fd;

	anon = map_aligned(alen, pmd_size());
	if (!anon)
		give_up(slot, "mmap of %zu bytes: %s", alen, strerror(errno));
	madvise(anon, alen, MADV_HUGEPAGE); /* 64 KiB folios where enabled */
	touch_range(anon, alen, true);
	snprintf(path, sizeof(path), "%s/" PC_STRESS_COMM_PREFIX "reclaim.XXXXXX", opts.file_dir);
	fd = mkstemp(path);
	if (fd < 0)
		give_up(slot, "cannot create a file in %s: %s", opts.file_dir, strerror(errno));
	unlink(path); /* nothing left behind, even after SIGKILL */
	if (ftruncate(fd, (off_t)flen))
		give_up(slot, "ftruncate: %s", strerror(errno));
	file = mmap(NULL, flen, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (file == MAP_FAILED)
		give_up(slot, "mmap of the file: %s", strerror(errno));
	touch_range(file, flen, true);
	if (madvise(anon, alen, MADV_PAGEOUT))
		give_up(slot, "MADV_PAGEOUT refused: %s (needs Linux 5.4+)", strerror(errno));
	ta = (struct toucher){anon, alen, true, &slot->extra[0]};
	tf = (struct toucher){file, flen, true, &slot->extra[1]};
	start_toucher(slot, &ta);
	start_toucher(slot, &tf);
	for (;;) {
		madvise(anon, alen, MADV_PAGEOUT);
		madvise(file, flen, MADV_PAGEOUT);
		count(&slot->iterations);
		usleep(1000);
	}
}

/* Compaction migrates movable pages under everyone's page tables. */
static void stress_compact(struct stress_slot *slot)
{
	for (;;) {
		int err = pc_write_file(compact_path, "1");

		if (err)
			give_up(slot, "cannot write %s: %s", compact_path, strerror(-err));
		count(&slot->iterations);
		usleep(200 * 1000);
	}
}

/*
 * khugepaged's work, synchronously: collapse a PMD range of 4 KiB pages
 * into a huge page, then punch a hole so it splits back into a page table.
 */
static void stress_collapse(struct stress_slot *slot)
{
	size_t pmd = pmd_size();
	struct toucher t;
	char *p;

	if (pmd > 32 * MIB)
		give_up(slot, "PMD size %zu MiB: too large to collapse repeatedly", pmd / MIB);
	p = map_aligned(2 * pmd, pmd);
	if (!p)
		give_up(slot, "mmap: %s", strerror(errno));
	/* The second range is written meanwhile: collapse races the stores. */
	t = (struct toucher){p + pmd, pmd, true, &slot->extra[1]};
	touch_range(p, 2 * pmd, true);
	start_toucher(slot, &t);
	for (unsigned long i = 0;; i++) {
		char *r = p + (i % 2) * pmd;

		touch_range(r, pmd, true);
		if (madvise(r, pmd, MADV_COLLAPSE) == 0)
			count(&slot->extra[0]);
		else if (errno == EINVAL && !slot->extra[0])
			give_up(slot, "MADV_COLLAPSE refused (EINVAL): needs Linux 6.1+ with THP");
		count(&slot->iterations);
		madvise(r + PIECE, PIECE, MADV_DONTNEED);
	}
}

/* Moves all its pages between two NUMA nodes, back and forth. */
static void stress_migrate(struct stress_slot *slot)
{
	enum { WORDS = 16, BITS = WORDS * 64 };
	unsigned long from[WORDS], to[WORDS];
	size_t len = scaled(32 * MIB);
	struct toucher t;
	char *p = map_aligned(len, pmd_size());

	if (!p)
		give_up(slot, "mmap: %s", strerror(errno));
	madvise(p, len, MADV_HUGEPAGE);
	touch_range(p, len, true);
	t = (struct toucher){p, len, true, &slot->extra[0]};
	start_toucher(slot, &t);
	for (unsigned long i = 0;; i++) {
		int a = i % 2 ? numa_to : numa_from, b = i % 2 ? numa_from : numa_to;
		long moved;

		memset(from, 0, sizeof(from));
		memset(to, 0, sizeof(to));
		from[a / 64] |= 1UL << (a % 64);
		to[b / 64] |= 1UL << (b % 64);
		/* maxnode counts one more than the bits, a historical quirk. */
		moved = syscall(SYS_migrate_pages, 0, BITS + 1, from, to);
		if (moved < 0 && (errno == ENOSYS || errno == EPERM || errno == EINVAL))
			give_up(slot, "migrate_pages: %s", strerror(errno));
		count(&slot->iterations);
		usleep(10 * 1000);
	}
}

/* fork + exit: copy-on-write of large folios, then the child's zap. */
static void stress_forkexit(struct stress_slot *slot)
{
	size_t len = scaled(8 * MIB);
	char *p = map_aligned(len, pmd_size());

	if (!p)
		give_up(slot, "mmap: %s", strerror(errno));
	madvise(p, len, MADV_HUGEPAGE);
	touch_range(p, len, true);
	for (;;) {
		pid_t c = fork();

		if (c == 0) {
			touch_range(p, len / 4, true);
			_exit(0);
		}
		if (c < 0) {
			usleep(10 * 1000);
			continue;
		}
		while (waitpid(c, NULL, 0) < 0 && errno == EINTR)
			;
		count(&slot->iterations);
	}
}

/* mprotect one 64 KiB piece while unmapping and remapping its neighbour. */
static void stress_mprotect(struct stress_slot *slot)
{
	const size_t n = 32;
	char *p = map_aligned(n * PIECE, pmd_size());

	if (!p)
		give_up(slot, "mmap: %s", strerror(errno));
	madvise(p, n * PIECE, MADV_HUGEPAGE);
	touch_range(p, n * PIECE, true);
	for (unsigned long i = 0;; i++) {
		char *a = p + (i % n) * PIECE, *b = p + ((i + 1) % n) * PIECE, *m;

		mprotect(a, PIECE, PROT_READ);
		touch_range(a, PIECE, false);
		munmap(b, PIECE);
		m = mmap(b, PIECE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		if (m != b)
			give_up(slot, "cannot map a neighbouring range back at its address: %s",
				m == MAP_FAILED ? strerror(errno) : "kernel placed it elsewhere");
		madvise(b, PIECE, MADV_HUGEPAGE);
		touch_range(b, PIECE, true);
		mprotect(a, PIECE, PROT_READ | PROT_WRITE);
		count(&slot->iterations);
	}
}

/*
 * Two threads store to and load from mTHP memory without pause (hardware
 * sets dirty and accessed bits), while the main thread moves another
 * range of its own back and forth with mremap.
 */
static void stress_touch(struct stress_slot *slot)
{
	size_t len = scaled(32 * MIB), mlen = scaled(4 * MIB), pmd = pmd_size();
	struct toucher tw, tr;
	char *p = map_aligned(len, pmd), *area, *src, *dst;

	if (!p)
		give_up(slot, "mmap: %s", strerror(errno));
	madvise(p, len, MADV_HUGEPAGE);
	touch_range(p, len, true);
	/* Two PMD-aligned homes; the range moves between them. */
	mlen = (mlen + pmd - 1) & ~(pmd - 1);
	area = map_aligned(2 * mlen, pmd);
	if (!area)
		give_up(slot, "mmap: %s", strerror(errno));
	madvise(area, 2 * mlen, MADV_HUGEPAGE);
	munmap(area + mlen, mlen);
	src = area;
	dst = area + mlen;
	touch_range(src, mlen, true);
	tw = (struct toucher){p, len, true, &slot->extra[0]};
	tr = (struct toucher){p, len, false, &slot->extra[1]};
	start_toucher(slot, &tw);
	start_toucher(slot, &tr);
	for (;;) {
		char *q = mremap(src, mlen, mlen, MREMAP_MAYMOVE | MREMAP_FIXED, dst);

		if (q == MAP_FAILED)
			give_up(slot, "mremap: %s", strerror(errno));
		dst = src;
		src = q;
		touch_range(src, mlen, true);
		count(&slot->iterations);
	}
}

/* ---- zram swap ---------------------------------------------------------- */

/* mkswap's work: a version-1 header and the signature, in the first page. */
static int write_swap_header(const char *dev, size_t bytes)
{
	struct {
		uint32_t version, last_page, nr_badpages;
	} h = {1, (uint32_t)(bytes / page_size - 1), 0};
	char *buf = calloc(1, page_size);
	int fd, err = 0;

	if (!buf)
		return -ENOMEM;
	memcpy(buf + 1024, &h, sizeof(h));
	memcpy(buf + page_size - 10, "SWAPSPACE2", 10);
	fd = open(dev, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		err = -errno;
	else if (pwrite(fd, buf, page_size, 0) != (ssize_t)page_size || fsync(fd))
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

/* ---- start and stop ---------------------------------------------------- */

/* First two nodes with memory, from a list like "0-1,3". */
static int numa_nodes(int *a, int *b)
{
	char buf[256], *s, *save = NULL;
	int n = 0, first = -1, second = -1;

	if (pc_read_file("/sys/devices/system/node/has_memory", buf, sizeof(buf)))
		return 1; /* no NUMA sysfs: one node */
	for (s = strtok_r(buf, ",", &save); s; s = strtok_r(NULL, ",", &save)) {
		int lo, hi;

		if (sscanf(s, "%d-%d", &lo, &hi) != 2)
			hi = lo = atoi(s);
		for (int k = lo; k <= hi && k < 1024; k++, n++) {
			if (first < 0)
				first = k;
			else if (second < 0)
				second = k;
		}
	}
	*a = first;
	*b = second;
	return n;
}

/* Kill the group, then every pid we know, and reap.  Async-signal-safe. */
static void kill_and_reap(void)
{
	for (int i = 0; i < S__COUNT; i++) {
		struct stressor *st = &stressors[i];

		if (st->pid > 0 && waitpid(st->pid, &st->status, WNOHANG) == st->pid) {
			st->died_early = true;
			st->pid = -st->pid; /* reaped */
		}
	}
	if (group > 0)
		kill(-group, SIGKILL);
	for (int i = 0; i < S__COUNT; i++)
		if (stressors[i].pid > 0)
			kill(stressors[i].pid, SIGKILL);
	for (int i = 0; i < S__COUNT; i++) {
		struct stressor *st = &stressors[i];

		if (st->pid <= 0)
			continue;
		while (waitpid(st->pid, &st->status, 0) < 0 && errno == EINTR)
			;
		st->pid = -st->pid;
	}
	group = 0;
}

/* Every exit path that is not pc_stress_stop(): atexit, fatal signals. */
static int stress_undo(void)
{
	int err;

	if (getpid() != parent_pid)
		return 0;
	kill_and_reap();
	err = zram_teardown();
	janitor_dismiss();
	return err;
}

bool pc_stress_running(void)
{
	return started;
}

int pc_stress_start(const struct pc_stress_opts *o, struct pc_report *r)
{
	int n_nodes, n_started = 0, err;

	if (started)
		return -EBUSY;
	opts = *o;
	if (!opts.scale)
		opts.scale = 1;
	page_size = (size_t)sysconf(_SC_PAGESIZE);
	parent_pid = getpid();
	slots = mmap(NULL, sizeof(*slots) * S__COUNT, PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (slots == MAP_FAILED) {
		err = -errno;
		slots = NULL;
		pc_report_note(r, "stress: cannot map the counters: %s", strerror(-err));
		return err;
	}
	/* Before anything exists to undo, so that no exit path misses it. */
	err = pc_settings_add_undo(stress_undo);
	if (err) {
		pc_report_note(r, "stress: cannot register the cleanup: %s", strerror(-err));
		munmap(slots, sizeof(*slots) * S__COUNT);
		slots = NULL;
		return err;
	}
	if (zram_setup(scaled(128 * MIB)) == 0)
		janitor_start();
	if (access(compact_path, W_OK))
		snprintf(stressors[S_COMPACT].skip, sizeof(stressors[S_COMPACT].skip),
			 "cannot write %s: %s (no CONFIG_COMPACTION?)", compact_path,
			 strerror(errno));
	n_nodes = numa_nodes(&numa_from, &numa_to);
	if (n_nodes < 2)
		snprintf(stressors[S_MIGRATE].skip, sizeof(stressors[S_MIGRATE].skip),
			 "only one NUMA node with memory: no other node to migrate to "
			 "(move_pages/mbind to the same node would be a no-op)");
	for (int i = 0; i < S__COUNT; i++) {
		struct stressor *st = &stressors[i];
		pid_t pid;

		st->pid = 0;
		st->died_early = false;
		if (st->skip[0])
			continue;
		fflush(NULL); /* no buffered output is written twice */
		pid = fork();
		if (pid < 0) {
			snprintf(st->skip, sizeof(st->skip), "fork: %s", strerror(errno));
			continue;
		}
		if (pid == 0) {
			/* Their own group: a terminal's Ctrl-C reaches ptecheck only,
			   which stops them; one kill(-group) ends them all. */
			setpgid(0, group);
			child_init(st->comm);
			st->fn(&slots[i]);
			_exit(0);
		}
		setpgid(pid, group); /* both sides, whichever runs first */
		if (!group)
			group = pid;
		st->pid = pid;
		n_started++;
	}
	started = true;
	if (!n_started) {
		pc_stress_stop(r);
		return -ENOEXEC;
	}
	return 0;
}

/* What a stressor did, for the note. */
static void describe(int i, char *buf, size_t len)
{
	const struct stress_slot *sl = &slots[i];
	unsigned long long it = sl->iterations, e0 = sl->extra[0], e1 = sl->extra[1];
	size_t pmd_mib = pmd_size() / MIB;

	switch (i) {
	case S_RECLAIM:
		snprintf(buf, len,
			 "%llu MADV_PAGEOUT passes over %zu MiB anonymous (mTHP) and %zu MiB "
			 "file memory (in %s), %s; writer threads: %llu + %llu passes",
			 it, scaled(64 * MIB) / MIB, scaled(16 * MIB) / MIB, opts.file_dir,
			 zram.was_on ? "swapping to zram" : "no zram swap", e0, e1);
		break;
	case S_COMPACT:
		snprintf(buf, len, "%llu writes of 1 to %s", it, compact_path);
		break;
	case S_COLLAPSE:
		snprintf(buf, len,
			 "%llu MADV_COLLAPSE calls on %zu MiB ranges, %llu collapsed, each split "
			 "again by a 64 KiB hole; writer thread: %llu passes",
			 it, pmd_mib, e0, e1);
		break;
	case S_MIGRATE:
		snprintf(buf, len, "%llu migrate_pages between nodes %d and %d; writer: %llu", it,
			 numa_from, numa_to, e0);
		break;
	case S_FORKEXIT:
		snprintf(buf, len,
			 "%llu fork+exit of a %zu MiB mTHP process (each child writes a quarter)",
			 it, scaled(8 * MIB) / MIB);
		break;
	case S_MPROTECT:
		snprintf(buf, len,
			 "%llu rounds of mprotect on a 64 KiB range and munmap+mmap of its "
			 "neighbour",
			 it);
		break;
	case S_TOUCH:
		snprintf(buf, len,
			 "%llu mremap moves of a %zu MiB range; 2 threads: %llu store and %llu "
			 "load passes over %zu MiB",
			 it, ((scaled(4 * MIB) + pmd_size() - 1) & ~(pmd_size() - 1)) / MIB, e0, e1,
			 scaled(32 * MIB) / MIB);
		break;
	default:
		snprintf(buf, len, "%llu iterations", it);
	}
}

void pc_stress_stop(struct pc_report *r)
{
	char ran[400] = "", skipped[200] = "", what[300];
	size_t used = 0, sused = 0;
	int err;

	if (!started)
		return;
	kill_and_reap();
	err = zram_teardown();
	janitor_dismiss();
	started = false;
	if (zram.was_on)
		pc_report_note(r, "stress: zram swap %s (%zu MiB) set up and removed%s%s", zram.dev,
			       zram.bytes / MIB, err ? ": removal failed: " : "",
			       err ? strerror(-err) : "");
	else if (zram.why[0])
		pc_report_note(r, "stress: zram swap skipped: %s", zram.why);
	for (int i = 0; i < S__COUNT; i++) {
		struct stressor *st = &stressors[i];
		struct stress_slot *sl = &slots[i];

		sl->why[sizeof(sl->why) - 1] = 0;
		if (st->skip[0]) {
			pc_report_note(r, "stress: %s skipped: %s", st->name, st->skip);
			sused += snprintf(skipped + sused, sizeof(skipped) - sused, "%s%s",
					  sused ? ", " : "", st->name);
			continue;
		}
		if (sl->why[0]) {
			pc_report_note(r, "stress: %s gave up after %llu iterations: %s", st->name,
				       sl->iterations, sl->why);
			sused += snprintf(skipped + sused, sizeof(skipped) - sused, "%s%s",
					  sused ? ", " : "", st->name);
			continue;
		}
		describe(i, what, sizeof(what));
		if (st->died_early)
			pc_report_note(r, "stress: %s died early (%s %d): %s", st->name,
				       WIFSIGNALED(st->status) ? "signal" : "exit",
				       WIFSIGNALED(st->status) ? WTERMSIG(st->status)
							       : WEXITSTATUS(st->status),
				       what);
		else
			pc_report_note(r, "stress: %s: %s", st->name, what);
		used += snprintf(ran + used, sizeof(ran) - used, "%s%s %llu", used ? ", " : "",
				 st->name, sl->iterations);
	}
	pc_report_note(r, "stress: stressors that ran (iterations): %s; skipped: %s",
		       used ? ran : "none", sused ? skipped : "none");
	for (int i = 0; i < S__COUNT; i++)
		stressors[i].skip[0] = 0;
	munmap(slots, sizeof(*slots) * S__COUNT);
	slots = NULL;
	memset(&zram, 0, sizeof(zram));
}

const char *pc_stress_name_of(int pid)
{
	for (int i = 0; i < S__COUNT; i++)
		if (pid > 0 && stressors[i].pid == pid)
			return stressors[i].name;
	return NULL;
}
