// SPDX-License-Identifier: GPL-2.0
/*
 * Violation stacks: bpf_get_task_stack() of the current task, taken in
 * the BPF emitter, starts inside the helper; the first frame in a BPF
 * program ("[bpf]" in kallsyms) is the program that judged, and the
 * frames below it are the hooked kernel path.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "stack.h"

static const struct pc_ksyms *syms(struct pc_stack_syms *s)
{
	if (!s->tried) {
		s->tried = true;
		s->err = pc_ksyms_load(&s->k, s->path ? s->path : "/proc/kallsyms");
	}
	return s->err ? NULL : &s->k;
}

static bool in_bpf(const struct pc_ksyms *k, __u64 addr)
{
	const struct pc_ksym *sym = pc_ksyms_find(k, addr);

	return sym && sym->mod && !strcmp(sym->mod, "bpf");
}

/* Why frames have no names, into note; "" when they have. */
static void names_note(const struct pc_stack_syms *s, char *note, size_t len)
{
	if (s->err)
		snprintf(note, len, "no names: kallsyms unreadable: %s", strerror(-s->err));
	else if (s->k.hidden)
		snprintf(note, len,
			 "symbols hidden: kallsyms shows zero addresses (kptr_restrict)");
	else
		note[0] = 0;
}

void pc_stack_evidence(struct pc_stack_syms *s, const struct pc_violation_event *ev,
		       struct pc_evidence *out)
{
	int n = ev->stack_len > 0 ? (int)(ev->stack_len / sizeof(ev->stack[0])) : 0;
	const struct pc_ksyms *k;
	int first = 0;

	out->n_frames = 0;
	if (ev->stack_len < 0 || n == 0) {
		/* 0 bytes is no error; say no data rather than nothing. */
		out->stack_err = ev->stack_len < 0 ? (int)-ev->stack_len : ENODATA;
		return;
	}
	if (n > PC_EVIDENCE_FRAMES)
		n = PC_EVIDENCE_FRAMES;
	k = syms(s);
	names_note(s, out->stack_note, sizeof(out->stack_note));
	if (k && !k->hidden)
		while (first < n && !in_bpf(k, ev->stack[first]))
			first++;
	if (first == n) /* no BPF frame named: keep them all */
		first = 0;
	for (int i = first; i < n; i++) {
		struct pc_frame *f = &out->frames[out->n_frames++];

		f->addr = ev->stack[i];
		if (!k || !pc_ksyms_format(k, f->addr, f->sym, sizeof(f->sym)))
			f->sym[0] = 0;
	}
}

void pc_stack_syms_free(struct pc_stack_syms *s)
{
	pc_ksyms_free(&s->k);
	*s = (struct pc_stack_syms){0};
}
