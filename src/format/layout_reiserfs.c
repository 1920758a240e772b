/* layout_reiserfs.c - the layout map of reiserfs 3.5 and 3.6 (the
 * superblock at 64 KiB), from its on-disk format (Linux's
 * fs/reiserfs/reiserfs.h; little-endian).
 *
 * reiserfs keeps everything but file bodies in one balanced tree: stat
 * data, directory entries, short files' tails (direct items) and the
 * block lists of longer ones (indirect items) are items in leaf nodes,
 * sorted by key (dir id, object id, offset, type). Directories and
 * symlinks therefore own no blocks of their own (namei.c's
 * reiserfs_symlink caps a target at MAX_DIRECT_ITEM_LEN, one direct
 * item): the only blocks an inode owns are the unformatted nodes its
 * indirect items list.
 *
 * Structure names, claimed in this order (the first claim wins):
 *   reserved         the first 64 KiB (REISERFS_DISK_OFFSET_IN_BYTES),
 *                    left for a boot loader and partition table;
 *   superblock       the block holding struct reiserfs_super_block and,
 *                    after it, the object id map;
 *   bitmap           the bitmap blocks (bitmap.c,
 *                    reiserfs_read_bitmap_block: the first right after
 *                    the superblock, bitmap i at block i * blocksize * 8);
 *   journal          the journal's log blocks (journal_params), and
 *   journal-header   the block after them (struct reiserfs_journal_header);
 *   internal-node    tree nodes above the leaves (struct block_head, keys,
 *                    struct disk_child), walked from s_root_block;
 *   leaf-node        leaves: item heads and items (struct item_head);
 *   data, symlink, directory   the unformatted nodes an object's indirect
 *                    items list, by the mode of its stat data
 *                    (lb_kind_of_mode), owner = the object id, which is
 *                    the inode number stat gives;
 *   free             blocks the bitmaps mark free.
 *
 * The tree is walked whole, leaf by leaf in key order, so every object's
 * blocks are named, reached from the root directory or not (an unlinked
 * open file in a crash image holds blocks too).
 *
 * Untrusted input: the superblock's geometry is checked against the image,
 * every node's level must be its parent's less one (search_by_key's
 * expected_level) with at most MAX_HEIGHT levels, nodes are read against a
 * budget of the image's blocks (a looping or shared child is refused),
 * every item head and item is checked against its leaf, and every block
 * pointer against the block count. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "layout_int.h"

#define RFS_SB_OFF    65536u /* REISERFS_DISK_OFFSET_IN_BYTES */
#define RFS_SB_SIZE   204u   /* struct reiserfs_super_block */
#define RFS_MAXH      5	     /* MAX_HEIGHT */
#define RFS_BLKH      24     /* struct block_head */
#define RFS_KEY	      16     /* struct reiserfs_key */
#define RFS_DC	      8	     /* struct disk_child */
#define RFS_IH	      24     /* struct item_head */
#define RFS_DEH	      16     /* struct reiserfs_de_head */
#define RFS_ROOT_DIR  1	     /* REISERFS_ROOT_PARENT_OBJECTID */
#define RFS_ROOT_OBJ  2	     /* REISERFS_ROOT_OBJECTID */
#define DEH_VISIBLE   2	     /* bit of deh_state */
#define TYPE_SD	      0	     /* TYPE_STAT_DATA */
#define TYPE_INDIRECT 1
#define TYPE_DIRECT   2
#define TYPE_DIRENTRY 3
#define TYPE_ANY      15

/* Places in the superblock (struct reiserfs_super_block_v1). */
#define SB_BLOCK_COUNT 0
#define SB_ROOT_BLOCK  8
#define SB_J_1ST       12 /* s_journal.jp_journal_1st_block */
#define SB_J_DEV       16 /* s_journal.jp_journal_dev */
#define SB_J_SIZE      20 /* s_journal.jp_journal_size */
#define SB_BLOCKSIZE   44
#define SB_MAGIC       52
#define SB_TREE_HEIGHT 68

struct rfs;

/* What a walk does with each item of a leaf it reaches: ih is the item
 * head, body its ih_item_len bytes. */
typedef int rfs_item_fn(struct rfs *r, const uint8_t *ih, const uint8_t *body, void *ctx);

struct rfs {
	struct lb *b;
	uint32_t bs, blocks, root, height;
	uint64_t budget;   /* tree nodes the walk may still read */
	uint8_t *node;	   /* one block per level (RFS_MAXH + 1) */
	bool claim;	   /* name the nodes (the layout walk) */
	uint32_t only_dir; /* with only_obj: visit only that object's */
	uint32_t only_obj; /* items (0, 0: every item) */
	uint32_t cur_dir;  /* the object whose stat data came last */
	uint32_t cur_obj;  /* (items follow their stat data in key order) */
	uint16_t cur_mode;
};

/* reiserfs.h's le_key_k_type: the item's type by its key format. */
static int item_type(const uint8_t *ih)
{
	if (lb_le16(ih + 22) == 0) { /* ih_version KEY_FORMAT_3_5: uniqueness */
		switch (lb_le32(ih + 12)) {
		case 0: return TYPE_SD;
		case 0xfffffffe: return TYPE_INDIRECT;
		case 0xffffffff: return TYPE_DIRECT;
		case 500: return TYPE_DIRENTRY;
		default: return TYPE_ANY;
		}
	}
	uint64_t t = lb_le64(ih + 8) >> 60; /* offset_v2_k_type */
	return t <= TYPE_DIRENTRY ? (int)t : TYPE_ANY;
}

/* Compare the short keys (dir id, object id) a and b. */
static int short_cmp(uint32_t ad, uint32_t ao, uint32_t bd, uint32_t bo)
{
	if (ad != bd)
		return ad < bd ? -1 : 1;
	return ao < bo ? -1 : ao > bo;
}

/* Whether child i of an internal node of nr keys (at keys) can hold
 * items of the object the walk looks for: its delimiting keys bracket it. */
static bool child_wanted(const struct rfs *r, const uint8_t *keys, uint32_t nr, uint32_t i)
{
	if (!r->only_dir && !r->only_obj)
		return true;
	if (i > 0) {
		const uint8_t *lo = keys + (size_t)(i - 1) * RFS_KEY;
		if (short_cmp(lb_le32(lo), lb_le32(lo + 4), r->only_dir, r->only_obj) > 0)
			return false;
	}
	const uint8_t *hi = keys + (size_t)i * RFS_KEY;
	return i == nr || short_cmp(lb_le32(hi), lb_le32(hi + 4), r->only_dir, r->only_obj) >= 0;
}

static int walk_node(struct rfs *r, uint32_t blk, int level, rfs_item_fn *fn, void *ctx);

static int walk_internal(struct rfs *r, const uint8_t *p, uint32_t blk, int level, rfs_item_fn *fn,
			 void *ctx)
{
	uint32_t nr = lb_le16(p + 2);
	/* is_internal (stree.c): the keys and nr + 1 children fit the block. */
	if ((uint64_t)RFS_BLKH + (uint64_t)nr * RFS_KEY + (nr + 1ull) * RFS_DC > r->bs)
		return lb_fail(r->b, "internal node %u: %u keys do not fit a block", blk, nr);
	const uint8_t *keys = p + RFS_BLKH, *dc = keys + (size_t)nr * RFS_KEY;
	for (uint32_t i = 0; i <= nr; i++) {
		if (!child_wanted(r, keys, nr, i))
			continue;
		if (walk_node(r, lb_le32(dc + (size_t)i * RFS_DC), level - 1, fn, ctx))
			return -1;
	}
	return 0;
}

/* One leaf: each item head and its item checked against the block, then
 * handed to fn (with the stat data's mode tracked for the items after). */
static int walk_leaf(struct rfs *r, const uint8_t *p, uint32_t blk, rfs_item_fn *fn, void *ctx)
{
	uint32_t nr = lb_le16(p + 2);
	uint64_t heads_end = RFS_BLKH + (uint64_t)nr * RFS_IH;
	if (heads_end > r->bs)
		return lb_fail(r->b, "leaf %u: %u item heads do not fit a block", blk, nr);
	for (uint32_t i = 0; i < nr; i++) {
		const uint8_t *ih = p + RFS_BLKH + (size_t)i * RFS_IH;
		uint32_t len = lb_le16(ih + 18), loc = lb_le16(ih + 20);
		if (loc < heads_end || (uint64_t)loc + len > r->bs)
			return lb_fail(r->b,
				       "leaf %u: item %u at byte %u (%u bytes) outside the leaf's "
				       "items",
				       blk, i, loc, len);
		uint32_t dir = lb_le32(ih), obj = lb_le32(ih + 4);
		if (r->only_obj && (dir != r->only_dir || obj != r->only_obj))
			continue;
		if (item_type(ih) == TYPE_SD) {
			r->cur_dir = dir;
			r->cur_obj = obj;
			r->cur_mode = len >= 2 ? lb_le16(p + loc) : 0;
		}
		if (fn(r, ih, p + loc, ctx))
			return -1;
	}
	return 0;
}

/* Read node blk, which must be at `level`, into that level's buffer,
 * claim it, and walk what it holds. */
static int walk_node(struct rfs *r, uint32_t blk, int level, rfs_item_fn *fn, void *ctx)
{
	if (level < 1 || level > RFS_MAXH)
		return lb_fail(r->b, "tree node %u at level %d (at most %d)", blk, level, RFS_MAXH);
	if (!blk || blk >= r->blocks)
		return lb_fail(r->b, "tree node at block %u outside the %u blocks", blk, r->blocks);
	if (!r->budget--)
		return lb_fail(r->b, "more tree nodes than blocks: a looping tree");
	uint8_t *p = r->node + (size_t)level * r->bs;
	if (lb_read(r->b, (uint64_t)blk * r->bs, p, r->bs))
		return -1;
	if (lb_le16(p) != level)
		return lb_fail(r->b, "tree node %u says level %u, its parent %d", blk, lb_le16(p),
			       level);
	const char *what = level == 1 ? "leaf-node" : "internal-node";
	if (r->claim && lb_add(r->b, (uint64_t)blk * r->bs, r->bs, what, 0, 0))
		return -1;
	return level == 1 ? walk_leaf(r, p, blk, fn, ctx)
			  : walk_internal(r, p, blk, level, fn, ctx);
}

/* Walk the tree from the root (whose level is s_tree_height - 1, as
 * search_by_key expects). */
static int walk_tree(struct rfs *r, rfs_item_fn *fn, void *ctx)
{
	r->budget = r->blocks;
	r->cur_dir = r->cur_obj = 0;
	r->cur_mode = 0;
	return walk_node(r, r->root, (int)r->height - 1, fn, ctx);
}

/* Read and check the superblock and set up r: 0, or -1 with b->err.
 * rfs_close frees what it holds either way. */
static int rfs_open(struct lb *b, struct rfs *r, uint8_t sb[RFS_SB_SIZE])
{
	*r = (struct rfs){.b = b};
	if (lb_read(b, RFS_SB_OFF, sb, RFS_SB_SIZE))
		return -1;
	const uint8_t *m = sb + SB_MAGIC;
	if (memcmp(m, "ReIsErFs", 8) && memcmp(m, "ReIsEr2Fs", 9) && memcmp(m, "ReIsEr3Fs", 9))
		return lb_fail(b, "no ReiserFS magic at 64 KiB");
	uint32_t bs = lb_le16(sb + SB_BLOCKSIZE);
	if (bs < 512 || bs > RFS_SB_OFF || (bs & (bs - 1)))
		return lb_fail(b, "block size %u in the superblock", bs);
	r->bs = bs;
	r->blocks = lb_le32(sb + SB_BLOCK_COUNT);
	r->root = lb_le32(sb + SB_ROOT_BLOCK);
	r->height = lb_le16(sb + SB_TREE_HEIGHT);
	if (r->blocks <= RFS_SB_OFF / bs + 1 || r->blocks > b->size / bs)
		return lb_fail(b,
			       "%u blocks of %u bytes but the image holds %" PRIu64
			       " bytes: truncated or damaged",
			       r->blocks, bs, b->size);
	if (r->height < 2 || r->height > RFS_MAXH + 1)
		return lb_fail(b, "tree height %u (2 to %d)", r->height, RFS_MAXH + 1);
	r->node = malloc((size_t)(RFS_MAXH + 1) * bs);
	return r->node ? 0 : lb_fail(b, "out of memory");
}

static void rfs_close(struct rfs *r)
{
	free(r->node);
}

/* Block of bitmap i (bitmap.c, reiserfs_read_bitmap_block). */
static uint64_t bitmap_block(const struct rfs *r, uint32_t i)
{
	return i ? (uint64_t)i * r->bs * 8 : RFS_SB_OFF / r->bs + 1;
}

static uint32_t bitmap_count(const struct rfs *r)
{
	return (r->blocks - 1) / (r->bs * 8) + 1; /* reiserfs_bmap_count */
}

/* The fixed areas: the reserved start, the superblock, the bitmaps, the
 * journal on this device (jp_journal_dev 0: journal.c, journal_init_dev)
 * and its header block after the log. */
static int fixed_areas(struct rfs *r, const uint8_t *sb)
{
	struct lb *b = r->b;
	int rc = lb_add(b, 0, RFS_SB_OFF, "reserved", 0, 0);
	if (!rc)
		rc = lb_add(b, RFS_SB_OFF, r->bs, "superblock", 0, 0);
	for (uint32_t i = 0; i < bitmap_count(r) && !rc; i++)
		rc = lb_add(b, bitmap_block(r, i) * r->bs, r->bs, "bitmap", 0, 0);
	uint64_t first = lb_le32(sb + SB_J_1ST), size = lb_le32(sb + SB_J_SIZE);
	if (rc || lb_le32(sb + SB_J_DEV))
		return rc;
	if (!first || !size || first + size + 1 > r->blocks)
		return lb_fail(b, "journal at block %" PRIu64 " (%" PRIu64 " blocks) outside",
			       first, size);
	rc = lb_add(b, first * r->bs, size * r->bs, "journal", 0, 0);
	return rc ? rc : lb_add(b, (first + size) * r->bs, r->bs, "journal-header", 0, 0);
}

/* The layout walk's item: an indirect item's unformatted nodes, named by
 * the mode of the object's stat data, in runs of consecutive blocks. */
static int claim_item(struct rfs *r, const uint8_t *ih, const uint8_t *body, void *ctx)
{
	(void)ctx;
	if (item_type(ih) != TYPE_INDIRECT)
		return 0;
	uint32_t dir = lb_le32(ih), obj = lb_le32(ih + 4), n = lb_le16(ih + 18) / 4;
	bool known = dir == r->cur_dir && obj == r->cur_obj;
	const char *what = lb_kind_of_mode(known ? r->cur_mode : 0100000);
	uint64_t start = 0, run = 0;
	for (uint32_t i = 0; i <= n; i++) {
		uint32_t blk = i < n ? lb_le32(body + 4 * (size_t)i) : 0;
		if (blk >= r->blocks)
			return lb_fail(r->b, "object %u: block %u outside the %u blocks", obj, blk,
				       r->blocks);
		if (blk && run && blk == start + run) {
			run++;
			continue;
		}
		if (run && lb_add(r->b, start * r->bs, run * r->bs, what, 0, obj))
			return -1;
		start = blk;
		run = blk ? 1 : 0; /* 0 is a hole */
	}
	return 0;
}

/* Free blocks: those the bitmaps mark free, below the block count. */
static int free_blocks(struct rfs *r)
{
	uint8_t *map = r->node; /* the tree walk is done with the buffers */
	for (uint32_t i = 0; i < bitmap_count(r); i++) {
		if (lb_read(r->b, bitmap_block(r, i) * r->bs, map, r->bs))
			return -1;
		uint64_t base = (uint64_t)i * r->bs * 8, run = 0;
		for (uint64_t k = 0; k <= (uint64_t)r->bs * 8; k++) {
			bool is_free = k < (uint64_t)r->bs * 8 && base + k < r->blocks &&
				       !(map[k / 8] >> (k % 8) & 1);
			if (is_free) {
				run++;
				continue;
			}
			if (run &&
			    lb_add(r->b, (base + k - run) * r->bs, run * r->bs, "free", 0, 0))
				return -1;
			run = 0;
		}
	}
	return 0;
}

int layout_reiserfs(struct lb *b)
{
	struct rfs r;
	uint8_t sb[RFS_SB_SIZE];
	int rc = rfs_open(b, &r, sb);
	if (!rc) {
		b->l->block_size = r.bs;
		b->l->inode_size = 0; /* stat data: 32 or 44 bytes, in leaves */
		rc = fixed_areas(&r, sb);
	}
	if (!rc) {
		r.claim = true;
		rc = walk_tree(&r, claim_item, NULL);
	}
	if (!rc)
		rc = free_blocks(&r);
	rfs_close(&r);
	return rc;
}

/* ---- one object's stat data, for the raw times ---- */

/* What the lookups look for and found. */
struct rfs_find {
	const char *name; /* an entry of the directory walked */
	uint32_t ino;
	uint32_t dir, obj; /* the entry's key, once found */
	bool found;
	uint8_t *sd;
	bool *v1;
};

/* A directory item's entries (struct reiserfs_de_head, names from the
 * item's end down): the visible entry `name` whose object is ino. */
static int find_entry(struct rfs *r, const uint8_t *ih, const uint8_t *body, void *ctx)
{
	struct rfs_find *f = ctx;
	if (item_type(ih) != TYPE_DIRENTRY || f->found)
		return 0;
	uint32_t len = lb_le16(ih + 18), n = lb_le16(ih + 16), end = len;
	if ((uint64_t)n * RFS_DEH > len)
		return lb_fail(r->b, "directory item of %u entries in %u bytes", n, len);
	size_t want = strlen(f->name);
	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *deh = body + (size_t)i * RFS_DEH;
		uint32_t loc = lb_le16(deh + 12);
		if (loc < (uint64_t)n * RFS_DEH || loc > end)
			return lb_fail(r->b, "directory entry %u's name at byte %u of %u", i, loc,
				       end);
		/* Names are padded with zeros to the next entry's name. */
		size_t nlen = strnlen((const char *)body + loc, end - loc);
		end = loc;
		if (!(lb_le16(deh + 14) >> DEH_VISIBLE & 1) || nlen != want ||
		    memcmp(body + loc, f->name, want) || lb_le32(deh + 8) != f->ino)
			continue;
		f->dir = lb_le32(deh + 4);
		f->obj = lb_le32(deh + 8);
		f->found = true;
	}
	return 0;
}

/* The stat data item of the object walked: 44 bytes (3.6) or 32 (3.5). */
static int find_sd(struct rfs *r, const uint8_t *ih, const uint8_t *body, void *ctx)
{
	struct rfs_find *f = ctx;
	if (item_type(ih) != TYPE_SD || f->found)
		return 0;
	uint32_t len = lb_le16(ih + 18);
	*f->v1 = lb_le16(ih + 22) == 0;
	if (len != (*f->v1 ? 32u : 44u))
		return lb_fail(r->b, "object %u: stat data of %u bytes", f->obj, len);
	memset(f->sd, 0, 44);
	memcpy(f->sd, body, len);
	f->found = true;
	return 0;
}

int layout_reiserfs_stat(struct lb *b, const char *name, uint32_t ino, uint8_t sd[44], bool *v1)
{
	struct rfs r;
	uint8_t sbuf[RFS_SB_SIZE];
	struct rfs_find f = {.name = name, .ino = ino, .sd = sd, .v1 = v1};
	int rc = rfs_open(b, &r, sbuf);
	if (!rc && ino == RFS_ROOT_OBJ) {
		/* The root's key is fixed (super.c, reiserfs_fill_super). */
		f.dir = RFS_ROOT_DIR;
		f.obj = RFS_ROOT_OBJ;
	} else if (!rc) {
		/* Any other's comes from its entry (namei.c, reiserfs_lookup). */
		r.only_dir = RFS_ROOT_DIR;
		r.only_obj = RFS_ROOT_OBJ;
		rc = walk_tree(&r, find_entry, &f);
		if (!rc && !f.found)
			rc = lb_fail(b, "no entry \"%s\" for object %u in the root directory", name,
				     ino);
	}
	if (!rc) {
		f.found = false;
		r.only_dir = f.dir;
		r.only_obj = f.obj;
		rc = walk_tree(&r, find_sd, &f);
		if (!rc && !f.found)
			rc = lb_fail(b, "no stat data for object [%u %u]", f.dir, f.obj);
	}
	rfs_close(&r);
	return rc;
}
