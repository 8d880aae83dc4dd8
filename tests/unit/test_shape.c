// SPDX-License-Identifier: GPL-2.0
/*
 * The shape library's own tests (verify/shape.c): the memory a scenario
 * maps is what the library says it made.  Positions in a folio; a range
 * mapped and filled, its pages present and holding their bytes; the clean
 * shmem form present and clean; a range moved 4 KiB off 64 KiB with its
 * bytes; small pages never read as a large folio whole and every present
 * one read as a folio of one page; the block-filesystem file refused with
 * a reason where there is none or the directory is on memory, and made,
 * its bytes and pages there, where the machine has one.  What needs PFNs
 * (pagemap, kpageflags) skips without root.  TAP; exit 4 when nothing ran.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/kernel-page-flags.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "filemap_fs.h"
#include "procmm.h"
#include "shape.h"
#include "tap.h"

#define OFF 100

static void test_positions(void)
{
	tap_result(pc_pos_index(PC_POS_FIRST, 16) == 0 && pc_pos_index(PC_POS_SECOND, 16) == 1 &&
			   pc_pos_index(PC_POS_MIDDLE, 16) == 8 &&
			   pc_pos_index(PC_POS_LAST, 16) == 15,
		   "positions in a 64 KiB folio: 0, 1, 8, 15");
	tap_result(pc_pos_index(PC_POS_MIDDLE, 4) == 2 && pc_pos_index(PC_POS_LAST, 4) == 3,
		   "positions in a 16 KiB folio: middle 2, last 3");
	tap_result(!strcmp(pc_pos_name(PC_POS_SECOND), "second") &&
			   !strcmp(pc_pos_name((enum pc_pos)9), "?"),
		   "position names, an unknown one '?'");
}

/* Every page of r present (pagemap) and holding its byte at off. */
static size_t present_with_bytes(const struct pc_range *r, size_t off, int salt, bool check_bytes)
{
	__u64 *pm = calloc(r->n, sizeof(*pm));
	size_t good = 0;

	if (!pm || pc_pagemap_read(0, (__u64)(uintptr_t)r->base, r->n, pm)) {
		free(pm);
		return 0;
	}
	for (size_t i = 0; i < r->n; i++)
		good += (pm[i] & PC_PM_PRESENT) &&
			(!check_bytes || (__u8)r->base[i * PAGE + off] == pc_page_byte(i, salt));
	free(pm);
	return good;
}

static void test_range_map(void)
{
	struct pc_range r = {.fd = -1};
	const char *what = "";
	size_t n = 32;
	int ret = pc_range_map(&r, n, false, OFF, &what);

	tap_result(!ret && ((uintptr_t)r.base & (PMD - 1)) == 0,
		   "pc_range_map: anonymous, at a 2 MiB boundary (ret %d, %s)", ret, what);
	tap_result(!ret && present_with_bytes(&r, OFF, SALT_A, true) == n,
		   "pc_range_map: every page present, holding its byte");
	ret = ret ? ret : pc_range_misalign(&r);
	tap_result(!ret && ((uintptr_t)r.base & (64 * KIB - 1)) == PAGE &&
			   present_with_bytes(&r, OFF, SALT_A, true) == n,
		   "pc_range_misalign: 4 KiB past a 64 KiB boundary, the bytes moved with it");
	pc_range_release(&r);
	tap_result(r.fd == -1, "pc_range_release: nothing left open");
}

static void test_range_clean(bool root)
{
	struct pc_range r = {.fd = -1};
	const char *what = "";
	size_t n = 16, dirty = 0, zero = 0;
	int ret = pc_range_map_clean(&r, n, &what);

	tap_result(!ret && r.fd >= 0 && present_with_bytes(&r, 0, 0, false) == n,
		   "pc_range_map_clean: a memfd, every page present (ret %d, %s)", ret, what);
	for (size_t i = 0; !ret && i < n; i++)
		zero += r.base[i * PAGE] == 0;
	tap_result(zero == n, "pc_range_map_clean: only read, every page reads 0");
	if (!root || ret) {
		tap_skip("the clean folios by kpageflags: needs root");
	} else {
		__u64 *pm = calloc(n, sizeof(*pm));
		size_t read = 0;

		if (pm && !pc_pagemap_read(0, (__u64)(uintptr_t)r.base, n, pm)) {
			for (; read < n; read++) {
				__u64 flags = 0;

				if (pc_kpageflags_read(pm[read] & PC_PM_PFN_MASK, 1, &flags))
					break;
				dirty += !!(flags & PC_KPF(KPF_DIRTY));
			}
		}
		free(pm);
		tap_result(read == n && dirty == 0,
			   "pc_range_map_clean: no folio dirty (%zu of %zu read, %zu dirty)", read,
			   n, dirty);
	}
	pc_range_release(&r);
}

static void test_folios_small(bool root)
{
	struct pc_range r = {.fd = -1};
	struct pc_folios one = {0}, sixteen = {0};
	const char *what = "";
	size_t n = 32;
	int ret;

	if (!root) {
		tap_skip("pc_folios_read: PFNs need root");
		tap_skip("pc_folios_read: PFNs need root");
		return;
	}
	ret = pc_range_map(&r, n, false, OFF, &what);
	/* Small pages: the range's own MADV_HUGEPAGE taken back. */
	if (!ret && madvise(r.base, n * PAGE, MADV_NOHUGEPAGE))
		ret = -errno;
	if (!ret) {
		munmap(r.base, n * PAGE);
		ret = pc_map_fixed(r.base, n * PAGE, -1, MADV_NOHUGEPAGE);
		for (size_t i = 0; !ret && i < n; i++)
			r.base[i * PAGE] = 1;
	}
	if (!ret && (pc_folios_alloc(&one, n, 1) || pc_folios_alloc(&sixteen, n, 16)))
		ret = -ENOMEM;
	if (!ret)
		ret = pc_folios_read(&one, r.base);
	if (!ret)
		ret = pc_folios_read(&sixteen, r.base);
	tap_result(!ret && one.n_whole == n,
		   "pc_folios_read: small pages, folios of one: every page whole (%zu of %zu)",
		   one.n_whole, n);
	tap_result(!ret && sixteen.n_whole == 0,
		   "pc_folios_read: small pages never read as a 64 KiB folio whole (%zu)",
		   sixteen.n_whole);
	pc_folios_free(&one);
	pc_folios_free(&sixteen);
	pc_range_release(&r);
}

static void test_file(void)
{
	struct pc_scenario_ctx ctx = {.blockfs_why = "not prepared by the test"};
	struct pc_range r = {.fd = -1};
	static const char *const block_dirs[] = {"/var/tmp", "/var/cache", "/root"};
	char fs[128] = "";
	const char *what = "", *dir = NULL;
	struct pc_fs_info fi;
	int ret;

	ret = pc_range_file_create(&ctx, &r, 32, 16, OFF, fs, sizeof(fs), &what);
	tap_result(ret == 1 && strstr(fs, "no block filesystem: not prepared by the test"),
		   "pc_range_file_create: no block filesystem, a reason (%d: %s)", ret, fs);
	ctx.blockfs_dir = "/dev/shm";
	ret = pc_range_file_create(&ctx, &r, 32, 16, OFF, fs, sizeof(fs), &what);
	tap_result(ret == 1 && strstr(fs, "which has no block device") && r.fd == -1,
		   "pc_range_file_create: a directory on memory refused by what it is (%d: %s)",
		   ret, fs);
	for (size_t i = 0; !dir && i < sizeof(block_dirs) / sizeof(block_dirs[0]); i++)
		if (!pc_fs_probe(block_dirs[i], &fi) && pc_fs_is_block(&fi) &&
		    access(block_dirs[i], W_OK) == 0)
			dir = block_dirs[i];
	if (!dir) {
		tap_skip("pc_range_map_file: no writable block filesystem here");
		return;
	}
	ctx.blockfs_dir = dir;
	ret = pc_range_file_create(&ctx, &r, 32, 16, OFF, fs, sizeof(fs), &what);
	if (!ret)
		ret = pc_range_map_file(&r, 32, OFF, &what);
	tap_result(!ret && r.fd >= 0 && present_with_bytes(&r, OFF, SALT_A, true) == 32,
		   "pc_range_map_file on %s (%s): every page present, holding its byte (%d, %s)",
		   dir, fs, ret, what);
	pc_range_release(&r);
}

int main(void)
{
	bool root = geteuid() == 0;

	tap_plan(0);
	test_positions();
	test_range_map();
	test_range_clean(root);
	test_folios_small(root);
	test_file();
	return tap_finish();
}
