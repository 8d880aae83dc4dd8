/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The parts of the syscall dispatcher (bpf/syscalls.bpf.c), one line
 * each: X(NAME, name, HOOKS, prefix, prefix2, what).  A part's handlers
 * are pc_<name>_sys_enter and/or pc_<name>_sys_exit (HOOKS: ENTER, EXIT
 * or BOTH), global functions in its own .bpf.c; its read-only switch is
 * sys_<name>, which the loader turns off when the part has nothing to do
 * here or the verifier refused one of its global functions (named by
 * prefix or prefix2, NULL for none: trace/load.c), so that the part goes
 * alone and the others load; what names it in that message.  The
 * dispatcher's calls, the switches, their declarations and the loader's
 * table are all this list: a new syscall part is its .bpf.c and a line.
 */
#ifndef PTECHECK_SYS_PARTS_H
#define PTECHECK_SYS_PARTS_H

#define PC_SYS_PARTS(X)                                                                            \
	X(MREMAP, mremap, BOTH, "pc_mremap_sys_", NULL, "mremap's syscall-walk")                   \
	X(WALK, walk, ENTER, "pc_walk_sys_", "pc_bw_", "the derived batch runs")                   \
	X(CONTPTE, contpte, BOTH, "pc_contpte_sys_", NULL, "contpte's locked-syscall span")        \
	X(MADVISE, madvise, BOTH, "pc_madvise_sys_", NULL, "madvise's syscall-walk")               \
	X(MPROTECT, mprotect, BOTH, "pc_mprotect_sys_", "pc_mp_slot", "mprotect's syscall-walk")   \
	X(MLOCK, mlock, BOTH, "pc_mlock_sys_", "pc_ml_", "mlock's syscall-walk")                   \
	X(ZAP, zap, BOTH, "pc_zap_sys_", "pc_zp_", "zap's syscall-walk")                           \
	X(RECLAIM, reclaim, BOTH, "pc_reclaim_sys_", "pc_rc_", "reclaim's syscall-walk")

/* The part's hooks at sys_enter and at sys_exit, by HOOKS. */
#define PC_SYS_AT_ENTER_BOTH(x)	 x
#define PC_SYS_AT_ENTER_ENTER(x) x
#define PC_SYS_AT_ENTER_EXIT(x)
#define PC_SYS_AT_EXIT_BOTH(x) x
#define PC_SYS_AT_EXIT_EXIT(x) x
#define PC_SYS_AT_EXIT_ENTER(x)

#endif
