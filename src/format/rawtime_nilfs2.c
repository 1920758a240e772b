/* rawtime_nilfs2.c - nilfs2's stored mtime (Linux's
 * include/uapi/linux/nilfs2_ondisk.h, struct nilfs_inode; fs/nilfs2/inode.c,
 * nilfs_read_inode_common): the inode in the ifile, whose newest block is
 * found in the logs (layout_nilfs2_inode). i_mtime is an le64 of signed
 * seconds, i_mtime_nsec an le32 of nanoseconds; i_ctime and i_ctime_nsec
 * likewise. (nilfs2 stores no atime: the kernel gives it the mtime.) */
#include <inttypes.h>

#include "rawtime_int.h"

#define I_CTIME	     16
#define I_MTIME	     24
#define I_CTIME_NSEC 32
#define I_MTIME_NSEC 36
#define I_MODE	     48

int rawtime_nilfs2(struct lb *b, const char *name, uint64_t ino, struct rawtime *out)
{
	(void)name;
	uint8_t in[64];
	if (layout_nilfs2_inode(b, ino, in, sizeof(in)))
		return -1;
	if (!lb_le16(in + I_MODE))
		return lb_fail(b, "inode %" PRIu64 " is not in use (mode 0)", ino);
	rawtime_le64_pair(out, false, in, I_MTIME, I_MTIME_NSEC);
	rawtime_le64_pair(out, true, in, I_CTIME, I_CTIME_NSEC);
	return 0;
}
