// SPDX-License-Identifier: GPL-2.0
/*
 * Histogram slot arithmetic (include/ptecheck/hist.h), shared by the BPF
 * programs that fill the histograms and the printers that label them.
 *
 * Checks: pc_log2 on every power of two and its neighbours; pc_hist_slot
 * for both kinds on hand-picked values (LOG2: 0,1 -> 0, 2,3 -> 1, 1023 -> 9,
 * 1024 -> 10, the largest values stay in slot 63; LINLOG: 0..16 each their
 * own slot, 17..31 one slot, 32..63 the next); and that the printed labels
 * are true: for a sweep of values, low(slot(v)) <= v <= high(slot(v)), every
 * slot's bounds map back to that slot, and consecutive slots leave no gap
 * and do not overlap.
 */
#include <stdint.h>
#include <ptecheck/hist.h>

#include "tap.h"

#define MAX_SWEEP 4096

static const char *kind_name(__u32 kind)
{
	return kind == PC_HIST_LOG2 ? "LOG2" : "LINLOG";
}

/* 0..300, every power of two with +-1, +-2 and 3 * 2^k, and the maximum. */
static int sweep_values(__u64 *v)
{
	int n = 0;

	for (__u64 i = 0; i <= 300; i++)
		v[n++] = i;
	for (int s = 0; s < 64; s++) {
		__u64 p = 1ULL << s;

		v[n++] = p - 2;
		v[n++] = p - 1;
		v[n++] = p;
		v[n++] = p + 1;
		v[n++] = p + 2;
		if (s < 62)
			v[n++] = 3 * p;
	}
	v[n++] = UINT64_MAX - 1;
	v[n++] = UINT64_MAX;
	return n;
}

static void check_log2(void)
{
	int bad = 0;

	TAP_CHECK_EQ(pc_log2(0), 0, "pc_log2(0) is 0 (callers map 0 to slot 0)");
	TAP_CHECK_EQ(pc_log2(1), 0, "pc_log2(1) is 0");
	for (__u32 s = 1; s < 64; s++) {
		__u64 p = 1ULL << s;

		if (pc_log2(p) != s || pc_log2(p - 1) != s - 1 || pc_log2(p + 1) != s ||
		    pc_log2(p | (p - 1)) != s) {
			tap_diag("pc_log2 wrong around 2^%u: %u %u %u", s, pc_log2(p - 1),
				 pc_log2(p), pc_log2(p + 1));
			bad++;
		}
	}
	TAP_CHECK_EQ(bad, 0, "pc_log2 on 2^k, 2^k - 1, 2^k + 1 and 2^(k+1) - 1 for k = 1..63");
	TAP_CHECK_EQ(pc_log2(UINT64_MAX), 63, "pc_log2(UINT64_MAX) is 63");
}

static void check_log2_slots(void)
{
	const __u32 k = PC_HIST_LOG2;

	TAP_CHECK(pc_hist_slot(k, 0) == 0 && pc_hist_slot(k, 1) == 0, "LOG2: 0 and 1 go to slot 0");
	TAP_CHECK(pc_hist_slot(k, 2) == 1 && pc_hist_slot(k, 3) == 1, "LOG2: 2 and 3 go to slot 1");
	TAP_CHECK_EQ(pc_hist_slot(k, 4), 2, "LOG2: 4 goes to slot 2");
	TAP_CHECK_EQ(pc_hist_slot(k, 1023), 9, "LOG2: 1023 goes to slot 9");
	TAP_CHECK_EQ(pc_hist_slot(k, 1024), 10, "LOG2: 1024 goes to slot 10");
	TAP_CHECK_EQ(pc_hist_slot(k, 1000000000ULL), 29, "LOG2: 1 s in ns goes to slot 29");
	TAP_CHECK_EQ(pc_hist_slot(k, 1ULL << 63), PC_HIST_SLOTS - 1, "LOG2: 2^63 goes to slot 63");
	TAP_CHECK_EQ(pc_hist_slot(k, UINT64_MAX), PC_HIST_SLOTS - 1,
		     "LOG2: UINT64_MAX stays in the last slot");
}

static void check_linlog_slots(void)
{
	const __u32 k = PC_HIST_LINLOG;
	int bad = 0;

	for (__u64 v = 0; v <= PC_HIST_LINEAR_MAX; v++) {
		if (pc_hist_slot(k, v) != v) {
			tap_diag("LINLOG slot(%llu) = %u", (unsigned long long)v,
				 pc_hist_slot(k, v));
			bad++;
		}
	}
	TAP_CHECK_EQ(bad, 0, "LINLOG: 0..16 each get their own slot");

	bad = 0;
	for (__u64 v = 17; v <= 31; v++)
		bad += pc_hist_slot(k, v) != 17;
	TAP_CHECK_EQ(bad, 0, "LINLOG: 17..31 share slot 17");

	bad = 0;
	for (__u64 v = 32; v <= 63; v++)
		bad += pc_hist_slot(k, v) != 18;
	TAP_CHECK_EQ(bad, 0, "LINLOG: 32..63 share slot 18");
	TAP_CHECK_EQ(pc_hist_slot(k, 64), 19, "LINLOG: 64 starts slot 19");
	TAP_CHECK_EQ(pc_hist_slot(k, 512), 22, "LINLOG: 512 (a whole PTE table) goes to slot 22");
	TAP_CHECK_EQ(pc_hist_slot(k, UINT64_MAX), PC_HIST_SLOTS - 1,
		     "LINLOG: UINT64_MAX clamps to the last slot");
}

/*
 * Values the top slot's label claims (v <= high(63)) must be bracketed.
 * Larger values are clamped into slot 63 as well, so high(63) should be
 * UINT64_MAX for both kinds.
 */
static void check_bracket(__u32 kind, const __u64 *vals, int n)
{
	__u64 top = pc_hist_slot_high(kind, PC_HIST_SLOTS - 1);
	int bad = 0, bad_clamped = 0, clamped = 0;

	for (int i = 0; i < n; i++) {
		__u64 v = vals[i];
		__u32 s = pc_hist_slot(kind, v);
		int ok = s < PC_HIST_SLOTS && pc_hist_slot_low(kind, s) <= v &&
			 v <= pc_hist_slot_high(kind, s);

		if (v > top) {
			clamped++;
			bad_clamped += !ok;
			continue;
		}
		if (!ok && bad++ < 4)
			tap_diag("%s: v=%llu slot=%u [%llu, %llu]", kind_name(kind),
				 (unsigned long long)v, s,
				 (unsigned long long)pc_hist_slot_low(kind, s),
				 (unsigned long long)pc_hist_slot_high(kind, s));
	}
	TAP_CHECK_EQ(bad, 0, "%s: low(slot(v)) <= v <= high(slot(v)) for %d swept values",
		     kind_name(kind), n - clamped);
	if (kind == PC_HIST_LINLOG) {
		TAP_CHECK(bad_clamped == 0 && top == UINT64_MAX,
			  "LINLOG: values >= 2^51 clamp into slot 63 and lie within its label");
	} else {
		TAP_CHECK(clamped == 0 && top == UINT64_MAX,
			  "LOG2: the last slot's label reaches UINT64_MAX");
	}
}

static void check_slot_bounds(__u32 kind)
{
	int gaps = 0, roundtrip = 0;

	TAP_CHECK_EQ(pc_hist_slot_low(kind, 0), 0, "%s: slot 0 starts at 0", kind_name(kind));
	for (__u32 s = 0; s < PC_HIST_SLOTS; s++) {
		__u64 lo = pc_hist_slot_low(kind, s), hi = pc_hist_slot_high(kind, s);

		if (lo > hi || pc_hist_slot(kind, lo) != s || pc_hist_slot(kind, hi) != s) {
			if (roundtrip++ < 4)
				tap_diag("%s slot %u: [%llu, %llu] maps to %u..%u", kind_name(kind),
					 s, (unsigned long long)lo, (unsigned long long)hi,
					 pc_hist_slot(kind, lo), pc_hist_slot(kind, hi));
		}
		if (s + 1 < PC_HIST_SLOTS && hi + 1 != pc_hist_slot_low(kind, s + 1)) {
			if (gaps++ < 4)
				tap_diag("%s: high(%u)=%llu low(%u)=%llu", kind_name(kind), s,
					 (unsigned long long)hi, s + 1,
					 (unsigned long long)pc_hist_slot_low(kind, s + 1));
		}
	}
	TAP_CHECK_EQ(roundtrip, 0, "%s: every slot's low and high map back to that slot",
		     kind_name(kind));
	TAP_CHECK_EQ(gaps, 0, "%s: consecutive slots are contiguous (high(s) + 1 == low(s + 1))",
		     kind_name(kind));
}

int main(void)
{
	static __u64 vals[MAX_SWEEP];
	int n = sweep_values(vals);

	tap_plan(0);
	tap_diag("pc_hist: %d slots, linear up to %d, %d swept values", PC_HIST_SLOTS,
		 PC_HIST_LINEAR_MAX, n);
	check_log2();
	check_log2_slots();
	check_linlog_slots();
	check_bracket(PC_HIST_LOG2, vals, n);
	check_bracket(PC_HIST_LINLOG, vals, n);
	check_slot_bounds(PC_HIST_LOG2);
	check_slot_bounds(PC_HIST_LINLOG);
	return tap_finish();
}
