/* rawtime_reiserfs.c - reiserfs's stored mtime and ctime (Linux's
 * fs/reiserfs/reiserfs.h, struct stat_data and struct stat_data_v1; inode.c's
 * init_inode): the stat data item is found by its key, the root's fixed one
 * or the one its entry in the root directory gives, as reiserfs_lookup and
 * reiserfs_iget find it (layout_reiserfs_stat). Both versions keep sd_mtime
 * and sd_ctime as le32 seconds, which init_inode reads unsigned (1970 to
 * 2106), and no nanoseconds (tv_nsec is set to 0). */
#include <inttypes.h>

#include "rawtime_int.h"

/* Places in the stat data: 3.6 (struct stat_data), 3.5 (stat_data_v1). */
#define SD2_MTIME 28
#define SD2_CTIME 32
#define SD1_MTIME 16
#define SD1_CTIME 20

int rawtime_reiserfs(struct lb *b, const char *name, uint64_t ino, struct rawtime *out)
{
	uint8_t sd[44];
	bool v1 = false;
	if (!name)
		return lb_fail(b, "no name to look up");
	if (ino > UINT32_MAX)
		return lb_fail(b, "inode %" PRIu64 " is outside the object ids", ino);
	if (layout_reiserfs_stat(b, name, (uint32_t)ino, sd, &v1))
		return -1;
	uint32_t m = lb_le32(sd + (v1 ? SD1_MTIME : SD2_MTIME));
	uint32_t c = lb_le32(sd + (v1 ? SD1_CTIME : SD2_CTIME));
	const char *ver = v1 ? "stat_data_v1" : "stat_data";
	rawtime_set(out, false, m, 0, "sd_mtime=0x%08x (%s)", m, ver);
	rawtime_set(out, true, c, 0, "sd_ctime=0x%08x (%s)", c, ver);
	return 0;
}
