// SPDX-License-Identifier: GPL-2.0
/*
 * The mTHP settings a run changes around one scenario (lib/settings.c,
 * PC_NEEDS_MTHP_16K), in a fake sysfs tree (PTECHECK_SYSFS_ROOT): a size
 * set twice goes back to its value before the first set, a size never
 * set is left alone, and the restore of the exit still puts back what
 * was changed (its journal dropped).
 */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fake_file.h"
#include "settings.h"
#include "tap.h"

#define CHOICES "always inherit madvise [never]"

static char root[64];

static void path_of(char *out, size_t n, unsigned int kb)
{
	snprintf(out, n, "%s/kernel/mm/transparent_hugepage/hugepages-%ukB/enabled", root, kb);
}

static int make_size(unsigned int kb)
{
	char dir[256], file[300];
	int err;

	snprintf(dir, sizeof(dir), "%s/kernel/mm/transparent_hugepage/hugepages-%ukB", root, kb);
	err = fake_mkdirs(dir, strlen(root));
	if (err)
		return err;
	path_of(file, sizeof(file), kb);
	return fake_put(file, CHOICES "\n") ? 0 : -EIO;
}

static bool reads(unsigned int kb, const char *want)
{
	char file[300];

	path_of(file, sizeof(file), kb);
	return fake_reads(file, want);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

/* Registered first, so it runs after the settings' own restore. */
static void rm_tree(void)
{
	nftw(root, rm_one, 8, FTW_DEPTH | FTW_PHYS);
}

int main(void)
{
	char journal[64];

	snprintf(root, sizeof(root), "/tmp/ptecheck-mthp-reset.XXXXXX");
	if (!mkdtemp(root) || make_size(16) || make_size(32)) {
		tap_skip("cannot make a fake sysfs tree under /tmp");
		return TAP_EXIT_SKIP;
	}
	atexit(rm_tree);
	setenv("PTECHECK_SYSFS_ROOT", root, 1);
	tap_plan(0);
	tap_result(pc_mthp_set(16, 0, "madvise") == 0 && reads(16, "madvise"),
		   "set: 16 KiB madvise");
	tap_result(pc_mthp_set(16, 0, "always") == 0 && reads(16, "always"),
		   "set again: 16 KiB always");
	tap_result(pc_mthp_reset(16, 0) == 0 && reads(16, "never"),
		   "reset: back to the value before the first set (never)");
	tap_result(pc_mthp_reset(32, 0) == 0 && reads(32, CHOICES),
		   "reset of a size never set: left alone");
	tap_result(pc_mthp_set(16, 0, "madvise") == 0 && reads(16, "madvise"),
		   "set after a reset: madvise");
	tap_result(pc_mthp_set(8, 0, "madvise") == -ENOENT, "a size the kernel lacks: ENOENT");
	snprintf(journal, sizeof(journal), "/run/ptecheck/journal.%d", (int)getpid());
	tap_result(pc_settings_restore_all() == 0 && reads(16, "never") && access(journal, F_OK),
		   "restore (the exit's): 16 KiB never again, the journal dropped");
	return tap_finish();
}
