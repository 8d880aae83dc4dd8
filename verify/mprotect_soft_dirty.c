// SPDX-License-Identifier: GPL-2.0
/*
 * mprotect's batches and the soft-dirty bit (mprotect/soft-dirty), and
 * what the batches map (mprotect/mapped), on one state:
 *
 * large anonymous folios, every page written (present, mapped by PTEs),
 * clear_refs 4 (every PTE clean of soft-dirty, and write-protected for its
 * tracking), one page of each folio written again (that entry alone
 * soft-dirty and writable), then MADV_FREE over the range: every PTE
 * hardware-clean.  Clean matters on x86, whose pte_mkdirty also sets the
 * soft-dirty bit: modify_prot_start_ptes marks the batch's value dirty
 * when a later entry is dirty, and that alone would give every entry of a
 * batch soft-dirty, hiding a batch that ran through the written one (on
 * dirty pages mprotect spreads the bit over the batch: the summary counts
 * the pages that gained it, which is not judged).  Two mprotect calls
 * over the whole range:
 *   1. PROT_READ: the entry differs from the others in write and
 *      soft-dirty (FPB_RESPECT_WRITE already ends a batch at it);
 *   2. PROT_READ|PROT_WRITE: every entry read-only now, differing in
 *      soft-dirty alone: only FPB_RESPECT_SOFT_DIRTY ends the batch there.
 *      A batch that runs through it gives every entry the first's bit
 *      (modify_prot_commit_ptes writes one value over the batch): the
 *      written page loses its bit unless it is the first.
 * After each call pagemap must show the written page soft-dirty and every
 * page present at its PFN; at the end each page holds its bytes.  The
 * state is read back before it is judged (pagemap, kpageflags): folios
 * not formed whole are left out and said, a state not made is a SKIP that
 * says which part.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <ptecheck/mprotect.h>
#include "mprotect_int.h"
#include "procmm.h"
#include "settings.h"
#include "shape.h"

/* Where in each page its byte lies. */
#define OFF 100

static const char *const calls[2] = {"mprotect(PROT_READ)", "mprotect(PROT_READ|PROT_WRITE)"};

struct sd_run {
	const struct pc_scenario_ctx *ctx;
	const struct mp_soft_dirty *sc;
	int s_sd;		 /* the soft-dirty slot, skipped where the kernel has no bit */
	size_t n, fp, p;	 /* pages, pages per folio, the soft-dirty page in each */
	struct pc_folios fo;	 /* the range as first read back: whole folios */
	__u64 *state, *after[2]; /* pagemap: before the calls, after each */
	size_t gained;		 /* pages soft-dirty after a call and not before it */
	struct pc_range rg;
};

static bool sd(__u64 e)
{
	return e & PC_PM_SOFT_DIRTY;
}

static __u64 pfn_of(__u64 e)
{
	return e & PC_PM_PRESENT ? e & PC_PM_PFN_MASK : 0;
}

static __u8 want_byte(const struct sd_run *r, size_t i)
{
	return pc_page_byte(i, i % r->fp == r->p ? SALT_B : SALT_A);
}

static int sd_alloc(struct sd_run *r)
{
	r->state = calloc(r->n, sizeof(*r->state));
	r->after[0] = calloc(r->n, sizeof(*r->after[0]));
	r->after[1] = calloc(r->n, sizeof(*r->after[1]));
	return !pc_folios_alloc(&r->fo, r->n, r->fp) && r->state && r->after[0] && r->after[1]
		       ? 0
		       : -ENOMEM;
}

static void sd_free(struct sd_run *r)
{
	pc_range_release(&r->rg);
	pc_folios_free(&r->fo);
	free(r->state);
	free(r->after[0]);
	free(r->after[1]);
}

/* The range mapped, every page written, a PMD THP's mapping split when
   the shape asks.  0 or -errno; *what names the step that failed. */
static int sd_map(struct sd_run *r, const char **what)
{
	int ret = pc_range_map(&r->rg, r->n, false, OFF, what);

	if (ret)
		return ret;
	*what = "mprotect of one page (splitting the PMD mapping)";
	return r->sc->shape->split_pmd ? pc_split_pmd_mapping(r->rg.base) : 0;
}

/*
 * After clear_refs 4 and the writes: NULL when every formed folio's page
 * p alone is soft-dirty, at its PFN; else why not (*retry when another
 * attempt may make it; *no_bit when the kernel keeps no soft-dirty bit,
 * which leaves the state of mprotect/mapped made all the same).
 */
static const char *sd_state_missing(const struct sd_run *r, char *why, size_t len, bool *retry,
				    bool *no_bit)
{
	size_t dirty_other = 0, clean_written = 0, moved = 0, written = 0;

	*retry = true;
	*no_bit = false;
	for (size_t i = 0; i < r->n; i++) {
		if (!r->fo.whole[i / r->fp])
			continue;
		moved += pfn_of(r->state[i]) != r->fo.pfns[i];
		if (i % r->fp == r->p) {
			written++;
			clean_written += !sd(r->state[i]);
		} else {
			dirty_other += sd(r->state[i]);
		}
	}
	if (clean_written == written && !dirty_other && !moved) {
		*retry = false;
		*no_bit = true;
		snprintf(why, len,
			 "no soft-dirty tracking in this kernel: %zu written pages read clean in "
			 "pagemap after clear_refs 4",
			 written);
	} else if (moved) {
		snprintf(why, len, "%zu pages changed PFN between the writes (migration, reclaim)",
			 moved);
	} else if (dirty_other) {
		snprintf(why, len, "%zu pages not written after clear_refs 4 read soft-dirty",
			 dirty_other);
	} else if (clean_written) {
		snprintf(why, len, "%zu of %zu written pages read clean of soft-dirty",
			 clean_written, written);
	} else {
		return NULL;
	}
	return why;
}

static void judge_soft_dirty(struct pc_attempt *a, int slot, struct sd_run *r)
{
	struct pc_oracle_msg *m = &a->msg[slot];

	for (int k = 0; k < 2; k++) {
		const __u64 *was = k ? r->after[0] : r->state;

		for (size_t i = 0; i < r->n; i++) {
			int v;

			if (!r->fo.whole[i / r->fp])
				continue;
			v = pc_soft_dirty_kept(sd(was[i]), sd(r->after[k][i]));
			m->checked++;
			r->gained += !sd(was[i]) && sd(r->after[k][i]);
			if (pc_is_violation(v))
				pc_oracle_add_evidence(
					m, v, (__u64)(uintptr_t)(r->rg.base + i * PAGE), 0, 1, 0,
					"folio %zu page %zu, %s", i / r->fp, i % r->fp, calls[k]);
		}
	}
	pc_slot_judge(a, slot);
}

static void judge_mapped(struct pc_attempt *a, int s_pfn, int s_data, const struct sd_run *r)
{
	struct pc_oracle_msg *mp = &a->msg[s_pfn], *md = &a->msg[s_data];

	for (size_t i = 0; i < r->n; i++) {
		__u64 addr = (__u64)(uintptr_t)(r->rg.base + i * PAGE);
		__u8 want = want_byte(r, i), seen;
		int v;

		if (!r->fo.whole[i / r->fp])
			continue;
		for (int k = 0; k < 2; k++) {
			v = pc_mprotect_mapped(r->state[i] & PC_PM_PRESENT, pfn_of(r->state[i]),
					       r->after[k][i] & PC_PM_PRESENT,
					       pfn_of(r->after[k][i]));
			mp->checked++;
			if (pc_is_violation(v))
				pc_oracle_add_evidence(
					mp, v, addr, 0, pfn_of(r->state[i]), pfn_of(r->after[k][i]),
					"folio %zu page %zu, %s", i / r->fp, i % r->fp, calls[k]);
		}
		seen = (__u8)r->rg.base[i * PAGE + OFF];
		v = pc_written_survives(want, seen);
		md->checked++;
		if (pc_is_violation(v))
			pc_oracle_add_evidence(md, v, addr, 0, want, seen,
					       "folio %zu page %zu, after both calls", i / r->fp,
					       i % r->fp);
	}
	pc_slot_judge(a, s_pfn);
	pc_slot_judge(a, s_data);
}

/* The state the calls are judged on, read back: 0, 1 when it was not made
   (every slot skipped), or pc_skip_rest's -errno. */
static int sd_make_state(struct pc_attempt *a, struct sd_run *r)
{
	char why[160];
	const char *what;
	bool retry, no_bit;
	int ret = sd_map(r, &what);

	if (ret)
		return pc_skip_rest(a, what, -ret);
	if (r->sc->shape->split_pmd) {
		struct pc_smaps sm;

		ret = pc_smaps_read(0, (__u64)(uintptr_t)r->rg.base, &sm);
		if (ret)
			return pc_skip_rest(a, "smaps", -ret);
		if (sm.anon_huge_kb) {
			pc_skip_all(a, "the PMD mapping was not split (smaps AnonHugePages)");
			return 1;
		}
	}
	ret = pc_folios_read_for(a, r->ctx, &r->fo, r->rg.base, r->sc->shape->no_folio);
	if (ret)
		return ret;
	ret = pc_write_file("/proc/self/clear_refs", "4");
	if (ret)
		return pc_skip_rest(a, "clear_refs 4", -ret);
	for (size_t i = r->p; i < r->n; i += r->fp)
		r->rg.base[i * PAGE + OFF] = (char)pc_page_byte(i, SALT_B);
	if (madvise(r->rg.base, r->n * PAGE, MADV_FREE))
		return pc_skip_rest(a, errno == EINVAL ? "MADV_FREE unsupported" : "MADV_FREE",
				    errno);
	ret = pc_pagemap_read(0, (__u64)(uintptr_t)r->rg.base, r->n, r->state);
	if (ret)
		return pc_skip_rest(a, "pagemap", -ret);
	if (sd_state_missing(r, why, sizeof(why), &retry, &no_bit)) {
		if (no_bit) {
			/* Without soft-dirty the writes still leave one entry
			   writable among read-only ones: mapped is judged, and
			   the PTEs need not be clean. */
			pc_slot_skip(a, r->s_sd, "%s", why);
			return 0;
		}
		pc_skip_all(a, why);
		a->retry = retry;
		return 1;
	}
	return pc_lazyfree_whole(a, r->rg.base, r->n);
}

/* The state, the two calls and their pagemaps: 0, 1 when the state was not
   made (every slot skipped), or pc_skip_rest's -errno. */
static int sd_run_calls(struct pc_attempt *a, struct sd_run *r)
{
	int ret = sd_make_state(a, r);

	if (ret)
		return ret;
	for (int k = 0; k < 2; k++) {
		int prot = k ? PROT_READ | PROT_WRITE : PROT_READ;

		if (mprotect(r->rg.base, r->n * PAGE, prot))
			return pc_skip_rest(a, calls[k], errno);
		ret = pc_pagemap_read(0, (__u64)(uintptr_t)r->rg.base, r->n, r->after[k]);
		if (ret)
			return pc_skip_rest(a, "pagemap", -ret);
	}
	return 0;
}

int mp_measure_soft_dirty(struct pc_scenario_ctx *ctx, const void *data, struct pc_attempt *a)
{
	const struct mp_soft_dirty *sc = data;
	const struct mp_shape *sh = sc->shape;
	int s_sd = pc_slot_add(a, ctx, PC_CHK_MP_SOFT_DIRTY, TIER_PAGEMAP);
	int s_pfn = pc_slot_add(a, ctx, PC_CHK_MP_MAPPED, TIER_PAGEMAP);
	int s_data = pc_slot_add(a, ctx, PC_CHK_MP_MAPPED, TIER_DATA);
	struct sd_run r = {
		.ctx = ctx, .sc = sc, .s_sd = s_sd, .fp = sh->folio_pages, .rg = {.fd = -1}};
	int ret;

	if (sh->needs_mthp_64k && !ctx->mthp_anon_64k) {
		pc_skip_all(a, "64 KiB anonymous mTHP not enabled (hugepages-64kB/enabled)");
		return 0;
	}
	r.n = pc_scaled_len(ctx, sh->len, sh->folio_pages * PAGE, sh->folio_pages * PAGE) / PAGE;
	r.p = pc_pos_index(sc->pos, r.fp);
	if (sd_alloc(&r)) {
		ret = pc_skip_rest(a, "calloc", ENOMEM);
		goto out;
	}
	pc_window_begin(ctx, &a->win, &a->disturbed);
	ret = sd_run_calls(a, &r);
	pc_window_end(ctx, &a->win, &a->disturbed);
	if (ret)
		goto out;
	if (!a->judged[s_sd]) {
		judge_soft_dirty(a, s_sd, &r);
		pc_oracle_appendf(
			&a->msg[s_sd],
			"%zu of %zu folios (%s) whole, clean; page %zu (%s) of each alone "
			"soft-dirty through PROT_READ and PROT_READ|PROT_WRITE; %zu pages "
			"gained it (not judged)",
			r.fo.n_whole, r.n / r.fp, sh->what, r.p, pc_pos_name(sc->pos), r.gained);
	}
	judge_mapped(a, s_pfn, s_data, &r);
	pc_oracle_appendf(&a->msg[s_pfn], "%zu of %zu folios (%s) formed whole", r.fo.n_whole,
			  r.n / r.fp, sh->what);
	pc_oracle_appendf(&a->msg[s_data], "%zu of %zu folios (%s) formed whole", r.fo.n_whole,
			  r.n / r.fp, sh->what);
out:
	sd_free(&r);
	return ret < 0 ? ret : 0;
}
