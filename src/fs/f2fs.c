/* f2fs.c - f2fs (fs.h): the flash-friendly log-structured filesystem,
 * checkpoints with CRCs, fsync by roll-forward recovery. */
#include "../format/layout_int.h"
#include "../format/rawtime_int.h"
#include "fs.h"

static bool probe_f2fs(const uint8_t *b, size_t n)
{
	return n >= 1028 && lb_le32(b + 1024) == 0xf2f52010;
}

static const struct fs_clock_variant f2fs_clock[] = {
    {"f2fs", "f2fs", "", 1, FS_T64_MIN, FS_T64_MAX},
};

const struct fs_desc fs_f2fs = {
    .name = "f2fs",
    .about = "flash-friendly log-structured filesystem: checkpoints, roll-forward fsync",
    .image_mib = 64,
    .mkfs = "mkfs.f2fs -q -f -U $MKFS_UUID IMG",
    .gran_ns = 1,
    .atime_gran_ns = 1,
    .tmin = FS_T64_MIN,
    .tmax = FS_T64_MAX,
    .clock = f2fs_clock,
    .nclock = sizeof(f2fs_clock) / sizeof(f2fs_clock[0]),
    .recovers = true,
    .fsync_names = true,
    .crash_why = "checkpoints, and fsync's node chain rolled forward at mount "
		 "(fs/f2fs/recovery.c): one inode ahead of the rest, so no order among "
		 "namespace operations",
    .fsck = {"fsck.f2fs", "-f", "--dry-run"},
    .csum = FS_CSUM_ALWAYS,
    .layout = layout_f2fs,
    .rawtime = rawtime_f2fs,
    .structures = "superblock superblock-backup checkpoint sit nat ssa inode directory data free",
    .probe = probe_f2fs,
};
