/* fstype.c - see fstype.h. Magic numbers and offsets from each format's
 * on-disk documentation (the same ones blkid uses). ext2/3/4 are told apart
 * by feature flags, as the kernel would mount them by default. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fstype.h"

static uint32_t le32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static const char *ext_kind(const uint8_t *sb)
{
	uint32_t compat = le32(sb + 0x5c), incompat = le32(sb + 0x60);
	uint32_t ext4_only = 0x0040 | 0x0080 | 0x0200 | 0x0400 | 0x1000 |
			     0x10000; /* extents, 64bit, flex_bg, mmp, ea_inode... */
	if (incompat & ext4_only)
		return "ext4";
	return (compat & 0x0004) ? "ext3" : "ext2"; /* has_journal */
}

const char *fstype_probe(const uint8_t *b, size_t n)
{
	if (n >= 1024 + 0x68 && le16(b + 1024 + 0x38) == 0xef53)
		return ext_kind(b + 1024);
	if (n >= 4 && memcmp(b, "XFSB", 4) == 0)
		return "xfs";
	if (n >= 0x10048 && memcmp(b + 0x10040, "_BHRfS_M", 8) == 0)
		return "btrfs";
	if (n >= 1028 && le32(b + 1024) == 0xf2f52010)
		return "f2fs";
	if (n >= 11 && memcmp(b + 3, "EXFAT   ", 8) == 0)
		return "exfat";
	if (n >= 32768 + 4 && memcmp(b + 32768, "JFS1", 4) == 0)
		return "jfs";
	if (n >= 1024 + 8 && le16(b + 1024 + 6) == 0x3434)
		return "nilfs2";
	if (n >= 512 && b[510] == 0x55 && b[511] == 0xaa &&
	    (memcmp(b + 54, "FAT", 3) == 0 || memcmp(b + 82, "FAT32", 5) == 0))
		return "vfat";
	if (n >= 1024 + 0x20) {
		uint16_t m = le16(b + 1024 + 0x10), m3 = le16(b + 1024 + 0x18);
		if (m == 0x137f || m == 0x138f || m == 0x2468 || m == 0x2478 || m3 == 0x4d5a)
			return "minix";
	}
	return NULL;
}

const char *fstype_detect(const char *path)
{
	static _Thread_local uint8_t buf[FSTYPE_PROBE_BYTES];
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	return fstype_probe(buf, n);
}
