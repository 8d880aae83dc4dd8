/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Architecture page-table entry decoding, shared by the BPF programs and
 * the unit tests.  Both decoders are always compiled so that tests on one
 * architecture exercise the other; the BPF side picks one with
 * pc_decode_pte() according to the target architecture of the build.
 */
#ifndef PTECHECK_PTE_H
#define PTECHECK_PTE_H

#include "types.h"

#define PC_PAGE_SHIFT	  12
#define PC_PAGE_SIZE	  (1ULL << PC_PAGE_SHIFT)
#define PC_PTRS_PER_TABLE 512
#define PC_PMD_SHIFT	  21
#define PC_PMD_SIZE	  (1ULL << PC_PMD_SHIFT)
#define PC_CONT_PTES	  16 /* arm64 contiguous PTEs with a 4 KiB granule */

/* What the invariants need to know of one PTE, independent of the arch. */
enum pc_pte_kind {
	PC_PTE_NONE = 0,    /* pte_none(): nothing mapped */
	PC_PTE_PRESENT = 1, /* pte_present(): maps a page (PROT_NONE included) */
	PC_PTE_SWAP = 2,    /* neither: swap, migration or marker entry */
};

struct pc_pte {
	__u64 raw;
	__u64 pfn; /* valid when kind == PC_PTE_PRESENT */
	__u8 kind;
	__u8 write; /* hardware or software writable */
	__u8 young; /* accessed */
	__u8 dirty; /* hardware or software dirty */
	__u8 cont;  /* arm64 contiguous hint */
	/* A uffd-wp PTE marker (include/linux/swapops.h: a swap entry of
	   type SWP_PTE_MARKER, the last of the 5 type bits, whose offset is
	   the marker bits with PTE_MARKER_UFFD_WP): what UFFDIO_WRITEPROTECT
	   leaves in an empty PTE of a file or shmem VMA.  From pagemap without
	   PFNs, also a swap entry with the uffd-wp bit (they look alike). */
	__u8 uffd_wp_marker;
	__u8 pad[2];
};

/* SWP_PTE_MARKER and PTE_MARKER_UFFD_WP; a marker's offset is its marker
   bits (PTE_MARKER_MASK: three). */
#define PC_SWP_PTE_MARKER 31
#define PC_MARKER_UFFD_WP 1
#define PC_MARKER_MASK	  7

static inline bool pc_is_uffd_wp_marker(__u64 type, __u64 offset)
{
	return type == PC_SWP_PTE_MARKER && offset <= PC_MARKER_MASK &&
	       (offset & PC_MARKER_UFFD_WP);
}

/*
 * x86-64.  _PAGE_PRESENT bit 0, _PAGE_RW bit 1, _PAGE_ACCESSED bit 5,
 * _PAGE_DIRTY bit 6, _PAGE_PSE bit 7, _PAGE_PROTNONE aliases _PAGE_GLOBAL
 * bit 8, _PAGE_SAVED_DIRTY (shadow-stack kernels) bit 58.  PROT_NONE
 * entries keep the PFN inverted (L1TF mitigation).
 */
#define PC_X86_PRESENT	   (1ULL << 0)
#define PC_X86_RW	   (1ULL << 1)
#define PC_X86_ACCESSED	   (1ULL << 5)
#define PC_X86_DIRTY	   (1ULL << 6)
#define PC_X86_PSE	   (1ULL << 7)
#define PC_X86_PROTNONE	   (1ULL << 8)
#define PC_X86_SAVED_DIRTY (1ULL << 58)
#define PC_X86_PFN_MASK	   0x000ffffffffff000ULL

static inline struct pc_pte pc_decode_pte_x86(__u64 raw)
{
	struct pc_pte p = {.raw = raw};

	if (raw == 0)
		return p;
	if (raw & (PC_X86_PRESENT | PC_X86_PROTNONE)) {
		p.kind = PC_PTE_PRESENT;
		p.pfn = (raw & PC_X86_PFN_MASK) >> PC_PAGE_SHIFT;
		if (!(raw & PC_X86_PRESENT)) /* inverted PROT_NONE pfn */
			p.pfn = (~raw & PC_X86_PFN_MASK) >> PC_PAGE_SHIFT;
		p.write = !!(raw & PC_X86_RW);
		p.young = !!(raw & PC_X86_ACCESSED);
		p.dirty = !!(raw & (PC_X86_DIRTY | PC_X86_SAVED_DIRTY));
	} else {
		p.kind = PC_PTE_SWAP;
		/* pgtable_64.h: the type in bits 59-63, the offset inverted in
		   bits 9-58; the swap PTE's own flags (soft-dirty, uffd-wp,
		   exclusive) below bit 9 do not matter. */
		p.uffd_wp_marker = pc_is_uffd_wp_marker(raw >> 59, (~raw << 5) >> 14);
	}
	return p;
}

/* An x86 PMD that maps a page table (not a huge page). */
static inline bool pc_x86_pmd_is_table(__u64 pmd)
{
	return (pmd & PC_X86_PRESENT) && !(pmd & PC_X86_PSE);
}

static inline __u64 pc_x86_table_phys(__u64 entry)
{
	return entry & PC_X86_PFN_MASK;
}

/*
 * arm64, 4 KiB granule.  Valid bit 0, AP[2] read-only bit 7, AF bit 10,
 * DBM/PTE_WRITE bit 51, CONT bit 52, software PTE_DIRTY bit 55.  Output
 * address bits 12..47 (52-bit PA layouts are not decoded).  Hardware dirty
 * is "DBM set and read-only clear"; pte_dirty() is that or the software bit.
 * The PROT_NONE marker moved between kernel versions (bit 58, 59, then nG),
 * so an invalid non-zero entry is classed as "other" (PC_PTE_SWAP): both
 * sides of every comparison are decoded alike, so this loses precision on
 * PROT_NONE ranges but can never invent a difference.
 */
#define PC_ARM64_VALID	   (1ULL << 0)
#define PC_ARM64_TABLE	   (1ULL << 1)
#define PC_ARM64_RDONLY	   (1ULL << 7)
#define PC_ARM64_AF	   (1ULL << 10)
#define PC_ARM64_DBM	   (1ULL << 51)
#define PC_ARM64_CONT	   (1ULL << 52)
#define PC_ARM64_SW_DIRTY  (1ULL << 55)
#define PC_ARM64_ADDR_MASK 0x0000fffffffff000ULL

static inline struct pc_pte pc_decode_pte_arm64(__u64 raw)
{
	struct pc_pte p = {.raw = raw};

	if (raw == 0)
		return p;
	if (raw & PC_ARM64_VALID) {
		p.kind = PC_PTE_PRESENT;
		p.pfn = (raw & PC_ARM64_ADDR_MASK) >> PC_PAGE_SHIFT;
		p.write = !!(raw & PC_ARM64_DBM);
		p.young = !!(raw & PC_ARM64_AF);
		p.dirty = !!(raw & PC_ARM64_SW_DIRTY) ||
			  ((raw & PC_ARM64_DBM) && !(raw & PC_ARM64_RDONLY));
		p.cont = !!(raw & PC_ARM64_CONT);
	} else {
		p.kind = PC_PTE_SWAP;
		/* pgtable.h (v6.10+): the type in bits 6-10, the offset from
		   bit 12; the swap PTE's own flags below bit 6.  Kernels that
		   drop markers on a move all have this layout. */
		p.uffd_wp_marker = pc_is_uffd_wp_marker((raw >> 6) & 31, raw >> 12);
	}
	return p;
}

static inline bool pc_arm64_pmd_is_table(__u64 pmd)
{
	return (pmd & PC_ARM64_VALID) && (pmd & PC_ARM64_TABLE);
}

static inline __u64 pc_arm64_table_phys(__u64 entry)
{
	return entry & PC_ARM64_ADDR_MASK;
}

/*
 * The software bits of a present PTE that mark it for userspace trackers:
 * soft-dirty (x86 _PAGE_SOFT_DIRTY, bit 11; arm64 has none) and uffd-wp
 * (x86 _PAGE_UFFD_WP, bit 10; arm64 PTE_UFFD_WP, bit 58, where the kernel
 * has HAVE_ARCH_USERFAULTFD_WP).  Meaningless for other entries.
 */
#define PC_X86_PTE_UFFD_WP    (1ULL << 10)
#define PC_X86_PTE_SOFT_DIRTY (1ULL << 11)
#define PC_ARM64_PTE_UFFD_WP  (1ULL << 58)

static inline bool pc_pte_soft_dirty_x86(__u64 raw)
{
	return raw & PC_X86_PTE_SOFT_DIRTY;
}

static inline bool pc_pte_uffd_wp_x86(__u64 raw)
{
	return raw & PC_X86_PTE_UFFD_WP;
}

static inline bool pc_pte_soft_dirty_arm64(__u64 raw)
{
	(void)raw;
	return false;
}

static inline bool pc_pte_uffd_wp_arm64(__u64 raw)
{
	return raw & PC_ARM64_PTE_UFFD_WP;
}

/* Build-time choice for the BPF objects: the target arch is a parameter. */
#if defined(__TARGET_ARCH_arm64)
#define pc_decode_pte	  pc_decode_pte_arm64
#define pc_pte_soft_dirty pc_pte_soft_dirty_arm64
#define pc_pte_uffd_wp	  pc_pte_uffd_wp_arm64
#define pc_pmd_is_table	  pc_arm64_pmd_is_table
#define pc_table_phys	  pc_arm64_table_phys
#elif defined(__TARGET_ARCH_x86)
#define pc_decode_pte	  pc_decode_pte_x86
#define pc_pte_soft_dirty pc_pte_soft_dirty_x86
#define pc_pte_uffd_wp	  pc_pte_uffd_wp_x86
#define pc_pmd_is_table	  pc_x86_pmd_is_table
#define pc_table_phys	  pc_x86_table_phys
#endif

#endif
