/* layout_gfs2.c - the layout map of gfs2, from its on-disk format (Linux's
 * include/uapi/linux/gfs2_ondisk.h: struct gfs2_sb, gfs2_rindex,
 * gfs2_rgrp, gfs2_dinode, gfs2_dirent, gfs2_leaf, gfs2_ea_header;
 * fs/gfs2/bmap.c for the metadata tree, dir.c for directories, xattr.h
 * for extended attributes; big-endian).
 *
 * gfs2 keeps its own metadata in files: the superblock (64 KiB in) names
 * the master directory, whose "rindex" file lists the resource groups
 * (fs/gfs2/rgrp.c gfs2_ri_update), whose bitmaps give every block one of
 * four states (free, used, unlinked dinode, dinode). A dinode is a whole
 * block and its number is its block (fs/gfs2/inode.c: i_ino = no_addr).
 * A file's blocks hang off the dinode as a tree of di_height levels
 * (fs/gfs2/bmap.c), or live inside it ("stuffed", height 0). A directory
 * is stuffed, or (GFS2_DIF_EXHASH) a hash table, itself file data in
 * blocks with a meta header (GFS2_METATYPE_JD), pointing at chains of
 * leaf blocks (fs/gfs2/dir.c).
 *
 * Structure names, claimed in this order (the first claim wins):
 *   superblock        the block at 64 KiB;
 *   resource-group    each resource group's header block (struct gfs2_rgrp),
 *   rgrp-bitmap       and its further bitmap blocks (GFS2_METATYPE_RB);
 *   dinode            every block the bitmaps mark dinode or unlinked
 *                     dinode, and every dinode the walk reaches (unit:
 *                     the block; owner: its number);
 *   then per file, walking the master directory's tree, then the root's,
 *   owner = the inode number:
 *   indirect          a file's metadata tree blocks (GFS2_METATYPE_IN);
 *   xattr             extended attribute blocks (EA, ED, and an indirect
 *                     EA block);
 *   journal           a journal's blocks (the files of master/jindex);
 *   rindex            the resource index's blocks;
 *   system-file       the other system files' blocks (inum, statfs, quota,
 *                     per_node's files);
 *   master-directory  a system directory's hash table and leaves;
 *   directory         a directory's hash table and leaf blocks;
 *   data, symlink     a regular file's or symlink's blocks;
 *   free              blocks the bitmaps mark free.
 *
 * Untrusted input: every block number is checked against the image before
 * it is read or claimed, trees end at GFS2_MAX_META_HEIGHT levels, tree,
 * leaf and xattr blocks are read against a budget of the image's blocks,
 * each dinode is walked once (a bitmap of visited blocks), the walk keeps
 * its own stack of directories (no recursion into directories), and the
 * hash table and resource index are bounded before they are allocated. A
 * tree, leaf or xattr block with no GFS2 magic is claimed but not
 * followed: a mounted filesystem writes its metadata in place after its
 * journal, in no order, so a disk caught mid-operation may point at a
 * block not yet written; a block with the magic of the wrong type is
 * damage and refused. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "layout_int.h"

#define G2_MAGIC      0x01161970
#define G2_SB_OFF     65536 /* GFS2_SB_ADDR basic blocks */
#define G2_MAX_HEIGHT 10    /* GFS2_MAX_META_HEIGHT */
#define G2_MAX_DEPTH  17    /* GFS2_DIR_MAX_DEPTH */
#define MT_SB	      1	    /* GFS2_METATYPE_* */
#define MT_RG	      2
#define MT_RB	      3
#define MT_DI	      4
#define MT_IN	      5
#define MT_LF	      6
#define MT_JD	      7
#define MT_EA	      10
#define MT_ED	      11

/* Sizes and places in the on-disk structures (gfs2_ondisk.h). */
#define MH_SIZE	     24	 /* struct gfs2_meta_header */
#define RG_SIZE	     128 /* struct gfs2_rgrp */
#define RI_SIZE	     96	 /* struct gfs2_rindex */
#define DI_SIZE	     232 /* struct gfs2_dinode */
#define LF_SIZE	     104 /* struct gfs2_leaf */
#define DE_SIZE	     40	 /* struct gfs2_dirent */
#define EA_SIZE	     16	 /* struct gfs2_ea_header */
#define SB_BSIZE     36
#define SB_BSHIFT    40
#define SB_MASTER    56 /* sb_master_dir.no_addr */
#define SB_ROOT	     88 /* sb_root_dir.no_addr */
#define DI_ADDR	     32 /* di_num.no_addr */
#define DI_MODE	     40
#define DI_SIZE_F    56 /* di_size */
#define DI_FLAGS     128
#define DI_HEIGHT    138
#define DI_DEPTH     146
#define DI_EATTR     168
#define DIF_EXHASH   0x2
#define DIF_EA_INDIR 0x8
#define LF_NEXT	     32
#define EAFLAG_LAST  0x1
#define HASH_MAX     ((uint64_t)8 << G2_MAX_DEPTH) /* bytes of the largest hash table */

/* What a file's blocks are, by where the walk found it. */
enum g2_role { R_USER, R_SYS, R_JINDEX, R_JOURNAL, R_RINDEX };

struct g2_rg {
	uint64_t addr, data0;
	uint32_t length, data, bitbytes;
};

struct g2 {
	struct lb *b;
	uint32_t bs, diptrs, inptrs;
	uint64_t blocks;		 /* of the image */
	uint64_t budget;		 /* tree, leaf and xattr blocks the walk may still read */
	uint8_t *seen;			 /* a bit per block: dinodes walked, leaves read */
	uint8_t *lvl[G2_MAX_HEIGHT + 1]; /* a block buffer per tree level */
	uint8_t *blk;			 /* leaves and xattr blocks */
	struct g2_rg *rg;		 /* the resource index */
	size_t nrg;
	uint64_t master, root;
	/* The directories still to walk, each once (seen). */
	struct g2_todo {
		uint64_t ino;
		enum g2_role role;
	} * todo;
	size_t ntodo, todo_cap;
};

/* One tree walk: what its data blocks are, and what is done with them. */
struct g2_tree {
	uint64_t ino;
	const char *what; /* data blocks' name; NULL: no claims (a read) */
	/* Called per data block (logical, physical) when set. */
	int (*fn)(struct g2 *g, struct g2_tree *t, uint64_t lblk, uint64_t pblk);
	uint8_t *out; /* fn's buffer: the file's first `len` bytes */
	uint64_t len;
	uint64_t run, nrun; /* data blocks not yet claimed: a run */
};

static bool blk_ok(const struct g2 *g, uint64_t blk)
{
	return blk && blk < g->blocks;
}

static bool seen(struct g2 *g, uint64_t blk)
{
	bool was = g->seen[blk / 8] & (1u << blk % 8);
	g->seen[blk / 8] |= (uint8_t)(1u << blk % 8);
	return was;
}

static int claim(struct g2 *g, uint64_t blk, uint64_t n, const char *what, uint32_t unit,
		 uint64_t owner)
{
	return lb_add(g->b, blk * g->bs, n * g->bs, what, unit, owner);
}

/* Read metadata block blk into buf against the budget: 1 when it carries
 * the GFS2 magic and type `type`, 0 when it carries no magic (not yet
 * written), -1 (damage, or a read error) with b->err. */
static int meta_read(struct g2 *g, uint64_t blk, uint8_t *buf, uint32_t type, uint64_t ino)
{
	if (!blk_ok(g, blk))
		return lb_fail(g->b, "inode %" PRIu64 ": block %" PRIu64 " outside the image", ino,
			       blk);
	if (!g->budget--)
		return lb_fail(g->b, "more metadata blocks than blocks: looping trees");
	if (lb_read(g->b, blk * g->bs, buf, g->bs))
		return -1;
	if (lb_be32(buf) != G2_MAGIC)
		return 0;
	if (lb_be32(buf + 4) != type)
		return lb_fail(g->b, "inode %" PRIu64 ": block %" PRIu64 " of type %u, want %u",
			       ino, blk, lb_be32(buf + 4), type);
	return 1;
}

/* inptrs^n, saturating: the data blocks one pointer n levels up spans. */
static uint64_t span(const struct g2 *g, int n)
{
	uint64_t s = 1;
	for (int i = 0; i < n; i++)
		s = s > UINT64_MAX / g->inptrs ? UINT64_MAX : s * g->inptrs;
	return s;
}

static int flush_run(struct g2 *g, struct g2_tree *t)
{
	int rc = 0;
	if (t->nrun && t->what)
		rc = claim(g, t->run, t->nrun, t->what, 0, t->ino);
	t->nrun = 0;
	return rc;
}

static int data_block(struct g2 *g, struct g2_tree *t, uint64_t lblk, uint64_t pblk)
{
	if (t->fn)
		return t->fn(g, t, lblk, pblk);
	if (t->nrun && pblk == t->run + t->nrun) {
		t->nrun++;
		return 0;
	}
	if (flush_run(g, t))
		return -1;
	t->run = pblk, t->nrun = 1;
	return 0;
}

/* n pointers at p, `rem` levels above the data (1: they are data), the
 * first covering logical block base (fs/gfs2/bmap.c's metapath). */
static int tree_ptrs(struct g2 *g, struct g2_tree *t, const uint8_t *p, uint32_t n, int rem,
		     uint64_t base)
{
	uint64_t sp = span(g, rem - 1);
	for (uint32_t i = 0; i < n; i++) {
		uint64_t blk = lb_be64(p + 8 * i);
		if (!blk)
			continue; /* a hole */
		if (!blk_ok(g, blk))
			return lb_fail(g->b,
				       "inode %" PRIu64 ": pointer to block %" PRIu64
				       " outside the image",
				       t->ino, blk);
		uint64_t off = sp && i > (UINT64_MAX - base) / sp ? UINT64_MAX : base + i * sp;
		if (rem == 1) {
			if (data_block(g, t, off, blk))
				return -1;
			continue;
		}
		uint8_t *buf = g->lvl[rem - 1];
		int rc = meta_read(g, blk, buf, MT_IN, t->ino);
		if (rc < 0 || (t->what && claim(g, blk, 1, "indirect", 0, t->ino)))
			return -1;
		if (rc && tree_ptrs(g, t, buf + MH_SIZE, g->inptrs, rem - 1, off))
			return -1;
	}
	return 0;
}

/* The data blocks of dinode di (height > 0). */
static int tree_walk(struct g2 *g, struct g2_tree *t, const uint8_t *di)
{
	int h = lb_be16(di + DI_HEIGHT);
	if (h > G2_MAX_HEIGHT)
		return lb_fail(g->b, "inode %" PRIu64 ": height %d", t->ino, h);
	if (!h)
		return 0;
	if (tree_ptrs(g, t, di + DI_SIZE, g->diptrs, h, 0))
		return -1;
	return flush_run(g, t);
}

/* fn of a read of plain file data (the resource index). */
static int read_plain(struct g2 *g, struct g2_tree *t, uint64_t lblk, uint64_t pblk)
{
	if (lblk >= (t->len + g->bs - 1) / g->bs)
		return 0; /* past the size */
	uint64_t at = lblk * g->bs, n = t->len - at < g->bs ? t->len - at : g->bs;
	if (t->what && claim(g, pblk, 1, t->what, 0, t->ino))
		return -1;
	return lb_read(g->b, pblk * g->bs, t->out + at, n);
}

/* fn of a read of a directory's hash table: blocks of GFS2_METATYPE_JD,
 * bs - 24 bytes of the table each (sd_jbsize; dir.c gfs2_dir_read_data). */
static int read_jdata(struct g2 *g, struct g2_tree *t, uint64_t lblk, uint64_t pblk)
{
	uint32_t jb = g->bs - MH_SIZE;
	if (t->what && claim(g, pblk, 1, t->what, 0, t->ino))
		return -1;
	if (lblk >= (t->len + jb - 1) / jb)
		return 0;
	int rc = meta_read(g, pblk, g->blk, MT_JD, t->ino);
	if (rc <= 0)
		return rc;
	uint64_t at = lblk * jb, n = t->len - at < jb ? t->len - at : jb;
	memcpy(t->out + at, g->blk + MH_SIZE, n);
	return 0;
}

/* Read dinode `ino` into buf: 1, 0 when the block holds no dinode (not
 * yet written), -1 for damage. */
static int dinode_read(struct g2 *g, uint64_t ino, uint8_t *buf)
{
	if (!blk_ok(g, ino))
		return lb_fail(g->b, "inode %" PRIu64 " outside the image", ino);
	if (lb_read(g->b, ino * g->bs, buf, g->bs))
		return -1;
	if (lb_be32(buf) != G2_MAGIC)
		return 0;
	if (lb_be32(buf + 4) != MT_DI || lb_be64(buf + DI_ADDR) != ino)
		return lb_fail(g->b,
			       "inode %" PRIu64 ": block of type %u says it is inode %" PRIu64, ino,
			       lb_be32(buf + 4), lb_be64(buf + DI_ADDR));
	return 1;
}

/* The first len bytes of dinode di's file (the resource index) into a
 * malloc'd *out, claimed as `what` unless NULL. */
static int file_read(struct g2 *g, uint64_t ino, const uint8_t *di, const char *what, uint8_t **out,
		     uint64_t len)
{
	*out = malloc(len ? len : 1);
	if (!*out)
		return lb_fail(g->b, "out of memory");
	memset(*out, 0, len);
	if (!lb_be16(di + DI_HEIGHT)) {
		if (len > g->bs - DI_SIZE)
			return lb_fail(g->b, "inode %" PRIu64 ": %" PRIu64 " bytes stuffed", ino,
				       len);
		memcpy(*out, di + DI_SIZE, len);
		return 0;
	}
	struct g2_tree t = {.ino = ino, .what = what, .fn = read_plain, .out = *out, .len = len};
	return tree_walk(g, &t, di);
}

/* ---- directories ---- */

/* Called per entry of a directory: its inode and name. */
typedef int g2_dirent_fn(struct g2 *g, void *ctx, uint64_t ino, const uint8_t *name, uint16_t len);

/* The entries of one directory block from `off` (fs/gfs2/dir.c
 * gfs2_dirent_scan, gfs2_check_dirent). */
static int dirents(struct g2 *g, uint64_t dir, const uint8_t *blk, uint32_t off, g2_dirent_fn *fn,
		   void *ctx)
{
	while (off + DE_SIZE <= g->bs) {
		const uint8_t *de = blk + off;
		uint16_t rec = lb_be16(de + 20), nlen = lb_be16(de + 22);
		if (rec < DE_SIZE || rec > g->bs - off || nlen > rec - DE_SIZE)
			return lb_fail(g->b,
				       "directory %" PRIu64 ": entry at %u of %u bytes, name %u",
				       dir, off, rec, nlen);
		/* gfs2_dirent_sentinel: an unused entry */
		if (lb_be64(de) && lb_be64(de + 8) &&
		    fn(g, ctx, lb_be64(de + 8), de + DE_SIZE, nlen))
			return -1;
		off += rec;
	}
	return 0;
}

/* Every entry of directory di, its blocks claimed as `what` unless NULL. */
static int dir_walk(struct g2 *g, uint64_t ino, const uint8_t *di, const char *what,
		    g2_dirent_fn *fn, void *ctx)
{
	if (!(lb_be32(di + DI_FLAGS) & DIF_EXHASH))
		return lb_be16(di + DI_HEIGHT) ? lb_fail(g->b,
							 "directory %" PRIu64 " unstuffed "
							 "without a hash table",
							 ino)
					       : dirents(g, ino, di, DI_SIZE, fn, ctx);
	uint32_t depth = lb_be16(di + DI_DEPTH);
	uint64_t size = lb_be64(di + DI_SIZE_F);
	if (depth > G2_MAX_DEPTH || size != (uint64_t)8 << depth)
		return lb_fail(g->b, "directory %" PRIu64 ": depth %u, hash table of %" PRIu64, ino,
			       depth, size);
	uint8_t *hash = NULL;
	int rc;
	if (!lb_be16(di + DI_HEIGHT)) {
		rc = file_read(g, ino, di, NULL, &hash, size);
	} else {
		hash = calloc(1, size);
		struct g2_tree t = {
		    .ino = ino, .what = what, .fn = read_jdata, .out = hash, .len = size};
		rc = hash ? tree_walk(g, &t, di) : lb_fail(g->b, "out of memory");
	}
	uint64_t prev = 0;
	for (uint64_t i = 0; !rc && i < size / 8; i++) {
		uint64_t leaf = lb_be64(hash + 8 * i);
		if (leaf == prev)
			continue; /* 2^(depth - lf_depth) pointers share a leaf */
		prev = leaf;
		/* A leaf and its chain (lf_next), each read once. */
		while (!rc && leaf && !(blk_ok(g, leaf) && seen(g, leaf))) {
			rc = meta_read(g, leaf, g->blk, MT_LF, ino);
			if (rc >= 0 && what)
				rc = claim(g, leaf, 1, what, 0, ino) ? -1 : rc;
			if (rc <= 0)
				break;
			leaf = lb_be64(g->blk + LF_NEXT);
			rc = dirents(g, ino, g->blk, LF_SIZE, fn, ctx);
		}
	}
	free(hash);
	return rc < 0 ? -1 : 0;
}

/* ---- files ---- */

/* Extended attributes: di_eattr, an EA block or (GFS2_DIF_EA_INDIRECT) an
 * indirect block of EA block pointers; an unstuffed attribute's value in
 * ED blocks (fs/gfs2/xattr.c ea_foreach, xattr.h GFS2_EA2DATAPTRS). */
static int ea_block(struct g2 *g, uint64_t ino, uint64_t blk)
{
	int rc = meta_read(g, blk, g->blk, MT_EA, ino);
	if (rc < 0 || claim(g, blk, 1, "xattr", 0, ino))
		return -1;
	for (uint32_t off = MH_SIZE; rc && off + EA_SIZE <= g->bs;) {
		const uint8_t *ea = g->blk + off;
		uint32_t rec = lb_be32(ea), nptrs = ea[11];
		uint32_t at = off + EA_SIZE + ((ea[8] + 7u) & ~7u);
		if (rec < EA_SIZE || rec > g->bs - off || (nptrs && at + 8 * nptrs > off + rec))
			return lb_fail(g->b, "inode %" PRIu64 ": xattr at %u of %u bytes", ino, off,
				       rec);
		for (uint32_t i = 0; i < nptrs; i++) {
			uint64_t ed = lb_be64(g->blk + at + 8 * i);
			if (!blk_ok(g, ed))
				return lb_fail(g->b, "inode %" PRIu64 ": xattr block %" PRIu64, ino,
					       ed);
			if (claim(g, ed, 1, "xattr", 0, ino))
				return -1;
		}
		if (ea[10] & EAFLAG_LAST)
			break;
		off += rec;
	}
	return 0;
}

static int xattrs(struct g2 *g, uint64_t ino, const uint8_t *di)
{
	uint64_t ea = lb_be64(di + DI_EATTR);
	if (!ea)
		return 0;
	if (!(lb_be32(di + DI_FLAGS) & DIF_EA_INDIR))
		return ea_block(g, ino, ea);
	uint8_t *ind = g->lvl[0];
	int rc = meta_read(g, ea, ind, MT_IN, ino);
	if (rc < 0 || claim(g, ea, 1, "xattr", 0, ino))
		return -1;
	for (uint32_t i = 0; rc && i < g->inptrs; i++) {
		uint64_t p = lb_be64(ind + MH_SIZE + 8 * i);
		if (p && ea_block(g, ino, p))
			return -1;
	}
	return 0;
}

static const char *data_name(enum g2_role role, uint32_t mode)
{
	switch (role) {
	case R_USER: return lb_kind_of_mode(mode);
	case R_JOURNAL: return "journal";
	case R_RINDEX: return "rindex";
	default: return (mode & 0170000) == 0040000 ? "master-directory" : "system-file";
	}
}

static int push(struct g2 *g, uint64_t ino, enum g2_role role)
{
	if (g->ntodo == g->todo_cap) {
		size_t cap = g->todo_cap ? 2 * g->todo_cap : 16;
		struct g2_todo *t = realloc(g->todo, cap * sizeof(*t));
		if (!t)
			return lb_fail(g->b, "out of memory");
		g->todo = t, g->todo_cap = cap;
	}
	g->todo[g->ntodo++] = (struct g2_todo){ino, role};
	return 0;
}

/* The role of a directory's child, by the directory's role and its name. */
static enum g2_role child_role(enum g2_role dir, const uint8_t *name, uint16_t len)
{
	if (dir == R_USER)
		return R_USER;
	if (dir == R_JINDEX)
		return R_JOURNAL;
	if (len == 6 && !memcmp(name, "jindex", 6))
		return R_JINDEX;
	if (len == 6 && !memcmp(name, "rindex", 6))
		return R_RINDEX;
	return R_SYS;
}

struct g2_visit {
	enum g2_role role;
	uint64_t dir;
};

/* An entry of a walked directory: its file queued, once. */
static int visit(struct g2 *g, void *ctx, uint64_t ino, const uint8_t *name, uint16_t len)
{
	const struct g2_visit *v = ctx;
	if ((len == 1 && name[0] == '.') || (len == 2 && name[0] == '.' && name[1] == '.'))
		return 0;
	if (!blk_ok(g, ino))
		return lb_fail(g->b, "directory %" PRIu64 ": entry for inode %" PRIu64, v->dir,
			       ino);
	return seen(g, ino) ? 0 : push(g, ino, child_role(v->role, name, len));
}

/* One dinode: its xattrs, then its tree, or a directory's entries
 * (queued: the walk never nests, so one buffer per level serves). */
static int file_walk(struct g2 *g, uint64_t ino, enum g2_role role)
{
	uint8_t *di = g->lvl[G2_MAX_HEIGHT];
	int rc = dinode_read(g, ino, di);
	if (rc <= 0)
		return rc; /* 0: not yet written, nothing to follow */
	uint32_t mode = lb_be32(di + DI_MODE);
	/* Claimed here too: a mounted filesystem's bitmaps may be older than
	 * its dinodes (the resource group block is written back after the
	 * journal, the new dinode may be in place already). */
	if (claim(g, ino, 1, "dinode", g->bs, ino) || xattrs(g, ino, di))
		return -1;
	if ((mode & 0170000) == 0040000) {
		struct g2_visit v = {role, ino};
		return dir_walk(g, ino, di, data_name(role, mode), visit, &v);
	}
	struct g2_tree t = {.ino = ino, .what = data_name(role, mode)};
	return tree_walk(g, &t, di);
}

/* Every file reached from `ino`, last queued first: each dinode is
 * queued once, so the stack holds at most the image's blocks. */
static int walk_from(struct g2 *g, uint64_t ino, enum g2_role role)
{
	if (seen(g, ino))
		return 0;
	int rc = push(g, ino, role);
	while (!rc && g->ntodo) {
		struct g2_todo d = g->todo[--g->ntodo];
		rc = file_walk(g, d.ino, d.role);
	}
	return rc;
}

/* ---- the resource groups ---- */

struct g2_find {
	const char *name;
	uint64_t ino;
};

static int find_name(struct g2 *g, void *ctx, uint64_t ino, const uint8_t *name, uint16_t len)
{
	(void)g;
	struct g2_find *f = ctx;
	if (len == strlen(f->name) && !memcmp(name, f->name, len))
		f->ino = ino;
	return 0;
}

/* The resource index: master/rindex (rgrp.c gfs2_ri_update,
 * read_rindex_entry), checked entry by entry. */
static int read_rindex(struct g2 *g)
{
	uint8_t *di = g->lvl[G2_MAX_HEIGHT];
	struct g2_find f = {"rindex", 0};
	int rc = dinode_read(g, g->master, di);
	if (rc <= 0)
		return rc ? -1 : lb_fail(g->b, "no master directory at block %" PRIu64, g->master);
	if (dir_walk(g, g->master, di, NULL, find_name, &f))
		return -1;
	rc = f.ino ? dinode_read(g, f.ino, di) : 0;
	if (rc <= 0)
		return rc ? -1 : lb_fail(g->b, "no rindex in the master directory");
	uint64_t size = lb_be64(di + DI_SIZE_F), end = 0;
	if (!size || size % RI_SIZE || size / RI_SIZE > g->blocks)
		return lb_fail(g->b, "rindex of %" PRIu64 " bytes", size);
	uint8_t *ri;
	rc = file_read(g, f.ino, di, NULL, &ri, size);
	g->rg = ri && !rc ? malloc(size / RI_SIZE * sizeof(*g->rg)) : NULL;
	if (!rc && !g->rg)
		rc = lb_fail(g->b, "out of memory");
	for (uint64_t i = 0; !rc && i < size / RI_SIZE; i++) {
		const uint8_t *e = ri + i * RI_SIZE;
		struct g2_rg r = {lb_be64(e), lb_be64(e + 16), lb_be32(e + 8), lb_be32(e + 24),
				  lb_be32(e + 28)};
		uint64_t room =
		    (uint64_t)(g->bs - RG_SIZE) + (uint64_t)(r.length - 1) * (g->bs - MH_SIZE);
		/* In order, apart: the walks of the headers and bitmaps stay
		 * within the image's blocks. */
		if (r.addr < end || !blk_ok(g, r.addr) || !r.length ||
		    r.length > g->blocks - r.addr || r.data0 < r.addr + r.length ||
		    r.data0 > g->blocks || r.data > g->blocks - r.data0 || r.bitbytes > room ||
		    (uint64_t)r.bitbytes * 4 < r.data)
			rc = lb_fail(g->b,
				     "resource group %" PRIu64 ": at %" PRIu64
				     " (%u blocks), data at %" PRIu64
				     " (%u blocks, %u bitmap bytes)",
				     i, r.addr, r.length, r.data0, r.data, r.bitbytes);
		else
			g->rg[g->nrg++] = r, end = r.data0 + r.data;
	}
	free(ri);
	return rc;
}

/* Each resource group's header blocks, checked and claimed. */
static int claim_rgrps(struct g2 *g)
{
	for (size_t i = 0; i < g->nrg; i++) {
		const struct g2_rg *r = &g->rg[i];
		uint8_t mh[8];
		for (uint32_t k = 0; k < r->length; k++) {
			uint32_t want = k ? MT_RB : MT_RG;
			if (lb_read(g->b, (r->addr + k) * g->bs, mh, sizeof(mh)))
				return -1;
			if (lb_be32(mh) != G2_MAGIC || lb_be32(mh + 4) != want)
				return lb_fail(g->b,
					       "resource group %zu: block %" PRIu64 " of type %u",
					       i, r->addr + k, lb_be32(mh + 4));
		}
		if (claim(g, r->addr, 1, "resource-group", 0, 0) ||
		    (r->length > 1 && claim(g, r->addr + 1, r->length - 1, "rgrp-bitmap", 0, 0)))
			return -1;
	}
	return 0;
}

/* Walk every resource group's bitmap (2 bits a block, GFS2_NBBY blocks a
 * byte, low bits first: rgrp.c gfs2_testbit): with free false, claim the
 * dinodes (GFS2_BLKST_DINODE, GFS2_BLKST_UNLINKED); with free true, runs
 * of free blocks. */
static int bitmaps(struct g2 *g, bool free_runs)
{
	uint8_t *buf = g->blk;
	for (size_t i = 0; i < g->nrg; i++) {
		const struct g2_rg *r = &g->rg[i];
		uint64_t run = 0, blk = r->data0;
		uint32_t k = 0, left = r->bitbytes;
		for (uint32_t h = 0; h < r->length && left; h++) {
			uint32_t off = h ? MH_SIZE : RG_SIZE, n = g->bs - off;
			n = n < left ? n : left;
			left -= n;
			if (lb_read(g->b, (r->addr + h) * g->bs, buf, g->bs))
				return -1;
			for (uint32_t j = 0; j < 4 * n && k < r->data; j++, k++, blk++) {
				uint8_t st = buf[off + j / 4] >> (j % 4 * 2) & 3;
				if (free_runs && !st) {
					run++;
					continue;
				}
				if (run && claim(g, blk - run, run, "free", 0, 0))
					return -1;
				run = 0;
				if (!free_runs && st >= 2 && claim(g, blk, 1, "dinode", g->bs, blk))
					return -1;
			}
		}
		if (run && claim(g, blk - run, run, "free", 0, 0))
			return -1;
	}
	return 0;
}

/* ---- setting up ---- */

/* Read and check the superblock and set up g: 0, or -1 with b->err.
 * g2_close frees what it holds either way. */
static int g2_open(struct lb *b, struct g2 *g)
{
	*g = (struct g2){.b = b};
	uint8_t sb[128];
	if (lb_read(b, G2_SB_OFF, sb, sizeof(sb)))
		return -1;
	uint32_t bs = lb_be32(sb + SB_BSIZE), shift = lb_be32(sb + SB_BSHIFT);
	if (lb_be32(sb) != G2_MAGIC || lb_be32(sb + 4) != MT_SB)
		return lb_fail(b, "no superblock at 64 KiB");
	if (bs < 512 || bs > 65536 || shift > 16 || bs != 1u << shift)
		return lb_fail(b, "block size %u (shift %u) in the superblock", bs, shift);
	g->bs = bs;
	g->blocks = b->size / bs;
	g->diptrs = (bs - DI_SIZE) / 8;
	g->inptrs = (bs - MH_SIZE) / 8;
	g->master = lb_be64(sb + SB_MASTER);
	g->root = lb_be64(sb + SB_ROOT);
	if (G2_SB_OFF / bs + 1 > g->blocks || !blk_ok(g, g->master) || !blk_ok(g, g->root))
		return lb_fail(
		    b, "master directory %" PRIu64 ", root %" PRIu64 " of %" PRIu64 " blocks",
		    g->master, g->root, g->blocks);
	g->budget = 2 * g->blocks + 64;
	g->seen = calloc(1, g->blocks / 8 + 1);
	g->blk = malloc(bs);
	bool ok = g->seen && g->blk;
	for (int i = 0; i <= G2_MAX_HEIGHT; i++)
		ok = (g->lvl[i] = malloc(bs)) && ok;
	return ok ? 0 : lb_fail(b, "out of memory");
}

static void g2_close(struct g2 *g)
{
	free(g->seen);
	free(g->blk);
	for (int i = 0; i <= G2_MAX_HEIGHT; i++)
		free(g->lvl[i]);
	free(g->rg);
	free(g->todo);
}

int layout_gfs2_dinode(struct lb *b, uint64_t ino, uint8_t *out, uint32_t len)
{
	struct g2 g;
	int rc = g2_open(b, &g);
	if (!rc && len > g.bs)
		rc = lb_fail(b, "%u bytes of a %u-byte dinode", len, g.bs);
	if (!rc) {
		int got = dinode_read(&g, ino, g.blk);
		if (got > 0)
			memcpy(out, g.blk, len);
		else
			rc = got ? -1 : lb_fail(b, "block %" PRIu64 " holds no dinode", ino);
	}
	g2_close(&g);
	return rc;
}

int layout_gfs2(struct lb *b)
{
	struct g2 g;
	int rc = g2_open(b, &g);
	if (!rc) {
		b->l->block_size = g.bs;
		b->l->inode_size = g.bs;
		rc = lb_add(b, G2_SB_OFF, g.bs, "superblock", 0, 0);
	}
	if (!rc)
		rc = read_rindex(&g);
	if (!rc)
		rc = claim_rgrps(&g);
	if (!rc)
		rc = bitmaps(&g, false);
	/* The master directory's tree first (the journals, the resource
	 * index, the system files), then the root's: a user file that
	 * claims a system block cannot rename it. */
	if (!rc) {
		memset(g.seen, 0, g.blocks / 8 + 1);
		rc = walk_from(&g, g.master, R_SYS);
	}
	if (!rc)
		rc = walk_from(&g, g.root, R_USER);
	if (!rc)
		rc = bitmaps(&g, true);
	g2_close(&g);
	return rc;
}
