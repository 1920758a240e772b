/* layout_ocfs2.c - the layout map of ocfs2, from its on-disk format
 * (Linux's fs/ocfs2/ocfs2_fs.h: struct ocfs2_dinode, ocfs2_super_block,
 * ocfs2_extent_list, ocfs2_extent_block, ocfs2_chain_list,
 * ocfs2_group_desc, ocfs2_dir_entry, ocfs2_dx_root_block,
 * ocfs2_xattr_block, ocfs2_xattr_header, ocfs2_refcount_block;
 * little-endian).
 *
 * ocfs2 keeps its metadata in files of a system directory: the global
 * bitmap (one bit a cluster, in cluster groups chained from the bitmap
 * inode), the inode and extent suballocators (block groups carved out of
 * clusters), the journal, heartbeat and slot map. An inode is one block
 * and its number is that block. The walk finds the superblock at block 2,
 * the system directory from it, each system file by name, then every
 * file reached from the root directory down its extent tree.
 *
 * Structure names, claimed in this order (the first claim wins):
 *   superblock, superblock-backup (at 1 GiB, 4 GiB ... when the image
 *                          reaches them)
 *   inode                  every inode block reached (unit = block size,
 *                          owner = the inode number, its block)
 *   system-directory       the system directory's blocks
 *   group-descriptor       a chain allocator's group descriptor (owner
 *                          = the allocator's inode)
 *   journal, heartbeat, slot-map, bad-blocks, system-file
 *                          the extents of those system files
 *   orphan-dir             an orphan directory's blocks (its entries are
 *                          walked as files)
 *   extent-block           an extent tree's interior and leaf blocks
 *   directory, symlink, data   a file's extents, by its mode
 *   directory-index        an indexed directory's root and leaf blocks
 *   xattr                  an xattr block, its buckets, and values held
 *                          outside (value trees)
 *   refcount               refcount tree blocks
 *   inode-alloc, extent-alloc  the rest of the suballocators' groups
 *                          (inode and extent blocks not in use)
 *   local-alloc            the slot's local allocation window
 *   truncate-log           clusters freed but not yet returned
 *   free                   clusters the global bitmap marks free.
 *
 * Untrusted input: every block number is checked against the image
 * before it is read or claimed, every list's count against the room that
 * holds it, trees end at OCFS2_MAX_PATH_DEPTH levels with each level one
 * less deep, block reads are counted against a budget of the image's
 * blocks, and a directory or file is walked once (a bitmap of the inodes
 * seen). A damaged image is refused with the place it broke. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "layout_int.h"

#define O2_SB_BLKNO  2	  /* OCFS2_SUPER_BLOCK_BLKNO */
#define O2_MAX_DEPTH 5	  /* OCFS2_MAX_PATH_DEPTH (alloc.h) */
#define O2_BUCKET    4096 /* OCFS2_XATTR_BUCKET_SIZE */
/* System files walked apart: per slot (OCFS2_MAX_SLOTS, 255) an inode
 * and an extent allocator, a local alloc and a truncate log; the global
 * bitmap and inode allocator. */
#define O2_SYS_MAX (4 * 255 + 2)

/* ocfs2_dinode */
#define DI_XATTR_ISZ 0x12
#define DI_CLUSTERS  0x14
#define DI_SIZE	     0x20
#define DI_MODE	     0x28
#define DI_FLAGS     0x2c
#define DI_BLKNO     0x50
#define DI_DYN	     0x76
#define DI_XATTR_LOC 0x78
#define DI_DX_ROOT   0x88
#define DI_REFCOUNT  0x90
#define DI_TOTAL     0xbc /* id1.bitmap1.i_total */
#define DI_ID2	     0xc0
/* ocfs2_super_block, inside id2 */
#define SB_INCOMPAT (DI_ID2 + 0x20)
#define SB_ROOT	    (DI_ID2 + 0x28)
#define SB_SYSDIR   (DI_ID2 + 0x30)
#define SB_BITS	    (DI_ID2 + 0x38)
#define SB_CBITS    (DI_ID2 + 0x3c)
#define SB_FIRST_CG (DI_ID2 + 0x48)
/* i_flags and i_dyn_features */
#define FL_SUPER   0x0020
#define FL_LOCAL   0x0040
#define FL_CHAIN   0x0400
#define FL_DEALLOC 0x0800
/* Inodes whose id2 is not an extent list (the superblock, the local
 * alloc bitmap, a chain list, the truncate log). */
#define FL_NO_LIST	   (FL_SUPER | FL_LOCAL | FL_CHAIN | FL_DEALLOC)
#define DYN_INLINE	   0x0001
#define DYN_INLINE_XA	   0x0004
#define DYN_INDEXED	   0x0008
#define DYN_REFCOUNT	   0x0010
#define INCOMPAT_DISCONTIG 0x2000
/* block headers */
#define EB_BLKNO  0x18
#define EB_LIST	  0x30
#define GD_SIZE	  0x08
#define GD_BITS	  0x0a
#define GD_NEXT	  0x18
#define GD_BLKNO  0x28
#define GD_BITMAP 0x40
#define GD_LIST	  0x140
#define DX_BLKNO  0x18
#define DX_FLAGS  0x2c
#define DX_LIST	  0xc0
#define XB_BLKNO  0x10
#define XB_FLAGS  0x20
#define XB_ATTRS  0x30
#define RF_BLKNO  0x10
#define RF_FLAGS  0x34
#define RF_LIST	  0x80

struct o2 {
	struct lb *b;
	uint32_t bs, bits, cbits; /* block size, its log2, the cluster's log2 */
	uint64_t blocks;	  /* blocks in the image */
	uint64_t first_cg;	  /* s_first_cluster_group */
	uint32_t incompat;
	uint64_t budget; /* block reads the walk may still make */
	uint8_t *seen;	 /* inodes walked, a bit a block */
	uint64_t sysdir; /* the system directory's inode */
	uint64_t *dirs;	 /* directories whose entries are still to walk */
	size_t ndirs, dirs_cap;
	struct {
		uint64_t ino;
		const char *what;
	} sys[O2_SYS_MAX]; /* the allocators and logs, for the later passes */
	size_t nsys;
};

/* What the leaves of one extent tree name. leaf, when set, is called for
 * each leaf extent after it is claimed (directories read their blocks). */
struct o2_walk {
	const char *what;
	uint64_t owner;
	bool one_block; /* the leaves are single blocks (refcount trees) */
	int (*leaf)(struct o2 *o, struct o2_walk *w, uint64_t cpos, uint64_t blk, uint64_t n);
	uint64_t isize; /* a directory's i_size */
};

static uint64_t o2_cluster_blocks(const struct o2 *o)
{
	return 1ull << (o->cbits - o->bits);
}

static bool blocks_ok(const struct o2 *o, uint64_t blk, uint64_t n)
{
	return blk && blk < o->blocks && n <= o->blocks - blk;
}

static int claim(struct o2 *o, uint64_t blk, uint64_t n, const char *what, uint32_t unit,
		 uint64_t owner)
{
	return lb_add(o->b, blk << o->bits, n << o->bits, what, unit, owner);
}

/* Read `n` blocks at blk into buf, against the budget. */
static int read_blocks(struct o2 *o, uint64_t blk, uint64_t n, void *buf, const char *what)
{
	if (!blocks_ok(o, blk, n))
		return lb_fail(o->b, "%s at block %" PRIu64 " outside the filesystem", what, blk);
	if (o->budget < n)
		return lb_fail(o->b, "more block reads than blocks: looping trees");
	o->budget -= n;
	return lb_read(o->b, blk << o->bits, buf, (size_t)(n << o->bits));
}

/* Read a metadata block and check its signature and its own block
 * number (at self, 8 bytes). */
static int read_meta(struct o2 *o, uint64_t blk, uint8_t *buf, const char *sig, size_t self,
		     const char *what)
{
	if (read_blocks(o, blk, 1, buf, what))
		return -1;
	if (memcmp(buf, sig, strlen(sig) + 1) || lb_le64(buf + self) != blk)
		return lb_fail(o->b, "%s at block %" PRIu64 ": no %s signature or not its block",
			       what, blk, sig);
	return 0;
}

static int walk_list(struct o2 *o, struct o2_walk *w, const uint8_t *l, size_t room, int level);

/* An extent block (EXBLK01) below an interior record: claimed, and its
 * list walked one level down. */
static int walk_eb(struct o2 *o, struct o2_walk *w, uint64_t blk, unsigned want_depth, int level)
{
	uint8_t *eb = malloc(o->bs);
	if (!eb)
		return lb_fail(o->b, "out of memory");
	int rc = read_meta(o, blk, eb, "EXBLK01", EB_BLKNO, "extent block");
	if (!rc)
		rc = claim(o, blk, 1, "extent-block", 0, w->owner);
	if (!rc && lb_le16(eb + EB_LIST) != want_depth)
		rc = lb_fail(o->b, "extent block %" PRIu64 ": depth %u, want %u", blk,
			     lb_le16(eb + EB_LIST), want_depth);
	if (!rc)
		rc = walk_list(o, w, eb + EB_LIST, o->bs - EB_LIST, level + 1);
	free(eb);
	return rc;
}

/* One ocfs2_extent_list in `room` bytes: leaves claimed as w->what,
 * interior records followed. */
static int walk_list(struct o2 *o, struct o2_walk *w, const uint8_t *l, size_t room, int level)
{
	unsigned depth = lb_le16(l), next = lb_le16(l + 4);
	if (room < 16 || level >= O2_MAX_DEPTH || depth >= O2_MAX_DEPTH || next > lb_le16(l + 2) ||
	    next > (room - 16) / 16)
		return lb_fail(o->b,
			       "inode %" PRIu64 ": extent list of depth %u, %u of %u records "
			       "(room for %zu)",
			       w->owner, depth, next, lb_le16(l + 2),
			       room < 16 ? 0 : (room - 16) / 16);
	for (unsigned i = 0; i < next; i++) {
		const uint8_t *r = l + 16 + 16 * i;
		uint64_t blk = lb_le64(r + 8), cpos = lb_le32(r);
		int rc;
		if (depth) {
			rc = walk_eb(o, w, blk, depth - 1, level);
		} else {
			uint64_t n = w->one_block ? 1 : lb_le16(r + 4) * o2_cluster_blocks(o);
			if (!n)
				continue;
			if (!blocks_ok(o, blk, n))
				return lb_fail(o->b,
					       "inode %" PRIu64 ": extent at block %" PRIu64
					       " (%" PRIu64 " blocks) outside the filesystem",
					       w->owner, blk, n);
			rc = w->what ? claim(o, blk, n, w->what, 0, w->owner) : 0;
			if (!rc && w->leaf)
				rc = w->leaf(o, w, cpos, blk, n);
		}
		if (rc)
			return rc;
	}
	return 0;
}

/* Queue a directory to have its entries walked (each inode is walked
 * once, so the queue holds fewer entries than the image has blocks). */
static int queue_dir(struct o2 *o, uint64_t ino)
{
	if (o->ndirs == o->dirs_cap) {
		size_t cap = o->dirs_cap ? 2 * o->dirs_cap : 64;
		uint64_t *d = cap > o->blocks + 64 ? NULL : realloc(o->dirs, cap * sizeof(*d));
		if (!d)
			return lb_fail(o->b, "out of memory (or more directories than blocks)");
		o->dirs = d;
		o->dirs_cap = cap;
	}
	o->dirs[o->ndirs++] = ino;
	return 0;
}

static int walk_file(struct o2 *o, uint64_t ino, const char *what);

/* A system file's role, by its name in the system directory
 * (ocfs2_system_inodes[] in ocfs2_fs.h). */
static const char *system_what(const char *name, size_t len)
{
	static const struct {
		const char *prefix, *what;
	} roles[] = {{"journal:", "journal"},
		     {"heartbeat", "heartbeat"},
		     {"slot_map", "slot-map"},
		     {"bad_blocks", "bad-blocks"},
		     {"orphan_dir:", "orphan-dir"},
		     {"global_bitmap", "global-bitmap"},
		     {"global_inode_alloc", "inode-alloc"},
		     {"inode_alloc:", "inode-alloc"},
		     {"extent_alloc:", "extent-alloc"}};
	for (size_t i = 0; i < sizeof(roles) / sizeof(roles[0]); i++) {
		size_t n = strlen(roles[i].prefix);
		if (len >= n && !memcmp(name, roles[i].prefix, n))
			return roles[i].what;
	}
	return "system-file";
}

/* One directory entry: its file walked (a directory queued by
 * walk_file). */
static int dir_entry(struct o2 *o, struct o2_walk *w, const uint8_t *de, uint64_t ino)
{
	const char *name = (const char *)de + 12;
	size_t len = de[10];
	if ((len == 1 && name[0] == '.') || (len == 2 && name[0] == '.' && name[1] == '.'))
		return 0;
	if (!blocks_ok(o, ino, 1))
		return lb_fail(o->b,
			       "directory %" PRIu64 ": entry for inode %" PRIu64
			       " outside the filesystem",
			       w->owner, ino);
	if (o->seen[ino / 8] >> (ino % 8) & 1)
		return 0;
	return walk_file(o, ino, w->owner == o->sysdir ? system_what(name, len) : NULL);
}

/* The ocfs2_dir_entry records of `len` bytes of a directory. */
static int dir_entries(struct o2 *o, struct o2_walk *w, const uint8_t *p, size_t len)
{
	for (size_t off = 0; off + 12 <= len;) {
		const uint8_t *de = p + off;
		size_t rec = lb_le16(de + 8);
		if (rec < 12 || rec % 4 || rec > len - off || 12u + de[10] > rec)
			return lb_fail(
			    o->b, "directory %" PRIu64 ": entry at byte %zu of %zu, length %zu",
			    w->owner, off, len, rec);
		uint64_t ino = lb_le64(de);
		if (ino && dir_entry(o, w, de, ino))
			return -1;
		off += rec;
	}
	return 0;
}

/* A directory's leaf extent: the blocks below i_size hold entries. */
static int dir_leaf(struct o2 *o, struct o2_walk *w, uint64_t cpos, uint64_t blk, uint64_t n)
{
	uint64_t first = cpos * o2_cluster_blocks(o);
	uint64_t used = (w->isize + o->bs - 1) >> o->bits;
	uint8_t *buf = malloc(o->bs);
	if (!buf)
		return lb_fail(o->b, "out of memory");
	int rc = 0;
	for (uint64_t i = 0; i < n && first + i < used && !rc; i++) {
		rc = read_blocks(o, blk + i, 1, buf, "directory block");
		if (!rc)
			rc = dir_entries(o, w, buf, o->bs);
	}
	free(buf);
	return rc;
}

/* One ocfs2_xattr_header of `room` bytes at h: each value stored outside
 * (an ocfs2_xattr_value_root after the name) walked as xattr. */
static int xattr_header(struct o2 *o, uint64_t owner, const uint8_t *h, size_t room)
{
	unsigned count = room < 16 ? 0 : lb_le16(h);
	if (room < 16 || count > (room - 16) / 16)
		return lb_fail(o->b, "inode %" PRIu64 ": %u xattr entries in %zu bytes", owner,
			       count, room);
	for (unsigned i = 0; i < count; i++) {
		const uint8_t *e = h + 16 + 16 * i;
		if (e[7] & 0x80) /* OCFS2_XATTR_ENTRY_LOCAL */
			continue;
		size_t at = lb_le16(e + 4) + ((e[6] + 3u) & ~3u); /* OCFS2_XATTR_SIZE */
		if (at + 32 > room)
			return lb_fail(o->b,
				       "inode %" PRIu64 ": xattr value root at byte %zu of %zu",
				       owner, at, room);
		struct o2_walk w = {.what = "xattr", .owner = owner};
		if (walk_list(o, &w, h + at + 16, room - at - 16, 0))
			return -1;
	}
	return 0;
}

/* An indexed xattr block's leaf extent: buckets of 4 KiB, as many as the
 * first bucket's xh_num_buckets says. */
static int xattr_buckets(struct o2 *o, struct o2_walk *w, uint64_t cpos, uint64_t blk, uint64_t n)
{
	(void)cpos;
	uint64_t per = O2_BUCKET >> o->bits;
	uint8_t *bk = malloc(O2_BUCKET);
	if (!bk)
		return lb_fail(o->b, "out of memory");
	uint64_t nb = n / per;
	int rc = 0;
	for (uint64_t i = 0; i < nb && !rc; i++) {
		rc = read_blocks(o, blk + i * per, per, bk, "xattr bucket");
		if (!rc && i == 0 && lb_le16(bk + 6) < nb)
			nb = lb_le16(bk + 6);
		if (!rc)
			rc = xattr_header(o, w->owner, bk, O2_BUCKET);
	}
	free(bk);
	return rc;
}

/* A file's extended attributes: those in the inode's tail, and its xattr
 * block (XATTR01) with, when indexed, its tree of buckets. */
static int walk_xattrs(struct o2 *o, uint64_t ino, const uint8_t *di)
{
	uint16_t dyn = lb_le16(di + DI_DYN);
	if (dyn & DYN_INLINE_XA) {
		size_t isz = lb_le16(di + DI_XATTR_ISZ);
		if (isz > o->bs - DI_ID2)
			return lb_fail(o->b, "inode %" PRIu64 ": %zu bytes of inline xattrs", ino,
				       isz);
		if (xattr_header(o, ino, di + o->bs - isz, isz))
			return -1;
	}
	uint64_t xb = lb_le64(di + DI_XATTR_LOC);
	if (!xb)
		return 0;
	uint8_t *b = malloc(o->bs);
	if (!b)
		return lb_fail(o->b, "out of memory");
	int rc = read_meta(o, xb, b, "XATTR01", XB_BLKNO, "xattr block");
	if (!rc)
		rc = claim(o, xb, 1, "xattr", 0, ino);
	struct o2_walk w = {.what = "xattr", .owner = ino, .leaf = xattr_buckets};
	if (!rc && (lb_le16(b + XB_FLAGS) & 1)) /* OCFS2_XATTR_INDEXED: xb_root */
		rc = walk_list(o, &w, b + XB_ATTRS + 16, o->bs - XB_ATTRS - 16, 0);
	else if (!rc)
		rc = xattr_header(o, ino, b + XB_ATTRS, o->bs - XB_ATTRS);
	free(b);
	return rc;
}

/* A block with a header and an extent list at `list` (a directory index
 * root, a refcount tree's root): claimed, and its list walked when
 * `tree`. */
static int walk_rooted(struct o2 *o, uint64_t blk, const char *sig, size_t self, size_t flags,
		       uint8_t tree_flag, size_t list, struct o2_walk *w)
{
	uint8_t *b = malloc(o->bs);
	if (!b)
		return lb_fail(o->b, "out of memory");
	int rc = read_meta(o, blk, b, sig, self, w->what);
	if (!rc)
		rc = claim(o, blk, 1, w->what, 0, w->owner);
	bool tree = tree_flag == 1 ? !(b[flags] & 1) : (lb_le32(b + flags) & tree_flag);
	if (!rc && tree)
		rc = walk_list(o, w, b + list, o->bs - list, 0);
	free(b);
	return rc;
}

/* One file: its inode, its xattrs, its directory index and refcount
 * tree, and its extents, named `what` (NULL: by its mode). A directory
 * is queued to have its entries walked (walk_dirs: not from here, so
 * the walk's depth does not follow the directories'). */
static int walk_file(struct o2 *o, uint64_t ino, const char *what)
{
	o->seen[ino / 8] |= (uint8_t)(1u << (ino % 8));
	uint8_t *di = malloc(o->bs);
	if (!di)
		return lb_fail(o->b, "out of memory");
	int rc = read_meta(o, ino, di, "INODE01", DI_BLKNO, "inode");
	uint16_t mode = lb_le16(di + DI_MODE), dyn = lb_le16(di + DI_DYN);
	uint32_t type = mode & 0170000;
	if (!rc)
		rc = claim(o, ino, 1, "inode", o->bs, ino);
	if (!rc && (lb_le32(di + DI_FLAGS) & FL_NO_LIST)) {
		/* Allocators and logs: walked apart (sys_pass). */
		if (what && o->nsys == O2_SYS_MAX)
			rc = lb_fail(o->b, "more than %d allocators and logs", O2_SYS_MAX);
		else if (what) {
			o->sys[o->nsys].ino = ino;
			o->sys[o->nsys++].what = what;
		}
		goto out;
	}
	if (!rc)
		rc = walk_xattrs(o, ino, di);
	if (!rc && type == 0040000 && (dyn & DYN_INDEXED)) {
		struct o2_walk w = {.what = "directory-index", .owner = ino};
		rc = walk_rooted(o, lb_le64(di + DI_DX_ROOT), "DXDIR01", DX_BLKNO, DX_FLAGS, 1,
				 DX_LIST, &w);
	}
	if (!rc && (dyn & DYN_REFCOUNT)) {
		struct o2_walk w = {.what = "refcount", .owner = ino, .one_block = true};
		rc = walk_rooted(o, lb_le64(di + DI_REFCOUNT), "REFCNT1", RF_BLKNO, RF_FLAGS, 2,
				 RF_LIST, &w);
	}
	if (rc)
		goto out;
	struct o2_walk w = {.what = what ? what : lb_kind_of_mode(mode),
			    .owner = ino,
			    .isize = lb_le64(di + DI_SIZE)};
	bool is_dir = type == 0040000;
	if (is_dir)
		rc = queue_dir(o, ino);
	/* Inline data (dirents or bytes in id2), a fast symlink (i_clusters
	 * 0: the target in id2, ocfs2_populate_inode), a device or fifo:
	 * no extents. */
	bool extents = type == 0100000 || is_dir || (type == 0120000 && lb_le32(di + DI_CLUSTERS));
	if (!rc && extents && !(dyn & DYN_INLINE))
		rc = walk_list(o, &w, di + DI_ID2, o->bs - DI_ID2, 0);
out:
	free(di);
	return rc;
}

/* Walk the entries of the queued directories until none is left (their
 * blocks were claimed by walk_file: here they are only read). */
static int walk_dirs(struct o2 *o)
{
	uint8_t *di = malloc(o->bs);
	if (!di)
		return lb_fail(o->b, "out of memory");
	int rc = 0;
	while (o->ndirs && !rc) {
		uint64_t ino = o->dirs[--o->ndirs];
		rc = read_meta(o, ino, di, "INODE01", DI_BLKNO, "directory inode");
		if (rc)
			break;
		struct o2_walk w = {.owner = ino, .isize = lb_le64(di + DI_SIZE), .leaf = dir_leaf};
		if (lb_le16(di + DI_DYN) & DYN_INLINE) {
			/* ocfs2_inline_data: id_count bytes of entries at id_data. */
			size_t n = lb_le16(di + DI_ID2);
			rc = n > o->bs - DI_ID2 - 8
				 ? lb_fail(o->b, "directory %" PRIu64 ": %zu inline bytes", ino, n)
				 : dir_entries(o, &w, di + DI_ID2 + 8, n);
		} else {
			rc = walk_list(o, &w, di + DI_ID2, o->bs - DI_ID2, 0);
		}
	}
	free(di);
	return rc;
}

/* What the second pass over the system files does with each. */
enum o2_pass { PASS_GROUPS, PASS_REST };

/* A suballocator group's blocks: contiguous from the descriptor, or the
 * extents of a discontiguous group (bg_list, ocfs2_group_desc). */
static int group_rest(struct o2 *o, const uint8_t *g, uint64_t blk, const char *what,
		      uint64_t owner)
{
	const uint8_t *l = g + GD_LIST;
	unsigned next = o->bs >= GD_LIST + 16 ? lb_le16(l + 4) : 0;
	if (!(o->incompat & INCOMPAT_DISCONTIG) || !next)
		return blocks_ok(o, blk, lb_le16(g + GD_BITS))
			   ? claim(o, blk, lb_le16(g + GD_BITS), what, 0, owner)
			   : lb_fail(o->b, "group %" PRIu64 ": %u blocks outside", blk,
				     lb_le16(g + GD_BITS));
	struct o2_walk w = {.what = what, .owner = owner};
	return walk_list(o, &w, l, o->bs - GD_LIST, 0);
}

/* A cluster group's free bits (ocfs2_desc_bitmap_to_cluster_off: the
 * first group's bits start at cluster 0, the others' at their own). */
static int group_free(struct o2 *o, const uint8_t *g, uint64_t blk)
{
	unsigned bits = lb_le16(g + GD_BITS), size = lb_le16(g + GD_SIZE);
	if (size > o->bs - GD_BITMAP || bits > size * 8u)
		return lb_fail(o->b, "group %" PRIu64 ": %u bits in %u bytes", blk, bits, size);
	uint64_t c0 = blk == o->first_cg ? 0 : blk >> (o->cbits - o->bits), run = 0;
	uint64_t cb = o2_cluster_blocks(o);
	for (unsigned k = 0; k <= bits; k++) {
		if (k < bits && !(g[GD_BITMAP + k / 8] >> (k % 8) & 1)) {
			run++;
			continue;
		}
		if (run && claim(o, (c0 + k - run) * cb, run * cb, "free", 0, 0))
			return -1;
		run = 0;
	}
	return 0;
}

/* A chain allocator (ocfs2_chain_list in id2): each chain's groups, by
 * bg_next_group. PASS_GROUPS claims the descriptors; PASS_REST claims a
 * suballocator's groups as `rest` and the global bitmap's free clusters. */
static int walk_chains(struct o2 *o, const uint8_t *di, uint64_t ino, const char *rest,
		       enum o2_pass pass)
{
	const uint8_t *cl = di + DI_ID2;
	unsigned next = lb_le16(cl + 6);
	if (next > lb_le16(cl + 4) || next > (o->bs - DI_ID2 - 16) / 16)
		return lb_fail(o->b, "allocator %" PRIu64 ": %u chains", ino, next);
	uint8_t *g = malloc(o->bs);
	if (!g)
		return lb_fail(o->b, "out of memory");
	int rc = 0;
	for (unsigned c = 0; c < next && !rc; c++) {
		uint64_t blk = lb_le64(cl + 16 + 16 * c + 8);
		while (blk && !rc) {
			rc = read_meta(o, blk, g, "GROUP01", GD_BLKNO, "group descriptor");
			if (rc)
				break;
			if (pass == PASS_GROUPS)
				rc = claim(o, blk, 1, "group-descriptor", 0, ino);
			else if (rest)
				rc = group_rest(o, g, blk, rest, ino);
			else
				rc = group_free(o, g, blk);
			blk = lb_le64(g + GD_NEXT);
		}
	}
	free(g);
	return rc;
}

/* The local alloc window (ocfs2_local_alloc: la_bm_off, and i_total
 * clusters in id1.bitmap1), or a truncate log's records
 * (ocfs2_truncate_log). */
static int sys_clusters(struct o2 *o, const uint8_t *di, uint64_t ino)
{
	uint64_t cb = o2_cluster_blocks(o);
	if (lb_le32(di + DI_FLAGS) & FL_LOCAL)
		return claim(o, lb_le32(di + DI_ID2) * cb, lb_le32(di + DI_TOTAL) * cb,
			     "local-alloc", 0, ino);
	unsigned used = lb_le16(di + DI_ID2 + 2);
	if (used > lb_le16(di + DI_ID2) || used > (o->bs - DI_ID2 - 8) / 8)
		return lb_fail(o->b, "truncate log %" PRIu64 ": %u records", ino, used);
	for (unsigned i = 0; i < used; i++) {
		const uint8_t *r = di + DI_ID2 + 8 + 8 * i;
		if (claim(o, lb_le32(r) * cb, lb_le32(r + 4) * cb, "truncate-log", 0, ino))
			return -1;
	}
	return 0;
}

/* One recorded system file in a pass over the allocators and logs. */
static int sys_entry(struct o2 *o, uint64_t ino, const char *what, enum o2_pass pass)
{
	uint8_t *di = malloc(o->bs);
	if (!di)
		return lb_fail(o->b, "out of memory");
	int rc = read_meta(o, ino, di, "INODE01", DI_BLKNO, "system inode");
	uint32_t fl = rc ? 0 : lb_le32(di + DI_FLAGS);
	bool global = !strcmp(what, "global-bitmap");
	if (fl & FL_CHAIN)
		rc = walk_chains(o, di, ino, global ? NULL : what, pass);
	else if ((fl & (FL_LOCAL | FL_DEALLOC)) && pass == PASS_REST)
		rc = sys_clusters(o, di, ino);
	free(di);
	return rc;
}

/* A pass over the allocators and logs the file walk found in the system
 * directory (the global bitmap's last in PASS_REST, so "free" is claimed
 * after every other claim). */
static int sys_pass(struct o2 *o, enum o2_pass pass, bool global)
{
	for (size_t i = 0; i < o->nsys; i++)
		if (!strcmp(o->sys[i].what, "global-bitmap") == global &&
		    sys_entry(o, o->sys[i].ino, o->sys[i].what, pass))
			return -1;
	return 0;
}

/* Read and check the superblock (block 2 at the block size it names,
 * ocfs2_sb_probe) into sb and set up o: 0, or -1 with b->err. o2_close
 * frees what it holds either way. */
static int o2_open(struct lb *b, struct o2 *o, uint8_t sb[512])
{
	*o = (struct o2){.b = b};
	uint32_t bits = 9;
	for (; bits <= 12; bits++) {
		if ((O2_SB_BLKNO + 1ull) << bits > b->size)
			return lb_fail(b, "image too small for a superblock");
		if (lb_read(b, (uint64_t)O2_SB_BLKNO << bits, sb, 512))
			return -1;
		if (!memcmp(sb, "OCFSV2", 6) && lb_le32(sb + SB_BITS) == bits)
			break;
	}
	if (bits > 12)
		return lb_fail(b, "no superblock (OCFSV2) at block 2 for any block size");
	uint32_t cbits = lb_le32(sb + SB_CBITS);
	if (cbits < 12 || cbits > 20 || cbits < bits)
		return lb_fail(b, "cluster size 2^%u in the superblock", cbits);
	o->bs = 1u << bits;
	o->bits = bits;
	o->cbits = cbits;
	o->blocks = b->size >> bits;
	o->first_cg = lb_le64(sb + SB_FIRST_CG);
	o->incompat = lb_le32(sb + SB_INCOMPAT);
	o->sysdir = lb_le64(sb + SB_SYSDIR);
	o->budget = 4 * o->blocks + 64;
	if (!blocks_ok(o, o->sysdir, 1) || !blocks_ok(o, lb_le64(sb + SB_ROOT), 1))
		return lb_fail(b, "root %" PRIu64 " or system directory %" PRIu64 " outside",
			       lb_le64(sb + SB_ROOT), o->sysdir);
	o->seen = calloc(o->blocks / 8 + 1, 1);
	return o->seen ? 0 : lb_fail(b, "out of memory");
}

static void o2_close(struct o2 *o)
{
	free(o->seen);
	free(o->dirs);
}

int layout_ocfs2_inode(struct lb *b, uint64_t ino, uint8_t *out, uint32_t len)
{
	struct o2 o;
	uint8_t sb[512];
	int rc = o2_open(b, &o, sb);
	uint8_t *di = rc ? NULL : malloc(o.bs);
	if (!rc && !di)
		rc = lb_fail(b, "out of memory");
	if (!rc && len > o.bs)
		rc = lb_fail(b, "%u bytes of an inode of %u", len, o.bs);
	if (!rc)
		rc = read_meta(&o, ino, di, "INODE01", DI_BLKNO, "inode");
	if (!rc)
		memcpy(out, di, len);
	free(di);
	o2_close(&o);
	return rc;
}

/* The superblock and its backups (ocfs2_backup_super_blkno: 1 GiB, then
 * each four times the last, OCFS2_MAX_BACKUP_SUPERBLOCKS of them). */
static int o2_supers(struct o2 *o)
{
	if (claim(o, O2_SB_BLKNO, 1, "superblock", 0, 0))
		return -1;
	uint8_t sig[8];
	for (int i = 0; i < 6; i++) {
		uint64_t off = (1ull << 30) << (2 * i), blk = off >> o->bits;
		if (!blocks_ok(o, blk, 1))
			break;
		if (lb_read(o->b, off, sig, sizeof(sig)))
			return -1;
		if (!memcmp(sig, "OCFSV2", 6) && claim(o, blk, 1, "superblock-backup", 0, 0))
			return -1;
	}
	return 0;
}

int layout_ocfs2(struct lb *b)
{
	struct o2 o;
	uint8_t sb[512];
	int rc = o2_open(b, &o, sb);
	if (!rc) {
		b->l->block_size = o.bs;
		b->l->inode_size = o.bs;
		rc = o2_supers(&o);
	}
	/* The system directory first (its files and their group
	 * descriptors), then the root's tree, then what is left. */
	if (!rc)
		rc = walk_file(&o, o.sysdir, "system-directory");
	if (!rc)
		rc = walk_dirs(&o);
	if (!rc)
		rc = sys_pass(&o, PASS_GROUPS, false);
	if (!rc)
		rc = sys_pass(&o, PASS_GROUPS, true);
	if (!rc && !(o.seen[lb_le64(sb + SB_ROOT) / 8] >> (lb_le64(sb + SB_ROOT) % 8) & 1))
		rc = walk_file(&o, lb_le64(sb + SB_ROOT), NULL);
	if (!rc)
		rc = walk_dirs(&o);
	if (!rc)
		rc = sys_pass(&o, PASS_REST, false);
	if (!rc)
		rc = sys_pass(&o, PASS_REST, true);
	o2_close(&o);
	return rc;
}
