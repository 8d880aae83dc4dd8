// SPDX-License-Identifier: GPL-2.0
/* The batch path's derived source, loader side: see trace/batch_walk.h. */
#include <stdio.h>
#include <ptecheck/batch_walk.h>
#include "batch_walk.h"
#include "calib.h"
#include "load.h"
#include "ptecheck.skel.h"
#include "session.h"

const char *pc_batch_walk_why(const struct pc_session *s)
{
	const char *refused = pc_load_sys_refused(s, PC_SYS_WALK);

	if (refused)
		return refused;
	return pc_calib_vmemmap_why(&s->calib,
				    s->walk_reason[0] ? s->walk_reason : "no page-table walk");
}

void pc_batch_walk_configure(struct pc_session *s)
{
	if (pc_batch_walk_why(s))
		s->skel->rodata->sys_walk = false; /* not called at sys_enter */
}

void pc_batch_walk_note(struct pc_session *s, struct pc_report *r)
{
	const __u64 *n;

	if (!s->loaded || pc_batch_walk_why(s))
		return;
	n = s->skel->bss->bw_stats;
	if (!n[PC_BW_CALLS] && !n[PC_BW_UNSAMPLED])
		return;
	pc_report_note(
		r,
		"derived batch runs: %llu calls walked, %llu present PTEs read, %llu of them "
		"in small folios (no run: the kernel batches none), %llu pages under huge "
		"PMDs, %llu entries or folios unreadable, %llu pages past the walk's bound "
		"(%u per call) not walked",
		(unsigned long long)n[PC_BW_CALLS], (unsigned long long)n[PC_BW_PTES],
		(unsigned long long)n[PC_BW_SMALL], (unsigned long long)n[PC_BW_HUGE],
		(unsigned long long)n[PC_BW_UNREAD], (unsigned long long)n[PC_BW_UNWALKED],
		PC_BW_MAX_PAGES);
	if (n[PC_BW_UNSAMPLED])
		pc_report_note(r,
			       "derived batch runs sampled: %llu calls not walked (--sample %u), "
			       "their runs in no histogram",
			       (unsigned long long)n[PC_BW_UNSAMPLED],
			       s->skel->rodata->sample_every);
}

void pc_batch_walk_feature(const struct pc_features *f)
{
	const char *why =
		f->session ? pc_batch_walk_why(f->session)
			   : pc_calib_vmemmap_why(f->calib, "page-table walk not calibrated");
	char detail[320];

	if (!why)
		snprintf(detail, sizeof(detail),
			 "page-table walk at entry of munmap, mprotect, madvise "
			 "DONTNEED/FREE/COLD/PAGEOUT, mlock, munlock; not fork, exit or khugepaged "
			 "(no syscall range to walk); %s",
			 f->calib->vmemmap_why);
	f->line("derived batch runs", !why, why ? why : detail);
}
