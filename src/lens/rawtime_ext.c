/* rawtime_ext.c - ext2, ext3 and ext4's stored mtime, through libext2fs:
 * i_mtime, 32 bits of signed seconds, and, in an inode large enough to
 * hold it (i_extra_isize covers it), i_mtime_extra: 2 epoch bits that
 * extend the seconds to 34 bits and 30 bits of nanoseconds (Linux's
 * fs/ext4/ext4.h, ext4_decode_extra_time). */
#include <ext2fs/ext2fs.h>

#include "rawtime_int.h"

int rawtime_ext(struct lb *b, const char *name, uint64_t ino, struct rawtime *out)
{
	(void)name;
	ext2_filsys fs = NULL;
	if (layout_ext_open(b, &fs))
		return -1;
	int rc = 0;
	struct ext2_inode_large in;
	unsigned isize = EXT2_INODE_SIZE(fs->super);
	if (ino < 1 || ino > fs->super->s_inodes_count)
		rc = lb_fail(b, "inode %llu is outside the %u inodes", (unsigned long long)ino,
			     fs->super->s_inodes_count);
	else if (ext2fs_read_inode_full(fs, (ext2_ino_t)ino, (struct ext2_inode *)&in,
					isize < sizeof(in) ? isize : sizeof(in)))
		rc = lb_fail(b, "cannot read inode %llu", (unsigned long long)ino);
	ext2fs_close_free(&fs);
	if (rc)
		return rc;
	out->sec = (int32_t)in.i_mtime;
	int n = snprintf(out->fields, sizeof(out->fields), "i_mtime=0x%08x", in.i_mtime);
	/* The extra field exists when the inode's extra space reaches past it. */
	size_t end = offsetof(struct ext2_inode_large, i_mtime_extra) + sizeof(in.i_mtime_extra);
	if (isize > EXT2_GOOD_OLD_INODE_SIZE &&
	    (size_t)EXT2_GOOD_OLD_INODE_SIZE + in.i_extra_isize >= end) {
		out->sec += (int64_t)(in.i_mtime_extra & 3) << 32;
		out->nsec = in.i_mtime_extra >> 2;
		snprintf(out->fields + n, sizeof(out->fields) - (size_t)n, " i_mtime_extra=0x%08x",
			 in.i_mtime_extra);
	} else {
		snprintf(out->fields + n, sizeof(out->fields) - (size_t)n, " (no extra field)");
	}
	return 0;
}
