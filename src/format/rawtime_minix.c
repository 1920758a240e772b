/* rawtime_minix.c - minix's stored mtime (Linux's
 * include/uapi/linux/minix_fs.h and fs/minix/inode.c): the inode is found
 * by its number in the inode table (layout_minix_inode). A v1 inode keeps
 * one time, i_time (32 bits, unsigned in the kernel: minix_V1_iget gives it
 * to mtime, atime and ctime alike); a v2 or v3 inode keeps i_mtime and
 * i_ctime (32 bits, unsigned). Whole seconds only. */
#include <inttypes.h>

#include "rawtime_int.h"

int rawtime_minix(struct lb *b, const char *name, uint64_t ino, struct rawtime *out)
{
	(void)name;
	uint8_t in[64];
	int version;
	if (ino > UINT32_MAX)
		return lb_fail(b, "inode %" PRIu64 " is outside the inodes", ino);
	if (layout_minix_inode(b, (uint32_t)ino, in, &version))
		return -1;
	if (version == 1) {
		uint32_t t = lb_le32(in + 8);
		rawtime_set(out, false, t, 0, "i_time=0x%08x (v1)", t);
		rawtime_set(out, true, t, 0, "i_time=0x%08x (v1: one time)", t);
	} else {
		uint32_t m = lb_le32(in + 16), c = lb_le32(in + 20);
		rawtime_set(out, false, m, 0, "i_mtime=0x%08x (v%d)", m, version);
		rawtime_set(out, true, c, 0, "i_ctime=0x%08x (v%d)", c, version);
	}
	return 0;
}
