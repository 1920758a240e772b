/* rawtime_ext.c - ext2, ext3 and ext4's stored mtime, through libext2fs:
 * i_mtime, 32 bits of signed seconds, and, in an inode large enough to
 * hold it (i_extra_isize covers it), i_mtime_extra: 2 epoch bits that
 * extend the seconds to 34 bits and 30 bits of nanoseconds (Linux's
 * fs/ext4/ext4.h, ext4_decode_extra_time). i_ctime and i_ctime_extra
 * likewise. */
#include <ext2fs/ext2fs.h>

#include "rawtime_int.h"

/* One time: 32 signed bits of seconds, and with the extra field 2 epoch
 * bits above them and 30 bits of ns (ext4_decode_extra_time). */
static void decode(uint32_t base, uint32_t xtra, bool extra, const char *name, int64_t *sec,
		   uint32_t *nsec, char *fields, size_t cap)
{
	*sec = (int32_t)base;
	*nsec = 0;
	int n = snprintf(fields, cap, "i_%s=0x%08x", name, base);
	if (n < 0 || (size_t)n >= cap)
		return;
	if (!extra) {
		snprintf(fields + n, cap - (size_t)n, " (no extra field)");
		return;
	}
	*sec += (int64_t)(xtra & 3) << 32;
	*nsec = xtra >> 2;
	snprintf(fields + n, cap - (size_t)n, " i_%s_extra=0x%08x", name, xtra);
}

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
	/* The extra fields exist when the inode's extra space reaches past them
	 * (i_ctime_extra comes first, then i_mtime_extra). */
	size_t end = offsetof(struct ext2_inode_large, i_mtime_extra) + sizeof(in.i_mtime_extra);
	bool extra = isize > EXT2_GOOD_OLD_INODE_SIZE &&
		     (size_t)EXT2_GOOD_OLD_INODE_SIZE + in.i_extra_isize >= end;
	decode(in.i_mtime, in.i_mtime_extra, extra, "mtime", &out->sec, &out->nsec, out->fields,
	       sizeof(out->fields));
	decode(in.i_ctime, in.i_ctime_extra, extra, "ctime", &out->csec, &out->cnsec, out->cfields,
	       sizeof(out->cfields));
	out->have_ctime = true;
	return 0;
}
