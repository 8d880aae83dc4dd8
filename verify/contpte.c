// SPDX-License-Identifier: GPL-2.0
/*
 * The contpte suite: arm64 contiguous PTEs.  With 4 KiB pages a naturally
 * aligned 64 KiB folio is mapped by 16 PTEs with the CONT bit, and hardware
 * (FEAT_HAFDBS) may set the access or dirty bit in any one of the 16.  So
 * every read of such a PTE gathers the bits of all 16 (contpte_ptep_get, an
 * early-exit loop), and every batched clear gathers them into the PTE it
 * returns (contpte_get_and_clear_full_ptes).  A wrong early exit loses a
 * bit; a lost dirty bit is lost data.
 *
 * Each scenario puts one pattern of bits into every other 16-entry block of
 * a region of 64 KiB folios, one scenario per branch of the gather loop:
 *
 *   dirty-K            dirty only in entry K, young nowhere (K = 0, 1, 7, 15)
 *   young-K            young only in entry K, dirty nowhere
 *   dirty-K-young-J    dirty only in K, young only in J (J before and after K)
 *   dirty-young-K      dirty and young in entry K only
 *   all-clean          control: no bit anywhere
 *   all-young-dirty    control: both bits in every entry
 *
 * and judges with two userspace oracles (contpte/gather):
 *
 *   oracle:data-loss        MADV_FREE cleans the folios (lazyfree); a write
 *                           to page K redirties entry K only; MADV_PAGEOUT
 *                           then discards clean folios and must keep dirty
 *                           ones: reclaim gathers the block's dirty bit in
 *                           try_to_unmap, so a lost bit reads back as zeros.
 *                           Liveness: the untouched control blocks in
 *                           between must really be discarded.
 *   oracle:smaps-referenced clear_refs + a TLB bounce, read page J, then
 *                           rewrite every block from its gathered value
 *                           (mprotect: get_and_clear + set_ptes): a young bit
 *                           lost there leaves the block unreferenced in
 *                           smaps.  Liveness: Referenced right before the
 *                           touches is below the pages to be touched.
 *
 * Reading entry K itself always shows entry K's own bit, so smaps alone
 * cannot see a broken gather; the rewrite makes a lost bit stay lost.
 *
 * contpte/mlock [oracle:data]: the reference workload's shape, scaled
 * (mlock, read and write a byte per page, munlock, N times): every byte
 * written is read back and smaps Locked is 0 after each munlock.
 *
 * Zero false positives: as in the mremap suite, a violation is measured
 * again on fresh mappings and fails only when all PC_ATTEMPTS attempts show
 * it with no reclaim, migration or split counted meanwhile.  A probe that
 * could not have failed (not arm64, no 64 KiB folios, nothing discarded,
 * clear_refs ineffective) is a SKIP that says why.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "scenario.h"
#include "attempt.h"
#include "measure.h"
#include "oracle_compare.h"
#include "procmm.h"
#include "report.h"

#ifndef MADV_COLD
#define MADV_COLD 20
#endif
#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif

#define KIB	     1024UL
#define MIB	     (1024UL * KIB)
#define PAGE	     ((size_t)PC_PAGE_SIZE)
#define PMD	     ((size_t)PC_PMD_SIZE)
#define BLOCK	     (64 * KIB)
#define CONT	     16 /* PTEs per contpte block with 4 KiB pages */
#define CHUNK_BLOCKS 16 /* 1 MiB VMAs: no PMD-sized THP fits in one */
#define CHUNK	     (CHUNK_BLOCKS * BLOCK)
#define CHUNK_OFF    (512 * KIB) /* chunk start past its 2 MiB boundary */
#define MAX_CHUNKS   16

#define TIER_DATA_LOSS	"oracle:data-loss"
#define TIER_REFERENCED "oracle:smaps-referenced"
#define TIER_DATA	"oracle:data"

#define NONE (-1)
#define ALL  CONT

#define ALIGN_UP(x, a) (((x) + (a)-1) & ~((a)-1))

struct cp_pattern {
	int dirty;	   /* entry written after MADV_FREE: 0..15, ALL or NONE */
	int young;	   /* entry young at the check: 0..15, ALL or NONE */
	unsigned int full; /* blocks at scale 1 (half pattern, half control) */
};

struct cp_mlock {
	unsigned int full;	 /* blocks at scale 1 */
	unsigned int iterations; /* at scale 1 */
	bool misaligned;	 /* lock [start + 4 KiB, end - 4 KiB): VMAs split in folios */
	bool refold;		 /* each round: page 15 of each block read-only and back */
};

/* The region: 1 MiB chunks, each in its own 2 MiB extent, PROT_NONE between. */
struct region {
	char *resv;
	size_t resv_len;
	char *chunk[MAX_CHUNKS];
	int nchunks;
	size_t nblocks;
};

/* ---- small helpers (as in the mremap suite) ------------------------------ */

#define SALT_A 0x11
#define SALT_B 0x77

static void judge(struct pc_oracle_msg *m)
{
	if (m->violations)
		m->status = PC_STATUS_FAIL;
	else if (m->checked)
		m->status = PC_STATUS_PASS;
	else
		m->status = PC_STATUS_SKIP;
}

static size_t scaled_blocks(const struct pc_scenario_ctx *ctx, unsigned int full)
{
	unsigned int s = ctx->scale ? ctx->scale : 1;
	size_t n = full / s;

	if (n < 16)
		n = 16;
	if (n > (size_t)MAX_CHUNKS * CHUNK_BLOCKS)
		n = (size_t)MAX_CHUNKS * CHUNK_BLOCKS;
	return n & ~(size_t)1; /* pattern and control blocks alternate */
}

/* ---- where contpte exists ------------------------------------------------ */

/* NULL on arm64 with 4 KiB pages, else why the suite cannot run here. */
static const char *not_here(char *buf, size_t len)
{
	struct utsname u;

	if (uname(&u))
		snprintf(u.machine, sizeof(u.machine), "unknown: uname: %s", strerror(errno));
	if (strcmp(u.machine, "aarch64") != 0) {
		snprintf(buf, len, "contpte exists only on arm64 (this is %s)", u.machine);
		return buf;
	}
	if (sysconf(_SC_PAGESIZE) != (long)PAGE) {
		/* 16 KiB and 64 KiB pages have other block sizes; not modelled. */
		snprintf(buf, len, "contpte blocks of 16 PTEs need 4 KiB pages (this kernel: %ld)",
			 sysconf(_SC_PAGESIZE));
		return buf;
	}
	return NULL;
}

/* ---- CPU pinning ------------------------------------------------------------ */

/* ---- the region ----------------------------------------------------------- */

static char *block_addr(const struct region *r, size_t b)
{
	return r->chunk[b / CHUNK_BLOCKS] + (b % CHUNK_BLOCKS) * BLOCK;
}

static char *page_addr(const struct region *r, size_t b, int k)
{
	return block_addr(r, b) + (size_t)k * PAGE;
}

static size_t chunk_len(const struct region *r, int c)
{
	size_t left = r->nblocks - (size_t)c * CHUNK_BLOCKS;

	return (left < CHUNK_BLOCKS ? left : CHUNK_BLOCKS) * BLOCK;
}

static void region_release(struct region *r)
{
	if (r->resv)
		munmap(r->resv, r->resv_len);
	memset(r, 0, sizeof(*r));
}

/*
 * nblocks 64 KiB blocks in chunks of at most 1 MiB, each chunk a VMA of its
 * own at 512 KiB past a 2 MiB boundary: every block 64 KiB aligned, and no
 * PMD-sized THP can take the place of the 64 KiB folios.
 */
static int region_map(struct region *r, size_t nblocks)
{
	uintptr_t base;

	memset(r, 0, sizeof(*r));
	r->nblocks = nblocks;
	r->nchunks = (int)((nblocks + CHUNK_BLOCKS - 1) / CHUNK_BLOCKS);
	r->resv_len = ((size_t)r->nchunks + 1) * PMD;
	r->resv = mmap(NULL, r->resv_len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		       -1, 0);
	if (r->resv == MAP_FAILED) {
		r->resv = NULL;
		return -errno;
	}
	base = ALIGN_UP((uintptr_t)r->resv, PMD);
	for (int c = 0; c < r->nchunks; c++) {
		char *want = (char *)base + (size_t)c * PMD + CHUNK_OFF;
		void *p = mmap(want, chunk_len(r, c), PROT_READ | PROT_WRITE,
			       MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return -errno;
		r->chunk[c] = p;
		if (madvise(p, chunk_len(r, c), MADV_HUGEPAGE))
			return -errno;
	}
	return 0;
}

/* advice on every chunk; 0 or -errno. */
static int region_madvise(const struct region *r, int advice)
{
	for (int c = 0; c < r->nchunks; c++)
		if (madvise(r->chunk[c], chunk_len(r, c), advice))
			return -errno;
	return 0;
}

/*
 * PROT_READ and back: mprotect rewrites every block from its gathered value
 * (modify_prot_start_ptes = get_and_clear, then set_ptes) and flushes the
 * TLB, so no later access goes through a translation cached before.
 */
static int region_bounce(const struct region *r)
{
	for (int c = 0; c < r->nchunks; c++)
		if (mprotect(r->chunk[c], chunk_len(r, c), PROT_READ) ||
		    mprotect(r->chunk[c], chunk_len(r, c), PROT_READ | PROT_WRITE))
			return -errno;
	return 0;
}

static int region_mlock(const struct region *r, bool lock, bool misaligned)
{
	for (int c = 0; c < r->nchunks; c++) {
		size_t cut = misaligned ? PAGE : 0;
		char *p = r->chunk[c] + cut;
		size_t len = chunk_len(r, c) - 2 * cut;

		if (lock ? mlock(p, len) : munlock(p, len))
			return -errno;
	}
	return 0;
}

/* Sums a smaps field over every VMA of every chunk (mlock may split them). */
enum smaps_field { SM_REFERENCED, SM_LOCKED };

static int region_smaps(const struct region *r, enum smaps_field f, __u64 *kb)
{
	*kb = 0;
	for (int c = 0; c < r->nchunks; c++) {
		__u64 addr = (__u64)(uintptr_t)r->chunk[c], end = addr + chunk_len(r, c);

		while (addr < end) {
			struct pc_smaps sm;
			int ret = pc_smaps_read(0, addr, &sm);

			if (ret)
				return ret;
			*kb += f == SM_REFERENCED ? sm.referenced_kb : sm.locked_kb;
			if (sm.end <= addr)
				return -EIO;
			addr = sm.end;
		}
	}
	return 0;
}

static int region_referenced_pages(const struct region *r, __u64 *pages)
{
	int ret = region_smaps(r, SM_REFERENCED, pages);

	*pages /= PAGE / KIB;
	return ret;
}

/*
 * Blocks that are exactly one naturally aligned 64 KiB folio: 16 PFNs in a
 * row from a 16-aligned PFN, each page of order 4 (kpageflags).  -errno when
 * that cannot be told (no kpageflags, PFNs hidden, a folio changing).
 */
static long region_64k_blocks(const struct pc_scenario_ctx *ctx, const struct region *r,
			      size_t *pattern_64k)
{
	__u64 pm[CONT], pfn[CONT];
	__u32 order[CONT];
	long n = 0;

	*pattern_64k = 0;
	if (!ctx->have_kpageflags)
		return -EACCES;
	for (size_t b = 0; b < r->nblocks; b++) {
		struct pc_pte pte[CONT];
		bool ok = true;
		int ret = pc_pagemap_read(0, (__u64)(uintptr_t)block_addr(r, b), CONT, pm);

		if (ret)
			return ret;
		if (!pc_pagemap_pfns_visible(pm, CONT))
			return pc_pagemap_count_present(pm, CONT) ? -EPERM : 0;
		pc_pagemap_to_ptes(pm, CONT, pte);
		for (int i = 0; i < CONT; i++)
			pfn[i] = pte[i].kind == PC_PTE_PRESENT ? pte[i].pfn : 0;
		ret = pc_folio_orders(pfn, CONT, order);
		if (ret)
			return ret;
		for (int i = 0; i < CONT && ok; i++)
			ok = pfn[i] && pfn[i] == pfn[0] + (__u64)i && order[i] == 4;
		ok = ok && pfn[0] % CONT == 0;
		n += ok;
		if (ok && b % 2 == 0)
			(*pattern_64k)++;
	}
	return n;
}

/* Why the region cannot carry the probe, or NULL: its pattern blocks are 64 KiB folios. */
static const char *folios_missing(const struct pc_scenario_ctx *ctx, const struct region *r,
				  char *buf, size_t len, size_t *pattern_64k)
{
	long n = region_64k_blocks(ctx, r, pattern_64k);

	if (n < 0) {
		snprintf(buf, len, "cannot tell whether 64 KiB folios formed: %s",
			 n == -EACCES  ? "/proc/kpageflags not readable (needs root)"
			 : n == -EPERM ? "PFNs hidden by pagemap (no CAP_SYS_ADMIN)"
				       : strerror((int)-n));
		return buf;
	}
	/* Half the pattern blocks at least: a few fallbacks to small pages are fine. */
	if (*pattern_64k * 4 < r->nblocks) {
		snprintf(buf, len,
			 "no 64 KiB folios formed: %zu of %zu pattern blocks are 64 KiB folios "
			 "(kpageflags)",
			 *pattern_64k, r->nblocks / 2);
		return buf;
	}
	return NULL;
}

static bool have_swap(void)
{
	char line[256];
	int lines = 0;
	FILE *f = fopen("/proc/swaps", "re");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		lines++;
	fclose(f);
	return lines > 1; /* a header, then one line per swap area */
}

/* ---- measure: one access pattern ----------------------------------------- */

static bool is_entry(int e)
{
	return e >= 0 && e < CONT;
}

/* Pages of a pattern block the pattern writes (dirties). */
static bool writes_page(const struct cp_pattern *p, int k)
{
	return p->dirty == ALL || p->dirty == k;
}

static int measure_pattern(struct pc_scenario_ctx *ctx, const struct cp_pattern *p,
			   struct pc_attempt *a)
{
	int s_data = -1, s_ref = -1, next = 0, ret;
	/* A write sets young too: MADV_COLD takes it back where young is elsewhere. */
	bool cold = is_entry(p->dirty) && p->young != p->dirty;
	bool judge_data = p->dirty != NONE || p->young == NONE;
	struct region r;
	size_t nblocks = scaled_blocks(ctx, p->full), pattern_64k = 0, touched = 0;
	size_t written = 0, lost = 0, others = 0, garbage = 0, controls = 0, discarded = 0;
	__u64 ref_idle = 0, ref_after = 0;
	volatile const char *vp;
	cpu_set_t oldmask;
	bool pinned = false;
	char why[200];

	if (judge_data) {
		s_data = next++;
		pc_slot_init(a, s_data, ctx, PC_CHK_CP_GATHER, TIER_DATA_LOSS);
	}
	if (p->young != NONE) {
		s_ref = next++;
		pc_slot_init(a, s_ref, ctx, PC_CHK_CP_GATHER, TIER_REFERENCED);
	}
	ret = region_map(&r, nblocks);
	if (ret) {
		ret = pc_skip_rest(a, "mmap/madvise(MADV_HUGEPAGE)", -ret);
		goto out;
	}
	/* One CPU, so the LRU batches MADV_PAGEOUT drains are ours. */
	pinned = pc_pin_cpu(&oldmask);
	pc_window_begin(ctx, &a->win, &a->disturbed);
	for (size_t b = 0; b < nblocks; b++)
		for (int k = 0; k < CONT; k++)
			memset(page_addr(&r, b, k), pc_page_byte(b * CONT + (size_t)k, SALT_A),
			       PAGE);
	if (folios_missing(ctx, &r, why, sizeof(why), &pattern_64k)) {
		pc_skip_all(a, why);
		goto out;
	}
	/* Clean and old everywhere, lazyfree: reclaim may drop what stays clean. */
	ret = region_madvise(&r, MADV_FREE);
	if (ret) {
		ret = pc_skip_rest(a, ret == -EINVAL ? "MADV_FREE unsupported" : "MADV_FREE", -ret);
		goto out;
	}
	/* clear_refs also clears the folios' referenced flags smaps counts. */
	ret = pc_clear_refs();
	if (!ret)
		ret = region_bounce(&r); /* clear_refs does not flush the TLB */
	if (ret) {
		ret = pc_skip_rest(a, "clear_refs/mprotect", -ret);
		goto out;
	}
	if (s_ref >= 0 && !cold) {
		ret = region_referenced_pages(&r, &ref_idle);
		if (ret) {
			ret = pc_skip_rest(a, "smaps", -ret);
			goto out;
		}
	}
	for (size_t b = 0; b < nblocks; b += 2)
		for (int k = 0; k < CONT; k++)
			if (writes_page(p, k))
				memset(page_addr(&r, b, k),
				       pc_page_byte(b * CONT + (size_t)k, SALT_B), PAGE);
	if (cold) {
		/* Clears young (not dirty) and flushes the TLB when it saw young. */
		ret = region_madvise(&r, MADV_COLD);
		if (ret) {
			ret = pc_skip_rest(
				a, ret == -EINVAL ? "MADV_COLD unsupported" : "MADV_COLD", -ret);
			goto out;
		}
		if (s_ref >= 0) {
			ret = region_referenced_pages(&r, &ref_idle);
			if (ret) {
				ret = pc_skip_rest(a, "smaps", -ret);
				goto out;
			}
		}
	}
	for (size_t b = 0; b < nblocks && p->young != NONE; b += 2)
		for (int k = 0; k < CONT; k++)
			if (p->young == ALL || p->young == k) {
				vp = page_addr(&r, b, k);
				(void)vp[100];
				touched++;
			}
	if (s_ref >= 0) {
		if (ref_idle >= touched) {
			pc_slot_skip(a, s_ref,
				     "liveness: %llu pages referenced right before the touches (>= "
				     "%zu to touch): %s did nothing",
				     (unsigned long long)ref_idle, touched,
				     cold ? "MADV_COLD" : "clear_refs");
			a->retry = true;
		} else {
			/* The gather under test: a lost young bit stays lost. */
			ret = region_bounce(&r);
			if (!ret)
				ret = region_referenced_pages(&r, &ref_after);
			if (ret) {
				ret = pc_skip_rest(a, "mprotect/smaps", -ret);
				goto out;
			}
		}
	}
	pc_window_end(ctx, &a->win,
		      &a->disturbed); /* our own MADV_PAGEOUT below is reclaim: not a disturbance */
	if (s_ref >= 0 && !a->judged[s_ref]) {
		pc_compare_referenced(ref_after, touched, (__u64)(uintptr_t)r.chunk[0], 0,
				      &a->msg[s_ref]);
		a->judged[s_ref] = true;
		snprintf(a->msg[s_ref].summary, sizeof(a->msg[s_ref].summary),
			 "%llu pages referenced after the gathering rewrite, %zu touched (%llu "
			 "right before); %zu of %zu pattern blocks 64 KiB folios",
			 (unsigned long long)ref_after, touched, (unsigned long long)ref_idle,
			 pattern_64k, nblocks / 2);
	}
	if (s_data < 0)
		goto done;

	ret = region_madvise(&r, MADV_PAGEOUT);
	if (ret) {
		ret = pc_skip_rest(a, ret == -EINVAL ? "MADV_PAGEOUT unsupported" : "MADV_PAGEOUT",
				   -ret);
		goto out;
	}
	for (size_t b = 0; b < nblocks; b++) {
		bool pattern = b % 2 == 0;
		bool zero = true;

		for (int k = 0; k < CONT; k++) {
			size_t pg = b * CONT + (size_t)k;
			const __u8 *q = (const __u8 *)page_addr(&r, b, k);
			__u8 want, seen;
			int v;

			if (pattern && writes_page(p, k)) {
				/* Redirtied after MADV_FREE: must survive reclaim. */
				want = pc_page_byte(pg, SALT_B);
				written++;
			} else {
				/* Clean lazyfree: the old bytes, or zeros once discarded. */
				want = q[0] == 0 ? 0 : pc_page_byte(pg, SALT_A);
				others++;
			}
			seen = pc_block_seen(q, PAGE, want, NULL);
			zero = zero && seen == 0 && want == 0;
			v = pc_written_survives(want, seen);
			a->msg[s_data].checked++;
			if (pc_is_violation(v)) {
				pc_oracle_add_evidence(&a->msg[s_data], v, (__u64)(uintptr_t)q, 0,
						       want, seen, "%sblock %zu, entry %d",
						       pattern && writes_page(p, k)
							       ? ""
							       : "neither old data nor zeros: ",
						       b, k);
				if (pattern && writes_page(p, k))
					lost++;
				else
					garbage++;
			}
		}
		/* Liveness: clean blocks (controls, all-clean pattern) dropped. */
		if (!pattern || p->dirty == NONE) {
			controls++;
			discarded += zero;
		}
	}
	judge(&a->msg[s_data]);
	a->judged[s_data] = true;
	snprintf(a->msg[s_data].summary, sizeof(a->msg[s_data].summary),
		 "%zu pages redirtied after MADV_FREE read back: %zu lost; %zu clean pages "
		 "old-or-zero: %zu not",
		 written, lost, others, garbage);
	if (discarded == 0 && a->msg[s_data].status == PC_STATUS_PASS) {
		pc_slot_skip(
			a, s_data,
			"probe inconclusive: MADV_PAGEOUT discarded none of %zu clean lazyfree "
			"blocks, so a lost dirty bit would not show",
			controls);
		a->retry = true;
	} else {
		pc_oracle_appendf(
			&a->msg[s_data],
			"; control: %zu of %zu clean blocks discarded; %zu of %zu pattern "
			"blocks 64 KiB folios; %s",
			discarded, controls, pattern_64k, nblocks / 2,
			have_swap() ? "swap on" : "no swap (dirty folios stay)");
	}
done:
	ret = 0;
out:
	pc_window_end(ctx, &a->win, &a->disturbed);
	if (pinned)
		sched_setaffinity(0, sizeof(oldmask), &oldmask);
	region_release(&r);
	return ret;
}

/* ---- measure: the mlock loop (reference workload, scaled) ----------------- */

static int measure_mlock(struct pc_scenario_ctx *ctx, const struct cp_mlock *ml,
			 struct pc_attempt *a)
{
	const int s_data = 0;
	unsigned int s = ctx->scale ? ctx->scale : 1;
	unsigned int iters = ml->iterations / s ? ml->iterations / s : 1;
	size_t nblocks = scaled_blocks(ctx, ml->full), npages = nblocks * CONT, pattern_64k = 0;
	__u64 locked_kb = 0, locked_min = (__u64)-1, locked_left = 0, want_locked;
	size_t lost = 0, checked_locked = 0;
	struct region r;
	char why[200];
	int ret;

	pc_slot_init(a, s_data, ctx, PC_CHK_CP_MLOCK, TIER_DATA);
	ret = region_map(&r, nblocks);
	if (ret) {
		ret = pc_skip_rest(a, "mmap/madvise(MADV_HUGEPAGE)", -ret);
		goto out;
	}
	pc_window_begin(ctx, &a->win, &a->disturbed);
	for (size_t b = 0; b < nblocks; b++)
		for (int k = 0; k < CONT; k++)
			memset(page_addr(&r, b, k), pc_page_byte(b * CONT + (size_t)k, SALT_A),
			       PAGE);
	if (folios_missing(ctx, &r, why, sizeof(why), &pattern_64k)) {
		pc_skip_all(a, why);
		goto out;
	}
	want_locked = (__u64)(npages - (ml->misaligned ? 2 * (size_t)r.nchunks : 0)) * (PAGE / KIB);
	for (unsigned int it = 0; it < iters; it++) {
		ret = region_mlock(&r, true, ml->misaligned);
		if (ret) {
			/* EPERM/ENOMEM: RLIMIT_MEMLOCK without CAP_IPC_LOCK */
			ret = pc_skip_rest(a, "mlock", -ret);
			goto out;
		}
		ret = region_smaps(&r, SM_LOCKED, &locked_kb);
		if (ret) {
			ret = pc_skip_rest(a, "smaps", -ret);
			goto out;
		}
		if (locked_kb < locked_min)
			locked_min = locked_kb;
		/* One byte per page: read what the last round left, write the next. */
		for (size_t pg = 0; pg < npages; pg++) {
			volatile __u8 *q =
				(volatile __u8 *)page_addr(&r, pg / CONT, (int)(pg % CONT));
			__u8 want = (__u8)(pc_page_byte(pg, SALT_A) + it),
			     seen = q[(pg * 67) % PAGE];

			a->msg[s_data].checked++;
			if (pc_is_violation(pc_written_survives(want, seen))) {
				lost++;
				pc_oracle_add_evidence(&a->msg[s_data], PC_V_DATA_LOST,
						       (__u64)(uintptr_t)q, 0, want, seen,
						       "byte changed across mlock/munlock");
			}
			q[(pg * 67) % PAGE] = (__u8)(want + 1);
		}
		/* Unfold each block (its last page read-only) and let the kernel
		   fold it again (it tries when entry 15 is set): the bytes must
		   survive, and the kernel tier judges each fold and unfold. */
		for (size_t b = 0; ml->refold && b < nblocks && !ret; b++) {
			char *pg15 = block_addr(&r, b) + 15 * PAGE;

			if (mprotect(pg15, PAGE, PROT_READ) ||
			    mprotect(pg15, PAGE, PROT_READ | PROT_WRITE))
				ret = -errno;
		}
		if (ret) {
			ret = pc_skip_rest(a, "mprotect", -ret);
			goto out;
		}
		ret = region_mlock(&r, false, ml->misaligned);
		if (!ret)
			ret = region_smaps(&r, SM_LOCKED, &locked_left);
		if (ret) {
			ret = pc_skip_rest(a, "munlock/smaps", -ret);
			goto out;
		}
		checked_locked++;
		a->msg[s_data].checked++;
		/* Locked is 0 once unlocked: nothing stays mlocked. */
		if (pc_is_violation(pc_count_delta(0, (__s64)locked_left, 0)))
			pc_oracle_add_evidence(&a->msg[s_data], PC_V_MAPCOUNT,
					       (__u64)(uintptr_t)r.chunk[0], 0, 0, locked_left,
					       "kB still Locked");
	}
	/* The last writes, read after the last munlock. */
	for (size_t pg = 0; pg < npages; pg++) {
		const __u8 *q = (const __u8 *)page_addr(&r, pg / CONT, (int)(pg % CONT));
		__u8 want = (__u8)(pc_page_byte(pg, SALT_A) + iters), seen = q[(pg * 67) % PAGE];

		a->msg[s_data].checked++;
		if (pc_is_violation(pc_written_survives(want, seen))) {
			lost++;
			pc_oracle_add_evidence(&a->msg[s_data], PC_V_DATA_LOST, (__u64)(uintptr_t)q,
					       0, want, seen, "last write lost after munlock");
		}
	}
	pc_window_end(ctx, &a->win, &a->disturbed);
	judge(&a->msg[s_data]);
	a->judged[s_data] = true;
	snprintf(a->msg[s_data].summary, sizeof(a->msg[s_data].summary),
		 "%u rounds of mlock, r/w a byte in each of %zu pages, munlock: %zu bytes lost, "
		 "Locked %llu kB while locked (want %llu), %llu kB after munlock",
		 iters, npages, lost, (unsigned long long)locked_min,
		 (unsigned long long)want_locked, (unsigned long long)locked_left);
	if (a->msg[s_data].status == PC_STATUS_PASS && locked_min < want_locked) {
		/* Liveness: the loop never ran with the range locked. */
		pc_slot_skip(a, s_data,
			     "liveness: smaps Locked %llu kB while locked, wanted %llu: mlock did "
			     "not lock the range",
			     (unsigned long long)locked_min, (unsigned long long)want_locked);
	} else {
		pc_oracle_appendf(&a->msg[s_data], "; %zu of %zu even blocks 64 KiB folios%s",
				  pattern_64k, nblocks / 2,
				  ml->misaligned ? "; lock ends inside folios" : "");
	}
	ret = 0;
out:
	pc_window_end(ctx, &a->win, &a->disturbed);
	region_release(&r);
	return ret;
}

/* ---- attempts and the final verdicts ------------------------------------- */

static int m_pattern(struct pc_scenario_ctx *ctx, const void *data, struct pc_attempt *a)
{
	return measure_pattern(ctx, data, a);
}

static int m_mlock(struct pc_scenario_ctx *ctx, const void *data, struct pc_attempt *a)
{
	return measure_mlock(ctx, data, a);
}

/* The checks a scenario reports, for the skips before any attempt. */
static void report_skip(struct pc_scenario_ctx *ctx, pc_measure_fn m, const void *data,
			const char *why)
{
	struct pc_oracle_msg msg;

	if (m == m_mlock) {
		pc_oracle_msg_init(&msg, ctx->scenario, PC_CHK_CP_MLOCK, TIER_DATA);
		pc_oracle_skip(&msg, "%s", why);
		pc_oracle_report(ctx, &msg);
		return;
	}
	const struct cp_pattern *p = data;

	if (p->dirty != NONE || p->young == NONE) {
		pc_oracle_msg_init(&msg, ctx->scenario, PC_CHK_CP_GATHER, TIER_DATA_LOSS);
		pc_oracle_skip(&msg, "%s", why);
		pc_oracle_report(ctx, &msg);
	}
	if (p->young != NONE) {
		pc_oracle_msg_init(&msg, ctx->scenario, PC_CHK_CP_GATHER, TIER_REFERENCED);
		pc_oracle_skip(&msg, "%s", why);
		pc_oracle_report(ctx, &msg);
	}
}

static int run_measure(struct pc_scenario_ctx *ctx, pc_measure_fn m, const void *data)
{
	char buf[160];
	const char *why = not_here(buf, sizeof(buf));

	if (!why && !ctx->mthp_anon_64k)
		why = "64 KiB anonymous mTHP not enabled (hugepages-64kB/enabled)";
	if (why) {
		report_skip(ctx, m, data, why);
		return 0;
	}
	return pc_attempts_run(ctx, m, data);
}

static int run_pattern(struct pc_scenario_ctx *ctx, const void *data)
{
	return run_measure(ctx, m_pattern, data);
}

static int run_mlock(struct pc_scenario_ctx *ctx, const void *data)
{
	return run_measure(ctx, m_mlock, data);
}

/* ---- the scenarios -------------------------------------------------------- */

/* 64 pattern + 64 control blocks (8 MiB) at scale 1; 2 MiB at --scale 4. */
#define PAT(d, y) (&(const struct cp_pattern){.dirty = (d), .young = (y), .full = 128})

static const struct cp_mlock ml_aligned = {.full = 128, .iterations = 20};
static const struct cp_mlock ml_misaligned = {.full = 128, .iterations = 20, .misaligned = true};
static const struct cp_mlock ml_refold = {.full = 128, .iterations = 8, .refold = true};

/* clang-format off */
static const struct pc_scenario scenarios[] = {
	{"dirty-0", "dirty only in entry 0 of each block: survives MADV_FREE + MADV_PAGEOUT",
	 PC_NEEDS_MTHP_ANON_64K, run_pattern, PAT(0, NONE)},
	{"dirty-1", "dirty only in entry 1: the loop's second step",
	 PC_NEEDS_MTHP_ANON_64K, run_pattern, PAT(1, NONE)},
	{"dirty-7", "dirty only in entry 7: mid-block",
	 PC_NEEDS_MTHP_ANON_64K, run_pattern, PAT(7, NONE)},
	{"dirty-15", "dirty only in entry 15: the loop's last step",
	 PC_NEEDS_MTHP_ANON_64K, run_pattern, PAT(15, NONE)},
	{"young-0", "young only in entry 0: smaps Referenced after a gathering rewrite",
	 PC_NEEDS_MTHP_ANON_64K, run_pattern, PAT(NONE, 0)},
	{"young-1", "young only in entry 1", PC_NEEDS_MTHP_ANON_64K, run_pattern, PAT(NONE, 1)},
	{"young-7", "young only in entry 7", PC_NEEDS_MTHP_ANON_64K, run_pattern, PAT(NONE, 7)},
	{"young-15", "young only in entry 15", PC_NEEDS_MTHP_ANON_64K, run_pattern,
	 PAT(NONE, 15)},
	{"dirty-7-young-1", "young in 1 before dirty in 7: young branch, then the dirty search",
	 PC_NEEDS_MTHP_ANON_64K, run_pattern, PAT(7, 1)},
	{"dirty-1-young-7", "dirty in 1 before young in 7: dirty branch, then the young search",
	 PC_NEEDS_MTHP_ANON_64K, run_pattern, PAT(1, 7)},
	{"dirty-15-young-0", "young first entry, dirty last", PC_NEEDS_MTHP_ANON_64K, run_pattern,
	 PAT(15, 0)},
	{"dirty-0-young-15", "dirty first entry, young last", PC_NEEDS_MTHP_ANON_64K, run_pattern,
	 PAT(0, 15)},
	{"dirty-young-7", "dirty and young both in entry 7 only", PC_NEEDS_MTHP_ANON_64K,
	 run_pattern, PAT(7, 7)},
	{"all-clean", "control: no bit in any entry; clean blocks discarded, none garbled",
	 PC_NEEDS_MTHP_ANON_64K, run_pattern, PAT(NONE, NONE)},
	{"all-young-dirty", "control: every entry young and dirty",
	 PC_NEEDS_MTHP_ANON_64K, run_pattern, PAT(ALL, ALL)},
	{"mlock", "mlock, read+write a byte per page, munlock, N times (64 KiB-aligned)",
	 PC_NEEDS_MTHP_ANON_64K, run_mlock, &ml_aligned},
	{"mlock-misaligned", "the same, locking [start+4K, end-4K): VMAs split inside folios",
	 PC_NEEDS_MTHP_ANON_64K, run_mlock, &ml_misaligned},
	{"refold", "mlock rounds that also unfold each block (page 15 read-only) and refold it",
	 PC_NEEDS_MTHP_ANON_64K, run_mlock, &ml_refold},
};
/* clang-format on */

const struct pc_suite pc_contpte_suite = {
	.name = "contpte",
	.description = "arm64 contiguous PTEs: access/dirty gathering, fold/unfold, mlock",
	.scenarios = scenarios,
	.n_scenarios = sizeof(scenarios) / sizeof(scenarios[0]),
};
