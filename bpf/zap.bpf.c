// SPDX-License-Identifier: GPL-2.0
/*
 * The zap path's syscall-walk tier (zap/rmap and zap/dirty
 * [kernel:syscall-walk], include/ptecheck/zap.h): at raw_syscalls:
 * sys_enter of a traced task's munmap or madvise(MADV_DONTNEED), the
 * range's PTEs are read, and for each large page-cache folio they map
 * (the page cache keeps it after the zap; an anonymous one is freed) its
 * mapcount, the PTEs of the range that map it, and whether one of them
 * is dirty while the folio is not.  At sys_exit of a call that returned
 * 0, each such folio, still the same one (head, order, mapping, index):
 *  - zap/rmap: its mapcount fell by exactly those PTEs
 *    (folio_remove_rmap_ptes by the batch's nr, pc_zap_rmap_fell);
 *  - zap/dirty: where a zapped PTE held the only dirty bit, the folio is
 *    dirty (get_and_clear_full_ptes gathers the batch's bits and
 *    zap_present_folio_ptes marks the folio: pc_zap_dirty_reached).
 *
 * A folio is judged only in ptecheck's own scenarios that neither resize
 * their files nor share them (a truncation or hole punch by a process
 * that maps nothing unmaps the folio everywhere: the filemap trunc-race
 * scenarios did, in a full run) and while every VMA mapping its file is
 * this mm's (its address_space's i_mmap: three at most, read at both
 * ends); elsewhere its verdicts are inconclusive.  A window that overlapped
 * reclaim, migration, compaction, collapse, KSM or writeback (the
 * disturbance generation) or a task whose mm others share is
 * inconclusive.  The folios past ZP_MAX_FOLIOS of a call are counted as
 * uncovered pages.
 */
#include "range_walk.bpf.h"
#include <ptecheck/events.h>
#include <ptecheck/zap.h>

#define ZP_MADV_DONTNEED	4  /* include/uapi/asm-generic/mman-common.h */
#define ZP_MADV_DONTNEED_LOCKED 24 /* likewise */
#define ZP_MAX_FOLIOS		64
/* A truncation or hole punch by a process that maps nothing unmaps the
   folio from every mapping (unmap_mapping_range, unmap_mapping_folio):
   judged only where the run rules that out and one process maps the file. */
#define ZP_ENFORCED (PC_TRACK_ENFORCE_EOF | PC_TRACK_ENFORCE_RMAP)

/* One large page-cache folio the range maps, as read at entry. */
struct zp_folio {
	__u64 head;	/* its struct page */
	__u64 pages;	/* 2^order */
	__u64 mapping;	/* folio->mapping */
	__u64 index;	/* folio->index */
	__u64 addr;	/* the first PTE of the range mapping it */
	__u64 last;	/* where its last page is mapped (a file folio: in order) */
	__s64 mapcount; /* folio_mapcount() at entry; -1: not readable here */
	__u32 ptes;	/* PTEs of the range mapping it */
	__u32 dirty;	/* one of them dirty, the folio clean */
	__u32 judged;	/* only this mm maps its file */
	__u32 pad;
};

struct zp_state {
	__u64 gen;
	__u32 active, shared;
	__u32 n, truncated;   /* the range was longer than the walk */
	__u32 enforced, pad2; /* a scenario whose files no one resizes or shares */
	__u64 mm;
	struct pc_check_counts c[2]; /* zap/rmap, zap/dirty */
	struct pc_window w;
	struct pc_pending pv;
	struct pc_range_walk rw;
	struct zp_folio f[ZP_MAX_FOLIOS];
};

/* The syscall tier's windows, and the hook tier's (nested in them). */
PC_THREAD_BIG_MAP(zp_states, struct zp_state, 128);
PC_THREAD_BIG_MAP(zp_hook_states, struct zp_state, 128);

/* Whether the hook tier judges here (trace/zap.c: attached, vmemmap). */
const volatile bool zp_hook_enabled = false;

static __always_inline bool zp_call(struct bpf_raw_tracepoint_args *ctx, long nr)
{
	__u64 advice;

	if (!pc_sys_native(ctx))
		return false;
	if (nr == PC_NR_munmap)
		return true;
	advice = pc_sys_arg(ctx, 2);
	return nr == PC_NR_madvise &&
	       (advice == ZP_MADV_DONTNEED || advice == ZP_MADV_DONTNEED_LOCKED);
}

/* The folio's total mapcount where the kernel keeps one for a large
   folio (_large_mapcount, v6.11), else -1. */
static __always_inline __s64 zp_mapcount(__u64 head)
{
	struct folio *f = (struct folio *)head;
	int v = 0;

	if (!bpf_core_field_exists(f->_large_mapcount) ||
	    bpf_probe_read_kernel(&v, sizeof(v), &f->_large_mapcount.counter))
		return -1;
	return (__s64)v + 1;
}

/* Whether mm is the only mm whose VMAs map the file of mapping: its
   i_mmap tree holds three VMAs at most (a root and its two children,
   which have none), each of mm, or none. */
static __always_inline bool zp_file_ours(__u64 mapping, __u64 mm)
{
	struct address_space *as = (struct address_space *)mapping;
	__u64 off = bpf_core_field_offset(struct vm_area_struct, shared);
	struct rb_node *root = NULL, *kids[2] = {}, *grand[2] = {};
	struct vm_area_struct *vma;

	if (bpf_probe_read_kernel(&root, sizeof(root), &as->i_mmap.rb_root.rb_node))
		return false;
	if (!root)
		return true;
	if (bpf_probe_read_kernel(&kids[0], sizeof(kids[0]), &root->rb_left) ||
	    bpf_probe_read_kernel(&kids[1], sizeof(kids[1]), &root->rb_right))
		return false;
	vma = (struct vm_area_struct *)((__u64)root - off);
	if ((__u64)BPF_CORE_READ(vma, vm_mm) != mm)
		return false;
	for (int k = 0; k < 2; k++) {
		if (!kids[k])
			continue;
		if (bpf_probe_read_kernel(&grand[0], sizeof(grand[0]), &kids[k]->rb_left) ||
		    bpf_probe_read_kernel(&grand[1], sizeof(grand[1]), &kids[k]->rb_right) ||
		    grand[0] || grand[1])
			return false;
		vma = (struct vm_area_struct *)((__u64)kids[k] - off);
		if ((__u64)BPF_CORE_READ(vma, vm_mm) != mm)
			return false;
	}
	return true;
}

/* Entry idx of st's folios, the index masked where the verifier sees it
   (an older one loses a bound the compiler proved). */
static __always_inline struct zp_folio *zp_at(struct zp_state *st, __u64 idx)
{
	PC_BOUND(idx, 63); /* ZP_MAX_FOLIOS - 1 */
	return &st->f[idx];
}

/* Slot i of the range at entry.  A global function, verified once. */
__noinline int pc_zp_slot(struct zp_state *st, __u64 i)
{
	bool folio_dirty;
	struct pc_page_words w = {};
	struct pc_folio_at at;
	struct zp_folio *f;
	struct folio *head;
	struct pc_pte p;
	__u64 addr;
	__u32 k;

	if (!st || (!sys_zap && !zp_hook_enabled) || !pc_rw_pte(&st->rw, i, &addr, &p) ||
	    p.kind != PC_PTE_PRESENT || !walk_page_size || pc_page_words(p.pfn, &w))
		return 0;
	/* Page-cache folios only: not anonymous (nor KSM), not unmapped. */
	if (!w.mapping || (w.mapping & PC_PAGE_MAPPING_ANON))
		return 0;
	at = pc_folio_of_page(walk_vmemmap + p.pfn * walk_page_size);
	if (at.pages < 2)
		return 0;
	folio_dirty = w.head_flags & (1UL << bpf_core_enum_value(enum pageflags, PG_dirty));
	/* A file folio is mapped once per VMA, in order: its PTEs in a VMA
	   are one stretch, so the newest entry is the likeliest; an older
	   one is another stretch of it (the file mapped twice in the range):
	   one count for both. */
	k = st->n;
	for (__u32 j = 1; j <= ZP_MAX_FOLIOS; j++) {
		if (j > k)
			break;
		f = zp_at(st, k - j);
		if (f->head == at.head) {
			f->ptes++;
			f->dirty |= p.dirty && !folio_dirty;
			return 0;
		}
	}
	if (k >= ZP_MAX_FOLIOS) {
		stat_add(PC_STAT_PAGES_UNCOVERED, 1);
		return 0;
	}
	f = zp_at(st, k);
	f->head = at.head;
	f->pages = at.pages;
	f->mapping = w.mapping;
	head = (struct folio *)at.head; /* not at.head inside the CO-RE read */
	f->index = BPF_CORE_READ(head, index);
	f->addr = addr;
	f->last = addr + ((at.pages - 1 - (p.pfn - (at.head - walk_vmemmap) / walk_page_size))
			  << PC_PAGE_SHIFT);
	f->mapcount = zp_mapcount(at.head);
	f->ptes = 1;
	f->dirty = p.dirty && !folio_dirty;
	f->judged = zp_file_ours(w.mapping, st->mm);
	st->n = k + 1;
	return 0;
}

PC_RW_LOOP_FN(zp_chunk, zp_states, struct zp_state, pc_zp_slot)
PC_RW_LOOP_FN(zp_hook_chunk, zp_hook_states, struct zp_state, pc_zp_slot)

/* Folio k at exit.  A global function, verified once. */
__noinline int pc_zp_judge(struct zp_state *st, __u32 k)
{
	struct pc_folio_at at;
	struct zp_folio *f;
	__u64 mapping = 0, index = 0, flags = 0;
	__s64 after;
	bool dirty;

	if (!st || (!sys_zap && !zp_hook_enabled) || k >= ZP_MAX_FOLIOS)
		return 0;
	f = zp_at(st, k);
	if (!f->judged)
		return 0;
	/* Past a walk cut short, PTEs of the folio went uncounted. */
	if (st->truncated && f->last >= st->rw.start + (st->rw.npages << PC_PAGE_SHIFT)) {
		st->c[0].not_applicable++;
		return 0;
	}
	/* Still the folio read at entry: a head of the same order in the same
	   file at the same index (not truncated, split, freed or reused). */
	at = pc_folio_of_page(f->head);
	if (at.head != f->head || at.pages != f->pages ||
	    bpf_probe_read_kernel(&mapping, sizeof(mapping), &((struct folio *)f->head)->mapping) ||
	    bpf_probe_read_kernel(&index, sizeof(index), &((struct folio *)f->head)->index) ||
	    bpf_probe_read_kernel(&flags, sizeof(flags), (void *)f->head) ||
	    mapping != f->mapping || index != f->index || !zp_file_ours(mapping, st->mm))
		return 0;
	after = zp_mapcount(f->head);
	if (f->mapcount >= 0 && after >= 0)
		pc_judge(&st->c[0], &st->pv, &st->w, PC_CHK_ZAP_RMAP,
			 pc_zap_rmap_fell(f->mapcount, after, f->ptes), f->addr, 0,
			 f->mapcount - f->ptes, after);
	if (f->dirty) {
		dirty = flags & (1UL << bpf_core_enum_value(enum pageflags, PG_dirty));
		pc_judge(&st->c[1], &st->pv, &st->w, PC_CHK_ZAP_DIRTY,
			 pc_zap_dirty_reached(true, dirty), f->addr, 0, 1, dirty);
	}
	return 0;
}

/* bpf_loop callbacks over folio k of the state under key in each map. */
static long zp_judge_cb(__u32 k, void *key)
{
	struct zp_state *st = bpf_map_lookup_elem(&zp_states, key);

	if (!st || k >= st->n)
		return 1;
	pc_zp_judge(st, k);
	return 0;
}

static long zp_hook_judge_cb(__u32 k, void *key)
{
	struct zp_state *st = bpf_map_lookup_elem(&zp_hook_states, key);

	if (!st || k >= st->n)
		return 1;
	pc_zp_judge(st, k);
	return 0;
}

/*
 * Begins a window over [start, start + len) of mm (pgd its table): the
 * state under tid in map (its template tmpl) filled by the entry walk.
 * hook: the fentry/fexit pair's map, else the syscalls'.
 */
static __always_inline void zp_begin(bool hook, __u32 *tid, __u32 track, __u64 start, __u64 len,
				     __u64 mm, __u64 pgd)
{
	struct zp_state *st = hook ? pc_big_state(&zp_hook_states, &zp_hook_states_template, tid)
				   : pc_big_state(&zp_states, &zp_states_template, tid);

	if (!st)
		return;
	st->active = 0;
	st->n = 0;
	st->enforced = ((track - 1) & ZP_ENFORCED) == ZP_ENFORCED;
	st->gen = disturb_gen();
	st->shared = pc_task_shared();
	st->mm = mm;
	st->rw.pgd = pgd;
	pc_rw_set(&st->rw, start, len);
	st->truncated = (len >> PC_PAGE_SHIFT) > st->rw.npages;
	bpf_loop((st->rw.npages + PC_RW_CHUNK - 1) / PC_RW_CHUNK, hook ? zp_hook_chunk : zp_chunk,
		 tid, 0);
	st = bpf_map_lookup_elem(hook ? (void *)&zp_hook_states : (void *)&zp_states, tid);
	if (st)
		st->active = st->n > 0;
}

/* Ends the window under tid: its folios judged at tier. */
static __always_inline void zp_end(bool hook, __u32 *tid, __u32 tier)
{
	void *map = hook ? (void *)&zp_hook_states : (void *)&zp_states;
	struct zp_state *st = bpf_map_lookup_elem(map, tid);

	if (!st || !st->active)
		return;
	st->active = 0;
	__builtin_memset(st->c, 0, sizeof(st->c));
	st->pv.events_sent = 0;
	st->w.tier = tier;
	st->w.gen = st->gen;
	st->w.flags = PC_WIN_GEN | (st->shared || !st->enforced ? PC_WIN_UNRELIABLE : 0);
	bpf_loop(ZP_MAX_FOLIOS, hook ? zp_hook_judge_cb : zp_judge_cb, tid, 0);
	st = bpf_map_lookup_elem(map, tid);
	if (!st)
		return;
	/* The reads at the end are part of the window. */
	if (!st->shared && disturb_gen() != st->gen) {
		pc_count_window_disturbed(&st->c[0]);
		pc_count_window_disturbed(&st->c[1]);
	}
	add_counts(PC_CHK_ZAP_RMAP, tier, &st->c[0]);
	add_counts(PC_CHK_ZAP_DIRTY, tier, &st->c[1]);
}

/* At sys_enter, from bpf/syscalls.bpf.c. */
__noinline int pc_zap_sys_enter(struct bpf_raw_tracepoint_args *ctx, long nr)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	__u32 tid = pc_tid(), track;
	__u64 start, len;

	if (!sys_zap || !zp_call(ctx, nr))
		return 0;
	track = target_flags();
	if (!track || !pc_sampled(PC_SAMPLE_ZAP))
		return 0;
	if (!pc_sys_range(ctx, &start, &len))
		return 0;
	zp_begin(false, &tid, track, start, len, (__u64)BPF_CORE_READ(task, mm),
		 (__u64)BPF_CORE_READ(task, mm, pgd));
	return 0;
}

/* At sys_exit, from bpf/syscalls.bpf.c: a call that failed may have
   stopped anywhere, nothing is judged then. */
__noinline int pc_zap_sys_exit(struct bpf_raw_tracepoint_args *ctx, long nr)
{
	__u32 key = pc_tid();
	struct zp_state *st;

	if (!sys_zap || !zp_call(ctx, nr))
		return 0;
	if ((long)ctx->args[1] != 0) {
		st = bpf_map_lookup_elem(&zp_states, &key);
		if (st)
			st->active = 0;
		return 0;
	}
	zp_end(false, &key, PC_TIER_SYSCALL_WALK);
	return 0;
}

/*
 * The hook tier (guests: fentry and fexit): every range of a traced
 * task's own mm that the zap walks, whatever called it: munmap,
 * MADV_DONTNEED, a mapping placed over another, and the exit's
 * exit_mmap, which no syscall's range shows.  A truncation unmapping
 * another mm's VMA runs in the truncating task: not its mm, not judged.
 * The function is unmap_page_range(tlb, vma, addr, end, details) until
 * v7.1 and __zap_vma_range, with the same arguments, in v7.2 (BTF says
 * which: trace/zap.c tries both).
 */
static __always_inline void zp_hook_begin(struct vm_area_struct *vma, __u64 addr, __u64 end)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	__u64 mm = (__u64)BPF_CORE_READ(vma, vm_mm);
	__u32 tid = pc_tid(), track;

	/* Its own mm, or the one it is leaving: exit_mm() clears current->mm
	   before the mmput() whose exit_mmap() zaps it, active_mm stays. */
	if (!zp_hook_enabled || end <= addr ||
	    (mm != (__u64)BPF_CORE_READ(task, mm) &&
	     (BPF_CORE_READ(task, mm) || mm != (__u64)BPF_CORE_READ(task, active_mm))))
		return;
	track = target_flags();
	if (!track || !pc_sampled(PC_SAMPLE_ZAP))
		return;
	zp_begin(true, &tid, track, addr, end - addr, mm, (__u64)BPF_CORE_READ(vma, vm_mm, pgd));
}

static __always_inline void zp_hook_end(void)
{
	__u32 tid = pc_tid();

	if (zp_hook_enabled)
		zp_end(true, &tid, PC_TIER_FEXIT);
}

SEC("fentry/unmap_page_range")
int BPF_PROG(zap_range_fentry, void *tlb, struct vm_area_struct *vma, unsigned long addr,
	     unsigned long end)
{
	(void)tlb;
	zp_hook_begin(vma, addr, end);
	return 0;
}

SEC("fexit/unmap_page_range")
int BPF_PROG(zap_range_fexit)
{
	zp_hook_end();
	return 0;
}

SEC("fentry/__zap_vma_range")
int BPF_PROG(zap_vrange_fentry, void *tlb, struct vm_area_struct *vma, unsigned long start,
	     unsigned long end)
{
	(void)tlb;
	zp_hook_begin(vma, start, end);
	return 0;
}

SEC("fexit/__zap_vma_range")
int BPF_PROG(zap_vrange_fexit)
{
	zp_hook_end();
	return 0;
}
