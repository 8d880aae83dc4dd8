// SPDX-License-Identifier: GPL-2.0
/*
 * The stressors: forked children, each working only on its own memory and
 * counting what it does in its slot (stress_int.h).  A stressor that
 * cannot work here says why in the slot and exits.
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
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "privilege.h"
#include "settings.h"
#include "stress_int.h"

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif
#ifndef __NR_close_range
#define __NR_close_range 436 /* the same number on every architecture */
#endif

size_t stress_scaled(size_t bytes)
{
	size_t s = bytes / (stress_env.opts.scale ? stress_env.opts.scale : 1);

	s = (s + PIECE - 1) & ~(PIECE - 1);
	return s < 2 * PIECE ? 2 * PIECE : s;
}

size_t stress_pmd_size(void)
{
	return stress_env.page_size * (stress_env.page_size / 8);
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

	for (size_t off = 0; off < len; off += stress_env.page_size) {
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

void stress_child_init(const char *comm)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGCHLD};
	sigset_t none;
	int err;

	/* Even when ptecheck is SIGKILLed; the check closes the fork race. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != stress_env.parent_pid)
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
void stress_reclaim(struct stress_slot *slot)
{
	size_t alen = stress_scaled(64 * MIB), flen = stress_scaled(16 * MIB);
	struct toucher ta, tf;
	char path[PATH_MAX], *anon, *file;
	int fd;

	anon = map_aligned(alen, stress_pmd_size());
	if (!anon)
		give_up(slot, "mmap of %zu bytes: %s", alen, strerror(errno));
	madvise(anon, alen, MADV_HUGEPAGE); /* 64 KiB folios where enabled */
	touch_range(anon, alen, true);
	snprintf(path, sizeof(path), "%s/" PC_STRESS_COMM_PREFIX "reclaim.XXXXXX",
		 stress_env.opts.file_dir);
	fd = mkstemp(path);
	if (fd < 0)
		give_up(slot, "cannot create a file in %s: %s", stress_env.opts.file_dir,
			strerror(errno));
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
void stress_compact(struct stress_slot *slot)
{
	for (;;) {
		int err = pc_write_file(STRESS_COMPACT_PATH, "1");

		if (err)
			give_up(slot, "cannot write %s: %s", STRESS_COMPACT_PATH, strerror(-err));
		count(&slot->iterations);
		usleep(200 * 1000);
	}
}

/*
 * khugepaged's work, synchronously: collapse a PMD range of 4 KiB pages
 * into a huge page, then punch a hole so it splits back into a page table.
 */
void stress_collapse(struct stress_slot *slot)
{
	size_t pmd = stress_pmd_size();
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
void stress_migrate(struct stress_slot *slot)
{
	enum { WORDS = 16, BITS = WORDS * 64 };
	unsigned long from[WORDS], to[WORDS];
	size_t len = stress_scaled(32 * MIB);
	struct toucher t;
	char *p = map_aligned(len, stress_pmd_size());

	if (!p)
		give_up(slot, "mmap: %s", strerror(errno));
	madvise(p, len, MADV_HUGEPAGE);
	touch_range(p, len, true);
	t = (struct toucher){p, len, true, &slot->extra[0]};
	start_toucher(slot, &t);
	for (unsigned long i = 0;; i++) {
		int a = i % 2 ? stress_env.numa_to : stress_env.numa_from,
		    b = i % 2 ? stress_env.numa_from : stress_env.numa_to;
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
void stress_forkexit(struct stress_slot *slot)
{
	size_t len = stress_scaled(8 * MIB);
	char *p = map_aligned(len, stress_pmd_size());

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
void stress_mprotect(struct stress_slot *slot)
{
	const size_t n = 32;
	char *p = map_aligned(n * PIECE, stress_pmd_size());

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
void stress_touch(struct stress_slot *slot)
{
	size_t len = stress_scaled(32 * MIB), mlen = stress_scaled(4 * MIB),
	       pmd = stress_pmd_size();
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
