// SPDX-License-Identifier: GPL-2.0
/*
 * The filesystem a path lies on, by statfs, stat and /proc/self/mountinfo
 * (filemap_fs.h).  Found by trying a custom kernel without virtio-blk: the
 * scratch disk never appeared, --fs-dir named a directory of the
 * initramfs, and the "ext4" scenarios ran on it as shmem.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <linux/magic.h>

#include "filemap_fs.h"

/*
 * tmpfs and ramfs are known by their magic (the initramfs root is one of
 * them, whatever mountinfo calls it).  Every other filesystem on a block
 * device has that device's number in st_dev, so a non-zero major; major 0
 * is an anonymous device, given to filesystems without one (nfs, 9p,
 * fuse, virtiofs), to overlay (judged by its layer: mmap of an overlay
 * file maps the layer's file) and, alone of the block filesystems, to
 * btrfs (a device per subvolume), known by its magic.
 */
enum pc_fs_backing pc_fs_classify(unsigned long magic, unsigned int dev_major)
{
	if (magic == TMPFS_MAGIC || magic == RAMFS_MAGIC)
		return PC_FS_MEMORY;
	if (magic == OVERLAYFS_SUPER_MAGIC)
		return PC_FS_STACKED;
	if (dev_major != 0 || magic == BTRFS_SUPER_MAGIC)
		return PC_FS_BLOCK;
	return PC_FS_NO_BLOCK;
}

/* Copies the first option key=VALUE of a comma-separated list into out. */
static bool mount_option(const char *opts, const char *key, char *out, size_t len)
{
	size_t kl = strlen(key);

	for (const char *p = opts; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
		if (strncmp(p, key, kl) || p[kl] != '=')
			continue;
		p += kl + 1;
		/* lowerdir=a:b: the first layer is enough to say what it is. */
		snprintf(out, len, "%.*s", (int)strcspn(p, ",:"), p);
		return true;
	}
	return false;
}

/* The mountinfo line of device dev: type, source, and an overlay's layer path. */
static bool mountinfo_of(dev_t dev, struct pc_fs_info *fi, char *layer, size_t layer_len)
{
	char line[4096], type[32], source[64], opts[2048];
	unsigned int maj, min;
	bool found = false;
	FILE *f = fopen("/proc/self/mountinfo", "re");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		const char *sep = strstr(line, " - ");

		if (!sep || sscanf(line, "%*u %*u %u:%u", &maj, &min) != 2 ||
		    makedev(maj, min) != dev)
			continue;
		opts[0] = 0;
		if (sscanf(sep + 3, "%31s %63s %2047s", type, source, opts) < 2)
			continue;
		snprintf(fi->type, sizeof(fi->type), "%s", type);
		snprintf(fi->source, sizeof(fi->source), "%s", source);
		if (!strcmp(type, "overlay") && !mount_option(opts, "upperdir", layer, layer_len))
			mount_option(opts, "lowerdir", layer, layer_len);
		found = true;
	}
	fclose(f);
	return found;
}

static int probe_fd(int fd, struct pc_fs_info *fi, int depth);

static int probe_path(const char *path, struct pc_fs_info *fi, int depth)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_PATH), ret;

	if (fd < 0)
		return -errno;
	ret = probe_fd(fd, fi, depth);
	close(fd);
	return ret;
}

static int probe_fd(int fd, struct pc_fs_info *fi, int depth)
{
	char layer[1024] = "";
	struct statfs sfs;
	struct stat st;

	if (fstat(fd, &st) || fstatfs(fd, &sfs))
		return -errno;
	memset(fi, 0, sizeof(*fi));
	fi->magic = (unsigned long)sfs.f_type;
	fi->shmem = fi->magic == TMPFS_MAGIC;
	fi->backing = pc_fs_classify(fi->magic, major(st.st_dev));
	/* btrfs subvolumes and the like have no line of their device: say the magic. */
	if (!mountinfo_of(st.st_dev, fi, layer, sizeof(layer)))
		snprintf(fi->type, sizeof(fi->type), "magic 0x%lx", fi->magic);
	if (fi->backing == PC_FS_STACKED && layer[0] && depth < 2) {
		struct pc_fs_info up;

		if (!probe_path(layer, &up, depth + 1)) {
			snprintf(fi->layer, sizeof(fi->layer), "%s", up.type);
			fi->backing = up.backing;
		}
	}
	return 0;
}

int pc_fs_probe_fd(int fd, struct pc_fs_info *fi)
{
	return probe_fd(fd, fi, 0);
}

int pc_fs_probe(const char *path, struct pc_fs_info *fi)
{
	return probe_path(path, fi, 0);
}

bool pc_fs_is_block(const struct pc_fs_info *fi)
{
	return fi->backing == PC_FS_BLOCK;
}

const char *pc_fs_describe(const struct pc_fs_info *fi, char *buf, size_t len)
{
	if (fi->layer[0])
		snprintf(buf, len, "%s (layer: %s)", fi->type, fi->layer);
	else if (fi->backing == PC_FS_BLOCK && fi->source[0] == '/')
		snprintf(buf, len, "%s on %s", fi->type, fi->source);
	else
		snprintf(buf, len, "%s", fi->type);
	return buf;
}
