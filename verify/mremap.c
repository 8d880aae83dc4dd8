// SPDX-License-Identifier: GPL-2.0
/*
 * The mremap suite.  Each scenario builds mappings of a chosen shape at
 * chosen addresses, moves them with mremap(MREMAP_FIXED) and judges the
 * result with the userspace oracles: pagemap (moved), kpageflags
 * (folio-intact), data-loss probes (dirty bits), smaps Referenced (young
 * bits) and a COW probe (write permission).
 *
 * Zero false positives: a measurement that shows a violation is repeated on
 * fresh mappings, and a check fails only when every one of PC_ATTEMPTS
 * attempts shows it with no disturbance (reclaim, migration, splits) counted
 * meanwhile by the BPF side or by /proc/vmstat.  A check that cannot be
 * judged is a SKIP that says why, never a pass.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "scenario.h"
#include "attempt.h"
#include "oracle_compare.h"
#include "procmm.h"
#include "report.h"

#define KIB	  1024UL
#define MIB	  (1024UL * KIB)
#define PAGE	  ((size_t)PC_PAGE_SIZE)
#define PMD	  ((size_t)PC_PMD_SIZE)
#define FOLIO_64K (64 * KIB)
#define PAGES_64K (FOLIO_64K / PAGE)

#define TIER_PAGEMAP	"oracle:pagemap"
#define TIER_KPAGEFLAGS "oracle:kpageflags"
#define TIER_DATA_LOSS	"oracle:data-loss"
#define TIER_REFERENCED "oracle:smaps-referenced"
#define TIER_COW	"oracle:cow"

#define ALIGN_UP(x, a) (((x) + (a)-1) & ~((a)-1))

/* Mapping shape and placement of one scenario. */
enum backing { B_ANON, B_SHMEM, B_FILE };

struct shape;
struct pc_attempt;
/* One measured attempt of a scenario: set up, trigger, judge. */
typedef int (*measure_fn)(struct pc_scenario_ctx *ctx, const struct shape *sh,
			  struct pc_attempt *a);

struct shape {
	enum backing backing;
	size_t full_len; /* before scaling */
	size_t min_len;
	size_t align;	    /* length granule */
	size_t src_off;	    /* source start past a 2 MiB boundary */
	size_t dst_off;	    /* destination of the moved range past a 2 MiB boundary */
	size_t head, tail;  /* bytes left unmoved at each end (partial moves) */
	int advice;	    /* MADV_HUGEPAGE, MADV_NOHUGEPAGE or 0 */
	bool folio_check;   /* judge folio-intact */
	bool want_large;    /* folio-intact needs large folios to mean anything */
	measure_fn measure; /* what the scenario does with the mapping */
};

struct place {
	char *resv;
	size_t resv_len;
	char *src, *dst;
	size_t len;
};

/* ---- small helpers ------------------------------------------------------ */

#define SALT_A 0x11
#define SALT_B 0x77

static void fill_pages(char *p, size_t first, size_t npages, __u8 salt)
{
	for (size_t i = 0; i < npages; i++)
		memset(p + i * PAGE, pc_page_byte(first + i, salt), PAGE);
}

static size_t scaled_len(const struct pc_scenario_ctx *ctx, const struct shape *sh)
{
	unsigned int s = ctx->scale ? ctx->scale : 1;
	size_t len = sh->full_len / s;

	if (len < sh->min_len)
		len = sh->min_len;
	return len & ~(sh->align - 1);
}

/* ---- placement --------------------------------------------------------- */

/*
 * Reserves PROT_NONE address space: the source at a 2 MiB boundary +
 * src_off, the destination at a later 2 MiB boundary + dst_off, a whole
 * PMD apart, so the two never share a page table and nothing (no page
 * table either) exists at the destination before the move.
 */
static int place_reserve(struct place *pl, size_t len, size_t src_off, size_t dst_off)
{
	size_t span_src = ALIGN_UP(src_off + len, PMD);
	size_t span_dst = ALIGN_UP(dst_off + len, PMD);
	uintptr_t base;

	memset(pl, 0, sizeof(*pl));
	pl->resv_len = PMD + span_src + PMD + span_dst + PMD;
	pl->resv = mmap(NULL, pl->resv_len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
			-1, 0);
	if (pl->resv == MAP_FAILED) {
		pl->resv = NULL;
		return -errno;
	}
	base = ALIGN_UP((uintptr_t)pl->resv, PMD);
	pl->src = (char *)base + src_off;
	pl->dst = (char *)base + span_src + PMD + dst_off;
	pl->len = len;
	return 0;
}

static void place_release(struct place *pl)
{
	if (pl->resv)
		munmap(pl->resv, pl->resv_len);
	pl->resv = NULL;
}

/* Maps the source: anonymous private, or fd shared. */
static int place_map_src(struct place *pl, int fd, int advice)
{
	int flags = MAP_FIXED | (fd >= 0 ? MAP_SHARED : MAP_PRIVATE | MAP_ANONYMOUS);
	void *p = mmap(pl->src, pl->len, PROT_READ | PROT_WRITE, flags, fd, 0);

	if (p == MAP_FAILED)
		return -errno;
	if (advice && madvise(pl->src, pl->len, advice))
		return -errno;
	return 0;
}

static int move_fixed(char *from, size_t len, char *to)
{
	void *r = mremap(from, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, to);

	if (r == MAP_FAILED)
		return -errno;
	return r == to ? 0 : -EFAULT;
}

/* The old range becomes reservation again, so stale PTEs would show. */
static int rereserve(char *addr, size_t len)
{
	void *p = mmap(addr, len, PROT_NONE,
		       MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	return p == MAP_FAILED ? -errno : 0;
}

/* ---- snapshots ----------------------------------------------------------- */

struct snap {
	size_t n;
	__u64 *pm;
	struct pc_pte *pte;
	__u64 *pfn;
	__u32 *order;
	int order_err; /* 0, or -errno of the kpageflags walk */
	bool pfns_visible;
};

static int snap_alloc(struct snap *s, size_t n)
{
	memset(s, 0, sizeof(*s));
	s->n = n;
	s->pm = calloc(n, sizeof(*s->pm));
	s->pte = calloc(n, sizeof(*s->pte));
	s->pfn = calloc(n, sizeof(*s->pfn));
	s->order = calloc(n, sizeof(*s->order));
	return s->pm && s->pte && s->pfn && s->order ? 0 : -ENOMEM;
}

static void snap_free(struct snap *s)
{
	free(s->pm);
	free(s->pte);
	free(s->pfn);
	free(s->order);
	memset(s, 0, sizeof(*s));
}

/* Pagemap of the range; folio orders too when asked and possible. */
static int snap_take(struct snap *s, const struct pc_scenario_ctx *ctx, const char *addr,
		     bool orders)
{
	int ret = pc_pagemap_read(0, (__u64)(uintptr_t)addr, s->n, s->pm);

	if (ret)
		return ret;
	pc_pagemap_to_ptes(s->pm, s->n, s->pte);
	s->pfns_visible = pc_pagemap_pfns_visible(s->pm, s->n);
	for (size_t i = 0; i < s->n; i++)
		s->pfn[i] = s->pte[i].kind == PC_PTE_PRESENT ? s->pte[i].pfn : 0;
	s->order_err = -ENODATA;
	if (orders && ctx->have_kpageflags && s->pfns_visible)
		s->order_err = pc_folio_orders(s->pfn, s->n, s->order);
	return 0;
}

static size_t count_large(const struct snap *s)
{
	size_t c = 0;

	for (size_t i = 0; i < s->n; i++)
		c += s->order[i] != PC_FOLIO_ORDER_NONE && s->order[i] > 0;
	return c;
}

/* ---- folio formation evidence ------------------------------------------ */

enum folios_seen {
	FOLIOS_UNKNOWN,	   /* neither kpageflags nor mTHP stats readable */
	FOLIOS_NONE,	   /* kpageflags: no large folio in the range */
	FOLIOS_LARGE,	   /* kpageflags: some pages in large folios */
	FOLIOS_STATS_NONE, /* global 64 KiB stats did not move */
	FOLIOS_STATS_SOME, /* global 64 KiB stats moved (not proof: global) */
};

static const char *folios_text(enum folios_seen f)
{
	switch (f) {
	case FOLIOS_LARGE:
		return "large folios seen (kpageflags)";
	case FOLIOS_STATS_SOME:
		return "64 KiB folios per global mTHP stats only";
	case FOLIOS_NONE:
	case FOLIOS_STATS_NONE:
		return "no 64 KiB folios";
	default:
		return "folio sizes unknown";
	}
}

/* Kpageflags orders when readable, else the global mTHP allocation counter. */
static enum folios_seen folios_formed(const struct snap *s, bool stats_ok, __u64 stats_before,
				      const char *stat_name)
{
	__u64 after = 0;

	if (s->order_err == 0)
		return count_large(s) ? FOLIOS_LARGE : FOLIOS_NONE;
	if (!stats_ok || pc_mthp_stat(stat_name, &after))
		return FOLIOS_UNKNOWN;
	return after > stats_before ? FOLIOS_STATS_SOME : FOLIOS_STATS_NONE;
}

static bool no_large(enum folios_seen f)
{
	return f == FOLIOS_NONE || f == FOLIOS_STATS_NONE;
}

/* ---- shared judgements -------------------------------------------------- */

/*
 * mremap/moved with the shared predicate.  Without visible PFNs only
 * presence can be compared: a lost or invented PTE still fails, but no
 * violation is only a SKIP, since "the same page" was not judged.
 */
static void judge_moved(struct pc_attempt *a, int slot, const struct snap *before,
			const struct snap *after, const struct snap *vacated, __u64 old_addr,
			__u64 new_addr)
{
	struct pc_oracle_msg *m = &a->msg[slot];

	pc_compare_moved(before->pte, after->pte, before->n, old_addr, new_addr, m);
	if (vacated)
		pc_compare_vacated(vacated->pte, vacated->n, old_addr, m);
	a->judged[slot] = true;
	if (pc_pagemap_count_present(before->pm, before->n) == 0) {
		pc_oracle_skip(m, "nothing present at entry: nothing was moved");
		return;
	}
	if (!before->pfns_visible && m->status == PC_STATUS_PASS)
		pc_oracle_skip(m,
			       "PFNs hidden (no CAP_SYS_ADMIN): presence matched in %llu slots "
			       "(moved and vacated), same page not judged",
			       (unsigned long long)m->checked);
}

static void judge_folios(struct pc_attempt *a, int slot, bool ctx_kpageflags,
			 const struct snap *before, const struct snap *after, bool want_large,
			 __u64 old_addr, __u64 new_addr)
{
	struct pc_oracle_msg *m = &a->msg[slot];
	size_t large;

	if (!ctx_kpageflags || before->order_err == -ENODATA || after->order_err == -ENODATA) {
		pc_slot_skip(
			a, slot, "%s",
			!ctx_kpageflags
				? "/proc/kpageflags not readable (needs root)"
				: "PFNs hidden by pagemap (no CAP_SYS_ADMIN): folios not found");
		return;
	}
	if (before->order_err || after->order_err) {
		/* ESTALE: a folio changed while read, likely reclaim or migration */
		pc_slot_skip(a, slot, "kpageflags walk failed: %s",
			     strerror(-(before->order_err ? before->order_err : after->order_err)));
		a->retry = true;
		return;
	}
	large = count_large(before);
	if (want_large && large == 0) {
		pc_slot_skip(a, slot, "no 64 KiB folios formed: mTHP off?");
		return;
	}
	pc_compare_folio_orders(before->order, after->order, before->n, old_addr, new_addr, m);
	a->judged[slot] = true;
}

/* Reduces npages pages at p to one byte each, as the data oracles compare. */
static void pages_seen(const char *p, size_t first, size_t npages, __u8 salt, __u8 *written,
		       __u8 *seen)
{
	for (size_t i = 0; i < npages; i++) {
		written[i] = pc_page_byte(first + i, salt);
		seen[i] = pc_block_seen((const __u8 *)p + i * PAGE, PAGE, written[i], NULL);
	}
}

/* pread of the whole file (after munmap): the page cache, not the PTEs. */
static int pread_all(int fd, char *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t r = pread(fd, buf + done, len - done, (off_t)done);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (r == 0)
			return -EIO;
		done += (size_t)r;
	}
	return 0;
}

/* Pages of fd [0, len) still in the page cache, by mincore on a new mapping. */
static long resident_pages(int fd, size_t len)
{
	size_t n = len / PAGE;
	unsigned char *vec = malloc(n);
	long c = 0;
	void *p;

	if (!vec)
		return -ENOMEM;
	p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		free(vec);
		return -errno;
	}
	if (mincore(p, len, vec) == 0) {
		for (size_t i = 0; i < n; i++)
			c += vec[i] & 1;
	} else {
		c = -errno;
	}
	munmap(p, len);
	free(vec);
	return c;
}

/* ---- measure: moved (+ folio-intact, + data-loss for shared backings) ---- */

static int open_backing(const struct pc_scenario_ctx *ctx, enum backing b, size_t len)
{
	char path[4096];
	const char *dir;
	int fd;

	if (b == B_SHMEM) {
		fd = memfd_create("ptecheck-shmem", MFD_CLOEXEC);
	} else {
		dir = ctx->tmpdir && *ctx->tmpdir ? ctx->tmpdir : "/tmp";
		snprintf(path, sizeof(path), "%s/ptecheck-file-XXXXXX", dir);
		fd = mkostemp(path, O_CLOEXEC);
		if (fd >= 0)
			unlink(path); /* the fd is all we need; nothing left behind */
	}
	if (fd < 0)
		return -errno;
	if (ftruncate(fd, (off_t)len)) {
		int err = errno;

		close(fd);
		return -err;
	}
	return fd;
}

static int measure_move(struct pc_scenario_ctx *ctx, const struct shape *sh, struct pc_attempt *a)
{
	const int s_moved = 0;
	int s_folio = -1, s_data = -1, next = 1;
	struct snap before = {0}, after = {0}, vac = {0};
	struct place pl = {0};
	size_t len = scaled_len(ctx, sh), mlen, npages, mpages;
	const char *stat_name = sh->backing == B_SHMEM ? "shmem_alloc" : "anon_fault_alloc";
	__u64 stats_before = 0, old_addr, new_addr;
	bool stats_ok = false;
	enum folios_seen fs;
	char *mv, *buf = NULL;
	int fd = -1, ret;

	pc_slot_init(a, s_moved, ctx, PC_CHK_MOVED, TIER_PAGEMAP);
	if (sh->folio_check) {
		s_folio = next++;
		pc_slot_init(a, s_folio, ctx, PC_CHK_FOLIO_INTACT, TIER_KPAGEFLAGS);
	}
	if (sh->backing != B_ANON) {
		s_data = next++;
		pc_slot_init(a, s_data, ctx, PC_CHK_ADBITS, TIER_DATA_LOSS);
	}

	mlen = len - sh->head - sh->tail;
	npages = len / PAGE;
	mpages = mlen / PAGE;
	if (snap_alloc(&before, mpages) || snap_alloc(&after, mpages) || snap_alloc(&vac, mpages)) {
		ret = pc_skip_rest(a, "calloc", ENOMEM);
		goto out;
	}
	/* The source stays folio aligned; dst_off places the moved part. */
	ret = place_reserve(&pl, len, sh->src_off, sh->dst_off - sh->head);
	if (ret) {
		ret = pc_skip_rest(a, "mmap reservation", -ret);
		goto out;
	}
	if (sh->backing != B_ANON) {
		fd = open_backing(ctx, sh->backing, len);
		if (fd < 0) {
			ret = pc_skip_rest(a, sh->backing == B_SHMEM ? "memfd_create" : "tmpfile",
					   -fd);
			goto out;
		}
	}
	stats_ok = pc_mthp_stat(stat_name, &stats_before) == 0;

	pc_window_begin(ctx, &a->win, &a->disturbed);
	ret = place_map_src(&pl, fd, sh->advice);
	if (ret) {
		ret = pc_skip_rest(a, "mmap/madvise source", -ret);
		goto out;
	}
	fill_pages(pl.src, 0, npages, SALT_A);

	mv = pl.src + sh->head;
	old_addr = (__u64)(uintptr_t)mv;
	new_addr = (__u64)(uintptr_t)(pl.dst + sh->head);
	/* The measured point: snapshots right before and right after mremap. */
	ret = snap_take(&before, ctx, mv, sh->folio_check);
	if (!ret)
		ret = move_fixed(mv, mlen, pl.dst + sh->head);
	if (ret) {
		ret = pc_skip_rest(a, "pagemap/mremap", -ret);
		goto out;
	}
	ret = snap_take(&after, ctx, pl.dst + sh->head, sh->folio_check);
	if (!ret)
		ret = rereserve(mv, mlen);
	if (!ret)
		ret = snap_take(&vac, ctx, mv, false);
	pc_window_end(ctx, &a->win, &a->disturbed);
	if (ret) {
		ret = pc_skip_rest(a, "pagemap after the move", -ret);
		goto out;
	}

	fs = folios_formed(&before, stats_ok, stats_before, stat_name);
	judge_moved(a, s_moved, &before, &after, &vac, old_addr, new_addr);
	if (sh->want_large)
		pc_oracle_appendf(&a->msg[s_moved], "; %s", folios_text(fs));
	if (s_folio >= 0) {
		judge_folios(a, s_folio, ctx->have_kpageflags, &before, &after, sh->want_large,
			     old_addr, new_addr);
		if (sh->backing == B_SHMEM && !ctx->mthp_shmem_64k && !a->judged[s_folio])
			pc_oracle_appendf(&a->msg[s_folio], " (shmem mTHP not enabled)");
	}

	if (s_data >= 0) {
		/* Unmap, push to storage, evict, read back through the file. */
		__u8 *written = calloc(npages, 1), *seen = calloc(npages, 1);
		long res = -1;

		buf = malloc(len);
		if (!written || !seen || !buf) {
			free(written);
			free(seen);
			ret = pc_skip_rest(a, "malloc", ENOMEM);
			goto out;
		}
		/* The unmoved ends stay mapped: the kernel keeps them as they are. */
		ret = munmap(pl.dst + sh->head, mlen) ? -errno : 0;
		if (!ret && sh->backing == B_FILE) {
			ret = fsync(fd) ? -errno : 0;
			if (!ret)
				ret = -posix_fadvise(fd, 0, (off_t)len, POSIX_FADV_DONTNEED);
			if (!ret)
				res = resident_pages(fd, len);
		}
		if (!ret)
			ret = pread_all(fd, buf, len);
		if (ret) {
			free(written);
			free(seen);
			ret = pc_skip_rest(a, "munmap/fsync/fadvise/pread", -ret);
			goto out;
		}
		pages_seen(buf, 0, npages, SALT_A, written, seen);
		pc_compare_written(written, seen, NULL, npages, (__u64)(uintptr_t)pl.src, PAGE,
				   &a->msg[s_data]);
		a->judged[s_data] = true;
		if (sh->backing == B_FILE) {
			if (res == (long)npages && a->msg[s_data].status == PC_STATUS_PASS) {
				/* Read from the cache: a lost dirty bit would not show. */
				pc_slot_skip(a, s_data,
					     "probe inconclusive: POSIX_FADV_DONTNEED evicted no "
					     "page (tmpfs?); read back from the page cache");
				a->retry = true;
			} else if (res >= 0) {
				pc_oracle_appendf(&a->msg[s_data],
						  "; %ld of %zu pages evicted first",
						  (long)npages - res, npages);
			}
		} else {
			pc_oracle_appendf(&a->msg[s_data], " (pread of the memfd after munmap)");
		}
		free(written);
		free(seen);
	}
	ret = 0;
out:
	pc_window_end(ctx, &a->win, &a->disturbed);
	place_release(&pl);
	if (fd >= 0)
		close(fd);
	free(buf);
	snap_free(&before);
	snap_free(&after);
	snap_free(&vac);
	return ret;
}

/* ---- measure: COW isolation across fork (perms) --------------------------- */

static ssize_t read_full(int fd, void *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t r = read(fd, (char *)buf + done, len - done);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (r == 0)
			break;
		done += (size_t)r;
	}
	return (ssize_t)done;
}

static int write_full(int fd, const void *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t w = write(fd, (const char *)buf + done, len - done);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		done += (size_t)w;
	}
	return 0;
}

/* The sharing child: waits, then reports what it sees of each page. */
static void __attribute__((noreturn)) cow_child(const char *p, size_t npages, int go_fd, int res_fd)
{
	__u8 *seen = malloc(npages);
	char c;

	if (!seen || read_full(go_fd, &c, 1) != 1)
		_exit(1); /* parent gone or failed: say nothing */
	for (size_t i = 0; i < npages; i++)
		seen[i] = pc_block_seen((const __u8 *)p + i * PAGE, PAGE, pc_page_byte(i, SALT_A),
					NULL);
	/* _exit: no atexit handlers of the parent (settings restore) may run here */
	_exit(write_full(res_fd, seen, npages) ? 1 : 0);
}

static int measure_fork(struct pc_scenario_ctx *ctx, const struct shape *sh, struct pc_attempt *a)
{
	const int s_cow = 0, s_moved = 1;
	struct snap before = {0}, after = {0}, vac = {0};
	struct place pl = {0};
	size_t len = scaled_len(ctx, sh), npages = len / PAGE, shared = 0;
	int go[2] = {-1, -1}, res[2] = {-1, -1}, ret, status;
	__u8 *expected = NULL, *seen = NULL;
	__u64 stats_before = 0;
	bool stats_ok;
	pid_t pid = -1;
	ssize_t got;

	pc_slot_init(a, s_cow, ctx, PC_CHK_PERMS, TIER_COW);
	pc_slot_init(a, s_moved, ctx, PC_CHK_MOVED, TIER_PAGEMAP);
	expected = malloc(npages);
	seen = malloc(npages);
	if (!expected || !seen || snap_alloc(&before, npages) || snap_alloc(&after, npages) ||
	    snap_alloc(&vac, npages)) {
		ret = pc_skip_rest(a, "malloc", ENOMEM);
		goto out;
	}
	ret = place_reserve(&pl, len, sh->src_off, sh->dst_off);
	if (ret) {
		ret = pc_skip_rest(a, "mmap reservation", -ret);
		goto out;
	}
	stats_ok = pc_mthp_stat("anon_fault_alloc", &stats_before) == 0;
	pc_window_begin(ctx, &a->win, &a->disturbed);
	ret = place_map_src(&pl, -1, sh->advice);
	if (ret) {
		ret = pc_skip_rest(a, "mmap/madvise source", -ret);
		goto out;
	}
	fill_pages(pl.src, 0, npages, SALT_A);
	if (pipe2(go, O_CLOEXEC) || pipe2(res, O_CLOEXEC)) {
		ret = pc_skip_rest(a, "pipe", errno);
		goto out;
	}
	pid = fork();
	if (pid < 0) {
		ret = pc_skip_rest(a, "fork", errno);
		goto out;
	}
	if (pid == 0) {
		close(go[1]);
		close(res[0]);
		cow_child(pl.src, npages, go[0], res[1]);
	}
	close(go[0]);
	close(res[1]);
	go[0] = res[1] = -1;

	/* Every other page gets a private copy; the rest stay shared, read-only. */
	for (size_t i = 0; i < npages; i += 2)
		memset(pl.src + i * PAGE, pc_page_byte(i, SALT_B), PAGE);

	/* Orders only for the note, read after: keep the measured window short. */
	ret = snap_take(&before, ctx, pl.src, false);
	if (!ret)
		ret = move_fixed(pl.src, len, pl.dst);
	if (!ret)
		ret = snap_take(&after, ctx, pl.dst, true);
	if (!ret)
		ret = rereserve(pl.src, len);
	if (!ret)
		ret = snap_take(&vac, ctx, pl.src, false);
	if (ret) {
		ret = pc_skip_rest(a, "pagemap/mremap", -ret);
		goto out;
	}
	/* After the move the parent writes everywhere: none may reach the child. */
	fill_pages(pl.dst, 0, npages, SALT_B);
	for (size_t i = 0; i < npages; i++) {
		expected[i] = pc_page_byte(i, SALT_A);
		shared += (before.pm[i] & PC_PM_PRESENT) && !(before.pm[i] & PC_PM_EXCLUSIVE);
	}
	ret = write_full(go[1], "g", 1);
	got = ret ? ret : read_full(res[0], seen, npages);
	pc_window_end(ctx, &a->win, &a->disturbed);
	if (got != (ssize_t)npages) {
		ret = pc_skip_rest(a, "sharing child did not report", got < 0 ? (int)-got : EPIPE);
		goto out;
	}

	pc_compare_cow(expected, seen, npages, (__u64)(uintptr_t)pl.src, PAGE, &a->msg[s_cow]);
	a->judged[s_cow] = true;
	if (shared == 0 && a->msg[s_cow].status == PC_STATUS_PASS) {
		/* Without a shared PTE at the move there was nothing to isolate. */
		pc_slot_skip(a, s_cow,
			     "probe inconclusive: no page was shared with the child at "
			     "the move (pagemap exclusive bit)");
		a->retry = true;
	} else {
		pc_oracle_appendf(&a->msg[s_cow], "; %zu of %zu shared at the move, %s", shared,
				  npages,
				  folios_text(folios_formed(&after, stats_ok, stats_before,
							    "anon_fault_alloc")));
	}
	judge_moved(a, s_moved, &before, &after, &vac, (__u64)(uintptr_t)pl.src,
		    (__u64)(uintptr_t)pl.dst);
	ret = 0;
out:
	pc_window_end(ctx, &a->win, &a->disturbed);
	if (go[1] >= 0)
		close(go[1]); /* EOF releases a child still waiting */
	if (pid > 0)
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	if (go[0] >= 0)
		close(go[0]);
	for (int i = 0; i < 2; i++)
		if (res[i] >= 0)
			close(res[i]);
	place_release(&pl);
	free(expected);
	free(seen);
	snap_free(&before);
	snap_free(&after);
	snap_free(&vac);
	return ret;
}

/* ---- measure: dirty bits through MADV_FREE + reclaim (data loss) ---------- */

static int measure_dirty(struct pc_scenario_ctx *ctx, const struct shape *sh, struct pc_attempt *a)
{
	const int s_data = 0;
	struct snap before = {0};
	struct place pl = {0};
	size_t len = scaled_len(ctx, sh), npages = len / PAGE, nfolios = len / FOLIO_64K;
	size_t discarded = 0, unwritten = 0;
	__u8 *written = NULL, *seen = NULL;
	bool *was = NULL, pinned;
	__u64 stats_before = 0;
	enum folios_seen fs;
	cpu_set_t oldmask;
	bool stats_ok;
	int ret;

	pc_slot_init(a, s_data, ctx, PC_CHK_ADBITS, TIER_DATA_LOSS);
	written = calloc(nfolios, 1);
	seen = calloc(nfolios, 1);
	was = calloc(nfolios, sizeof(*was));
	if (!written || !seen || !was || snap_alloc(&before, npages)) {
		ret = pc_skip_rest(a, "malloc", ENOMEM);
		goto out;
	}
	ret = place_reserve(&pl, len, sh->src_off, sh->dst_off);
	if (ret) {
		ret = pc_skip_rest(a, "mmap reservation", -ret);
		goto out;
	}
	/* One CPU while counters are measured. */
	pinned = pc_pin_cpu(&oldmask);
	stats_ok = pc_mthp_stat("anon_fault_alloc", &stats_before) == 0;
	pc_window_begin(ctx, &a->win, &a->disturbed);
	ret = place_map_src(&pl, -1, sh->advice);
	if (ret) {
		ret = pc_skip_rest(a, "mmap/madvise source", -ret);
		goto unpin;
	}
	fill_pages(pl.src, 0, npages, SALT_A);
	ret = snap_take(&before, ctx, pl.src, true);
	if (ret) {
		ret = pc_skip_rest(a, "pagemap", -ret);
		goto unpin;
	}
	fs = folios_formed(&before, stats_ok, stats_before, "anon_fault_alloc");
	if (no_large(fs)) {
		pc_slot_skip(a, s_data, "no 64 KiB folios formed: mTHP off?");
		goto unpin;
	}
	/* Clean PTEs, lazyfree folios: reclaim may now drop what is not redirtied. */
	if (madvise(pl.src, len, MADV_FREE)) {
		ret = pc_skip_rest(a, "MADV_FREE", errno);
		goto unpin;
	}
	/* Redirty page 2 of every other folio: the 3rd PTE of a batch. */
	for (size_t f = 0; f < nfolios; f += 2) {
		size_t pg = f * PAGES_64K + 2;

		memset(pl.src + pg * PAGE, pc_page_byte(pg, SALT_B), PAGE);
		was[f] = true;
	}
	ret = move_fixed(pl.src, len, pl.dst);
	pc_window_end(ctx, &a->win,
		      &a->disturbed); /* our own MADV_PAGEOUT below is reclaim: not a disturbance */
	if (ret) {
		ret = pc_skip_rest(a, "mremap", -ret);
		goto unpin;
	}
	if (madvise(pl.dst, len, MADV_PAGEOUT)) {
		ret = pc_skip_rest(a, "MADV_PAGEOUT", errno);
		goto unpin;
	}
	for (size_t f = 0; f < nfolios; f++) {
		size_t pg = f * PAGES_64K + (was[f] ? 2 : 0);
		const __u8 *p = (const __u8 *)pl.dst + pg * PAGE;

		if (was[f]) {
			written[f] = pc_page_byte(pg, SALT_B);
			seen[f] = pc_block_seen(p, PAGE, written[f], NULL);
		} else {
			/* Liveness: a discarded folio reads back as the zero page. */
			unwritten++;
			discarded += pc_block_seen(p, PAGE, 0, NULL) == 0;
		}
	}
	pc_compare_written(written, seen, was, nfolios, (__u64)(uintptr_t)pl.dst, FOLIO_64K,
			   &a->msg[s_data]);
	a->judged[s_data] = true;
	if (discarded == 0 && a->msg[s_data].status == PC_STATUS_PASS) {
		pc_slot_skip(a, s_data,
			     "probe inconclusive: reclaim discarded no clean lazyfree folio "
			     "(%zu not redirtied)",
			     unwritten);
		a->retry = true;
	} else {
		pc_oracle_appendf(&a->msg[s_data],
				  " (page 2 of every other folio); control: %zu of %zu clean "
				  "folios discarded; %s",
				  discarded, unwritten, folios_text(fs));
	}
	ret = 0;
unpin:
	if (pinned)
		sched_setaffinity(0, sizeof(oldmask), &oldmask);
out:
	pc_window_end(ctx, &a->win, &a->disturbed);
	place_release(&pl);
	free(written);
	free(seen);
	free(was);
	snap_free(&before);
	return ret;
}

/* ---- measure: young bits through clear_refs + smaps Referenced ------------ */

static int referenced_pages(const char *addr, __u64 *pages)
{
	struct pc_smaps sm;
	int ret = pc_smaps_read(0, (__u64)(uintptr_t)addr, &sm);

	if (ret)
		return ret;
	*pages = sm.referenced_kb / (PAGE / KIB);
	return 0;
}

static int measure_young(struct pc_scenario_ctx *ctx, const struct shape *sh, struct pc_attempt *a)
{
	const int s_ref = 0;
	struct snap before = {0};
	struct place pl = {0};
	size_t len = scaled_len(ctx, sh), npages = len / PAGE, touched = 0;
	__u64 stats_before = 0, ref_idle = 0, ref_after = 0;
	volatile const char *vp;
	enum folios_seen fs;
	bool stats_ok;
	int ret;

	pc_slot_init(a, s_ref, ctx, PC_CHK_ADBITS, TIER_REFERENCED);
	if (snap_alloc(&before, npages)) {
		ret = pc_skip_rest(a, "malloc", ENOMEM);
		goto out;
	}
	ret = place_reserve(&pl, len, sh->src_off, sh->dst_off);
	if (ret) {
		ret = pc_skip_rest(a, "mmap reservation", -ret);
		goto out;
	}
	stats_ok = pc_mthp_stat("anon_fault_alloc", &stats_before) == 0;
	pc_window_begin(ctx, &a->win, &a->disturbed);
	ret = place_map_src(&pl, -1, sh->advice);
	if (ret) {
		ret = pc_skip_rest(a, "mmap/madvise source", -ret);
		goto out;
	}
	fill_pages(pl.src, 0, npages, SALT_A);
	ret = snap_take(&before, ctx, pl.src, true);
	if (ret) {
		ret = pc_skip_rest(a, "pagemap", -ret);
		goto out;
	}
	fs = folios_formed(&before, stats_ok, stats_before, "anon_fault_alloc");
	if (no_large(fs)) {
		pc_slot_skip(a, s_ref, "no 64 KiB folios formed: mTHP off?");
		goto out;
	}
	ret = pc_clear_refs();
	if (ret) {
		ret = pc_skip_rest(a, "clear_refs", -ret);
		goto out;
	}
	/* clear_refs does not flush the TLB; a cached translation sets no bit. */
	if (mprotect(pl.src, len, PROT_NONE) || mprotect(pl.src, len, PROT_READ | PROT_WRITE)) {
		ret = pc_skip_rest(a, "mprotect", errno);
		goto out;
	}
	ret = referenced_pages(pl.src, &ref_idle);
	if (ret) {
		ret = pc_skip_rest(a, "smaps", -ret);
		goto out;
	}
	vp = pl.src;
	for (size_t i = 0; i < npages; i += 4, touched++)
		(void)vp[i * PAGE + 100];
	if (ref_idle >= touched) {
		pc_slot_skip(a, s_ref,
			     "liveness: %llu pages referenced right after clear_refs (>= %zu to "
			     "touch): clear_refs did nothing",
			     (unsigned long long)ref_idle, touched);
		a->retry = true;
		goto out;
	}
	ret = move_fixed(pl.src, len, pl.dst);
	if (!ret)
		ret = referenced_pages(pl.dst, &ref_after);
	pc_window_end(ctx, &a->win, &a->disturbed);
	if (ret) {
		ret = pc_skip_rest(a, "mremap/smaps", -ret);
		goto out;
	}
	pc_compare_referenced(ref_after, touched, (__u64)(uintptr_t)pl.dst, &a->msg[s_ref]);
	a->judged[s_ref] = true;
	pc_oracle_appendf(&a->msg[s_ref], " (%llu before the touches); %s",
			  (unsigned long long)ref_idle, folios_text(fs));
	ret = 0;
out:
	pc_window_end(ctx, &a->win, &a->disturbed);
	place_release(&pl);
	snap_free(&before);
	return ret;
}

/* ---- attempts and the final verdicts ------------------------------------- */

/* A shape's own measurement, as the shared loop calls it. */
static int measure_shape(struct pc_scenario_ctx *ctx, const void *data, struct pc_attempt *a)
{
	const struct shape *sh = data;

	return sh->measure(ctx, sh, a);
}

/* Runs a scenario's measurement up to PC_ATTEMPTS times and reports. */
static int run_shape(struct pc_scenario_ctx *ctx, const void *data)
{
	return pc_attempts_run(ctx, measure_shape, data);
}

/* ---- the scenarios -------------------------------------------------------- */

/* 1 MiB at 2 MiB + 512 KiB, moved to 2 MiB + 256 KiB: PTE-level, 64 KiB aligned. */
#define SH_1M .full_len = MIB, .min_len = 256 * KIB, .align = FOLIO_64K, .src_off = 512 * KIB

static const struct shape sh_anon_64k = {
	.measure = measure_move,
	SH_1M,
	.dst_off = 256 * KIB,
	.advice = MADV_HUGEPAGE,
	.folio_check = true,
	.want_large = true,
};
static const struct shape sh_anon_4k = {
	.measure = measure_move,
	SH_1M,
	.dst_off = 256 * KIB,
	.advice = MADV_NOHUGEPAGE,
	.folio_check = true,
};
static const struct shape sh_anon_64k_misaligned = {
	.measure = measure_move,
	SH_1M,
	.dst_off = 256 * KIB + 4 * KIB,
	.advice = MADV_HUGEPAGE,
	.folio_check = true,
	.want_large = true,
};
/* Moves [start + 8 KiB, end - 8 KiB): both ends inside a folio. */
static const struct shape sh_anon_64k_partial = {
	.measure = measure_move,
	SH_1M,
	.dst_off = 256 * KIB + 8 * KIB,
	.head = 8 * KIB,
	.tail = 8 * KIB,
	.advice = MADV_HUGEPAGE,
	.folio_check = true,
	.want_large = true,
};
static const struct shape sh_anon_64k_fork = {
	.measure = measure_fork,
	SH_1M,
	.dst_off = 256 * KIB,
	.advice = MADV_HUGEPAGE,
};
static const struct shape sh_shmem_64k = {
	.measure = measure_move,
	SH_1M,
	.backing = B_SHMEM,
	.dst_off = 256 * KIB,
	.advice = MADV_HUGEPAGE,
	.folio_check = true,
	.want_large = true,
};
static const struct shape sh_file_shared = {
	.measure = measure_move,
	SH_1M,
	.backing = B_FILE,
	.dst_off = 256 * KIB,
};
static const struct shape sh_anon_64k_dirty = {
	.measure = measure_dirty,
	SH_1M,
	.dst_off = 256 * KIB,
	.advice = MADV_HUGEPAGE,
};
static const struct shape sh_anon_64k_young = {
	.measure = measure_young,
	SH_1M,
	.dst_off = 256 * KIB,
	.advice = MADV_HUGEPAGE,
};
/* 8 MiB, both ends on 2 MiB boundaries: whole page tables can move. */
static const struct shape sh_pmd_aligned = {
	.measure = measure_move,
	.full_len = 8 * MIB,
	.min_len = 4 * MIB,
	.align = 2 * MIB,
	.advice = MADV_NOHUGEPAGE,
};
static const struct shape sh_pmd_misaligned = {
	.measure = measure_move,
	.full_len = 8 * MIB,
	.min_len = 4 * MIB,
	.align = 2 * MIB,
	.dst_off = 4 * KIB,
	.advice = MADV_NOHUGEPAGE,
};

static const struct pc_scenario scenarios[] = {
	{"anon-64k", "anonymous 1 MiB of 64 KiB folios moved to a 64 KiB-aligned address",
	 PC_NEEDS_MTHP_ANON_64K, run_shape, &sh_anon_64k},
	{"anon-4k", "anonymous 1 MiB of small pages (MADV_NOHUGEPAGE) moved", 0, run_shape,
	 &sh_anon_4k},
	{"anon-64k-misaligned", "64 KiB folios moved to 64 KiB alignment + 4 KiB",
	 PC_NEEDS_MTHP_ANON_64K, run_shape, &sh_anon_64k_misaligned},
	{"anon-64k-partial", "64 KiB folios, [start+8K, end-8K) moved: ends inside folios",
	 PC_NEEDS_MTHP_ANON_64K, run_shape, &sh_anon_64k_partial},
	{"anon-64k-fork", "64 KiB folios shared with a child, half COW-copied, moved, written",
	 PC_NEEDS_MTHP_ANON_64K, run_shape, &sh_anon_64k_fork},
	{"shmem-64k", "memfd MAP_SHARED 1 MiB (64 KiB shmem folios) moved, read back",
	 PC_NEEDS_MTHP_SHMEM_64K, run_shape, &sh_shmem_64k},
	{"file-shared", "regular file MAP_SHARED 1 MiB moved, evicted, read back", 0, run_shape,
	 &sh_file_shared},
	{"anon-64k-dirty", "MADV_FREE data-loss probe: redirtied 3rd PTE survives move+reclaim",
	 PC_NEEDS_MTHP_ANON_64K, run_shape, &sh_anon_64k_dirty},
	{"anon-64k-young", "clear_refs, touch every 4th page, move: Referenced covers them",
	 PC_NEEDS_MTHP_ANON_64K, run_shape, &sh_anon_64k_young},
	{"pmd-aligned", "8 MiB small pages, 2 MiB-aligned source and destination", 0, run_shape,
	 &sh_pmd_aligned},
	{"pmd-misaligned", "8 MiB small pages, destination 2 MiB-aligned + 4 KiB", 0, run_shape,
	 &sh_pmd_misaligned},
};

const struct pc_suite pc_mremap_suite = {
	.name = "mremap",
	.description = "mremap PTE batching and PMD-level moves",
	.scenarios = scenarios,
	.n_scenarios = sizeof(scenarios) / sizeof(scenarios[0]),
};
