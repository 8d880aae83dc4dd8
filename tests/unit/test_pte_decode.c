// SPDX-License-Identifier: GPL-2.0
/*
 * The architecture PTE decoders (include/ptecheck/pte.h), on raw entries
 * composed the way the kernel composes them.  Both decoders run on every
 * host, since a build for one architecture must not hide bugs in the other.
 *
 * x86-64: none/present/swap classification (kernel-encoded swap, migration
 * and marker entries), PFN extraction with the high software and NX bits
 * set, PROT_NONE entries (PROTNONE bit 8 set, PRESENT clear) are present and
 * their inverted (L1TF) PFN is decoded back, SAVED_DIRTY (bit 58) counts as
 * dirty, RW/A/D map to write/young/dirty.
 * arm64: a valid user page, AF, hardware dirty (DBM set, RDONLY clear) versus
 * clean-writable (DBM and RDONLY set: write=1 dirty=0), software dirty bit
 * 55, the CONT bit, and an invalid non-zero entry classed as PC_PTE_SWAP.
 * PMD level: a PSE leaf is not a table on x86, a block descriptor (0b01)
 * is not a table on arm64.
 */
#include <ptecheck/pte.h>

#include "tap.h"

/* Bits pte.h does not decode, set here so that they are seen to be ignored. */
#define X86_USER     (1ULL << 2)
#define X86_SOFTW1   (1ULL << 9)
#define X86_SOFTW4   (1ULL << 57)
#define X86_NX	     (1ULL << 63)
#define X86_TABLE    (PC_X86_PRESENT | PC_X86_RW | X86_USER | PC_X86_ACCESSED | PC_X86_DIRTY)
#define ARM64_PAGE   (PC_ARM64_VALID | PC_ARM64_TABLE) /* bits[1:0] = 0b11 at level 3 */
#define ARM64_USER   (1ULL << 6)
#define ARM64_SH     (3ULL << 8) /* inner shareable */
#define ARM64_NG     (1ULL << 11)
#define ARM64_PXN    (1ULL << 53)
#define ARM64_UXN    (1ULL << 54)
#define ARM64_SWBITS (0xfULL << 55) /* 55..58: software bits incl. PTE_DIRTY */

/* x86 __swp_entry(): type in bits 59..63, inverted offset in bits 9..58. */
static __u64 x86_swp_entry(__u64 type, __u64 offset)
{
	return (~offset << 14 >> 5) | (type << 59);
}

/* arm64 __swp_entry(): type in bits 3..8, offset from bit 9. */
static __u64 arm64_swp_entry(__u64 type, __u64 offset)
{
	return (type << 3) | (offset << 9);
}

static __u64 x86_present(__u64 pfn, __u64 flags)
{
	return (pfn << PC_PAGE_SHIFT) | PC_X86_PRESENT | X86_USER | flags;
}

/* pte_modify() to PROT_NONE: PRESENT cleared, PROTNONE set, PFN inverted. */
static __u64 x86_protnone(__u64 pfn, __u64 flags)
{
	return (~(pfn << PC_PAGE_SHIFT) & PC_X86_PFN_MASK) | PC_X86_PROTNONE | X86_USER | flags;
}

static __u64 arm64_user(__u64 pfn, __u64 flags)
{
	return (pfn << PC_PAGE_SHIFT) | ARM64_PAGE | ARM64_USER | ARM64_SH | ARM64_NG | ARM64_PXN |
	       ARM64_UXN | flags;
}

static int bits_are(struct pc_pte p, int kind, int write, int young, int dirty)
{
	return p.kind == kind && p.write == write && p.young == young && p.dirty == dirty;
}

static void show(const char *what, struct pc_pte p)
{
	tap_diag("%s: raw=0x%llx kind=%u pfn=0x%llx w=%u y=%u d=%u cont=%u", what,
		 (unsigned long long)p.raw, p.kind, (unsigned long long)p.pfn, p.write, p.young,
		 p.dirty, p.cont);
}

#define CHECK_PTE(p, kind, w, y, d, ...)                                                           \
	do {                                                                                       \
		if (!tap_result(bits_are(p, kind, w, y, d), __VA_ARGS__))                          \
			show("decoded", p);                                                        \
	} while (0)

static void check_x86(void)
{
	const __u64 pfn = 0x12345, max_pfn = PC_X86_PFN_MASK >> PC_PAGE_SHIFT;
	struct pc_pte p;

	p = pc_decode_pte_x86(0);
	TAP_CHECK(p.kind == PC_PTE_NONE && !p.pfn && !p.write && !p.young && !p.dirty,
		  "x86: a zero entry is PC_PTE_NONE with nothing set");

	p = pc_decode_pte_x86(x86_present(pfn, PC_X86_RW | PC_X86_ACCESSED | PC_X86_DIRTY));
	CHECK_PTE(p, PC_PTE_PRESENT, 1, 1, 1, "x86: present RW|A|D entry: write, young, dirty");
	TAP_CHECK_EQ(p.pfn, pfn, "x86: PFN of a present entry");
	TAP_CHECK_EQ(p.cont, 0, "x86: no contiguous hint on x86");

	p = pc_decode_pte_x86(x86_present(pfn, 0));
	CHECK_PTE(p, PC_PTE_PRESENT, 0, 0, 0, "x86: present read-only old clean entry");

	p = pc_decode_pte_x86(x86_present(pfn, PC_X86_RW));
	CHECK_PTE(p, PC_PTE_PRESENT, 1, 0, 0, "x86: RW alone is writable, not young or dirty");
	p = pc_decode_pte_x86(x86_present(pfn, PC_X86_ACCESSED));
	CHECK_PTE(p, PC_PTE_PRESENT, 0, 1, 0, "x86: A alone is young only");
	p = pc_decode_pte_x86(x86_present(pfn, PC_X86_DIRTY));
	CHECK_PTE(p, PC_PTE_PRESENT, 0, 0, 1, "x86: D alone is dirty only");

	p = pc_decode_pte_x86(x86_present(max_pfn, X86_NX | X86_SOFTW1 | X86_SOFTW4 | PC_X86_RW));
	TAP_CHECK(p.kind == PC_PTE_PRESENT && p.pfn == max_pfn,
		  "x86: largest PFN decoded with NX and software bits set");
	p = pc_decode_pte_x86(x86_present(0, PC_X86_RW));
	TAP_CHECK(p.kind == PC_PTE_PRESENT && p.pfn == 0, "x86: PFN 0 is still present");

	/* Shadow-stack kernels move D to SAVED_DIRTY when write-protecting. */
	p = pc_decode_pte_x86(x86_present(pfn, PC_X86_ACCESSED | PC_X86_SAVED_DIRTY));
	CHECK_PTE(p, PC_PTE_PRESENT, 0, 1, 1,
		  "x86: SAVED_DIRTY (bit 58) without D counts as dirty");
	TAP_CHECK_EQ(p.pfn, pfn, "x86: SAVED_DIRTY does not leak into the PFN");

	p = pc_decode_pte_x86(x86_protnone(pfn, PC_X86_ACCESSED | PC_X86_DIRTY));
	CHECK_PTE(p, PC_PTE_PRESENT, 0, 1, 1,
		  "x86: PROT_NONE entry (bit 8 set, bit 0 clear) is present");
	TAP_CHECK_EQ(p.pfn, pfn, "x86: inverted PROT_NONE PFN decoded back");
	TAP_CHECK((p.raw & PC_X86_PFN_MASK) >> PC_PAGE_SHIFT != pfn,
		  "x86: the PROT_NONE PFN field really is stored inverted");
	p = pc_decode_pte_x86(x86_protnone(0, 0));
	TAP_CHECK(p.kind == PC_PTE_PRESENT && p.pfn == 0, "x86: PROT_NONE entry of PFN 0");
	p = pc_decode_pte_x86(x86_protnone(max_pfn, 0));
	TAP_CHECK(p.kind == PC_PTE_PRESENT && p.pfn == max_pfn,
		  "x86: PROT_NONE entry of the largest PFN");

	p = pc_decode_pte_x86(x86_swp_entry(1, 0x1234));
	TAP_CHECK(p.kind == PC_PTE_SWAP && (p.raw & (PC_X86_PRESENT | PC_X86_PROTNONE)) == 0,
		  "x86: swap entry (type 1) is PC_PTE_SWAP");
	TAP_CHECK(!p.write && !p.young && !p.dirty && !p.pfn,
		  "x86: no present-only bits decoded from a swap entry");
	/* _PAGE_SWP_SOFT_DIRTY and _PAGE_SWP_EXCLUSIVE reuse bits 1 and 2. */
	p = pc_decode_pte_x86(x86_swp_entry(0, 7) | PC_X86_RW | X86_USER);
	TAP_CHECK(p.kind == PC_PTE_SWAP && !p.write,
		  "x86: swap entry with soft-dirty/exclusive bits is still PC_PTE_SWAP");
	p = pc_decode_pte_x86(x86_swp_entry(29, 0x80010));
	TAP_CHECK_EQ(p.kind, PC_PTE_SWAP, "x86: migration entry (high swap type) is PC_PTE_SWAP");
	p = pc_decode_pte_x86(x86_swp_entry(31, 1));
	TAP_CHECK_EQ(p.kind, PC_PTE_SWAP, "x86: PTE marker entry is PC_PTE_SWAP");
}

static void check_arm64(void)
{
	const __u64 pfn = 0x80123, max_pfn = PC_ARM64_ADDR_MASK >> PC_PAGE_SHIFT;
	struct pc_pte p;

	p = pc_decode_pte_arm64(0);
	TAP_CHECK(p.kind == PC_PTE_NONE && !p.pfn && !p.write && !p.young && !p.dirty && !p.cont,
		  "arm64: a zero entry is PC_PTE_NONE with nothing set");

	p = pc_decode_pte_arm64(arm64_user(pfn, PC_ARM64_RDONLY | PC_ARM64_AF));
	CHECK_PTE(p, PC_PTE_PRESENT, 0, 1, 0, "arm64: valid read-only young entry");
	TAP_CHECK_EQ(p.pfn, pfn, "arm64: PFN of a valid entry");
	TAP_CHECK_EQ(p.cont, 0, "arm64: CONT clear decodes as 0");

	p = pc_decode_pte_arm64(arm64_user(pfn, PC_ARM64_RDONLY));
	CHECK_PTE(p, PC_PTE_PRESENT, 0, 0, 0, "arm64: AF clear is old");

	p = pc_decode_pte_arm64(arm64_user(pfn, PC_ARM64_AF | PC_ARM64_DBM));
	CHECK_PTE(p, PC_PTE_PRESENT, 1, 1, 1, "arm64: DBM set, RDONLY clear is hardware dirty");

	p = pc_decode_pte_arm64(arm64_user(pfn, PC_ARM64_AF | PC_ARM64_DBM | PC_ARM64_RDONLY));
	CHECK_PTE(p, PC_PTE_PRESENT, 1, 1, 0,
		  "arm64: DBM and RDONLY set is clean-writable (write=1 dirty=0)");

	/* pte_wrprotect() of a dirty page keeps dirtiness in PTE_DIRTY. */
	p = pc_decode_pte_arm64(arm64_user(pfn, PC_ARM64_AF | PC_ARM64_RDONLY | PC_ARM64_SW_DIRTY));
	CHECK_PTE(p, PC_PTE_PRESENT, 0, 1, 1, "arm64: software dirty bit 55 on a read-only entry");
	p = pc_decode_pte_arm64(
		arm64_user(pfn, PC_ARM64_DBM | PC_ARM64_RDONLY | PC_ARM64_SW_DIRTY));
	CHECK_PTE(p, PC_PTE_PRESENT, 1, 0, 1, "arm64: software dirty on a writable entry");

	p = pc_decode_pte_arm64(arm64_user(pfn, PC_ARM64_AF | PC_ARM64_DBM | PC_ARM64_CONT));
	TAP_CHECK(p.kind == PC_PTE_PRESENT && p.cont == 1 && p.pfn == pfn,
		  "arm64: CONT bit decoded, PFN unaffected");

	p = pc_decode_pte_arm64(
		arm64_user(max_pfn, PC_ARM64_AF | PC_ARM64_RDONLY | ARM64_SWBITS | PC_ARM64_CONT));
	TAP_CHECK(p.kind == PC_PTE_PRESENT && p.pfn == max_pfn,
		  "arm64: largest 48-bit PFN decoded with UXN/PXN and software bits set");

	p = pc_decode_pte_arm64(arm64_swp_entry(1, 0x1234));
	TAP_CHECK(p.kind == PC_PTE_SWAP && !p.write && !p.young && !p.dirty && !p.pfn,
		  "arm64: swap entry is PC_PTE_SWAP with nothing decoded");
	/* PROT_NONE: valid cleared, the rest kept: still only "other" here. */
	p = pc_decode_pte_arm64(arm64_user(pfn, PC_ARM64_AF | PC_ARM64_DBM) & ~PC_ARM64_VALID);
	TAP_CHECK_EQ(p.kind, PC_PTE_SWAP, "arm64: invalid non-zero entry is PC_PTE_SWAP");
}

static void check_pmds(void)
{
	const __u64 table = 0x1234567000ULL;

	TAP_CHECK(pc_x86_pmd_is_table(table | X86_TABLE), "x86 PMD: _PAGE_TABLE entry is a table");
	TAP_CHECK(!pc_x86_pmd_is_table(0), "x86 PMD: empty is not a table");
	TAP_CHECK(!pc_x86_pmd_is_table(0x40000000ULL | X86_TABLE | PC_X86_PSE),
		  "x86 PMD: PSE leaf (THP) is not a table");
	TAP_CHECK(!pc_x86_pmd_is_table((table | X86_TABLE | PC_X86_PROTNONE) & ~PC_X86_PRESENT),
		  "x86 PMD: a non-present entry is not a table");
	TAP_CHECK_EQ(pc_x86_table_phys(table | X86_TABLE | X86_NX), table,
		     "x86 PMD: table address without flags and NX");

	TAP_CHECK(pc_arm64_pmd_is_table(table | 3), "arm64 PMD: descriptor 0b11 is a table");
	TAP_CHECK(!pc_arm64_pmd_is_table(0), "arm64 PMD: empty is not a table");
	TAP_CHECK(!pc_arm64_pmd_is_table(0x40000000ULL | 1 | PC_ARM64_AF),
		  "arm64 PMD: block descriptor 0b01 is not a table");
	TAP_CHECK(!pc_arm64_pmd_is_table(table | 2), "arm64 PMD: invalid 0b10 is not a table");
	TAP_CHECK_EQ(pc_arm64_table_phys(table | 3 | (1ULL << 59)), table,
		     "arm64 PMD: table address without PXNTable");
}

/* The trackers' bits: soft-dirty (x86 only) and uffd-wp, alone. */
static void check_tracker_bits(void)
{
	__u64 x86 = (0x1234ULL << PC_PAGE_SHIFT) | PC_X86_PRESENT | PC_X86_RW | PC_X86_DIRTY;
	__u64 arm = (0x1234ULL << PC_PAGE_SHIFT) | PC_ARM64_VALID | PC_ARM64_AF | PC_ARM64_DBM;

	TAP_CHECK(!pc_pte_soft_dirty_x86(x86) && !pc_pte_uffd_wp_x86(x86),
		  "x86: a dirty writable PTE is neither soft-dirty nor uffd-wp");
	TAP_CHECK(pc_pte_soft_dirty_x86(x86 | PC_X86_PTE_SOFT_DIRTY) &&
			  !pc_pte_uffd_wp_x86(x86 | PC_X86_PTE_SOFT_DIRTY),
		  "x86: bit 11 is soft-dirty, not uffd-wp");
	TAP_CHECK(pc_pte_uffd_wp_x86(x86 | PC_X86_PTE_UFFD_WP) &&
			  !pc_pte_soft_dirty_x86(x86 | PC_X86_PTE_UFFD_WP),
		  "x86: bit 10 is uffd-wp, not soft-dirty");
	TAP_CHECK(pc_pte_uffd_wp_arm64(arm | PC_ARM64_PTE_UFFD_WP) && !pc_pte_uffd_wp_arm64(arm),
		  "arm64: bit 58 is uffd-wp");
	TAP_CHECK(!pc_pte_soft_dirty_arm64(~0ULL), "arm64: no soft-dirty bit, whatever is set");
}

int main(void)
{
	tap_plan(0);
	check_x86();
	check_arm64();
	check_pmds();
	check_tracker_bits();
	return tap_finish();
}
