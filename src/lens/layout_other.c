/* layout_other.c - the layout map of minix, f2fs, jfs and nilfs2, from
 * their on-disk formats (Linux's fs/minix/minix.h and
 * include/linux/minix_fs.h, include/linux/f2fs_fs.h, fs/jfs/jfs_superblock.h
 * and jfs_filsys.h, include/uapi/linux/nilfs2_ondisk.h; little-endian).
 *
 * minix is walked to the zone: every inode the inode bitmap marks used is
 * read and its direct and indirect zones named. The other three are named
 * to the granularity of their fixed areas (checkpoint, SIT, NAT, SSA and
 * main area; the aggregate's fixed structures and log; the segments):
 * following their log-structured or B+-tree metadata down to each file is
 * left for later.
 *
 * Structure names (the first claim wins):
 *   minix:  boot, superblock, inode-bitmap, zone-bitmap, inode-table
 *           (unit = the inode size), directory, data, indirect (owner = the
 *           inode number), free (zones the zone bitmap marks free)
 *   f2fs:   superblock, superblock-backup, checkpoint, sit, nat, ssa,
 *           main-area
 *   jfs:    superblock, superblock-backup, aggregate-inode-map,
 *           aggregate-inode-table, and their secondary copies
 *           (aggregate-inode-map-backup, aggregate-inode-table-backup),
 *           log, fsck-workspace
 *   nilfs2: superblock, superblock-backup, segment (owner = the segment
 *           number) */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "layout_int.h"

/* minix: v1 (14/30-char names), v2 and v3. */
struct minix {
	struct lb *b;
	int version;
	uint32_t bs, isize, zones, firstzone, ninodes, zonebytes;
	uint64_t itable; /* byte offset of the inode table */
	uint8_t *imap, *zmap;
	uint32_t imap_blocks, zmap_blocks;
	uint64_t budget;
};

static bool zone_ok(const struct minix *m, uint32_t z)
{
	return z >= m->firstzone && z < m->zones;
}

/* Claim a zone; with depth > 0 it is an indirect zone, followed. */
static int minix_zone(struct minix *m, uint32_t z, int depth, const char *what, uint32_t ino)
{
	if (!z)
		return 0;
	if (!zone_ok(m, z))
		return lb_fail(m->b, "inode %u: zone %u outside the data zones", ino, z);
	if (!m->budget--)
		return lb_fail(m->b, "more zone references than zones: looping indirect zones");
	if (lb_add(m->b, (uint64_t)z * m->zonebytes, m->zonebytes, depth ? "indirect" : what, 0,
		   ino))
		return -1;
	if (!depth)
		return 0;
	uint32_t per = m->version == 1 ? 2 : 4, n = m->bs / per;
	uint8_t *blk = malloc(m->bs);
	if (!blk)
		return lb_fail(m->b, "out of memory");
	int rc = lb_read(m->b, (uint64_t)z * m->zonebytes, blk, m->bs);
	for (uint32_t i = 0; i < n && !rc; i++)
		rc = minix_zone(m, per == 2 ? lb_le16(blk + 2 * i) : lb_le32(blk + 4 * i),
				depth - 1, what, ino);
	free(blk);
	return rc;
}

static int minix_inodes(struct minix *m)
{
	uint8_t in[64];
	for (uint32_t ino = 1; ino <= m->ninodes; ino++) {
		if (ino / 8 >= (uint64_t)m->imap_blocks * m->bs ||
		    !(m->imap[ino / 8] >> (ino % 8) & 1))
			continue;
		if (lb_read(m->b, m->itable + (uint64_t)(ino - 1) * m->isize, in, m->isize))
			return -1;
		uint16_t mode = lb_le16(in);
		const char *what = (mode & 0170000) == 0040000 ? "directory" : "data";
		if ((mode & 0170000) != 0040000 && (mode & 0170000) != 0100000 &&
		    (mode & 0170000) != 0120000)
			continue; /* devices, fifos, sockets: no zones */
		uint32_t z[10];
		int n = m->version == 1 ? 9 : 10;
		for (int i = 0; i < n; i++)
			z[i] =
			    m->version == 1 ? lb_le16(in + 14 + 2 * i) : lb_le32(in + 24 + 4 * i);
		for (int i = 0; i < n; i++)
			if (minix_zone(m, z[i], i < 7 ? 0 : i - 6, what, ino))
				return -1;
	}
	return 0;
}

int layout_minix(struct lb *b)
{
	uint8_t sb[64];
	if (lb_read(b, 1024, sb, sizeof(sb)))
		return -1;
	struct minix m = {.b = b, .bs = 1024};
	uint32_t log_zone;
	if (lb_le16(sb + 24) == 0x4d5a) { /* v3 */
		m.version = 3;
		m.ninodes = lb_le32(sb);
		m.imap_blocks = lb_le16(sb + 6);
		m.zmap_blocks = lb_le16(sb + 8);
		m.firstzone = lb_le16(sb + 10);
		log_zone = lb_le16(sb + 12);
		m.zones = lb_le32(sb + 20);
		m.bs = lb_le16(sb + 28);
	} else {
		uint16_t magic = lb_le16(sb + 16);
		m.version = magic == 0x2468 || magic == 0x2478 ? 2 : 1;
		m.ninodes = lb_le16(sb);
		m.imap_blocks = lb_le16(sb + 4);
		m.zmap_blocks = lb_le16(sb + 6);
		m.firstzone = lb_le16(sb + 8);
		log_zone = lb_le16(sb + 10);
		m.zones = m.version == 2 ? lb_le32(sb + 20) : lb_le16(sb + 2);
	}
	m.isize = m.version == 1 ? 32 : 64;
	if (m.bs < 1024 || m.bs > 65536 || (m.bs & (m.bs - 1)) || log_zone > 8)
		return lb_fail(b, "block size %u, zone shift %u in the superblock", m.bs, log_zone);
	m.zonebytes = m.bs << log_zone;
	uint64_t itable_blocks = ((uint64_t)m.ninodes * m.isize + m.bs - 1) / m.bs;
	uint64_t first_free = 2 + (uint64_t)m.imap_blocks + m.zmap_blocks + itable_blocks;
	if (!m.ninodes || !m.imap_blocks || !m.zmap_blocks ||
	    (uint64_t)m.imap_blocks * m.bs * 8 < m.ninodes + 1u ||
	    (uint64_t)m.zmap_blocks * m.bs * 8 < m.zones - m.firstzone + 1u ||
	    m.firstzone * (uint64_t)m.zonebytes < first_free * m.bs || m.firstzone >= m.zones)
		return lb_fail(b, "%u inodes, %u zones from %u, %u+%u bitmap blocks: inconsistent",
			       m.ninodes, m.zones, m.firstzone, m.imap_blocks, m.zmap_blocks);
	if ((uint64_t)m.zones * m.zonebytes > b->size)
		return lb_fail(
		    b, "%u zones of %u bytes but the image holds %" PRIu64 " bytes: truncated",
		    m.zones, m.zonebytes, b->size);
	b->l->block_size = m.bs;
	b->l->inode_size = m.isize;
	m.itable = (2 + (uint64_t)m.imap_blocks + m.zmap_blocks) * m.bs;
	m.budget = 2ull * m.zones + 64;
	int rc = lb_add(b, 0, 1024, "boot", 0, 0);
	if (!rc)
		rc = lb_add(b, 1024, m.bs == 1024 ? 1024 : m.bs - 1024, "superblock", 0, 0);
	if (!rc)
		rc = lb_add(b, 2ull * m.bs, (uint64_t)m.imap_blocks * m.bs, "inode-bitmap", 0, 0);
	if (!rc)
		rc = lb_add(b, (2ull + m.imap_blocks) * m.bs, (uint64_t)m.zmap_blocks * m.bs,
			    "zone-bitmap", 0, 0);
	if (!rc)
		rc = lb_add(b, m.itable, itable_blocks * m.bs, "inode-table", m.isize, 0);
	m.imap = malloc((uint64_t)m.imap_blocks * m.bs);
	m.zmap = malloc((uint64_t)m.zmap_blocks * m.bs);
	if (!rc && (!m.imap || !m.zmap))
		rc = lb_fail(b, "out of memory");
	if (!rc)
		rc = lb_read(b, 2ull * m.bs, m.imap, (uint64_t)m.imap_blocks * m.bs);
	if (!rc)
		rc = lb_read(b, (2ull + m.imap_blocks) * m.bs, m.zmap,
			     (uint64_t)m.zmap_blocks * m.bs);
	if (!rc)
		rc = minix_inodes(&m);
	/* Zone bitmap bit k is zone firstzone + k - 1 (bit 0 is reserved). */
	for (uint32_t z = m.firstzone; z < m.zones && !rc; z++) {
		uint32_t k = z - m.firstzone + 1;
		if (!(m.zmap[k / 8] >> (k % 8) & 1))
			rc = lb_add(b, (uint64_t)z * m.zonebytes, m.zonebytes, "free", 0, 0);
	}
	free(m.imap);
	free(m.zmap);
	return rc;
}

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
