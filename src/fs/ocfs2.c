/* ocfs2.c - ocfs2 (fs.h): Oracle's cluster filesystem in local mode (one
 * node, no cluster stack): jbd2 journal, extent trees, ns times. */
#include <string.h>

#include "../format/layout_int.h"
#include "../format/rawtime_int.h"
#include "fs.h"

/* The superblock is block 2 (OCFS2_SUPER_BLOCK_BLKNO) for a block size
 * of 512 to 4096: "OCFSV2" opens its inode. */
static bool probe_ocfs2(const uint8_t *b, size_t n)
{
	for (size_t bs = 512; bs <= 4096; bs *= 2)
		if (n >= 2 * bs + 6 && !memcmp(b + 2 * bs, "OCFSV2", 6))
			return true;
	return false;
}

static const struct fs_clock_variant ocfs2_clock[] = {
    {"ocfs2", "ocfs2", "", 1, FS_T64_MIN, FS_T64_MAX},
};

const struct fs_desc fs_ocfs2 = {
    .name = "ocfs2",
    .about = "Oracle's cluster filesystem, local mode: jbd2 journal, extent trees, ns times",
    .image_mib = 64,
    .mkfs = "mkfs.ocfs2 -q -M local -N 1 -U $MKFS_UUID IMG",
    .mkfs_random = "the filesystem generation every metadata block carries, and the "
		   "directory-index hash seeds",
    .gran_ns = 1,
    .atime_gran_ns = 1,
    .tmin = FS_T64_MIN,
    .tmax = FS_T64_MAX,
    .clock = ocfs2_clock,
    .nclock = sizeof(ocfs2_clock) / sizeof(ocfs2_clock[0]),
    .recovers = true,
    .fsync_names = true,
    .ordered_names = true,
    .crash_why = "jbd2 journal replayed at mount: each namespace operation one transaction "
		 "committed in order; fsync commits the one that last changed the inode "
		 "(fs/ocfs2/file.c ocfs2_sync_file, jbd2_complete_transaction)",
    .fsck = {"fsck.ocfs2", "-f", "-n"},
    .csum = FS_CSUM_NONE,
    .layout = layout_ocfs2,
    .rawtime = rawtime_ocfs2,
    .structures = "superblock superblock-backup inode system-directory group-descriptor journal "
		  "heartbeat slot-map bad-blocks system-file orphan-dir extent-block directory "
		  "symlink data directory-index xattr refcount inode-alloc extent-alloc "
		  "local-alloc truncate-log free",
    .probe = probe_ocfs2,
};
