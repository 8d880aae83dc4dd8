/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The few kernel types the BPF programs read, declared for CO-RE: libbpf
 * relocates every field access against the running kernel's BTF, so these
 * declarations need only the fields we use, on any architecture.  This
 * keeps the BPF build independent of the build machine's kernel.
 */
#ifndef PTECHECK_KERNEL_TYPES_H
#define PTECHECK_KERNEL_TYPES_H

typedef unsigned char __u8;
typedef unsigned short __u16;
typedef unsigned int __u32;
typedef unsigned long long __u64;
typedef signed char __s8;
typedef short __s16;
typedef int __s32;
typedef long long __s64;
typedef __u16 __be16;
typedef __u32 __be32;
typedef __u32 __wsum;
typedef _Bool bool;
#define true 1
#define false 0

enum bpf_map_type {
	BPF_MAP_TYPE_HASH = 1,
	BPF_MAP_TYPE_ARRAY = 2,
	BPF_MAP_TYPE_PERCPU_ARRAY = 6,
	BPF_MAP_TYPE_RINGBUF = 27,
};

#define BPF_ANY	    0
#define BPF_NOEXIST 1

#pragma clang attribute push(__attribute__((preserve_access_index)), apply_to = record)

typedef struct {
	int counter;
} atomic_t;

struct signal_struct {
	int nr_threads;
};

typedef struct {
	unsigned long pgd;
} pgd_t;

struct mm_struct {
	pgd_t *pgd;
	atomic_t mm_users;
};

struct task_struct {
	int pid;
	int tgid;
	struct mm_struct *mm;
	struct signal_struct *signal;
	char comm[16];
};

struct trace_entry {
	unsigned short type;
	unsigned char flags;
	unsigned char preempt_count;
	int pid;
};

struct trace_event_raw_sys_enter {
	struct trace_entry ent;
	long id;
	unsigned long args[6];
};

struct trace_event_raw_sys_exit {
	struct trace_entry ent;
	long id;
	long ret;
};

struct trace_event_raw_tlb_flush {
	struct trace_entry ent;
	int reason;
	unsigned long pages;
};

struct trace_event_raw_mm_filemap_op_page_cache_range {
	struct trace_entry ent;
	unsigned long i_ino;
	unsigned int s_dev;
	unsigned long index;
	unsigned long last_index;
};

#pragma clang attribute pop

#endif
