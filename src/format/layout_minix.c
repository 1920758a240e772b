/* layout_minix.c - the layout map of minix v1, v2 and v3, from its
 * on-disk format (Linux's fs/minix/minix.h and include/linux/minix_fs.h;
 * little-endian).
 *
 * minix is walked to the zone: every inode the inode bitmap marks used is
 * read and its direct and indirect zones named.
 *
 * Structure names (the first claim wins): boot, superblock, inode-bitmap,
 * zone-bitmap, inode-table (unit = the inode size), directory, data, symlink,
 * indirect (owner = the inode number), free (zones the zone bitmap marks
 * free). */
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

static uint64_t itable_blocks(const struct minix *m)
{
	return ((uint64_t)m->ninodes * m->isize + m->bs - 1) / m->bs;
}

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
		const char *what = lb_kind_of_mode(mode);
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

/* The superblock into m (version, geometry, the inode table's place),
 * checked against itself and the image: 0, or -1 with b->err. */
static int minix_super(struct lb *b, struct minix *m)
{
	uint8_t sb[64];
	if (lb_read(b, 1024, sb, sizeof(sb)))
		return -1;
	*m = (struct minix){.b = b, .bs = 1024};
	uint32_t log_zone;
	if (lb_le16(sb + 24) == 0x4d5a) { /* v3 */
		m->version = 3;
		m->ninodes = lb_le32(sb);
		m->imap_blocks = lb_le16(sb + 6);
		m->zmap_blocks = lb_le16(sb + 8);
		m->firstzone = lb_le16(sb + 10);
		log_zone = lb_le16(sb + 12);
		m->zones = lb_le32(sb + 20);
		m->bs = lb_le16(sb + 28);
	} else {
		uint16_t magic = lb_le16(sb + 16);
		m->version = magic == 0x2468 || magic == 0x2478 ? 2 : 1;
		m->ninodes = lb_le16(sb);
		m->imap_blocks = lb_le16(sb + 4);
		m->zmap_blocks = lb_le16(sb + 6);
		m->firstzone = lb_le16(sb + 8);
		log_zone = lb_le16(sb + 10);
		m->zones = m->version == 2 ? lb_le32(sb + 20) : lb_le16(sb + 2);
	}
	m->isize = m->version == 1 ? 32 : 64;
	if (m->bs < 1024 || m->bs > 65536 || (m->bs & (m->bs - 1)) || log_zone > 8)
		return lb_fail(b, "block size %u, zone shift %u in the superblock", m->bs,
			       log_zone);
	m->zonebytes = m->bs << log_zone;
	uint64_t first_free = 2 + (uint64_t)m->imap_blocks + m->zmap_blocks + itable_blocks(m);
	if (!m->ninodes || !m->imap_blocks || !m->zmap_blocks ||
	    (uint64_t)m->imap_blocks * m->bs * 8 < m->ninodes + 1u ||
	    (uint64_t)m->zmap_blocks * m->bs * 8 < m->zones - m->firstzone + 1u ||
	    m->firstzone * (uint64_t)m->zonebytes < first_free * m->bs || m->firstzone >= m->zones)
		return lb_fail(b, "%u inodes, %u zones from %u, %u+%u bitmap blocks: inconsistent",
			       m->ninodes, m->zones, m->firstzone, m->imap_blocks, m->zmap_blocks);
	if ((uint64_t)m->zones * m->zonebytes > b->size)
		return lb_fail(
		    b, "%u zones of %u bytes but the image holds %" PRIu64 " bytes: truncated",
		    m->zones, m->zonebytes, b->size);
	m->itable = (2 + (uint64_t)m->imap_blocks + m->zmap_blocks) * m->bs;
	return 0;
}

int layout_minix_inode(struct lb *b, uint32_t ino, uint8_t in[64], int *version)
{
	struct minix m;
	if (minix_super(b, &m))
		return -1;
	if (ino < 1 || ino > m.ninodes)
		return lb_fail(b, "inode %u is outside the %u inodes", ino, m.ninodes);
	memset(in, 0, 64);
	*version = m.version;
	return lb_read(b, m.itable + (uint64_t)(ino - 1) * m.isize, in, m.isize);
}

int layout_minix(struct lb *b)
{
	struct minix m;
	if (minix_super(b, &m))
		return -1;
	uint64_t itable_n = itable_blocks(&m);
	b->l->block_size = m.bs;
	b->l->inode_size = m.isize;
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
		rc = lb_add(b, m.itable, itable_n * m.bs, "inode-table", m.isize, 0);
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
