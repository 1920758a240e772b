/* layout_jfs.c - the layout map of jfs, from its on-disk format (Linux's
 * fs/jfs/jfs_superblock.h, jfs_filsys.h, jfs_types.h (pxd_t, dxd_t),
 * jfs_dinode.h, jfs_xtree.h, jfs_dtree.h, jfs_imap.h, jfs_dmap.h;
 * little-endian).
 *
 * jfs keeps its own metadata in files of the aggregate inode table: the
 * block map (aggregate inode 2) and the fileset's inode map (aggregate
 * inode 16) are xtree-mapped files like any other. The walk reads the
 * inode map's IAG pages for the inode extents, then every inode the IAGs
 * mark allocated, down its xtree or dtree, then the block map's dmap pages
 * for the free blocks.
 *
 * Structure names, claimed in this order (the first claim wins):
 *   superblock, aggregate-inode-map, aggregate-inode-table (unit 512),
 *   superblock-backup, aggregate-inode-table-backup (unit 512),
 *   aggregate-inode-map-backup, log, fsck-workspace   the fixed areas;
 *   block-map, inode-map, bad-blocks   the pages (and xtree pages) of the
 *                          aggregate's files: the block map, the fileset's
 *                          inode map, the bad block list;
 *   inode-table            the fileset's inode extents (unit 512);
 *   then per inode, owner = its number in the fileset:
 *   xattr                  an out-of-line extended attribute (or ACL) extent
 *   xtree                  xtree internal and leaf pages outside the inode
 *   directory              dtree pages outside the inode
 *   directory-index        a directory's index table pages (once it
 *                          outgrows the inode, an xtree maps them)
 *   data, symlink          a regular file's or long symlink's extents
 *   free                   blocks neither map of the dmap pages marks used.
 *
 * Untrusted input: every extent is checked against the image before it is
 * read or claimed, tree pages are read against a budget of the image's
 * blocks and trees end at MAXTREEHEIGHT levels, node entry counts are
 * checked against the node's slots, and the inode extents cannot outnumber
 * the blocks that would hold them. A damaged image is refused with the
 * place it broke. */
#include <inttypes.h>
#include <stdlib.h>

#include "layout_int.h"

#define JFS_PSIZE    4096 /* metadata page (PSIZE) */
#define JFS_DISIZE   512  /* on-disk inode */
#define JFS_INOSPEXT 32	  /* inodes per inode extent (INOSPEREXT) */
#define JFS_DEPTH    8	  /* MAXTREEHEIGHT: deeper trees are damaged */
#define BT_LEAF	     0x02
#define BT_INTERNAL  0x04
#define DXD_EXTENT   0x20

/* Places in the on-disk structures. */
#define DI_NUMBER    8	 /* dinode: di_number */
#define DI_MODE	     52	 /* di_mode */
#define DI_SIZE	     24	 /* di_size */
#define DI_ACL	     88	 /* di_acl, a dxd_t */
#define DI_EA	     104 /* di_ea, a dxd_t */
#define DI_NEXTINDEX 120 /* di_next_index: directories */
#define DI_DIRTABLE  128 /* di_dirtable, or the index table's xtree root */
#define DI_XTROOT    224 /* di_xtroot (files), di_dtroot (directories) */
#define IAG_WMAP     2048
#define IAG_PMAP     2560
#define IAG_INOEXT   3072
#define IAG_EXTS     128 /* EXTSPERIAG */
#define DMAP_WMAP    2048
#define DMAP_PMAP    3072
#define DMAP_BLOCKS  8192 /* BPERDMAP */

/* An extent of a file: logical block, aggregate block, blocks. */
struct jfs_ext {
	uint64_t off, addr, len;
};

struct jfs_exts {
	struct jfs_ext *e;
	size_t n, cap;
};

/* An inode extent of the fileset and its allocation bits (wmap | pmap). */
struct jfs_iext {
	uint64_t addr;
	uint32_t first_ino, used;
};

struct jfs {
	struct lb *b;
	uint32_t bs, l2nbperpage;
	uint64_t blocks;	    /* aggregate blocks in the image */
	uint64_t budget;	    /* tree pages the walk may still read */
	uint8_t (*page)[JFS_PSIZE]; /* one buffer per tree level */
	struct jfs_exts bmap, imap; /* the block map's and inode map's extents */
	struct jfs_iext *iext;	    /* the fileset's inode extents */
	size_t niext, iext_cap;
};

/* What a walk of one xtree names, and where it keeps the leaf extents. */
struct xt_walk {
	const char *node; /* pages of the tree outside the inode */
	const char *leaf; /* what the leaves point to */
	uint64_t owner;
	struct jfs_exts *keep; /* the leaf extents, in key order, or NULL */
};

/* jfs: a pxd_t, 24 bits of length and 40 of address, in aggregate blocks. */
static void pxd(const uint8_t *p, uint64_t *addr, uint64_t *len)
{
	uint32_t w = lb_le32(p);
	*len = w & 0xffffff;
	*addr = (uint64_t)(w >> 24) << 32 | lb_le32(p + 4);
}

static bool extent_ok(const struct jfs *j, uint64_t addr, uint64_t len)
{
	return len && addr && addr < j->blocks && len <= j->blocks - addr;
}

static int keep_ext(struct jfs *j, struct jfs_exts *x, uint64_t off, uint64_t addr, uint64_t len)
{
	/* Lookups bisect: a key out of order is a damaged tree. */
	if (x->n && off < x->e[x->n - 1].off + x->e[x->n - 1].len)
		return lb_fail(j->b, "xtree keys out of order at logical block %" PRIu64, off);
	if (x->n == x->cap) {
		size_t cap = x->cap ? 2 * x->cap : 16;
		struct jfs_ext *e = cap > j->blocks + 16 ? NULL : realloc(x->e, cap * sizeof(*e));
		if (!e)
			return lb_fail(j->b, "out of memory (or more extents than blocks)");
		x->e = e;
		x->cap = cap;
	}
	x->e[x->n++] = (struct jfs_ext){off, addr, len};
	return 0;
}

/* The aggregate block holding logical block `off` of a file, or 0. */
static uint64_t ext_lookup(const struct jfs_exts *x, uint64_t off)
{
	size_t lo = 0, hi = x->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (off < x->e[mid].off)
			hi = mid;
		else if (off - x->e[mid].off >= x->e[mid].len)
			lo = mid + 1;
		else
			return x->e[mid].addr + (off - x->e[mid].off);
	}
	return 0;
}

/* Read one tree page of `len` blocks at `addr` into the level's buffer,
 * against the budget, and claim it as `what`. */
static int tree_page(struct jfs *j, uint64_t addr, uint64_t len, int depth, const char *what,
		     uint64_t owner)
{
	if (depth > JFS_DEPTH)
		return lb_fail(j->b, "a tree deeper than %d levels", JFS_DEPTH);
	if (!extent_ok(j, addr, len) || len * j->bs > JFS_PSIZE)
		return lb_fail(j->b,
			       "inode %" PRIu64 ": %s page at block %" PRIu64 " (%" PRIu64
			       " blocks) outside the filesystem",
			       owner, what, addr, len);
	if (!j->budget--)
		return lb_fail(j->b, "more tree pages than blocks: looping trees");
	if (lb_read(j->b, addr * j->bs, j->page[depth], len * j->bs))
		return -1;
	return lb_add(j->b, addr * j->bs, len * j->bs, what, 0, owner);
}

/* One xtree node (the root in the inode, or a page): its xads from
 * XTENTRYSTART to nextindex, leaves named, children followed. */
static int xt_node(struct jfs *j, const struct xt_walk *w, const uint8_t *p, uint32_t slots,
		   int depth)
{
	uint8_t flag = p[16];
	uint16_t next = lb_le16(p + 18), max = lb_le16(p + 20);
	bool leaf = flag & BT_LEAF, internal = flag & BT_INTERNAL;
	if (leaf == internal || max > slots || next > max || next < 2)
		return lb_fail(
		    j->b, "inode %" PRIu64 ": xtree node flag %#x, %u of %u entries (at most %u)",
		    w->owner, flag, next, max, slots);
	for (uint16_t i = 2; i < next; i++) {
		const uint8_t *xad = p + 16 * i;
		uint64_t off = (uint64_t)xad[3] << 32 | lb_le32(xad + 4), addr, len;
		pxd(xad + 8, &addr, &len);
		int rc;
		if (internal) {
			rc = tree_page(j, addr, JFS_PSIZE / j->bs, depth + 1, w->node, w->owner);
			if (!rc)
				rc = xt_node(j, w, j->page[depth + 1], 256, depth + 1);
		} else if (!extent_ok(j, addr, len)) {
			rc = lb_fail(j->b,
				     "inode %" PRIu64 ": extent at block %" PRIu64 " (%" PRIu64
				     " blocks) outside the filesystem",
				     w->owner, addr, len);
		} else {
			rc = lb_add(j->b, addr * j->bs, len * j->bs, w->leaf, 0, w->owner);
			if (!rc && w->keep)
				rc = keep_ext(j, w->keep, off, addr, len);
		}
		if (rc)
			return rc;
	}
	return 0;
}

/* One dtree node: internal nodes' entries lead to child pages; leaves
 * hold only names. `stbl` lists the `n` entries' slots. */
static int dt_node(struct jfs *j, uint64_t ino, const uint8_t *p, const uint8_t *stbl, uint32_t n,
		   uint32_t slots, int depth)
{
	if (!(p[16] & BT_INTERNAL))
		return 0;
	for (uint32_t i = 0; i < n; i++) {
		int8_t s = (int8_t)stbl[i];
		if (s < 1 || (uint32_t)s >= slots)
			return lb_fail(j->b, "directory %" PRIu64 ": dtree entry in slot %d of %u",
				       ino, s, slots);
		uint64_t addr, len;
		pxd(p + 32 * s, &addr, &len);
		if (tree_page(j, addr, len, depth + 1, "directory", ino))
			return -1;
		const uint8_t *c = j->page[depth + 1];
		uint32_t maxslot = c[20], stblindex = c[21], cn = c[17];
		if (maxslot * 32u > len * j->bs || stblindex >= maxslot ||
		    stblindex * 32u + cn > maxslot * 32u)
			return lb_fail(j->b,
				       "directory %" PRIu64 ": dtree page at block %" PRIu64
				       " with %u slots, table at %u of %u entries",
				       ino, addr, maxslot, stblindex, cn);
		if (dt_node(j, ino, c, c + 32 * stblindex, cn, maxslot, depth + 1))
			return -1;
	}
	return 0;
}

/* An out-of-line extended attribute (or ACL): a dxd_t with DXD_EXTENT. */
static int inode_dxd(struct jfs *j, uint64_t ino, const uint8_t *dxd)
{
	if (!(dxd[0] & DXD_EXTENT))
		return 0;
	uint64_t addr, len;
	pxd(dxd + 8, &addr, &len);
	if (!extent_ok(j, addr, len))
		return lb_fail(j->b,
			       "inode %" PRIu64 ": xattr at block %" PRIu64 " (%" PRIu64
			       " blocks) outside the filesystem",
			       ino, addr, len);
	return lb_add(j->b, addr * j->bs, len * j->bs, "xattr", 0, ino);
}

/* One fileset inode in use: its xattrs, then its tree. */
static int inode_walk(struct jfs *j, uint64_t ino, const uint8_t *di)
{
	uint32_t type = lb_le32(di + DI_MODE) & 0170000;
	if (type != 0100000 && type != 0040000 && type != 0120000)
		return 0; /* devices, fifos, sockets, unused: no blocks */
	if (inode_dxd(j, ino, di + DI_EA) || inode_dxd(j, ino, di + DI_ACL))
		return -1;
	if (type == 0040000) {
		/* The index table outgrew the inode: an xtree root overlays it
		 * (jfs_dirtable_inline: next_index > MAX_INLINE_DIRTABLE_ENTRY + 1). */
		struct xt_walk index = {"xtree", "directory-index", ino, NULL};
		if (lb_le32(di + DI_NEXTINDEX) > 14 &&
		    xt_node(j, &index, di + DI_DIRTABLE, 6, 0)) /* XTROOTINITSLOT_DIR */
			return -1;
		const uint8_t *root = di + DI_XTROOT;
		return root[17] > 8
			   ? lb_fail(j->b, "directory %" PRIu64 ": %u root entries", ino, root[17])
			   : dt_node(j, ino, root, root + 24, root[17], 9, 0);
	}
	/* A symlink shorter than IDATASIZE lives in the inode, where the root was. */
	if (type == 0120000 && lb_le64(di + DI_SIZE) < 256)
		return 0;
	struct xt_walk file = {"xtree", lb_kind_of_mode(type), ino, NULL};
	return xt_node(j, &file, di + DI_XTROOT, 18, 0); /* XTROOTMAXSLOT */
}

/* Walk the files of the aggregate inode table that hold metadata. */
static int aggregate_files(struct jfs *j)
{
	const struct {
		uint32_t ino;
		const char *what;
		struct jfs_exts *keep;
	} files[] = {
	    {2, "block-map", &j->bmap}, {16, "inode-map", &j->imap}, {4, "bad-blocks", NULL}};
	uint8_t di[JFS_DISIZE];
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		struct xt_walk w = {files[i].what, files[i].what, 0, files[i].keep};
		if (lb_read(j->b, 0xb000 + (uint64_t)files[i].ino * JFS_DISIZE, di, sizeof(di)))
			return -1;
		if (lb_le32(di + DI_NUMBER) != files[i].ino)
			return lb_fail(j->b, "aggregate inode %u says it is inode %u", files[i].ino,
				       lb_le32(di + DI_NUMBER));
		if (xt_node(j, &w, di + DI_XTROOT, 18, 0))
			return -1;
	}
	return 0;
}

/* Read the page at logical block `lblk` of a map file into buf. */
static int map_page(struct jfs *j, const struct jfs_exts *x, uint64_t lblk, uint8_t *buf,
		    const char *what)
{
	uint64_t addr = ext_lookup(x, lblk);
	if (!addr || addr + JFS_PSIZE / j->bs > j->blocks)
		return lb_fail(j->b, "%s: logical block %" PRIu64 " not mapped", what, lblk);
	return lb_read(j->b, addr * j->bs, buf, JFS_PSIZE);
}

static int keep_iext(struct jfs *j, uint64_t addr, uint32_t first_ino, uint32_t used)
{
	/* Inode extents cannot outnumber the blocks that would hold them. */
	if (j->niext >= j->blocks / (JFS_INOSPEXT * JFS_DISIZE / j->bs))
		return lb_fail(j->b, "more inode extents than the filesystem holds");
	if (j->niext == j->iext_cap) {
		size_t cap = j->iext_cap ? 2 * j->iext_cap : 16;
		struct jfs_iext *e = realloc(j->iext, cap * sizeof(*e));
		if (!e)
			return lb_fail(j->b, "out of memory");
		j->iext = e;
		j->iext_cap = cap;
	}
	j->iext[j->niext++] = (struct jfs_iext){addr, first_ino, used};
	return 0;
}

/* The fileset's inode extents, from each IAG's inoext[], named
 * inode-table, and kept with their allocation bits for the inode walk. */
static int inode_extents(struct jfs *j)
{
	uint8_t *pg = j->page[0];
	if (map_page(j, &j->imap, 0, pg, "inode map"))
		return -1;
	uint32_t iags = lb_le32(pg + 4); /* in_nextiag */
	uint64_t iext_blocks = JFS_INOSPEXT * JFS_DISIZE / j->bs;
	if (iags > (1u << 20) - 1 || iags > j->blocks)
		return lb_fail(j->b, "%u IAGs in the inode map", iags);
	for (uint32_t iag = 0; iag < iags; iag++) {
		if (map_page(j, &j->imap, (uint64_t)(iag + 1) << j->l2nbperpage, pg, "inode map"))
			return -1;
		for (uint32_t e = 0; e < IAG_EXTS; e++) {
			uint64_t addr, len;
			pxd(pg + IAG_INOEXT + 8 * e, &addr, &len);
			if (!addr)
				continue; /* no extent: diFree clears it */
			if (len != iext_blocks || !extent_ok(j, addr, len))
				return lb_fail(j->b,
					       "IAG %u: inode extent at block %" PRIu64 " (%" PRIu64
					       " blocks)",
					       iag, addr, len);
			uint32_t used =
			    lb_le32(pg + IAG_WMAP + 4 * e) | lb_le32(pg + IAG_PMAP + 4 * e);
			if (lb_add(j->b, addr * j->bs, len * j->bs, "inode-table", JFS_DISIZE, 0) ||
			    keep_iext(j, addr, iag * 4096 + e * JFS_INOSPEXT, used))
				return -1;
		}
	}
	return 0;
}

static int fileset_inodes(struct jfs *j)
{
	uint8_t di[JFS_DISIZE];
	for (size_t x = 0; x < j->niext; x++) {
		for (uint32_t i = 0; i < JFS_INOSPEXT; i++) {
			if (!(j->iext[x].used & 0x80000000u >> i))
				continue;
			uint32_t ino = j->iext[x].first_ino + i;
			if (lb_read(j->b, j->iext[x].addr * j->bs + (uint64_t)i * JFS_DISIZE, di,
				    sizeof(di)))
				return -1;
			/* An extent whose inodes were never written says nothing. */
			if (lb_le32(di + DI_NUMBER) != ino)
				continue;
			if (inode_walk(j, ino, di))
				return -1;
		}
	}
	return 0;
}

/* Logical block of dmap `d` in the block map file (BLKTODMAP). */
static uint64_t dmap_lblk(uint64_t d, uint32_t l2nbperpage)
{
	uint64_t b = d << 13;
	return ((b >> 13) + (b >> 23) + (b >> 33) + 3 + 1) << l2nbperpage;
}

/* Free blocks: those neither the working nor the persistent map of the
 * dmap pages marks allocated. */
static int free_blocks(struct jfs *j)
{
	uint8_t *pg = j->page[0];
	if (map_page(j, &j->bmap, 0, pg, "block map"))
		return -1;
	uint64_t mapsize = lb_le64(pg); /* dn_mapsize */
	if (mapsize > j->blocks)
		mapsize = j->blocks; /* the image ends the map */
	for (uint64_t d = 0; d * DMAP_BLOCKS < mapsize; d++) {
		if (map_page(j, &j->bmap, dmap_lblk(d, j->l2nbperpage), pg, "block map"))
			return -1;
		uint32_t n = lb_le32(pg);
		uint64_t start = lb_le64(pg + 8);
		if (start != d * DMAP_BLOCKS || n > DMAP_BLOCKS)
			return lb_fail(j->b,
				       "dmap %" PRIu64 " starts at block %" PRIu64 ", %u blocks", d,
				       start, n);
		uint64_t run = 0;
		for (uint32_t k = 0; k <= n; k++) {
			uint32_t bit = 0x80000000u >> (k & 31);
			bool is_free = k < n && start + k < mapsize &&
				       !((lb_le32(pg + DMAP_WMAP + 4 * (k >> 5)) |
					  lb_le32(pg + DMAP_PMAP + 4 * (k >> 5))) &
					 bit);
			if (is_free) {
				run++;
				continue;
			}
			if (run &&
			    lb_add(j->b, (start + k - run) * j->bs, run * j->bs, "free", 0, 0))
				return -1;
			run = 0;
		}
	}
	return 0;
}

/* The fixed places (jfs_filsys.h): SUPER1_OFF, AIMAP_OFF, AITBL_OFF,
 * SUPER2_OFF, then the superblock's pxds. */
static int fixed_areas(struct lb *b, const uint8_t *sb, uint32_t bs)
{
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

/* Read and check the superblock (into sb) and set up j: 0, or -1 with
 * b->err. jfs_close frees what it holds either way. */
static int jfs_open(struct lb *b, struct jfs *j, uint8_t sb[256])
{
	*j = (struct jfs){.b = b};
	if (lb_read(b, 0x8000, sb, 256))
		return -1;
	uint64_t size = lb_le64(sb + 8); /* in physical blocks */
	uint32_t bs = lb_le32(sb + 16), pbs = lb_le32(sb + 24);
	if (bs < 512 || bs > JFS_PSIZE || (bs & (bs - 1)) || pbs < 512 || pbs > bs ||
	    (pbs & (pbs - 1)))
		return lb_fail(b, "block size %u, physical block size %u in the superblock", bs,
			       pbs);
	if (size > b->size / pbs)
		return lb_fail(b,
			       "%" PRIu64 " blocks of %u bytes but the image holds %" PRIu64
			       " bytes: truncated",
			       size, pbs, b->size);
	j->bs = bs;
	j->blocks = b->size / bs;
	while ((JFS_PSIZE / bs) >> (j->l2nbperpage + 1))
		j->l2nbperpage++;
	j->budget = j->blocks + 64;
	j->page = malloc((JFS_DEPTH + 1) * sizeof(*j->page));
	return j->page ? 0 : lb_fail(b, "out of memory");
}

static void jfs_close(struct jfs *j)
{
	free(j->page);
	free(j->bmap.e);
	free(j->imap.e);
	free(j->iext);
}

int layout_jfs_inode(struct lb *b, uint32_t ino, uint8_t di[512])
{
	struct jfs j;
	uint8_t sb[256];
	int rc = jfs_open(b, &j, sb);
	if (!rc)
		rc = aggregate_files(&j);
	uint8_t *pg = j.page ? j.page[0] : NULL;
	/* The inode's IAG (4096 inodes each, a page after the control page),
	 * its inode extent, its slot. */
	if (!rc)
		rc = map_page(&j, &j.imap, (uint64_t)(ino / 4096 + 1) << j.l2nbperpage, pg,
			      "inode map");
	uint64_t addr = 0, len = 0;
	if (!rc)
		pxd(pg + IAG_INOEXT + 8 * (ino % 4096 / JFS_INOSPEXT), &addr, &len);
	if (!rc && (len != JFS_INOSPEXT * JFS_DISIZE / j.bs || !extent_ok(&j, addr, len)))
		rc = lb_fail(b, "inode %u: inode extent at block %" PRIu64 " (%" PRIu64 " blocks)",
			     ino, addr, len);
	if (!rc)
		rc = lb_read(b, addr * j.bs + (uint64_t)(ino % JFS_INOSPEXT) * JFS_DISIZE, di,
			     JFS_DISIZE);
	if (!rc && lb_le32(di + DI_NUMBER) != ino)
		rc = lb_fail(b, "inode %u says it is inode %u", ino, lb_le32(di + DI_NUMBER));
	jfs_close(&j);
	return rc;
}

int layout_jfs(struct lb *b)
{
	struct jfs j;
	uint8_t sb[256];
	int rc = jfs_open(b, &j, sb);
	if (!rc) {
		b->l->block_size = j.bs;
		b->l->inode_size = JFS_DISIZE;
		rc = fixed_areas(b, sb, j.bs);
	}
	if (!rc)
		rc = aggregate_files(&j);
	if (!rc)
		rc = inode_extents(&j);
	if (!rc)
		rc = fileset_inodes(&j);
	if (!rc)
		rc = free_blocks(&j);
	jfs_close(&j);
	return rc;
}
