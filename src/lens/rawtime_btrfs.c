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

static void decode(const uint8_t *t, const char *name, int64_t *sec, uint32_t *nsec, char *fields,
		   size_t cap)
{
	*sec = (int64_t)lb_le64(t);
	*nsec = lb_le32(t + 8);
	snprintf(fields, cap, "%s.sec=0x%016" PRIx64 " %s.nsec=%u", name, lb_le64(t), name, *nsec);
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
	decode(in + INODE_MTIME, "mtime", &out->sec, &out->nsec, out->fields, sizeof(out->fields));
	decode(in + INODE_CTIME, "ctime", &out->csec, &out->cnsec, out->cfields,
	       sizeof(out->cfields));
	out->have_ctime = true;
	return 0;
}
