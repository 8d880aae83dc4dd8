// SPDX-License-Identifier: GPL-2.0
/*
 * The mremap predicates (include/ptecheck/mremap.h) on crafted page-table
 * data: each must fire on the bug it exists for, name the right entry, and
 * stay silent on correct data.
 *
 * Per-PTE predicates (pc_moved_entry, pc_adbits_entry, pc_perms_entry) run
 * over a 16-PTE batch mapping one 64 KiB folio (a contpte block on arm64),
 * on both architectures: moved intact; dirty lost on the 3rd PTE; young lost
 * on the 5th; bits that appear during the move (hardware race: OK); a PFN
 * changed; a PTE lost; read-only PTEs made writable by a merged batch and
 * the reverse.  Then holes filled (invented PTEs), swap entries kept or
 * turned into something else, x86 PROT_NONE and SAVED_DIRTY, arm64 hardware
 * dirty lost.  Then pc_pmd_move_extent, pc_folio_intact, the PTEs a batched
 * set_ptes writes (pc_set_entry), and the referenced, COW and write-fault
 * oracles.
 */
#include "pte_craft.h"
#include "procmm.h"

enum pred { P_MOVED, P_ADBITS, P_PERMS, P__COUNT };

static const char *const pred_name[] = {"moved", "ad-bits", "perms"};

static int apply(enum pred p, struct pc_pte o, struct pc_pte n)
{
	switch (p) {
	case P_MOVED:
		return pc_moved_entry(o, n, 0);
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

	CHECK_VERDICT(pc_moved_entry(o, pc_decode_pte_x86(protnone), 0), PC_OK,
		      "x86 moved: PROT_NONE PTE moved intact");
	CHECK_VERDICT(pc_adbits_entry(o, pc_decode_pte_x86(protnone)), PC_OK,
		      "x86 ad-bits: PROT_NONE PTE moved intact");
	CHECK_VERDICT(pc_perms_entry(o, pc_decode_pte_x86(protnone)), PC_OK,
		      "x86 perms: PROT_NONE PTE moved intact");
	CHECK_VERDICT(pc_moved_entry(o, pc_decode_pte_x86(protnone_other), 0), PC_V_PFN_CHANGED,
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
	e = x86_extent(t, 0, t2, true);
	e.move = PC_MOVE_UFFD_NO_REMAP;
	CHECK_VERDICT(pc_pmd_move_extent(e), PC_NOT_APPLICABLE,
		      "pmd-move: uffd without remap events, PTE by PTE (the kernel's rule): "
		      "NOT_APPLICABLE");
	e.move = PC_MOVE_VMA_UNKNOWN;
	CHECK_VERDICT(pc_pmd_move_extent(e), PC_NOT_APPLICABLE,
		      "pmd-move: the VMA unread: NOT_APPLICABLE");

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

static void check_oracles(void)
{
	CHECK_VERDICT(pc_referenced_covers(15, 16), PC_V_REFERENCED_SHORT,
		      "referenced: 15 of 16 touched pages: REFERENCED_SHORT");
	CHECK_VERDICT(pc_referenced_covers(16, 16), PC_OK, "referenced: 16 of 16: silent");
	CHECK_VERDICT(pc_referenced_covers(32, 16), PC_OK,
		      "referenced: more than touched (contpte, speculation): silent");

	CHECK_VERDICT(pc_cow_isolated(0x11, 0x11), PC_OK, "COW: child sees its own copy: silent");
	CHECK_VERDICT(pc_cow_isolated(0x11, 0x22), PC_V_COW_BROKEN,
		      "COW: child sees the parent's write: COW_BROKEN");

	CHECK_VERDICT(pc_write_faulted(true, 1), PC_OK,
		      "write fault: read-only page, one fault: silent");
	CHECK_VERDICT(pc_write_faulted(true, 3), PC_OK,
		      "write fault: read-only page, several faults (reclaim, NUMA): silent");
	CHECK_VERDICT(pc_write_faulted(true, 0), PC_V_WRITE_GAINED,
		      "write fault: read-only page written without a fault: WRITE_GAINED");
	CHECK_VERDICT(pc_write_faulted(false, 0), PC_NOT_APPLICABLE,
		      "write fault: writable page, no fault: not applicable");
	CHECK_VERDICT(pc_write_faulted(false, 1), PC_NOT_APPLICABLE,
		      "write fault: writable page that faulted proves nothing: not applicable");
}

/* Swap PTEs as the kernels write them: x86-64 (pgtable_64.h: offset
   inverted in bits 9-58, type in 59-63) and arm64 (v6.10+: type in bits
   6-10, offset from 12). */
static __u64 x86_swp(__u64 type, __u64 offset)
{
	return (~offset << 14 >> 5) | (type << 59);
}

static __u64 arm64_swp(__u64 type, __u64 offset)
{
	return (type << 6) | (offset << 12);
}

/*
 * A move where the VMA's userfaultfd has no remap events: mm/mremap.c
 * move_ptes() drops uffd-wp markers.  The exception is that narrow: only
 * a uffd-wp marker, only to empty, only with the condition; a swap entry
 * that goes is still a violation, and a marker that goes where remap
 * events are on too.
 */
static void check_uffd_wp_markers(void)
{
	/* The markers the issue saw: x86 0xfffffffffffffc00, arm64 0x17c0. */
	const __u64 x86_marker = 0xfffffffffffffc00ULL, arm_marker = 0x17c0;
	const struct pc_pte none = {.kind = PC_PTE_NONE};
	struct pc_pte m;

	TAP_CHECK(x86_swp(PC_SWP_PTE_MARKER, PC_MARKER_UFFD_WP) == x86_marker &&
			  arm64_swp(PC_SWP_PTE_MARKER, PC_MARKER_UFFD_WP) == arm_marker,
		  "the seen markers are SWP_PTE_MARKER with PTE_MARKER_UFFD_WP");
	TAP_CHECK(pc_decode_pte_x86(x86_marker).uffd_wp_marker &&
			  pc_decode_pte_x86(x86_marker | 0x6).uffd_wp_marker &&
			  pc_decode_pte_arm64(arm_marker).uffd_wp_marker &&
			  pc_decode_pte_arm64(arm_marker | 0x8).uffd_wp_marker,
		  "decoded as uffd-wp markers, swap soft-dirty/uffd-wp bits or not");
	TAP_CHECK(!pc_decode_pte_x86(x86_swp(0, 0x1234)).uffd_wp_marker &&
			  !pc_decode_pte_x86(x86_swp(PC_SWP_PTE_MARKER, 4)).uffd_wp_marker &&
			  !pc_decode_pte_x86(x86_swp(PC_SWP_PTE_MARKER, 9)).uffd_wp_marker &&
			  !pc_decode_pte_arm64(arm64_swp(1, 1)).uffd_wp_marker &&
			  !pc_decode_pte_arm64(arm64_swp(PC_SWP_PTE_MARKER, 4)).uffd_wp_marker,
		  "not markers: a swap entry, a guard marker, an offset past the marker bits");
	m = pc_decode_pte_x86(x86_marker);
	CHECK_VERDICT(pc_moved_entry(m, none, PC_MOVE_UFFD_NO_REMAP), PC_OK,
		      "moved: a uffd-wp marker dropped where uffd has no remap events: allowed");
	CHECK_VERDICT(pc_moved_entry(m, none, 0), PC_V_KIND_CHANGED,
		      "moved: the same marker dropped where remap events are on: KIND_CHANGED");
	CHECK_VERDICT(pc_moved_entry(m, none, PC_MOVE_VMA_UNKNOWN), PC_NOT_APPLICABLE,
		      "moved: the VMA unread: not judged");
	CHECK_VERDICT(pc_moved_entry(m, m, 0), PC_OK, "moved: a marker kept: fine either way");
	CHECK_VERDICT(pc_moved_entry(pc_decode_pte_arm64(arm64_swp(0, 0x99)), none,
				     PC_MOVE_UFFD_NO_REMAP),
		      PC_V_KIND_CHANGED,
		      "moved: a swap entry dropped, remap events or not: KIND_CHANGED");
	CHECK_VERDICT(pc_moved_entry(pc_decode_pte_arm64(arm_marker),
				     pc_decode_pte_arm64(mkpte(ARM64, FOLIO_PFN, 1, 1, 1)),
				     PC_MOVE_UFFD_NO_REMAP),
		      PC_V_KIND_CHANGED, "moved: a marker turned into a page: KIND_CHANGED");
	/* pagemap: a swap entry's frame is type | offset << 5, 0 without PFNs. */
	TAP_CHECK(pc_pagemap_to_pte(PC_PM_SWAP | PC_PM_UFFD_WP | (31 | 1 << 5)).uffd_wp_marker &&
			  pc_pagemap_to_pte(PC_PM_SWAP | PC_PM_UFFD_WP).uffd_wp_marker &&
			  !pc_pagemap_to_pte(PC_PM_SWAP | PC_PM_UFFD_WP | (2 | 77 << 5))
				   .uffd_wp_marker &&
			  !pc_pagemap_to_pte(PC_PM_SWAP | (31 | 1 << 5)).uffd_wp_marker,
		  "pagemap: a uffd-wp marker by its frame, or any uffd-wp swap entry without PFNs");
}

int main(void)
{
	tap_plan(0);
	check_uffd_wp_markers();
	check_batch_moves(X86);
	check_batch_moves(ARM64);
	check_sparse_moves(X86);
	check_sparse_moves(ARM64);
	check_x86_specials();
	check_arm64_specials();
	check_pmd_move();
	check_folio_intact();
	check_set_entries(X86);
	check_set_entries(ARM64);
	check_oracles();
	return tap_finish();
}
