/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Scratch filesystems for file-backed workloads: a tmpfs with mount
 * options (huge=within_size), and a real block filesystem (ext4) on a
 * loop device whose image lives in a temporary directory.  Everything
 * made here is undone by pc_scratch_release_all(), which the settings
 * restore path (lib/settings.c) also runs on exit and on SIGINT, SIGTERM,
 * SIGHUP and SIGQUIT, so no mount or loop device outlives the run.  Each step
 * (directory, image, loop device, mount, and a mkdtemp() parent of dir) is
 * journaled first (lib/settings.h), so what a SIGKILL leaves is undone by
 * `ptecheck restore`; a step the journal refuses is not taken (why says so).
 */
#ifndef PTECHECK_SCRATCHFS_H
#define PTECHECK_SCRATCHFS_H

#include <stddef.h>

/* Mounts a tmpfs on dir (created if missing) with options, e.g.
   "huge=within_size,size=256m".  0 or -errno, with a reason in why. */
int pc_scratch_tmpfs(const char *dir, const char *options, char *why, size_t why_len);
/* Makes an fstype ("ext4") filesystem of size_mb in an image file next to
   dir, attaches it to a free loop device and mounts it on dir.  0 or
   -errno with a reason in why (no loop support, no mkfs, ...). */
int pc_scratch_blockfs(const char *dir, const char *fstype, unsigned int size_mb, char *why,
		       size_t why_len);
/* Unmounts, detaches and deletes everything made, newest first.  0 or the
   first -errno.  Safe to call more than once and from a signal path. */
int pc_scratch_release_all(void);

#endif
