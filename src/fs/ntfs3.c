/* ntfs3.c - ntfs3 (fs.h): Paragon's NTFS driver (Linux 5.15+) on a volume
 * mkntfs (ntfs-3g) made. It replays a $LogFile Windows left but journals
 * nothing of its own; 100 ns times. */
#include <string.h>

#include "../format/layout_int.h"
#include "../format/rawtime_int.h"
#include "fs.h"

static bool probe_ntfs3(const uint8_t *b, size_t n)
{
	return n >= 512 && !memcmp(b + 3, "NTFS    ", 8) && b[510] == 0x55 && b[511] == 0xaa;
}

/* ntfs3 declares its granularity (NTFS_TIME_GRAN, fs/ntfs3/super.c) and
 * no range: the kernel's default, all of time64; NTFS keeps a u64 of 100
 * ns since 1601 (fs/ntfs3/ntfs_fs.h, kernel2nt), 1601 to 60056. */
static const struct fs_clock_variant ntfs3_clock[] = {
    {"ntfs3", "ntfs3", "", 100, FS_T64_MIN, FS_T64_MAX},
};

const struct fs_desc fs_ntfs3 = {
    .name = "ntfs3",
    .about = "Windows' NTFS through ntfs3: MFT records, B+tree indexes, 100 ns times",
    .image_mib = 64,
    /* -s/-p/-H/-S: the geometry an image file cannot tell it, said so
     * that it does not warn about guessing. */
    .mkfs = "mkntfs -F -q -f -s 512 -p 0 -H 0 -S 0 IMG",
    .gran_ns = 100,
    .atime_gran_ns = 100,
    .tmin = FS_T64_MIN,
    .tmax = FS_T64_MAX,
    .clock = ntfs3_clock,
    .nclock = sizeof(ntfs3_clock) / sizeof(ntfs3_clock[0]),
    .crash_why = "ntfs3 replays a $LogFile another driver wrote but logs nothing itself "
		 "(fs/ntfs3/fslog.c, only log_replay): a crash leaves a volume marked dirty, "
		 "which ntfsfix clears, and what chkdsk must repair, so nothing beyond sync is "
		 "promised",
    /* ntfs3 mounts a volume marked dirty (an unclean unmount) only with
     * -o force (fs/ntfs3/super.c, ntfs_fill_super: EINVAL); after a power
     * cut a Linux user runs ntfsfix, which clears the flag and resets
     * $LogFile. */
    .replay = {"ntfsfix", "-d"},
    .fsck_none = "no checker on Linux: ntfs-3g's ntfsfix resets the log and marks the volume "
		 "for Windows' chkdsk, it does not check",
    .csum = FS_CSUM_NONE,
    .layout = layout_ntfs3,
    .rawtime = rawtime_ntfs3,
    .structures = "superblock superblock-backup boot inode-table mft-mirror inode-bitmap "
		  "journal attrdef block-bitmap bad-clusters secure upcase index attribute-list "
		  "directory symlink data xattr free",
    .probe = probe_ntfs3,
};
