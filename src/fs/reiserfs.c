/* reiserfs.c - reiserfs (fs.h): ReiserFS 3.6, one balanced tree of
 * everything, a metadata journal the kernel replays; 1 s times in u32. */
#include <string.h>

#include "../format/layout_int.h"
#include "../format/rawtime_int.h"
#include "fs.h"

/* The superblock at 64 KiB; its magic at offset 52 (3.5, 3.6, and 3.6
 * with a journal on another device). */
static bool probe_reiserfs(const uint8_t *b, size_t n)
{
	const uint8_t *m = b + 65536 + 52;
	return n >= 65536 + 64 && (!memcmp(m, "ReIsErFs", 8) || !memcmp(m, "ReIsEr2Fs", 9) ||
				   !memcmp(m, "ReIsEr3Fs", 9));
}

static const struct fs_clock_variant reiserfs_clock[] = {
    {"reiserfs", "reiserfs", "", 1000000000, 0, 4294967295LL},
};

const struct fs_desc fs_reiserfs = {
    .name = "reiserfs",
    .about = "ReiserFS 3.6: one S+tree of all items, a metadata journal, u32 seconds",
    .image_mib = 64,
    /* -s 513, the smallest journal (mkreiserfs's default is 8,193 blocks):
     * every mount reads the whole journal to find its newest transaction,
     * 32 MiB a mount, 80% of the guest's work a state under --crash --fsck.
     * A journal of any other size than the default is "non-standard" (the
     * magic ReIsEr3Fs); the kernel reads its size from the superblock and
     * runs the same journal code on either. */
    .mkfs = "mkreiserfs -f -q -s 513 -u $MKFS_UUID IMG",
    .gran_ns = 1000000000,
    .atime_gran_ns = 1000000000,
    .tmin = 0,
    .tmax = 4294967295LL,
    .clock = reiserfs_clock,
    .nclock = sizeof(reiserfs_clock) / sizeof(reiserfs_clock[0]),
    .recovers = true,
    .fsync_names = true,
    .ordered_names = true,
    .crash_why = "a metadata journal the mount replays: each namespace operation one "
		 "transaction (journal_begin/journal_end), committed in order; fsync commits "
		 "the transaction that last changed the inode and those before it "
		 "(fs/reiserfs/file.c, reiserfs_commit_for_inode)",
    .fsck = {"reiserfsck", "--check", "-y", "-q"},
    .csum = FS_CSUM_NONE,
    .layout = layout_reiserfs,
    .rawtime = rawtime_reiserfs,
    .structures = "reserved superblock bitmap journal journal-header internal-node leaf-node "
		  "data free",
    .probe = probe_reiserfs,
};
