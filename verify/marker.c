// SPDX-License-Identifier: GPL-2.0
/* The per-entry markers as trigger states (verify/marker.h). */
#include <errno.h>
#include <stdio.h>

#include <ptecheck/common.h>
#include "marker.h"
#include "measure.h"
#include "procmm.h"
#include "settings.h"

static const struct {
	__u64 bit;
	const char *name, *how;
} marks[] = {
	[PC_MARK_SOFT_DIRTY] = {PC_PM_SOFT_DIRTY, "soft-dirty", "written after clear_refs 4"},
	[PC_MARK_UFFD_WP] = {PC_PM_UFFD_WP, "uffd-wp-protected", "after UFFDIO_WRITEPROTECT"},
};

__u64 pc_mark_bit(enum pc_mark m)
{
	return marks[m].bit;
}

const char *pc_mark_name(enum pc_mark m)
{
	return marks[m].name;
}

const char *pc_mark_how(enum pc_mark m)
{
	return marks[m].how;
}

int pc_mark_kept(enum pc_mark m, bool before, bool after)
{
	return m == PC_MARK_UFFD_WP ? pc_uffd_wp_kept(before, after)
				    : pc_soft_dirty_kept(before, after);
}

/* uffd-wp's marking: the range registered, page p of every fp
   write-protected. */
static int protect_each(struct pc_uffd *u, struct pc_attempt *a, char *base, size_t n, size_t fp,
			size_t p)
{
	const char *what;
	int ret = pc_uffd_register(u, base, n * PAGE, &what);

	if (ret == -EOPNOTSUPP) {
		pc_skip_all(a, "no uffd-wp for anonymous memory in this kernel "
			       "(UFFDIO_REGISTER_MODE_WP: EINVAL)");
		return 1;
	}
	for (size_t i = p; !ret && i < n; i += fp)
		ret = pc_uffd_wp(u, base + i * PAGE, PAGE, &what);
	return ret ? pc_skip_rest(a, what, -ret) : 0;
}

int pc_mark_open(enum pc_mark m, struct pc_uffd *u, struct pc_attempt *a, __u64 features)
{
	const char *what;
	int ret;

	if (m != PC_MARK_UFFD_WP)
		return 0;
	ret = pc_uffd_open(u, features, &what);
	if (ret == -EOPNOTSUPP) {
		char why[200];

		snprintf(why, sizeof(why), "not in this kernel: %s", what);
		pc_skip_all(a, why);
		return 1;
	}
	return ret ? pc_skip_rest(a, what, -ret) : 0;
}

int pc_mark_each(enum pc_mark m, struct pc_uffd *u, struct pc_attempt *a, char *base, size_t n,
		 size_t fp, size_t p, size_t off)
{
	int ret;

	if (m == PC_MARK_UFFD_WP)
		return protect_each(u, a, base, n, fp, p);
	ret = pc_write_file("/proc/self/clear_refs", "4");
	if (ret)
		return pc_skip_rest(a, "clear_refs 4", -ret);
	for (size_t i = p; i < n; i += fp)
		base[i * PAGE + off] = (char)pc_page_byte(i, SALT_B);
	return 0;
}

const char *pc_mark_missing(enum pc_mark m, const __u64 *state, const struct pc_folios *fo,
			    size_t p, char *why, size_t len, bool *retry, bool *no_bit)
{
	size_t marked_other = 0, unmarked = 0, moved = 0, chosen = 0, fp = fo->fp;
	const char *name = marks[m].name;

	*retry = true;
	*no_bit = false;
	for (size_t i = 0; i < fo->n; i++) {
		bool marked = state[i] & marks[m].bit;

		if (!fo->whole[i / fp])
			continue;
		moved += (state[i] & PC_PM_PRESENT ? state[i] & PC_PM_PFN_MASK : 0) != fo->pfns[i];
		if (i % fp == p) {
			chosen++;
			unmarked += !marked;
		} else {
			marked_other += marked;
		}
	}
	if (m == PC_MARK_UFFD_WP)
		unmarked = 0;
	if (unmarked == chosen && !marked_other && !moved) {
		*retry = false;
		*no_bit = true;
		snprintf(why, len,
			 "no %s bit in this kernel's pagemap: none of %zu pages %s reads %s", name,
			 chosen, marks[m].how, name);
	} else if (moved) {
		snprintf(why, len, "%zu pages changed PFN while marked (migration, reclaim)",
			 moved);
	} else if (marked_other) {
		snprintf(why, len, "%zu pages not marked read %s", marked_other, name);
	} else if (unmarked) {
		snprintf(why, len, "%zu of %zu marked pages do not read %s", unmarked, chosen,
			 name);
	} else {
		return NULL;
	}
	return why;
}
