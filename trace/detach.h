/* SPDX-License-Identifier: GPL-2.0 */
/* Detaching many BPF links at once. */
#ifndef PTECHECK_TRACE_DETACH_H
#define PTECHECK_TRACE_DETACH_H

#include "session.h"

/*
 * Destroys the n links, concurrently: closing a tracepoint's perf event
 * waits for RCU grace periods (tracepoint_synchronize_unregister()), so n
 * closes in a row take n of them, while concurrent ones share them.  Every
 * link is destroyed when it returns (inline if no thread can be had).
 */
void pc_links_destroy(struct pc_session_link *links, int n);

#endif
