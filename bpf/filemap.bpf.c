// SPDX-License-Identifier: GPL-2.0
/*
 * The filemap path (folio-based fault-around, v6.4+).  Per batch:
 *
 *   filemap_map_pages(vmf, start, end)          i_size when the fault began
 *     set_pte_range(vmf, folio, page, nr, addr) batch-bounds, ptes-set
 *       folio_add_file_rmap_ptes(folio, page, nr, vma)
 *                                                 mapcount moves by nr
 *
 * and, on every kernel, the fault-around window per call from the
 * filemap:mm_filemap_map_pages tracepoint.
 *
 * Race rules (docs/checks.md): the page-table lock is held from before
 * set_ptes() to after set_pte_range() returns, and the folio lock across
 * the rmap update, so the PTEs and the mapcount read at fexit are the
 * kernel's result except for bits hardware sets (never judged) and
 * mapcount changes of *other* mappers of the same folio.  A file may
 * change size while it faults (truncate legitimately races: a page may be
 * mapped after i_size shrank, until truncation unmaps it), so past-EOF is
 * enforced only in ptecheck's own scenarios that change no size
 * (PC_TRACK_ENFORCE_EOF), and mapcount deltas only where one process maps
 * the file (PC_TRACK_ENFORCE_RMAP); elsewhere a violation is inconclusive.
 */
#include "common.bpf.h"
#include "folio.bpf.h"
#include <ptecheck/tp_sec.h>

#define PC_TMPFS_MAGIC	  0x01021994UL /* shmem/tmpfs and memfd */
#define PC_MAX_FAULT_PTES 512

const volatile __u32 filemap_tier = PC_TIER_FEXIT; /* or PC_TIER_KPROBE */

struct fm_state {
	__u32 track_flags;
	bool in_map_pages;
	bool set_pending;
	bool rmap_seen; /* folio_add_file_rmap_ptes ran inside set_pte_range */
	bool rmap_pending;
	bool sampled;		   /* the batch is judged (--sample) */
	bool rmap_sampled;	   /* the rmap update is judged */
	__u64 isize_map_pages;	   /* i_size at fentry of filemap_map_pages */
	__u64 win_first, win_last; /* its window: file page indices, inclusive */
	__u64 isize_set;	   /* i_size at fentry of set_pte_range */
	__u64 gen;		   /* disturbance counter at set_pte_range entry */
	__u64 vmf, folio, page, addr;
	__u32 nr;
	__u32 rmap_nr;
	__u64 rmap_folio;
	__s64 rmap_before;
	__u64 rmap_gen;
	/* Per-batch verdict counters, flushed at the end of each batch. */
	struct pc_check_counts c[3]; /* bounds, ptes-set, rmap (PC_CHECKS_filemap order) */
	struct pc_pending pv;	     /* the violation to send */
	struct pc_window win;	     /* of the batch, for checks always enforced */
	__u64 first_pfn;	     /* ptes-set: PFN of the batch's first PTE */
	bool prot_write, write_fault, unreliable;
};

PC_THREAD_MAP(fm_states, struct fm_state);

/* The task's state (thread_state in common.bpf.h). */
static __always_inline struct fm_state *fm_state_get(bool create)
{
	struct fm_state fresh = {}, *st;
	__u32 track = 0;

	st = thread_state(&fm_states, &fresh, create, &track);
	if (st && create)
		st->track_flags = track;
	return st;
}

static __always_inline __u64 vma_isize(struct vm_area_struct *vma)
{
	return (__u64)BPF_CORE_READ(vma, vm_file, f_mapping, host, i_size);
}

/* Large folios carry PG_head; their order is the low byte of _flags_1. */
static __always_inline __u64 folio_pages(struct folio *folio)
{
	unsigned long flags = 0, flags1 = 0;

	if (bpf_probe_read_kernel(&flags, sizeof(flags), folio)) /* flags: first word */
		return 0;
	if (!(flags & (1UL << bpf_core_enum_value(enum pageflags, PG_head))))
		return 1;
	if (!bpf_core_field_exists(folio->_flags_1))
		return 0;
	flags1 = BPF_CORE_READ(folio, _flags_1);
	return 1ULL << (flags1 & 0xff);
}

/* The folio's total mapcount (large: _large_mapcount; small: _mapcount). */
static __always_inline __s64 folio_mapcount(struct folio *folio, bool large)
{
	if (large && bpf_core_field_exists(folio->_large_mapcount))
		return (__s64)BPF_CORE_READ(folio, _large_mapcount.counter) + 1;
	return (__s64)BPF_CORE_READ(folio, _mapcount.counter) + 1;
}

/* The window of a batch, or of an rmap update outside one.  enforced: the
   scenario rules out the legitimate race of the check judged. */
static __always_inline struct pc_window fm_window(const struct fm_state *st, bool enforced)
{
	struct pc_window w = {.gen = st->gen, .tier = filemap_tier, .flags = PC_WIN_GEN};

	if (!enforced || st->unreliable)
		w.flags |= PC_WIN_UNRELIABLE;
	return w;
}

/* One verdict of check (filemap/batch-bounds, ptes-set or rmap-count). */
static __always_inline void fm_verdict(struct fm_state *st, const struct pc_window *w, __u32 check,
				       int verdict, __u64 addr, __u64 expected, __u64 seen)
{
	pc_judge(&st->c[check - PC_CHK_FM_BOUNDS], &st->pv, w, check, verdict, addr, addr, expected,
		 seen);
}

static __always_inline void fm_flush(struct fm_state *st)
{
	/* What a window the counter saw disturbed judged proves nothing. */
	if (disturb_gen() != st->gen)
		for (int k = 0; k < 3; k++)
			pc_count_window_disturbed(&st->c[k]);
	add_counts(PC_CHK_FM_BOUNDS, filemap_tier, &st->c[0]);
	add_counts(PC_CHK_FM_PTES_SET, filemap_tier, &st->c[1]);
	add_counts(PC_CHK_FM_RMAP, filemap_tier, &st->c[2]);
	__builtin_memset(st->c, 0, sizeof(st->c));
}

/* ---- filemap_map_pages: when the fault-around window began ------------- */

static __always_inline void fm_map_pages_begin(struct vm_fault *vmf, __u64 start_pgoff,
					       __u64 end_pgoff)
{
	struct fm_state *st = fm_state_get(true);

	if (!st)
		return;
	st->in_map_pages = true;
	st->win_first = start_pgoff;
	st->win_last = end_pgoff;
	st->isize_map_pages = vma_isize(BPF_CORE_READ(vmf, vma));
}

static __always_inline void fm_map_pages_end(void)
{
	struct fm_state *st = fm_state_get(false);

	if (st)
		st->in_map_pages = false;
}

/* ---- set_pte_range: one batch ------------------------------------------- */

/*
 * The batch st holds, as the batch-bounds predicate takes it; i_size the
 * largest seen in the window (a file that grew is fine).  false when the
 * folio's size or the page's place in it cannot be read.
 */
static __always_inline bool fm_batch(const struct fm_state *st, struct vm_area_struct *vma,
				     struct folio *folio, __u64 npages, __u64 isize_now,
				     struct pc_fault_batch *b)
{
	__u64 page_size = bpf_core_type_size(struct page);
	struct super_block *sb;

	if (!npages || !page_size || st->page < st->folio)
		return false;
	b->addr = st->addr;
	b->nr = st->nr;
	b->folio_start = (st->page - st->folio) / page_size;
	b->folio_nr = npages;
	b->vm_start = BPF_CORE_READ(vma, vm_start);
	b->vm_end = BPF_CORE_READ(vma, vm_end);
	b->file_index = BPF_CORE_READ(folio, index) + b->folio_start;
	b->i_size = st->isize_set > isize_now ? st->isize_set : isize_now;
	if (st->in_map_pages && st->isize_map_pages > b->i_size)
		b->i_size = st->isize_map_pages;
	sb = BPF_CORE_READ(vma, vm_file, f_mapping, host, i_sb);
	b->eof_exempt = BPF_CORE_READ(sb, s_magic) == PC_TMPFS_MAGIC;
	return true;
}

/*
 * A batch whose bounds would have the kernel write what is not its own
 * (mapcounts past the folio, PTEs past the table) may kill the kernel
 * before the exit judges it: with crash_witness, judged at entry too and
 * printed for the console of a kernel that died (common.bpf.h).
 */
static __always_inline void fm_witness(const struct fm_state *st, struct vm_area_struct *vma,
				       struct folio *folio)
{
	struct pc_fault_batch b = {};
	struct pc_fault_evidence ev;
	__u64 mapping;
	int v;

	if (!crash_witness || !st->sampled)
		return;
	mapping = (__u64)BPF_CORE_READ(folio, mapping);
	if (!mapping || (mapping & PC_PAGE_MAPPING_ANON) ||
	    !fm_batch(st, vma, folio, folio_pages(folio), st->isize_set, &b))
		return;
	v = pc_fault_batch_bounds(b);
	if (!pc_fault_batch_fatal(v))
		return;
	ev = pc_fault_batch_evidence(b, v);
	pc_witness(PC_CHK_FM_BOUNDS, v, filemap_tier, st->addr, ev.expected, ev.seen);
}

static __always_inline void fm_set_begin(struct vm_fault *vmf, struct folio *folio, void *page,
					 __u32 nr, __u64 addr)
{
	struct fm_state *st = fm_state_get(true);

	if (!st)
		return;
	st->set_pending = true;
	st->sampled = pc_sampled(PC_SAMPLE_FM_BATCH);
	st->rmap_seen = false;
	st->vmf = (__u64)vmf;
	st->folio = (__u64)folio;
	st->page = (__u64)page;
	st->nr = nr;
	st->addr = addr;
	st->gen = disturb_gen();
	st->isize_set = vma_isize(BPF_CORE_READ(vmf, vma));
	fm_witness(st, BPF_CORE_READ(vmf, vma), folio);
}

struct fm_entries_ctx {
	__u32 tid;
	__u64 ptep;
};

static long fm_check_entry(__u32 k, void *data)
{
	struct fm_entries_ctx *ec = data;
	struct fm_state *st = bpf_map_lookup_elem(&fm_states, &ec->tid);
	__u64 raw = 0;
	struct pc_pte seen;

	if (!st)
		return 1;
	if (read_entry(ec->ptep, k, &raw))
		return 1;
	seen = pc_decode_pte(raw);
	if (k == 0)
		st->first_pfn = seen.pfn;
	fm_verdict(st, &st->win, PC_CHK_FM_PTES_SET,
		   pc_fault_entry(seen, st->first_pfn, k, st->prot_write, st->write_fault),
		   st->addr + ((__u64)k << PC_PAGE_SHIFT), st->first_pfn + k, raw);
	return 0;
}

/* The order of a folio of npages pages (a power of two, 1 .. 4096). */
static __always_inline __u32 folio_order(__u64 npages)
{
	__u32 order = 0;

	while (order < 12 && (1ULL << order) < npages)
		order++;
	return order;
}

/*
 * filemap/batch-bounds of the batch just set (file folios only: a COW copy
 * is not the file's page).  Past-EOF is enforced only where the scenario
 * changes no file size and the size stayed the same through the window.
 */
static __always_inline void fm_bounds(struct fm_state *st, struct vm_area_struct *vma,
				      struct folio *folio, __u64 npages)
{
	struct pc_fault_batch b = {};
	struct pc_fault_evidence ev;
	__u64 isize_now, cap;
	struct pc_window w;
	bool steady;
	int v;

	isize_now = vma_isize(vma);
	if (!fm_batch(st, vma, folio, npages, isize_now, &b))
		return;
	if (st->sampled) {
		v = pc_fault_batch_bounds(b);
		steady = st->isize_set == isize_now &&
			 (!st->in_map_pages || st->isize_map_pages == isize_now);
		w = fm_window(st, v != PC_V_PAST_EOF ||
					  ((st->track_flags & PC_TRACK_ENFORCE_EOF) && steady));
		ev = pc_fault_batch_evidence(b, v);
		fm_verdict(st, &w, PC_CHK_FM_BOUNDS, v, st->addr, ev.expected, ev.seen);
	}
	/* What the kernel decided given its inputs: did the batch of a large
	   folio map all it could (the gate's batching rule)?  Only where the
	   inputs are the same every run: ptecheck's scenarios that change no
	   file size (a fault racing a truncate loops for as long as it races). */
	cap = st->in_map_pages && (st->track_flags & PC_TRACK_ENFORCE_EOF)
		      ? pc_fault_batch_cap(b, st->win_first, st->win_last)
		      : 0;
	if (cap) {
		hist_add(PC_HIST_FM_LARGE_ORDER, PC_HIST_LINLOG, folio_order(npages));
		if (b.nr == cap)
			hist_add(PC_HIST_FM_FULL_ORDER, PC_HIST_LINLOG, folio_order(npages));
	}
}

static __always_inline void fm_set_end(void)
{
	struct fm_state *st = fm_state_get(false);
	struct vm_area_struct *vma;
	struct fm_entries_ctx ec;
	struct vm_fault *vmf;
	struct folio *folio;
	__u64 mapping, npages;

	if (!st || !st->set_pending)
		return;
	st->set_pending = false;
	hist_add(PC_HIST_FM_SET_PTE_RANGE_NR, PC_HIST_LINLOG, st->nr);
	/* Locals, not st->..., inside BPF_CORE_READ: our own struct has no BTF
	   in the kernel to relocate against. */
	vmf = (struct vm_fault *)st->vmf;
	vma = BPF_CORE_READ(vmf, vma);
	folio = (struct folio *)st->folio;
	mapping = (__u64)BPF_CORE_READ(folio, mapping);
	st->unreliable = mm_shared();
	st->win = fm_window(st, true);
	st->write_fault =
		BPF_CORE_READ(vmf, flags) & bpf_core_enum_value(enum fault_flag, FAULT_FLAG_WRITE);
	st->prot_write = pc_decode_pte(BPF_CORE_READ(vma, vm_page_prot.pgprot)).write;
	npages = folio_pages(folio);
	if (npages)
		hist_add(PC_HIST_FM_FOLIO_ORDER, PC_HIST_LINLOG, folio_order(npages));
	if (mapping && !(mapping & PC_PAGE_MAPPING_ANON))
		fm_bounds(st, vma, folio, npages);
	/* An unsampled batch fed its histograms: nothing more. */
	if (!st->sampled)
		return;
	/* ptes-set: the nr PTEs from vmf->pte */
	ec.tid = pc_tid();
	ec.ptep = (__u64)BPF_CORE_READ(vmf, pte);
	if (ec.ptep)
		bpf_loop(st->nr < PC_MAX_FAULT_PTES ? st->nr : PC_MAX_FAULT_PTES, fm_check_entry,
			 &ec, 0);
	/* rmap: the file rmap inside covered the same folio and nr */
	if (st->rmap_seen && st->rmap_folio != st->folio)
		fm_verdict(st, &st->win, PC_CHK_FM_RMAP, PC_V_BATCH_OUTSIDE_FOLIO, st->addr,
			   st->folio, st->rmap_folio);
	else if (st->rmap_seen)
		fm_verdict(st, &st->win, PC_CHK_FM_RMAP, pc_batch_pair(st->nr, st->rmap_nr),
			   st->addr, st->nr, st->rmap_nr);
	fm_flush(st);
}

/* ---- folio_add_file_rmap_ptes: the mapcount moves by nr ----------------- */

static __always_inline void fm_rmap_begin(struct folio *folio, __u32 nr)
{
	struct fm_state *st = fm_state_get(true);

	if (!st)
		return;
	st->rmap_pending = true;
	/* Inside a batch, the batch's window; outside, its own begins. */
	st->rmap_sampled = st->set_pending ? st->sampled : pc_sampled(PC_SAMPLE_FM_RMAP);
	st->rmap_folio = (__u64)folio;
	st->rmap_nr = nr;
	if (!st->rmap_sampled)
		return;
	st->rmap_gen = disturb_gen();
	st->rmap_before = folio_mapcount(folio, folio_pages(folio) > 1);
}

static __always_inline void fm_rmap_end(void)
{
	struct fm_state *st = fm_state_get(false);
	struct folio *folio;
	struct pc_window w;
	__s64 after;

	if (!st || !st->rmap_pending)
		return;
	st->rmap_pending = false;
	st->rmap_seen = st->set_pending;
	hist_add(PC_HIST_FM_RMAP_NR, PC_HIST_LINLOG, st->rmap_nr);
	if (!st->rmap_sampled)
		return;
	folio = (struct folio *)st->rmap_folio;
	after = folio_mapcount(folio, folio_pages(folio) > 1);
	/* Outside a batch: its own window.  Inside, the batch's began earlier
	   and covers it (the generation only grows). */
	if (!st->set_pending)
		st->gen = st->rmap_gen;
	/*
	 * Exact only when no other mapping of the folio exists at entry: then
	 * no other process can add one meanwhile (a fault needs the folio lock
	 * we hold, fork needs an existing mapping to copy) nor remove one.
	 * Found under --stress: forks of ptecheck dup and zap mappings of its
	 * own binary's folios while a scenario faults them in.
	 */
	w = fm_window(st, (st->track_flags & PC_TRACK_ENFORCE_RMAP) && st->rmap_before == 0);
	fm_verdict(st, &w, PC_CHK_FM_RMAP, pc_count_delta(st->rmap_before, after, st->rmap_nr), 0,
		   st->rmap_before + st->rmap_nr, after);
	if (!st->set_pending)
		fm_flush(st);
}

SEC("fentry/filemap_map_pages")
int BPF_PROG(filemap_map_fentry, struct vm_fault *vmf, unsigned long start_pgoff,
	     unsigned long end_pgoff)
{
	fm_map_pages_begin(vmf, start_pgoff, end_pgoff);
	return 0;
}

SEC("fexit/filemap_map_pages")
int BPF_PROG(filemap_map_fexit)
{
	fm_map_pages_end();
	return 0;
}

SEC("fentry/set_pte_range")
int BPF_PROG(filemap_set_fentry, struct vm_fault *vmf, struct folio *folio, void *page,
	     unsigned int nr, unsigned long addr)
{
	fm_set_begin(vmf, folio, page, nr, addr);
	return 0;
}

SEC("fexit/set_pte_range")
int BPF_PROG(filemap_set_fexit)
{
	fm_set_end();
	return 0;
}

SEC("fentry/folio_add_file_rmap_ptes")
int BPF_PROG(filemap_rmap_fentry, struct folio *folio, void *page, int nr)
{
	fm_rmap_begin(folio, nr);
	return 0;
}

SEC("fexit/folio_add_file_rmap_ptes")
int BPF_PROG(filemap_rmap_fexit)
{
	fm_rmap_end();
	return 0;
}

/* The same through kprobes where the trampoline is refused. */
SEC("kprobe/filemap_map_pages")
int BPF_KPROBE(filemap_map_kprobe, struct vm_fault *vmf, unsigned long start_pgoff,
	       unsigned long end_pgoff)
{
	fm_map_pages_begin(vmf, start_pgoff, end_pgoff);
	return 0;
}

SEC("kretprobe/filemap_map_pages")
int BPF_KRETPROBE(filemap_map_kretprobe)
{
	fm_map_pages_end();
	return 0;
}

SEC("kprobe/set_pte_range")
int BPF_KPROBE(filemap_set_kprobe, struct vm_fault *vmf, struct folio *folio, void *page,
	       unsigned int nr, unsigned long addr)
{
	fm_set_begin(vmf, folio, page, nr, addr);
	return 0;
}

SEC("kretprobe/set_pte_range")
int BPF_KRETPROBE(filemap_set_kretprobe)
{
	fm_set_end();
	return 0;
}

SEC("kprobe/folio_add_file_rmap_ptes")
int BPF_KPROBE(filemap_rmap_kprobe, struct folio *folio, void *page, int nr)
{
	fm_rmap_begin(folio, nr);
	return 0;
}

SEC("kretprobe/folio_add_file_rmap_ptes")
int BPF_KRETPROBE(filemap_rmap_kretprobe)
{
	fm_rmap_end();
	return 0;
}

/* Fault-around window per call (every kernel since 6.x); the tracepoint's
   arguments: (mapping, index, last_index). */
SEC(PC_TP_SEC(filemap, mm_filemap_map_pages))
int filemap_window(struct bpf_raw_tracepoint_args *ctx)
{
	PC_FAULT_POINT(PC_FAULT_FILEMAP_TP);
	if (!target_flags())
		return 0;
	hist_add(PC_HIST_FAULTAROUND_PAGES, PC_HIST_LINLOG, ctx->args[2] - ctx->args[1] + 1);
	return 0;
}

/* A thread that exits leaves no state a reused thread id could inherit. */
SEC(PC_TP_SEC(sched, sched_process_exit))
int filemap_task_exit(void *ctx)
{
	__u32 tid = pc_tid();

	bpf_map_delete_elem(&fm_states, &tid);
	return 0;
}
