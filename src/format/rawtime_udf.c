/* rawtime_udf.c - udf's stored mtime and ctime (Linux's fs/udf/ecma_167.h:
 * struct timestamp, fileEntry, extendedFileEntry; udftime.c:
 * udf_disk_stamp_to_time; inode.c: udf_fill_inode takes i_ctime from
 * attrTime): the file entry is the block the inode number names
 * (layout_udf_entry). A timestamp is a broken-down local time: a 12-bit
 * minute offset from UTC in typeAndTimezone (used when the type is 1), a
 * 16-bit year, and centi-, hundreds-of-micro- and microseconds. */
#include <inttypes.h>

#include "rawtime_int.h"

/* mktime64 (kernel/time/time.c) as the kernel computes it: unsigned
 * 32-bit arithmetic on the fields as stored. */
static int64_t kernel_mktime64(uint32_t year, uint32_t mon, uint32_t day, uint32_t hour,
			       uint32_t min, uint32_t sec)
{
	if (0 >= (int32_t)(mon -= 2)) {
		mon += 12;
		year -= 1;
	}
	uint32_t days = year / 4 - year / 100 + year / 400 + 367 * mon / 12 + day;
	return ((((int64_t)days + (uint32_t)(year * 365) - 719499) * 24 + hour) * 60 + min) * 60 +
	       sec;
}

/* One timestamp at t, decoded as udf_disk_stamp_to_time does. */
static void decode(struct rawtime *out, bool ctime, const uint8_t *t)
{
	uint16_t tz = lb_le16(t), year = lb_le16(t + 2);
	int16_t offset = 0;
	if (tz >> 12 == 1) {
		offset = (int16_t)(uint16_t)(tz << 4) >> 4;
		if (offset == -2047) /* unspecified */
			offset = 0;
	}
	int64_t sec = kernel_mktime64(year, t[4], t[5], t[6], t[7], t[8]) - offset * 60;
	uint32_t nsec = 0;
	if (t[9] < 100 && t[10] < 100 && t[11] < 100)
		nsec = 1000 * (t[9] * 10000u + t[10] * 100u + t[11]);
	rawtime_set(out, ctime, sec, nsec,
		    "%s=%04u-%02u-%02u %02u:%02u:%02u cs=%u hus=%u us=%u tz=0x%04x",
		    ctime ? "attrTime" : "modificationTime", year, t[4], t[5], t[6], t[7], t[8],
		    t[9], t[10], t[11], tz);
}

int rawtime_udf(struct lb *b, const char *name, uint64_t ino, struct rawtime *out)
{
	(void)name;
	uint8_t fe[4096];
	uint32_t bs;
	if (layout_udf_entry(b, ino, fe, &bs))
		return -1;
	/* fileEntry: modificationTime 84, attrTime 96; extendedFileEntry:
	 * modificationTime 92, attrTime 116. */
	bool efe = lb_le16(fe) == 0x010a;
	decode(out, false, fe + (efe ? 92 : 84));
	decode(out, true, fe + (efe ? 116 : 96));
	return 0;
}
