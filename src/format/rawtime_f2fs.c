/* rawtime_f2fs.c - f2fs's stored mtime (Linux's include/linux/f2fs_fs.h,
 * struct f2fs_inode; fs/f2fs/inode.c's do_read_inode): the inode's node
 * block is found by its number (an inode's node id is its inode number)
 * through the valid checkpoint's NAT (layout_f2fs_node). i_mtime is an
 * le64 of signed seconds, i_mtime_nsec an le32 of nanoseconds; i_ctime
 * and i_ctime_nsec likewise. */
#include <inttypes.h>
#include <stdlib.h>

#include "rawtime_int.h"

#define I_CTIME	     40
#define I_MTIME	     48
#define I_CTIME_NSEC 60
#define I_MTIME_NSEC 64

int rawtime_f2fs(struct lb *b, const char *name, uint64_t ino, struct rawtime *out)
{
	(void)name;
	if (ino > UINT32_MAX)
		return lb_fail(b, "inode %" PRIu64 " is outside the node ids", ino);
	uint8_t *in = malloc(4096);
	if (!in)
		return lb_fail(b, "out of memory");
	int rc = layout_f2fs_node(b, (uint32_t)ino, in);
	if (!rc) {
		rawtime_le64_pair(out, false, in, I_MTIME, I_MTIME_NSEC);
		rawtime_le64_pair(out, true, in, I_CTIME, I_CTIME_NSEC);
	}
	free(in);
	return rc;
}
