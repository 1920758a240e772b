/* nilfs2.c - nilfs2 (fs.h): a log-structured filesystem of whole
 * checkpoints, with CRCs over its segments; no checker exists. */
#include "../format/layout_int.h"
#include "../format/rawtime_int.h"
#include "fs.h"

static bool probe_nilfs2(const uint8_t *b, size_t n)
{
	return n >= 1024 + 8 && lb_le16(b + 1024 + 6) == 0x3434;
}

static const struct fs_clock_variant nilfs2_clock[] = {
    {"nilfs2", "nilfs2", "", 1, FS_T64_MIN, FS_T64_MAX},
};

const struct fs_desc fs_nilfs2 = {
    .name = "nilfs2",
    .about = "log-structured filesystem of continuous checkpoints, CRCs over segments",
    .image_mib = 160,
    /* Segments of 1 MiB (-B 256; 8 MiB by default): a mount reads ahead
     * the whole segment it searches for the super root in, so every crash
     * state's recovery read 8 MiB (72% of its guest instructions); with 1
     * MiB segments `explore ext4 nilfs2 --depth 2 --crash` does 2.2 M
     * guest instructions a state instead of 13.1 M, finding the same. */
    .mkfs = "mkfs.nilfs2 -q -f -B 256 IMG",
    .mkfs_random = "the UUID and the CRC seed (mkfs.nilfs2 takes neither)",
    .gran_ns = 1,
    .atime_gran_ns = 1,
    .tmin = FS_T64_MIN,
    .tmax = FS_T64_MAX,
    .clock = nilfs2_clock,
    .nclock = sizeof(nilfs2_clock) / sizeof(nilfs2_clock[0]),
    .recovers = true,
    .fsync_names = true,
    .ordered_names = true,
    .crash_why = "whole checkpoints, a consistent tree each, and fsync writes one with "
		 "everything dirty (nilfs_sync_file, nilfs_construct_segment): held to ext4's "
		 "promises (F4 in docs/findings.md is where it breaks them)",
    .fsck_none = "nilfs-utils has no checker (nilfs2 has no fsck)",
    .csum = FS_CSUM_ALWAYS,
    .layout = layout_nilfs2,
    .rawtime = rawtime_nilfs2,
    .structures = "superblock superblock-backup segment segment-summary super-root dat "
		  "checkpoint-file inode-file segment-usage-file directory data free",
    .probe = probe_nilfs2,
};
