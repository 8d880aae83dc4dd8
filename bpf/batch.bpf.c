// SPDX-License-Identifier: GPL-2.0
/*
 * The batch path: the PTEs per batch of every path that batches, by the
 * context the batch was made in (include/ptecheck/batch.h).  Here the
 * source every path shares: folio_pte_batch()'s result, where it is out of
 * line (mm/util.c, v6.17+: zap, mlock, khugepaged, mempolicy, rmap).
 * Other kernel sources: bpf/batch_helpers.bpf.c; the derived one (the
 * page-table walk at syscall entry): bpf/batch_walk.bpf.c.
 */
#include "batch.bpf.h"

__noinline int pc_batch_add(__u32 src, __u32 ctx, __u64 nr)
{
	if (src < PC_BSRC__COUNT && ctx < PC_BCTX__COUNT)
		hist_add(PC_BATCH_HIST(PC_HIST_BATCH_FIRST, src, ctx), PC_HIST_LINLOG, nr);
	return 0;
}

static __always_inline void fpb_record(__u32 nr)
{
	if (pc_batch_counted())
		pc_batch_add(PC_BSRC_FPB, pc_batch_ctx_now(), nr);
}

SEC("fexit/folio_pte_batch")
int BPF_PROG(batch_fpb_fexit, void *folio, __u64 *ptep, __u64 pte, unsigned int max_nr,
	     unsigned int ret)
{
	fpb_record(ret);
	return 0;
}

SEC("kretprobe/folio_pte_batch")
int BPF_KRETPROBE(batch_fpb_kretprobe, unsigned int ret)
{
	fpb_record(ret);
	return 0;
}
