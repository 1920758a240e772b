/* rawtime_xfs.c - xfs's stored mtime (Linux's fs/xfs/libxfs/xfs_format.h):
 * the inode is found from its number through the superblock's geometry
 * (AG, block in the AG, slot in the block); di_mtime is either the legacy
 * pair of big-endian 32-bit signed seconds and nanoseconds, or, when the
 * inode has XFS_DIFLAG2_BIGTIME, one big-endian 64-bit count of
 * nanoseconds since 1901-12-13T20:45:52Z (-2^31 s). di_ctime likewise. */
#include <inttypes.h>

#include "rawtime_int.h"

#define XFS_DINODE_MAGIC 0x494e /* "IN" */
#define DI_MTIME	 40
#define DI_CTIME	 48
#define DI_FLAGS2	 120
#define DIFLAG2_BIGTIME	 (1ull << 3)

/* One timestamp: bigtime ns since -2^31 s, or the legacy sec/nsec pair. */
static void decode(uint64_t raw, bool bigtime, const char *name, int64_t *sec, uint32_t *nsec,
		   char *fields, size_t cap)
{
	if (bigtime) {
		*sec = (int64_t)(raw / 1000000000) - 2147483648LL;
		*nsec = (uint32_t)(raw % 1000000000);
		snprintf(fields, cap, "%s=%" PRIu64 " (bigtime ns)", name, raw);
	} else {
		*sec = (int32_t)(raw >> 32);
		*nsec = (uint32_t)raw;
		snprintf(fields, cap, "%s t_sec=0x%08x t_nsec=0x%08x", name, (uint32_t)(raw >> 32),
			 (uint32_t)raw);
	}
}

int rawtime_xfs(struct lb *b, const char *name, uint64_t ino, struct rawtime *out)
{
	(void)name;
	uint8_t sb[128], di[128];
	if (lb_read(b, 0, sb, sizeof(sb)))
		return -1;
	uint32_t bs = lb_be32(sb + 4), agblocks = lb_be32(sb + 84), agcount = lb_be32(sb + 88);
	uint16_t isize = lb_be16(sb + 104);
	uint8_t inopblog = sb[123], agblklog = sb[124];
	if (lb_be32(sb) != 0x58465342 || bs < 512 || bs > 65536 || isize < 256 || isize > bs ||
	    !agblocks || inopblog > 7 || agblklog > 31 || agblklog + inopblog > 63)
		return lb_fail(b, "not a superblock this parser reads");
	uint64_t agino_bits = agblklog + inopblog;
	uint64_t agno = ino >> agino_bits, agino = ino & ((1ull << agino_bits) - 1);
	uint64_t agbno = agino >> inopblog, slot = agino & ((1ull << inopblog) - 1);
	if (agno >= agcount || agbno >= agblocks)
		return lb_fail(b, "inode %" PRIu64 " is outside the filesystem", ino);
	uint64_t off = (agno * agblocks + agbno) * bs + slot * isize;
	if (lb_read(b, off, di, sizeof(di)))
		return -1;
	if (lb_be16(di) != XFS_DINODE_MAGIC)
		return lb_fail(b, "inode %" PRIu64 " at byte %" PRIu64 ": no inode magic", ino,
			       off);
	bool bigtime = di[4] >= 3 && (lb_be64(di + DI_FLAGS2) & DIFLAG2_BIGTIME);
	decode(lb_be64(di + DI_MTIME), bigtime, "di_mtime", &out->sec, &out->nsec, out->fields,
	       sizeof(out->fields));
	decode(lb_be64(di + DI_CTIME), bigtime, "di_ctime", &out->csec, &out->cnsec, out->cfields,
	       sizeof(out->cfields));
	out->have_ctime = true;
	return 0;
}
