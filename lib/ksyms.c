// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/kallsyms as a table sorted by address, searched by bisection.  The
 * file is not sorted (modules and BPF programs come after the image, in
 * load order), and kallsyms gives no sizes: a frame belongs to the nearest
 * symbol at or below it.
 */
#include "ksyms.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* While loading: the file's order breaks ties between equal addresses. */
struct ksym_slot {
	struct pc_ksym sym;
	size_t line;
};

static int slot_cmp(const void *a, const void *b)
{
	const struct ksym_slot *x = a, *y = b;

	if (x->sym.addr != y->sym.addr)
		return x->sym.addr < y->sym.addr ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

static bool is_text(char type)
{
	return type == 't' || type == 'T' || type == 'w' || type == 'W';
}

/* One line into *s (name and module in one allocation); 1 kept, 0 not
   text, -errno. */
static int parse_line(const char *line, struct ksym_slot *s)
{
	char type, name[512], mod[128] = "";
	unsigned long long addr;
	size_t nl, ml;
	char *p;

	if (sscanf(line, "%llx %c %511s [%127[^]]]", &addr, &type, name, mod) < 3)
		return -EINVAL;
	if (!is_text(type))
		return 0;
	nl = strlen(name) + 1;
	ml = mod[0] ? strlen(mod) + 1 : 0;
	p = malloc(nl + ml);
	if (!p)
		return -ENOMEM;
	memcpy(p, name, nl);
	memcpy(p + nl, mod, ml);
	s->sym = (struct pc_ksym){.addr = addr, .name = p, .mod = ml ? p + nl : NULL};
	return 1;
}

static void free_slots(struct ksym_slot *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free((void *)v[i].sym.name);
	free(v);
}

/* The lines of f into *out (unsorted); the count, or -errno. */
static long read_slots(FILE *f, struct ksym_slot **out)
{
	struct ksym_slot *v = NULL, *nv;
	size_t n = 0, cap = 0, len = 0, line = 0;
	char *buf = NULL;
	int rc = 0;

	while (getline(&buf, &len, f) > 0) {
		if (n == cap) {
			cap = cap ? cap * 2 : 4096;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				rc = -ENOMEM;
				break;
			}
			v = nv;
		}
		v[n].line = line++;
		rc = parse_line(buf, &v[n]);
		if (rc < 0)
			break;
		n += rc;
	}
	if (rc >= 0 && ferror(f))
		rc = -EIO;
	free(buf);
	if (rc < 0) {
		free_slots(v, n);
		return rc;
	}
	*out = v;
	return (long)n;
}

int pc_ksyms_load(struct pc_ksyms *k, const char *path)
{
	struct ksym_slot *v = NULL;
	FILE *f = fopen(path, "re");
	long n;
	size_t i;

	*k = (struct pc_ksyms){0};
	if (!f)
		return -errno;
	n = read_slots(f, &v);
	fclose(f);
	if (n < 0)
		return (int)n;
	qsort(v, (size_t)n, sizeof(*v), slot_cmp);
	/* Sorted, a table of zeros ends in zero. */
	if (n > 0 && v[n - 1].sym.addr == 0) {
		free_slots(v, (size_t)n);
		k->hidden = true;
		return 0;
	}
	k->syms = malloc(((size_t)n ? (size_t)n : 1) * sizeof(*k->syms));
	if (!k->syms) {
		free_slots(v, (size_t)n);
		return -ENOMEM;
	}
	for (i = 0; i < (size_t)n; i++)
		k->syms[i] = v[i].sym;
	k->n = (size_t)n;
	free(v);
	return 0;
}

void pc_ksyms_free(struct pc_ksyms *k)
{
	for (size_t i = 0; i < k->n; i++)
		free((void *)k->syms[i].name);
	free(k->syms);
	*k = (struct pc_ksyms){0};
}

const struct pc_ksym *pc_ksyms_find(const struct pc_ksyms *k, __u64 addr)
{
	size_t lo = 0, hi = k->n;

	/* The first symbol above addr; the one before it holds addr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	/* Of several at that address, the file's first. */
	while (lo > 1 && k->syms[lo - 2].addr == k->syms[lo - 1].addr)
		lo--;
	return &k->syms[lo - 1];
}

bool pc_ksyms_format(const struct pc_ksyms *k, __u64 addr, char *buf, size_t len)
{
	const struct pc_ksym *s = pc_ksyms_find(k, addr);

	if (!len)
		return s != NULL;
	buf[0] = 0;
	if (!s)
		return false;
	snprintf(buf, len, "%s+0x%llx%s%s%s", s->name, (unsigned long long)(addr - s->addr),
		 s->mod ? " [" : "", s->mod ? s->mod : "", s->mod ? "]" : "");
	return true;
}
