/* rawtime_fat.c - vfat's and exfat's stored mtime, from the root
 * directory's entries (layout_fat_root; Microsoft's FAT and exFAT
 * specifications, Linux's fs/fat/misc.c and fs/exfat/misc.c). Neither has
 * a stable inode number (Linux makes one up), so the file is found by
 * name; neither stores a ctime (Linux shows the mtime), so have_ctime
 * stays false.
 *
 * vfat: the long name of the LFN entries before a short entry (its
 * checksum must match), else the 8.3 name, case-insensitively. Its mtime
 * is DIR_WrtDate (years from 1980, month, day) and DIR_WrtTime (hours,
 * minutes, 2-second units) in local time, which is UTC in the guest
 * (fat_time_fat2unix with no time zone); DIR_CrtTimeTenth refines only
 * the create time, so the mtime is whole (even) seconds.
 *
 * exfat: the file entry (0x85) whose stream extension (0xc0) and name
 * entries (0xc1, 15 UTF-16 units each) spell the name. Its mtime is
 * LastModifiedTimestamp (the same date and time layout, one le32),
 * LastModified10msIncrement (0-199: up to 1.99 s more) and, when its bit 7
 * (OffsetValid) is set, LastModifiedUtcOffset's signed 7-bit count of 15
 * minutes east of UTC, subtracted to give UTC (exfat_get_entry_time). */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rawtime_int.h"

#define LFN_MAX 20 /* LFN entries of one name: 255 units, 13 per entry */

/* n UTF-16LE units at p as UTF-8 in out (cap bytes), ending at a 0 or
 * 0xffff unit; false when out is too small. */
static bool utf16_to_utf8(const uint8_t *p, size_t n, char *out, size_t cap)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t c = lb_le16(p + 2 * i);
		if (!c || c == 0xffff)
			break;
		if (c >= 0xd800 && c < 0xdc00 && i + 1 < n) {
			uint32_t lo = lb_le16(p + 2 * i + 2);
			if (lo >= 0xdc00 && lo < 0xe000) {
				c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
				i++;
			}
		}
		uint8_t u[4];
		size_t m;
		if (c < 0x80) {
			u[0] = (uint8_t)c, m = 1;
		} else if (c < 0x800) {
			u[0] = (uint8_t)(0xc0 | c >> 6), u[1] = (uint8_t)(0x80 | (c & 0x3f)), m = 2;
		} else if (c < 0x10000) {
			u[0] = (uint8_t)(0xe0 | c >> 12), u[1] = (uint8_t)(0x80 | (c >> 6 & 0x3f));
			u[2] = (uint8_t)(0x80 | (c & 0x3f)), m = 3;
		} else {
			u[0] = (uint8_t)(0xf0 | c >> 18), u[1] = (uint8_t)(0x80 | (c >> 12 & 0x3f));
			u[2] = (uint8_t)(0x80 | (c >> 6 & 0x3f)),
			u[3] = (uint8_t)(0x80 | (c & 0x3f));
			m = 4;
		}
		if (k + m >= cap)
			return false;
		memcpy(out + k, u, m);
		k += m;
	}
	out[k] = 0;
	return true;
}

/* fat_time_fat2unix in Linux 6.1, with no time zone and no 10 ms part. */
static int64_t fat_seconds(uint16_t time, uint16_t date)
{
	static const long days_in_year[16] = {0,   0,	31,  59,  90,  120, 151, 181,
					      212, 243, 273, 304, 334, 0,   0,	 0};
	long year = date >> 9, month = (date >> 5) & 0xf, day = date & 0x1f;
	month = month < 1 ? 1 : month;
	day = (day < 1 ? 1 : day) - 1;
	long leap_day = (year + 3) / 4;
	if (year > 120) /* 2100 is no leap year */
		leap_day--;
	if (!(year & 3) && year != 120 && month > 2)
		leap_day++;
	int64_t s = (time & 0x1f) << 1;
	s += ((time >> 5) & 0x3f) * 60;
	s += (int64_t)(time >> 11) * 3600;
	s += (int64_t)(year * 365 + leap_day + days_in_year[month] + day + 365 * 10 + 2) * 86400;
	return s;
}

/* The 8.3 name of a short entry as "NAME.EXT" (no padding). */
static void short_name(const uint8_t *e, char out[13])
{
	size_t k = 0;
	for (int i = 0; i < 8 && e[i] != ' '; i++)
		out[k++] = (char)(i == 0 && e[i] == 0x05 ? 0xe5 : e[i]);
	if (e[8] != ' ') {
		out[k++] = '.';
		for (int i = 8; i < 11 && e[i] != ' '; i++)
			out[k++] = (char)e[i];
	}
	out[k] = 0;
}

static uint8_t lfn_checksum(const uint8_t *e)
{
	uint8_t sum = 0;
	for (int i = 0; i < 11; i++)
		sum = (uint8_t)(((sum & 1) << 7) + (sum >> 1) + e[i]);
	return sum;
}

/* The short entry of `name` in the vfat directory d: a pointer, or NULL. */
static const uint8_t *vfat_find(const uint8_t *d, uint64_t len, const char *name)
{
	uint8_t units[LFN_MAX * 13 * 2];
	int nlfn = 0; /* LFN entries gathered for the next short entry */
	uint8_t sum = 0;
	for (uint64_t at = 0; at + 32 <= len; at += 32) {
		const uint8_t *e = d + at;
		if (!e[0])
			break;
		if (e[0] == 0xe5) {
			nlfn = 0;
			continue;
		}
		if (e[11] == 0x0f) { /* a long-name part: ordinal, 5 + 6 + 2 units */
			int ord = e[0] & 0x1f;
			if (ord < 1 || ord > LFN_MAX) {
				nlfn = 0;
				continue;
			}
			if (e[0] & 0x40) {
				memset(units, 0, sizeof(units));
				nlfn = ord;
				sum = e[13];
			} else if (!nlfn || e[13] != sum) {
				nlfn = 0;
				continue;
			}
			uint8_t *u = units + (ord - 1) * 26;
			memcpy(u, e + 1, 10);
			memcpy(u + 10, e + 14, 12);
			memcpy(u + 22, e + 28, 4);
			continue;
		}
		if (e[11] & 0x08) { /* the volume label */
			nlfn = 0;
			continue;
		}
		char longname[LFN_MAX * 13 * 4 + 1], shortname[13];
		bool have_long =
		    nlfn && lfn_checksum(e) == sum &&
		    utf16_to_utf8(units, (size_t)nlfn * 13, longname, sizeof(longname));
		nlfn = 0;
		short_name(e, shortname);
		if ((have_long && !strcmp(longname, name)) ||
		    (!have_long && !strcasecmp(shortname, name)))
			return e;
	}
	return NULL;
}

static int vfat_time(struct lb *b, const uint8_t *d, uint64_t len, const char *name,
		     struct rawtime *out)
{
	const uint8_t *e = vfat_find(d, len, name);
	if (!e)
		return lb_fail(b, "no file '%s' in the root directory", name);
	uint16_t time = lb_le16(e + 22), date = lb_le16(e + 24);
	out->sec = fat_seconds(time, date);
	out->nsec = 0;
	snprintf(out->fields, sizeof(out->fields),
		 "DIR_WrtDate=0x%04x DIR_WrtTime=0x%04x (DIR_CrtTimeTenth=%u is the create "
		 "time's)",
		 date, time, e[13]);
	return 0;
}

/* mktime64 in Linux 6.1 (kernel/time/time.c), as exfat calls it. */
static int64_t mktime64(unsigned year, unsigned mon, unsigned day, unsigned hour, unsigned min,
			unsigned sec)
{
	if (0 >= (int)(mon -= 2)) {
		mon += 12;
		year -= 1;
	}
	int64_t days = (int64_t)(year / 4 - year / 100 + year / 400 + 367 * mon / 12 + day) +
		       (int64_t)year * 365 - 719499;
	return ((days * 24 + hour) * 60 + min) * 60 + sec;
}

/* The file entry of `name` in the exfat directory d: a pointer, or NULL. */
static const uint8_t *exfat_find(const uint8_t *d, uint64_t len, const char *name)
{
	for (uint64_t at = 0; at + 32 <= len; at += 32) {
		const uint8_t *e = d + at;
		if (!e[0])
			break;
		if (e[0] != 0x85)
			continue;
		uint32_t sec = e[1];
		if (sec < 2 || sec > 18 || (len - at) / 32 < 1 + (uint64_t)sec)
			continue;
		const uint8_t *s = e + 32;
		if (s[0] != 0xc0)
			continue;
		uint32_t nlen = s[3];
		uint8_t units[17 * 30];
		uint32_t got = 0;
		for (uint32_t k = 2; k <= sec && got < nlen; k++) {
			const uint8_t *n = e + 32 * k;
			if (n[0] != 0xc1)
				break;
			memcpy(units + 2 * got, n + 2, 30);
			got += 15;
		}
		char u8[17 * 15 * 4 + 1];
		if (got >= nlen && utf16_to_utf8(units, nlen, u8, sizeof(u8)) && !strcmp(u8, name))
			return e;
	}
	return NULL;
}

static int exfat_time(struct lb *b, const uint8_t *d, uint64_t len, const char *name,
		      struct rawtime *out)
{
	const uint8_t *e = exfat_find(d, len, name);
	if (!e)
		return lb_fail(b, "no file '%s' in the root directory", name);
	uint32_t ts = lb_le32(e + 12);
	uint8_t cs = e[21], tz = e[23];
	uint16_t t = (uint16_t)ts, dt = (uint16_t)(ts >> 16);
	int64_t s = mktime64(1980 + (dt >> 9), dt >> 5 & 0xf, dt & 0x1f, t >> 11, (t >> 5) & 0x3f,
			     (t & 0x1f) << 1);
	out->nsec = 0;
	if (cs) {
		s += cs / 100;
		out->nsec = (uint32_t)(cs % 100) * 10000000u;
	}
	if (tz & 0x80) { /* exfat_adjust_tz: 15-minute units, signed 7 bits */
		uint8_t off = tz & 0x7f;
		s += off <= 0x3f ? -(int64_t)off * 900 : (int64_t)(0x80 - off) * 900;
	}
	out->sec = s;
	snprintf(out->fields, sizeof(out->fields),
		 "LastModifiedTimestamp=0x%08x LastModified10msIncrement=%u "
		 "LastModifiedUtcOffset=0x%02x%s",
		 ts, cs, tz, tz & 0x80 ? "" : " (no valid offset: UTC)");
	return 0;
}

static int rawtime_fat(struct lb *b, bool exfat, const char *name, struct rawtime *out)
{
	uint8_t *d;
	uint64_t len;
	if (!name || !name[0])
		return lb_fail(b, "a file name is needed (no stable inode numbers)");
	if (layout_fat_root(b, exfat, &d, &len))
		return -1;
	int rc = exfat ? exfat_time(b, d, len, name, out) : vfat_time(b, d, len, name, out);
	free(d);
	return rc;
}

int rawtime_vfat(struct lb *b, const char *name, uint64_t ino, struct rawtime *out)
{
	(void)ino;
	return rawtime_fat(b, false, name, out);
}

int rawtime_exfat(struct lb *b, const char *name, uint64_t ino, struct rawtime *out)
{
	(void)ino;
	return rawtime_fat(b, true, name, out);
}
