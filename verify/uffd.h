/* SPDX-License-Identifier: GPL-2.0 */
/*
 * userfaultfd write protection, a trigger state the suites share
 * (verify/uffd.c): a userfaultfd, the process that reads its events and
 * resolves write-protect faults, the range registered for uffd-wp and
 * pages of it write-protected.
 */
#ifndef PTECHECK_UFFD_H
#define PTECHECK_UFFD_H

#include <stddef.h>
#include <sys/types.h>
#include <ptecheck/types.h>

struct pc_uffd {
	int fd;	       /* the userfaultfd, -1 before pc_uffd_open */
	pid_t reader;  /* the process reading its events, -1 before */
	__u64 *shared; /* counters the reader keeps, NULL before */
};

/* linux/userfaultfd.h of v6.4; Debian 12's headers are older. */
#define PC_UFFD_FEATURE_WP_UNPOPULATED (1ULL << 13)

/* The userfaultfd with features (UFFD_FEATURE_*) and its reader, before
   the range is mapped: 0, or -errno with *what naming the step
   (-EOPNOTSUPP: no userfaultfd, or a feature this kernel lacks). */
int pc_uffd_open(struct pc_uffd *u, __u64 features, const char **what);
/* [addr, +len) registered for uffd-wp, nothing protected yet: 0 or -errno
   (-EOPNOTSUPP: no uffd-wp for this memory in this kernel). */
int pc_uffd_register(struct pc_uffd *u, char *addr, size_t len, const char **what);
/* [addr, +len), inside a registered range, write-protected: 0 or -errno. */
int pc_uffd_wp(struct pc_uffd *u, char *addr, size_t len, const char **what);
/* pc_uffd_register and pc_uffd_wp of the whole range. */
int pc_uffd_protect(struct pc_uffd *u, char *addr, size_t len, const char **what);
/* Write-protect faults and REMAP events read so far; the errno of a fault
   the reader could not resolve (0: none). */
__u64 pc_uffd_faults(const struct pc_uffd *u);
__u64 pc_uffd_remaps(const struct pc_uffd *u);
int pc_uffd_error(const struct pc_uffd *u);
/* Ends the reader and closes what pc_uffd_open made (any part of it). */
void pc_uffd_close(struct pc_uffd *u);

#endif
