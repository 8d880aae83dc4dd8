// SPDX-License-Identifier: GPL-2.0
/* Comparison logic of the userspace oracles; every decision is a predicate call. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "oracle_compare.h"
#include "report.h"

void pc_oracle_msg_init(struct pc_oracle_msg *m, const char *scenario, __u32 check,
			const char *tier)
{
	memset(m, 0, sizeof(*m));
	m->check = check;
	m->status = PC_STATUS_SKIP;
	snprintf(m->scenario, sizeof(m->scenario), "%s", scenario ? scenario : "");
	snprintf(m->tier, sizeof(m->tier), "%s", tier ? tier : "");
}

static void vformat(char *buf, size_t len, bool append, const char *fmt, va_list ap)
{
	size_t used = append ? strnlen(buf, len) : 0;

	if (used >= len - 1)
		return;
	vsnprintf(buf + used, len - used, fmt, ap);
}

void pc_oracle_skip(struct pc_oracle_msg *m, const char *fmt, ...)
{
	va_list ap;

	m->status = PC_STATUS_SKIP;
	va_start(ap, fmt);
	vformat(m->summary, sizeof(m->summary), false, fmt, ap);
	va_end(ap);
}

void pc_oracle_appendf(struct pc_oracle_msg *m, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vformat(m->summary, sizeof(m->summary), true, fmt, ap);
	va_end(ap);
}

void pc_oracle_add_evidence(struct pc_oracle_msg *m, int verdict, __u64 addr, __u64 new_addr,
			    __u64 expected, __u64 seen, const char *fmt, ...)
{
	const __u32 cap = sizeof(m->evidence) / sizeof(m->evidence[0]);
	va_list ap;

	m->violations++;
	if (m->n_evidence >= cap)
		return;
	m->evidence[m->n_evidence].verdict = (__u32)verdict;
	m->evidence[m->n_evidence].addr = addr;
	m->evidence[m->n_evidence].new_addr = new_addr;
	m->evidence[m->n_evidence].expected = expected;
	m->evidence[m->n_evidence].seen = seen;
	va_start(ap, fmt);
	vformat(m->evidence[m->n_evidence].detail, sizeof(m->evidence[0].detail), false, fmt, ap);
	va_end(ap);
	m->n_evidence++;
}

void pc_oracle_judge(struct pc_oracle_msg *m)
{
	if (m->violations)
		m->status = PC_STATUS_FAIL;
	else if (m->checked)
		m->status = PC_STATUS_PASS;
	else
		m->status = PC_STATUS_SKIP;
}

/* Evidence at element i of a range of stride-byte elements: page i, or block i. */
static void evidence_at(struct pc_oracle_msg *m, int v, size_t i, __u64 stride, __u64 addr,
			__u64 new_addr, __u64 expected, __u64 seen)
{
	if (stride == PC_PAGE_SIZE)
		pc_oracle_add_evidence(m, v, addr, new_addr, expected, seen, "page %zu", i);
	else
		pc_oracle_add_evidence(m, v, addr, new_addr, expected, seen, "%llu KiB block %zu",
				       (unsigned long long)stride / 1024, i);
}

/* What evidence shows of an entry: the PFN when present, else the kind. */
static __u64 pte_shown(struct pc_pte p)
{
	return p.kind == PC_PTE_PRESENT ? p.pfn : (__u64)p.kind;
}

void pc_compare_moved(const struct pc_pte *before, const struct pc_pte *after, size_t n,
		      __u64 old_addr, __u64 new_addr, __u32 move, struct pc_oracle_msg *m)
{
	size_t present = 0;

	for (size_t i = 0; i < n; i++) {
		__u64 off = (__u64)i << PC_PAGE_SHIFT;
		int v = pc_moved_entry(before[i], after[i], move);

		m->checked++;
		present += before[i].kind == PC_PTE_PRESENT;
		if (pc_is_violation(v))
			evidence_at(m, v, i, PC_PAGE_SIZE, old_addr + off, new_addr + off,
				    pte_shown(before[i]), pte_shown(after[i]));
	}
	pc_oracle_judge(m);
	snprintf(m->summary, sizeof(m->summary),
		 "%zu slots %#llx->%#llx, %zu present at entry: %llu violations", n,
		 (unsigned long long)old_addr, (unsigned long long)new_addr, present,
		 (unsigned long long)m->violations);
}

void pc_compare_vacated(const struct pc_pte *old_after, size_t n, __u64 old_addr,
			struct pc_oracle_msg *m)
{
	const struct pc_pte empty = {.kind = PC_PTE_NONE};
	__u64 before = m->violations;

	for (size_t i = 0; i < n; i++) {
		__u64 off = (__u64)i << PC_PAGE_SHIFT;
		int v = pc_moved_entry(empty, old_after[i], 0);

		m->checked++;
		if (pc_is_violation(v))
			pc_oracle_add_evidence(m, v, old_addr + off, 0, PC_PTE_NONE,
					       pte_shown(old_after[i]), "page %zu of the old range",
					       i);
	}
	pc_oracle_judge(m);
	pc_oracle_appendf(m, "; old range: %llu of %zu still mapped",
			  (unsigned long long)(m->violations - before), n);
}

void pc_compare_folio_orders(const __u32 *before, const __u32 *after, size_t n, __u64 old_addr,
			     __u64 new_addr, struct pc_oracle_msg *m)
{
	size_t large = 0, absent = 0;

	for (size_t i = 0; i < n; i++) {
		__u64 off = (__u64)i << PC_PAGE_SHIFT;
		int v;

		if (before[i] == PC_ORDER_NONE || after[i] == PC_ORDER_NONE) {
			absent++;
			continue;
		}
		v = pc_folio_intact(before[i], after[i]);
		m->checked++;
		large += before[i] > 0;
		if (pc_is_violation(v))
			evidence_at(m, v, i, PC_PAGE_SIZE, old_addr + off, new_addr + off,
				    before[i], after[i]);
	}
	pc_oracle_judge(m);
	snprintf(m->summary, sizeof(m->summary),
		 "%llu pages compared (%zu in large folios at entry, %zu not present): "
		 "%llu folio orders changed",
		 (unsigned long long)m->checked, large, absent, (unsigned long long)m->violations);
}

void pc_compare_written(const __u8 *written, const __u8 *seen, const bool *was_written, size_t n,
			__u64 addr, __u64 stride, struct pc_oracle_msg *m)
{
	for (size_t i = 0; i < n; i++) {
		int v;

		if (was_written && !was_written[i])
			continue;
		v = pc_written_survives(written[i], seen[i]);
		m->checked++;
		if (pc_is_violation(v))
			evidence_at(m, v, i, stride, addr + i * stride, 0, written[i], seen[i]);
	}
	pc_oracle_judge(m);
	snprintf(m->summary, sizeof(m->summary), "%llu written blocks read back: %llu lost",
		 (unsigned long long)m->checked, (unsigned long long)m->violations);
}

void pc_compare_cow(const __u8 *expected, const __u8 *seen, size_t n, __u64 addr, __u64 stride,
		    struct pc_oracle_msg *m)
{
	for (size_t i = 0; i < n; i++) {
		int v = pc_cow_isolated(expected[i], seen[i]);

		m->checked++;
		if (pc_is_violation(v))
			evidence_at(m, v, i, stride, addr + i * stride, 0, expected[i], seen[i]);
	}
	pc_oracle_judge(m);
	snprintf(m->summary, sizeof(m->summary),
		 "%llu shared pages checked: %llu show the other process's writes",
		 (unsigned long long)m->checked, (unsigned long long)m->violations);
}

void pc_compare_write_faults(const __u32 *faults, const bool *readonly, size_t n, __u64 addr,
			     const char *when, struct pc_oracle_msg *m)
{
	size_t writable = 0, writable_faulted = 0;

	for (size_t i = 0; i < n; i++) {
		int v = pc_write_faulted(readonly[i], faults[i]);

		if (v == PC_NOT_APPLICABLE) {
			writable++;
			writable_faulted += faults[i] > 0;
			continue;
		}
		m->checked++;
		if (pc_is_violation(v))
			pc_oracle_add_evidence(m, v, addr + i * PC_PAGE_SIZE, 0, 1, faults[i],
					       "page %zu: read-only %s, written without a fault", i,
					       when);
	}
	pc_oracle_judge(m);
	snprintf(m->summary, sizeof(m->summary),
		 "%llu read-only pages written: %llu without a fault (%zu writable: %zu "
		 "faulted)",
		 (unsigned long long)m->checked, (unsigned long long)m->violations, writable,
		 writable_faulted);
}

void pc_compare_referenced(__u64 referenced_pages, __u64 touched_pages, __u64 addr, __u64 new_addr,
			   struct pc_oracle_msg *m)
{
	int v = pc_referenced_covers(referenced_pages, touched_pages);

	m->checked++;
	if (pc_is_violation(v))
		pc_oracle_add_evidence(m, v, addr, new_addr, touched_pages, referenced_pages,
				       "smaps Referenced after clear_refs and the touches");
	pc_oracle_judge(m);
	snprintf(m->summary, sizeof(m->summary),
		 "%llu pages referenced in the new VMA, %llu touched after clear_refs",
		 (unsigned long long)referenced_pages, (unsigned long long)touched_pages);
}

__u8 pc_block_seen(const __u8 *block, size_t len, __u8 expected, size_t *off)
{
	/* The predicate, byte by byte: the same decision as the oracle's. */
	for (size_t i = 0; i < len; i++) {
		if (pc_is_violation(pc_written_survives(expected, block[i]))) {
			if (off)
				*off = i;
			return block[i];
		}
	}
	if (off)
		*off = 0;
	return expected;
}

void pc_oracle_add_note(struct pc_oracle_msg *m, const char *note)
{
	size_t cap = sizeof(m->summary), used = strnlen(m->summary, cap), nl = strlen(note);
	char head[sizeof(m->summary)];

	if (nl >= cap)
		return;
	/* The note matters more than the tail of the summary: cut that, at a
	   word, as every text of a report is (pc_text_fit). */
	if (used + nl >= cap) {
		m->summary[cap - 1] = 0;
		pc_text_fit(head, cap - nl, m->summary, "");
		used = strlen(head);
		memcpy(m->summary, head, used);
	}
	memcpy(m->summary + used, note, nl + 1);
}

void pc_oracle_combine(const struct pc_oracle_msg *const *msgs, const bool *disturbed, int n,
		       int required, struct pc_oracle_msg *out)
{
	int pass = -1, nfail = 0, nfail_quiet = 0, last_fail = -1;
	char note[96];

	if (n <= 0) {
		memset(out, 0, sizeof(*out));
		out->status = PC_STATUS_SKIP;
		snprintf(out->summary, sizeof(out->summary), "not measured");
		return;
	}
	for (int k = 0; k < n; k++) {
		if (msgs[k]->status == PC_STATUS_PASS && pass < 0)
			pass = k;
		if (msgs[k]->status == PC_STATUS_FAIL) {
			nfail++;
			nfail_quiet += !(disturbed && disturbed[k]);
			last_fail = k;
		}
	}
	if (pass >= 0) {
		*out = *msgs[pass];
		if (nfail) {
			snprintf(note, sizeof(note),
				 "; violations in %d of %d attempts did not reproduce", nfail, n);
			pc_oracle_add_note(out, note);
		}
		return;
	}
	if (nfail_quiet >= required && nfail == n) {
		*out = *msgs[last_fail];
		snprintf(note, sizeof(note), "; reproduced in %d of %d attempts", nfail, n);
		pc_oracle_add_note(out, note);
		return;
	}
	if (nfail) {
		*out = *msgs[last_fail];
		out->status = PC_STATUS_SKIP;
		snprintf(out->summary, sizeof(out->summary),
			 "inconclusive: violations in %d of %d attempts, %d of them during "
			 "reclaim/migration (%d clean ones needed); last: %.70s",
			 nfail, n, nfail - nfail_quiet, required, msgs[last_fail]->summary);
		return;
	}
	*out = *msgs[n - 1];
	out->status = PC_STATUS_SKIP;
}
