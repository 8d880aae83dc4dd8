/* SPDX-License-Identifier: GPL-2.0 */
/* What the running kernel lets us do, found by trying (never by version). */
#ifndef PTECHECK_PROBE_H
#define PTECHECK_PROBE_H

#include <stdbool.h>
#include <stddef.h>

/* 0 when the kernel has the function in BTF and accepts an fentry program
 * on it; else -errno with a reason ("not in BTF: absent or inlined", ...). */
int pc_probe_fentry(const char *func, char *reason, size_t len);
/* The same for fexit when fexit is true (load and attach are both tried). */
int pc_probe_tracing(const char *func, bool fexit, char *reason, size_t len);
struct btf;
/* The running kernel has func in its BTF (a path marker; see features). */
bool pc_kernel_has_func(const char *func);
/* The running kernel's BTF (loaded once), NULL without one. */
const struct btf *pc_vmlinux_btf(void);
/* 0 when a kprobe can be created on func; else -errno with a reason. */
int pc_probe_kprobe(const char *func, char *reason, size_t len);
/* Enough privilege for BPF tracing (root or CAP_BPF+CAP_PERFMON). */
bool pc_have_bpf_privilege(void);
/* The kernel's own page-table checker (CONFIG_PAGE_TABLE_CHECK), whose
   BUGs the kernel-log check reports.  detail says how it was found. */
enum pc_ptc_state {
	PC_PTC_NOT_BUILT, /* no __page_table_check_* in BTF */
	PC_PTC_OFF,	  /* built in, not enabled at boot */
	PC_PTC_ON,	  /* page_table_check=on, or enforced by the config */
	PC_PTC_UNKNOWN,	  /* built in; the config is not readable */
};
enum pc_ptc_state pc_page_table_check(char *detail, size_t len);

#endif
