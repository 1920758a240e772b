/* rawtime_btrfs.c - btrfs's stored mtime (btrfs-progs'
 * kernel-shared/uapi/btrfs_tree.h, struct btrfs_inode_item; Linux's
 * fs/btrfs/inode.c, btrfs_read_locked_inode): the INODE_ITEM keyed
 * (ino, 1, 0) in the top-level subvolume's tree (5), found through the
 * root tree (layout_btrfs_item). Its mtime and ctime are each a struct
 * btrfs_timespec: le64 signed seconds, le32 nanoseconds. */
#include <inttypes.h>

#include "rawtime_int.h"

#define FS_TREE	    5
#define INODE_ITEM  1
#define INODE_BYTES 160
#define INODE_CTIME 124
#define INODE_MTIME 136

/* A struct btrfs_timespec: le64 seconds, le32 nanoseconds. */
static void decode(struct rawtime *out, bool ctime, const uint8_t *t)
{
	const char *name = ctime ? "ctime" : "mtime";
	rawtime_set(out, ctime, (int64_t)lb_le64(t), lb_le32(t + 8),
		    "%s.sec=0x%016" PRIx64 " %s.nsec=%u", name, lb_le64(t), name, lb_le32(t + 8));
}

int rawtime_btrfs(struct lb *b, const char *name, uint64_t ino, struct rawtime *out)
{
	(void)name;
	uint8_t in[INODE_BYTES];
	uint32_t len;
	if (layout_btrfs_item(b, FS_TREE, ino, INODE_ITEM, 0, in, sizeof(in), &len))
		return -1;
	if (len < INODE_BYTES)
		return lb_fail(b, "inode item of %" PRIu64 " holds %u bytes", ino, len);
	decode(out, false, in + INODE_MTIME);
	decode(out, true, in + INODE_CTIME);
	return 0;
}
