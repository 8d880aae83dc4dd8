/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Readers of the /proc files that describe a process's memory: pagemap,
 * kpageflags, kpagecount, smaps, status and clear_refs.  The userspace
 * oracles judge the kernel with what these return, the workloads count
 * their folios with them.  Every function returns 0 (or a non-negative
 * value where said) or -errno; none exits.
 */
#ifndef PTECHECK_PROCMM_H
#define PTECHECK_PROCMM_H

#include <stddef.h>
#include <sys/types.h>
#include <ptecheck/types.h>
#include <ptecheck/pte.h>

/* /proc/PID/pagemap entry bits (Documentation/admin-guide/mm/pagemap.rst). */
#define PC_PM_PRESENT	 (1ULL << 63)
#define PC_PM_SWAP	 (1ULL << 62)
#define PC_PM_FILE	 (1ULL << 61) /* file page or shared anon */
#define PC_PM_UFFD_WP	 (1ULL << 57)
#define PC_PM_EXCLUSIVE	 (1ULL << 56)
#define PC_PM_SOFT_DIRTY (1ULL << 55)
#define PC_PM_PFN_MASK	 ((1ULL << 55) - 1) /* zero without CAP_SYS_ADMIN */

/*
 * Reads the pagemap entries of npages pages from addr (page aligned) of
 * process pid (0: self) into out, with one pread.
 */
int pc_pagemap_read(pid_t pid, __u64 addr, size_t npages, __u64 *out);

/*
 * One pagemap entry as the shared predicates see a PTE: kind and PFN only;
 * write/young/dirty are not in pagemap and stay 0.
 */
struct pc_pte pc_pagemap_to_pte(__u64 entry);
void pc_pagemap_to_ptes(const __u64 *entries, size_t n, struct pc_pte *out);

/*
 * True when some present entry shows a non-zero PFN.  PFN 0 is never a user
 * page, so all-zero PFNs mean the kernel hid them (no CAP_SYS_ADMIN).
 */
bool pc_pagemap_pfns_visible(const __u64 *entries, size_t n);
/* Number of present entries. */
size_t pc_pagemap_count_present(const __u64 *entries, size_t n);

/* /proc/kpageflags bits: <linux/kernel-page-flags.h>, KPF_*. */
#define PC_KPF(bit) (1ULL << (bit))
/* Exported always (fs/proc/page.c) but defined outside the uapi header. */
#define PC_KPF_MLOCKED 33

/* Mapcounts of n consecutive PFNs from pfn (root). */
int pc_kpagecount_read(__u64 pfn, size_t n, __u64 *out);
/* KPF_* flags of n consecutive PFNs from pfn, in one read (root). */
int pc_kpageflags_read(__u64 pfn, size_t n, __u64 *out);

/* The folio search gives up past this many pages (order 10). */
#define PC_FOLIO_MAX_PAGES 1024U
/* An order for a page that is not present (no folio to speak of). */
#define PC_FOLIO_ORDER_NONE 0xffffffffU

/*
 * The folio containing pfn, from KPF_COMPOUND_HEAD/TAIL: its head PFN and
 * order (log2 of its pages, 0 for a non-compound page).  -ESTALE when the
 * flags are inconsistent (the folio changed while read), -ERANGE when no
 * head lies within PC_FOLIO_MAX_PAGES.
 */
int pc_folio_of_pfn(__u64 pfn, __u64 *head, __u32 *order);
/*
 * Orders of the folios containing pfns[i] for i < n; PFN 0 (not present or
 * hidden) gives PC_FOLIO_ORDER_NONE.  Consecutive PFNs of one folio are
 * looked up once.
 */
int pc_folio_orders(const __u64 *pfns, size_t n, __u32 *orders);

/*
 * Folio sizes of the npages pages from addr, mapped and present (the caller
 * touched them), from their PFNs (pagemap) and compound head/tail flags
 * (kpageflags): hist[order] counts folios, up to max_order (larger ones
 * count there); a folio the range cuts counts the pages inside it.
 * page_size is the kernel's (sysconf()), which may differ from
 * PC_PAGE_SIZE.  0, or -errno with why set (-EPERM: no PFNs, not root).
 */
int pc_folio_census(const void *addr, size_t npages, size_t page_size, unsigned long long *hist,
		    unsigned int max_order, char *why, size_t why_len);

/* Fields of one /proc/PID/smaps entry, in kB as the file has them. */
struct pc_smaps {
	__u64 start, end; /* the VMA */
	__u64 size_kb;
	__u64 kernel_page_kb;
	__u64 rss_kb;
	__u64 pss_kb;
	__u64 shared_clean_kb;
	__u64 shared_dirty_kb;
	__u64 private_clean_kb;
	__u64 private_dirty_kb;
	__u64 referenced_kb;
	__u64 anonymous_kb;
	__u64 lazyfree_kb;
	__u64 anon_huge_kb; /* AnonHugePages: PMD-mapped only */
	__u64 shmem_pmd_kb;
	__u64 file_pmd_kb;
	__u64 swap_kb;
	__u64 locked_kb;
	int thp_eligible; /* -1 when the kernel does not print it */
	char vmflags[128];
};

/* The smaps entry of the VMA of pid (0: self) containing addr; -ENOENT if none. */
int pc_smaps_read(pid_t pid, __u64 addr, struct pc_smaps *out);

/* Clears the accessed bits and referenced flags of this process ("1"). */
int pc_clear_refs(void);

/* The RSS counters of /proc/PID/status, in kB as the file has them. */
struct pc_status_rss {
	__u64 anon_kb;	/* RssAnon */
	__u64 file_kb;	/* RssFile */
	__u64 shmem_kb; /* RssShmem */
	__u64 swap_kb;	/* VmSwap: the swap entries of its page tables */
};

/*
 * RssAnon, RssFile, RssShmem and VmSwap of pid (0: self).  Reads with one read(2)
 * into a stack buffer, so that measuring RSS allocates no memory.  -ENODATA
 * when a field is missing.
 */
int pc_status_rss_read(pid_t pid, struct pc_status_rss *out);

/*
 * mlock(2) and munlock(2) as the system calls themselves: ASan intercepts
 * mlock() and munlock() and does nothing, so a scenario judging what the
 * kernel locked would judge a call never made.  0 or -errno.
 */
int pc_mlock(const void *p, size_t len);
int pc_munlock(const void *p, size_t len);

/*
 * mlock()s every file-backed mapping of this process (its binary and
 * libraries: /proc/self/maps entries with a path), so that a measured
 * window sees no file fault of ptecheck's own: what mlockall(MCL_CURRENT)
 * gave, without locking the heap, whose size and folios follow what the
 * run has allocated so far (and would feed the mlock batch histograms a
 * different mix each run).  0, or -errno of the first failure.
 */
int pc_mlock_file_maps(void);

/*
 * Whether the pages wholly inside [p, p + len) are copied into a child
 * by fork (MADV_DOFORK / MADV_DONTFORK; no other allocation shares such a
 * page).  For a helper process that needs none of a buffer: the copy is
 * fork's batches, which the batch histograms would count (in large folios
 * or not as the allocator found them).
 */
void pc_fork_copies(const void *p, size_t len, bool copies);

/*
 * MADV_NOHUGEPAGE on every private writable anonymous mapping of this
 * process as it is now (its heap, its stack, the allocator's chunks):
 * what it faults in from here is in small folios, whatever mTHP settings
 * a run makes for its scenarios.  ptecheck's own memory then forks, locks
 * and unmaps PTE by PTE, the same in every run, instead of feeding the
 * batch histograms large folios as the allocator happened to get them.
 * 0, or -errno of the first failure.
 */
int pc_own_memory_small_folios(void);

#endif
