/* SPDX-License-Identifier: GPL-2.0 */
/* The undo actions of `ptecheck restore`, one per record kind. */
#ifndef PTECHECK_RESTORE_UNDO_H
#define PTECHECK_RESTORE_UNDO_H

#include "journal.h"

/*
 * Undoes record r of a journal st acts on (or, st->dry, says what it would
 * do), sets r->state and counts it in st->undone or st->left, with a line
 * on stdout or stderr.  A record read as bad is left; a tmpdir an older
 * record names too is left to that one, silently.
 */
void pc_restore_undo(struct pc_restore *st, struct pc_rec *r);

#endif
