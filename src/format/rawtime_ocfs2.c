/* rawtime_ocfs2.c - ocfs2's stored mtime and ctime (Linux's
 * fs/ocfs2/ocfs2_fs.h, struct ocfs2_dinode; inode.c's
 * ocfs2_populate_inode): an inode's number is its block, as ocfs2_iget
 * reads it (layout_ocfs2_inode). i_mtime and i_ctime are le64 seconds,
 * read into a signed time64_t; i_mtime_nsec and i_ctime_nsec le32
 * nanoseconds. */
#include <inttypes.h>

#include "rawtime_int.h"

#define DI_CTIME      0x38
#define DI_MTIME      0x40
#define DI_CTIME_NSEC 0x68
#define DI_MTIME_NSEC 0x6c

static void decode(struct rawtime *out, bool ctime, const uint8_t *di, size_t at, size_t nsat)
{
	const char *name = ctime ? "i_ctime" : "i_mtime";
	uint64_t sec = lb_le64(di + at);
	uint32_t nsec = lb_le32(di + nsat);
	rawtime_set(out, ctime, (int64_t)sec, nsec, "%s=0x%016" PRIx64 " %s_nsec=%u", name, sec,
		    name, nsec);
}

int rawtime_ocfs2(struct lb *b, const char *name, uint64_t ino, struct rawtime *out)
{
	(void)name;
	uint8_t di[0x80];
	if (layout_ocfs2_inode(b, ino, di, sizeof(di)))
		return -1;
	decode(out, false, di, DI_MTIME, DI_MTIME_NSEC);
	decode(out, true, di, DI_CTIME, DI_CTIME_NSEC);
	return 0;
}
