// SPDX-License-Identifier: GPL-2.0
/*
 * The filemap suite: folio-based fault-around.  Since v6.4 a read fault on
 * a file mapping maps a run of a large page-cache folio at once
 * (filemap_map_pages -> filemap_map_folio_range -> set_pte_range +
 * folio_add_file_rmap_ptes + RSS += nr).  Each scenario fills a fresh file
 * (memfd with 64 KiB shmem mTHP, a huge=within_size tmpfs, ext4, a file in
 * the private tmpdir, or a small-folio memfd as the control), unmaps what
 * filled it, maps it again read-only in a chosen shape and read-faults it,
 * then judges with the userspace oracles:
 *
 *   filemap/ptes-set     [oracle:pagemap]    every touched page present; a page
 *                                            of file index i in a folio of nr
 *                                            pages maps head PFN + i % nr
 *                        [oracle:data]       bytes through the mapping = pread
 *   filemap/batch-bounds [oracle:pagemap]    nothing mapped outside the VMA or
 *                                            past EOF (shmem: past EOF's folio)
 *                        [oracle:sigbus]     SIGBUS beyond EOF stays
 *   filemap/rmap-count   [oracle:kpagecount] N mappers: mapcount N per page
 *   filemap/rss-count    [oracle:status-rss] RssFile/RssShmem += pages present
 *
 * Pagemap shows presence and PFN only, not the write or dirty bit: the
 * write half of pc_fault_entry is judged with what pagemap gives (never
 * writable, as a read fault on a PROT_READ mapping must be), i.e. not at all.
 *
 * Zero false positives: fault-around may map more than was touched (within
 * the VMA, the page table and i_size); reclaim may unmap.  A violation is
 * re-measured on a fresh file, and fails only when every one of PC_ATTEMPTS
 * attempts shows it and at least PC_ATTEMPTS of them saw no disturbance.
 * A probe that could not have caught a bug (no large folio formed, no folio
 * across the VMA or EOF) is a SKIP saying so, never a PASS.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/magic.h>

#include "scenario.h"
#include "attempt.h"
#include "measure.h"
#include "oracle_compare.h"
#include "procmm.h"
#include "report.h"

#define KIB	  1024UL
#define MIB	  (1024UL * KIB)
#define PAGE	  ((size_t)PC_PAGE_SIZE)
#define PMD	  ((size_t)PC_PMD_SIZE)
#define FOLIO_64K (64 * KIB)

#define NEIGHBOURS 16 /* pages of reservation checked on each side of the VMA */

#define TIER_PAGEMAP	"oracle:pagemap"
#define TIER_DATA	"oracle:data"
#define TIER_SIGBUS	"oracle:sigbus"
#define TIER_RSS	"oracle:status-rss"
#define TIER_KPAGECOUNT "oracle:kpagecount"

#define ALIGN_UP(x, a) (((x) + (a)-1) & ~((a)-1))
#define DIV_UP(x, a)   (((x) + (a)-1) / (a))

/* ---- shapes ------------------------------------------------------------- */

enum fm_backing {
	FB_MEMFD_64K,	/* memfd filled through a 64 KiB-aligned mapping: 64 KiB mTHP */
	FB_MEMFD_SMALL, /* memfd filled under MADV_NOHUGEPAGE: small folios (control) */
	FB_TMPFS_HUGE,	/* file on the huge=within_size tmpfs: PMD-size folios */
	FB_BLOCKFS,	/* file on the scratch ext4 */
	FB_TMPDIR,	/* file in ctx->tmpdir, whatever filesystem that is */
};

enum fm_kind {
	K_WHOLE,     /* map the whole file, touch one byte per page */
	K_EOF,	     /* i_size ends inside a folio; map past it, touch up to EOF */
	K_RANGE,     /* the VMA starts or ends inside a folio, or is smaller */
	K_STRADDLE,  /* a folio crosses a 2 MiB virtual boundary */
	K_PREMAPPED, /* every 3rd page mapped first, then all */
	K_SHARED,    /* nproc more processes map and touch every page */
	K_TRUNCATE,  /* faults race ftruncate shorter and back; judged quiescent */
};

struct fm_shape {
	enum fm_backing backing;
	enum fm_kind kind;
	size_t full_len; /* file length before scaling */
	size_t min_len;
	size_t granule;	 /* length granule: 64 KiB, or 2 MiB for PMD folios */
	size_t eof_tail; /* K_EOF, K_TRUNCATE: i_size = len - eof_tail */
	size_t map_off;	 /* K_RANGE: file offset of the VMA */
	size_t map_trim; /* K_RANGE: the VMA ends this far before the file does */
	size_t map_len;	 /* K_RANGE: the VMA's length, when non-zero */
	size_t va_off;	 /* VMA start past a 2 MiB boundary (plus map_off % 2 MiB) */
	int nproc;	 /* K_SHARED */
	bool want_large; /* the shape means nothing without large folios */
};

/* ---- attempts (as in the mremap suite) ------------------------------------ */

enum { S_PTES, S_DATA, S_RSS, S_BOUNDS, S_SIGBUS, S_RMAP };

/* PASS or FAIL from the counts, SKIP when nothing was compared. */
static void judge(struct pc_attempt *a, int i)
{
	struct pc_oracle_msg *m = &a->msg[i];

	m->status = m->violations ? PC_STATUS_FAIL : m->checked ? PC_STATUS_PASS : PC_STATUS_SKIP;
	a->judged[i] = true;
}

/* ---- SIGBUS-safe reads ------------------------------------------------------ */

static sigjmp_buf probe_env;
static volatile sig_atomic_t probe_armed;

static void probe_handler(int sig)
{
	if (probe_armed)
		siglongjmp(probe_env, sig);
	signal(sig, SIG_DFL); /* not ours: die as we would have */
	raise(sig);
}

/* Reads *p; 0, or the signal (SIGBUS, SIGSEGV) the read raised. */
static int probe_read(const volatile char *p)
{
	int sig;

	probe_armed = 1;
	sig = sigsetjmp(probe_env, 1);
	if (sig == 0)
		(void)*p;
	probe_armed = 0;
	return sig;
}

struct probe_handlers {
	struct sigaction bus, segv;
};

static void probe_install(struct probe_handlers *old)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = probe_handler;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, &old->bus);
	sigaction(SIGSEGV, &sa, &old->segv);
}

static void probe_restore(const struct probe_handlers *old)
{
	sigaction(SIGBUS, &old->bus, NULL);
	sigaction(SIGSEGV, &old->segv, NULL);
}

/* ---- the file ------------------------------------------------------------- */

struct fm_file {
	int fd;
	bool shmem;	       /* shmem/tmpfs: may map across i_size; counts in RssShmem */
	const char *what;      /* for summaries */
	size_t len;	       /* bytes written */
	size_t i_size;	       /* after any truncation */
	unsigned char *expect; /* len bytes as written */
	int pin[2];	       /* pipe holding a page of EOF's folio (vmsplice) */
};

/* Distinct 8-byte words per page index: a page mapped at the wrong index shows. */
static void fill_expect(unsigned char *buf, size_t len)
{
	for (size_t pg = 0; pg < len / PAGE; pg++) {
		__u64 *w = (__u64 *)(buf + pg * PAGE);

		for (size_t k = 0; k < PAGE / 8; k++)
			w[k] = 0xa5ULL << 56 | (__u64)pg << 16 | k;
	}
}

static size_t scaled_len(const struct pc_scenario_ctx *ctx, const struct fm_shape *sh)
{
	unsigned int s = ctx->scale ? ctx->scale : 1;
	size_t len = sh->full_len / s;

	if (len < sh->min_len)
		len = sh->min_len;
	return len & ~(sh->granule - 1);
}

/*
 * A fresh, unlinked file of the shape's backing.  1 with a SKIP reason in
 * why when the backing is unavailable here, 0, or -errno.
 */
static int file_open(const struct pc_scenario_ctx *ctx, const struct fm_shape *sh,
		     struct fm_file *f, char *why, size_t why_len)
{
	const char *dir = NULL;
	char path[4096];
	struct statfs sfs;

	f->pin[0] = f->pin[1] = -1;
	switch (sh->backing) {
	case FB_MEMFD_64K:
	case FB_MEMFD_SMALL:
		f->fd = memfd_create("ptecheck-filemap", MFD_CLOEXEC);
		f->shmem = true;
		f->what = sh->backing == FB_MEMFD_64K ? "memfd" : "memfd (MADV_NOHUGEPAGE)";
		return f->fd < 0 ? -errno : 0;
	case FB_TMPFS_HUGE:
		dir = ctx->shmem_huge_dir;
		if (!dir) {
			snprintf(why, why_len, "no huge=within_size tmpfs: %s",
				 ctx->shmem_huge_why ? ctx->shmem_huge_why : "not prepared");
			return 1;
		}
		break;
	case FB_BLOCKFS:
		dir = ctx->blockfs_dir;
		if (!dir) {
			snprintf(why, why_len, "no ext4 scratch filesystem: %s",
				 ctx->blockfs_why ? ctx->blockfs_why : "not prepared");
			return 1;
		}
		break;
	case FB_TMPDIR:
		dir = ctx->tmpdir && *ctx->tmpdir ? ctx->tmpdir : "/tmp";
		break;
	}
	snprintf(path, sizeof(path), "%s/ptecheck-filemap-XXXXXX", dir);
	f->fd = mkostemp(path, O_CLOEXEC);
	if (f->fd < 0)
		return -errno;
	unlink(path); /* a fresh file nobody else maps; nothing left behind */
	if (fstatfs(f->fd, &sfs))
		return -errno;
	f->shmem = sfs.f_type == TMPFS_MAGIC;
	f->what = sh->backing == FB_TMPFS_HUGE ? "tmpfs huge=within_size"
		  : sh->backing == FB_BLOCKFS  ? "ext4"
		  : f->shmem		       ? "tmpdir file (tmpfs)"
					       : "tmpdir file (block fs)";
	return 0;
}

static void file_close(struct fm_file *f)
{
	if (f->fd >= 0)
		close(f->fd);
	for (int i = 0; i < 2; i++)
		if (f->pin[i] >= 0)
			close(f->pin[i]);
	free(f->expect);
	memset(f, 0, sizeof(*f));
	f->fd = f->pin[0] = f->pin[1] = -1;
}

/* A 2 MiB-aligned address with len bytes of PROT_NONE around it. */
static char *reserve_aligned(size_t len, char **resv, size_t *resv_len)
{
	*resv_len = len + 2 * PMD;
	*resv = mmap(NULL, *resv_len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1,
		     0);
	if (*resv == MAP_FAILED) {
		*resv = NULL;
		return NULL;
	}
	return (char *)ALIGN_UP((uintptr_t)*resv, PMD);
}

/*
 * Writes the pattern: shmem through a 2 MiB-aligned shared mapping (so a
 * fault can allocate 64 KiB or PMD folios; MADV_NOHUGEPAGE for the small
 * control), other files with one pwrite (the write path makes large
 * folios where the filesystem has them).
 */
static int file_fill(struct fm_file *f, const struct fm_shape *sh, size_t len)
{
	char *resv, *p;
	size_t resv_len;
	int ret = 0;

	f->len = f->i_size = len;
	f->expect = malloc(len);
	if (!f->expect)
		return -ENOMEM;
	fill_expect(f->expect, len);
	if (ftruncate(f->fd, (off_t)len))
		return -errno;
	if (!f->shmem) {
		for (size_t done = 0; done < len;) {
			ssize_t w = pwrite(f->fd, f->expect + done, len - done, (off_t)done);

			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				return w < 0 ? -errno : -EIO;
			done += (size_t)w;
		}
		return 0;
	}
	p = reserve_aligned(len, &resv, &resv_len);
	if (!p)
		return -errno;
	if (mmap(p, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, f->fd, 0) == MAP_FAILED)
		ret = -errno;
	if (!ret && sh->backing == FB_MEMFD_SMALL && madvise(p, len, MADV_NOHUGEPAGE))
		ret = -errno;
	if (!ret)
		memcpy(p, f->expect, len);
	munmap(resv, resv_len);
	return ret;
}

/*
 * Shrinks the file to i_size inside a folio.  A page of EOF's folio is held
 * by a pipe (vmsplice takes a reference), so truncation cannot split the
 * folio: pages past EOF stay in the page cache, where a fault-around that
 * ignored i_size would find them.
 */
static int file_truncate_pinned(struct fm_file *f, size_t i_size)
{
	size_t eof_pg = (i_size - 1) / PAGE;
	struct iovec iov;
	char *p;
	int ret = 0;

	p = mmap(NULL, f->len, PROT_READ, MAP_SHARED, f->fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	iov.iov_base = p + eof_pg * PAGE;
	iov.iov_len = PAGE;
	if (pipe2(f->pin, O_CLOEXEC | O_NONBLOCK) || vmsplice(f->pin[1], &iov, 1, 0) != PAGE)
		ret = -errno;
	munmap(p, f->len);
	if (!ret && ftruncate(f->fd, (off_t)i_size))
		ret = -errno;
	if (!ret)
		f->i_size = i_size;
	return ret;
}

/* ---- the mapping ------------------------------------------------------------ */

struct fm_map {
	char *resv;
	size_t resv_len;
	char *addr; /* the VMA */
	size_t len, npages;
	size_t off;	    /* file offset */
	__u64 first_idx;    /* file page index of the first page */
	__u64 *pm;	    /* pagemap of NEIGHBOURS + npages + NEIGHBOURS pages */
	struct pc_pte *pte; /* the VMA's pages (pm + NEIGHBOURS) */
	__u64 *head, *nr;   /* folio of each present page (kpageflags), nr 0 if unknown */
	__u64 *premap;	    /* K_PREMAPPED: PFNs of the pages mapped first */
};

static int map_place(struct fm_map *m, int fd, size_t off, size_t len, size_t va_off)
{
	size_t n = len / PAGE;
	char *base;
	void *p;

	memset(m, 0, sizeof(*m));
	m->pm = calloc(n + 2 * NEIGHBOURS, sizeof(*m->pm));
	m->pte = calloc(n, sizeof(*m->pte));
	m->head = calloc(n, sizeof(*m->head));
	m->nr = calloc(n, sizeof(*m->nr));
	m->premap = calloc(n, sizeof(*m->premap));
	if (!m->pm || !m->pte || !m->head || !m->nr || !m->premap)
		return -ENOMEM;
	/* PROT_NONE all around: a PTE there could only be fault-around's. */
	base = reserve_aligned(len + 2 * PMD, &m->resv, &m->resv_len);
	if (!base)
		return -errno;
	m->addr = base + PMD + off % PMD + va_off;
	m->len = len;
	m->npages = n;
	m->off = off;
	m->first_idx = off / PAGE;
	if (munmap(m->addr, len))
		return -errno;
	p = mmap(m->addr, len, PROT_READ, MAP_SHARED | MAP_FIXED_NOREPLACE, fd, (off_t)off);
	if (p == MAP_FAILED)
		return -errno;
	if (p != m->addr) {
		munmap(p, len);
		return -EEXIST;
	}
	return 0;
}

static void map_release(struct fm_map *m)
{
	if (m->resv)
		munmap(m->resv, m->resv_len); /* the VMA lies inside */
	free(m->pm);
	free(m->pte);
	free(m->head);
	free(m->nr);
	free(m->premap);
	memset(m, 0, sizeof(*m));
}

static __u64 va(const struct fm_map *m, size_t i)
{
	return (__u64)(uintptr_t)(m->addr + i * PAGE);
}

/* Pagemap of the VMA and its neighbours; folios of present pages when asked. */
static int map_snapshot(const struct pc_scenario_ctx *ctx, struct fm_map *m, bool folios)
{
	__u64 h = 0, nr = 0;
	int ret =
		pc_pagemap_read(0, va(m, 0) - NEIGHBOURS * PAGE, m->npages + 2 * NEIGHBOURS, m->pm);

	if (ret)
		return ret;
	pc_pagemap_to_ptes(m->pm + NEIGHBOURS, m->npages, m->pte);
	memset(m->nr, 0, m->npages * sizeof(*m->nr));
	if (!folios || !ctx->have_kpageflags)
		return 0;
	for (size_t i = 0; i < m->npages; i++) {
		__u64 pfn = m->pte[i].pfn;
		__u32 order;

		if (m->pte[i].kind != PC_PTE_PRESENT || pfn == 0)
			continue;
		if (nr == 0 || pfn < h || pfn >= h + nr) {
			ret = pc_folio_of_pfn(pfn, &h, &order);
			if (ret)
				return ret; /* -ESTALE: changed while read */
			nr = 1ULL << order;
		}
		m->head[i] = h;
		m->nr[i] = nr;
	}
	return 0;
}

static size_t map_present(const struct fm_map *m)
{
	return pc_pagemap_count_present(m->pm + NEIGHBOURS, m->npages);
}

/* ---- RSS -------------------------------------------------------------------- */

static __u64 rss_pages(const struct pc_status_rss *r, bool shmem)
{
	return (shmem ? r->shmem_kb : r->file_kb) / (PAGE / KIB);
}

/*
 * Whether /proc/self/status shows RSS exactly: before ~v6.16 it read the
 * per-CPU counters approximately.  Touches n anonymous pages and returns
 * the pages RssAnon grew by.
 */
static long rss_anon_probe(size_t n)
{
	struct pc_status_rss a, b;
	char *p = mmap(NULL, n * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long got = -1;

	if (p == MAP_FAILED)
		return -1;
	madvise(p, n * PAGE, MADV_NOHUGEPAGE);
	if (pc_status_rss_read(0, &a) == 0) {
		for (size_t i = 0; i < n; i++)
			((volatile char *)p)[i * PAGE] = 1;
		if (pc_status_rss_read(0, &b) == 0)
			got = (long)((b.anon_kb - a.anon_kb) / (PAGE / KIB));
	}
	munmap(p, n * PAGE);
	return got;
}

static bool rss_exact(long *seen37)
{
	(void)rss_anon_probe(5); /* warm-up: stack, code */
	*seen37 = rss_anon_probe(37);
	return *seen37 == 37 && rss_anon_probe(23) == 23;
}

/* ---- pipes ------------------------------------------------------------------ */

static ssize_t read_full(int fd, void *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t r = read(fd, (char *)buf + done, len - done);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
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

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		done += (size_t)w;
	}
	return 0;
}

static int pread_all(int fd, unsigned char *buf, size_t len)
{
	for (size_t done = 0; done < len;) {
		ssize_t r = pread(fd, buf + done, len - done, (off_t)done);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return -EIO;
		done += (size_t)r;
	}
	return 0;
}

/* ---- data ------------------------------------------------------------------- */

/*
 * Bytes of page i of the mapping that differ from the file (file[] from
 * pread, i_size bytes): below EOF the file's bytes, past EOF in the EOF
 * page zeros.
 */
static size_t page_mismatches(const char *page, __u64 idx, const unsigned char *file, size_t i_size,
			      size_t *first)
{
	size_t c = 0, base = idx * PAGE;

	*first = 0;
	for (size_t k = 0; k < PAGE; k++) {
		unsigned char want = base + k < i_size ? file[base + k] : 0;

		if ((unsigned char)page[k] != want && c++ == 0)
			*first = k;
	}
	return c;
}

/* ---- the judgements ---------------------------------------------------------- */

/*
 * ptes-set: every touched page present; a present page of file index idx
 * in a folio of nr pages (naturally aligned in the page cache) maps the
 * folio's head PFN + idx % nr: pc_fault_entry with k = idx % nr.
 */
static void judge_ptes(const struct pc_scenario_ctx *ctx, struct pc_attempt *a,
		       const struct fm_shape *sh, const struct fm_file *f, const struct fm_map *m,
		       const bool *touched)
{
	struct pc_oracle_msg *pm = &a->msg[S_PTES];
	size_t present = 0, in_large = 0, missing = 0, folios = 0, straddle = 0, split_runs = 0;
	size_t edge = 0;
	__u64 last_head = 0;

	for (size_t i = 0; i < m->npages; i++) {
		__u64 idx = m->first_idx + i;
		struct pc_pte p = m->pte[i];
		int v;

		if (p.kind != PC_PTE_PRESENT) {
			if (touched[i]) {
				pm->checked++;
				missing++;
				pc_oracle_add_evidence(pm, PC_V_PTE_LOST, va(m, i), 0, idx, 0,
						       "touched page not present (index %llu)",
						       (unsigned long long)idx);
			}
			continue;
		}
		present++;
		pm->checked++;
		if (m->nr[i] == 0)
			continue; /* folio unknown: presence only */
		v = pc_fault_entry(p, m->head[i], (__u32)(idx & (m->nr[i] - 1)), false, false);
		if (pc_is_violation(v))
			pc_oracle_add_evidence(pm, v, va(m, i), 0,
					       m->head[i] + (idx & (m->nr[i] - 1)), p.pfn,
					       "index %llu, folio of %llu", (unsigned long long)idx,
					       (unsigned long long)m->nr[i]);
		if (m->premap[i] && m->premap[i] != p.pfn)
			pc_oracle_add_evidence(pm, PC_V_PFN_CHANGED, va(m, i), 0, m->premap[i],
					       p.pfn,
					       "pfn of a premapped page changed (index %llu)",
					       (unsigned long long)idx);
		if (m->nr[i] > 1) {
			in_large++;
			folios += m->head[i] != last_head;
			/* A folio crossing a 2 MiB virtual boundary, mapped both sides. */
			if (i > 0 && va(m, i) % PMD == 0 && m->nr[i - 1] &&
			    m->head[i - 1] == m->head[i])
				straddle++;
			/* A large folio the VMA cuts (starts or ends inside it). */
			if ((i == 0 && idx % m->nr[i]) ||
			    (i == m->npages - 1 && (idx + 1) % m->nr[i]))
				edge++;
			/* Premapped pages next to fresh ones: the folio mapped in runs. */
			if (i > 0 && m->nr[i - 1] && m->head[i - 1] == m->head[i] &&
			    !m->premap[i] != !m->premap[i - 1])
				split_runs++;
		}
		last_head = m->head[i];
	}
	judge(a, S_PTES);
	snprintf(pm->summary, sizeof(pm->summary),
		 "%s: %zu of %zu pages present, %zu in %zu large folios, PFN = head + "
		 "index %% nr for each; %zu touched pages missing",
		 f->what, present, m->npages, in_large, folios, missing);
	if (pm->status != PC_STATUS_PASS)
		return;
	if (!ctx->have_kpageflags) {
		pc_oracle_skip(pm,
			       "%s: /proc/kpageflags not readable: folios unknown, presence "
			       "of %zu pages only",
			       f->what, present);
		return;
	}
	if (sh->want_large && in_large == 0) {
		pc_oracle_skip(pm,
			       "%s: no large folio formed (kpageflags)%s: fault-around mapped "
			       "single pages only",
			       f->what,
			       sh->backing == FB_MEMFD_64K && !ctx->mthp_shmem_64k
				       ? " (64 KiB shmem mTHP not enabled)"
				       : "");
		return;
	}
	if (sh->kind == K_STRADDLE && straddle == 0)
		pc_oracle_skip(pm,
			       "%s: no large folio crossed the 2 MiB boundary (%zu in large "
			       "folios)",
			       f->what, in_large);
	else if (sh->kind == K_RANGE && edge == 0)
		pc_oracle_skip(pm, "%s: the VMA cut no large folio (%zu in large folios)", f->what,
			       in_large);
	else if (sh->kind == K_PREMAPPED && split_runs == 0)
		pc_oracle_skip(pm, "%s: no large folio mixed premapped and fresh pages", f->what);
	else if (sh->kind == K_STRADDLE)
		pc_oracle_appendf(pm, "; %zu folio(s) mapped across the PMD boundary", straddle);
	else if (sh->kind == K_RANGE)
		pc_oracle_appendf(pm, "; %zu folio(s) cut by the VMA", edge);
	else if (sh->kind == K_PREMAPPED)
		pc_oracle_appendf(pm, "; %zu premapped/fresh run boundaries", split_runs);
	pc_oracle_appendf(pm, " (pagemap: present+PFN only, no write bit)");
}

/* batch-bounds, pagemap half: nothing outside the VMA, nothing past EOF. */
static void judge_bounds(struct pc_attempt *a, bool ctx_kpageflags, const struct fm_shape *sh,
			 const struct fm_file *f, const struct fm_map *m, size_t *eof_folio_end,
			 bool *eof_known_out)
{
	struct pc_oracle_msg *b = &a->msg[S_BOUNDS];
	__u64 eof_pages = DIV_UP(f->i_size, PAGE), limit_bytes = f->i_size;
	size_t outside = 0, past = 0, cut = 0, beyond_eof_cached = 0;
	size_t eof_i = (size_t)(eof_pages - 1 - m->first_idx);
	bool eof_known = false;

	*eof_folio_end = (size_t)eof_pages;
	/* The EOF page's folio: where shmem may map to, and the liveness. */
	if (eof_pages > m->first_idx && eof_i < m->npages && m->nr[eof_i]) {
		__u64 idx = eof_pages - 1, nr = m->nr[eof_i];

		*eof_folio_end = (size_t)((idx & ~(nr - 1)) + nr);
		beyond_eof_cached = *eof_folio_end - eof_pages;
		eof_known = true;
		if (f->shmem)
			limit_bytes = (__u64)*eof_folio_end * PAGE;
	}
	for (size_t j = 0; j < 2 * NEIGHBOURS; j++) {
		size_t k = j < NEIGHBOURS ? j : m->npages + j;
		__u64 addr = va(m, 0) - NEIGHBOURS * PAGE + k * PAGE;

		b->checked++;
		if (m->pm[k] & PC_PM_PRESENT) {
			outside++;
			pc_oracle_add_evidence(b, PC_V_OUTSIDE_VMA, addr, 0, 0,
					       m->pm[k] & PC_PM_PFN_MASK, "pte %s the VMA",
					       j < NEIGHBOURS ? "before" : "after");
		}
	}
	for (size_t i = 0; i < m->npages; i++)
		if (m->nr[i] > 1 && ((i == 0 && (m->first_idx + i) % m->nr[i]) ||
				     (i == m->npages - 1 && (m->first_idx + i + 1) % m->nr[i])))
			cut++;
	if (sh->kind == K_EOF || sh->kind == K_TRUNCATE) {
		for (size_t i = 0; i < m->npages; i++) {
			__u64 idx = m->first_idx + i;

			if (!pc_page_past_eof(idx, f->i_size))
				continue;
			b->checked++;
			if (m->pte[i].kind == PC_PTE_PRESENT &&
			    pc_page_past_eof(idx, limit_bytes)) {
				past++;
				pc_oracle_add_evidence(
					b, PC_V_PAST_EOF, va(m, i), 0, 0, m->pte[i].pfn,
					"page past EOF mapped (index %llu, i_size %zu)",
					(unsigned long long)idx, f->i_size);
			}
		}
	}
	*eof_known_out = eof_known;
	judge(a, S_BOUNDS);
	snprintf(b->summary, sizeof(b->summary),
		 "%s: %zu PTEs outside the VMA (%d pages each side), %zu past %s", f->what, outside,
		 NEIGHBOURS, past, f->shmem ? "EOF's folio (shmem may map across i_size)" : "EOF");
	if (b->status != PC_STATUS_PASS)
		return;
	if (sh->kind == K_RANGE) {
		if (cut == 0)
			pc_oracle_skip(b,
				       "%s: no large folio crossed the VMA's ends: nothing "
				       "outside to map",
				       f->what);
		else
			pc_oracle_appendf(b, "; %zu folio(s) cross the VMA's ends", cut);
		return;
	}
	if (!eof_known) {
		pc_oracle_skip(b,
			       "%s: EOF page not present or folio unknown: whether a folio "
			       "crosses EOF is unknown",
			       f->what);
		a->retry = ctx_kpageflags; /* not present: reclaim, try again */
	} else if (f->shmem) {
		pc_oracle_skip(b,
			       "%s: shmem may map EOF's folio across i_size; nothing past it "
			       "is cached (SIGBUS judged instead)",
			       f->what);
	} else if (beyond_eof_cached == 0) {
		pc_oracle_skip(b, "%s: no folio crosses EOF: nothing past EOF was cached to map",
			       f->what);
	} else {
		pc_oracle_appendf(b, "; EOF's folio holds %zu pages past EOF", beyond_eof_cached);
	}
}

/* ---- shapes' fault patterns --------------------------------------------------- */

/* Reads one byte of each page in [from, to); SIGBUS counts as a violation. */
static void touch_range(struct pc_attempt *a, const struct fm_map *m, size_t from, size_t to,
			bool *touched)
{
	for (size_t i = from; i < to; i++) {
		int sig = probe_read(m->addr + i * PAGE + (i * 64) % PAGE);

		touched[i] = true;
		if (sig)
			pc_oracle_add_evidence(&a->msg[S_PTES], PC_V_PTE_LOST, va(m, i), 0, 0,
					       (__u64)sig,
					       "signal %d reading below EOF (index %llu)", sig,
					       (unsigned long long)(m->first_idx + i));
	}
}

/* K_SHARED: one mapper; reports its PFNs, twice, and its data mismatches. */
static void __attribute__((noreturn))
shared_child(const struct fm_file *f, const struct fm_map *m, unsigned char *file, int cmd, int res)
{
	size_t n = m->npages;
	__u64 *pm = calloc(n + 1, sizeof(*pm));
	char *p, c;

	/* The inherited VMA has no PTEs; map afresh anyway, elsewhere. */
	munmap(m->addr, m->len);
	p = mmap(NULL, m->len, PROT_READ, MAP_SHARED, f->fd, (off_t)m->off);
	if (!pm || p == MAP_FAILED)
		_exit(1);
	pm[n] = 0; /* pages with wrong data */
	for (size_t i = 0; i < n; i++) {
		size_t first;

		(void)((volatile char *)p)[i * PAGE];
		pm[n] += page_mismatches(p + i * PAGE, m->first_idx + i, file, f->i_size, &first) !=
			 0;
	}
	for (int round = 0; round < 2; round++) {
		if (pc_pagemap_read(0, (__u64)(uintptr_t)p, n, pm) ||
		    write_full(res, pm, (n + 1) * sizeof(*pm)) || read_full(cmd, &c, 1) != 1)
			_exit(1);
	}
	_exit(0);
}

struct shared_run {
	int n;
	pid_t pid[16];
	int cmd[16], res[16];
};

static void shared_stop(struct shared_run *s)
{
	for (int k = 0; k < s->n; k++) {
		int st;

		close(s->cmd[k]);
		close(s->res[k]);
		while (waitpid(s->pid[k], &st, 0) < 0 && errno == EINTR)
			;
	}
	s->n = 0;
}

/*
 * filemap/rmap-count: nproc children and this process map every page;
 * /proc/kpagecount must show nproc + 1 for each.  Judged only when every
 * mapper showed the same PFNs before and after the count.
 */
static int judge_rmap(const struct pc_scenario_ctx *ctx, struct pc_attempt *a,
		      const struct fm_shape *sh, const struct fm_file *f, struct fm_map *m,
		      unsigned char *file)
{
	struct pc_oracle_msg *r = &a->msg[S_RMAP];
	struct shared_run s = {0};
	size_t n = m->npages, unstable = 0, bad_data = 0;
	__u64 *pfns = calloc(n + 1, sizeof(*pfns)), *cnt = calloc(n, sizeof(*cnt));
	__u64 *own = calloc(n, sizeof(*own));
	int nproc = sh->nproc < 16 ? sh->nproc : 16, ret = 0;

	if (!pfns || !cnt || !own) {
		ret = -ENOMEM;
		goto out;
	}
	if (!ctx->have_kpageflags) {
		pc_slot_skip(a, S_RMAP, "/proc/kpagecount not readable (needs root)");
		goto out;
	}
	for (int k = 0; k < nproc; k++) {
		int c[2], rr[2];

		if (pipe2(c, O_CLOEXEC)) {
			ret = -errno;
			goto out;
		}
		if (pipe2(rr, O_CLOEXEC)) {
			ret = -errno;
			close(c[0]);
			close(c[1]);
			goto out;
		}
		s.pid[k] = fork();
		if (s.pid[k] == 0) {
			/* Siblings' pipe ends too: else no child ever sees EOF. */
			for (int j = 0; j < s.n; j++) {
				close(s.cmd[j]);
				close(s.res[j]);
			}
			close(c[1]);
			close(rr[0]);
			shared_child(f, m, file, c[0], rr[1]);
		}
		close(c[0]);
		close(rr[1]);
		if (s.pid[k] < 0) {
			ret = -errno;
			close(c[1]);
			close(rr[0]);
			goto out;
		}
		s.cmd[k] = c[1];
		s.res[k] = rr[0];
		s.n++;
	}
	/* Round 1: every child has touched every page. */
	for (int k = 0; k < s.n; k++) {
		if (read_full(s.res[k], pfns, (n + 1) * sizeof(*pfns)) !=
		    (ssize_t)((n + 1) * sizeof(*pfns))) {
			ret = -EPIPE;
			goto out;
		}
		bad_data += pfns[n];
		for (size_t i = 0; i < n; i++)
			unstable += !(pfns[i] & PC_PM_PRESENT) ||
				    m->pte[i].kind != PC_PTE_PRESENT ||
				    (pfns[i] & PC_PM_PFN_MASK) != m->pte[i].pfn;
	}
	for (size_t i = 0; i < n; i++) {
		if (m->pte[i].kind != PC_PTE_PRESENT || !m->pte[i].pfn ||
		    pc_kpagecount_read(m->pte[i].pfn, 1, &cnt[i])) {
			unstable++;
			continue;
		}
	}
	/* Round 2: nothing moved while counted (this process and the children). */
	if (pc_pagemap_read(0, va(m, 0), n, own)) {
		ret = -EIO;
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		unstable += (own[i] & PC_PM_PFN_MASK) != m->pte[i].pfn || !(own[i] & PC_PM_PRESENT);
	for (int k = 0; k < s.n; k++) {
		if (write_full(s.cmd[k], "c", 1) ||
		    read_full(s.res[k], pfns, (n + 1) * sizeof(*pfns)) !=
			    (ssize_t)((n + 1) * sizeof(*pfns))) {
			ret = -EPIPE;
			goto out;
		}
		for (size_t i = 0; i < n; i++)
			unstable += (pfns[i] & PC_PM_PFN_MASK) != m->pte[i].pfn ||
				    !(pfns[i] & PC_PM_PRESENT);
	}
	if (bad_data) {
		/* A child read other bytes than the file's: data, not rmap. */
		pc_oracle_add_evidence(&a->msg[S_DATA], PC_V_DATA_MISMATCH, va(m, 0), 0, 0,
				       bad_data, "%zu pages read wrong by the other mappers",
				       bad_data);
	}
	if (unstable) {
		pc_oracle_skip(r,
			       "inconclusive: %zu page(s) not mapped alike by all %d mappers "
			       "around the count (reclaim?)",
			       unstable, nproc + 1);
		a->retry = true;
		a->judged[S_RMAP] = true;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		int v = pc_count_delta(0, (__s64)cnt[i], nproc + 1);

		r->checked++;
		if (pc_is_violation(v))
			pc_oracle_add_evidence(r, v, va(m, i), 0, (__u64)nproc + 1, cnt[i],
					       "mapcount of index %llu (pfn %#llx)",
					       (unsigned long long)(m->first_idx + i),
					       (unsigned long long)m->pte[i].pfn);
	}
	judge(a, S_RMAP);
	snprintf(r->summary, sizeof(r->summary),
		 "%s: %zu pages mapped by %d processes: %llu with another mapcount", f->what, n,
		 nproc + 1, (unsigned long long)r->violations);
out:
	shared_stop(&s);
	free(pfns);
	free(cnt);
	free(own);
	return ret;
}

/*
 * K_TRUNCATE: a child truncates to i_size and back to len, cycles times,
 * ending short; meanwhile this process zaps and re-faults the whole
 * mapping, catching SIGBUS.  Returns the SIGBUS count.
 */
static long truncate_race(const struct pc_scenario_ctx *ctx, struct fm_file *f, struct fm_map *m,
			  size_t i_size, const cpu_set_t *cpus, unsigned long *rounds)
{
	unsigned int cycles = 400 / (ctx->scale ? ctx->scale : 1);
	size_t full_pages = f->len / PAGE;
	long sigbus = 0;
	pid_t pid;
	int st;

	if (cycles < 40)
		cycles = 40;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		/* Off this process's CPU: a race, not an interleaving. */
		if (cpus)
			sched_setaffinity(0, sizeof(*cpus), cpus);
		for (unsigned int c = 0; c < cycles; c++) {
			if (ftruncate(f->fd, (off_t)i_size) || ftruncate(f->fd, (off_t)f->len))
				_exit(1);
			sched_yield();
		}
		_exit(ftruncate(f->fd, (off_t)i_size) ? 1 : 0);
	}
	*rounds = 0;
	for (;;) {
		pid_t w = waitpid(pid, &st, WNOHANG);

		if (w == pid || (w < 0 && errno != EINTR))
			break;
		madvise(m->addr, m->len, MADV_DONTNEED);
		for (size_t i = 0; i < full_pages && i < m->npages; i++)
			sigbus += probe_read(m->addr + i * PAGE) == SIGBUS;
		++*rounds;
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		return -EIO;
	f->i_size = i_size;
	return sigbus;
}

/* ---- one attempt ---------------------------------------------------------------- */

static int measure(struct pc_scenario_ctx *ctx, const void *data, struct pc_attempt *a)
{
	const struct fm_shape *sh = data;
	struct fm_file f = {.fd = -1, .pin = {-1, -1}};
	struct fm_map m = {0};
	struct pc_status_rss r0, r1;
	struct probe_handlers oldh;
	size_t len = scaled_len(ctx, sh), moff = 0, mlen, eof_folio_end = 0, touch_to;
	size_t i_size = len;
	unsigned char *file = NULL;
	bool *touched = NULL, pinned, rss_ok, locked, eof_known = false;
	unsigned long rounds = 0;
	long sigbus_race = 0, calib37 = 0;
	char why[200];
	cpu_set_t oldmask;
	int ret;

	pc_slot_init(a, S_PTES, ctx, PC_CHK_FM_PTES_SET, TIER_PAGEMAP);
	pc_slot_init(a, S_DATA, ctx, PC_CHK_FM_PTES_SET, TIER_DATA);
	pc_slot_init(a, S_RSS, ctx, PC_CHK_FM_RSS, TIER_RSS);
	if (sh->kind == K_EOF || sh->kind == K_TRUNCATE || sh->kind == K_RANGE)
		pc_slot_init(a, S_BOUNDS, ctx, PC_CHK_FM_BOUNDS, TIER_PAGEMAP);
	if (sh->kind == K_EOF || sh->kind == K_TRUNCATE)
		pc_slot_init(a, S_SIGBUS, ctx, PC_CHK_FM_BOUNDS, TIER_SIGBUS);
	if (sh->kind == K_SHARED)
		pc_slot_init(a, S_RMAP, ctx, PC_CHK_FM_RMAP, TIER_KPAGECOUNT);

	ret = file_open(ctx, sh, &f, why, sizeof(why));
	if (ret == 1) {
		for (int i = 0; i < a->n; i++)
			pc_slot_skip(a, i, "%s", why);
		file_close(&f);
		return 0;
	}
	if (ret) {
		file_close(&f);
		return pc_skip_rest(a, "open the file", -ret);
	}
	ret = file_fill(&f, sh, len);
	if (ret) {
		file_close(&f);
		return pc_skip_rest(a, "fill the file", -ret);
	}
	if (sh->kind == K_EOF || sh->kind == K_TRUNCATE)
		i_size = len - sh->eof_tail;
	if (sh->kind == K_EOF) {
		ret = file_truncate_pinned(&f, i_size);
		if (ret) {
			file_close(&f);
			return pc_skip_rest(a, "vmsplice/ftruncate", -ret);
		}
	}
	/* The VMA: past the populated length for EOF shapes (SIGBUS room). */
	mlen = len;
	if (sh->kind == K_EOF || sh->kind == K_TRUNCATE)
		mlen = len + FOLIO_64K;
	if (sh->kind == K_RANGE) {
		moff = sh->map_off;
		mlen = sh->map_len ? sh->map_len : len - moff - sh->map_trim;
	}
	file = malloc(len);
	touched = calloc(mlen / PAGE, sizeof(*touched));
	if (!file || !touched) {
		ret = pc_skip_rest(a, "malloc", ENOMEM);
		goto out_file;
	}

	/* One CPU, so the LRU batches MADV_PAGEOUT drains are ours. */
	pinned = pc_pin_cpu(&oldmask);
	rss_ok = rss_exact(&calib37);
	/* Our own code and stack resident and locked: only the test VMA faults. */
	locked = mlockall(MCL_CURRENT) == 0;
	probe_install(&oldh);
	(void)pc_status_rss_read(0, &r0);
	/* The race splits folios itself: its window opens once it is over. */
	if (sh->kind != K_TRUNCATE)
		pc_window_begin(ctx, &a->win, &a->disturbed);
	if (pc_status_rss_read(0, &r0)) {
		ret = pc_skip_rest(a, "/proc/self/status", EIO);
		goto out;
	}
	ret = map_place(&m, f.fd, moff, mlen, sh->va_off);
	if (ret) {
		ret = pc_skip_rest(a, "mmap", -ret);
		goto out;
	}
	touch_to = m.npages;
	if (sh->kind == K_EOF || sh->kind == K_TRUNCATE)
		touch_to = DIV_UP(f.i_size, PAGE) - m.first_idx;
	switch (sh->kind) {
	case K_PREMAPPED:
		/* Map all, drop two in three: every 3rd page stays mapped. */
		touch_range(a, &m, 0, m.npages, touched);
		for (size_t i = 0; i < m.npages; i++)
			if (i % 3 && madvise(m.addr + i * PAGE, PAGE, MADV_DONTNEED)) {
				ret = pc_skip_rest(a, "MADV_DONTNEED", errno);
				goto out;
			}
		ret = pc_pagemap_read(0, va(&m, 0), m.npages, m.premap);
		if (ret) {
			ret = pc_skip_rest(a, "pagemap", -ret);
			goto out;
		}
		for (size_t i = 0; i < m.npages; i++)
			m.premap[i] = i % 3 == 0 && (m.premap[i] & PC_PM_PRESENT)
					      ? m.premap[i] & PC_PM_PFN_MASK
					      : 0;
		touch_range(a, &m, 0, m.npages, touched);
		break;
	case K_TRUNCATE:
		sigbus_race = truncate_race(ctx, &f, &m, i_size, pinned ? &oldmask : NULL, &rounds);
		if (sigbus_race < 0) {
			ret = pc_skip_rest(a, "truncate race", (int)-sigbus_race);
			goto out;
		}
		/* Quiescent from here: the last truncation left i_size. */
		pc_window_begin(ctx, &a->win, &a->disturbed);
		touch_to = DIV_UP(f.i_size, PAGE);
		touch_range(a, &m, 0, touch_to, touched);
		break;
	default:
		touch_range(a, &m, 0, touch_to, touched);
		break;
	}
	ret = map_snapshot(ctx, &m, true);
	if (!ret)
		ret = pc_status_rss_read(0, &r1);
	pc_window_end(ctx, &a->win, &a->disturbed);
	if (ret == -ESTALE) {
		ret = pc_skip_rest(a, "kpageflags changed while read (split or reclaim)", ESTALE);
		a->retry = true;
		goto out;
	}
	if (ret) {
		ret = pc_skip_rest(a, "pagemap/kpageflags/status", -ret);
		goto out;
	}

	/* rss-count: this mm's RssFile/RssShmem grew by the pages now present. */
	if (!rss_ok) {
		pc_slot_skip(
			a, S_RSS,
			"RssAnon not exact (37 anonymous pages touched: +%ld): RSS counters read "
			"approximately on this kernel (/proc/pid/status not summed per CPU), or "
			"sanitizer shadow pages",
			calib37);
	} else {
		struct pc_oracle_msg *rm = &a->msg[S_RSS];
		__s64 before = (__s64)rss_pages(&r0, f.shmem),
		      after = (__s64)rss_pages(&r1, f.shmem);
		size_t present = map_present(&m);
		int v = pc_rss_delta(before, after, (__s64)present);

		rm->checked++;
		if (pc_is_violation(v))
			pc_oracle_add_evidence(rm, v, va(&m, 0), 0, present,
					       (__u64)(after - before), "%s grew by",
					       f.shmem ? "RssShmem" : "RssFile");
		judge(a, S_RSS);
		snprintf(rm->summary, sizeof(rm->summary),
			 "%s: %s +%lld pages, %zu present by pagemap (calibrated: 37 anon pages "
			 "= %ld)%s%s",
			 f.what, f.shmem ? "RssShmem" : "RssFile", (long long)(after - before),
			 present, calib37, pinned ? "" : ", not pinned",
			 locked ? "" : ", unlocked");
		if (present == 0 && rm->status == PC_STATUS_PASS)
			pc_oracle_skip(rm, "%s: nothing present: RSS delta of 0 proves nothing",
				       f.what);
	}

	judge_ptes(ctx, a, sh, &f, &m, touched);
	if (pc_slot_used(a, S_BOUNDS))
		judge_bounds(a, ctx->have_kpageflags, sh, &f, &m, &eof_folio_end, &eof_known);

	/* SIGBUS past EOF (shmem: past EOF's folio), after the pagemap judged it. */
	if (pc_slot_used(a, S_SIGBUS)) {
		struct pc_oracle_msg *sb = &a->msg[S_SIGBUS];
		size_t eof_pages = DIV_UP(f.i_size, PAGE);
		/* shmem without EOF's folio known: past all that was ever cached */
		size_t at = !f.shmem ? eof_pages : eof_known ? eof_folio_end : DIV_UP(f.len, PAGE);
		int sig;

		if (at >= m.first_idx + m.npages) {
			pc_slot_skip(a, S_SIGBUS, "%s: no page of the VMA lies past %s", f.what,
				     f.shmem ? "EOF's folio" : "EOF");
		} else {
			sig = probe_read(m.addr + (at - m.first_idx) * PAGE);
			sb->checked++;
			if (sig != SIGBUS)
				pc_oracle_add_evidence(
					sb, PC_V_PAST_EOF, va(&m, at - m.first_idx), 0, SIGBUS,
					(__u64)sig, "read of index %zu (i_size %zu) raised %s", at,
					f.i_size, sig ? "another signal" : "no signal");
			judge(a, S_SIGBUS);
			snprintf(sb->summary, sizeof(sb->summary),
				 "%s: read of index %zu past %s (i_size %zu) %s", f.what, at,
				 f.shmem ? "EOF's folio" : "the EOF page", f.i_size,
				 sig == SIGBUS ? "raised SIGBUS" : "did not raise SIGBUS");
			if (sh->kind == K_TRUNCATE)
				pc_oracle_appendf(
					sb, "; race: %ld SIGBUS in %lu rounds%s", sigbus_race,
					rounds, sigbus_race ? "" : " (no truncation met a fault)");
		}
	}

	/* Data: the mapping against pread of the file (and the file against the pattern). */
	{
		struct pc_oracle_msg *d = &a->msg[S_DATA];
		size_t bad_map = 0, bad_file = 0, cmp = 0, first;

		ret = pread_all(f.fd, file, f.i_size);
		if (ret) {
			ret = pc_skip_rest(a, "pread", -ret);
			goto out;
		}
		for (size_t k = 0; k < f.i_size; k++)
			if (file[k] != f.expect[k] && bad_file++ == 0)
				pc_oracle_add_evidence(d, PC_V_DATA_MISMATCH, 0, 0, f.expect[k],
						       file[k],
						       "file byte %zu differs from "
						       "what was written",
						       k);
		for (size_t i = 0; i < touch_to && i < m.npages; i++) {
			size_t c;

			if (m.first_idx + i >= DIV_UP(f.i_size, PAGE))
				break;
			c = page_mismatches(m.addr + i * PAGE, m.first_idx + i, file, f.i_size,
					    &first);
			cmp++;
			if (pc_is_violation(pc_bytes_equal(c))) {
				bad_map++;
				pc_oracle_add_evidence(
					d, PC_V_DATA_MISMATCH, va(&m, i) + first, 0,
					m.first_idx + i, c,
					"%zu bytes differ from the file (index %llu)", c,
					(unsigned long long)(m.first_idx + i));
			}
		}
		d->checked += cmp;
		if (sh->kind == K_SHARED) {
			ret = judge_rmap(ctx, a, sh, &f, &m, file);
			if (ret) {
				ret = pc_skip_rest(a, "the other mappers", -ret);
				goto out;
			}
		}
		judge(a, S_DATA);
		snprintf(d->summary, sizeof(d->summary),
			 "%s: %zu pages read through the mapping, %zu differ from pread; file "
			 "differs from what was written in %zu bytes",
			 f.what, cmp, bad_map, bad_file);
		if (sh->kind == K_SHARED)
			pc_oracle_appendf(d, "; and by %d other mappers", sh->nproc);
	}
	ret = 0;
out:
	pc_window_end(ctx, &a->win, &a->disturbed);
	probe_restore(&oldh);
	if (locked)
		munlockall();
	if (pinned)
		sched_setaffinity(0, sizeof(oldmask), &oldmask);
	map_release(&m);
out_file:
	file_close(&f);
	free(file);
	free(touched);
	return ret;
}

/* ---- attempts and the final verdicts --------------------------------------------- */

static int run_shape(struct pc_scenario_ctx *ctx, const void *data)
{
	return pc_attempts_run(ctx, measure, data);
}

/* ---- the scenarios ------------------------------------------------------------- */

/* 1 MiB (256 KiB at the least) in 64 KiB granules; PMD folios need 4 MiB. */
#define SZ_1M  .full_len = MIB, .min_len = 256 * KIB, .granule = FOLIO_64K
#define SZ_PMD .full_len = 4 * MIB, .min_len = 4 * MIB, .granule = 2 * MIB
/* EOF 5 pages + 100 bytes into the last 64 KiB (or 2 MiB) of the file. */
#define EOF_64K (FOLIO_64K - 5 * PAGE - 100)
#define EOF_PMD (2 * MIB - 5 * PAGE - 100)

#define SHAPE(name, b, k, ...)                                                                     \
	static const struct fm_shape name = {.backing = b, .kind = k, __VA_ARGS__}

SHAPE(whole_memfd64k, FB_MEMFD_64K, K_WHOLE, SZ_1M, .want_large = true);
SHAPE(whole_tmpfs_huge, FB_TMPFS_HUGE, K_WHOLE, SZ_PMD, .want_large = true);
SHAPE(whole_ext4, FB_BLOCKFS, K_WHOLE, SZ_1M);
SHAPE(whole_tmpfile, FB_TMPDIR, K_WHOLE, SZ_1M);
SHAPE(whole_memfd4k, FB_MEMFD_SMALL, K_WHOLE, SZ_1M);
SHAPE(eof_memfd64k, FB_MEMFD_64K, K_EOF, SZ_1M, .eof_tail = EOF_64K);
SHAPE(eof_tmpfs_huge, FB_TMPFS_HUGE, K_EOF, SZ_PMD, .eof_tail = EOF_PMD);
SHAPE(eof_ext4, FB_BLOCKFS, K_EOF, SZ_1M, .eof_tail = EOF_64K);
SHAPE(eof_tmpfile, FB_TMPDIR, K_EOF, SZ_1M, .eof_tail = EOF_64K);
SHAPE(head_memfd64k, FB_MEMFD_64K, K_RANGE, SZ_1M, .map_off = 8 * KIB, .want_large = true);
SHAPE(head_tmpfile, FB_TMPDIR, K_RANGE, SZ_1M, .map_off = 8 * KIB, .want_large = true);
SHAPE(tail_memfd64k, FB_MEMFD_64K, K_RANGE, SZ_1M, .map_trim = 8 * KIB, .want_large = true);
SHAPE(tail_tmpfile, FB_TMPDIR, K_RANGE, SZ_1M, .map_trim = 8 * KIB, .want_large = true);
SHAPE(smallvma_memfd64k, FB_MEMFD_64K, K_RANGE, SZ_1M, .map_off = 64 * KIB + 20 * KIB,
      .map_len = 24 * KIB, .want_large = true);
SHAPE(smallvma_tmpfs_huge, FB_TMPFS_HUGE, K_RANGE, SZ_PMD, .map_off = 256 * KIB + 4 * KIB,
      .map_len = MIB, .want_large = true);
SHAPE(smallvma_tmpfile, FB_TMPDIR, K_RANGE, SZ_1M, .map_off = 64 * KIB + 20 * KIB,
      .map_len = 24 * KIB, .want_large = true);
SHAPE(straddle_memfd64k, FB_MEMFD_64K, K_STRADDLE, SZ_1M, .va_off = 2 * MIB - 32 * KIB,
      .want_large = true);
SHAPE(straddle_tmpfs_huge, FB_TMPFS_HUGE, K_STRADDLE, SZ_PMD, .va_off = 2 * MIB - 32 * KIB,
      .want_large = true);
SHAPE(straddle_tmpfile, FB_TMPDIR, K_STRADDLE, SZ_1M, .va_off = 2 * MIB - 32 * KIB,
      .want_large = true);
SHAPE(premapped_memfd64k, FB_MEMFD_64K, K_PREMAPPED, SZ_1M, .want_large = true);
SHAPE(premapped_tmpfile, FB_TMPDIR, K_PREMAPPED, SZ_1M, .want_large = true);
SHAPE(shared_memfd64k, FB_MEMFD_64K, K_SHARED, SZ_1M, .nproc = 4);
SHAPE(shared_tmpfs_huge, FB_TMPFS_HUGE, K_SHARED, SZ_PMD, .nproc = 4);
SHAPE(shared_ext4, FB_BLOCKFS, K_SHARED, SZ_1M, .nproc = 4);
SHAPE(shared_tmpfile, FB_TMPDIR, K_SHARED, SZ_1M, .nproc = 4);
SHAPE(trunc_memfd64k, FB_MEMFD_64K, K_TRUNCATE, SZ_1M, .eof_tail = EOF_64K);
SHAPE(trunc_ext4, FB_BLOCKFS, K_TRUNCATE, SZ_1M, .eof_tail = EOF_64K);
SHAPE(trunc_tmpfile, FB_TMPDIR, K_TRUNCATE, SZ_1M, .eof_tail = EOF_64K);

#define SHM64 PC_NEEDS_MTHP_SHMEM_64K
#define HUGE  PC_NEEDS_SHMEM_HUGE
#define BLK   PC_NEEDS_BLOCKFS
/* For the in-kernel tier: mapcount deltas and past-EOF are observed, not
   enforced, where several processes map a file or its size changes. */
#define SHARED PC_SCENARIO_SHARED_MAPPERS
#define RESIZE PC_SCENARIO_RESIZES

static const struct pc_scenario scenarios[] = {
	{"whole-memfd64k", "memfd 1 MiB of 64 KiB folios, read one byte per page", SHM64, run_shape,
	 &whole_memfd64k},
	{"whole-tmpfs-huge", "huge=within_size tmpfs file, 4 MiB of PMD folios, read all", HUGE,
	 run_shape, &whole_tmpfs_huge},
	{"whole-ext4", "ext4 file 1 MiB (large folios where ext4 has them), read all", BLK,
	 run_shape, &whole_ext4},
	{"whole-tmpfile", "file in the private tmpdir (its own fs), 1 MiB, read all", 0, run_shape,
	 &whole_tmpfile},
	{"whole-memfd4k", "control: memfd filled under MADV_NOHUGEPAGE (small folios)", 0,
	 run_shape, &whole_memfd4k},
	{"eof-memfd64k", "EOF inside a 64 KiB folio: SIGBUS past EOF's folio", SHM64, run_shape,
	 &eof_memfd64k},
	{"eof-tmpfs-huge", "EOF inside a PMD folio: SIGBUS past EOF's folio", HUGE, run_shape,
	 &eof_tmpfs_huge},
	{"eof-ext4", "EOF inside a large folio: nothing mapped past EOF, SIGBUS", BLK, run_shape,
	 &eof_ext4},
	{"eof-tmpfile", "tmpdir file, EOF inside a folio: nothing mapped past EOF, SIGBUS", 0,
	 run_shape, &eof_tmpfile},
	{"head-memfd64k", "VMA starts 8 KiB into a 64 KiB folio", SHM64, run_shape, &head_memfd64k},
	{"head-tmpfile", "tmpdir file, VMA starts 8 KiB into a large folio", 0, run_shape,
	 &head_tmpfile},
	{"tail-memfd64k", "VMA ends 8 KiB before a 64 KiB folio does", SHM64, run_shape,
	 &tail_memfd64k},
	{"tail-tmpfile", "tmpdir file, VMA ends 8 KiB before a large folio does", 0, run_shape,
	 &tail_tmpfile},
	{"small-vma-memfd64k", "24 KiB VMA inside a 64 KiB folio", SHM64, run_shape,
	 &smallvma_memfd64k},
	{"small-vma-tmpfs-huge", "1 MiB VMA inside a PMD folio", HUGE, run_shape,
	 &smallvma_tmpfs_huge},
	{"small-vma-tmpfile", "tmpdir file, 24 KiB VMA inside a large folio", 0, run_shape,
	 &smallvma_tmpfile},
	{"straddle-memfd64k", "64 KiB folios at 2 MiB - 32 KiB: runs split at the page table",
	 SHM64, run_shape, &straddle_memfd64k},
	{"straddle-tmpfs-huge", "PMD folios at 2 MiB - 32 KiB: mapped by PTEs across tables", HUGE,
	 run_shape, &straddle_tmpfs_huge},
	{"straddle-tmpfile", "tmpdir file, large folios across a 2 MiB boundary", 0, run_shape,
	 &straddle_tmpfile},
	{"premapped-memfd64k", "every 3rd page mapped first, then all: folios in runs", SHM64,
	 run_shape, &premapped_memfd64k},
	{"premapped-tmpfile", "tmpdir file, every 3rd page mapped first, then all", 0, run_shape,
	 &premapped_tmpfile},
	{"shared-memfd64k", "5 processes map every page: kpagecount 5 each", SHM64 | SHARED,
	 run_shape, &shared_memfd64k},
	{"shared-tmpfs-huge", "5 processes map a huge tmpfs file: kpagecount 5 each", HUGE | SHARED,
	 run_shape, &shared_tmpfs_huge},
	{"shared-ext4", "5 processes map an ext4 file: kpagecount 5 each", BLK | SHARED, run_shape,
	 &shared_ext4},
	{"shared-tmpfile", "5 processes map a tmpdir file: kpagecount 5 each", 0 | SHARED,
	 run_shape, &shared_tmpfile},
	{"trunc-race-memfd64k", "faults race ftruncate; judged quiescent", SHM64 | RESIZE,
	 run_shape, &trunc_memfd64k},
	{"trunc-race-ext4", "ext4: faults race ftruncate; judged quiescent", BLK | RESIZE,
	 run_shape, &trunc_ext4},
	{"trunc-race-tmpfile", "tmpdir file: faults race ftruncate; judged quiescent", 0 | RESIZE,
	 run_shape, &trunc_tmpfile},
};

const struct pc_suite pc_filemap_suite = {
	.name = "filemap",
	.description = "folio-based fault-around: batches, rmap and RSS counts",
	.scenarios = scenarios,
	.n_scenarios = sizeof(scenarios) / sizeof(scenarios[0]),
};
