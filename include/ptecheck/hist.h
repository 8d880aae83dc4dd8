/* SPDX-License-Identifier: GPL-2.0 */
/* Histogram slots shared by the BPF programs and the printers. */
#ifndef PTECHECK_HIST_H
#define PTECHECK_HIST_H

#include "types.h"

#define PC_HIST_SLOTS 64
/* Values up to PC_HIST_LINEAR_MAX get a slot each, larger ones log2 slots. */
#define PC_HIST_LINEAR_MAX 16

/* What watch/hist --by splits each histogram by (read-only data). */
enum pc_hist_by {
	PC_BY_NONE = 0, /* one histogram of everything traced */
	PC_BY_PID = 1,	/* one per process (tgid) */
	PC_BY_COMM = 2, /* one per command name */
};
/* The kernel's table of keys: entries of one histogram and one key. */
#define PC_HIST_KEYS_MAX 2048

enum pc_hist_kind {
	PC_HIST_LOG2 = 0,   /* slot k holds [2^k, 2^(k+1)); slot 0 also holds 0 */
	PC_HIST_LINLOG = 1, /* slot v for v <= 16, then one slot per power of 2 */
};

static inline __attribute__((always_inline)) __u32 pc_log2(__u64 v)
{
	__u32 r = 0;

	if (v >> 32) {
		v >>= 32;
		r += 32;
	}
	if (v >> 16) {
		v >>= 16;
		r += 16;
	}
	if (v >> 8) {
		v >>= 8;
		r += 8;
	}
	if (v >> 4) {
		v >>= 4;
		r += 4;
	}
	if (v >> 2) {
		v >>= 2;
		r += 2;
	}
	if (v >> 1) {
		r += 1;
	}
	return r;
}

static inline __attribute__((always_inline)) __u32 pc_hist_slot(__u32 kind, __u64 v)
{
	__u32 slot;

	if (kind == PC_HIST_LINLOG) {
		if (v <= PC_HIST_LINEAR_MAX)
			return (__u32)v;
		/* 17..31 -> 17, 32..63 -> 18, ... */
		slot = PC_HIST_LINEAR_MAX + 1 + pc_log2(v) - 4;
	} else {
		slot = pc_log2(v);
	}
	return slot < PC_HIST_SLOTS ? slot : PC_HIST_SLOTS - 1;
}

/* Lowest value that falls into a slot (for printing). */
static inline __u64 pc_hist_slot_low(__u32 kind, __u32 slot)
{
	if (kind == PC_HIST_LINLOG) {
		if (slot <= PC_HIST_LINEAR_MAX)
			return slot;
		if (slot == PC_HIST_LINEAR_MAX + 1)
			return PC_HIST_LINEAR_MAX + 1;
		return 1ULL << (slot - PC_HIST_LINEAR_MAX - 1 + 4);
	}
	return slot == 0 ? 0 : 1ULL << slot;
}

/* Highest value that falls into a slot (the last slot takes all above). */
static inline __u64 pc_hist_slot_high(__u32 kind, __u32 slot)
{
	if (slot >= PC_HIST_SLOTS - 1)
		return ~0ULL;
	if (kind == PC_HIST_LINLOG) {
		if (slot <= PC_HIST_LINEAR_MAX)
			return slot;
		return (1ULL << (slot - PC_HIST_LINEAR_MAX - 1 + 5)) - 1;
	}
	return (2ULL << slot) - 1;
}

#endif
