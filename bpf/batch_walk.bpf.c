// SPDX-License-Identifier: GPL-2.0
/*
 * The batch path's derived source (PC_BSRC_WALK), for kernels that allow
 * nothing but tracepoints: at raw_syscalls:sys_enter of munmap, mprotect,
 * pkey_mprotect, madvise (DONTNEED, FREE, COLD, PAGEOUT), mlock, mlock2
 * and munlock of a tracked task, the range's PTEs are read from the page
 * tables and cut into the runs folio_pte_batch() would return
 * (include/ptecheck/batch_walk.h), each added to the context's histogram
 * "<ctx> PTEs per large-folio run (derived)".  The folio of a PTE is read
 * from its struct page through the vmemmap (bpf/folio.bpf.h), never
 * guessed from PFNs.  Not the kernel's batch: what it had to batch, seen
 * without the page-table lock before the call ran.
 *
 * Sampled with the checks (--sample N: 1 in N calls walked, per CPU).
 * Bounded: PC_BW_MAX_PAGES pages per call; the rest, PTEs of small folios
 * (which the kernel does not batch), pages under a huge PMD and entries
 * that could not be read are counted (bw_stats), never dropped silently.
 */
#include "batch.bpf.h"
#include "folio.bpf.h"
#include "ptwalk.h"

#define PC_BW_CHUNK 8 /* slots one callback of the walk steps through */

/* What the walk saw, for the loader's note (enum pc_bw_stat). */
__u64 bw_stats[PC_BW__COUNT];

struct bw_state {
	__u64 start, npages, pgd, ignored;
	__u64 tbl_idx; /* the first entry of ptes[]: its index in the table */
	__u32 ctx, tbl_ok;
	struct pc_fpb_run run;
	__u64 n[PC_BW__COUNT]; /* this call's bw_stats */
	__u64 ptes[PC_PTRS_PER_TABLE];
};

/* Per thread (a syscall tracepoint's program may be preempted: no per-CPU
   buffer); LRU: a thread's entry is reused call to call, the least recent
   thread's makes room. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(map_flags, PC_LRU_PER_CPU); /* as mremap's calls (bpf/mremap.bpf.h) */
	__uint(max_entries, 256);
	__type(key, __u32);
	__type(value, struct bw_state);
} bw_states SEC(".maps");

/* Zeroed template for new bw_states entries (too large for the stack). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bw_state);
} bw_template SEC(".maps");

static __always_inline void bw_end_run(struct bw_state *st)
{
	__u32 n = pc_fpb_close(&st->run);

	if (n)
		pc_batch_add(PC_BSRC_WALK, st->ctx, n);
}

/* Reads the entries of slot i's page table, from slot i to the range's
   end or the table's. */
static __always_inline void bw_load_table(struct bw_state *st, __u64 addr, __u64 i)
{
	__u64 pmd = 0, idx = (addr >> PC_PAGE_SHIFT) & 511, n = PC_PTRS_PER_TABLE - idx;
	int kind = pc_walk_pmd(st->pgd, addr, &pmd);

	if (n > st->npages - i)
		n = st->npages - i;
	st->tbl_ok = 0;
	if (kind == PC_WALK_NONE)
		return;
	if (kind == PC_WALK_LEAF) {
		st->n[PC_BW_HUGE] += n;
		return;
	}
	PC_BOUND(n, 1023);
	if (kind != PC_WALK_TABLE || n == 0 || n > PC_PTRS_PER_TABLE ||
	    pc_read_ptes(pc_table_phys(pmd), idx, st->ptes, n * 8)) {
		st->n[PC_BW_UNREAD] += n;
		return;
	}
	st->tbl_idx = idx;
	st->tbl_ok = 1;
}

/* Opens a run at a PTE that continues none: where its folio is large. */
static __always_inline void bw_open_run(struct bw_state *st, __u64 pfn, __u64 bits)
{
	struct pc_folio_at at = {0, 0};
	__u64 folio_pfn;

	if (pfn < (walk_phys_limit >> PC_PAGE_SHIFT))
		at = pc_folio_of_page(walk_vmemmap + pfn * walk_page_size);
	if (at.pages == 1) {
		st->n[PC_BW_SMALL]++;
		return;
	}
	folio_pfn = (at.head - walk_vmemmap) / walk_page_size;
	/* Unreadable, or split since the PTE was read: no run. */
	if (!at.pages || at.head < walk_vmemmap || folio_pfn > pfn || pfn - folio_pfn >= at.pages) {
		st->n[PC_BW_UNREAD]++;
		return;
	}
	pc_fpb_open(&st->run, pfn, bits, folio_pfn, at.pages);
}

/*
 * Slot i of the walk: its PTE stepped through the run being cut.  A global
 * function, verified once on its own: inlined, each slot of a chunk
 * multiplied the states of the one before (the chunk's callback went past
 * the verifier's million instructions on 6.18), and the callback is
 * verified more than once where the kernel checks that its states
 * converge.
 */
__noinline int pc_bw_slot(struct bw_state *st, __u64 i)
{
	__u64 addr, idx, raw, bits;
	struct pc_pte p;
	__u32 ended;
	bool open;

	if (!st || !sys_walk)
		return 0;
	addr = st->start + (i << PC_PAGE_SHIFT);
	idx = (addr >> PC_PAGE_SHIFT) & 511;
	if (i == 0 || idx == 0) {
		bw_end_run(st);
		bw_load_table(st, addr, i);
	}
	if (!st->tbl_ok)
		return 0;
	raw = st->ptes[(idx - st->tbl_idx) & 511];
	p = pc_decode_pte(raw);
	bits = raw & ~st->ignored;
	ended = pc_fpb_step(&st->run, addr, p.kind == PC_PTE_PRESENT, p.pfn, bits, &open);
	if (ended)
		pc_batch_add(PC_BSRC_WALK, st->ctx, ended);
	st->n[PC_BW_PTES] += p.kind == PC_PTE_PRESENT;
	if (open)
		bw_open_run(st, p.pfn, bits);
	return 0;
}

/* Chunk c: slots c * PC_BW_CHUNK on, one state lookup for all of them
   (one a slot was half of the walk's cost). */
static long bw_chunk(__u32 c, void *key)
{
	struct bw_state *st = bpf_map_lookup_elem(&bw_states, key);
	__u64 i = (__u64)c * PC_BW_CHUNK;

	if (!st)
		return 1;
	for (int k = 0; k < PC_BW_CHUNK; k++, i++) {
		if (i >= st->npages || i >= PC_BW_MAX_PAGES)
			return 1;
		pc_bw_slot(st, i);
	}
	return 0;
}

/* The context a walk counts in, or PC_BCTX__COUNT: not one it walks. */
static __always_inline __u32 bw_ctx(const struct bpf_raw_tracepoint_args *ctx, long nr)
{
	__u32 c;

	if (nr != PC_NR_munmap && nr != PC_NR_mprotect && nr != PC_NR_pkey_mprotect &&
	    nr != PC_NR_madvise && nr != PC_NR_mlock && nr != PC_NR_mlock2 && nr != PC_NR_munlock)
		return PC_BCTX__COUNT;
	c = pc_batch_syscall_ctx(nr, nr == PC_NR_madvise ? pc_sys_arg(ctx, 2) : 0, 0);
	if (c == PC_BCTX_MADV_COLLAPSE || c == PC_BCTX_MADV_OTHER)
		return PC_BCTX__COUNT;
	return c;
}

/* The thread's state, or NULL with its npages counted as not walked. */
static __always_inline struct bw_state *bw_state_of(__u32 *key, __u64 npages)
{
	struct bw_state *st = bpf_map_lookup_elem(&bw_states, key), *tmpl;
	__u32 zero = 0;

	if (st)
		return st;
	tmpl = bpf_map_lookup_elem(&bw_template, &zero);
	if (tmpl)
		bpf_map_update_elem(&bw_states, key, tmpl, BPF_NOEXIST);
	st = bpf_map_lookup_elem(&bw_states, key);
	if (!st)
		__sync_fetch_and_add(&bw_stats[PC_BW_UNWALKED], npages);
	return st;
}

/* Walks [addr, addr + len) of the current task for context c. */
static __always_inline void bw_walk(__u32 c, __u64 addr, __u64 len)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	__u64 start = addr & ~(PC_PAGE_SIZE - 1),
	      end = (addr + len + PC_PAGE_SIZE - 1) & ~(PC_PAGE_SIZE - 1), npages;
	__u32 key = pc_tid();
	struct bw_state *st;
	long chunks;

	if (end <= start || !pc_batch_counted())
		return;
	/* --sample: a walk costs what a check's window does (2 us for 256
	   PTEs), so the derived histograms count the sampled calls, as the
	   other histograms a walk gives. */
	if (!pc_sampled(PC_SAMPLE_WALK)) {
		__sync_fetch_and_add(&bw_stats[PC_BW_UNSAMPLED], 1);
		return;
	}
	npages = (end - start) >> PC_PAGE_SHIFT;
	st = bw_state_of(&key, npages);
	if (!st)
		return;
	st->start = start;
	st->npages = npages < PC_BW_MAX_PAGES ? npages : PC_BW_MAX_PAGES;
	st->pgd = (__u64)BPF_CORE_READ(task, mm, pgd);
	st->ctx = c;
	st->ignored = pc_fpb_ignored(pc_fpb_respects_write(c));
	st->tbl_ok = 0;
	st->run.len = 0;
	__builtin_memset(st->n, 0, sizeof(st->n));
	st->n[PC_BW_CALLS] = 1;
	st->n[PC_BW_UNWALKED] = npages - st->npages;
	chunks = (st->npages + PC_BW_CHUNK - 1) / PC_BW_CHUNK;
	bpf_loop(chunks, bw_chunk, &key, 0);
	/* The entry went (LRU) under the walk: the call's counts went with
	   it, its pages are counted as not walked. */
	st = bpf_map_lookup_elem(&bw_states, &key);
	if (!st) {
		__sync_fetch_and_add(&bw_stats[PC_BW_UNWALKED], npages);
		return;
	}
	bw_end_run(st);
	for (int k = 0; k < PC_BW__COUNT; k++)
		if (st->n[k])
			__sync_fetch_and_add(&bw_stats[k], st->n[k]);
}

/* At sys_enter, from bpf/syscalls.bpf.c: on only where the direct
   map and the vmemmap were found (sys_walk). */
__noinline int pc_walk_sys_enter(struct bpf_raw_tracepoint_args *ctx, long nr)
{
	__u32 c;

	if (!sys_walk)
		return 0;
	PC_FAULT_POINT(PC_FAULT_WALK);
	c = bw_ctx(ctx, nr);
	if (c < PC_BCTX__COUNT && pc_sys_native(ctx))
		bw_walk(c, pc_sys_arg(ctx, 0), pc_sys_arg(ctx, 1));
	return 0;
}
