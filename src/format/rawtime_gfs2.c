/* rawtime_gfs2.c - gfs2's stored mtime and ctime (Linux's
 * include/uapi/linux/gfs2_ondisk.h struct gfs2_dinode; fs/gfs2/glops.c
 * gfs2_dinode_in): the dinode is the block numbered by the inode number
 * (fs/gfs2/inode.c gfs2_inode_lookup: i_ino = no_addr), read through
 * layout_gfs2_dinode. di_mtime and di_ctime are be64 seconds, read as
 * signed (time64_t); di_mtime_nsec and di_ctime_nsec be32 nanoseconds,
 * taken as stored (the kernel does not check them). */
#include <inttypes.h>

#include "rawtime_int.h"

#define DI_MTIME      80
#define DI_CTIME      88
#define DI_MTIME_NSEC 180
#define DI_CTIME_NSEC 184
#define DI_BYTES      232 /* sizeof(struct gfs2_dinode) */

static void decode(struct rawtime *out, bool ctime, const uint8_t *di)
{
	const char *name = ctime ? "di_ctime" : "di_mtime";
	uint64_t sec = lb_be64(di + (ctime ? DI_CTIME : DI_MTIME));
	uint32_t nsec = lb_be32(di + (ctime ? DI_CTIME_NSEC : DI_MTIME_NSEC));
	rawtime_set(out, ctime, (int64_t)sec, nsec, "%s=0x%016" PRIx64 " %s_nsec=%u", name, sec,
		    name, nsec);
}

int rawtime_gfs2(struct lb *b, const char *name, uint64_t ino, struct rawtime *out)
{
	(void)name;
	uint8_t di[DI_BYTES];
	if (layout_gfs2_dinode(b, ino, di, sizeof(di)))
		return -1;
	decode(out, false, di);
	decode(out, true, di);
	return 0;
}
