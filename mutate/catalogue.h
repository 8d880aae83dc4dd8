/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The mutation self-test's catalogue (mutate/mutants/NAME.patch): the
 * header of `Key: value` lines before the `---` line, in the order of the
 * contract (docs/mutation.md), parsed and checked against the one table of
 * check names (report/check_text.c) and the gate's rule names.
 */
#ifndef PTECHECK_MUTATE_CATALOGUE_H
#define PTECHECK_MUTATE_CATALOGUE_H

#include <stddef.h>

#define PC_MUTANT_MAX_NAMES 8
#define PC_MUTANT_TEXT	    512

struct pc_mutant {
	char name[64];
	char bug[PC_MUTANT_TEXT];
	char bug_class[32];
	int n_breaks;
	char breaks[PC_MUTANT_MAX_NAMES][48];
	/* Check names that must fail, or "gate:RULE": the gate rule that must fail. */
	int n_expect;
	char expect[PC_MUTANT_MAX_NAMES][48];
	char arch[8]; /* arm64, x86_64, all */
	/* "none", or the upstream fix's id and "subject" the mutant undoes. */
	char reintroduces[PC_MUTANT_TEXT];
	/* For a real bug: the first mainline tag with the fix ("v6.17") and
	   where the id was confirmed, two sources at least; "none" else. */
	char fixed_in[24];
	char source[PC_MUTANT_TEXT];
	char trigger[PC_MUTANT_TEXT];
};

/* A mutant that re-creates a real upstream bug (Reintroduces not none). */
static inline int pc_mutant_is_real(const struct pc_mutant *m)
{
	return m->reintroduces[0] && m->reintroduces[0] != 'n';
}

/*
 * Parses the header of the patch file path whose text is buf.  0, or -1
 * with "PATH:LINE: message" in err (LINE of the offending line, or of the
 * `---` line for a missing key).
 */
int pc_mutant_parse(const char *path, const char *buf, size_t len, struct pc_mutant *m, char *err,
		    size_t errlen);
/* Reads and parses path; -1 with "PATH: ..." in err when unreadable. */
int pc_mutant_load(const char *path, struct pc_mutant *m, char *err, size_t errlen);

/* True when name is a check of some report: a name of the check table, or
   "PATH/kernel-log" for a path of that table (the kernel-log check). */
int pc_mutant_known_check(const char *name);

#endif
