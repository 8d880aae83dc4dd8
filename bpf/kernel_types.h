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
	BPF_MAP_TYPE_LRU_HASH = 9,
	BPF_MAP_TYPE_ARRAY = 2,
	BPF_MAP_TYPE_PERCPU_ARRAY = 6,
	BPF_MAP_TYPE_CGROUP_ARRAY = 8,
	BPF_MAP_TYPE_RINGBUF = 27,
};

#define BPF_ANY	    0
#define BPF_NOEXIST 1

#pragma clang attribute push(__attribute__((preserve_access_index)), apply_to = record)

typedef struct {
	int counter;
} atomic_t;

struct signal_struct {
	atomic_t live; /* threads not yet in do_exit() */
	int nr_threads;
	unsigned int flags; /* SIGNAL_* */
};

typedef struct {
	unsigned long pgd;
} pgd_t;

struct mm_struct {
	pgd_t *pgd;
	atomic_t mm_users;
};

/* x86: status holds TS_COMPAT while a 32-bit syscall runs. */
struct thread_info {
	__u32 status;
};

struct task_struct {
	struct thread_info thread_info;
	unsigned int flags; /* PF_* */
	int pid;
	int tgid;
	struct mm_struct *mm;
	struct mm_struct *active_mm;
	struct signal_struct *signal;
	char comm[16];
};

/* The filemap path (fault-around). */
typedef struct {
	unsigned long pgprot;
} pgprot_t;

struct super_block {
	unsigned long s_magic;
};

struct inode {
	long long i_size;
	struct super_block *i_sb;
};

struct rb_node {
	unsigned long __rb_parent_color;
	struct rb_node *rb_right;
	struct rb_node *rb_left;
};

struct rb_root {
	struct rb_node *rb_node;
};

struct rb_root_cached {
	struct rb_root rb_root;
	struct rb_node *rb_leftmost;
};

struct address_space {
	struct inode *host;
	struct rb_root_cached i_mmap;
};

struct file {
	struct address_space *f_mapping;
};

/* fs/userfaultfd.c (in BTF, no header): the features the handshake
   (UFFDIO_API) enabled. */
struct userfaultfd_ctx {
	unsigned int features;
};

/* Empty without CONFIG_USERFAULTFD: check with bpf_core_field_exists. */
struct vm_userfaultfd_ctx {
	struct userfaultfd_ctx *ctx;
};

struct vm_area_struct {
	unsigned long vm_start;
	unsigned long vm_end;
	unsigned long vm_flags;
	struct mm_struct *vm_mm;
	pgprot_t vm_page_prot;
	unsigned long vm_pgoff;
	struct file *vm_file;
	struct vm_userfaultfd_ctx vm_userfaultfd_ctx;
	struct {
		struct rb_node rb;
		unsigned long rb_subtree_last;
	} shared;
};

/* include/linux/pagewalk.h: a page-table walk's state. */
struct mm_walk {
	struct mm_struct *mm;
	struct vm_area_struct *vma;
};

enum fault_flag {
	FAULT_FLAG_WRITE = 1,
};

struct vm_fault {
	struct vm_area_struct *vma;
	unsigned long address;
	enum fault_flag flags;
	__u64 *pte;
};

enum pageflags {
	PG_dirty = 4,
	PG_head = 6,
	PG_mlocked = 21,
	PG_swapbacked = 19,
	PG_anon_exclusive = 29,
};

struct page {
	unsigned long flags;
};

struct folio {
	struct address_space *mapping;
	unsigned long index;
	atomic_t _mapcount;
	unsigned long _flags_1;
	atomic_t _large_mapcount;
};

/* mm/internal.h since v6.15: move_page_tables(struct pagetable_move_control *). */
struct pagetable_move_control {
	struct vm_area_struct *old;
	struct vm_area_struct *new;
	unsigned long old_addr;
	unsigned long old_end;
	unsigned long new_addr;
	unsigned long len_in;
};

#pragma clang attribute pop

/*
 * Register layouts for kprobes (bpf_tracing.h's PT_REGS_PARMn); these are
 * ABI, stable across kernel versions, so no CO-RE is needed.
 */
#if defined(__TARGET_ARCH_x86)
struct pt_regs {
	/* The UAPI names bpf_tracing.h uses outside the kernel tree. */
	unsigned long r15, r14, r13, r12, rbp, rbx, r11, r10, r9, r8;
	unsigned long rax, rcx, rdx, rsi, rdi, orig_rax, rip, cs, eflags, rsp, ss;
};
#elif defined(__TARGET_ARCH_arm64)
struct user_pt_regs {
	__u64 regs[31];
	__u64 sp;
	__u64 pc;
	__u64 pstate;
};
struct pt_regs {
	struct user_pt_regs user_regs;
	__u64 orig_x0;
	__s32 syscallno; /* what raw_syscalls:sys_exit exits from */
};
#endif

/* The context of raw_tp/ programs (UAPI). */
struct bpf_raw_tracepoint_args {
	__u64 args[0];
};

#endif
