/* rawtime_jfs.c - jfs's stored mtime (Linux's fs/jfs/jfs_dinode.h and
 * jfs_types.h; jfs_imap.c's copy_from_dinode): the inode is found through
 * the fileset's inode map (layout_jfs_inode). di_mtime and di_ctime are
 * each a struct timestruc_t, le32 tv_sec and le32 tv_nsec; the kernel
 * reads tv_sec as unsigned (1970 to 2106). */
#include <inttypes.h>

#include "rawtime_int.h"

#define DI_CTIME 64
#define DI_MTIME 72

/* A struct timestruc_t: le32 seconds (unsigned), le32 nanoseconds. */
static void decode(struct rawtime *out, bool ctime, const uint8_t *t)
{
	const char *name = ctime ? "di_ctime" : "di_mtime";
	rawtime_set(out, ctime, lb_le32(t), lb_le32(t + 4), "%s.tv_sec=0x%08x %s.tv_nsec=%u", name,
		    lb_le32(t), name, lb_le32(t + 4));
}

int rawtime_jfs(struct lb *b, const char *name, uint64_t ino, struct rawtime *out)
{
	(void)name;
	uint8_t di[512];
	if (ino > UINT32_MAX)
		return lb_fail(b, "inode %" PRIu64 " is outside the inodes", ino);
	if (layout_jfs_inode(b, (uint32_t)ino, di))
		return -1;
	decode(out, false, di + DI_MTIME);
	decode(out, true, di + DI_CTIME);
	return 0;
}
