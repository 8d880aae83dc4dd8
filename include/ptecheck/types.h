/* SPDX-License-Identifier: GPL-2.0 */
/* Fixed-width types usable from BPF programs and from userspace alike. */
#ifndef PTECHECK_TYPES_H
#define PTECHECK_TYPES_H

#ifdef __bpf__
/* bpf/kernel_types.h provides __u8 ... __u64 for BPF objects. */
#else
#include <linux/types.h>
#include <stdbool.h>
#endif

#endif
