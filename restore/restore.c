// SPDX-License-Identifier: GPL-2.0
/*
 * ptecheck restore: undoes what a killed (SIGKILL, crash) ptecheck run or
 * workload left changed, from the journals in /run/ptecheck (see
 * lib/settings.h for the format).  Journals whose owner still runs (same
 * pid, same start time, same boot) are left alone unless --force.  The
 * records of the rest are undone newest first, across journals (a workload
 * under a run changes what the run changed), and a journal is removed once
 * all of it is undone, else rewritten with what is left.  This file: the
 * command; journal.c reads the journals, undo.c undoes a record.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "command.h"
#include "journal.h"
#include "restore.h"
#include "undo.h"

#define EXIT_LEFT 1 /* something could not be undone */
#define EXIT_IO	  3 /* a journal could not be read */

static void usage(FILE *f)
{
	fprintf(f, "Usage: ptecheck restore [--dry-run] [--force]\n\n"
		   "Undoes what a ptecheck run or workload killed by SIGKILL (or a crash)\n"
		   "left changed: mTHP settings, scratch mounts, loop devices, image files\n"
		   "and directories, from the journals in " PC_JOURNAL_DIR ".  Journals of\n"
		   "processes still running are left alone.  Newest change first.\n\n"
		   "  --dry-run   print what would be undone; change nothing\n"
		   "  --force     undo the journals of running processes too\n\n"
		   "Exit: 0 nothing left changed, 1 something could not be undone (said why),\n"
		   "      2 usage or privilege, 3 the journals could not be read.\n");
}

/* Marks the journals to undo (and says so); the number of live ones left alone. */
static int choose_journals(struct pc_restore *st)
{
	int skipped = 0;

	for (int i = 0; i < st->nj; i++) {
		struct pc_journal *j = &st->j[i];

		if (j->tmp) {
			/* A rewrite interrupted before its rename: the journal itself is whole. */
			unsigned long long start;

			if (!pc_proc_starttime(j->pid, &start))
				continue;
			if (st->dry)
				pc_restore_say("would delete %s/%s (an interrupted rewrite)",
					       PC_JOURNAL_DIR, j->name);
			else if (!unlinkat(st->dfd, j->name, 0))
				pc_restore_say("deleted %s/%s (an interrupted rewrite)",
					       PC_JOURNAL_DIR, j->name);
			continue;
		}
		if (j->unreadable || j->pid == getpid())
			continue;
		if (j->alive && !st->force) {
			skipped++;
			pc_restore_say(
				"pid %d is still running: its journal %s/%s (%d record%s) is "
				"left alone (--force undoes it anyway)",
				(int)j->pid, PC_JOURNAL_DIR, j->name, j->nrec,
				j->nrec == 1 ? "" : "s");
			continue;
		}
		j->act = true;
		pc_restore_say("pid %d %s: %s the %d record%s of %s/%s, newest first", (int)j->pid,
			       j->alive ? "is still running (--force)" : "is gone",
			       st->dry ? "would undo" : "undoing", j->nrec, j->nrec == 1 ? "" : "s",
			       PC_JOURNAL_DIR, j->name);
		if (j->torn)
			pc_restore_say("pid %d: ignoring a partial last record: it died writing "
				       "it, before making that change",
				       (int)j->pid);
	}
	return skipped;
}

/* Newest first; file order breaks ties within a journal. */
static int cmp_newest(const void *a, const void *b)
{
	const struct pc_rec *x = *(const struct pc_rec *const *)a,
			    *y = *(const struct pc_rec *const *)b;

	if (x->time != y->time)
		return x->time < y->time ? 1 : -1;
	if (x->j != y->j)
		return x->j < y->j ? 1 : -1;
	return x->seq < y->seq ? 1 : x->seq > y->seq ? -1 : 0;
}

/* Undoes the records of the chosen journals, newest first: how many, or -ENOMEM. */
static int undo_newest_first(struct pc_restore *st)
{
	struct pc_rec **order = calloc((size_t)st->nr + 1, sizeof(*order));
	int n = 0;

	if (!order)
		return -ENOMEM;
	for (int i = 0; i < st->nr; i++)
		if (st->j[st->r[i].j].act)
			order[n++] = &st->r[i];
	qsort(order, (size_t)n, sizeof(*order), cmp_newest);
	for (int i = 0; i < n; i++)
		pc_restore_undo(st, order[i]);
	free(order);
	return n;
}

static void finish_journals(struct pc_restore *st)
{
	for (int i = 0; i < st->nj; i++) {
		struct pc_journal *j = &st->j[i];
		int kept;

		if (!j->act)
			continue;
		kept = pc_restore_finish_journal(st, j);
		if (kept < 0)
			st->io_err = 1;
		else if (st->dry)
			continue;
		else if (kept > 0)
			pc_restore_say("kept %s/%s with the %d record%s not undone", PC_JOURNAL_DIR,
				       j->name, kept, kept == 1 ? "" : "s");
		else
			pc_restore_say("removed %s/%s: all undone", PC_JOURNAL_DIR, j->name);
	}
}

static void summary(const struct pc_restore *st, int n, int skipped)
{
	if (!n && !st->left && !skipped && !st->io_err)
		pc_restore_say("nothing to do: no change was left behind");
	else if (st->dry)
		pc_restore_say("dry run: %d change%s would be undone, %d could not, %d journal%s "
			       "of running processes left alone; nothing was changed",
			       st->undone, st->undone == 1 ? "" : "s", st->left, skipped,
			       skipped == 1 ? "" : "s");
	else
		pc_restore_say("%d change%s undone, %d could not be undone, %d journal%s of "
			       "running processes left alone",
			       st->undone, st->undone == 1 ? "" : "s", st->left, skipped,
			       skipped == 1 ? "" : "s");
}

/* Reads, undoes and finishes the journals: the exit code. */
static int restore(struct pc_restore *st)
{
	char why[512];
	int err, n, skipped;

	err = pc_restore_load(st, why, sizeof(why));
	if (err == -ENOENT) {
		pc_restore_say("nothing to do: no %s", PC_JOURNAL_DIR);
		return PC_EXIT_PASS;
	}
	if (err) {
		pc_restore_warn("%s", why);
		return EXIT_IO;
	}
	skipped = choose_journals(st);
	n = undo_newest_first(st);
	if (n < 0) {
		pc_restore_warn("%s", strerror(-n));
		return EXIT_IO;
	}
	finish_journals(st);
	summary(st, n, skipped);
	return st->io_err ? EXIT_IO : st->left ? EXIT_LEFT : PC_EXIT_PASS;
}

int pc_cmd_restore(int argc, char **argv)
{
	static const struct option opts[] = {
		{"dry-run", no_argument, NULL, 'n'},
		{"force", no_argument, NULL, 'f'},
		{"help", no_argument, NULL, 'h'},
		{},
	};
	struct pc_cmd_opts o = {"restore", "h", opts, usage};
	struct pc_restore st = {.dfd = -1};
	int c, lock_fd = -1, code;

	optind = 1;
	while ((c = pc_cmd_getopt(&o, argc, argv)) != -1) {
		if (c == 'n')
			st.dry = true;
		else if (c == 'f')
			st.force = true;
	}
	if (o.exit_code >= 0)
		return o.exit_code;
	if (geteuid() != 0) {
		pc_restore_warn("needs root: the journals in %s are root's, and so are the changes",
				PC_JOURNAL_DIR);
		return PC_EXIT_USAGE;
	}
	/* Keeps 'ptecheck run' from starting (and recording our half-undone
	   state) meanwhile; a run already going does not stop a restore. */
	if (!st.dry)
		lock_fd = pc_machine_lock(NULL);
	code = restore(&st);
	pc_restore_free(&st);
	pc_machine_unlock(lock_fd);
	return code;
}

int pc_restore_pending(char *msg, size_t len)
{
	struct pc_restore st = {.dfd = -1};
	char why[512];
	int err, i, dead = 0;
	pid_t first = 0;

	msg[0] = '\0';
	err = pc_restore_load(&st, why, sizeof(why));
	if (err == -ENOENT) {
		pc_restore_free(&st);
		return 0;
	}
	if (err) {
		snprintf(msg, len, "%s", why);
		pc_restore_free(&st);
		return err;
	}
	for (i = 0; i < st.nj; i++) {
		struct pc_journal *j = &st.j[i];

		if (j->tmp || j->alive || j->pid == getpid() || (!j->nrec && !j->unreadable))
			continue;
		if (!dead++)
			first = j->pid;
	}
	if (dead == 1)
		snprintf(msg, len,
			 "a previous run (pid %d) was killed and left changes behind: "
			 "run 'ptecheck restore'",
			 (int)first);
	else if (dead > 1)
		snprintf(msg, len,
			 "%d previous runs (pid %d, ...) were killed and left changes "
			 "behind: run 'ptecheck restore'",
			 dead, (int)first);
	pc_restore_free(&st);
	return dead;
}
