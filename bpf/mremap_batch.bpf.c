// SPDX-License-Identifier: GPL-2.0
/*
 * The mremap path, per batch (bpf/mremap.bpf.c has the whole call).  On
 * arm64 every batch mremap moves through the contpte functions is judged
 * on its own: the access/dirty bits of its nr PTEs at entry must be in the
 * PTE the batched clear returns, and the PTEs set at the new address must
 * map the same pages with the same bits (fentry/fexit, or kprobes where
 * the trampoline refuses the function).  (folio_pte_batch()'s results,
 * in mremap and elsewhere, are the batch path's: bpf/batch.bpf.c.)
 *
 * Race rules (docs/checks.md): move_ptes holds the page-table lock over
 * each clear and set, so only hardware changes those PTEs meanwhile, and
 * it only sets bits; still, a shared mm or a disturbed window makes a
 * violation inconclusive.
 */
#include "mremap.bpf.h"

/* ---- per batch (arm64 contpte): clear at old, set at new ---------------- */

struct entries_ctx {
	__u64 key;
	__u64 ptep;
};

static long gather_entry(__u32 i, void *data)
{
	struct entries_ctx *ec = data;
	struct call_state *st = bpf_map_lookup_elem(&mr_calls, &ec->key);
	__u64 raw = 0;

	if (!st)
		return 1;
	if (read_entry(ec->ptep, i, &raw)) {
		st->bc.gather.first_present = 0; /* unreadable: not judged */
		st->bc.clear_pending = false;
		return 1;
	}
	pc_gather_add(&st->bc.gather, pc_decode_pte(raw));
	return 0;
}

/* One verdict of a per-batch check: PC_CHK_ADBITS or PC_CHK_BATCH. */
static __always_inline void batch_verdict(struct call_state *st, __u32 check, int verdict,
					  __u64 addr, __u64 expected, __u64 seen)
{
	/* The PTL was held, but be strict. */
	struct pc_window w = {.gen = st->gen,
			      .tier = mr_batch_tier,
			      .flags = PC_WIN_GEN | (st->shared_mm ? PC_WIN_UNRELIABLE : 0)};

	pc_judge(&st->bc.c[check == PC_CHK_ADBITS ? 0 : 1], &st->bc.pv, &w, check, verdict, addr,
		 addr, expected, seen);
}

/* contpte_get_and_clear_full_ptes(mm, addr, ptep, nr, full), at entry. */
static __always_inline void clear_begin(__u64 addr, __u64 ptep, __u32 nr)
{
	struct entries_ctx ec;
	struct call_state *st = mremap_state(&ec.key);

	if (!st || !st->sampled)
		return;
	__builtin_memset(&st->bc.gather, 0, sizeof(st->bc.gather));
	st->bc.clear_addr = addr;
	st->bc.clear_ptep = ptep;
	st->bc.clear_nr = nr;
	st->bc.clear_pending = true;
	ec.ptep = ptep;
	bpf_loop(nr < PC_PTRS_PER_TABLE ? nr : PC_PTRS_PER_TABLE, gather_entry, &ec, 0);
}

/* ... at exit: the returned PTE carries every bit the nr PTEs had. */
static __always_inline void clear_end(__u64 ret)
{
	__u64 key;
	struct call_state *st = mremap_state(&key);
	struct batch_ctx *bc;

	if (!st || !st->bc.clear_pending)
		return;
	bc = &st->bc;
	bc->clear_pending = false;
	batch_verdict(st, PC_CHK_BATCH, pc_batch_in_table(bc->clear_addr, bc->clear_nr),
		      bc->clear_addr, bc->clear_nr, bc->clear_nr);
	batch_verdict(st, PC_CHK_ADBITS, pc_gather_covers(&bc->gather, pc_decode_pte(ret)),
		      bc->clear_addr, ((__u64)bc->gather.any_young << 1) | bc->gather.any_dirty,
		      ret);
	bc->set_pending = true;
	bc->cleared_nr = bc->clear_nr;
	bc->cleared_pte = ret;
}

static long check_set_entry(__u32 k, void *data)
{
	struct entries_ctx *ec = data;
	struct call_state *st = bpf_map_lookup_elem(&mr_calls, &ec->key);
	__u64 raw = 0;
	int v;

	if (!st)
		return 1;
	if (read_entry(st->bc.set_ptep, k, &raw))
		return 1;
	v = pc_set_entry(pc_decode_pte(st->bc.set_pte), k, pc_decode_pte(raw));
	/* A wrong PFN or permission is a batch error; a lost bit an ad-bits one. */
	batch_verdict(st,
		      v == PC_V_YOUNG_LOST || v == PC_V_DIRTY_LOST ? PC_CHK_ADBITS : PC_CHK_BATCH,
		      v, st->bc.set_addr + ((__u64)k << PC_PAGE_SHIFT), st->bc.set_pte, raw);
	return 0;
}

/* contpte_set_ptes(mm, addr, ptep, pte, nr), at exit: the nr PTEs set. */
static __always_inline void set_end(__u64 addr, __u64 ptep, __u64 pte, __u32 nr)
{
	struct entries_ctx ec;
	struct call_state *st = mremap_state(&ec.key);
	struct batch_ctx *bc;

	if (!st)
		return;
	bc = &st->bc;
	bc->batched_ptes += nr;
	hist_add(PC_HIST_BATCH_MREMAP, PC_HIST_LINLOG, nr);
	if (!st->sampled)
		return;
	batch_verdict(st, PC_CHK_BATCH, pc_batch_in_table(addr, nr), addr, nr, nr);
	if (bc->set_pending) {
		struct pc_pte cleared = pc_decode_pte(bc->cleared_pte);
		struct pc_pte want = pc_decode_pte(pte);

		bc->set_pending = false;
		batch_verdict(st, PC_CHK_BATCH, pc_batch_pair(bc->cleared_nr, nr), addr,
			      bc->cleared_nr, nr);
		/* What the clear gathered reaches the new PTEs (same page, bits). */
		batch_verdict(st, PC_CHK_ADBITS, pc_adbits_entry(cleared, want), addr,
			      bc->cleared_pte, pte);
		batch_verdict(st, PC_CHK_BATCH, pc_moved_entry(cleared, want, 0), addr,
			      bc->cleared_pte, pte);
	}
	bc->set_addr = addr;
	bc->set_ptep = ptep;
	bc->set_pte = pte;
	ec.ptep = ptep;
	bpf_loop(nr < PC_PTRS_PER_TABLE ? nr : PC_PTRS_PER_TABLE, check_set_entry, &ec, 0);
}

SEC("fentry/contpte_get_and_clear_full_ptes")
int BPF_PROG(mremap_clear_fentry, void *mm, unsigned long addr, __u64 *ptep, unsigned int nr)
{
	clear_begin(addr, (__u64)ptep, nr);
	return 0;
}

SEC("fexit/contpte_get_and_clear_full_ptes")
int BPF_PROG(mremap_clear_fexit, void *mm, unsigned long addr, __u64 *ptep, unsigned int nr,
	     int full, __u64 ret)
{
	clear_end(ret);
	return 0;
}

SEC("fexit/contpte_set_ptes")
int BPF_PROG(mremap_set_fexit, void *mm, unsigned long addr, __u64 *ptep, __u64 pte,
	     unsigned int nr)
{
	set_end(addr, (__u64)ptep, pte, nr);
	return 0;
}

/* The same through kprobes, for kernels whose trampolines refuse pte_t. */
SEC("kprobe/contpte_get_and_clear_full_ptes")
int BPF_KPROBE(mremap_clear_kprobe, void *mm, unsigned long addr, __u64 *ptep, unsigned int nr)
{
	clear_begin(addr, (__u64)ptep, nr);
	return 0;
}

SEC("kretprobe/contpte_get_and_clear_full_ptes")
int BPF_KRETPROBE(mremap_clear_kretprobe, __u64 ret)
{
	clear_end(ret);
	return 0;
}

/* kprobe at entry keeps the arguments; kretprobe judges. */
SEC("kprobe/contpte_set_ptes")
int BPF_KPROBE(mremap_set_kprobe, void *mm, unsigned long addr, __u64 *ptep, __u64 pte,
	       unsigned int nr)
{
	__u64 key;
	struct call_state *st = mremap_state(&key);

	if (!st)
		return 0;
	st->bc.set_addr = addr;
	st->bc.set_ptep = (__u64)ptep;
	st->bc.set_pte = pte;
	st->bc.set_nr = nr;
	return 0;
}

SEC("kretprobe/contpte_set_ptes")
int BPF_KRETPROBE(mremap_set_kretprobe)
{
	__u64 key;
	struct call_state *st = mremap_state(&key);

	if (!st || !st->bc.set_nr)
		return 0;
	set_end(st->bc.set_addr, st->bc.set_ptep, st->bc.set_pte, st->bc.set_nr);
	st->bc.set_nr = 0;
	return 0;
}
