/* SPDX-License-Identifier: GPL-2.0 */
/*
 * PTEs crafted the way the kernel writes them, for the predicate tests of
 * every path (test_common.c, test_mremap.c, test_filemap.c,
 * test_contpte.c): composed from the PC_X86_* and PC_ARM64_* bits and
 * decoded by the same decoders the BPF programs use.
 */
#ifndef PTECHECK_TEST_PTE_CRAFT_H
#define PTECHECK_TEST_PTE_CRAFT_H

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

static const char *const arch_name[] = {"x86", "arm64"};

static inline const char *verdict_name(int v)
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
		[PC_V_MLOCKED] = "MLOCKED",
		[PC_V_NOT_LOCKED] = "NOT_LOCKED",
		[PC_V_SOFT_DIRTY_LOST] = "SOFT_DIRTY_LOST",
		[PC_V_NOT_MLOCKED] = "NOT_MLOCKED",
		[PC_V_OUTSIDE_RANGE] = "OUTSIDE_RANGE",
		[PC_V_NOT_LAZYFREE] = "NOT_LAZYFREE",
		[PC_V_UFFD_WP_LOST] = "UFFD_WP_LOST",
		[PC_V_FAULT_LOOP] = "FAULT_LOOP",
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
static inline __u64 mkpte(enum arch a, __u64 pfn, int write, int young, int dirty)
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
static inline void mkfolio(enum arch a, __u64 *raw, int write, int young, int dirty)
{
	for (int i = 0; i < NR; i++)
		raw[i] = mkpte(a, FOLIO_PFN + i, write, young, dirty) |
			 (a == ARM64 ? PC_ARM64_CONT : 0);
}

static inline struct pc_pte decode(enum arch a, __u64 raw)
{
	return a == X86 ? pc_decode_pte_x86(raw) : pc_decode_pte_arm64(raw);
}

/* Gathers the NR entries of raw[] as the BPF side does at fentry. */
static inline struct pc_gather gather(enum arch a, const __u64 *raw, int n)
{
	struct pc_gather g = {0};

	for (int i = 0; i < n; i++)
		pc_gather_add(&g, decode(a, raw[i]));
	return g;
}

#endif
