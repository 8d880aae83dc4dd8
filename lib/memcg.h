/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A memory cgroup of this process's own for the time of a scenario, so
 * that reclaim takes the scenario's memory and nobody else's: a child of
 * the cgroup v2 root (memory.reclaim, v5.19 on), the process moved into it
 * before it faults the memory (charges stay where a page was charged
 * first), moved back and the cgroup removed after.  The cgroup is
 * journaled ("dir") before it is made and removed on every exit path
 * (lib/settings.h's undo), so `ptecheck restore` removes what a SIGKILL
 * left.  One at a time per process.
 */
#ifndef PTECHECK_MEMCG_H
#define PTECHECK_MEMCG_H

#include <stdbool.h>
#include <stddef.h>

/*
 * The process moved into a new memory cgroup.  0, or -errno with why set
 * (nothing changed): -ENOENT no cgroup v2 mounted, -EOPNOTSUPP no memory
 * controller for the root's children or no memory.reclaim, -EBUSY one is
 * entered already, or the error of a step.  The root is the first cgroup2
 * mount of /proc/self/mountinfo, or $PTECHECK_CGROUP_ROOT (tests).
 */
int pc_memcg_enter(char *why, size_t why_len);
/* Asks the cgroup's memory.reclaim for bytes.  0, or -errno with why set;
   -EAGAIN (less than bytes reclaimed) is 0. */
int pc_memcg_reclaim(size_t bytes, char *why, size_t why_len);
/* The process back in its cgroup, the cgroup removed.  0 or the first
   -errno.  Async-signal-safe; a no-op when none is entered. */
int pc_memcg_leave(void);
/* The entered cgroup's directory, or NULL. */
const char *pc_memcg_dir(void);

/* Parsers (tests): a /proc/self/mountinfo line's mount point when its
   filesystem is cgroup2 and its root "/", into mnt; true if so. */
bool pc_memcg_mountinfo_line(const char *line, char *mnt, size_t len);
/* The v2 path ("0::PATH") of a /proc/PID/cgroup text into path; true if
   found. */
bool pc_memcg_v2_path(const char *text, char *path, size_t len);

#endif
