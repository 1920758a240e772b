/* layout_xfs.c - the layout map of xfs, from the on-disk format (xfsprogs'
 * libxfs/xfs_format.h; all fields big-endian). There is no libxfs to link,
 * so this reads the structures itself and trusts nothing: every block
 * number is checked against its allocation group before it is read or
 * claimed, every btree block must carry its tree's magic and the level
 * its parent promised, and the walk has a budget of the filesystem's
 * block count.
 *
 * Structure names, claimed in this order (the first claim wins):
 *   superblock, superblock-backup   sector 0 of AG 0, of every other AG
 *   agf, agi, agfl                  the other AG header sectors
 *   log                             the internal log
 *   free-space-btree                bno and cnt btree blocks
 *   inode-btree                     inobt and finobt blocks
 *   rmap-btree, refcount-btree      when the features are on
 *   inode-chunk                     allocated inodes (unit = the inode size;
 *                                   sparse chunks claim only their inodes)
 *   free-list                       blocks on an AG's free list (AGFL)
 *   then, for every inode in use (owner = the inode number):
 *   extent-tree                     bmbt blocks of a fork in btree format
 *   directory, data, symlink, xattr the blocks its extents map
 *   free                            the bno btree's free extents */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "layout_int.h"

#define XFS_MAX_LEVELS 9 /* deeper than any btree an AG can hold */

struct xfs {
	struct lb *b;
	uint32_t bs, sectsize, agblocks, agcount, isize, inopblock;
	uint8_t agblklog, inopblog;
	uint64_t dblocks;
	bool v5, sparse, nrext64;
	uint64_t budget;		  /* blocks the walk may still read */
	uint8_t *buf[XFS_MAX_LEVELS + 2]; /* one block per btree level */
	/* Found on the way, claimed later (lower rank). */
	struct xchunk {
		uint32_t agno, agino;
		uint16_t holemask;
		uint64_t free;
	} * chunks;
	size_t nchunks, capchunks;
	struct xfree {
		uint32_t agno, agbno, len;
	} * frees;
	size_t nfrees, capfrees;
};

static uint32_t ag_len(const struct xfs *x, uint32_t agno)
{
	uint64_t left = x->dblocks - (uint64_t)agno * x->agblocks;
	return left < x->agblocks ? (uint32_t)left : x->agblocks;
}

static uint64_t ag_byte(const struct xfs *x, uint32_t agno, uint32_t agbno)
{
	return ((uint64_t)agno * x->agblocks + agbno) * x->bs;
}

static int claim(struct xfs *x, uint32_t agno, uint32_t agbno, uint64_t n, const char *what,
		 uint32_t unit, uint64_t owner)
{
	return lb_add(x->b, ag_byte(x, agno, agbno), n * x->bs, what, unit, owner);
}

/* Read AG block agbno into buf, after checking it is inside the AG. */
static int read_block(struct xfs *x, uint32_t agno, uint32_t agbno, uint8_t *buf)
{
	if (agbno >= ag_len(x, agno))
		return lb_fail(x->b, "AG %u: block %u outside the AG (%u blocks)", agno, agbno,
			       ag_len(x, agno));
	if (!x->budget--)
		return lb_fail(x->b, "more btree blocks than the filesystem has: looping tree");
	return lb_read(x->b, ag_byte(x, agno, agbno), buf, x->bs);
}

/* A short-form (AG) btree: its magic, record and key sizes, its name. */
struct xbt {
	const char *magic; /* v4, v5 */
	const char *magic5;
	uint32_t reclen, keylen; /* keylen: all keys of one pointer (rmap: low+high) */
	const char *name;
	int (*leaf)(struct xfs *x, uint32_t agno, const uint8_t *rec);
};

static int add_free(struct xfs *x, uint32_t agno, const uint8_t *rec)
{
	uint32_t start = lb_be32(rec), len = lb_be32(rec + 4);
	if (!len || start >= ag_len(x, agno) || len > ag_len(x, agno) - start)
		return lb_fail(x->b, "AG %u: free extent %u+%u outside the AG", agno, start, len);
	if (x->nfrees == x->capfrees) {
		size_t cap = x->capfrees ? 2 * x->capfrees : 64;
		void *p = realloc(x->frees, cap * sizeof(*x->frees));
		if (!p)
			return lb_fail(x->b, "out of memory");
		x->frees = p;
		x->capfrees = cap;
	}
	x->frees[x->nfrees++] = (struct xfree){agno, start, len};
	return 0;
}

static int add_chunk(struct xfs *x, uint32_t agno, const uint8_t *rec)
{
	uint32_t agino = lb_be32(rec);
	uint16_t holemask = x->sparse ? lb_be16(rec + 4) : 0;
	uint64_t agbno = agino >> x->inopblog;
	uint64_t blocks = (64 + x->inopblock - 1) / x->inopblock;
	if (agino % 64 && !x->sparse)
		return lb_fail(x->b, "AG %u: inode chunk at %u not aligned", agno, agino);
	if (agbno >= ag_len(x, agno) || blocks > ag_len(x, agno) - agbno)
		return lb_fail(x->b, "AG %u: inode chunk at %u outside the AG", agno, agino);
	/* 16 holemask bits, each 4 inodes: claim what is not a hole. */
	uint64_t at = ag_byte(x, agno, 0) + (uint64_t)agino * x->isize;
	for (int i = 0; i < 16; i++)
		if (!(holemask >> i & 1) && lb_add(x->b, at + (uint64_t)i * 4 * x->isize,
						   4ull * x->isize, "inode-chunk", x->isize, 0))
			return -1;
	if (x->nchunks == x->capchunks) {
		size_t cap = x->capchunks ? 2 * x->capchunks : 64;
		void *p = realloc(x->chunks, cap * sizeof(*x->chunks));
		if (!p)
			return lb_fail(x->b, "out of memory");
		x->chunks = p;
		x->capchunks = cap;
	}
	x->chunks[x->nchunks++] = (struct xchunk){agno, agino, holemask, lb_be64(rec + 8)};
	return 0;
}

static const struct xbt bt_bno = {"ABTB", "AB3B", 8, 8, "free-space-btree", add_free};
static const struct xbt bt_cnt = {"ABTC", "AB3C", 8, 8, "free-space-btree", NULL};
static const struct xbt bt_ino = {"IABT", "IAB3", 16, 4, "inode-btree", add_chunk};
static const struct xbt bt_fino = {"FIBT", "FIB3", 16, 4, "inode-btree", NULL};
static const struct xbt bt_rmap = {"RMBT", "RMB3", 24, 40, "rmap-btree", NULL};
static const struct xbt bt_refc = {"R3FC", "R3FC", 12, 4, "refcount-btree", NULL};

/* Walk the subtree at agbno, which must be a `level` block of t. */
static int walk_bt(struct xfs *x, const struct xbt *t, uint32_t agno, uint32_t agbno,
		   uint32_t level)
{
	uint8_t *blk = x->buf[level];
	if (read_block(x, agno, agbno, blk))
		return -1;
	uint32_t hdr = x->v5 ? 56 : 16;
	if (memcmp(blk, x->v5 ? t->magic5 : t->magic, 4) || lb_be16(blk + 4) != level)
		return lb_fail(x->b, "AG %u: block %u is not a level-%u %s block", agno, agbno,
			       level, t->name);
	if (claim(x, agno, agbno, 1, t->name, 0, 0))
		return -1;
	uint32_t n = lb_be16(blk + 6);
	if (!level) {
		if (n > (x->bs - hdr) / t->reclen)
			return lb_fail(x->b, "AG %u: %s leaf %u holds %u records", agno, t->name,
				       agbno, n);
		for (uint32_t i = 0; t->leaf && i < n; i++)
			if (t->leaf(x, agno, blk + hdr + i * t->reclen))
				return -1;
		return 0;
	}
	uint32_t max = (x->bs - hdr) / (t->keylen + 4);
	if (n > max)
		return lb_fail(x->b, "AG %u: %s node %u holds %u pointers", agno, t->name, agbno,
			       n);
	for (uint32_t i = 0; i < n; i++) {
		/* Re-read the pointer from this level's buffer: the children use the others. */
		uint32_t child = lb_be32(blk + hdr + max * t->keylen + i * 4);
		if (walk_bt(x, t, agno, child, level - 1))
			return -1;
	}
	return 0;
}

static int walk_root(struct xfs *x, const struct xbt *t, uint32_t agno, uint32_t root,
		     uint32_t levels)
{
	if (!levels || levels > XFS_MAX_LEVELS)
		return lb_fail(x->b, "AG %u: %s of %u levels", agno, t->name, levels);
	return walk_bt(x, t, agno, root, levels - 1);
}

/* One AG's headers and btrees. */
static int walk_ag(struct xfs *x, uint32_t agno)
{
	uint8_t *h = x->buf[0];
	uint64_t base = ag_byte(x, agno, 0), ss = x->sectsize;
	if (lb_add(x->b, base, ss, agno ? "superblock-backup" : "superblock", 0, 0) ||
	    lb_add(x->b, base + ss, ss, "agf", 0, 0) ||
	    lb_add(x->b, base + 2 * ss, ss, "agi", 0, 0) ||
	    lb_add(x->b, base + 3 * ss, ss, "agfl", 0, 0))
		return -1;
	/* AGF: the free-space btrees, the free list, rmap and refcount. */
	if (lb_read(x->b, base + ss, h, ss))
		return -1;
	if (memcmp(h, "XAGF", 4) || lb_be32(h + 8) != agno)
		return lb_fail(x->b, "AG %u: bad AGF (magic or sequence number)", agno);
	uint32_t bno = lb_be32(h + 16), cnt = lb_be32(h + 20), rmap = lb_be32(h + 24);
	uint32_t lbno = lb_be32(h + 28), lcnt = lb_be32(h + 32), lrmap = lb_be32(h + 36);
	uint32_t flfirst = lb_be32(h + 40), flcount = lb_be32(h + 48);
	uint32_t refc = lb_be32(h + 88), lrefc = lb_be32(h + 92);
	/* AGI: the inode btrees. */
	uint8_t agi[512];
	if (lb_read(x->b, base + 2 * ss, agi, sizeof(agi)))
		return -1;
	if (memcmp(agi, "XAGI", 4) || lb_be32(agi + 8) != agno)
		return lb_fail(x->b, "AG %u: bad AGI (magic or sequence number)", agno);
	uint32_t ino = lb_be32(agi + 20), lino = lb_be32(agi + 24);
	uint32_t fino = lb_be32(agi + 328), lfino = lb_be32(agi + 332);
	if (walk_root(x, &bt_bno, agno, bno, lbno) || walk_root(x, &bt_cnt, agno, cnt, lcnt) ||
	    walk_root(x, &bt_ino, agno, ino, lino))
		return -1;
	if (x->v5 && lfino && walk_root(x, &bt_fino, agno, fino, lfino))
		return -1;
	if (x->v5 && lrmap && walk_root(x, &bt_rmap, agno, rmap, lrmap))
		return -1;
	if (x->v5 && lrefc && walk_root(x, &bt_refc, agno, refc, lrefc))
		return -1;
	/* The free list: a ring of block numbers in the AGFL sector. */
	uint32_t hdr = x->v5 ? 36 : 0, slots = (uint32_t)(ss - hdr) / 4;
	if (flcount > slots || (flcount && flfirst >= slots))
		return lb_fail(x->b, "AG %u: free list of %u from slot %u in %u slots", agno,
			       flcount, flfirst, slots);
	if (lb_read(x->b, base + 3 * ss, h, ss))
		return -1;
	for (uint32_t i = 0; i < flcount; i++) {
		uint32_t blk = lb_be32(h + hdr + (flfirst + i) % slots * 4);
		if (blk >= ag_len(x, agno))
			return lb_fail(x->b, "AG %u: free list block %u outside the AG", agno, blk);
		if (claim(x, agno, blk, 1, "free-list", 0, 0))
			return -1;
	}
	return 0;
}

/* Claim the blocks of n packed extents (xfs_bmbt_rec: 128 bits each). */
static int claim_extents(struct xfs *x, const uint8_t *rec, uint64_t n, const char *what,
			 uint64_t ino)
{
	for (uint64_t i = 0; i < n; i++, rec += 16) {
		uint64_t l0 = lb_be64(rec), l1 = lb_be64(rec + 8);
		uint64_t fsb = (l0 & 0x1ff) << 43 | l1 >> 21, len = l1 & 0x1fffff;
		uint64_t agno = fsb >> x->agblklog, agbno = fsb & ((1ull << x->agblklog) - 1);
		if (agno >= x->agcount || agbno >= ag_len(x, (uint32_t)agno) ||
		    len > ag_len(x, (uint32_t)agno) - agbno)
			return lb_fail(x->b,
				       "inode %" PRIu64 ": extent at block %" PRIu64 "+%" PRIu64
				       " outside the filesystem",
				       ino, fsb, len);
		if (claim(x, (uint32_t)agno, (uint32_t)agbno, len, what, 0, ino))
			return -1;
	}
	return 0;
}

/* A long-form bmbt block at fsb, `level` above the leaves. */
static int walk_bmbt(struct xfs *x, uint64_t fsb, uint32_t level, const char *what, uint64_t ino)
{
	uint64_t agno = fsb >> x->agblklog, agbno = fsb & ((1ull << x->agblklog) - 1);
	if (agno >= x->agcount || level > XFS_MAX_LEVELS)
		return lb_fail(x->b, "inode %" PRIu64 ": bmbt block %" PRIu64 " outside", ino, fsb);
	uint8_t *blk = x->buf[level];
	if (read_block(x, (uint32_t)agno, (uint32_t)agbno, blk))
		return -1;
	uint32_t hdr = x->v5 ? 72 : 24;
	if (memcmp(blk, x->v5 ? "BMA3" : "BMAP", 4) || lb_be16(blk + 4) != level)
		return lb_fail(x->b,
			       "inode %" PRIu64 ": block %" PRIu64 " is not a level-%u bmbt "
			       "block",
			       ino, fsb, level);
	if (claim(x, (uint32_t)agno, (uint32_t)agbno, 1, "extent-tree", 0, ino))
		return -1;
	uint32_t n = lb_be16(blk + 6), max = (x->bs - hdr) / 16;
	if (n > max)
		return lb_fail(x->b, "inode %" PRIu64 ": bmbt block with %u records", ino, n);
	if (!level)
		return claim_extents(x, blk + hdr, n, what, ino);
	for (uint32_t i = 0; i < n; i++)
		if (walk_bmbt(x, lb_be64(blk + hdr + max * 8 + i * 8), level - 1, what, ino))
			return -1;
	return 0;
}

/* One fork of an inode: extents inline, or a bmbt root. */
static int walk_fork(struct xfs *x, const uint8_t *fork, uint32_t size, uint8_t format,
		     uint64_t nextents, const char *what, uint64_t ino)
{
	if (format == 2) { /* extents */
		if (nextents > size / 16)
			return lb_fail(x->b,
				       "inode %" PRIu64 ": %" PRIu64 " extents in a fork "
				       "of %u bytes",
				       ino, nextents, size);
		return claim_extents(x, fork, nextents, what, ino);
	}
	if (format != 3) /* local, device: nothing outside the inode */
		return 0;
	if (size < 4)
		return lb_fail(x->b, "inode %" PRIu64 ": bmbt root in %u bytes", ino, size);
	uint32_t level = lb_be16(fork), n = lb_be16(fork + 2), max = (size - 4) / 16;
	if (!level || level > XFS_MAX_LEVELS || n > max)
		return lb_fail(x->b, "inode %" PRIu64 ": bmbt root of level %u with %u pointers",
			       ino, level, n);
	for (uint32_t i = 0; i < n; i++)
		if (walk_bmbt(x, lb_be64(fork + 4 + max * 8 + i * 8), level - 1, what, ino))
			return -1;
	return 0;
}

static int walk_inode(struct xfs *x, uint32_t agno, uint32_t agino, uint8_t *in)
{
	uint64_t ino = (uint64_t)agno << (x->agblklog + x->inopblog) | agino;
	if (lb_read(x->b, ag_byte(x, agno, 0) + (uint64_t)agino * x->isize, in, x->isize))
		return -1;
	if (memcmp(in, "IN", 2) || !lb_be16(in + 2))
		return 0; /* not an inode in use: nothing to follow */
	uint16_t mode = lb_be16(in + 2);
	uint8_t version = in[4], format = in[5], forkoff = in[82], aformat = in[83];
	uint32_t core = version >= 3 ? 176 : 100;
	bool big = x->nrext64 && version >= 3 && (lb_be64(in + 120) >> 4 & 1);
	uint64_t nextents = big ? lb_be64(in + 24) : lb_be32(in + 76);
	uint64_t anextents = big ? lb_be32(in + 76) : lb_be16(in + 80);
	if (core + forkoff * 8u >= x->isize)
		return lb_fail(x->b, "inode %" PRIu64 ": fork offset %u in a %u-byte inode", ino,
			       forkoff * 8u, x->isize);
	uint32_t dsize = forkoff ? forkoff * 8u : x->isize - core;
	const char *what = lb_kind_of_mode(mode);
	if (walk_fork(x, in + core, dsize, format, nextents, what, ino))
		return -1;
	if (forkoff && walk_fork(x, in + core + dsize, x->isize - core - dsize, aformat, anextents,
				 "xattr", ino))
		return -1;
	return 0;
}

static int parse_super(struct xfs *x)
{
	uint8_t sb[512];
	if (lb_read(x->b, 0, sb, sizeof(sb)))
		return -1;
	x->bs = lb_be32(sb + 4);
	x->dblocks = lb_be64(sb + 8);
	x->agblocks = lb_be32(sb + 84);
	x->agcount = lb_be32(sb + 88);
	x->sectsize = lb_be16(sb + 102);
	x->isize = lb_be16(sb + 104);
	x->inopblock = lb_be16(sb + 106);
	x->inopblog = sb[123];
	x->agblklog = sb[124];
	x->v5 = (lb_be16(sb + 100) & 0xf) == 5;
	uint32_t incompat = x->v5 ? lb_be32(sb + 216) : 0;
	x->sparse = incompat & 0x2;
	x->nrext64 = incompat & 0x20;
	if (x->bs < 512 || x->bs > 65536 || (x->bs & (x->bs - 1)) || sb[120] >= 32 ||
	    x->bs != 1u << sb[120])
		return lb_fail(x->b, "block size %u in the superblock", x->bs);
	if (x->sectsize < 512 || x->sectsize > x->bs || (x->sectsize & (x->sectsize - 1)))
		return lb_fail(x->b, "sector size %u in the superblock", x->sectsize);
	if (!x->agcount || x->agblocks < 8 || x->agblklog > 31 ||
	    (1ull << x->agblklog) < x->agblocks || (1ull << x->agblklog) / 2 >= x->agblocks)
		return lb_fail(x->b, "AG count %u of %u blocks (log %u) in the superblock",
			       x->agcount, x->agblocks, x->agblklog);
	if (!x->dblocks || x->dblocks > (uint64_t)x->agcount * x->agblocks ||
	    x->dblocks <= (uint64_t)(x->agcount - 1) * x->agblocks)
		return lb_fail(x->b, "%" PRIu64 " blocks in %u AGs of %u", x->dblocks, x->agcount,
			       x->agblocks);
	if (x->isize < 256 || x->isize > x->bs || (x->isize & (x->isize - 1)) ||
	    x->inopblock != x->bs / x->isize || x->inopblog > 8 ||
	    (1u << x->inopblog) != x->inopblock)
		return lb_fail(x->b, "inode size %u (%u per block) in the superblock", x->isize,
			       x->inopblock);
	if (x->dblocks > x->b->size / x->bs)
		return lb_fail(x->b,
			       "%" PRIu64 " blocks of %u bytes but the image holds %" PRIu64
			       " bytes: truncated",
			       x->dblocks, x->bs, x->b->size);
	x->b->l->block_size = x->bs;
	x->b->l->inode_size = x->isize;
	/* The internal log. */
	uint64_t logstart = lb_be64(sb + 48), logblocks = lb_be32(sb + 96);
	if (logstart) {
		uint64_t agno = logstart >> x->agblklog;
		uint64_t agbno = logstart & ((1ull << x->agblklog) - 1);
		if (agno >= x->agcount || agbno >= ag_len(x, (uint32_t)agno) ||
		    logblocks > ag_len(x, (uint32_t)agno) - agbno)
			return lb_fail(x->b,
				       "log at block %" PRIu64 " (%" PRIu64 " blocks) outside",
				       logstart, logblocks);
	}
	return 0;
}

int layout_xfs(struct lb *b)
{
	struct xfs x = {.b = b};
	if (parse_super(&x))
		return -1;
	x.budget = x.dblocks + 16;
	int rc = 0;
	for (int i = 0; i < XFS_MAX_LEVELS + 2 && !rc; i++)
		if (!(x.buf[i] = malloc(x.bs)))
			rc = lb_fail(b, "out of memory");
	uint8_t sb[512];
	if (!rc)
		rc = lb_read(b, 0, sb, sizeof(sb));
	uint64_t logstart = rc ? 0 : lb_be64(sb + 48), logblocks = rc ? 0 : lb_be32(sb + 96);
	for (uint32_t a = 0; a < x.agcount && !rc; a++) {
		if (!a && logstart &&
		    (rc = claim(&x, (uint32_t)(logstart >> x.agblklog),
				(uint32_t)(logstart & ((1ull << x.agblklog) - 1)), logblocks, "log",
				0, 0)))
			break;
		rc = walk_ag(&x, a);
	}
	/* The inodes in use, then free space. */
	for (size_t i = 0; i < x.nchunks && !rc; i++) {
		const struct xchunk *c = &x.chunks[i];
		for (uint32_t k = 0; k < 64 && !rc; k++)
			if (!(c->holemask >> (k / 4) & 1) && !(c->free >> k & 1))
				rc = walk_inode(&x, c->agno, c->agino + k,
						x.buf[XFS_MAX_LEVELS + 1]);
	}
	for (size_t i = 0; i < x.nfrees && !rc; i++)
		rc = claim(&x, x.frees[i].agno, x.frees[i].agbno, x.frees[i].len, "free", 0, 0);
	for (int i = 0; i < XFS_MAX_LEVELS + 2; i++)
		free(x.buf[i]);
	free(x.chunks);
	free(x.frees);
	return rc;
}
