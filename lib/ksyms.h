/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel text symbols from /proc/kallsyms (or a file in its format), for
 * naming the frames of a kernel stack "func+0xoff" ("func+0xoff [mod]"
 * for a module's, "[bpf]" for BPF programs and trampolines).
 */
#ifndef PTECHECK_KSYMS_H
#define PTECHECK_KSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <ptecheck/types.h>

struct pc_ksym {
	__u64 addr;
	const char *name;
	const char *mod; /* NULL: the kernel image */
};

struct pc_ksyms {
	struct pc_ksym *syms; /* by address; at one address, the file's first */
	size_t n;
	/* Every address read 0 (kptr_restrict, lockdown): the names are
	   there, their addresses are not, so nothing can be named. */
	bool hidden;
};

/* Reads the text symbols (types t, T, w, W) of path into *k (zeroed on
   error); 0 or -errno (-EINVAL: a line that is not kallsyms). */
int pc_ksyms_load(struct pc_ksyms *k, const char *path);
void pc_ksyms_free(struct pc_ksyms *k);
/* The symbol addr lies in (the nearest at or below it), NULL if addr is
   below every symbol or none is known. */
const struct pc_ksym *pc_ksyms_find(const struct pc_ksyms *k, __u64 addr);
/* "func+0xoff" or "func+0xoff [mod]" into buf (cut at len); false, and
   buf "", when no symbol is known for addr. */
bool pc_ksyms_format(const struct pc_ksyms *k, __u64 addr, char *buf, size_t len);

#endif
