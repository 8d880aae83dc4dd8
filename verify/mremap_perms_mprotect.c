// SPDX-License-Identifier: GPL-2.0
/*
 * perms-mprotect-ro: mprotect(PROT_READ) of a large folio must take write
 * access from every page of it, the TLB's copies included (mremap/perms
 * [oracle:write-fault]: write permission is never kept by a batched path).
 * change_pte_range batches the PTEs of a large folio
 * (mprotect_folio_pte_batch with FPB_RESPECT_WRITE) and
 * prot_commit_flush_ptes adds each batch to the mmu_gather's flush range;
 * a range short of the batch leaves stale writable TLB entries on the
 * other pages, and a write there goes through without a fault.
 *
 * The state: the gather merges the ranges of one call (lowest start,
 * highest end), so each 64 KiB folio gets an mprotect call of its own,
 * and its TLB entries are made warm by writes from one pinned CPU right
 * before; the writes after it go from the last page down, so that nothing
 * enters the kernel between the mprotect and a stale page's write.  The folios are first moved to a
 * 4 KiB-misaligned address: no aligned 64 KiB block of PTEs then maps one folio, so arm64 folds
 * none into a contiguous range, whose TLB entry an invalidation of any one of its pages drops whole
 * (that would hide a short flush).  On x86 the move changes nothing.  Then a write to every page
 * must raise SIGSEGV; a write that lands is the violation.  A correct kernel flushes before
 * mprotect returns, on any hardware: no false alarm.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mremap_int.h"
#include "procmm.h"

struct mprot {
	struct place pl;
	struct mthp_count count;
	struct snap moved; /* after the move: the folio orders */
	__u32 *faults;	   /* 1: the write after mprotect raised a signal */
	bool *ro;	   /* every page: read-only after its mprotect */
	size_t n;
	int cpu;   /* the pinned CPU, -1: not pinned */
	int round; /* of ROUNDS, the one judged */
};

/* The folios whose first page starts a folio of 64 KiB or more (-1: orders unknown). */
static long large_folios(const struct mprot *m)
{
	long large = 0;

	if (m->moved.order_err)
		return -1;
	for (size_t i = 0; i < m->n; i += PAGES_64K)
		large += m->moved.order[i] != PC_FOLIO_ORDER_NONE &&
			 (1U << m->moved.order[i]) >= PAGES_64K;
	return large;
}

/*
 * Rounds on fresh mappings, up to the first that shows a write landing:
 * in arm64 guests a process's round sometimes sees every write fault
 * even on a kernel whose flush is short (QEMU's TLB dropped whole at
 * times), and an attempt must show the bug each time to fail.
 */
#define ROUNDS 4

/*
 * Per 64 KiB folio: every page written (TLB warm, writable), the folio
 * made read-only alone, every page written again through the probe.
 * 0 or -errno of mprotect.
 */
static int protect_and_write(struct mprot *m)
{
	for (size_t f = 0; f < m->n; f += PAGES_64K) {
		char *base = m->pl.dst + f * PAGE;

		for (size_t k = 0; k < PAGES_64K; k++)
			*(volatile char *)(base + k * PAGE) = (char)pc_page_byte(f + k, SALT_B);
		if (mprotect(base, FOLIO_64K, PROT_READ))
			return -errno;
		/* Last page first: no signal (a kernel entry) before the pages a
		   short flush leaves stale; only page 0 is sure to fault. */
		for (size_t k = PAGES_64K; k-- > 0;) {
			m->ro[f + k] = true;
			m->faults[f + k] =
				pc_probe_write(base + k * PAGE, pc_page_byte(f + k, SALT_A)) != 0;
		}
	}
	return 0;
}

/* Pages whose write after the mprotect raised no signal. */
static size_t landed(const struct mprot *m)
{
	size_t n = 0;

	for (size_t i = 0; i < m->n; i++)
		n += !m->faults[i];
	return n;
}

/* The moved folios protected and written, on one CPU with the probes
   installed: 0, or pc_skip_rest's -errno. */
static int measure(struct pc_scenario_ctx *ctx, struct pc_attempt *a, struct mprot *m)
{
	struct pc_probe_handlers oldh;
	cpu_set_t oldmask;
	bool pinned = pc_pin_cpu(&oldmask);
	int ret;

	m->cpu = pinned ? sched_getcpu() : -1;
	pc_probe_install(&oldh);
	ret = protect_and_write(m);
	pc_probe_restore(&oldh);
	if (pinned)
		sched_setaffinity(0, sizeof(oldmask), &oldmask);
	pc_window_end(ctx, &a->win, &a->disturbed);
	return ret ? pc_skip_rest(a, "mprotect(PROT_READ)", -ret) : 0;
}

static void judge(struct pc_attempt *a, int slot, const struct mprot *m, enum folios_seen fs)
{
	struct pc_oracle_msg *msg = &a->msg[slot];
	long large = large_folios(m);

	pc_compare_write_faults(m->faults, m->ro, m->n, (__u64)(uintptr_t)m->pl.dst,
				"after mprotect(PROT_READ)", msg);
	a->judged[slot] = true;
	pc_oracle_appendf(msg, "; round %d of up to %d, mprotect per folio, TLB warm %s", m->round,
			  ROUNDS, m->cpu >= 0 ? "(pinned)" : "(not pinned)");
	if (large >= 0)
		pc_oracle_appendf(msg, ", %ld of %zu folios large", large, m->n / PAGES_64K);
	else
		pc_oracle_appendf(msg, ", %s", mr_folios_text(fs));
}

/*
 * One round: fresh mappings, the folios moved off alignment, protected
 * and written.  0, 1 when no large folio formed (slot skipped), or
 * pc_skip_rest's -errno.
 */
static int one_round(struct pc_scenario_ctx *ctx, const struct shape *sh, struct pc_attempt *a,
		     int slot, struct mprot *m, enum folios_seen *fs)
{
	int ret;

	mr_place_release(&m->pl);
	ret = mr_source_map(ctx, sh, a, &m->pl, sh->dst_off, -1, &m->count);
	if (ret)
		return ret;
	ret = mr_move_fixed(m->pl.src, m->n * PAGE, m->pl.dst);
	if (!ret)
		ret = mr_snap_take(&m->moved, ctx, m->pl.dst, true);
	if (ret)
		return pc_skip_rest(a, "mremap/pagemap", -ret);
	*fs = mr_folios_formed(&m->moved, &m->count);
	if (mr_no_large(*fs) || large_folios(m) == 0) {
		/* Small folios: mprotect changes one PTE at a time, no batch to get wrong. */
		pc_slot_skip(a, slot, "no 64 KiB folio formed (mTHP off?): mprotect did not batch");
		return 1;
	}
	return measure(ctx, a, m);
}

int mr_measure_mprotect(struct pc_scenario_ctx *ctx, const struct shape *sh, struct pc_attempt *a)
{
	int slot = pc_slot_add(a, ctx, PC_CHK_PERMS, TIER_WRITE_FAULT);
	struct mprot m = {.count = {"anon_fault_alloc"}, .cpu = -1};
	enum folios_seen fs = FOLIOS_UNKNOWN;
	int ret = 0;

	m.n = mr_len(ctx, sh) / PAGE;
	m.faults = calloc(m.n, sizeof(*m.faults));
	m.ro = calloc(m.n, sizeof(*m.ro));
	if (!m.faults || !m.ro || mr_snap_alloc(&m.moved, m.n))
		ret = pc_skip_rest(a, "calloc", ENOMEM);
	for (m.round = 1; !ret && m.round <= ROUNDS; m.round++) {
		ret = one_round(ctx, sh, a, slot, &m, &fs);
		if (!ret && (landed(&m) || m.round == ROUNDS)) {
			judge(a, slot, &m, fs);
			break;
		}
	}
	pc_window_end(ctx, &a->win, &a->disturbed);
	mr_place_release(&m.pl);
	free(m.faults);
	free(m.ro);
	mr_snap_free(&m.moved);
	return ret < 0 ? ret : 0;
}
