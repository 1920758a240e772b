/* layout_f2fs.c - the layout map of f2fs, from its on-disk format (Linux's
 * include/linux/f2fs_fs.h, and fs/f2fs/checkpoint.c, node.h and segment.h
 * for where the copies live; little-endian).
 *
 * f2fs is walked to the block: the valid checkpoint pack gives the version
 * bitmaps that pick each NAT and SIT block's live copy, and the NAT and SIT
 * journals kept in the current data segments' summaries. Every inode the
 * NAT knows is read, and its node tree followed to its data blocks; then
 * the SIT names what is left of the main area by its segment's type.
 *
 * Structure names, claimed in this order (the first claim of a sector wins):
 *   superblock, superblock-backup, checkpoint, sit, nat, ssa  the fixed areas
 *   inode       an inode's node block (inline data and dentries live in it;
 *               owner = the inode number)
 *   node        a direct or indirect node block of an inode (owner = it)
 *   xattr       an inode's xattr node block (owner = it)
 *   directory   a directory's dentry blocks (owner = the directory)
 *   data        a file's blocks (owner = the inode)
 *   symlink     a symlink's blocks (owner = the inode)
 *   node, data  then, with no owner, any other block the SIT marks valid in
 *               a node or a data segment (hot, warm or cold alike)
 *   free        blocks of the main area the SIT marks invalid
 *   main-area   what is left of the main area: all of it when no checkpoint
 *               pack is valid or the geometry is not 4 KiB blocks in 2 MiB
 *               segments (the only one Linux mounts).
 *
 * Untrusted input: every address is checked to lie in its area before it
 * is read or claimed, node blocks must carry the node id and inode number
 * that led to them in their footer, and the walk of the node trees has a
 * budget of twice the main area's blocks, so looping node trees end with an
 * error. A damaged checkpoint leaves the coarse map (fixed areas and
 * main-area), as the kernel would refuse to mount it. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "layout_int.h"

#define F2FS_MAGIC    0xf2f52010u
#define BLK	      4096u
#define SEG_BLOCKS    512u /* the SIT's valid map has 512 bits */
#define NULL_ADDR     0u
#define NEW_ADDR      0xffffffffu
#define COMPRESS_ADDR 0xfffffffeu
#define FIRST_NID     3u /* 0, 1 (node inode) and 2 (meta inode) are reserved */

/* struct f2fs_super_block */
#define SB_CP_PAYLOAD	    1664
#define SB_FEATURE	    2180
#define SB_BYTES	    2184
#define FEAT_EXTRA_ATTR	    0x0008u
#define FEAT_FLEXIBLE_XATTR 0x0040u
#define FEAT_COMPRESSION    0x2000u

/* struct f2fs_checkpoint */
#define CP_FLAGS	    132
#define CP_TOTAL	    136
#define CP_START_SUM	    140
#define CP_SIT_BITMAP_SIZE  156
#define CP_NAT_BITMAP_SIZE  160
#define CP_CRC_OFFSET	    164
#define CP_BITMAPS	    192 /* sit_nat_version_bitmap, CP_MIN_CHKSUM_OFFSET */
#define CP_MAX_CRC_OFFSET   4092
#define CP_UMOUNT	    0x001u
#define CP_COMPACT_SUM	    0x004u
#define CP_FASTBOOT	    0x020u
#define CP_LARGE_NAT_BITMAP 0x400u

/* Summary blocks and the journals in them. */
#define SUM_JOURNAL_AT	    3584 /* after 512 summary entries of 7 bytes */
#define SUM_JOURNAL_SIZE    507
#define NAT_JOURNAL_ENTRIES 38
#define NAT_JOURNAL_ENTRY   13 /* nid, then a NAT entry */
#define SIT_JOURNAL_ENTRIES 6
#define SIT_JOURNAL_ENTRY   78 /* segno, then a SIT entry */

#define NAT_ENTRY     9 /* version, ino, block_addr */
#define NAT_PER_BLOCK 455
#define SIT_ENTRY     74 /* vblocks, valid_map[64], mtime */
#define SIT_PER_BLOCK 55

/* struct f2fs_inode and struct node_footer */
#define I_INLINE		   3
#define I_XATTR_NID		   76
#define I_FLAGS			   80
#define I_ADDR			   360 /* also i_extra_isize, when F2FS_EXTRA_ATTR */
#define I_INLINE_XATTR_SIZE	   362
#define I_LOG_CLUSTER_SIZE	   393
#define I_NID			   4052
#define FOOTER_NID		   4072
#define FOOTER_INO		   4076
#define ADDRS_PER_INODE		   923
#define ADDRS_PER_BLOCK		   1018
#define NIDS_PER_BLOCK		   1018
#define INLINE_XATTR		   0x01
#define INLINE_DATA		   0x02
#define INLINE_DENTRY		   0x04
#define EXTRA_ATTR		   0x20
#define DEFAULT_INLINE_XATTR_ADDRS 50
#define COMPR_FL		   0x04u

/* A run of blocks waiting to be claimed as one range: claims go out in
 * the order they were made, merged when they continue each other. */
struct run {
	uint64_t start, len, owner;
	const char *what;
};

struct f2fs {
	struct lb *b;
	uint32_t feature, payload;
	uint64_t main_blk, main_blocks, main_segs;
	uint64_t sit_blk, sit_blocks, nat_blk, nat_blocks; /* blocks of one copy */
	uint64_t bs, cp_blk, cp_blocks;			   /* the checkpoint area */
	bool walkable;					   /* the geometry Linux mounts */
	uint64_t cp_start;				   /* the valid pack's first block */
	uint8_t *cp;					   /* its checkpoint block and payload */
	const uint8_t *sit_bitmap, *nat_bitmap;
	uint8_t nat_journal[SUM_JOURNAL_SIZE], sit_journal[SUM_JOURNAL_SIZE];
	unsigned n_nats, n_sits;
	uint8_t *nat_buf, *sit_buf, *node[4]; /* node[level]: the inode, then one per depth */
	uint64_t nat_cached, sit_cached;      /* which block each buffer holds */
	uint32_t (*inodes)[2];		      /* nid, block of each inode found */
	size_t n_inodes, cap_inodes;
	uint64_t budget; /* node reads and block references before the walk counts as looping */
	struct run run;
};

static uint32_t crc32_f2fs(uint32_t crc, const uint8_t *p, size_t n)
{
	while (n--) {
		crc ^= *p++;
		for (int i = 0; i < 8; i++)
			crc = (crc >> 1) ^ (crc & 1 ? 0xedb88320u : 0);
	}
	return crc;
}

/* f2fs's bitmaps number bits from the most significant bit of each byte. */
static bool test_bit_msb(const uint8_t *map, uint64_t bit)
{
	return map[bit >> 3] & (0x80 >> (bit & 7));
}

static bool in_main(const struct f2fs *f, uint32_t addr)
{
	return addr >= f->main_blk && addr - f->main_blk < f->main_blocks;
}

static int run_flush(struct f2fs *f)
{
	struct run *r = &f->run;
	if (!r->len)
		return 0;
	int rc = lb_add(f->b, r->start * BLK, r->len * BLK, r->what, 0, r->owner);
	r->len = 0;
	return rc;
}

static int run_add(struct f2fs *f, uint64_t blk, const char *what, uint64_t owner)
{
	struct run *r = &f->run;
	if (r->len && blk == r->start + r->len && what == r->what && owner == r->owner) {
		r->len++;
		return 0;
	}
	if (run_flush(f))
		return -1;
	*r = (struct run){.start = blk, .len = 1, .what = what, .owner = owner};
	return 0;
}

/* The checkpoint block's version when its checksum holds: 0; -1 if not
 * (get_checkpoint_version in fs/f2fs/checkpoint.c). */
static int cp_block_version(const uint8_t *cp, uint64_t *ver)
{
	uint32_t at = lb_le32(cp + CP_CRC_OFFSET);
	if (at < CP_BITMAPS || at > CP_MAX_CRC_OFFSET)
		return -1;
	uint32_t crc = crc32_f2fs(F2FS_MAGIC, cp, at);
	if (at < CP_MAX_CRC_OFFSET) /* large NAT bitmaps: the rest is covered too */
		crc = crc32_f2fs(crc, cp + at + 4, BLK - at - 4);
	if (crc != lb_le32(cp + at))
		return -1;
	*ver = lb_le64(cp);
	return 0;
}

/* The pack at block `start` (of `room` blocks of the checkpoint area):
 * true, its head block in head and its version in ver, when its head and
 * tail blocks are sound and agree. An unreadable pack is not valid. */
static bool cp_pack_valid(struct f2fs *f, uint64_t start, uint64_t room, uint8_t *head,
			  uint8_t *tail, uint64_t *ver)
{
	uint64_t v_tail;
	if (lb_read(f->b, start * BLK, head, BLK) || cp_block_version(head, ver))
		return false;
	uint32_t total = lb_le32(head + CP_TOTAL);
	if (total <= 2 || total > SEG_BLOCKS || total > room)
		return false;
	return !lb_read(f->b, (start + total - 1) * BLK, tail, BLK) &&
	       !cp_block_version(tail, &v_tail) && v_tail == *ver;
}

/* Where the version bitmaps are (__bitmap_ptr in fs/f2fs/f2fs.h): 0, or
 * -1 when they do not fit the checkpoint block and its payload. */
static int find_bitmaps(struct f2fs *f)
{
	uint32_t sit_size = lb_le32(f->cp + CP_SIT_BITMAP_SIZE);
	uint32_t nat_size = lb_le32(f->cp + CP_NAT_BITMAP_SIZE);
	if (sit_size != f->sit_blocks / 8 || nat_size != f->nat_blocks / 8)
		return -1;
	uint64_t sit_at, nat_at, room = (1ull + f->payload) * BLK;
	if (lb_le32(f->cp + CP_FLAGS) & CP_LARGE_NAT_BITMAP) {
		nat_at = CP_BITMAPS + 4;
		sit_at = nat_at + nat_size;
	} else if (f->payload) {
		nat_at = CP_BITMAPS;
		sit_at = BLK;
	} else {
		sit_at = CP_BITMAPS;
		nat_at = sit_at + sit_size;
	}
	if (sit_at + sit_size > room || nat_at + nat_size > room)
		return -1;
	f->sit_bitmap = f->cp + sit_at;
	f->nat_bitmap = f->cp + nat_at;
	return 0;
}

/* The newer of the two valid packs (f2fs_get_valid_checkpoint): 1 found,
 * with f->cp its checkpoint block and payload; 0 none; -1 error. */
static int load_checkpoint(struct f2fs *f, uint64_t cp_blk, uint64_t cp_blocks)
{
	uint8_t *buf = malloc(3 * BLK);
	if (!buf)
		return lb_fail(f->b, "out of memory");
	uint64_t ver[2] = {0, 0};
	bool ok[2];
	for (int p = 0; p < 2; p++) {
		uint64_t at = (uint64_t)p * SEG_BLOCKS;
		ok[p] = at < cp_blocks && cp_pack_valid(f, cp_blk + at, cp_blocks - at,
							buf + p * BLK, buf + 2 * BLK, &ver[p]);
	}
	int p = ok[0] && ok[1] ? (int64_t)(ver[1] - ver[0]) > 0 : ok[1];
	if (!ok[p]) {
		free(buf);
		return 0;
	}
	f->cp_start = cp_blk + (uint64_t)p * SEG_BLOCKS;
	uint32_t total = lb_le32(buf + p * BLK + CP_TOTAL);
	if (f->payload + 2 > total) { /* the payload would run into the tail */
		free(buf);
		return 0;
	}
	f->cp = malloc((1ull + f->payload) * BLK);
	if (!f->cp) {
		free(buf);
		return lb_fail(f->b, "out of memory");
	}
	memcpy(f->cp, buf + p * BLK, BLK);
	free(buf);
	if (f->payload &&
	    lb_read(f->b, (f->cp_start + 1) * BLK, f->cp + BLK, (uint64_t)f->payload * BLK))
		return -1;
	return find_bitmaps(f) ? 0 : 1;
}

/* The NAT and SIT journals: in the compacted summary block, or in the hot
 * and cold data segments' summary blocks (read_compacted_summaries and
 * read_normal_summaries in fs/f2fs/segment.c). A journal out of place or
 * overfull is ignored (the map then follows the NAT and SIT blocks). */
static int load_journals(struct f2fs *f)
{
	uint32_t flags = lb_le32(f->cp + CP_FLAGS), total = lb_le32(f->cp + CP_TOTAL);
	uint32_t start_sum = lb_le32(f->cp + CP_START_SUM);
	uint8_t *blk = f->node[0];
	if (flags & CP_COMPACT_SUM) {
		if (start_sum >= total || lb_read(f->b, (f->cp_start + start_sum) * BLK, blk, BLK))
			return start_sum >= total ? 0 : -1;
		memcpy(f->nat_journal, blk, SUM_JOURNAL_SIZE);
		memcpy(f->sit_journal, blk + SUM_JOURNAL_SIZE, SUM_JOURNAL_SIZE);
	} else {
		/* sum_blk_addr: the data summaries end 3 blocks (or 6, when node
		 * summaries follow them) before the tail; hot data's holds the NAT
		 * journal, cold data's the SIT journal. */
		uint32_t back = flags & (CP_UMOUNT | CP_FASTBOOT) ? 7 : 4;
		if (total < back + 1)
			return 0;
		uint64_t hot = f->cp_start + total - back;
		if (lb_read(f->b, hot * BLK + SUM_JOURNAL_AT, f->nat_journal, SUM_JOURNAL_SIZE) ||
		    lb_read(f->b, (hot + 2) * BLK + SUM_JOURNAL_AT, f->sit_journal,
			    SUM_JOURNAL_SIZE))
			return -1;
	}
	f->n_nats = lb_le16(f->nat_journal);
	f->n_sits = lb_le16(f->sit_journal);
	if (f->n_nats > NAT_JOURNAL_ENTRIES)
		f->n_nats = 0;
	if (f->n_sits > SIT_JOURNAL_ENTRIES)
		f->n_sits = 0;
	return 0;
}

/* NAT block k's live copy (current_nat_addr in fs/f2fs/node.h): the two
 * copies alternate by segment. */
static int read_nat_block(struct f2fs *f, uint64_t k)
{
	if (f->nat_cached == k)
		return 0;
	uint64_t at = f->nat_blk + (k << 1) - (k & (SEG_BLOCKS - 1));
	if (test_bit_msb(f->nat_bitmap, k))
		at += SEG_BLOCKS;
	f->nat_cached = UINT64_MAX;
	if (lb_read(f->b, at * BLK, f->nat_buf, BLK))
		return -1;
	f->nat_cached = k;
	return 0;
}

static const uint8_t *nat_journal_entry(const struct f2fs *f, uint32_t nid)
{
	for (unsigned j = 0; j < f->n_nats; j++) {
		const uint8_t *e = f->nat_journal + 2 + j * NAT_JOURNAL_ENTRY;
		if (lb_le32(e) == nid)
			return e + 4;
	}
	return NULL;
}

/* Node `nid`'s inode and block (0 for none), the journal first: 0; -1 error. */
static int nat_lookup(struct f2fs *f, uint32_t nid, uint32_t *ino, uint32_t *addr)
{
	const uint8_t *e = nat_journal_entry(f, nid);
	*ino = *addr = 0;
	if (!e) {
		if (nid / NAT_PER_BLOCK >= f->nat_blocks)
			return 0;
		if (read_nat_block(f, nid / NAT_PER_BLOCK))
			return -1;
		e = f->nat_buf + (nid % NAT_PER_BLOCK) * NAT_ENTRY;
	}
	*ino = lb_le32(e + 1);
	*addr = lb_le32(e + 5);
	return 0;
}

/* Read node `nid` of inode `ino` into f->node[level]: 1 with its block in
 * addr; 0 when the NAT has no such node of that inode, or the block's
 * footer disagrees (a partial map, not an error); -1 error. */
static int read_node(struct f2fs *f, uint32_t ino, uint32_t nid, int level, uint32_t *addr)
{
	uint32_t owner;
	if (nat_lookup(f, nid, &owner, addr))
		return -1;
	if (owner != ino || !in_main(f, *addr))
		return 0;
	if (!f->budget--)
		return lb_fail(f->b,
			       "inode %u: more node references than the main area has "
			       "blocks: looping node tree",
			       ino);
	uint8_t *blk = f->node[level];
	if (lb_read(f->b, (uint64_t)*addr * BLK, blk, BLK))
		return -1;
	return lb_le32(blk + FOOTER_NID) == nid && lb_le32(blk + FOOTER_INO) == ino;
}

/* A NAT entry that names an inode: its block claimed and remembered. */
static int add_inode(struct f2fs *f, uint32_t nid, uint32_t ino, uint32_t addr)
{
	if (nid < FIRST_NID || ino != nid || !in_main(f, addr))
		return 0;
	uint32_t at;
	int rc = read_node(f, ino, nid, 0, &at);
	if (rc <= 0)
		return rc;
	if (f->n_inodes == f->cap_inodes) {
		size_t cap = f->cap_inodes ? 2 * f->cap_inodes : 256;
		void *p = realloc(f->inodes, cap * sizeof(*f->inodes));
		if (!p)
			return lb_fail(f->b, "out of memory for %zu inodes", cap);
		f->inodes = p;
		f->cap_inodes = cap;
	}
	f->inodes[f->n_inodes][0] = nid;
	f->inodes[f->n_inodes++][1] = at;
	return run_add(f, at, "inode", ino);
}

/* Every inode of the NAT, the journal's entries over the blocks'. */
static int find_inodes(struct f2fs *f)
{
	for (uint64_t k = 0; k < f->nat_blocks; k++) {
		if (read_nat_block(f, k))
			return -1;
		for (uint32_t i = 0; i < NAT_PER_BLOCK; i++) {
			const uint8_t *e = f->nat_buf + i * NAT_ENTRY;
			uint32_t nid = (uint32_t)(k * NAT_PER_BLOCK + i);
			if (lb_le32(e + 1) != nid || nat_journal_entry(f, nid))
				continue;
			if (add_inode(f, nid, nid, lb_le32(e + 5)) || read_nat_block(f, k))
				return -1;
		}
	}
	for (unsigned j = 0; j < f->n_nats; j++) {
		const uint8_t *e = f->nat_journal + 2 + j * NAT_JOURNAL_ENTRY;
		if (lb_le32(e) / NAT_PER_BLOCK < f->nat_blocks &&
		    add_inode(f, lb_le32(e), lb_le32(e + 5), lb_le32(e + 9)))
			return -1;
	}
	return 0;
}

/* What an inode's blocks are called, and how many addresses its blocks hold. */
struct file {
	uint32_t ino;
	const char *kind;
	uint32_t per_block; /* addresses in a direct node */
};

static int claim_addrs(struct f2fs *f, const struct file *file, const uint8_t *p, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		uint32_t a = lb_le32(p + 4 * i);
		if (a == NULL_ADDR || a == NEW_ADDR || a == COMPRESS_ADDR || !in_main(f, a))
			continue;
		if (!f->budget--)
			return lb_fail(f->b,
				       "inode %u: more block references than the main area "
				       "has blocks",
				       file->ino);
		if (run_add(f, a, file->kind, file->ino))
			return -1;
	}
	return 0;
}

/* A direct (height 0) or indirect node and what it leads to. level is the
 * buffer's: the inode's is 0, and height + level <= 3 keeps the walk to
 * the four buffers. */
static int walk_node(struct f2fs *f, const struct file *file, uint32_t nid, int height, int level)
{
	uint32_t addr;
	if (!nid || height + level > 3)
		return 0;
	int rc = read_node(f, file->ino, nid, level, &addr);
	if (rc <= 0)
		return rc;
	if (run_add(f, addr, "node", file->ino))
		return -1;
	const uint8_t *blk = f->node[level];
	if (!height)
		return claim_addrs(f, file, blk, file->per_block);
	rc = 0;
	for (uint32_t i = 0; i < NIDS_PER_BLOCK && !rc; i++)
		rc = walk_node(f, file, lb_le32(blk + 4 * i), height - 1, level + 1);
	return rc;
}

/* Inline xattr slots at the end of i_addr (get_inline_xattr_addrs). */
static uint32_t inline_xattr_addrs(const struct f2fs *f, const uint8_t *in)
{
	if (in[I_INLINE] & EXTRA_ATTR && f->feature & FEAT_FLEXIBLE_XATTR)
		return lb_le16(in + I_INLINE_XATTR_SIZE);
	return in[I_INLINE] & (INLINE_XATTR | INLINE_DENTRY) ? DEFAULT_INLINE_XATTR_ADDRS : 0;
}

static int walk_inode(struct f2fs *f, uint32_t ino, uint32_t addr)
{
	uint8_t *in = f->node[0];
	if (lb_read(f->b, (uint64_t)addr * BLK, in, BLK))
		return -1;
	uint32_t xnid = lb_le32(in + I_XATTR_NID), xaddr;
	if (xnid) {
		int rc = read_node(f, ino, xnid, 1, &xaddr);
		if (rc < 0 || (rc && run_add(f, xaddr, "xattr", ino)))
			return -1;
	}
	uint16_t type = lb_le16(in) & 0170000;
	if ((type != 0040000 && type != 0100000 && type != 0120000) ||
	    in[I_INLINE] & (INLINE_DATA | INLINE_DENTRY))
		return 0; /* no blocks: a device, fifo or socket, or inline content */
	struct file file = {ino, lb_kind_of_mode(type), ADDRS_PER_BLOCK};
	uint32_t extra = in[I_INLINE] & EXTRA_ATTR ? lb_le16(in + I_ADDR) / 4 : 0;
	uint32_t xattr = inline_xattr_addrs(f, in);
	if (extra + xattr >= ADDRS_PER_INODE)
		return 0;
	uint32_t n = ADDRS_PER_INODE - extra - xattr;
	if (lb_le32(in + I_FLAGS) & COMPR_FL && f->feature & FEAT_COMPRESSION && extra) {
		/* whole clusters only (addrs_per_inode, addrs_per_block) */
		uint32_t log = in[I_LOG_CLUSTER_SIZE];
		uint32_t mask = log >= 2 && log <= 8 ? ~((1u << log) - 1) : ~0u;
		n &= mask;
		file.per_block &= mask;
	}
	if (claim_addrs(f, &file, in + I_ADDR + 4 * extra, n))
		return -1;
	/* i_nid: two direct, two indirect, one double indirect node; their
	 * walk reads into node[1..3], so `in` stays. */
	static const int height[5] = {0, 0, 1, 1, 2};
	for (int i = 0; i < 5; i++)
		if (walk_node(f, &file, lb_le32(in + I_NID + 4 * i), height[i], 1))
			return -1;
	return 0;
}

/* Segment segno's SIT entry (current_sit_addr in fs/f2fs/segment.h: the
 * copies are two halves of the area), the journal first; NULL past the SIT. */
static int sit_entry(struct f2fs *f, uint64_t segno, const uint8_t **e)
{
	for (unsigned j = 0; j < f->n_sits; j++) {
		const uint8_t *je = f->sit_journal + 2 + j * SIT_JOURNAL_ENTRY;
		if (lb_le32(je) == segno) {
			*e = je + 4;
			return 0;
		}
	}
	uint64_t k = segno / SIT_PER_BLOCK;
	*e = NULL;
	if (k >= f->sit_blocks)
		return 0;
	if (f->sit_cached != k) {
		uint64_t at = f->sit_blk + k + (test_bit_msb(f->sit_bitmap, k) ? f->sit_blocks : 0);
		f->sit_cached = UINT64_MAX;
		if (lb_read(f->b, at * BLK, f->sit_buf, BLK))
			return -1;
		f->sit_cached = k;
	}
	*e = f->sit_buf + (segno % SIT_PER_BLOCK) * SIT_ENTRY;
	return 0;
}

/* Each main-area block by its segment's SIT entry: valid blocks of node
 * segments node, of data segments data, invalid ones free. */
static int claim_segments(struct f2fs *f)
{
	for (uint64_t segno = 0; segno < f->main_segs; segno++) {
		const uint8_t *e;
		if (sit_entry(f, segno, &e))
			return -1;
		if (!e)
			break;
		unsigned type = lb_le16(e) >> 10; /* CURSEG_HOT_DATA .. CURSEG_COLD_NODE */
		const char *valid = type <= 2 ? "data" : type <= 5 ? "node" : NULL;
		uint64_t first = f->main_blk + segno * SEG_BLOCKS;
		for (uint32_t i = 0; i < SEG_BLOCKS; i++) {
			const char *what = test_bit_msb(e + 2, i) ? valid : "free";
			if (what && run_add(f, first + i, what, 0))
				return -1;
		}
	}
	return run_flush(f);
}

/* The valid checkpoint, the buffers and the journals: 1 ready, 0 when no
 * checkpoint pack is valid (or the geometry is not the one Linux mounts),
 * -1 error. */
static int f2fs_load(struct f2fs *f)
{
	if (!f->walkable)
		return 0;
	int rc = load_checkpoint(f, f->cp_blk, f->cp_blocks);
	if (rc <= 0)
		return rc;
	f->nat_buf = malloc(BLK);
	f->sit_buf = malloc(BLK);
	uint8_t *nodes = malloc(4 * BLK);
	if (!f->nat_buf || !f->sit_buf || !nodes) {
		free(nodes);
		return lb_fail(f->b, "out of memory");
	}
	for (int i = 0; i < 4; i++)
		f->node[i] = nodes + i * BLK;
	f->nat_cached = f->sit_cached = UINT64_MAX;
	f->budget = 2 * f->main_blocks + 1024;
	return load_journals(f) ? -1 : 1;
}

/* The block-level map of the main area, after the fixed areas. */
static int walk_main(struct f2fs *f)
{
	int rc = f2fs_load(f);
	if (rc <= 0)
		return rc;
	rc = find_inodes(f);
	for (size_t i = 0; i < f->n_inodes && !rc; i++)
		rc = walk_inode(f, f->inodes[i][0], f->inodes[i][1]);
	if (!rc)
		rc = run_flush(f);
	if (!rc)
		rc = claim_segments(f);
	return rc;
}

/* Read and check the superblock, claim the fixed areas, and set up f:
 * 0, or -1 with b->err. f2fs_close frees what f holds either way. */
static int f2fs_open(struct lb *b, struct f2fs *f)
{
	*f = (struct f2fs){.b = b};
	uint8_t sb[SB_BYTES];
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
	enum { CP, SIT, NAT, SSA, MAIN, NAREAS };
	uint64_t at[NAREAS], n[NAREAS];
	if (lb_add(b, 1024, bs - 1024, "superblock", 0, 0) ||
	    lb_add(b, bs + 1024, bs - 1024, "superblock-backup", 0, 0))
		return -1;
	uint64_t prev = lb_le32(sb + 72); /* segment0_blkaddr */
	for (size_t i = 0; i < NAREAS; i++) {
		at[i] = lb_le32(sb + areas[i].addr), n[i] = lb_le32(sb + areas[i].count);
		if (at[i] < prev || at[i] > blocks || n[i] * seg > (blocks - at[i]) * bs)
			return lb_fail(b,
				       "%s at block %" PRIu64 " (%" PRIu64 " segments) out of "
				       "place",
				       areas[i].what, at[i], n[i]);
		if (i != MAIN && lb_add(b, at[i] * bs, n[i] * seg, areas[i].what, 0, 0))
			return -1;
		prev = at[i];
	}
	*f = (struct f2fs){
	    .b = b,
	    .bs = bs,
	    .feature = lb_le32(sb + SB_FEATURE),
	    .payload = lb_le32(sb + SB_CP_PAYLOAD),
	    .main_blk = at[MAIN],
	    .main_segs = n[MAIN],
	    .main_blocks = n[MAIN] << log_seg,
	    .sit_blk = at[SIT],
	    .sit_blocks = n[SIT] / 2 << log_seg,
	    .nat_blk = at[NAT],
	    .nat_blocks = n[NAT] / 2 << log_seg,
	    .cp_blk = at[CP],
	    .cp_blocks = n[CP] << log_seg,
	};
	/* Linux mounts only 4 KiB blocks in 512-block segments; the payload
	 * must leave the pack room for its summaries and tail. */
	f->walkable = bs == BLK && (1u << log_seg) == SEG_BLOCKS && f->payload < SEG_BLOCKS - 8;
	return 0;
}

static void f2fs_close(struct f2fs *f)
{
	free(f->cp);
	free(f->nat_buf);
	free(f->sit_buf);
	free(f->node[0]);
	free(f->inodes);
}

int layout_f2fs_node(struct lb *b, uint32_t nid, uint8_t out[4096])
{
	struct f2fs f;
	uint32_t addr;
	int rc = f2fs_open(b, &f);
	if (!rc) {
		rc = f2fs_load(&f);
		if (!rc)
			rc = lb_fail(b, "no valid checkpoint (or blocks Linux does not mount)");
		else if (rc > 0)
			rc = read_node(&f, nid, nid, 0, &addr);
		if (!rc)
			rc = lb_fail(b, "no inode %u in the NAT (or its node block disowns it)",
				     nid);
		else if (rc > 0) {
			memcpy(out, f.node[0], BLK);
			rc = 0;
		}
	}
	f2fs_close(&f);
	return rc;
}

int layout_f2fs(struct lb *b)
{
	struct f2fs f;
	int rc = f2fs_open(b, &f);
	if (!rc)
		rc = walk_main(&f);
	/* Last, what the walk left unnamed (all of it when it could not run). */
	if (!rc)
		rc = lb_add(b, f.main_blk * f.bs, f.main_blocks * f.bs, "main-area", 0, 0);
	f2fs_close(&f);
	return rc;
}
