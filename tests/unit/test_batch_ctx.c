// SPDX-License-Identifier: GPL-2.0
/*
 * The batch path's classifier (include/ptecheck/batch.h): where a batch
 * was made, from the task's flags, its command, the ABI of its syscall,
 * the syscall's number (the C library's, not ptecheck's own table) and
 * madvise's advice.  Every context is reachable; the task flags outrank
 * the syscall (reclaim over kernel thread over exiting); a compat syscall
 * is never taken for the native one of the same number; each advice has
 * its context, read from madvise's third argument and process_madvise's
 * fourth, never from the other one.
 */
#include <stdbool.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ptecheck/batch.h>
#include "tap.h"

/* The C library names every advice but this one (glibc 2.36). */
#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif

/* One task state and the context it must give. */
struct ctx_case {
	__u32 flags;
	bool khugepaged, compat;
	long nr;
	__u64 madv, pmadv; /* madvise's 3rd argument, process_madvise's 4th */
	__u32 want;
	const char *what;
};

#define SYSCALL_CASE(sys, ctx)                                                                     \
	{                                                                                          \
		0, false, false, sys, 0, 0, ctx, #sys                                              \
	}

static const struct ctx_case cases[] = {
	SYSCALL_CASE(SYS_munmap, PC_BCTX_MUNMAP),
	SYSCALL_CASE(SYS_shmdt, PC_BCTX_MUNMAP),
	SYSCALL_CASE(SYS_mmap, PC_BCTX_MMAP),
	SYSCALL_CASE(SYS_brk, PC_BCTX_MMAP),
	SYSCALL_CASE(SYS_exit, PC_BCTX_EXIT),
	SYSCALL_CASE(SYS_exit_group, PC_BCTX_EXIT),
	SYSCALL_CASE(SYS_execve, PC_BCTX_EXEC),
	SYSCALL_CASE(SYS_execveat, PC_BCTX_EXEC),
	SYSCALL_CASE(SYS_clone, PC_BCTX_FORK),
	SYSCALL_CASE(SYS_clone3, PC_BCTX_FORK),
#ifdef SYS_fork
	SYSCALL_CASE(SYS_fork, PC_BCTX_FORK),
	SYSCALL_CASE(SYS_vfork, PC_BCTX_FORK),
#endif
	SYSCALL_CASE(SYS_mprotect, PC_BCTX_MPROTECT),
	SYSCALL_CASE(SYS_pkey_mprotect, PC_BCTX_MPROTECT),
	SYSCALL_CASE(SYS_mlock, PC_BCTX_MLOCK),
	SYSCALL_CASE(SYS_mlock2, PC_BCTX_MLOCK),
	SYSCALL_CASE(SYS_mlockall, PC_BCTX_MLOCK),
	SYSCALL_CASE(SYS_munlock, PC_BCTX_MUNLOCK),
	SYSCALL_CASE(SYS_munlockall, PC_BCTX_MUNLOCK),
	SYSCALL_CASE(SYS_mremap, PC_BCTX_MREMAP),
	SYSCALL_CASE(SYS_mbind, PC_BCTX_MEMPOLICY),
	SYSCALL_CASE(SYS_migrate_pages, PC_BCTX_MEMPOLICY),
	SYSCALL_CASE(SYS_move_pages, PC_BCTX_MEMPOLICY),
	SYSCALL_CASE(SYS_set_mempolicy_home_node, PC_BCTX_MEMPOLICY),
	SYSCALL_CASE(SYS_getpid, PC_BCTX_OTHER_SYSCALL),
	SYSCALL_CASE(SYS_read, PC_BCTX_OTHER_SYSCALL),
	SYSCALL_CASE(-1, PC_BCTX_FAULT),
	/* madvise: the advice is the third argument. */
	{0, false, false, SYS_madvise, MADV_DONTNEED, 0, PC_BCTX_MADV_DONTNEED, "MADV_DONTNEED"},
	{0, false, false, SYS_madvise, MADV_DONTNEED_LOCKED, 0, PC_BCTX_MADV_DONTNEED,
	 "MADV_DONTNEED_LOCKED"},
	{0, false, false, SYS_madvise, MADV_FREE, 0, PC_BCTX_MADV_FREE, "MADV_FREE"},
	{0, false, false, SYS_madvise, MADV_COLD, 0, PC_BCTX_MADV_COLD, "MADV_COLD"},
	{0, false, false, SYS_madvise, MADV_PAGEOUT, 0, PC_BCTX_MADV_PAGEOUT, "MADV_PAGEOUT"},
	{0, false, false, SYS_madvise, MADV_COLLAPSE, 0, PC_BCTX_MADV_COLLAPSE, "MADV_COLLAPSE"},
	{0, false, false, SYS_madvise, MADV_HUGEPAGE, 0, PC_BCTX_MADV_OTHER, "MADV_HUGEPAGE"},
	{0, false, false, SYS_madvise, MADV_WILLNEED, 0, PC_BCTX_MADV_OTHER, "MADV_WILLNEED"},
	/* ... whatever process_madvise's fourth argument says. */
	{0, false, false, SYS_madvise, MADV_COLD, MADV_PAGEOUT, PC_BCTX_MADV_COLD,
	 "madvise reads its 3rd argument, not the 4th"},
	/* process_madvise: the advice is the fourth argument. */
	{0, false, false, SYS_process_madvise, 0, MADV_PAGEOUT, PC_BCTX_MADV_PAGEOUT,
	 "process_madvise MADV_PAGEOUT"},
	{0, false, false, SYS_process_madvise, 0, MADV_COLD, PC_BCTX_MADV_COLD,
	 "process_madvise MADV_COLD"},
	{0, false, false, SYS_process_madvise, 0, MADV_COLLAPSE, PC_BCTX_MADV_COLLAPSE,
	 "process_madvise MADV_COLLAPSE"},
	{0, false, false, SYS_process_madvise, MADV_DONTNEED, MADV_COLD, PC_BCTX_MADV_COLD,
	 "process_madvise reads its 4th argument, not the 3rd"},
	/* The task's flags before the syscall, reclaim first. */
	{PC_PF_MEMALLOC, false, false, SYS_munmap, 0, 0, PC_BCTX_RECLAIM,
	 "PF_MEMALLOC in munmap: reclaim"},
	{PC_PF_MEMALLOC | PC_PF_KTHREAD, true, false, -1, 0, 0, PC_BCTX_RECLAIM,
	 "PF_MEMALLOC kernel thread (kswapd, or khugepaged compacting): reclaim"},
	{PC_PF_MEMALLOC | PC_PF_EXITING, false, false, SYS_exit_group, 0, 0, PC_BCTX_RECLAIM,
	 "PF_MEMALLOC while exiting: reclaim"},
	{PC_PF_KTHREAD, true, false, -1, 0, 0, PC_BCTX_KHUGEPAGED, "khugepaged"},
	{PC_PF_KTHREAD, false, false, -1, 0, 0, PC_BCTX_KTHREAD, "another kernel thread"},
	{PC_PF_KTHREAD | PC_PF_EXITING, false, false, -1, 0, 0, PC_BCTX_KTHREAD,
	 "an exiting kernel thread: kernel thread"},
	{PC_PF_KTHREAD, false, false, SYS_munmap, 0, 0, PC_BCTX_KTHREAD,
	 "a kernel thread's stale syscall number is not read"},
	{0, true, false, SYS_munmap, 0, 0, PC_BCTX_MUNMAP,
	 "a user task called khugepaged is no kernel thread"},
	{PC_PF_EXITING, false, false, SYS_munmap, 0, 0, PC_BCTX_EXIT,
	 "PF_EXITING over the syscall it dies in: exit"},
	{PC_PF_EXITING, false, false, -1, 0, 0, PC_BCTX_EXIT, "PF_EXITING in no syscall: exit"},
	{PC_PF_EXITING, false, true, SYS_munmap, 0, 0, PC_BCTX_EXIT,
	 "PF_EXITING in a compat syscall: exit"},
	/* A compat syscall's number means another syscall natively. */
	{0, false, true, SYS_munmap, 0, 0, PC_BCTX_OTHER_SYSCALL, "compat: not native munmap"},
	{0, false, true, SYS_madvise, MADV_DONTNEED, 0, PC_BCTX_OTHER_SYSCALL,
	 "compat: not native madvise"},
	{0, false, true, -1, 0, 0, PC_BCTX_FAULT, "compat task in no syscall: fault"},
	{PC_PF_MEMALLOC, false, true, SYS_munmap, 0, 0, PC_BCTX_RECLAIM, "compat under reclaim"},
};
#define N_CASES (sizeof(cases) / sizeof(cases[0]))

int main(void)
{
	bool reached[PC_BCTX__COUNT] = {false};
	unsigned int not_other = 0;

	tap_plan(0);
	for (size_t i = 0; i < N_CASES; i++) {
		const struct ctx_case *c = &cases[i];
		__u32 got = pc_batch_ctx_of(c->flags, c->khugepaged, c->compat, c->nr, c->madv,
					    c->pmadv);

		TAP_CHECK_EQ(got, c->want, "pc_batch_ctx_of: %s", c->what);
		if (got < PC_BCTX__COUNT)
			reached[got] = true;
		/* Without flags or compat the classifier is the syscall's. */
		if (!c->flags && !c->compat && !c->khugepaged)
			TAP_CHECK_EQ(pc_batch_syscall_ctx(c->nr, c->madv, c->pmadv), c->want,
				     "pc_batch_syscall_ctx: %s", c->what);
	}
	for (int ctx = 0; ctx < PC_BCTX__COUNT; ctx++)
		TAP_CHECK(reached[ctx], "context %d is reachable", ctx);
	/* Every advice outside the named ones is "other". */
	for (__u64 adv = 0; adv < 128; adv++) {
		bool named = adv == MADV_DONTNEED || adv == MADV_DONTNEED_LOCKED ||
			     adv == MADV_FREE || adv == MADV_COLD || adv == MADV_PAGEOUT ||
			     adv == MADV_COLLAPSE;

		if (!named)
			not_other += pc_batch_madvise_ctx(adv) != PC_BCTX_MADV_OTHER;
	}
	TAP_CHECK_EQ(not_other, 0, "advices 0..127 outside the named six are other");
	return tap_finish();
}
