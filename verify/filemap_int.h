/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the filemap suite's files share: a scenario's shape, the file and
 * the mapping it faults (filemap_files.c), the faults themselves
 * (filemap_touch.c), the judgements (filemap_judge.c, filemap_shared.c)
 * and the attempt that strings them together (filemap_measure.c) for the
 * suite table (filemap.c).
 */
#ifndef PTECHECK_FILEMAP_INT_H
#define PTECHECK_FILEMAP_INT_H

#include <stdbool.h>
#include <stddef.h>
#include "attempt.h"
#include "measure.h"
#include "procmm.h"
#include "shape.h"

#define NEIGHBOURS 16 /* pages of reservation checked on each side of the VMA */

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
	size_t granule;	   /* length granule: 64 KiB, or 2 MiB for PMD folios */
	size_t eof_tail;   /* K_EOF, K_TRUNCATE: i_size = len - eof_tail */
	size_t map_off;	   /* K_RANGE: file offset of the VMA */
	size_t map_trim;   /* K_RANGE: the VMA ends this far before the file does */
	size_t map_len;	   /* K_RANGE: the VMA's length, when non-zero */
	size_t va_off;	   /* VMA start past a 2 MiB boundary (plus map_off % 2 MiB) */
	int nproc;	   /* K_SHARED */
	size_t tail_piece; /* not shmem: the last 64 KiB written in pieces this size (the write
			      path sizes a file's folios by the write), the rest at once */
	bool deep;	   /* K_TRUNCATE, block fs: the file's one large folio pinned, the
			      race shrinks it to a quarter (whole fault-around windows
			      past EOF, in that folio) and back */
	bool want_large;   /* the shape means nothing without large folios */
	const char *stem;  /* FB_BLOCKFS: the name before the filesystem's ("whole") */
};

/* A shape whose i_size ends inside a folio (batch-bounds and SIGBUS judged). */
static inline bool fm_eof_kind(enum fm_kind k)
{
	return k == K_EOF || k == K_TRUNCATE;
}

/* The i_size an EOF shape ends with, for a file of len bytes. */
static inline size_t fm_shape_isize(const struct fm_shape *sh, size_t len)
{
	return (sh->deep ? len / 4 : len) - sh->eof_tail;
}

/* Deep: the first page of the first fault-around window (64 KiB) wholly
   past i_size. */
static inline size_t fm_deep_from(size_t i_size)
{
	return (i_size + FOLIO_64K - 1) / FOLIO_64K * (FOLIO_64K / PAGE);
}

/* The slots of an attempt. */
enum { S_PTES, S_DATA, S_RSS, S_BOUNDS, S_SIGBUS, S_RMAP };

int fm_measure(struct pc_scenario_ctx *ctx, const void *data, struct pc_attempt *a);

/* A refault scenario (filemap_refault.c): entry pos of each 64 KiB folio
   of a memfd or of a block-fs file zapped alone, then written. */
struct fm_refault {
	const char *what;     /* "memfd", "file" */
	bool file;	      /* the run's block filesystem, else a memfd */
	enum pc_pos pos;      /* the entry zapped and written */
	const char *no_folio; /* why none formed, most likely */
};
/* filemap_refault.c: one attempt (pc_measure_fn). */
int fm_measure_refault(struct pc_scenario_ctx *ctx, const void *data, struct pc_attempt *a);
/* A pinned-truncation scenario (filemap_trunc_pinned.c): after the
   failed split, the folio (dirty: it stays in the page cache across the
   new EOF) collapsed by MADV_COLLAPSE, or not. */
struct fm_trunc_pinned {
	bool collapse;
};
/* filemap_trunc_pinned.c: one attempt (pc_measure_fn). */
int fm_measure_trunc_pinned(struct pc_scenario_ctx *ctx, const void *data, struct pc_attempt *a);
/* The scenario's name: FB_BLOCKFS shapes by the filesystem under the
   directory ("whole-xfs"), the table's name otherwise. */
const char *fm_scenario_name(const struct pc_scenario_ctx *ctx, const struct fm_shape *sh,
			     char *buf, size_t len);

/* ---- the file and the mapping (filemap_files.c) ---------------------------- */

struct fm_file {
	int fd;
	bool shmem;	  /* shmem/tmpfs: may map across i_size; counts in RssShmem */
	const char *what; /* for summaries: the filesystem statfs found */
	char what_buf[48];
	size_t len;	       /* bytes written */
	size_t i_size;	       /* after any truncation */
	unsigned char *expect; /* len bytes as written */
	int pin[2];	       /* pipe holding a page of EOF's folio (vmsplice) */
};

struct fm_map {
	struct pc_resv resv;
	char *addr; /* the VMA */
	size_t len, npages;
	size_t off;	    /* file offset */
	__u64 first_idx;    /* file page index of the first page */
	__u64 *pm;	    /* pagemap of NEIGHBOURS + npages + NEIGHBOURS pages */
	struct pc_pte *pte; /* the VMA's pages (pm + NEIGHBOURS) */
	__u64 *head, *nr;   /* folio of each present page (kpageflags), nr 0 if unknown */
	__u64 *premap;	    /* K_PREMAPPED: PFNs of the pages mapped first */
};

/*
 * A fresh, unlinked file of the shape's backing.  1 with a SKIP reason in
 * why when the backing is unavailable here, 0, or -errno.
 */
int fm_file_open(const struct pc_scenario_ctx *ctx, const struct fm_shape *sh, struct fm_file *f,
		 char *why, size_t why_len);
/* Writes len bytes of the pattern (fm_file.expect) into the file. */
int fm_file_fill(struct fm_file *f, const struct fm_shape *sh, size_t len);
/* Shrinks the file to i_size inside a folio that truncation cannot split. */
int fm_file_truncate_pinned(struct fm_file *f, size_t i_size);
void fm_file_close(struct fm_file *f);

/* The VMA: len bytes of fd from off, read-only, va_off past a 2 MiB
   boundary, PROT_NONE all around.  0 or -errno. */
int fm_map_place(struct fm_map *m, int fd, size_t off, size_t len, size_t va_off);
void fm_map_release(struct fm_map *m);
/* The address of page i of the VMA. */
__u64 fm_va(const struct fm_map *m, size_t i);
/* Pagemap of the VMA and its neighbours; folios of present pages when asked. */
int fm_map_snapshot(const struct pc_scenario_ctx *ctx, struct fm_map *m, bool folios);
size_t fm_map_present(const struct fm_map *m);
/* ---- faults (filemap_touch.c) ------------------------------------------------ */

/* Reads one byte of each page in [from, to); a signal is a ptes-set violation. */
void fm_touch_range(struct pc_attempt *a, const struct fm_map *m, size_t from, size_t to,
		    bool *touched);
/* What a truncation race saw. */
struct fm_race {
	unsigned long rounds; /* re-fault rounds */
	unsigned long sigbus; /* reads that raised SIGBUS (deep: rounds that found
				 the file short, EFAULT) */
	/* deep: rounds that faulted every window past the short EOF while the
	   file was long: fault-around over the pinned folio there, the state
	   f58df566524e's race needs when a shrink lands among them */
	unsigned long populated;
	/* deep: no page past the short EOF cached after the race (the pinned
	   folio dropped), and why dirty pages were not held, else NULL */
	bool lost;
	const char *unheld;
};

/*
 * K_TRUNCATE: a child truncates to i_size and back, many times, ending
 * short, while this process re-faults the mapping; deep shapes race as
 * fm_deep_race() says.  0 or -errno.
 */
int fm_truncate_race(const struct pc_scenario_ctx *ctx, const struct fm_shape *sh,
		     struct fm_file *f, struct fm_map *m, size_t i_size, const cpu_set_t *cpus,
		     struct fm_race *race);
/* The racer's CPUs: cpus without the caller's (a race, not an
   interleaving), or as it is where cpus is NULL or one CPU. */
void fm_race_off_cpu(const cpu_set_t *cpus);
/*
 * Deep (filemap_race.c): the file's pinned large folio reaches past i_size
 * into whole fault-around windows; this process populates those windows
 * (MADV_POPULATE_READ: one fault-around each) while a child shrinks the
 * file to i_size and back.  0; -EOPNOTSUPP without MADV_POPULATE_READ; or
 * -errno.
 */
int fm_deep_race(const struct pc_scenario_ctx *ctx, struct fm_file *f, struct fm_map *m,
		 size_t i_size, const cpu_set_t *cpus, struct fm_race *race);

/* ---- one attempt and its judgements (filemap_judge.c, filemap_shared.c) ------- */

/* What an attempt found out, for the judges. */
struct fm_run {
	const struct fm_shape *sh;
	struct fm_file f;
	struct fm_map m;
	bool *touched;		   /* pages of the VMA read */
	size_t touch_to;	   /* ... up to this one */
	unsigned char *file;	   /* the file, by pread after the faults */
	bool pinned, locked;	   /* one CPU; code and stack mlocked */
	bool rss_ok;		   /* RSS reads are exact */
	struct pc_rss_calib calib; /* RssAnon growth for 37 and 23 anonymous pages */
	struct pc_status_rss rss0, rss1;
	struct fm_race race;  /* K_TRUNCATE: what the race saw */
	size_t eof_folio_end; /* file index past EOF's folio (batch-bounds) */
	bool eof_known;	      /* ... known */
};

/*
 * Bytes of a page of the mapping (file index idx) that differ from the
 * file (file[] from pread, i_size bytes): below EOF the file's bytes, past
 * EOF in the EOF page zeros.  *first: the first that differs, with what
 * the file wanted there in *want (unless NULL).
 */
size_t fm_page_mismatches(const char *page, __u64 idx, const unsigned char *file, size_t i_size,
			  size_t *first, unsigned char *want);

void fm_judge_rss(struct pc_attempt *a, const struct fm_run *r);
void fm_judge_ptes(const struct pc_scenario_ctx *ctx, struct pc_attempt *a, const struct fm_run *r);
void fm_judge_bounds(struct pc_attempt *a, bool ctx_kpageflags, struct fm_run *r);
void fm_judge_sigbus(struct pc_attempt *a, const struct fm_run *r);
/* ptes-set [oracle:data], and rmap-count for K_SHARED.  0, or -errno of
   the reads and the other mappers (after pc_skip_rest). */
int fm_judge_data(const struct pc_scenario_ctx *ctx, struct pc_attempt *a, struct fm_run *r);
/* rmap-count [oracle:kpagecount] with sh->nproc other mappers: 0 or -errno. */
int fm_judge_rmap(const struct pc_scenario_ctx *ctx, struct pc_attempt *a, const struct fm_run *r);

#endif
