/* rawtime_jfs.c - jfs's stored mtime (Linux's fs/jfs/jfs_dinode.h and
 * jfs_types.h; jfs_imap.c's copy_from_dinode): the inode is found through
 * the fileset's inode map (layout_jfs_inode). di_mtime and di_ctime are
 * each a struct timestruc_t, le32 tv_sec and le32 tv_nsec; the kernel
 * reads tv_sec as unsigned (1970 to 2106). */
#include <inttypes.h>

#include "rawtime_int.h"

#define DI_CTIME 64
#define DI_MTIME 72

static void decode(const uint8_t *t, const char *name, int64_t *sec, uint32_t *nsec, char *fields,
		   size_t cap)
{
	*sec = lb_le32(t);
	*nsec = lb_le32(t + 4);
	snprintf(fields, cap, "%s.tv_sec=0x%08x %s.tv_nsec=%u", name, lb_le32(t), name,
		 lb_le32(t + 4));
}

int rawtime_jfs(struct lb *b, const char *name, uint64_t ino, struct rawtime *out)
{
	(void)name;
	uint8_t di[512];
	if (ino > UINT32_MAX)
		return lb_fail(b, "inode %" PRIu64 " is outside the inodes", ino);
	if (layout_jfs_inode(b, (uint32_t)ino, di))
		return -1;
	decode(di + DI_MTIME, "di_mtime", &out->sec, &out->nsec, out->fields, sizeof(out->fields));
	decode(di + DI_CTIME, "di_ctime", &out->csec, &out->cnsec, out->cfields,
	       sizeof(out->cfields));
	out->have_ctime = true;
	return 0;
}
