// SPDX-License-Identifier: GPL-2.0
/*
 * Every predicate of include/ptecheck/ (common.h, mremap.h, filemap.h,
 * contpte.h), on crafted page-table
 * data: each must fire on the bug it exists for, name the right entry, and
 * stay silent on correct data.  PTEs are composed from the PC_X86_* and
 * PC_ARM64_* bits the way the kernel composes them and go through the same
 * decoders the BPF programs use.
 *
 * Per-PTE predicates (pc_moved_entry, pc_adbits_entry, pc_perms_entry) run
 * over a 16-PTE batch mapping one 64 KiB folio (a contpte block on arm64),
 * on both architectures: moved intact; dirty lost on the 3rd PTE; young lost
 * on the 5th; bits that appear during the move (hardware race: OK); a PFN
 * changed; a PTE lost; read-only PTEs made writable by a merged batch and
 * the reverse.  Then holes filled (invented PTEs), swap entries kept or
 * turned into something else, x86 PROT_NONE and SAVED_DIRTY, arm64 hardware
 * dirty lost.  Then pc_pmd_move_extent, pc_folio_intact, pc_batch_in_table,
 * the userspace oracles and pc_is_violation.
 */
#include <stdint.h>
#include <string.h>
#include <ptecheck/checks.h>

#include "tap.h"

#define NR 16 /* one 64 KiB folio, one arm64 contpte block */

/* Bits pte.h does not decode; set for realism. */
#define X86_USER   (1ULL << 2)
#define X86_NX	   (1ULL << 63)
#define X86_TABLE  (PC_X86_PRESENT | PC_X86_RW | X86_USER | PC_X86_ACCESSED | PC_X86_DIRTY)
#define X86_SWP_SD PC_X86_RW /* _PAGE_SWP_SOFT_DIRTY shares bit 1 */
#define ARM64_USER (PC_ARM64_VALID | PC_ARM64_TABLE | (1ULL << 6) | (3ULL << 8) | (1ULL << 11))
#define ARM64_XN   ((1ULL << 53) | (1ULL << 54))
#define ARM64_PXNT (1ULL << 59) /* PMD_TABLE_PXN */

#define FOLIO_PFN 0x80010ULL /* 16-page aligned */
#define OTHER_PFN 0x93370ULL
#define USER_ADDR 0x7f3a1c230000ULL /* 64 KiB aligned, inside a PMD */

enum arch { X86, ARM64 };
enum pred { P_MOVED, P_ADBITS, P_PERMS, P__COUNT };

static const char *const arch_name[] = {"x86", "arm64"};
static const char *const pred_name[] = {"moved", "ad-bits", "perms"};

static const char *verdict_name(int v)
{
	static const char *const names[] = {
		[PC_OK] = "OK",
		[PC_NOT_APPLICABLE] = "NOT_APPLICABLE",
		[PC_V_PTE_LOST] = "PTE_LOST",
		[PC_V_PTE_INVENTED] = "PTE_INVENTED",
		[PC_V_PFN_CHANGED] = "PFN_CHANGED",
		[PC_V_KIND_CHANGED] = "KIND_CHANGED",
		[PC_V_YOUNG_LOST] = "YOUNG_LOST",
		[PC_V_DIRTY_LOST] = "DIRTY_LOST",
		[PC_V_WRITE_GAINED] = "WRITE_GAINED",
		[PC_V_WRITE_LOST] = "WRITE_LOST",
		[PC_V_PMD_NOT_MOVED] = "PMD_NOT_MOVED",
		[PC_V_ORDER_CHANGED] = "ORDER_CHANGED",
		[PC_V_BATCH_EMPTY] = "BATCH_EMPTY",
		[PC_V_BATCH_OUTSIDE_FOLIO] = "BATCH_OUTSIDE_FOLIO",
		[PC_V_BATCH_CROSSES_PMD] = "BATCH_CROSSES_PMD",
		[PC_V_DATA_LOST] = "DATA_LOST",
		[PC_V_REFERENCED_SHORT] = "REFERENCED_SHORT",
		[PC_V_COW_BROKEN] = "COW_BROKEN",
		[PC_V_BATCH_NR_MISMATCH] = "BATCH_NR_MISMATCH",
		[PC_V_OUTSIDE_VMA] = "OUTSIDE_VMA",
		[PC_V_PAST_EOF] = "PAST_EOF",
		[PC_V_MAPCOUNT] = "MAPCOUNT",
		[PC_V_RSS] = "RSS",
		[PC_V_DATA_MISMATCH] = "DATA_MISMATCH",
		[PC_V_PARTIAL_FOLD] = "PARTIAL_FOLD",
		[PC_V_FOLD_MISMATCH] = "FOLD_MISMATCH",
		[PC_V_YOUNG_UNREPORTED] = "YOUNG_UNREPORTED",
	};

	if (v < 0 || v >= (int)(sizeof(names) / sizeof(names[0])) || !names[v])
		return "?";
	return names[v];
}

/* Reports the verdict by name when it is not the one expected. */
#define CHECK_VERDICT(got, want, ...)                                                              \
	do {                                                                                       \
		int got_ = (got), want_ = (want);                                                  \
		if (!tap_result(got_ == want_, __VA_ARGS__))                                       \
			tap_diag("%s:%d: %s is %s, expected %s", __FILE__, __LINE__, #got,         \
				 verdict_name(got_), verdict_name(want_));                         \
	} while (0)

/*
 * A user PTE as the kernel writes it.  arm64 keeps "writable" in DBM and
 * "hardware dirty" as RDONLY clear; a dirty read-only page uses PTE_DIRTY.
 */
static __u64 mkpte(enum arch a, __u64 pfn, int write, int young, int dirty)
{
	__u64 raw = pfn << PC_PAGE_SHIFT;

	if (a == X86) {
		raw |= PC_X86_PRESENT | X86_USER | X86_NX;
		raw |= (write ? PC_X86_RW : 0) | (young ? PC_X86_ACCESSED : 0);
		raw |= dirty ? PC_X86_DIRTY : 0;
		return raw;
	}
	raw |= ARM64_USER | ARM64_XN | (young ? PC_ARM64_AF : 0);
	if (write)
		raw |= PC_ARM64_DBM | (dirty ? 0 : PC_ARM64_RDONLY);
	else
		raw |= PC_ARM64_RDONLY | (dirty ? PC_ARM64_SW_DIRTY : 0);
	return raw;
}

/* A folio mapped by NR PTEs; arm64 maps it as one contpte block. */
static void mkfolio(enum arch a, __u64 *raw, int write, int young, int dirty)
{
	for (int i = 0; i < NR; i++)
		raw[i] = mkpte(a, FOLIO_PFN + i, write, young, dirty) |
			 (a == ARM64 ? PC_ARM64_CONT : 0);
}

static struct pc_pte decode(enum arch a, __u64 raw)
{
	return a == X86 ? pc_decode_pte_x86(raw) : pc_decode_pte_arm64(raw);
}

static int apply(enum pred p, struct pc_pte o, struct pc_pte n)
{
	switch (p) {
	case P_MOVED:
		return pc_moved_entry(o, n);
	case P_ADBITS:
		return pc_adbits_entry(o, n);
	default:
		return pc_perms_entry(o, n);
	}
}

/* Expected verdicts per predicate and slot; "all" unless listed. */
struct expect {
	int all[P__COUNT];
	int v[P__COUNT][NR];
	bool set[P__COUNT][NR];
};

static void expect_all(struct expect *e, int moved, int adbits, int perms)
{
	memset(e, 0, sizeof(*e));
	e->all[P_MOVED] = moved;
	e->all[P_ADBITS] = adbits;
	e->all[P_PERMS] = perms;
}

static void expect_at(struct expect *e, int slot, int moved, int adbits, int perms)
{
	const int v[P__COUNT] = {moved, adbits, perms};

	for (int p = 0; p < P__COUNT; p++) {
		e->v[p][slot] = v[p];
		e->set[p][slot] = true;
	}
}

/* "PTE 3 DIRTY_LOST", "PTEs 9-16 WRITE_GAINED", ... or "all silent". */
static void describe(const int *want, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = 0;
	for (int i = 0, j; i < NR; i = j) {
		for (j = i + 1; j < NR && want[j] == want[i]; j++)
			;
		if (want[i] == PC_OK || off >= len)
			continue;
		if (j - i == 1)
			off += snprintf(buf + off, len - off, "%sPTE %d %s", off ? ", " : "", i + 1,
					verdict_name(want[i]));
		else
			off += snprintf(buf + off, len - off, "%sPTEs %d-%d %s", off ? ", " : "",
					i + 1, j, verdict_name(want[i]));
	}
	if (!off)
		snprintf(buf, len, "all %d silent", NR);
	else if (off < len)
		snprintf(buf + off, len - off, ", rest OK");
}

/*
 * One TAP line per predicate: every slot of old -> new must give exactly
 * the expected verdict, so a predicate is seen to fire on the broken entry
 * only and to stay silent everywhere else.
 */
static void check_slots(enum arch a, const char *what, const __u64 *old, const __u64 *new,
			const struct expect *e)
{
	for (int p = 0; p < P__COUNT; p++) {
		int want[NR], got[NR], bad = 0, first = -1;
		char desc[160];

		for (int i = 0; i < NR; i++) {
			want[i] = e->set[p][i] ? e->v[p][i] : e->all[p];
			got[i] = apply(p, decode(a, old[i]), decode(a, new[i]));
			if (got[i] != want[i] && bad++ == 0)
				first = i;
		}
		describe(want, desc, sizeof(desc));
		if (!tap_result(bad == 0, "%s %s, %s: %s", arch_name[a], pred_name[p], what, desc))
			tap_diag("%d PTE(s) wrong, first PTE %d: %s, expected %s", bad, first + 1,
				 verdict_name(got[first]), verdict_name(want[first]));
	}
}

static void check_batch_moves(enum arch a)
{
	__u64 old[NR], new[NR];
	struct expect e;

	/* A freshly written anonymous folio: writable, young, dirty. */
	mkfolio(a, old, 1, 1, 1);
	memcpy(new, old, sizeof(old));
	expect_all(&e, PC_OK, PC_OK, PC_OK);
	check_slots(a, "16-PTE folio moved intact", old, new, &e);

	memcpy(new, old, sizeof(old));
	new[2] = mkpte(a, FOLIO_PFN + 2, 1, 1, 0) | (a == ARM64 ? PC_ARM64_CONT : 0);
	expect_all(&e, PC_OK, PC_OK, PC_OK);
	expect_at(&e, 2, PC_OK, PC_V_DIRTY_LOST, PC_OK);
	check_slots(a, "dirty lost on the 3rd PTE", old, new, &e);

	memcpy(new, old, sizeof(old));
	new[4] &= a == X86 ? ~PC_X86_ACCESSED : ~PC_ARM64_AF;
	expect_all(&e, PC_OK, PC_OK, PC_OK);
	expect_at(&e, 4, PC_OK, PC_V_YOUNG_LOST, PC_OK);
	check_slots(a, "young lost on the 5th PTE", old, new, &e);

	/* Both lost: one verdict per entry, dirty first (it loses data). */
	memcpy(new, old, sizeof(old));
	new[9] = mkpte(a, FOLIO_PFN + 9, 1, 0, 0) | (a == ARM64 ? PC_ARM64_CONT : 0);
	expect_all(&e, PC_OK, PC_OK, PC_OK);
	expect_at(&e, 9, PC_OK, PC_V_DIRTY_LOST, PC_OK);
	check_slots(a, "young and dirty lost on the 10th PTE", old, new, &e);

	memcpy(new, old, sizeof(old));
	new[7] = mkpte(a, OTHER_PFN + 7, 1, 1, 1) | (a == ARM64 ? PC_ARM64_CONT : 0);
	expect_all(&e, PC_OK, PC_OK, PC_OK);
	expect_at(&e, 7, PC_V_PFN_CHANGED, PC_NOT_APPLICABLE, PC_NOT_APPLICABLE);
	check_slots(a, "8th PTE maps another page", old, new, &e);

	memcpy(new, old, sizeof(old));
	new[15] = 0;
	expect_all(&e, PC_OK, PC_OK, PC_OK);
	expect_at(&e, 15, PC_V_PTE_LOST, PC_NOT_APPLICABLE, PC_NOT_APPLICABLE);
	check_slots(a, "last PTE of the batch not moved", old, new, &e);

	/* Race rule: hardware may set A/D between the two snapshots. */
	mkfolio(a, old, 1, 0, 0);
	for (int i = 0; i < NR; i++)
		new[i] = mkpte(a, FOLIO_PFN + i, 1, i % 2, i % 3 == 0) |
			 (a == ARM64 ? PC_ARM64_CONT : 0);
	expect_all(&e, PC_OK, PC_OK, PC_OK);
	check_slots(a, "young/dirty appearing during the move (0 -> 1)", old, new, &e);

	/*
	 * mprotect(PROT_READ) on the second half, then a batch that merged
	 * both halves and wrote the first PTE's permission to all 16.
	 */
	mkfolio(a, old, 1, 1, 1);
	for (int i = NR / 2; i < NR; i++)
		old[i] = mkpte(a, FOLIO_PFN + i, 0, 1, 1) | (a == ARM64 ? PC_ARM64_CONT : 0);
	mkfolio(a, new, 1, 1, 1);
	expect_all(&e, PC_OK, PC_OK, PC_OK);
	for (int i = NR / 2; i < NR; i++)
		expect_at(&e, i, PC_OK, PC_OK, PC_V_WRITE_GAINED);
	check_slots(a, "read-only half made writable by a merged batch", old, new, &e);

	mkfolio(a, new, 0, 1, 1);
	expect_all(&e, PC_OK, PC_OK, PC_OK);
	for (int i = 0; i < NR / 2; i++)
		expect_at(&e, i, PC_OK, PC_OK, PC_V_WRITE_LOST);
	check_slots(a, "writable half made read-only by a merged batch", old, new, &e);

	memcpy(new, old, sizeof(old));
	expect_all(&e, PC_OK, PC_OK, PC_OK);
	check_slots(a, "mixed-permission range moved intact", old, new, &e);
}

/* Sparse ranges: holes and swap entries among present PTEs. */
static void check_sparse_moves(enum arch a)
{
	__u64 old[NR], new[NR], swp;
	struct expect e;

	swp = a == X86 ? (~0x4242ULL << 14 >> 5) | (1ULL << 59) /* __swp_entry(1, 0x4242) */
		       : (1ULL << 3) | (0x4242ULL << 9);
	for (int i = 0; i < NR; i++)
		old[i] = mkpte(a, FOLIO_PFN + i, 1, 1, i & 1);
	for (int i = 4; i < 8; i++)
		old[i] = 0;
	old[12] = swp;
	memcpy(new, old, sizeof(old));
	expect_all(&e, PC_OK, PC_OK, PC_OK);
	for (int i = 4; i < 8; i++)
		expect_at(&e, i, PC_OK, PC_NOT_APPLICABLE, PC_NOT_APPLICABLE);
	expect_at(&e, 12, PC_OK, PC_NOT_APPLICABLE, PC_NOT_APPLICABLE);
	check_slots(a, "range with a hole and a swap entry moved intact", old, new, &e);

	for (int i = 4; i < 8; i++)
		new[i] = mkpte(a, OTHER_PFN + i, 1, 1, 0);
	for (int i = 4; i < 8; i++)
		expect_at(&e, i, PC_V_PTE_INVENTED, PC_NOT_APPLICABLE, PC_NOT_APPLICABLE);
	check_slots(a, "empty slots mapped after the move", old, new, &e);

	/* move_soft_dirty_pte() may mark a swap entry: still the same kind. */
	memcpy(new, old, sizeof(old));
	if (a == X86)
		new[12] |= X86_SWP_SD;
	expect_all(&e, PC_OK, PC_OK, PC_OK);
	for (int i = 4; i < 8; i++)
		expect_at(&e, i, PC_OK, PC_NOT_APPLICABLE, PC_NOT_APPLICABLE);
	expect_at(&e, 12, PC_OK, PC_NOT_APPLICABLE, PC_NOT_APPLICABLE);
	check_slots(a, a == X86 ? "swap entry kept, soft-dirty set by the move" : "swap entry kept",
		    old, new, &e);

	new[12] = 0;
	expect_at(&e, 12, PC_V_KIND_CHANGED, PC_NOT_APPLICABLE, PC_NOT_APPLICABLE);
	check_slots(a, "swap entry dropped", old, new, &e);

	new[12] = mkpte(a, OTHER_PFN, 0, 1, 0);
	check_slots(a, "swap entry turned into a present PTE", old, new, &e);

	memcpy(new, old, sizeof(old));
	new[1] = swp;
	expect_at(&e, 12, PC_OK, PC_NOT_APPLICABLE, PC_NOT_APPLICABLE);
	expect_at(&e, 1, PC_V_PTE_LOST, PC_NOT_APPLICABLE, PC_NOT_APPLICABLE);
	check_slots(a, "present PTE turned into a swap entry", old, new, &e);
}

static void check_x86_specials(void)
{
	const __u64 pfn = FOLIO_PFN + 3;
	/* pte_modify() to PROT_NONE: PRESENT clear, PROTNONE set, PFN inverted. */
	const __u64 protnone = (~(pfn << PC_PAGE_SHIFT) & PC_X86_PFN_MASK) | PC_X86_PROTNONE |
			       X86_USER | PC_X86_ACCESSED | PC_X86_DIRTY;
	const __u64 protnone_other = (~(OTHER_PFN << PC_PAGE_SHIFT) & PC_X86_PFN_MASK) |
				     PC_X86_PROTNONE | X86_USER | PC_X86_ACCESSED | PC_X86_DIRTY;
	struct pc_pte o = pc_decode_pte_x86(protnone);
	/* Write-protected dirty page on a shadow-stack kernel: D moved to bit 58. */
	const __u64 ro_saved = mkpte(X86, pfn, 0, 1, 0) | PC_X86_SAVED_DIRTY;

	CHECK_VERDICT(pc_moved_entry(o, pc_decode_pte_x86(protnone)), PC_OK,
		      "x86 moved: PROT_NONE PTE moved intact");
	CHECK_VERDICT(pc_adbits_entry(o, pc_decode_pte_x86(protnone)), PC_OK,
		      "x86 ad-bits: PROT_NONE PTE moved intact");
	CHECK_VERDICT(pc_perms_entry(o, pc_decode_pte_x86(protnone)), PC_OK,
		      "x86 perms: PROT_NONE PTE moved intact");
	CHECK_VERDICT(pc_moved_entry(o, pc_decode_pte_x86(protnone_other)), PC_V_PFN_CHANGED,
		      "x86 moved: PROT_NONE PTE of another page: PFN_CHANGED (inverted PFNs)");
	CHECK_VERDICT(pc_adbits_entry(o, pc_decode_pte_x86(protnone & ~PC_X86_DIRTY)),
		      PC_V_DIRTY_LOST, "x86 ad-bits: PROT_NONE PTE lost D: DIRTY_LOST");

	o = pc_decode_pte_x86(ro_saved);
	CHECK_VERDICT(pc_adbits_entry(o, pc_decode_pte_x86(ro_saved)), PC_OK,
		      "x86 ad-bits: SAVED_DIRTY kept: silent");
	CHECK_VERDICT(pc_adbits_entry(o, pc_decode_pte_x86(ro_saved & ~PC_X86_SAVED_DIRTY)),
		      PC_V_DIRTY_LOST, "x86 ad-bits: SAVED_DIRTY dropped: DIRTY_LOST");
	CHECK_VERDICT(pc_adbits_entry(o, pc_decode_pte_x86(mkpte(X86, pfn, 0, 1, 1))), PC_OK,
		      "x86 ad-bits: SAVED_DIRTY turned into D: still dirty, silent");
	CHECK_VERDICT(pc_perms_entry(o, pc_decode_pte_x86(mkpte(X86, pfn, 1, 1, 1))),
		      PC_V_WRITE_GAINED, "x86 perms: SAVED_DIRTY entry made RW: WRITE_GAINED");
}

static void check_arm64_specials(void)
{
	const __u64 pfn = FOLIO_PFN + 5;
	const __u64 hw_dirty = mkpte(ARM64, pfn, 1, 1, 1) | PC_ARM64_CONT;
	const __u64 clean_w = mkpte(ARM64, pfn, 1, 1, 0) | PC_ARM64_CONT;
	struct pc_pte o = pc_decode_pte_arm64(hw_dirty);

	/* Rebuilding the PTE from DBM alone sets RDONLY again: dirt gone. */
	CHECK_VERDICT(pc_adbits_entry(o, pc_decode_pte_arm64(hw_dirty | PC_ARM64_RDONLY)),
		      PC_V_DIRTY_LOST, "arm64 ad-bits: hardware dirty lost to RDONLY: DIRTY_LOST");
	CHECK_VERDICT(pc_adbits_entry(o, pc_decode_pte_arm64(clean_w | PC_ARM64_SW_DIRTY)), PC_OK,
		      "arm64 ad-bits: hardware dirty kept as PTE_DIRTY: silent");
	CHECK_VERDICT(pc_perms_entry(o, pc_decode_pte_arm64(hw_dirty & ~PC_ARM64_CONT)), PC_OK,
		      "arm64 perms: contpte block unfolded on the way: silent");
	o = pc_decode_pte_arm64(clean_w);
	CHECK_VERDICT(pc_adbits_entry(o, pc_decode_pte_arm64(hw_dirty)), PC_OK,
		      "arm64 ad-bits: clean-writable dirtied by hardware meanwhile: silent");
	CHECK_VERDICT(pc_perms_entry(o, pc_decode_pte_arm64(clean_w & ~PC_ARM64_DBM)),
		      PC_V_WRITE_LOST, "arm64 perms: DBM dropped: WRITE_LOST");
}

static struct pc_pmd_extent x86_extent(__u64 old_entry, __u64 new_entry, __u64 new_exit,
				       bool aligned)
{
	return (struct pc_pmd_extent){
		.old_pmd_entry = old_entry,
		.new_pmd_entry = new_entry,
		.new_pmd_exit = new_exit,
		.old_table = pc_x86_table_phys(old_entry),
		.new_table_exit = pc_x86_table_phys(new_exit),
		.old_is_table = pc_x86_pmd_is_table(old_entry),
		.new_is_table_exit = pc_x86_pmd_is_table(new_exit),
		.aligned_whole = aligned,
	};
}

static void check_pmd_move(void)
{
	const __u64 t = 0x1234567000ULL | X86_TABLE, t2 = 0x2345678000ULL | X86_TABLE;
	const __u64 thp = 0x40000000ULL | X86_TABLE | PC_X86_PSE;
	const __u64 a64 = 0x812345000ULL | 3 | ARM64_PXNT;
	struct pc_pmd_extent e;

	CHECK_VERDICT(pc_pmd_move_extent(x86_extent(t, 0, t, true)), PC_OK,
		      "pmd-move: page table moved whole (new PMD = old table): silent");
	CHECK_VERDICT(pc_pmd_move_extent(x86_extent(t, 0, t2, true)), PC_V_PMD_NOT_MOVED,
		      "pmd-move: moved PTE by PTE into a new table: PMD_NOT_MOVED");
	CHECK_VERDICT(pc_pmd_move_extent(x86_extent(t, 0, 0, true)), PC_V_PMD_NOT_MOVED,
		      "pmd-move: new PMD still empty after the move: PMD_NOT_MOVED");
	CHECK_VERDICT(pc_pmd_move_extent(x86_extent(t, 0, t | PC_X86_PSE, true)),
		      PC_V_PMD_NOT_MOVED,
		      "pmd-move: new PMD is a leaf after the move: PMD_NOT_MOVED");
	CHECK_VERDICT(pc_pmd_move_extent(x86_extent(t, 0, t2, false)), PC_NOT_APPLICABLE,
		      "pmd-move: extent not PMD-aligned and whole: NOT_APPLICABLE");
	CHECK_VERDICT(pc_pmd_move_extent(x86_extent(thp, 0, thp, true)), PC_NOT_APPLICABLE,
		      "pmd-move: old PMD maps a THP, not a table: NOT_APPLICABLE");
	CHECK_VERDICT(pc_pmd_move_extent(x86_extent(0, 0, 0, true)), PC_NOT_APPLICABLE,
		      "pmd-move: old PMD empty: NOT_APPLICABLE");
	CHECK_VERDICT(pc_pmd_move_extent(x86_extent(t, t2, t2, true)), PC_NOT_APPLICABLE,
		      "pmd-move: new PMD busy at entry: NOT_APPLICABLE");

	e = (struct pc_pmd_extent){.old_pmd_entry = a64,
				   .new_pmd_exit = a64,
				   .old_table = pc_arm64_table_phys(a64),
				   .new_table_exit = pc_arm64_table_phys(a64),
				   .old_is_table = pc_arm64_pmd_is_table(a64),
				   .new_is_table_exit = pc_arm64_pmd_is_table(a64),
				   .aligned_whole = true};
	CHECK_VERDICT(pc_pmd_move_extent(e), PC_OK, "pmd-move: arm64 table moved whole: silent");
	e.new_pmd_exit = 0x912345000ULL | 3 | ARM64_PXNT;
	e.new_table_exit = pc_arm64_table_phys(e.new_pmd_exit);
	CHECK_VERDICT(pc_pmd_move_extent(e), PC_V_PMD_NOT_MOVED,
		      "pmd-move: arm64 moved into a new table: PMD_NOT_MOVED");
	e.old_pmd_entry = 0x40000000ULL | 1 | PC_ARM64_AF;
	e.old_is_table = pc_arm64_pmd_is_table(e.old_pmd_entry);
	CHECK_VERDICT(pc_pmd_move_extent(e), PC_NOT_APPLICABLE,
		      "pmd-move: arm64 block descriptor, not a table: NOT_APPLICABLE");

	/*
	 * MGLRU aging clears the accessed bit of table PMDs
	 * (pmdp_test_and_clear_young), and move_normal_pmd() writes the new
	 * PMD with pmd_populate(), which sets _PAGE_TABLE afresh: the same
	 * table, a different raw value.
	 */
	CHECK_VERDICT(pc_pmd_move_extent(x86_extent(t & ~PC_X86_ACCESSED, 0, t, true)), PC_OK,
		      "pmd-move: table moved whole after MGLRU cleared its accessed bit: silent");
}

static void check_folio_intact(void)
{
	CHECK_VERDICT(pc_folio_intact(4, 4), PC_OK, "folio-intact: order 4 -> 4: silent");
	CHECK_VERDICT(pc_folio_intact(9, 9), PC_OK, "folio-intact: order 9 -> 9: silent");
	CHECK_VERDICT(pc_folio_intact(0, 0), PC_OK, "folio-intact: small folio stays small");
	CHECK_VERDICT(pc_folio_intact(4, 0), PC_V_ORDER_CHANGED,
		      "folio-intact: order 4 split to 0: ORDER_CHANGED");
	CHECK_VERDICT(pc_folio_intact(0, 4), PC_V_ORDER_CHANGED,
		      "folio-intact: order 0 merged to 4: ORDER_CHANGED");
}

/* The page-table bound of a batch (mremap/batch and filemap/batch-bounds). */
static void check_batch(void)
{
	/* A 2 MiB folio mapped 1 MiB off PMD alignment, as after an mremap. */
	const __u64 pmd_end = 0x7f3a1c400000ULL, big_addr = pmd_end - (1ULL << 20);

	CHECK_VERDICT(pc_batch_in_table(USER_ADDR, 16), PC_OK,
		      "batch: 16 PTEs of a 16-page folio: silent");
	CHECK_VERDICT(pc_batch_in_table(USER_ADDR + 15 * PC_PAGE_SIZE, 1), PC_OK,
		      "batch: 1 PTE, the folio's last page: silent");
	CHECK_VERDICT(pc_batch_in_table(USER_ADDR, 0), PC_V_BATCH_EMPTY,
		      "batch: nr = 0: BATCH_EMPTY");
	CHECK_VERDICT(pc_batch_in_table(pmd_end - 8 * PC_PAGE_SIZE, 16), PC_V_BATCH_CROSSES_PMD,
		      "batch: 16 PTEs across a 2 MiB boundary: CROSSES_PMD");
	CHECK_VERDICT(pc_batch_in_table(pmd_end - 16 * PC_PAGE_SIZE, 16), PC_OK,
		      "batch: 16 PTEs ending exactly at a 2 MiB boundary: silent");
	CHECK_VERDICT(pc_batch_in_table(pmd_end, 16), PC_OK,
		      "batch: 16 PTEs starting exactly at a 2 MiB boundary: silent");
	CHECK_VERDICT(pc_batch_in_table(big_addr, 256), PC_OK,
		      "batch: first half of a misaligned 2 MiB folio, up to the boundary: silent");
	CHECK_VERDICT(pc_batch_in_table(big_addr, 257), PC_V_BATCH_CROSSES_PMD,
		      "batch: one PTE more than fits the table: CROSSES_PMD");
	CHECK_VERDICT(pc_batch_in_table(pmd_end, 512), PC_OK,
		      "batch: a whole aligned 2 MiB folio in one table: silent");
}

/* Gathers the NR entries of raw[] as the BPF side does at fentry. */
static struct pc_gather gather(enum arch a, const __u64 *raw, int n)
{
	struct pc_gather g = {0};

	for (int i = 0; i < n; i++)
		pc_gather_add(&g, decode(a, raw[i]));
	return g;
}

/*
 * contpte_get_and_clear_full_ptes (and contpte_ptep_get) return one PTE
 * for a block whose entries hardware marks one by one.  Every pattern of
 * the early-exit gather loop: a bit only in entry k, for each k; young in
 * j and dirty in k, j before and after k; all clean; all young and dirty.
 * The correct answer is silent; the answer of a loop that stopped early
 * (the first entry's bits only) must fire.
 */
static void check_gather(enum arch a)
{
	__u64 raw[NR];
	struct pc_gather g;
	const char *an = arch_name[a];

	for (int k = 0; k < NR; k++) {
		mkfolio(a, raw, 1, 0, 0);
		raw[k] = mkpte(a, FOLIO_PFN + k, 1, 0, 1) | (a == ARM64 ? PC_ARM64_CONT : 0);
		g = gather(a, raw, NR);
		CHECK_VERDICT(pc_gather_covers(&g, decode(a, mkpte(a, FOLIO_PFN, 1, 0, 1))), PC_OK,
			      "%s gather: dirty only in entry %d, returned dirty: silent", an, k);
		if (k > 0)
			CHECK_VERDICT(
				pc_gather_covers(&g, decode(a, mkpte(a, FOLIO_PFN, 1, 0, 0))),
				PC_V_DIRTY_LOST,
				"%s gather: dirty only in entry %d, early exit returned clean: "
				"DIRTY_LOST",
				an, k);
		mkfolio(a, raw, 1, 0, 0);
		raw[k] = mkpte(a, FOLIO_PFN + k, 1, 1, 0) | (a == ARM64 ? PC_ARM64_CONT : 0);
		g = gather(a, raw, NR);
		CHECK_VERDICT(pc_gather_covers(&g, decode(a, mkpte(a, FOLIO_PFN, 1, 1, 0))), PC_OK,
			      "%s gather: young only in entry %d, returned young: silent", an, k);
		if (k > 0)
			CHECK_VERDICT(pc_gather_covers(&g, decode(a, mkpte(a, FOLIO_PFN, 1, 0, 0))),
				      PC_V_YOUNG_LOST,
				      "%s gather: young only in entry %d, early exit returned old: "
				      "YOUNG_LOST",
				      an, k);
	}
	/* Young in j, dirty in k: a loop that exits at the first young misses k > j. */
	for (int j = 0; j < NR; j += 5) {
		for (int k = 0; k < NR; k += 3) {
			mkfolio(a, raw, 1, 0, 0);
			raw[j] = mkpte(a, FOLIO_PFN + j, 1, 1, 0);
			raw[k] = mkpte(a, FOLIO_PFN + k, 1, j == k, 1);
			g = gather(a, raw, NR);
			CHECK_VERDICT(pc_gather_covers(&g, decode(a, mkpte(a, FOLIO_PFN, 1, 1, 1))),
				      PC_OK, "%s gather: young in %d, dirty in %d, both returned",
				      an, j, k);
			CHECK_VERDICT(pc_gather_covers(&g, decode(a, mkpte(a, FOLIO_PFN, 1, 1, 0))),
				      PC_V_DIRTY_LOST,
				      "%s gather: young in %d, dirty in %d, returned young only: "
				      "DIRTY_LOST",
				      an, j, k);
		}
	}
	mkfolio(a, raw, 1, 0, 0);
	g = gather(a, raw, NR);
	CHECK_VERDICT(pc_gather_covers(&g, decode(a, mkpte(a, FOLIO_PFN, 1, 0, 0))), PC_OK,
		      "%s gather: all clean, returned clean: silent", an);
	CHECK_VERDICT(pc_gather_covers(&g, decode(a, mkpte(a, FOLIO_PFN, 1, 1, 1))), PC_OK,
		      "%s gather: all clean, hardware set bits meanwhile: silent", an);
	mkfolio(a, raw, 1, 1, 1);
	g = gather(a, raw, NR);
	CHECK_VERDICT(pc_gather_covers(&g, decode(a, mkpte(a, FOLIO_PFN, 1, 1, 1))), PC_OK,
		      "%s gather: all young and dirty, returned both: silent", an);
	CHECK_VERDICT(pc_gather_covers(&g, decode(a, mkpte(a, FOLIO_PFN + 1, 1, 1, 1))),
		      PC_V_PFN_CHANGED, "%s gather: returned the second entry's PFN: PFN_CHANGED",
		      an);
	CHECK_VERDICT(pc_gather_covers(&g, decode(a, 0)), PC_V_PTE_LOST,
		      "%s gather: returned an empty PTE: PTE_LOST", an);
	memset(raw, 0, sizeof(raw));
	g = gather(a, raw, NR);
	CHECK_VERDICT(pc_gather_covers(&g, decode(a, 0)), PC_NOT_APPLICABLE,
		      "%s gather: nothing present at entry: not applicable", an);
}

/* set_ptes(ptep, pte, nr) after the call, entry by entry. */
static void check_set_entries(enum arch a)
{
	__u64 raw[NR];
	struct pc_pte want = decode(a, mkpte(a, FOLIO_PFN, 1, 1, 1));
	const char *an = arch_name[a];
	int worst = PC_OK;

	mkfolio(a, raw, 1, 1, 1);
	for (int k = 0; k < NR; k++)
		if (pc_set_entry(want, k, decode(a, raw[k])) != PC_OK)
			worst = pc_set_entry(want, k, decode(a, raw[k]));
	CHECK_VERDICT(worst, PC_OK, "%s set_ptes: 16 consecutive PFNs, same bits: silent", an);
	raw[2] = mkpte(a, FOLIO_PFN + 2, 1, 1, 0);
	CHECK_VERDICT(pc_set_entry(want, 2, decode(a, raw[2])), PC_V_DIRTY_LOST,
		      "%s set_ptes: dirty bit lost on the 3rd PTE: DIRTY_LOST", an);
	CHECK_VERDICT(pc_set_entry(want, 3, decode(a, raw[4])), PC_V_PFN_CHANGED,
		      "%s set_ptes: 4th PTE maps the 5th page: PFN_CHANGED", an);
	CHECK_VERDICT(pc_set_entry(want, 5, decode(a, mkpte(a, FOLIO_PFN + 5, 0, 1, 1))),
		      PC_V_WRITE_LOST, "%s set_ptes: 6th PTE read-only: WRITE_LOST", an);
	CHECK_VERDICT(pc_set_entry(want, 15, decode(a, 0)), PC_V_PTE_LOST,
		      "%s set_ptes: last PTE left empty: PTE_LOST", an);
	CHECK_VERDICT(pc_set_entry(decode(a, mkpte(a, FOLIO_PFN, 1, 0, 0)), 7,
				   decode(a, mkpte(a, FOLIO_PFN + 7, 1, 1, 1))),
		      PC_OK, "%s set_ptes: hardware set bits after the call: silent", an);
}

static void check_batch_pairs(void)
{
	CHECK_VERDICT(pc_batch_pair(16, 16), PC_OK, "pair: 16 cleared, 16 set: silent");
	CHECK_VERDICT(pc_batch_pair(16, 15), PC_V_BATCH_NR_MISMATCH,
		      "pair: set count short by one: BATCH_NR_MISMATCH");
	CHECK_VERDICT(pc_batch_pair(8, 16), PC_V_BATCH_NR_MISMATCH,
		      "pair: set more PTEs than cleared: BATCH_NR_MISMATCH");
	CHECK_VERDICT(pc_batch_in_table(USER_ADDR, 16), PC_OK,
		      "in-table: 16 PTEs inside one table: silent");
	CHECK_VERDICT(pc_batch_in_table(0x7f3a1c400000ULL - 8 * PC_PAGE_SIZE, 16),
		      PC_V_BATCH_CROSSES_PMD, "in-table: 16 PTEs across a table end: CROSSES_PMD");
	CHECK_VERDICT(pc_batch_in_table(USER_ADDR, 0), PC_V_BATCH_EMPTY,
		      "in-table: nr = 0: BATCH_EMPTY");
}

/* A 64 KiB folio at file index 32 mapped at USER_ADDR by one VMA. */
static struct pc_fault_batch fault_batch(__u64 folio_start, __u32 nr, __u64 i_size, bool exempt)
{
	return (struct pc_fault_batch){
		.addr = USER_ADDR + folio_start * PC_PAGE_SIZE,
		.folio_start = folio_start,
		.folio_nr = NR,
		.vm_start = USER_ADDR - 64 * PC_PAGE_SIZE,
		.vm_end = USER_ADDR + 64 * PC_PAGE_SIZE,
		.file_index = 32 + folio_start,
		.i_size = i_size,
		.nr = nr,
		.eof_exempt = exempt,
	};
}

/*
 * filemap/batch-bounds: the batch stays in its folio, page table and VMA,
 * and maps nothing at or past EOF unless the mapping is shmem/tmpfs.  The
 * file ends inside the folio in the EOF cases: i_size covers pages 32..41
 * (41 partly), so 42..47 are past EOF.
 */
static void check_fault_bounds(void)
{
	const __u64 whole = 48 * PC_PAGE_SIZE, mid = 41 * PC_PAGE_SIZE + 100;
	struct pc_fault_batch b;

	CHECK_VERDICT(pc_fault_batch_bounds(fault_batch(0, 16, whole, false)), PC_OK,
		      "fault batch: a whole 16-page folio inside EOF: silent");
	CHECK_VERDICT(pc_fault_batch_bounds(fault_batch(3, 5, whole, false)), PC_OK,
		      "fault batch: pages 3..7 of the folio: silent");
	CHECK_VERDICT(pc_fault_batch_bounds(fault_batch(0, 0, whole, false)), PC_V_BATCH_EMPTY,
		      "fault batch: nr = 0: BATCH_EMPTY");
	CHECK_VERDICT(pc_fault_batch_bounds(fault_batch(1, 16, whole, false)),
		      PC_V_BATCH_OUTSIDE_FOLIO,
		      "fault batch: one page past the folio end: OUTSIDE_FOLIO");
	CHECK_VERDICT(pc_fault_batch_bounds(fault_batch(0, 9, mid, false)), PC_OK,
		      "fault batch: EOF mid-folio, pages before the partial last page: silent");
	CHECK_VERDICT(pc_fault_batch_bounds(fault_batch(0, 10, mid, false)), PC_OK,
		      "fault batch: EOF mid-folio, up to the partial last page itself: silent");
	CHECK_VERDICT(pc_fault_batch_bounds(fault_batch(0, 11, mid, false)), PC_V_PAST_EOF,
		      "fault batch: one page past EOF mapped (SIGBUS lost): PAST_EOF");
	CHECK_VERDICT(pc_fault_batch_bounds(fault_batch(0, 16, mid, false)), PC_V_PAST_EOF,
		      "fault batch: the whole folio across EOF on ext4: PAST_EOF");
	CHECK_VERDICT(pc_fault_batch_bounds(fault_batch(0, 16, mid, true)), PC_OK,
		      "fault batch: the whole folio across EOF on tmpfs (exempt): silent");
	CHECK_VERDICT(pc_fault_batch_bounds(fault_batch(0, 10, 40 * PC_PAGE_SIZE, false)),
		      PC_V_PAST_EOF,
		      "fault batch: i_size exactly at page 40, page 40 mapped: PAST_EOF");
	b = fault_batch(0, 16, whole, false);
	b.vm_end = b.addr + 15 * PC_PAGE_SIZE;
	CHECK_VERDICT(pc_fault_batch_bounds(b), PC_V_OUTSIDE_VMA,
		      "fault batch: last PTE one page past the VMA end: OUTSIDE_VMA");
	b = fault_batch(0, 16, whole, false);
	b.vm_start = b.addr + PC_PAGE_SIZE;
	CHECK_VERDICT(pc_fault_batch_bounds(b), PC_V_OUTSIDE_VMA,
		      "fault batch: first PTE before the VMA start: OUTSIDE_VMA");
	b = fault_batch(0, 16, whole, false);
	b.addr = 0x7f3a1c400000ULL - 8 * PC_PAGE_SIZE;
	b.vm_start = b.addr;
	b.vm_end = b.addr + 64 * PC_PAGE_SIZE;
	CHECK_VERDICT(pc_fault_batch_bounds(b), PC_V_BATCH_CROSSES_PMD,
		      "fault batch: a folio straddling a 2 MiB boundary mapped in one batch: "
		      "CROSSES_PMD");
	CHECK_VERDICT(pc_page_past_eof(9, 10 * PC_PAGE_SIZE), false, "EOF: page 9 of 10 inside");
	CHECK_VERDICT(pc_page_past_eof(10, 10 * PC_PAGE_SIZE), true, "EOF: page 10 of 10 past");
	CHECK_VERDICT(pc_page_past_eof(10, 10 * PC_PAGE_SIZE + 1), false,
		      "EOF: one byte into page 10: inside");
	CHECK_VERDICT(pc_page_past_eof(0, 0), true, "EOF: empty file, page 0 past");
}

/* The evidence of a batch-bounds verdict for b: expected and seen. */
static void check_evidence(struct pc_fault_batch b, int verdict, __u64 expected, __u64 seen,
			   const char *what)
{
	int v = pc_fault_batch_bounds(b);
	struct pc_fault_evidence e = pc_fault_batch_evidence(b, v);

	CHECK_VERDICT(v, verdict, "evidence: %s: the verdict", what);
	TAP_CHECK_EQ(e.expected, expected, "evidence: %s: expected", what);
	TAP_CHECK_EQ(e.seen, seen, "evidence: %s: seen", what);
}

/* What batch-bounds evidence states, per verdict (docs in events.h). */
static void check_fault_evidence(void)
{
	const __u64 whole = 48 * PC_PAGE_SIZE, mid = 41 * PC_PAGE_SIZE + 100;
	const __u64 table_end = 0x7f3a1c400000ULL;
	struct pc_fault_batch b;

	check_evidence(fault_batch(0, 16, whole, false), PC_OK, 0, 0, "a batch in bounds: none");
	check_evidence(fault_batch(0, 0, whole, false), PC_V_BATCH_EMPTY, 1, 0,
		       "nr = 0: at least 1 PTE, 0 set");
	check_evidence(fault_batch(1, 16, whole, false), PC_V_BATCH_OUTSIDE_FOLIO, NR, 17,
		       "past the folio: its 16 pages, the batch ends at page 17");
	check_evidence(fault_batch(0, 11, mid, false), PC_V_PAST_EOF, 42, 42,
		       "one page past EOF: page 42 is the first past EOF, and mapped");
	check_evidence(fault_batch(0, 16, mid, false), PC_V_PAST_EOF, 42, 47,
		       "the folio across EOF: page 42 first past EOF, 47 the last mapped");
	b = fault_batch(0, 16, whole, false);
	b.vm_end = b.addr + 15 * PC_PAGE_SIZE;
	check_evidence(b, PC_V_OUTSIDE_VMA, b.vm_end, b.addr + 16 * PC_PAGE_SIZE,
		       "past the VMA end: vm_end, and the batch's end");
	b = fault_batch(0, 16, whole, false);
	b.vm_start = b.addr + PC_PAGE_SIZE;
	check_evidence(b, PC_V_OUTSIDE_VMA, b.vm_start, b.addr,
		       "before the VMA start: vm_start, and the batch's start");
	b = fault_batch(0, 16, whole, false);
	b.addr = table_end - 8 * PC_PAGE_SIZE;
	b.vm_start = b.addr;
	b.vm_end = b.addr + 64 * PC_PAGE_SIZE;
	check_evidence(b, PC_V_BATCH_CROSSES_PMD, table_end, table_end + 8 * PC_PAGE_SIZE,
		       "across a page table: the table's end, and the batch's");
}

/* filemap/ptes-set, per entry after set_pte_range. */
static void check_fault_entries(enum arch a)
{
	const char *an = arch_name[a];
	struct pc_pte ro = decode(a, mkpte(a, FOLIO_PFN + 2, 0, 1, 0));
	struct pc_pte rw_dirty = decode(a, mkpte(a, FOLIO_PFN + 2, 1, 1, 1));

	CHECK_VERDICT(pc_fault_entry(ro, FOLIO_PFN, 2, false, false), PC_OK,
		      "%s fault entry: 3rd PTE read-only, next page: silent", an);
	CHECK_VERDICT(pc_fault_entry(decode(a, mkpte(a, FOLIO_PFN + 2, 0, 0, 0)), FOLIO_PFN, 2,
				     false, false),
		      PC_OK, "%s fault entry: prefaulted old PTE: silent (young not judged)", an);
	CHECK_VERDICT(pc_fault_entry(decode(a, 0), FOLIO_PFN, 2, false, false), PC_V_PTE_LOST,
		      "%s fault entry: 3rd PTE of the batch left empty: PTE_LOST", an);
	CHECK_VERDICT(pc_fault_entry(decode(a, mkpte(a, FOLIO_PFN + 3, 0, 1, 0)), FOLIO_PFN, 2,
				     false, false),
		      PC_V_PFN_CHANGED, "%s fault entry: 3rd PTE maps the 4th page: PFN_CHANGED",
		      an);
	CHECK_VERDICT(pc_fault_entry(rw_dirty, FOLIO_PFN, 2, false, false), PC_V_WRITE_GAINED,
		      "%s fault entry: writable PTE in a read-only VMA on a read fault: "
		      "WRITE_GAINED",
		      an);
	CHECK_VERDICT(pc_fault_entry(rw_dirty, FOLIO_PFN, 2, true, false), PC_OK,
		      "%s fault entry: writable PTE where the VMA's protection is writable: silent",
		      an);
	CHECK_VERDICT(pc_fault_entry(rw_dirty, FOLIO_PFN, 2, false, true), PC_OK,
		      "%s fault entry: write fault, writable and dirty: silent", an);
	CHECK_VERDICT(pc_fault_entry(decode(a, mkpte(a, FOLIO_PFN + 2, 1, 1, 0)), FOLIO_PFN, 2,
				     false, true),
		      PC_V_DIRTY_LOST, "%s fault entry: write fault left the PTE clean: DIRTY_LOST",
		      an);
	CHECK_VERDICT(pc_fault_entry(ro, FOLIO_PFN, 2, false, true), PC_V_DIRTY_LOST,
		      "%s fault entry: write fault, write-protected by uffd-wp, clean: DIRTY_LOST",
		      an);
}

/* filemap/rmap-count and rss-count, and the data oracle. */
static void check_fault_counts(void)
{
	CHECK_VERDICT(pc_count_delta(3, 19, 16), PC_OK, "rmap: mapcount 3 -> 19 for nr 16: silent");
	CHECK_VERDICT(pc_count_delta(3, 18, 16), PC_V_MAPCOUNT,
		      "rmap: mapcount short by one: MAPCOUNT");
	CHECK_VERDICT(pc_count_delta(3, 4, 16), PC_V_MAPCOUNT,
		      "rmap: mapcount raised by 1 for a 16-page batch: MAPCOUNT");
	CHECK_VERDICT(pc_count_delta(0, 4, 4), PC_OK,
		      "rmap: 4 processes map a page: count 4: silent");
	CHECK_VERDICT(pc_count_delta(0, 3, 4), PC_V_MAPCOUNT,
		      "rmap: 4 processes map a page, count 3: MAPCOUNT");
	CHECK_VERDICT(pc_rss_delta(100, 164, 64), PC_OK, "rss: +64 for 64 pages mapped: silent");
	CHECK_VERDICT(pc_rss_delta(100, 163, 64), PC_V_RSS, "rss: short by one: RSS");
	CHECK_VERDICT(pc_rss_delta(100, 104, 64), PC_V_RSS,
		      "rss: +4 for 64 pages (counted per folio, not per page): RSS");
	CHECK_VERDICT(pc_bytes_equal(0), PC_OK, "data: every byte equal: silent");
	CHECK_VERDICT(pc_bytes_equal(1), PC_V_DATA_MISMATCH,
		      "data: one byte differs: DATA_MISMATCH");
}

/*
 * A model of arm64 contpte_ptep_get(): the correct early-exit gather loop
 * (stop once both a young and a dirty entry were seen) and a premature one
 * (stop at the first entry with either bit, as a wrong early exit would).
 */
static __u64 model_gather(const __u64 *block, __u64 orig, bool premature)
{
	bool young = false, dirty = false;

	for (int i = 0; i < NR; i++) {
		struct pc_pte e = pc_decode_pte_arm64(block[i]);

		young |= e.young;
		dirty |= e.dirty;
		if ((young && dirty) || (premature && (young || dirty)))
			break;
	}
	if (young)
		orig |= PC_ARM64_AF;
	if (dirty)
		orig |= PC_ARM64_SW_DIRTY;
	return orig;
}

/* One pattern: young in entries ys, dirty in entries ds (bit masks). */
static void gather_pattern(const char *what, __u32 ys, __u32 ds)
{
	__u64 block[NR];
	struct pc_gather g = {0};
	struct pc_pte orig, good, bad;
	int v_good, v_bad;

	for (int i = 0; i < NR; i++) {
		/* Writable, hardware-clean (RDONLY set) unless dirty in this entry. */
		block[i] = mkpte(ARM64, FOLIO_PFN + i, 1, (ys >> i) & 1, (ds >> i) & 1) |
			   PC_ARM64_CONT;
		pc_gather_add(&g, pc_decode_pte_arm64(block[i]));
	}
	/* The caller passes entry 5's own value, as ptep_get() does. */
	orig = pc_decode_pte_arm64(block[5]);
	good = pc_decode_pte_arm64(model_gather(block, block[5], false));
	bad = pc_decode_pte_arm64(model_gather(block, block[5], true));
	v_good = pc_gather_result(&g, orig, good);
	v_bad = pc_gather_result(&g, orig, bad);
	CHECK_VERDICT(v_good, PC_OK, "contpte gather, %s: the correct loop: silent", what);
	if (bad.young == good.young && bad.dirty == good.dirty)
		CHECK_VERDICT(v_bad, PC_OK,
			      "contpte gather, %s: a premature exit gives the same answer: silent",
			      what);
	else
		CHECK_VERDICT(pc_is_violation(v_bad), true,
			      "contpte gather, %s: a premature exit loses a bit: fires (%s)", what,
			      bad.dirty == good.dirty ? "young" : "dirty");
}

static void check_contpte(void)
{
	char what[64];
	struct pc_fold_state f = {0};
	struct pc_gather g = {0};
	__u64 block[NR];

	for (int k = 0; k < NR; k++) {
		snprintf(what, sizeof(what), "dirty only in entry %d", k);
		gather_pattern(what, 0, 1U << k);
		snprintf(what, sizeof(what), "young only in entry %d", k);
		gather_pattern(what, 1U << k, 0);
	}
	for (int k = 0; k < NR; k += 5)
		for (int j = 0; j < NR; j += 3) {
			snprintf(what, sizeof(what), "dirty in %d, young in %d", k, j);
			gather_pattern(what, 1U << j, 1U << k);
		}
	gather_pattern("all clean and old", 0, 0);
	gather_pattern("all young and dirty", 0xffff, 0xffff);

	/* Fold: all 16 CONT, consecutive, one permission. */
	mkfolio(ARM64, block, 1, 1, 0);
	for (int i = 0; i < NR; i++)
		pc_fold_add(&f, pc_decode_pte_arm64(block[i]));
	CHECK_VERDICT(pc_fold_result(&f), PC_OK, "fold: 16 CONT entries, consecutive: silent");
	memset(&f, 0, sizeof(f));
	for (int i = 0; i < NR; i++)
		pc_fold_add(&f, pc_decode_pte_arm64(block[i] & (i == 9 ? ~PC_ARM64_CONT : ~0ULL)));
	CHECK_VERDICT(pc_fold_result(&f), PC_V_PARTIAL_FOLD,
		      "fold: entry 9 without CONT after a fold: PARTIAL_FOLD");
	memset(&f, 0, sizeof(f));
	for (int i = 0; i < NR; i++)
		pc_fold_add(&f, pc_decode_pte_arm64(i == 3 ? mkpte(ARM64, FOLIO_PFN + 3, 0, 1, 0) |
								     PC_ARM64_CONT
							   : block[i]));
	CHECK_VERDICT(pc_fold_result(&f), PC_V_FOLD_MISMATCH,
		      "fold: entry 3 read-only in a writable block: FOLD_MISMATCH");
	memset(&f, 0, sizeof(f));
	for (int i = 0; i < NR; i++)
		pc_fold_add(&f, pc_decode_pte_arm64(i == 12 ? block[13] : block[i]));
	CHECK_VERDICT(pc_fold_result(&f), PC_V_PFN_CHANGED,
		      "fold: entry 12 maps page 13: PFN_CHANGED");
	memset(&f, 0, sizeof(f));
	for (int i = 0; i < NR; i++)
		pc_fold_add(&f, pc_decode_pte_arm64(block[i] & ~PC_ARM64_CONT));
	CHECK_VERDICT(pc_fold_result(&f), PC_NOT_APPLICABLE,
		      "fold: no entry CONT (not folded): not applicable");

	/* Unfold: the bits of the block survive in every entry. */
	mkfolio(ARM64, block, 1, 0, 0);
	block[11] = mkpte(ARM64, FOLIO_PFN + 11, 1, 1, 1) | PC_ARM64_CONT;
	for (int i = 0; i < NR; i++)
		pc_gather_add(&g, pc_decode_pte_arm64(block[i]));
	CHECK_VERDICT(
		pc_unfold_entry(&g, 2, pc_decode_pte_arm64(mkpte(ARM64, FOLIO_PFN + 2, 1, 1, 1))),
		PC_OK, "unfold: entry 2 carries the block's young+dirty: silent");
	CHECK_VERDICT(
		pc_unfold_entry(&g, 2, pc_decode_pte_arm64(mkpte(ARM64, FOLIO_PFN + 2, 1, 1, 0))),
		PC_V_DIRTY_LOST, "unfold: entry 11's dirty bit lost on entry 2: DIRTY_LOST");
	CHECK_VERDICT(
		pc_unfold_entry(&g, 2, pc_decode_pte_arm64(mkpte(ARM64, FOLIO_PFN + 2, 1, 0, 1))),
		PC_V_YOUNG_LOST, "unfold: young lost: YOUNG_LOST");
	CHECK_VERDICT(
		pc_unfold_entry(&g, 2, pc_decode_pte_arm64(mkpte(ARM64, FOLIO_PFN + 3, 1, 1, 1))),
		PC_V_PFN_CHANGED, "unfold: entry 2 maps page 3: PFN_CHANGED");

	CHECK_VERDICT(pc_young_reported(1, true), PC_OK,
		      "clear-young: young seen, reported: silent");
	CHECK_VERDICT(pc_young_reported(0, true), PC_OK,
		      "clear-young: none seen, reported (hardware meanwhile): silent");
	CHECK_VERDICT(pc_young_reported(0, false), PC_OK, "clear-young: none, none: silent");
	CHECK_VERDICT(pc_young_reported(1, false), PC_V_YOUNG_UNREPORTED,
		      "clear-young: a young entry reported as old: YOUNG_UNREPORTED");
}

static void check_oracles(void)
{
	CHECK_VERDICT(pc_written_survives(0xa5, 0xa5), PC_OK, "written byte read back: silent");
	CHECK_VERDICT(pc_written_survives(0xa5, 0x00), PC_V_DATA_LOST,
		      "written byte reads back as zero: DATA_LOST");

	CHECK_VERDICT(pc_referenced_covers(15, 16), PC_V_REFERENCED_SHORT,
		      "referenced: 15 of 16 touched pages: REFERENCED_SHORT");
	CHECK_VERDICT(pc_referenced_covers(16, 16), PC_OK, "referenced: 16 of 16: silent");
	CHECK_VERDICT(pc_referenced_covers(32, 16), PC_OK,
		      "referenced: more than touched (contpte, speculation): silent");

	CHECK_VERDICT(pc_cow_isolated(0x11, 0x11), PC_OK, "COW: child sees its own copy: silent");
	CHECK_VERDICT(pc_cow_isolated(0x11, 0x22), PC_V_COW_BROKEN,
		      "COW: child sees the parent's write: COW_BROKEN");
}

static void check_is_violation(void)
{
	int bad = 0;

	TAP_CHECK(!pc_is_violation(PC_OK), "pc_is_violation(PC_OK) is false");
	TAP_CHECK(!pc_is_violation(PC_NOT_APPLICABLE),
		  "pc_is_violation(PC_NOT_APPLICABLE) is false");
	for (int v = PC_V_PTE_LOST; v < PC_V__COUNT; v++) {
		if (!pc_is_violation(v)) {
			tap_diag("pc_is_violation(%s) is false", verdict_name(v));
			bad++;
		}
	}
	TAP_CHECK_EQ(bad, 0, "pc_is_violation() is true for every PC_V_* verdict");
}

int main(void)
{
	tap_plan(0);
	check_batch_moves(X86);
	check_batch_moves(ARM64);
	check_sparse_moves(X86);
	check_sparse_moves(ARM64);
	check_x86_specials();
	check_arm64_specials();
	check_pmd_move();
	check_folio_intact();
	check_batch();
	check_gather(X86);
	check_gather(ARM64);
	check_set_entries(X86);
	check_set_entries(ARM64);
	check_batch_pairs();
	check_fault_bounds();
	check_fault_evidence();
	check_fault_entries(X86);
	check_fault_entries(ARM64);
	check_fault_counts();
	check_contpte();
	check_oracles();
	check_is_violation();
	return tap_finish();
}
