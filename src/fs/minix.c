/* minix.c - minix (fs.h): the Minix v3 filesystem; no journal, 1 s times
 * in u32. */
#include "../format/layout_int.h"
#include "../format/rawtime_int.h"
#include "fs.h"

static bool probe_minix(const uint8_t *b, size_t n)
{
	if (n < 1024 + 0x20)
		return false;
	uint16_t m = lb_le16(b + 1024 + 0x10), m3 = lb_le16(b + 1024 + 0x18);
	return m == 0x137f || m == 0x138f || m == 0x2468 || m == 0x2478 || m3 == 0x4d5a;
}

static const struct fs_clock_variant minix_clock[] = {
    {"minix", "minix", "", 1000000000, 0, 4294967295LL},
};

const struct fs_desc fs_minix = {
    .name = "minix",
    .about = "the Minix v3 filesystem: no journal, no xattrs, 1 s times to 2106",
    .image_mib = 64,
    .mkfs = "mkfs.minix -3 IMG",
    .gran_ns = 1000000000,
    .atime_gran_ns = 1000000000,
    .tmin = 0,
    .tmax = 4294967295LL,
    .clock = minix_clock,
    .nclock = sizeof(minix_clock) / sizeof(minix_clock[0]),
    .crash_why = "no journal: a crash leaves what fsck.minix must repair",
    .fsck = {"fsck.minix", "-f"},
    .csum = FS_CSUM_NONE,
    .layout = layout_minix,
    .rawtime = rawtime_minix,
    .structures = "boot superblock inode-bitmap zone-bitmap inode-table directory indirect "
		  "data free",
    .probe = probe_minix,
};
