/* jfs.c - jfs (fs.h): IBM's journaling filesystem, whose log the kernel
 * does not replay: jfs_fsck does, on the host (crash_replay.h). */
#include <string.h>

#include "../format/layout_int.h"
#include "../format/rawtime_int.h"
#include "fs.h"

static bool probe_jfs(const uint8_t *b, size_t n)
{
	return n >= 32768 + 4 && !memcmp(b + 32768, "JFS1", 4);
}

static const struct fs_clock_variant jfs_clock[] = {
    {"jfs", "jfs", "", 1, 0, 4294967295LL},
};

const struct fs_desc fs_jfs = {
    .name = "jfs",
    .about = "IBM's journaling filesystem: a metadata log jfs_fsck replays, u32 seconds",
    .image_mib = 64,
    .mkfs = "mkfs.jfs -q IMG",
    .mkfs_random = "the UUID (mkfs.jfs takes none; jfs_tune -U could set it after); and "
		   "its log pages, written from a stack buffer it never clears, keep "
		   "pointers of its run mangled by a per-process secret: not repeatable",
    .gran_ns = 1,
    .atime_gran_ns = 1,
    .tmin = 0,
    .tmax = 4294967295LL,
    .clock = jfs_clock,
    .nclock = sizeof(jfs_clock) / sizeof(jfs_clock[0]),
    .recovers = true,
    .crash_why = "its log, replayed by jfs_fsck before the mount, brings it back "
		 "consistent; fsync and the order of namespace operations not studied here",
    .fsck = {"jfs_fsck", "-n", "-f"},
    /* Linux mounts a jfs whose superblock says it was not unmounted only
     * read-only (fs/jfs/jfs_mount.c, chkSuper); a distribution runs
     * logredo at boot. jfs_fsck prints "logredo failed (rc=N).  fsck
     * continuing.", marks the superblock clean and leaves the log dirty
     * when it fails, and exits 0. */
    .replay = {"jfs_fsck", "--replay_journal_only"},
    .replay_failed = "logredo failed",
    .csum = FS_CSUM_NONE,
    .layout = layout_jfs,
    .rawtime = rawtime_jfs,
    .structures = "superblock superblock-backup aggregate-inode-map aggregate-inode-table "
		  "block-map inode-map inode-table fsck-workspace log directory data free",
    .probe = probe_jfs,
};
