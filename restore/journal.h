/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The journals of /run/ptecheck as `ptecheck restore` sees them (the
 * format: lib/settings.h): every journal and its records read into one
 * state, and a journal removed or rewritten with what is left of it.
 */
#ifndef PTECHECK_RESTORE_JOURNAL_H
#define PTECHECK_RESTORE_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "settings.h"

/* What became of a record. */
enum { PC_REC_PENDING, PC_REC_DONE, PC_REC_LEFT, PC_REC_BAD };

struct pc_rec {
	unsigned long long time;
	unsigned long long start;
	unsigned int seq; /* file order, for records of the same nanosecond */
	int j;		  /* index of its journal */
	int state;
	pid_t pid;
	char boot[40];
	char kind[16];
	char a1[PC_JOURNAL_ARG_MAX], a2[PC_JOURNAL_ARG_MAX];
	char line[PC_JOURNAL_LINE_MAX];
};

struct pc_journal {
	char name[64];
	pid_t pid;
	unsigned long long start;
	char boot[40];
	bool tmp;	 /* a rewrite's leftover temporary file */
	bool has_owner;	 /* a record named its start time and boot */
	bool alive;	 /* the owner still runs */
	bool act;	 /* undone by this restore */
	bool unreadable; /* left as it is */
	int nrec, torn;
};

struct pc_restore {
	int dfd; /* PC_JOURNAL_DIR, or -1 */
	bool dry, force;
	char boot[40]; /* this boot's id */
	struct pc_journal *j;
	int nj;
	struct pc_rec *r;
	int nr;
	int undone, left, io_err;
};

#define pc_restore_say(fmt, ...)  printf("ptecheck: restore: " fmt "\n", ##__VA_ARGS__)
#define pc_restore_warn(fmt, ...) fprintf(stderr, "ptecheck: restore: " fmt "\n", ##__VA_ARGS__)

/*
 * Reads every journal into st (st->dfd -1 before).  0 (an unreadable
 * journal is marked so, with st->io_err), or -errno with why set when the
 * directory is unusable (-ENOENT: there is none).
 */
int pc_restore_load(struct pc_restore *st, char *why, size_t len);
void pc_restore_free(struct pc_restore *st);

/*
 * Removes journal j when all its records are done, or rewrites it (through
 * a rename) with the rest.  The number of records kept (a dry run only
 * counts them), or -errno.
 */
int pc_restore_finish_journal(struct pc_restore *st, struct pc_journal *j);

#endif
