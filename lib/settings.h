/* SPDX-License-Identifier: GPL-2.0 */
/*
 * System settings the suite changes (mTHP sysfs, fault-around, ...).  Each
 * is recorded before its first change and restored on every exit path:
 * normal return, exit(), SIGINT, SIGTERM, SIGHUP.
 */
#ifndef PTECHECK_SETTINGS_H
#define PTECHECK_SETTINGS_H

#include <stddef.h>

/* Writes value to path, recording the old value first.  0 or -errno. */
int pc_setting_set(const char *path, const char *value);
/* Restores every recorded setting, newest first.  0 or the first -errno. */
int pc_settings_restore_all(void);
/* atexit() and signal handlers that restore, then die by the same signal. */
void pc_settings_install_handlers(void);
/* Number of settings currently changed. */
int pc_settings_changed(void);

/*
 * Registers undo (e.g. unmounting scratch filesystems) for
 * pc_settings_restore_all(), which runs the registered undos newest first,
 * before restoring the settings, each once per registration.  undo must be
 * async-signal-safe.  Registering a function already pending is a no-op,
 * so a module may register on every use.  0 or -ENOSPC.
 */
int pc_settings_add_undo(int (*undo)(void));

/* Reads a small sysfs/procfs file; trailing newline removed.  0 or -errno. */
int pc_read_file(const char *path, char *buf, size_t len);
/* Writes a string to a file (no recording).  0 or -errno. */
int pc_write_file(const char *path, const char *value);

/* The bracketed choice of a sysfs "a [b] c" file, or the whole content. */
int pc_sysfs_choice(const char *path, char *buf, size_t len);

/*
 * mTHP: enable anonymous (shmem=0) or shmem (shmem=1) folios of size_kb with
 * mode ("always", "madvise", "inherit", "never", "within_size", ...).
 * 0, or -ENOENT when the kernel has no such size, or another -errno.
 */
int pc_mthp_set(unsigned int size_kb, int shmem, const char *mode);
/* Top-level THP "enabled" (anon PMD + inherit). */
int pc_thp_set(const char *mode);

#endif
