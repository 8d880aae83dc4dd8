/* SPDX-License-Identifier: GPL-2.0 */
/*
 * System settings the suite changes: the transparent hugepage sysfs knobs
 * (mTHP sizes, anonymous and shmem), and through the undo list whatever a
 * module registers (scratch mounts, stressors).  Each is recorded before
 * its first change and restored on every exit path: normal return, exit(),
 * SIGINT, SIGTERM, SIGHUP, SIGQUIT.  What SIGKILL, a crash or a power loss
 * leaves behind is in the journal (below), for `ptecheck restore`.
 */
#ifndef PTECHECK_SETTINGS_H
#define PTECHECK_SETTINGS_H

#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

/* Restores every recorded setting, newest first.  0 or the first -errno. */
int pc_settings_restore_all(void);
/* atexit() and signal handlers that restore, then die by the same signal. */
void pc_settings_install_handlers(void);
/* Blocks SIGINT, SIGTERM, SIGHUP and SIGQUIT (whose handlers restore
   everything) while a record is half written; old: the mask to restore. */
void pc_block_fatal_signals(sigset_t *old);

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

/*
 * A sysfs/procfs file set to value, its old value recorded (and
 * journaled) for the exit's restore as the mTHP files are: 0 or -errno.
 */
int pc_setting_write(const char *path, const char *value);
/* path back to what it was before this process first set it (no-op when
   it never did), the record kept for the exit's restore.  0 or -errno. */
int pc_setting_reset(const char *path);

/* The bracketed choice of a sysfs "a [b] c" file, or the whole content. */
int pc_sysfs_choice(const char *path, char *buf, size_t len);

/*
 * mTHP: enable anonymous (shmem=0) or shmem (shmem=1) folios of size_kb with
 * mode ("always", "madvise", "inherit", "never", "within_size", ...), in
 * the sysfs tree under $PTECHECK_SYSFS_ROOT (default /sys; a fake one for
 * tests).  0, or -ENOENT when the kernel has no such size, or another -errno.
 */
int pc_mthp_set(unsigned int size_kb, int shmem, const char *mode);
/* size_kb's mTHP mode (enabled, or shmem_enabled) back to what it was
   before this process first set it (no-op when it never did), the record
   kept for the exit's restore.  0 or -errno. */
int pc_mthp_reset(unsigned int size_kb, int shmem);

/*
 * Crash-safe journal (docs/robustness.md).  Before each change a record
 * "what, how to undo" is appended to /run/ptecheck/journal.PID and
 * fsync'ed; then the change is made.  Records undone in-process are
 * removed by pc_journal_sync() (the file is rewritten through a rename, or
 * unlinked once empty), so what is left belongs to a process that died
 * without undoing it, and `ptecheck restore` undoes it.
 *
 * A line: "v1 TIME_NS PID STARTTIME BOOT_ID KIND ARG [ARG]\n", the args
 * escaped as in /proc/mounts (\ooo for blanks, controls and backslash;
 * \000 alone for an empty field).  Kinds:
 *   set PATH OLD      write OLD back to PATH
 *   mount DIR FSTYPE  unmount DIR if FSTYPE is mounted there
 *   loop DEV IMAGE    detach the loop device whose backing file is IMAGE
 *   file PATH         unlink PATH
 *   dir DIR           rmdir DIR
 *   tmpdir DIR        rmdir DIR if empty (a mkdtemp() parent)
 */
#define PC_JOURNAL_DIR	    "/run/ptecheck"
#define PC_JOURNAL_PREFIX   "journal."
#define PC_JOURNAL_VERSION  "v1"
#define PC_JOURNAL_LINE_MAX 1280
#define PC_JOURNAL_ARG_MAX  512

/*
 * Appends a record and fsyncs it; *id is its handle, or -1 when there is no
 * journal here (no /run, not root, read-only): the change may go ahead
 * unrecorded, as before.  -errno when the journal refuses (an unsafe
 * /run/ptecheck, a full disk): the caller must not make the change.
 */
int pc_journal_add(int *id, const char *kind, const char *a1, const char *a2);
/* Marks a record undone (id < 0: none).  Async-signal-safe. */
void pc_journal_done(int id);
/* Rewrites this process's journal with the records not undone, or removes
   it when none is left.  0 or -errno.  Async-signal-safe. */
int pc_journal_sync(void);
/* pc_journal_done() + pc_journal_sync(): the change was not made after all. */
void pc_journal_drop(int id);
/* Why the journal refused, for messages. */
const char *pc_journal_error(void);
/*
 * Opens PC_JOURNAL_DIR (creating it 0700 if create), refusing it unless
 * it is a root-owned 0700 directory and not a symlink.  A directory fd,
 * or -errno with why set; *unsafe set when refused for that reason.
 */
int pc_journal_open_dir(int create, int *unsafe, char *why, size_t why_len);
/* Undoes the escaping in place (also /proc/mounts fields).  0 or -EINVAL. */
int pc_journal_unescape(char *s);
/* Field 22 of /proc/PID/stat: start time in clock ticks since boot.
   -ESRCH for a zombie, -ENOENT for no such process. */
int pc_proc_starttime(pid_t pid, unsigned long long *start);
/* /proc/sys/kernel/random/boot_id, or "-" when unknown. */
void pc_boot_id(char *buf, size_t len);

#endif
