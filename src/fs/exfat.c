/* exfat.c - exfat (fs.h): Microsoft's FAT successor for flash; no journal,
 * 10 ms times. */
#include <string.h>

#include "../format/layout_int.h"
#include "../format/rawtime_int.h"
#include "fs.h"

static bool probe_exfat(const uint8_t *b, size_t n)
{
	return n >= 11 && !memcmp(b + 3, "EXFAT   ", 8);
}

#define EXFAT_MIN 315532800LL
#define EXFAT_MAX 4354819199LL

static const struct fs_clock_variant exfat_clock[] = {
    {"exfat", "exfat", "", 10000000, EXFAT_MIN, EXFAT_MAX},
};

const struct fs_desc fs_exfat = {
    .name = "exfat",
    .about = "extended FAT: allocation bitmap, no journal, 10 ms times from 1980 to 2107",
    .image_mib = 64,
    .mkfs = "mkfs.exfat IMG",
    .gran_ns = 10000000,
    .atime_gran_ns = 2000000000, /* no 10 ms field for an access */
    .tmin = EXFAT_MIN,
    .tmax = EXFAT_MAX,
    .clock = exfat_clock,
    .nclock = sizeof(exfat_clock) / sizeof(exfat_clock[0]),
    .crash_why = "no journal: a crash leaves what fsck.exfat must repair",
    .fsck = {"fsck.exfat", "-n"},
    .csum = FS_CSUM_NONE,
    .layout = layout_exfat,
    .rawtime = rawtime_exfat,
    .structures = "boot-region superblock superblock-backup fat allocation-bitmap upcase-table "
		  "directory data free",
    .probe = probe_exfat,
};
