/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A child sharing the scenario's pages across fork (verify/sharer.c): told
 * to go, it reads each page, writes the ones it is asked to, and reports
 * what it saw, so the parent can judge COW isolation both ways.
 */
#ifndef PTECHECK_SHARER_H
#define PTECHECK_SHARER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <ptecheck/types.h>

struct pc_sharer {
	pid_t pid;
	int go[2], res[2]; /* go: parent -> child; res: child -> parent */
};

#define PC_SHARER_INIT                                                                             \
	{                                                                                          \
		-1, {-1, -1},                                                                      \
		{                                                                                  \
			-1, -1                                                                     \
		}                                                                                  \
	}

/*
 * Forks the child sharing npages pages at p.  Told to go, it reads each
 * page (pc_block_seen of the SALT_A fill), then fills the pages
 * child_writes() names (NULL: none) with SALT_B, then reports what it saw.
 * 0, or -errno with *what naming the step.
 */
int pc_sharer_start(struct pc_sharer *s, char *p, size_t npages, bool (*child_writes)(size_t i),
		    const char **what);
/* Lets the child go; what it saw of each page in seen: npages, or -errno. */
ssize_t pc_sharer_collect(struct pc_sharer *s, __u8 *seen, size_t npages);
/* Ends the child (any part of pc_sharer_start done). */
void pc_sharer_stop(struct pc_sharer *s);

#endif
