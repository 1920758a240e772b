/* btrfs.c - btrfs (fs.h): copy-on-write trees, checksums on every
 * metadata block. */
#include <string.h>

#include "../format/layout_int.h"
#include "../format/rawtime_int.h"
#include "fs.h"

static bool probe_btrfs(const uint8_t *b, size_t n)
{
	return n >= 0x10048 && !memcmp(b + 0x10040, "_BHRfS_M", 8);
}

static const struct fs_clock_variant btrfs_clock[] = {
    {"btrfs", "btrfs", "", 1, FS_T64_MIN, FS_T64_MAX},
};

const struct fs_desc fs_btrfs = {
    .name = "btrfs",
    .about = "copy-on-write B-trees, checksums on all metadata, fsync through a log tree",
    .image_mib = 128,
    .mkfs = "mkfs.btrfs -q -f -U $MKFS_UUID IMG",
    .mkfs_random = "the device's UUID (-U fixes the filesystem's only)",
    .gran_ns = 1,
    .atime_gran_ns = 1,
    .tmin = FS_T64_MIN,
    .tmax = FS_T64_MAX,
    .clock = btrfs_clock,
    .nclock = sizeof(btrfs_clock) / sizeof(btrfs_clock[0]),
    .recovers = true,
    .fsync_names = true,
    .crash_why = "each commit a consistent tree; fsync logs one inode ahead of the rest "
		 "(fs/btrfs/tree-log.c), so its name may come back without an earlier "
		 "operation's: no order among namespace operations",
    .fsck = {"btrfs", "check", "--readonly"},
    .csum = FS_CSUM_ALWAYS,
    .layout = layout_btrfs,
    .rawtime = rawtime_btrfs,
    .structures = "superblock superblock-backup tree:root tree:extent tree:chunk tree:dev "
		  "tree:fs tree:csum tree:uuid tree:free-space tree:data-reloc data free",
    .probe = probe_btrfs,
};
