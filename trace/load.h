/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Loading the tracing object so that one program the kernel refuses costs
 * its part only: libbpf's and the verifier's words are kept (and written
 * to a file when something was refused, or to stderr with -v), the
 * refused program is found in them and turned off with the verifier's
 * reason in one line, and the object is loaded again without it.  What
 * the verifier made of every program that loaded (its instructions
 * processed, the time) is measured for the report and `features -v`.
 */
#ifndef PTECHECK_TRACE_LOAD_H
#define PTECHECK_TRACE_LOAD_H

#include <stdbool.h>
#include <stddef.h>

struct pc_session;
struct pc_session_opts;
struct pc_report;

#include <ptecheck/budget.h>
#include <ptecheck/sys_parts.h>

/* The parts of the syscall dispatcher (bpf/syscalls.bpf.c) that can be
   turned off alone: include/ptecheck/sys_parts.h. */
enum pc_sys_part {
#define PC_SYS_ENUM(NAME, name, HOOKS, prefix, prefix2, what) PC_SYS_##NAME,
	PC_SYS_PARTS(PC_SYS_ENUM)
#undef PC_SYS_ENUM
		PC_SYS__COUNT,
};

/* Opens and loads s->skel with the programs the session chose; a program
   the kernel refuses is noted in s (pc_session_refused()) and the object
   loaded without it.  0, or -errno when nothing could be loaded. */
int pc_load_session(struct pc_session *s, const struct pc_session_opts *o);
/* The verifier's figures of every loaded program into s->costs. */
void pc_load_measure(struct pc_session *s);

/* The session's load into r->bpf: its time, each program's verified
   instructions, and what was refused. */
void pc_load_record(const struct pc_session *s, struct pc_report *r);
/* A monotonic clock in milliseconds, for the load and attach times. */
double pc_load_now_ms(void);

/* The reason a refused unit is off ("the verifier refused ..."), or NULL. */
const char *pc_load_sys_refused(const struct pc_session *s, enum pc_sys_part part);
/* Why a part that walks page tables and reads folios through the vmemmap
   (madvise's and mprotect's syscall-walk tiers) cannot judge here: its
   refusal, no page-table walk, or no vmemmap; NULL when it can. */
const char *pc_load_walk_part_why(const struct pc_session *s, enum pc_sys_part part);

#endif
