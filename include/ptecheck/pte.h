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
	__u8 pad[3];
};

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

/* Build-time choice for the BPF objects: the target arch is a parameter. */
#if defined(__TARGET_ARCH_arm64)
#define pc_decode_pte	pc_decode_pte_arm64
#define pc_pmd_is_table pc_arm64_pmd_is_table
#define pc_table_phys	pc_arm64_table_phys
#elif defined(__TARGET_ARCH_x86)
#define pc_decode_pte	pc_decode_pte_x86
#define pc_pmd_is_table pc_x86_pmd_is_table
#define pc_table_phys	pc_x86_table_phys
#endif

#endif
