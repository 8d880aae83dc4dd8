/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fault injection for the tests of a refused program (CMake option
 * PTECHECK_FAULT_INJECT, never in a release build): a point named in the
 * environment variable PTECHECK_FAULT_REFUSE ("walk", "filemap-tp",
 * "syscalls", "madvise", comma separated) makes its program one the
 * verifier refuses (a read past the stack frame), so the tests see what a
 * kernel that refuses one of ptecheck's programs does to a run: the part
 * turned off, the others running, exit 3.  Without the option the points
 * compile to nothing.
 */
#ifndef PTECHECK_FAULT_H
#define PTECHECK_FAULT_H

enum pc_fault_point {
	PC_FAULT_WALK = 1 << 0,	      /* the derived walk's handler (syscalls_enter) */
	PC_FAULT_FILEMAP_TP = 1 << 1, /* filemap's tracepoint program */
	PC_FAULT_SYSCALLS = 1 << 2,   /* the dispatcher's own body: nothing can trace */
	PC_FAULT_MADVISE = 1 << 3,    /* madvise's syscall-walk handler (syscalls_enter) */
};

#define PC_FAULT_POINTS(X)                                                                         \
	X(PC_FAULT_WALK, "walk")                                                                   \
	X(PC_FAULT_FILEMAP_TP, "filemap-tp")                                                       \
	X(PC_FAULT_SYSCALLS, "syscalls") X(PC_FAULT_MADVISE, "madvise")

#endif
