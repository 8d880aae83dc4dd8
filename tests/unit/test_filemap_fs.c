// SPDX-License-Identifier: GPL-2.0
/*
 * What backs the filesystem a file scenario runs on (verify/filemap_fs.h):
 * the one predicate on crafted statfs magics and device majors, and a probe
 * of this process's own /proc (procfs: no block device) and of a memfd's
 * filesystem (tmpfs, shmem) so the probe's plumbing is exercised too.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/magic.h>
#include "filemap_fs.h"
#include "tap.h"

static void check_classify(void)
{
	TAP_CHECK_EQ(pc_fs_classify(TMPFS_MAGIC, 0), PC_FS_MEMORY, "tmpfs: memory");
	TAP_CHECK_EQ(pc_fs_classify(RAMFS_MAGIC, 0), PC_FS_MEMORY,
		     "ramfs (initramfs root): memory");
	/* The magic decides even where a device number says otherwise. */
	TAP_CHECK_EQ(pc_fs_classify(TMPFS_MAGIC, 8), PC_FS_MEMORY, "tmpfs with a major: memory");
	TAP_CHECK_EQ(pc_fs_classify(EXT4_SUPER_MAGIC, 254), PC_FS_BLOCK, "ext4 on vda: block");
	TAP_CHECK_EQ(pc_fs_classify(XFS_SUPER_MAGIC, 7), PC_FS_BLOCK,
		     "xfs on a loop device: block");
	TAP_CHECK_EQ(pc_fs_classify(BTRFS_SUPER_MAGIC, 0), PC_FS_BLOCK,
		     "btrfs subvolume (anonymous device): block");
	TAP_CHECK_EQ(pc_fs_classify(OVERLAYFS_SUPER_MAGIC, 0), PC_FS_STACKED,
		     "overlay: judged by its layer");
	TAP_CHECK_EQ(pc_fs_classify(NFS_SUPER_MAGIC, 0), PC_FS_NO_BLOCK, "nfs: no block device");
	TAP_CHECK_EQ(pc_fs_classify(V9FS_MAGIC, 0), PC_FS_NO_BLOCK, "9p: no block device");
}

static void check_probe(void)
{
	struct pc_fs_info fi;
	char desc[96];
	int fd = memfd_create("test-filemap-fs", MFD_CLOEXEC);

	TAP_CHECK_EQ(pc_fs_probe("/proc/self", &fi), 0, "probe /proc/self");
	TAP_CHECK(!pc_fs_is_block(&fi) && fi.backing == PC_FS_NO_BLOCK && !fi.shmem,
		  "procfs: no block device, not shmem");
	TAP_CHECK(!strcmp(pc_fs_describe(&fi, desc, sizeof(desc)), "proc"),
		  "procfs described by mountinfo's type");
	TAP_CHECK(fd >= 0, "memfd_create");
	if (fd < 0)
		return;
	TAP_CHECK_EQ(pc_fs_probe_fd(fd, &fi), 0, "probe a memfd");
	TAP_CHECK(fi.shmem && fi.backing == PC_FS_MEMORY && !pc_fs_is_block(&fi),
		  "memfd: shmem, memory, not block");
	close(fd);
	TAP_CHECK_EQ(pc_fs_probe("/nonexistent/ptecheck", &fi), -ENOENT, "missing path: -ENOENT");
}

int main(void)
{
	tap_plan(0);
	check_classify();
	check_probe();
	return tap_finish();
}
