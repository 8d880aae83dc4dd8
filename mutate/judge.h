/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The mutation self-test's judge: from what mutate/mutate left in each
 * image's directory (report.json, gate.json, or a file `failed` saying why
 * there is no report), whether the control kernel is clean and each mutant
 * caught, and the table of it (table.c).
 *
 *	catalogue.c	the patch header (catalogue.h)
 *	judge.c		control and mutants judged from their directories
 *	table.c		the table in text and JSON
 *	main.c		the command mutate/mutate calls (build/mutate-judge)
 */
#ifndef PTECHECK_MUTATE_JUDGE_H
#define PTECHECK_MUTATE_JUDGE_H

#include <stdbool.h>
#include <stdio.h>
#include "catalogue.h"

#define PC_MUTATE_MAX_FAILED 64 /* (check, tier) pairs: a suite has ~40 */
#define PC_MUTATE_MAX_RUNS   16 /* --runs: the dead boots' reports looked for */
#define PC_MUTATE_MAX_RULES  4

/* Exit codes of mutate-judge (mutate/mutate maps 2 to its setup error). */
enum pc_mutate_exit {
	PC_MUTATE_OK = 0,	 /* control clean, every mutant caught */
	PC_MUTATE_NOT_OK = 1,	 /* a mutant missed or the control unclean */
	PC_MUTATE_BAD_INPUT = 2, /* usage, a bad catalogue header */
};

struct pc_mutate_failure {
	char check[48], tier[48];
	char evidence[PC_MUTANT_TEXT]; /* first evidence, else the summary */
};

/* What a directory's reports say (report.json, report-2.json ... of
   --runs), summed over the runs. */
struct pc_mutate_run {
	bool have_report;
	/* Every boot died: judged by the checks that failed before (the crash
	   witness; the crash is not one), why it died in note. */
	bool died;
	char why[512]; /* no report: the reason (build, boot, parse) */
	/* How the reports were had when not as asked: the first boot's
	   page_table_check panic and the boot again without it (DIR/note). */
	char note[512];
	char release[65];
	int n_reports;
	int pass, fail, skip;
	int logs;	      /* kernel-log check results */
	char log_unread[512]; /* the first kernel-log check that skipped */
	/* The first program of ptecheck's own the kernel refused (report
	   bpf.refused), or one over the verifier's budget: a control with one
	   is not clean, a mutant with one is not caught (what it lost is
	   ptecheck's, not the bug's). */
	char refused[400];
	int n_failed; /* (check, tier) that failed in some run; at most PC_MUTATE_MAX_FAILED */
	struct pc_mutate_failure failed[PC_MUTATE_MAX_FAILED];
};

struct pc_mutate_control {
	struct pc_mutate_run run;
	bool clean;
	char reason[512]; /* unclean: why; clean: what was judged */
};

struct pc_mutate_row {
	struct pc_mutant m;
	struct pc_mutate_run run;
	char decision[32]; /* the gate's: "ship", "do not ship"; "" when not gated */
	int n_rules;	   /* the gate's rules that failed it */
	char rules[PC_MUTATE_MAX_RULES][48];
	char gate_evidence[PC_MUTANT_TEXT]; /* the first failing rule's reason */
	bool caught;
	char reason[512]; /* caught: by what; missed: why */
};

/* Judges the control's directory; never fails (an unreadable report is
   an unclean control, with the reason). */
void pc_mutate_judge_control(const char *dir, struct pc_mutate_control *c);
/* Judges a mutant: its header from patch, its run from dir.  -1 with err
   only when the header does not parse. */
int pc_mutate_judge_mutant(const char *patch, const char *dir, struct pc_mutate_row *row, char *err,
			   size_t errlen);

enum pc_mutate_format { PC_MUTATE_TEXT = 0, PC_MUTATE_JSON };

/* The table; returns the exit code (enum pc_mutate_exit), or -errno when
   writing failed. */
int pc_mutate_write(FILE *f, enum pc_mutate_format fmt, const char *arch,
		    const struct pc_mutate_control *c, const struct pc_mutate_row *rows, int n);
/* The exit code the table stands for. */
int pc_mutate_exit_code(const struct pc_mutate_control *c, const struct pc_mutate_row *rows, int n);

#endif
