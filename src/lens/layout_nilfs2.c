/* layout_nilfs2.c - the layout map of nilfs2, from its on-disk format
 * (Linux's include/uapi/linux/nilfs2_ondisk.h; little-endian).
 *
 * Structure names (the first claim wins): superblock, superblock-backup,
 * segment (owner = the segment number). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "layout_int.h"

int layout_nilfs2(struct lb *b)
{
	uint8_t sb[64];
	if (lb_read(b, 1024, sb, sizeof(sb)))
		return -1;
	uint32_t log_bs = lb_le32(sb + 20), per_seg = lb_le32(sb + 48);
	uint64_t nseg = lb_le64(sb + 24), devsize = lb_le64(sb + 32), first = lb_le64(sb + 40);
	if (log_bs > 6 || per_seg < 16)
		return lb_fail(b, "block size 2^%u KiB, %u blocks per segment in the superblock",
			       log_bs, per_seg);
	uint64_t bs = 1024ull << log_bs;
	if (devsize > b->size)
		return lb_fail(b,
			       "device of %" PRIu64 " bytes but the image holds %" PRIu64
			       " bytes: truncated",
			       devsize, b->size);
	if (!nseg || nseg > devsize / bs / per_seg || first >= per_seg)
		return lb_fail(b,
			       "%" PRIu64 " segments of %u blocks from block %" PRIu64
			       " in %" PRIu64 " bytes",
			       nseg, per_seg, first, devsize);
	b->l->block_size = (uint32_t)bs;
	int rc = lb_add(b, 1024, 1024, "superblock", 0, 0);
	/* The second superblock: NILFS_SB2_OFFSET_BYTES, the last 4 KiB of the device. */
	if (!rc && devsize >= 8192)
		rc = lb_add(b, ((devsize >> 12) - 1) << 12, 1024, "superblock-backup", 0, 0);
	for (uint64_t s = 0; s < nseg && !rc; s++) {
		uint64_t start = s ? s * per_seg : first;
		rc = lb_add(b, start * bs, ((s + 1) * per_seg - start) * bs, "segment", 0, s);
	}
	return rc;
}
