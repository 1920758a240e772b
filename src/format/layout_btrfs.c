/* layout_btrfs.c - the layout map of btrfs, from the on-disk format
 * (btrfs-progs' kernel-shared/uapi/btrfs_tree.h; all fields little-endian).
 * btrfs addresses its trees by logical byte numbers: the chunk map (the
 * superblock's sys_chunk_array, then the chunk tree) turns them into
 * places on this device, and a node of a DUP or RAID1 chunk is claimed at
 * every copy. Every node read must carry the filesystem's fsid, its own
 * logical address and the level its parent promised; the walk has a budget
 * of the device's node count, so shared or looping pointers end.
 *
 * Structure names (the first claim wins):
 *   superblock             the primary superblock at 64 KiB
 *   superblock-backup      its mirrors at 64 MiB and 256 GiB, when inside
 *   tree:NAME              a tree node, NAME from the node header's owner:
 *                          root, extent, chunk, dev, fs (owner = the
 *                          subvolume id for subvolumes), csum, quota, uuid,
 *                          free-space, block-group, data-reloc, log, other
 *   data                   a file's data extents (owner = the inode number)
 * Chunk space no tree or file uses reads back as free. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "layout_int.h"

#define SB_OFF	     0x10000ull
#define HDR	     101 /* struct btrfs_header */
#define MAX_LEVEL    8
#define CHUNK_ITEM   228
#define ROOT_ITEM    132
#define EXTENT_DATA  108
#define CHUNK_STRIPE 32
#define MAX_STRIPES  16

struct chunk {
	uint64_t logical, len;
	uint16_t nstripes;
	uint64_t phys[MAX_STRIPES]; /* this device's copies */
};

/* An item layout_btrfs_item looks for, and what it found. */
struct want {
	uint64_t objectid;
	uint8_t type;
	uint64_t offset;
	uint8_t *out;
	uint32_t cap, len;
	bool hit;
};

struct btrfs {
	struct lb *b;
	struct want *want;
	uint8_t fsid[16];
	uint64_t devid, total, nodesize;
	struct chunk *chunks;
	size_t nchunks, capchunks;
	uint64_t budget;
	uint8_t *buf[MAX_LEVEL];
	uint64_t *roots; /* tree roots from the root tree: bytenr, level */
	size_t nroots, caproots;
};

static const char *tree_name(uint64_t owner)
{
	switch (owner) {
	case 1: return "tree:root";
	case 2: return "tree:extent";
	case 3: return "tree:chunk";
	case 4: return "tree:dev";
	case 5: return "tree:fs";
	case 7: return "tree:csum";
	case 8: return "tree:quota";
	case 9: return "tree:uuid";
	case 10: return "tree:free-space";
	case 11: return "tree:block-group";
	case (uint64_t)-9: return "tree:data-reloc";
	case (uint64_t)-6: return "tree:log";
	}
	return owner >= 256 && owner < (uint64_t)-256 ? "tree:fs" : "tree:other";
}

/* Add a chunk (a key's offset and the btrfs_chunk at c, of len bytes). */
static int add_chunk(struct btrfs *x, uint64_t logical, const uint8_t *c, uint64_t len)
{
	if (len < 48)
		return lb_fail(x->b, "chunk item of %" PRIu64 " bytes", len);
	uint64_t clen = lb_le64(c), type = lb_le64(c + 24);
	uint16_t n = lb_le16(c + 44);
	if (!n || n > MAX_STRIPES || 48 + (uint64_t)n * CHUNK_STRIPE > len || !clen)
		return lb_fail(x->b, "chunk at %" PRIu64 " with %u stripes", logical, n);
	/* RAID0/10/5/6 interleave stripes: not a whole copy per stripe. */
	if (type & (1u << 3 | 1u << 6 | 1u << 7 | 1u << 8))
		return lb_fail(x->b, "chunk at %" PRIu64 ": striped profiles are not mapped",
			       logical);
	for (size_t i = 0; i < x->nchunks; i++)
		if (x->chunks[i].logical == logical)
			return 0; /* the sys array and the chunk tree both hold system chunks */
	if (x->nchunks == x->capchunks) {
		size_t cap = x->capchunks ? 2 * x->capchunks : 16;
		if (cap > 1u << 20)
			return lb_fail(x->b, "too many chunks");
		void *p = realloc(x->chunks, cap * sizeof(*x->chunks));
		if (!p)
			return lb_fail(x->b, "out of memory");
		x->chunks = p;
		x->capchunks = cap;
	}
	struct chunk *ch = &x->chunks[x->nchunks];
	*ch = (struct chunk){.logical = logical, .len = clen};
	for (uint16_t i = 0; i < n; i++) {
		const uint8_t *s = c + 48 + i * CHUNK_STRIPE;
		uint64_t off = lb_le64(s + 8);
		if (lb_le64(s) != x->devid)
			continue;
		if (off > x->b->size || clen > x->b->size - off)
			return lb_fail(x->b,
				       "chunk at %" PRIu64 ": stripe at %" PRIu64
				       " past the end of the image",
				       logical, off);
		ch->phys[ch->nstripes++] = off;
	}
	x->nchunks++;
	return 0;
}

static const struct chunk *find_chunk(const struct btrfs *x, uint64_t logical, uint64_t len)
{
	for (size_t i = 0; i < x->nchunks; i++) {
		const struct chunk *c = &x->chunks[i];
		if (logical >= c->logical && logical - c->logical < c->len &&
		    len <= c->len - (logical - c->logical))
			return c;
	}
	return NULL;
}

/* Claim [logical, +len) at every copy on this device. */
static int claim_logical(struct btrfs *x, uint64_t logical, uint64_t len, const char *what,
			 uint64_t owner)
{
	const struct chunk *c = find_chunk(x, logical, len);
	if (!c)
		return lb_fail(x->b, "logical %" PRIu64 "+%" PRIu64 " in no chunk", logical, len);
	for (uint16_t i = 0; i < c->nstripes; i++)
		if (lb_add(x->b, c->phys[i] + (logical - c->logical), len, what, 0, owner))
			return -1;
	return 0;
}

/* Read the node at logical, which must be a `level` node. */
static int read_node(struct btrfs *x, uint64_t logical, int level, uint8_t *buf)
{
	const struct chunk *c = find_chunk(x, logical, x->nodesize);
	if (!c || !c->nstripes)
		return lb_fail(x->b, "tree node at logical %" PRIu64 " in no chunk here", logical);
	if (!x->budget--)
		return lb_fail(x->b, "more tree nodes than the device holds: looping tree");
	if (lb_read(x->b, c->phys[0] + (logical - c->logical), buf, x->nodesize))
		return -1;
	if (memcmp(buf + 0x20, x->fsid, 16) || lb_le64(buf + 0x30) != logical ||
	    (level >= 0 && buf[0x64] != level) || buf[0x64] >= MAX_LEVEL)
		return lb_fail(x->b,
			       "tree node at logical %" PRIu64 ": wrong fsid, address or "
			       "level",
			       logical);
	return 0;
}

/* A leaf item: its key, its data, and the tree (the leaf's owner). */
typedef int (*item_fn)(struct btrfs *x, const uint8_t *key, const uint8_t *data, uint32_t len,
		       uint64_t owner);

/* Walk a tree: claim its nodes, hand each leaf item to fn. */
static int walk_tree(struct btrfs *x, uint64_t logical, int level, item_fn fn)
{
	if (level < 0 || level >= MAX_LEVEL)
		return lb_fail(x->b, "tree level %d", level);
	uint8_t *n = x->buf[level];
	if (read_node(x, logical, level, n))
		return -1;
	uint64_t owner = lb_le64(n + 0x58);
	if (claim_logical(x, logical, x->nodesize, tree_name(owner),
			  owner >= 256 && owner < (uint64_t)-256 ? owner : 0))
		return -1;
	uint32_t items = lb_le32(n + 0x60);
	if (level) {
		if (items > (x->nodesize - HDR) / 33)
			return lb_fail(x->b, "node %" PRIu64 " holds %u pointers", logical, items);
		for (uint32_t i = 0; i < items; i++)
			if (walk_tree(x, lb_le64(n + HDR + i * 33 + 17), level - 1, fn))
				return -1;
		return 0;
	}
	if (items > (x->nodesize - HDR) / 25)
		return lb_fail(x->b, "leaf %" PRIu64 " holds %u items", logical, items);
	for (uint32_t i = 0; fn && i < items; i++) {
		const uint8_t *it = n + HDR + i * 25;
		uint32_t off = lb_le32(it + 17), len = lb_le32(it + 21);
		if (off > x->nodesize - HDR || len > x->nodesize - HDR - off)
			return lb_fail(x->b, "leaf %" PRIu64 " item %u outside the leaf", logical,
				       i);
		if (fn(x, it, n + HDR + off, len, owner))
			return -1;
	}
	return 0;
}

static int chunk_item(struct btrfs *x, const uint8_t *key, const uint8_t *data, uint32_t len,
		      uint64_t owner)
{
	(void)owner;
	return key[8] == CHUNK_ITEM ? add_chunk(x, lb_le64(key + 9), data, len) : 0;
}

static int root_item(struct btrfs *x, const uint8_t *key, const uint8_t *data, uint32_t len,
		     uint64_t owner)
{
	(void)owner;
	if (key[8] != ROOT_ITEM || len < 239)
		return 0;
	if (x->nroots == x->caproots) {
		size_t cap = x->caproots ? 2 * x->caproots : 16;
		void *p = realloc(x->roots, cap * 2 * sizeof(*x->roots));
		if (!p)
			return lb_fail(x->b, "out of memory");
		x->roots = p;
		x->caproots = cap;
	}
	x->roots[2 * x->nroots] = lb_le64(data + 176);
	x->roots[2 * x->nroots + 1] = data[238];
	x->nroots++;
	return 0;
}

/* A file extent of a file tree (fs, a subvolume, data-reloc). */
static int file_item(struct btrfs *x, const uint8_t *key, const uint8_t *data, uint32_t len,
		     uint64_t owner)
{
	bool files =
	    owner == 5 || (owner >= 256 && owner < (uint64_t)-256) || owner == (uint64_t)-9;
	if (!files || key[8] != EXTENT_DATA || len < 53 || (data[20] != 1 && data[20] != 2))
		return 0; /* inline extents live in the leaf */
	uint64_t disk = lb_le64(data + 21), n = lb_le64(data + 29);
	if (!disk)
		return 0; /* a hole */
	return claim_logical(x, disk, n, "data", lb_le64(key));
}

/* Read and check the superblock (into sb), claim it and its mirrors, and
 * load the chunk map (the sys_chunk_array, then the chunk tree): 0, or -1
 * with b->err. btrfs_close frees what x holds either way. */
static int btrfs_open(struct lb *b, struct btrfs *x, uint8_t sb[4096])
{
	*x = (struct btrfs){.b = b};
	if (lb_read(b, SB_OFF, sb, 4096))
		return -1;
	uint32_t sectorsize = lb_le32(sb + 0x90), nodesize = lb_le32(sb + 0x94);
	uint32_t sys_size = lb_le32(sb + 0xa0);
	memcpy(x->fsid, lb_le64(sb + 0xbc) & (1u << 10) ? sb + 0x23b : sb + 0x20, 16);
	x->devid = lb_le64(sb + 0xc9);
	x->total = lb_le64(sb + 0xc9 + 8); /* this device's size */
	x->nodesize = nodesize;
	if (sectorsize < 512 || sectorsize > 65536 || (sectorsize & (sectorsize - 1)) ||
	    nodesize < sectorsize || nodesize > 65536 || (nodesize & (nodesize - 1)))
		return lb_fail(b, "sector size %u, node size %u in the superblock", sectorsize,
			       nodesize);
	if (sys_size > 2048)
		return lb_fail(b, "sys_chunk_array of %u bytes", sys_size);
	if (x->total > b->size)
		return lb_fail(b,
			       "device of %" PRIu64 " bytes but the image holds %" PRIu64
			       " bytes: truncated",
			       x->total, b->size);
	b->l->block_size = sectorsize;
	x->budget = 4 * (b->size / nodesize) + 64; /* snapshots share nodes */
	int rc = lb_add(b, SB_OFF, 4096, "superblock", 0, 0);
	for (int i = 1; i < 3 && !rc; i++) {
		uint64_t at = 0x4000ull << (12 * i); /* 64 MiB, 256 GiB */
		if (at + 4096 <= b->size)
			rc = lb_add(b, at, 4096, "superblock-backup", 0, 0);
	}
	for (int i = 0; i < MAX_LEVEL && !rc; i++)
		if (!(x->buf[i] = malloc(nodesize)))
			rc = lb_fail(b, "out of memory");
	/* The system chunks, then the chunk tree. */
	for (uint32_t at = 0; !rc && at < sys_size;) {
		if (sys_size - at < 17 + 48) {
			rc = lb_fail(b, "sys_chunk_array ends inside an item");
			break;
		}
		const uint8_t *key = sb + 0x32b + at, *c = key + 17;
		uint64_t len = 48 + (uint64_t)lb_le16(c + 44) * CHUNK_STRIPE;
		if (key[8] != CHUNK_ITEM || len > sys_size - at - 17) {
			rc = lb_fail(b, "sys_chunk_array item at %u is not a chunk", at);
			break;
		}
		rc = add_chunk(x, lb_le64(key + 9), c, len);
		at += 17 + (uint32_t)len;
	}
	if (!rc)
		rc = walk_tree(x, lb_le64(sb + 0x58), sb[0xc7], chunk_item);
	return rc;
}

static void btrfs_close(struct btrfs *x)
{
	for (int i = 0; i < MAX_LEVEL; i++)
		free(x->buf[i]);
	free(x->chunks);
	free(x->roots);
}

/* The item layout_btrfs_item looks for: the root tree's ROOT_ITEM of the
 * tree first (its root in x->roots), then the key in that tree. */
static int find_item(struct btrfs *x, const uint8_t *key, const uint8_t *data, uint32_t len,
		     uint64_t owner)
{
	(void)owner;
	const struct want *w = x->want;
	if (lb_le64(key) != w->objectid || key[8] != w->type || lb_le64(key + 9) != w->offset)
		return 0;
	if (w->hit)
		return lb_fail(x->b, "item (%" PRIu64 " %u %" PRIu64 ") twice", w->objectid,
			       w->type, w->offset);
	x->want->hit = true;
	x->want->len = len < w->cap ? len : w->cap;
	memcpy(w->out, data, x->want->len);
	return 0;
}

int layout_btrfs_item(struct lb *b, uint64_t tree, uint64_t objectid, uint8_t type, uint64_t offset,
		      uint8_t *out, uint32_t cap, uint32_t *len)
{
	struct btrfs x;
	uint8_t sb[4096];
	uint8_t root[239] = {0};
	struct want w = {tree, ROOT_ITEM, 0, root, sizeof(root), 0, false};
	int rc = btrfs_open(b, &x, sb);
	x.want = &w;
	if (!rc)
		rc = walk_tree(&x, lb_le64(sb + 0x50), sb[0xc6], find_item);
	if (!rc && (!w.hit || w.len < sizeof(root)))
		rc = lb_fail(b, "no root item of tree %" PRIu64, tree);
	uint64_t bytenr = lb_le64(root + 176);
	int level = root[238];
	w = (struct want){objectid, type, offset, out, cap, 0, false};
	if (!rc)
		rc = walk_tree(&x, bytenr, level, find_item);
	if (!rc && !w.hit)
		rc = lb_fail(b, "no item (%" PRIu64 " %u %" PRIu64 ") in tree %" PRIu64, objectid,
			     type, offset, tree);
	*len = w.len;
	btrfs_close(&x);
	return rc;
}

int layout_btrfs(struct lb *b)
{
	struct btrfs x;
	uint8_t sb[4096];
	int rc = btrfs_open(b, &x, sb);
	/* The trees of the root tree, then a log tree. */
	if (!rc)
		rc = walk_tree(&x, lb_le64(sb + 0x50), sb[0xc6], root_item);
	for (size_t i = 0; i < x.nroots && !rc; i++)
		rc = walk_tree(&x, x.roots[2 * i], (int)x.roots[2 * i + 1], file_item);
	if (!rc && lb_le64(sb + 0x60)) /* a log tree, left by an fsync before a crash */
		rc = walk_tree(&x, lb_le64(sb + 0x60), sb[0xc8], NULL);
	btrfs_close(&x);
	return rc;
}
