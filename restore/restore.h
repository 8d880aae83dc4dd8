/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PTECHECK_RESTORE_H
#define PTECHECK_RESTORE_H

#include <stddef.h>

/* ptecheck restore [--dry-run] [--force]: undoes what killed runs left. */
int pc_cmd_restore(int argc, char **argv);

/*
 * For `ptecheck run` at start: the number of journals left by processes
 * that died without undoing their changes (0: none), with a message for
 * the user in msg; or -errno with the reason in msg (an unsafe
 * /run/ptecheck, an unreadable journal).  Changes nothing.
 */
int pc_restore_pending(char *msg, size_t len);

#endif
