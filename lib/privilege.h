/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Least privilege for the parts of a run that do not need all of root
 * (docs/robustness.md, "Privileges"): capability sets trimmed for
 * scenario processes and stressors, a command run as another user, and
 * report files opened with the invoking user's rights.
 */
#ifndef PTECHECK_PRIVILEGE_H
#define PTECHECK_PRIVILEGE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* What a scenario process keeps: PFNs in /proc/self/pagemap and
   /proc/kpage* (SYS_ADMIN), mlock beyond RLIMIT_MEMLOCK (IPC_LOCK), and
   files in a --fs-dir another user owns (DAC_OVERRIDE, FOWNER). */
#define PC_CAPS_SCENARIO                                                                           \
	((1ULL << 21 /* CAP_SYS_ADMIN */) | (1ULL << 14 /* CAP_IPC_LOCK */) |                      \
	 (1ULL << 1 /* CAP_DAC_OVERRIDE */) | (1ULL << 3 /* CAP_FOWNER */))
/* And CAP_SYS_PTRACE, for the scenarios that say so (PC_SCENARIO_CAP_PTRACE). */
#define PC_CAP_SYS_PTRACE (1ULL << 19)
/* Stressors need none: their own memory, and root-owned files as uid 0. */
#define PC_CAPS_NONE 0ULL

/*
 * Keeps only the capabilities in keep (a mask of CAP_* bits) in the
 * bounding, permitted, effective and inheritable sets, clears the ambient
 * set and sets no_new_privs, so neither this process nor anything it
 * executes can regain the rest.  0 or -errno.
 */
int pc_caps_limit(unsigned long long keep);

/* pc_caps_limit() for a process that has capabilities (root); nothing for
   one that has none.  The workloads call it once their options are read. */
int pc_caps_limit_if_privileged(unsigned long long keep);

/* Capabilities in this process's effective set, as a mask; 0 on error. */
unsigned long long pc_caps_effective(void);

/* A user to run as: "name" or a numeric uid; gid and groups from passwd
   when known.  0, -ENOENT for an unknown user, or -errno. */
struct pc_user {
	uid_t uid;
	gid_t gid;
	char name[64]; /* empty for a uid with no passwd entry */
};
int pc_user_lookup(const char *spec, struct pc_user *u);

/* Becomes u for good: supplementary groups, gid, uid, no capabilities.
   0 or -errno; on failure the caller must not go on as root. */
int pc_become_user(const struct pc_user *u);

/*
 * The user whose rights a report file is opened with: the one who ran
 * sudo (SUDO_UID, SUDO_GID) when we are root because of sudo; false when
 * no such user applies (plain root or not root).
 */
bool pc_report_user(struct pc_user *u);

/*
 * open(path, flags, mode) with u's rights: a child that has become u
 * opens it and passes the descriptor back, so root never creates or
 * truncates a file u could not.  fd or -errno.
 */
int pc_open_as_user(const struct pc_user *u, const char *path, int flags, mode_t mode);

#endif
