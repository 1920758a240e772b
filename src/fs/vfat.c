/* vfat.c - vfat (fs.h): FAT with long names; no journal, 2 s times in the
 * mount's time zone (UTC here). */
#include <string.h>

#include "../format/layout_int.h"
#include "../format/rawtime_int.h"
#include "fs.h"

static bool probe_vfat(const uint8_t *b, size_t n)
{
	return n >= 512 && b[510] == 0x55 && b[511] == 0xaa &&
	       (!memcmp(b + 54, "FAT", 3) || !memcmp(b + 82, "FAT32", 5));
}

/* The driver declares 1 ns and truncates itself (fs/fat/misc.c
 * fat_truncate_time): the granularity is its mtime's 2 s, the range 1980 to
 * 2107 in the mount's time zone; an access keeps only its day. */
#define FAT_MIN 315532800LL
#define FAT_MAX 4354819198LL

static const struct fs_clock_variant vfat_clock[] = {
    {"vfat", "vfat", "", 2000000000, FAT_MIN, FAT_MAX},
};

const struct fs_desc fs_vfat = {
    .name = "vfat",
    .about = "FAT with long names: no journal, no owners, 2 s times from 1980 to 2107",
    .image_mib = 64,
    .mkfs = "mkfs.vfat --invariant -i 54484d53 IMG",
    .gran_ns = 2000000000,
    .atime_gran_ns = 86400000000000LL,
    .tmin = FAT_MIN,
    .tmax = FAT_MAX,
    .clock = vfat_clock,
    .nclock = sizeof(vfat_clock) / sizeof(vfat_clock[0]),
    .crash_why = "no journal: a crash leaves what fsck.vfat must repair",
    .fsck = {"fsck.vfat", "-n"},
    .csum = FS_CSUM_NONE,
    .layout = layout_vfat,
    .rawtime = rawtime_vfat,
    .structures = "superblock fat fat-backup directory data free",
    .probe = probe_vfat,
};
