/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel stack of a violation event (bpf/common.bpf.c takes it) into
 * its evidence: each frame named from kallsyms, which is read once, on the
 * first violation that has a stack.
 */
#ifndef PTECHECK_TRACE_STACK_H
#define PTECHECK_TRACE_STACK_H

#include <stdbool.h>
#include <ptecheck/events.h>
#include "ksyms.h"
#include "report.h"

struct pc_stack_syms {
	const char *path; /* NULL: /proc/kallsyms */
	bool tried;	  /* loaded, or failed to: not read again */
	int err;	  /* the load's -errno */
	struct pc_ksyms k;
};

/* ev's stack into out (frames, or why there are none).  The frames above
   the BPF program that sent ev (the stack helper's own) are left out when
   the names show where that program is. */
void pc_stack_evidence(struct pc_stack_syms *s, const struct pc_violation_event *ev,
		       struct pc_evidence *out);
void pc_stack_syms_free(struct pc_stack_syms *s);

#endif
