/* SPDX-License-Identifier: GPL-2.0 */
/* The batch path's names (trace/batch.c), for its histograms and tests. */
#ifndef PTECHECK_TRACE_BATCH_H
#define PTECHECK_TRACE_BATCH_H

#include <stddef.h>
#include <ptecheck/batch.h>

/* "munmap", "madvise DONTNEED", ... ("?" out of range). */
const char *pc_batch_ctx_name(__u32 ctx);
/* "munmap PTEs per batch (folio_pte_batch)", "munmap PTEs per large-folio
   run (derived)": the names the gate's batching rule matches. */
void pc_batch_hist_name(__u32 src, __u32 ctx, char *buf, size_t len);
/* Its id, "<context>/batch/<source>" (report/hist_id.c): what the gate
   and the exporter key on, whatever the title says. */
void pc_batch_hist_id(__u32 src, __u32 ctx, char *buf, size_t len);

#endif
