/* gfs2.c - gfs2 (fs.h): Red Hat's cluster filesystem, mounted by one node
 * (lock_nolock): resource groups, a journal per node the mount replays, ns
 * times. */
#include "../format/layout_int.h"
#include "../format/rawtime_int.h"
#include "fs.h"

/* The superblock at 64 KiB: GFS2_MAGIC and the metadata type of a
 * superblock (include/uapi/linux/gfs2_ondisk.h), big-endian. */
static bool probe_gfs2(const uint8_t *b, size_t n)
{
	return n >= 65536 + 8 && lb_be32(b + 65536) == 0x01161970 && lb_be32(b + 65536 + 4) == 1;
}

static const struct fs_clock_variant gfs2_clock[] = {
    {"gfs2", "gfs2", "", 1, FS_T64_MIN, FS_T64_MAX},
};

const struct fs_desc fs_gfs2 = {
    .name = "gfs2",
    .about = "Red Hat's cluster filesystem, one node (lock_nolock): a journal, ns times",
    .image_mib = 64,
    /* One journal (-j 1) of 8 MiB (-J 8; the default, 128 MiB, does not
     * fit); -O: no questions. */
    .mkfs = "mkfs.gfs2 -O -p lock_nolock -j 1 -J 8 -U $MKFS_UUID IMG",
    .mkfs_random = "the journal's log headers (a random first sequence number and its hashes)",
    .gran_ns = 1,
    .atime_gran_ns = 1,
    .tmin = FS_T64_MIN,
    .tmax = FS_T64_MAX,
    .clock = gfs2_clock,
    .nclock = sizeof(gfs2_clock) / sizeof(gfs2_clock[0]),
    .recovers = true,
    .fsync_names = true,
    .ordered_names = true,
    .crash_why = "its journal, replayed at mount: each operation one transaction "
		 "(gfs2_trans_begin/end), the node's one log flushed in order; fsync flushes "
		 "the log (fs/gfs2/file.c gfs2_fsync, gfs2_log_flush)",
    .fsck = {"fsck.gfs2", "-n"},
    .csum = FS_CSUM_NONE,
    .layout = layout_gfs2,
    .rawtime = rawtime_gfs2,
    .structures = "superblock resource-group rgrp-bitmap dinode indirect xattr journal rindex "
		  "system-file master-directory directory data symlink free",
    .probe = probe_gfs2,
};
