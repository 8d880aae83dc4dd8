/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ptecheck merge (docs/vmtest.md, "When the kernel dies"): the run reports
 * of one kernel made in several boots, as one report in any format, and a
 * kernel that died during a suite as that suite's failed result, read from
 * the console the host kept.  guest/vmtest calls it; the gate then reads
 * a crash as what it is, an invariant failure.
 */
#ifndef PTECHECK_MERGE_H
#define PTECHECK_MERGE_H

#include <stddef.h>
#include "report.h"

/* The tier of the result a death makes: read from the console by the
   host, not by ptecheck in the guest. */
#define PC_TIER_CONSOLE "console"

/* How the boot of a suite ended without its report. */
struct pc_death {
	const char *suite;    /* the suite in progress */
	const char *scenario; /* the scenario then running, or NULL */
	const char *console;  /* that boot's console log */
	unsigned int hung_s;  /* 0: the kernel died; else still running after hung_s seconds */
};

/*
 * Adds the result "SUITE/kernel-log" [console] to r, failed: the crash
 * line (or the hang), the function it names and the scenario in the
 * summary, each kernel report of the console (the kernel-log check's
 * rules group them) as evidence, and for a hang or a death no rule names,
 * the console's last lines.  0, or -errno with err (the console cannot be
 * read; out of memory).
 */
int pc_merge_death(struct pc_report *r, const struct pc_death *d, char *err, size_t errlen);

int pc_cmd_merge(int argc, char **argv);

#endif
