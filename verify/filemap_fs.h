/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What filesystem a file scenario really runs on: its statfs magic and
 * device, its type and source from /proc/self/mountinfo, and whether a
 * block device lies under it.  A scenario meant for a block filesystem
 * that lands on memory (tmpfs, ramfs, the initramfs root, an overlay over
 * one of those) proves nothing about one: shmem may map EOF's folio and
 * counts in RssShmem.  The loader refuses such an --fs-dir, the scenarios
 * skip on it, and they are named by what they ran on, never by intent.
 */
#ifndef PTECHECK_FILEMAP_FS_H
#define PTECHECK_FILEMAP_FS_H

#include <stdbool.h>
#include <stddef.h>

enum pc_fs_backing {
	PC_FS_BLOCK,	/* a block device under it: ext4, xfs, btrfs, ... */
	PC_FS_MEMORY,	/* tmpfs or ramfs (the initramfs root is one of them) */
	PC_FS_STACKED,	/* overlay: its files are its layer's, judge the layer */
	PC_FS_NO_BLOCK, /* another anonymous-device filesystem: nfs, 9p, fuse, ... */
};

/*
 * The one predicate: what backs a filesystem, by its statfs f_type and
 * the major number of st_dev.  Pure, for the unit tests.
 */
enum pc_fs_backing pc_fs_classify(unsigned long magic, unsigned int dev_major);

struct pc_fs_info {
	char type[32];	 /* mountinfo's fstype ("ext4", "xfs", "tmpfs"), else "magic 0x..." */
	char source[64]; /* mountinfo's source ("/dev/vda"), "" if unknown */
	char layer[32];	 /* overlay: the type of its upper (or first lower) layer */
	enum pc_fs_backing backing; /* for an overlay: its layer's, when found */
	bool shmem;		    /* statfs says tmpfs: may map EOF's folio, RssShmem */
	unsigned long magic;	    /* statfs f_type */
};

/* The filesystem of path (a directory or a file).  0 or -errno. */
int pc_fs_probe(const char *path, struct pc_fs_info *fi);
/* The same for an open file. */
int pc_fs_probe_fd(int fd, struct pc_fs_info *fi);
/* Whether file scenarios meant for a block filesystem may run there. */
bool pc_fs_is_block(const struct pc_fs_info *fi);
/* "ext4 on /dev/vda", "tmpfs", "overlay (layer: tmpfs)": for summaries and notes. */
const char *pc_fs_describe(const struct pc_fs_info *fi, char *buf, size_t len);

#endif
