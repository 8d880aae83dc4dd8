/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The batch path's derived source (bpf/batch_walk.bpf.c), loader side:
 * trace/batch.c calls these for the source PC_BSRC_WALK.
 */
#ifndef PTECHECK_TRACE_BATCH_WALK_H
#define PTECHECK_TRACE_BATCH_WALK_H

#include <ptecheck/events.h>

struct pc_session;
struct pc_report;
struct pc_features;

/* NULL when the session walks, else why not (no direct map, no vmemmap). */
const char *pc_batch_walk_why(const struct pc_session *s);
/* Its read-only data, before the object loads. */
void pc_batch_walk_configure(struct pc_session *s);
/* A note of what the walk counted besides runs (small folios, unread,
   not walked), when it ran. */
void pc_batch_walk_note(struct pc_session *s, struct pc_report *r);
/* `ptecheck features`: the derived source's line, from the calibration. */
void pc_batch_walk_feature(const struct pc_features *f);

#endif
