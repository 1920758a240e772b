/* layout_f2fs.c - the layout map of f2fs, from its on-disk format (Linux's
 * include/linux/f2fs_fs.h; little-endian).
 *
 * Structure names (the first claim wins): superblock, superblock-backup,
 * checkpoint, sit, nat, ssa, main-area. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "layout_int.h"

int layout_f2fs(struct lb *b)
{
	uint8_t sb[128];
	if (lb_read(b, 1024, sb, sizeof(sb)))
		return -1;
	uint32_t log_bs = lb_le32(sb + 16), log_seg = lb_le32(sb + 20);
	uint64_t blocks = lb_le64(sb + 36);
	if (log_bs < 9 || log_bs > 16 || log_seg > 16)
		return lb_fail(b, "block size 2^%u, 2^%u blocks per segment in the superblock",
			       log_bs, log_seg);
	uint64_t bs = 1ull << log_bs, seg = bs << log_seg;
	if (blocks > b->size / bs)
		return lb_fail(b,
			       "%" PRIu64 " blocks of %" PRIu64 " bytes but the image holds "
			       "%" PRIu64 " bytes: truncated",
			       blocks, bs, b->size);
	b->l->block_size = (uint32_t)bs;
	/* Each area: its first block and its segment count, in on-disk order. */
	static const struct {
		const char *what;
		int addr, count;
	} areas[] = {{"checkpoint", 76, 52},
		     {"sit", 80, 56},
		     {"nat", 84, 60},
		     {"ssa", 88, 64},
		     {"main-area", 92, 68}};
	int rc = lb_add(b, 1024, bs - 1024, "superblock", 0, 0);
	if (!rc)
		rc = lb_add(b, bs + 1024, bs - 1024, "superblock-backup", 0, 0);
	uint64_t prev = lb_le32(sb + 72); /* segment0_blkaddr */
	for (size_t i = 0; i < sizeof(areas) / sizeof(areas[0]) && !rc; i++) {
		uint64_t at = lb_le32(sb + areas[i].addr), n = lb_le32(sb + areas[i].count);
		if (at < prev || at > blocks || n * seg > (blocks - at) * bs)
			return lb_fail(b,
				       "%s at block %" PRIu64 " (%" PRIu64 " segments) out of "
				       "place",
				       areas[i].what, at, n);
		rc = lb_add(b, at * bs, n * seg, areas[i].what, 0, 0);
		prev = at;
	}
	return rc;
}
