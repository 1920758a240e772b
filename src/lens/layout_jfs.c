/* layout_jfs.c - the layout map of jfs, from its on-disk format (Linux's
 * fs/jfs/jfs_superblock.h, jfs_filsys.h, jfs_dinode.h, jfs_xtree.h;
 * little-endian).
 *
 * Structure names (the first claim wins): superblock, superblock-backup,
 * aggregate-inode-map, aggregate-inode-table, and their secondary copies
 * (aggregate-inode-map-backup, aggregate-inode-table-backup), log,
 * fsck-workspace. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "layout_int.h"

/* jfs: a pxd_t, 24 bits of length and 40 of address, in aggregate blocks. */
static void pxd(const uint8_t *p, uint64_t *addr, uint64_t *len)
{
	uint32_t w = lb_le32(p);
	*len = w & 0xffffff;
	*addr = (uint64_t)(w >> 24) << 32 | lb_le32(p + 4);
}

int layout_jfs(struct lb *b)
{
	uint8_t sb[256];
	if (lb_read(b, 0x8000, sb, sizeof(sb)))
		return -1;
	uint64_t size = lb_le64(sb + 8); /* in physical blocks */
	uint32_t bs = lb_le32(sb + 16), pbs = lb_le32(sb + 24);
	if (bs < 512 || bs > 65536 || (bs & (bs - 1)) || pbs < 512 || pbs > bs || (pbs & (pbs - 1)))
		return lb_fail(b, "block size %u, physical block size %u in the superblock", bs,
			       pbs);
	if (size > b->size / pbs)
		return lb_fail(b,
			       "%" PRIu64 " blocks of %u bytes but the image holds %" PRIu64
			       " bytes: truncated",
			       size, pbs, b->size);
	b->l->block_size = bs;
	b->l->inode_size = 512;
	/* The fixed places (jfs_filsys.h): SUPER1_OFF, AIMAP_OFF, AITBL_OFF, SUPER2_OFF. */
	int rc = lb_add(b, 0x8000, 0x1000, "superblock", 0, 0);
	if (!rc)
		rc = lb_add(b, 0x9000, 0x2000, "aggregate-inode-map", 0, 0);
	if (!rc)
		rc = lb_add(b, 0xb000, 0x4000, "aggregate-inode-table", 512, 0);
	if (!rc)
		rc = lb_add(b, 0xf000, 0x1000, "superblock-backup", 0, 0);
	static const struct {
		const char *what;
		int off;
		uint32_t unit;
	} pxds[] = {{"aggregate-inode-table-backup", 48, 512},
		    {"aggregate-inode-map-backup", 56, 0},
		    {"log", 72, 0},
		    {"fsck-workspace", 80, 0}};
	for (size_t i = 0; i < sizeof(pxds) / sizeof(pxds[0]) && !rc; i++) {
		uint64_t addr, len;
		pxd(sb + pxds[i].off, &addr, &len);
		if (!len)
			continue;
		/* s_size leaves out the inline log and fsck area: bound by the image. */
		if (addr > b->size / bs || len > b->size / bs - addr)
			return lb_fail(b, "%s at block %" PRIu64 " (%" PRIu64 ") outside",
				       pxds[i].what, addr, len);
		rc = lb_add(b, addr * bs, len * bs, pxds[i].what, pxds[i].unit, 0);
	}
	return rc;
}
