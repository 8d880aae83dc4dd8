// SPDX-License-Identifier: GPL-2.0
#include <string.h>
#include "check_text.h"

static const char *const check_names[PC_CHK__COUNT] = {
#define NAME(id, name) [PC_CHK_##id] = name,
	PC_ALL_CHECKS(NAME)
#undef NAME
};

const char *pc_check_name(__u32 check)
{
	return check < PC_CHK__COUNT ? check_names[check] : "unknown";
}

int pc_check_find(const char *name)
{
	for (int i = 0; i < PC_CHK__COUNT; i++)
		if (strcmp(check_names[i], name) == 0)
			return i;
	return -1;
}

static const char *const verdict_text[PC_V__COUNT] = {
	[PC_OK] = "ok",
	[PC_NOT_APPLICABLE] = "not applicable",
	[PC_V_PTE_LOST] = "present PTE lost",
	[PC_V_PTE_INVENTED] = "PTE appeared in an empty slot",
	[PC_V_PFN_CHANGED] = "PFN changed",
	[PC_V_KIND_CHANGED] = "swap/other entry changed kind",
	[PC_V_YOUNG_LOST] = "accessed bit lost",
	[PC_V_DIRTY_LOST] = "dirty bit lost",
	[PC_V_WRITE_GAINED] = "read-only PTE became writable",
	[PC_V_WRITE_LOST] = "writable PTE became read-only",
	[PC_V_PMD_NOT_MOVED] = "whole aligned PMD moved PTE by PTE",
	[PC_V_ORDER_CHANGED] = "folio order changed",
	[PC_V_BATCH_EMPTY] = "empty batch",
	[PC_V_BATCH_OUTSIDE_FOLIO] = "batch leaves its folio",
	[PC_V_BATCH_CROSSES_PMD] = "batch crosses a page-table boundary",
	[PC_V_DATA_LOST] = "written data lost",
	[PC_V_REFERENCED_SHORT] = "fewer referenced pages than touched",
	[PC_V_COW_BROKEN] = "write leaked into a process sharing the page",
	[PC_V_BATCH_NR_MISMATCH] = "batch sizes of a pair differ",
	[PC_V_OUTSIDE_VMA] = "batch maps PTEs outside its VMA",
	[PC_V_PAST_EOF] = "page at or past EOF mapped (SIGBUS lost)",
	[PC_V_MAPCOUNT] = "mapcount moved by other than the pages mapped",
	[PC_V_RSS] = "RSS counter moved by other than the pages mapped",
	[PC_V_DATA_MISMATCH] = "bytes read through the mapping differ from the file",
	[PC_V_PARTIAL_FOLD] = "contpte block with CONT on some entries only",
	[PC_V_FOLD_MISMATCH] = "folded entries differ in validity or permission",
	[PC_V_YOUNG_UNREPORTED] = "a young entry reported as not young",
	[PC_V_MLOCKED] = "folio mlocked outside a range locking all of it",
	[PC_V_NOT_LOCKED] = "mlock returned 0 and left pages of its range not locked",
	[PC_V_SOFT_DIRTY_LOST] = "soft-dirty bit lost",
	[PC_V_NOT_MLOCKED] = "folio a locked range holds whole not mlocked",
	[PC_V_OUTSIDE_RANGE] = "page outside an advised range treated as in it",
	[PC_V_NOT_LAZYFREE] = "page MADV_FREE covered left dirty (not lazyfree)",
	[PC_V_UFFD_WP_LOST] = "uffd-wp protection lost",
	[PC_V_FAULT_LOOP] = "a fault retried without ever mapping its page",
};

const char *pc_verdict_text(__u32 v)
{
	return v < PC_V__COUNT && verdict_text[v] ? verdict_text[v] : "violation";
}

static const struct {
	__u32 check, verdict;
	const char *text;
} evidence_text[] = {
#define TEXT(check, verdict, text) {PC_CHK_##check, PC_V_##verdict, text},
	PC_ALL_EVIDENCE(TEXT)
#undef TEXT
};

const char *pc_evidence_text(__u32 check, __u32 verdict)
{
	for (size_t i = 0; i < sizeof(evidence_text) / sizeof(evidence_text[0]); i++)
		if (evidence_text[i].check == check && evidence_text[i].verdict == verdict)
			return evidence_text[i].text;
	return pc_verdict_text(verdict);
}

const char *pc_tier_name(__u32 tier)
{
	switch (tier) {
	case PC_TIER_SYSCALL_WALK:
		return "kernel:syscall-walk";
	case PC_TIER_FEXIT:
		return "kernel:fexit";
	case PC_TIER_KPROBE:
		return "kernel:kprobe";
	default:
		return "oracle";
	}
}
