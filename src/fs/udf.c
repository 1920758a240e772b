/* udf.c - udf (fs.h): the Universal Disk Format of optical media, here on
 * a hard-disk image (mkudffs); no journal, descriptors with CRCs, times in
 * microseconds. */
#include <string.h>

#include "../format/layout_int.h"
#include "../format/rawtime_int.h"
#include "fs.h"

/* ECMA-167's volume recognition sequence at 32 KiB: a BEA01, then an
 * NSR02 or NSR03 in one of the next descriptors (2 KiB each, or a block
 * each when blocks are larger, up to 4 KiB here). */
static bool probe_udf(const uint8_t *b, size_t n)
{
	if (n < 32768 + 2048 * 8 || memcmp(b + 32769, "BEA01", 5))
		return false;
	for (size_t at = 32768 + 2048; at < 32768 + 2048 * 8; at += 2048)
		if (!memcmp(b + at + 1, "NSR02", 5) || !memcmp(b + at + 1, "NSR03", 5))
			return true;
	return false;
}

/* udf declares microseconds (fs/udf/super.c) and no range: the kernel's
 * default; its timestamp holds a 16-bit year (udf_time_to_disk_stamp). */
static const struct fs_clock_variant udf_clock[] = {
    {"udf", "udf", "", 1000, FS_T64_MIN, FS_T64_MAX},
};

const struct fs_desc fs_udf = {
    .name = "udf",
    .about = "the Universal Disk Format (UDF 2.01) on a disk: no journal, CRC'd descriptors",
    .image_mib = 64,
    .mkfs = "mkudffs -b 4096 --uuid=5468656d69734000 IMG",
    .gran_ns = 1000,
    .atime_gran_ns = 1000,
    .tmin = FS_T64_MIN,
    .tmax = FS_T64_MAX,
    .clock = udf_clock,
    .nclock = sizeof(udf_clock) / sizeof(udf_clock[0]),
    .crash_why = "no journal (UDF was made for media written once): a crash leaves what a "
		 "checker must repair, so nothing beyond sync is promised",
    .fsck_none = "udftools 2.3 (Debian 12) has no checker; udffsck came in 2.4",
    .csum = FS_CSUM_ALWAYS,
    .layout = layout_udf,
    .rawtime = rawtime_udf,
    .structures = "superblock superblock-backup volume-recognition volume-descriptors "
		  "volume-descriptors-backup integrity partition-bitmap file-set file-entry "
		  "allocation-extent xattr directory data symlink free",
    .probe = probe_udf,
};
