/* layout_udf.c - the layout map of udf, from ECMA-167 and OSTA UDF 2.01 as
 * Linux reads them (fs/udf/ecma_167.h for the descriptors, osta_udf.h,
 * super.c for the mount, inode.c and directory.c for files; little-endian).
 *
 * udf has no superblock at a fixed byte: a reader finds the Anchor Volume
 * Descriptor Pointer at block 256 (super.c: udf_find_anchor, trying block
 * sizes 512 to 4096), follows it to the Volume Descriptor Sequence (the
 * Partition and Logical Volume Descriptors), and from the Logical Volume
 * Descriptor to the File Set Descriptor and the root directory's ICB. The
 * anchor at 256 is what this map calls the superblock. The File Set
 * Descriptor also names a system stream directory (UDF 2.01 3.3.4), and an
 * EFE a stream directory of its own: walked as directories. Linux numbers an
 * inode by the physical block of its file entry (ialloc.c, inode.c:
 * udf_get_lb_pblock), and so does the map's owner.
 *
 * Structure names, claimed in this order (the first claim wins):
 *   superblock             the anchor at block 256 (anchorVolDescPtr);
 *   superblock-backup      the anchors at the last block and 256 before it;
 *   volume-recognition     BEA01, NSR02/03, TEA01 from byte 32768;
 *   volume-descriptors     the main Volume Descriptor Sequence extent;
 *   volume-descriptors-backup  the reserve sequence;
 *   integrity              the Logical Volume Integrity Descriptor extent;
 *   partition-bitmap       the partition's unallocated space bitmap;
 *   file-set               the File Set Descriptor extent;
 *   then per file, owner = its inode number (the file entry's block):
 *   file-entry             its (Extended) File Entry, unit = a block;
 *   allocation-extent      an Allocation Extent Descriptor block (the
 *                          allocation descriptors outgrew the entry);
 *   xattr                  an extended attribute ICB;
 *   directory, data, symlink  the extents of its allocation descriptors;
 *   free                   blocks the space bitmap marks unallocated.
 *
 * Untrusted input: descriptors are taken only with their tag's checksum,
 * identifier and location right; extents are checked against their
 * partition and the image; allocation descriptors are read against a
 * budget of the image's blocks; the directory walk is a queue of file
 * entries each visited once (no recursion); a directory is read whole up
 * to a cap. A damaged image is refused with the place it broke. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "layout_int.h"

/* Tag identifiers (ecma_167.h: TAG_IDENT_*). */
#define TAG_AVDP 0x0002
#define TAG_VDP	 0x0003
#define TAG_PD	 0x0005
#define TAG_LVD	 0x0006
#define TAG_TD	 0x0008
#define TAG_FSD	 0x0100
#define TAG_FID	 0x0101
#define TAG_AED	 0x0102
#define TAG_FE	 0x0105
#define TAG_SBD	 0x0108
#define TAG_EFE	 0x010a

#define UDF_MAXBS    4096
#define UDF_MAXPARTS 8		 /* partition maps and descriptors kept */
#define UDF_VDS_MAX  256	 /* blocks of one descriptor sequence read */
#define UDF_VDP_MAX  64		 /* super.c: UDF_MAX_TD_NESTING */
#define UDF_DIR_MAX  (16u << 20) /* bytes of one directory read whole */
#define UDF_EXT_MASK 0x3fffffffu
#define FID_PARENT   0x08
#define FID_DELETED  0x04

struct udf_part {
	bool used;
	uint16_t number; /* partitionNumber */
	uint32_t vdsn;
	uint64_t start, len; /* partitionStartingLocation, partitionLength */
	uint64_t bitmap_len; /* the unallocated space bitmap's short_ad */
	uint32_t bitmap_pos;
};

/* One extent of a file, as the allocation descriptors give it. */
struct udf_ext {
	uint64_t pblock; /* 0 for a hole */
	uint32_t bytes;
};

struct udf_exts {
	struct udf_ext *e;
	size_t n, cap;
};

/* A file entry to visit: its ICB's lb_addr. */
struct udf_icb {
	uint32_t lbn;
	uint16_t pref;
};

struct udf {
	struct lb *b;
	uint32_t bs;
	uint64_t blocks; /* of the image */
	struct udf_part pd[UDF_MAXPARTS];
	uint8_t lvd[UDF_MAXBS];
	uint32_t lvd_vdsn;
	bool have_lvd;
	/* Partition reference -> pd[] index (type 1 maps), or -1. */
	int map[UDF_MAXPARTS];
	uint32_t nmaps;
	uint64_t budget; /* allocation descriptors and blocks still to read */
	uint8_t *seen;	 /* a bit per image block: file entries queued */
	struct udf_icb *q;
	size_t qn, qcap;
	uint8_t fe[UDF_MAXBS], aed[UDF_MAXBS];
};

/* A descriptor tag (ecma_167.h: struct tag): checksum over its 16 bytes
 * but byte 4, the identifier, and tagLocation, the block it says it is in
 * (partition-relative for file structures). */
static bool tag_ok(const uint8_t *p, uint16_t ident, uint32_t loc)
{
	uint8_t sum = 0;
	for (int i = 0; i < 16; i++)
		if (i != 4)
			sum += p[i];
	return sum == p[4] && lb_le16(p) == ident && lb_le32(p + 12) == loc;
}

static uint64_t blocks_of(const struct udf *u, uint64_t bytes)
{
	return (bytes + u->bs - 1) / u->bs;
}

/* Claim an extent of whole blocks at physical block `at`, checked against
 * the image. */
static int claim(struct udf *u, uint64_t at, uint64_t bytes, const char *what, uint32_t unit,
		 uint64_t owner)
{
	uint64_t n = blocks_of(u, bytes);
	if (at >= u->blocks || n > u->blocks - at)
		return lb_fail(u->b,
			       "%s at block %" PRIu64 " (%" PRIu64 " blocks) outside the image",
			       what, at, n);
	return lb_add(u->b, at * u->bs, n * u->bs, what, unit, owner);
}

/* The anchor: the block size is the one whose block 256 holds an AVDP
 * that says it is at 256 (super.c: udf_find_anchor, udf_check_anchor_block). */
static int find_anchor(struct udf *u, uint8_t avdp[32])
{
	for (uint32_t bs = 512; bs <= UDF_MAXBS; bs *= 2) {
		if ((uint64_t)bs * 257 > u->b->size)
			break;
		if (lb_read(u->b, 256ull * bs, avdp, 32))
			return -1;
		if (tag_ok(avdp, TAG_AVDP, 256)) {
			u->bs = bs;
			u->blocks = u->b->size / bs;
			return 0;
		}
	}
	return lb_fail(u->b, "no anchor volume descriptor at block 256 (block size 512 to 4096)");
}

/* A Partition Descriptor (ecma_167.h: struct partitionDesc): kept by
 * partitionNumber, the highest volDescSeqNum winning. */
static int keep_pd(struct udf *u, const uint8_t *d)
{
	uint16_t num = lb_le16(d + 22);
	uint32_t vdsn = lb_le32(d + 16);
	struct udf_part *free_slot = NULL;
	for (int i = 0; i < UDF_MAXPARTS; i++) {
		struct udf_part *p = &u->pd[i];
		if (!p->used) {
			free_slot = free_slot ? free_slot : p;
			continue;
		}
		if (p->number != num)
			continue;
		if (vdsn < p->vdsn)
			return 0;
		free_slot = p;
		break;
	}
	if (!free_slot)
		return lb_fail(u->b, "more than %d partition descriptors", UDF_MAXPARTS);
	/* partitionContentsUse holds a partitionHeaderDesc: its
	 * unallocSpaceBitmap short_ad is at 8. */
	*free_slot = (struct udf_part){true,
				       num,
				       vdsn,
				       lb_le32(d + 188),
				       lb_le32(d + 192),
				       lb_le32(d + 56 + 8) & UDF_EXT_MASK,
				       lb_le32(d + 56 + 12)};
	return 0;
}

/* One Volume Descriptor Sequence from block loc, `bytes` long, claimed as
 * `what`: its PDs and LVD kept, a VDP followed (super.c:
 * udf_process_sequence), a TD or a block that is no descriptor ends it. */
static int read_vds(struct udf *u, uint64_t loc, uint64_t bytes, const char *what)
{
	uint8_t *d = u->fe;
	for (int hops = 0; hops < UDF_VDP_MAX; hops++) {
		uint64_t n = blocks_of(u, bytes);
		if (n > UDF_VDS_MAX)
			n = UDF_VDS_MAX;
		if (!n)
			return 0;
		if (claim(u, loc, n * u->bs, what, 0, 0))
			return -1;
		uint64_t next = 0, next_bytes = 0;
		for (uint64_t i = 0; i < n; i++) {
			if (lb_read(u->b, (loc + i) * u->bs, d, u->bs))
				return -1;
			uint16_t id = lb_le16(d);
			if (!tag_ok(d, id, (uint32_t)(loc + i)) || id == TAG_TD)
				break;
			if (id == TAG_PD && keep_pd(u, d))
				return -1;
			if (id == TAG_LVD && (!u->have_lvd || lb_le32(d + 16) >= u->lvd_vdsn)) {
				memcpy(u->lvd, d, u->bs);
				u->lvd_vdsn = lb_le32(d + 16);
				u->have_lvd = true;
			}
			if (id == TAG_VDP) {
				next_bytes = lb_le32(d + 20);
				next = lb_le32(d + 24);
				break;
			}
		}
		if (!next_bytes)
			return 0;
		loc = next;
		bytes = next_bytes;
	}
	return lb_fail(u->b, "more than %d volume descriptor pointers", UDF_VDP_MAX);
}

/* The Logical Volume Descriptor's partition maps (ecma_167.h: struct
 * logicalVolDesc, genericPartitionMap1): each type 1 map to its PD. */
static int read_maps(struct udf *u)
{
	const uint8_t *l = u->lvd;
	uint32_t bs = lb_le32(l + 212), mtl = lb_le32(l + 264), nmaps = lb_le32(l + 268);
	if (bs != u->bs)
		return lb_fail(u->b, "logical block size %u, but the anchor is in blocks of %u", bs,
			       u->bs);
	if (mtl > u->bs - 440 || nmaps > UDF_MAXPARTS)
		return lb_fail(u->b, "%u partition maps in %u bytes", nmaps, mtl);
	uint32_t off = 0;
	for (uint32_t i = 0; i < nmaps; i++) {
		if (off + 2 > mtl || l[440 + off + 1] < 2 || off + l[440 + off + 1] > mtl)
			return lb_fail(u->b, "partition map %u overruns the map table", i);
		const uint8_t *m = l + 440 + off;
		u->map[i] = -1;
		for (int k = 0; m[0] == 1 && m[1] == 6 && k < UDF_MAXPARTS; k++)
			if (u->pd[k].used && u->pd[k].number == lb_le16(m + 4))
				u->map[i] = k;
		off += m[1];
	}
	u->nmaps = nmaps;
	for (int k = 0; k < UDF_MAXPARTS; k++) {
		const struct udf_part *p = &u->pd[k];
		if (p->used && (p->start > u->blocks || p->len > u->blocks - p->start))
			return lb_fail(u->b,
				       "partition %u at block %" PRIu64 " (%" PRIu64
				       " blocks) outside the image",
				       p->number, p->start, p->len);
	}
	return 0;
}

/* The physical block of partition block lbn of partition reference pref,
 * with n blocks from it inside the partition (partition.c:
 * udf_get_pblock for a type 1 map): 0, or -1 with b->err. */
static int pblock(struct udf *u, uint16_t pref, uint32_t lbn, uint64_t n, uint64_t *out)
{
	if (pref >= u->nmaps || u->map[pref] < 0)
		return lb_fail(u->b, "partition reference %u: no type 1 partition map", pref);
	const struct udf_part *p = &u->pd[u->map[pref]];
	if (lbn >= p->len || n > p->len - lbn)
		return lb_fail(u->b, "block %u (%" PRIu64 " blocks) outside partition %u", lbn, n,
			       p->number);
	*out = p->start + lbn;
	return 0;
}

/* Anchor, descriptor sequences, maps; the fixed structures claimed. */
static int udf_open(struct lb *b, struct udf *u)
{
	memset(u, 0, sizeof(*u));
	u->b = b;
	uint8_t avdp[32];
	if (find_anchor(u, avdp) || claim(u, 256, u->bs, "superblock", 0, 0))
		return -1;
	/* The backup anchors at the last block and 256 before it (super.c:
	 * udf_scan_anchors, lastblock - 256 and lastblock). */
	uint64_t backups[2] = {u->blocks - 1 - 256, u->blocks - 1};
	uint8_t t[16];
	for (int i = 0; i < 2; i++) {
		if (backups[i] <= 256 || lb_read(b, backups[i] * u->bs, t, sizeof(t)))
			continue;
		if (tag_ok(t, TAG_AVDP, (uint32_t)backups[i]) &&
		    claim(u, backups[i], u->bs, "superblock-backup", 0, 0))
			return -1;
	}
	/* The volume recognition sequence (ecma_167.h: struct volStructDesc),
	 * 2048 bytes a descriptor or a block when blocks are larger. */
	uint32_t step = u->bs > 2048 ? u->bs : 2048;
	for (uint64_t at = 32768; at < 32768 + 64ull * step && at + 7 <= b->size; at += step) {
		uint8_t vsd[7];
		if (lb_read(b, at, vsd, sizeof(vsd)))
			return -1;
		if (memcmp(vsd + 1, "BEA01", 5) && memcmp(vsd + 1, "NSR0", 4) &&
		    memcmp(vsd + 1, "TEA01", 5) && memcmp(vsd + 1, "CD001", 5) &&
		    memcmp(vsd + 1, "BOOT2", 5) && memcmp(vsd + 1, "CDW02", 5))
			break;
		if (lb_add(b, at, step, "volume-recognition", 0, 0))
			return -1;
		if (!memcmp(vsd + 1, "TEA01", 5))
			break;
	}
	/* anchorVolDescPtr: mainVolDescSeqExt, reserveVolDescSeqExt. */
	if (read_vds(u, lb_le32(avdp + 20), lb_le32(avdp + 16), "volume-descriptors") ||
	    read_vds(u, lb_le32(avdp + 28), lb_le32(avdp + 24), "volume-descriptors-backup"))
		return -1;
	if (!u->have_lvd)
		return lb_fail(b, "no logical volume descriptor in the descriptor sequences");
	if (read_maps(u))
		return -1;
	u->budget = 4 * u->blocks + 64;
	return 0;
}

/* The free blocks: the unallocated space bitmap of each partition
 * (ecma_167.h: struct spaceBitmapDesc; a set bit is a free block,
 * balloc.c). */
static int free_space(struct udf *u, const struct udf_part *p)
{
	if (!p->bitmap_len)
		return 0;
	uint64_t at;
	uint64_t n = blocks_of(u, p->bitmap_len);
	if (p->bitmap_pos >= p->len || n > p->len - p->bitmap_pos)
		return lb_fail(u->b, "space bitmap at block %u outside partition %u", p->bitmap_pos,
			       p->number);
	at = p->start + p->bitmap_pos;
	if (claim(u, at, p->bitmap_len, "partition-bitmap", 0, 0))
		return -1;
	uint8_t *sbd = malloc(n * u->bs);
	if (!sbd)
		return lb_fail(u->b, "out of memory");
	int rc = lb_read(u->b, at * u->bs, sbd, n * u->bs);
	uint64_t bits = rc ? 0 : lb_le32(sbd + 16), bytes = rc ? 0 : lb_le32(sbd + 20);
	if (!rc && (!tag_ok(sbd, TAG_SBD, p->bitmap_pos) || bits > p->len ||
		    bytes < (bits + 7) / 8 || bytes > n * u->bs - 24))
		rc = lb_fail(u->b,
			     "space bitmap of partition %u: %" PRIu64 " bits in %" PRIu64
			     " bytes, or a bad tag",
			     p->number, bits, bytes);
	uint64_t run = 0;
	for (uint64_t k = 0; !rc && k <= bits; k++) {
		if (k < bits && (sbd[24 + k / 8] >> (k % 8) & 1)) {
			run++;
			continue;
		}
		if (run)
			rc = claim(u, p->start + k - run, run * u->bs, "free", 0, 0);
		run = 0;
	}
	free(sbd);
	return rc;
}

static int keep_ext(struct udf *u, struct udf_exts *x, uint64_t pb, uint32_t bytes)
{
	if (x->n == x->cap) {
		size_t cap = x->cap ? 2 * x->cap : 16;
		struct udf_ext *e = realloc(x->e, cap * sizeof(*e));
		if (!e)
			return lb_fail(u->b, "out of memory");
		x->e = e;
		x->cap = cap;
	}
	x->e[x->n++] = (struct udf_ext){pb, bytes};
	return 0;
}

/* One allocation descriptor at p of type adtype (inode.c: udf_current_aext):
 * short_ad (len, position; in the ICB's partition), long_ad (len, lb_addr)
 * or ext_ad (len, recorded, info, lb_addr), of 8, 16 and 20 bytes. 0, or
 * -1 for an unknown type. */
static int parse_ad(const uint8_t *p, int adtype, uint16_t icb_pref, uint32_t *len, uint32_t *lbn,
		    uint16_t *pref)
{
	switch (adtype) {
	case 0: *len = lb_le32(p), *lbn = lb_le32(p + 4), *pref = icb_pref; return 0;
	case 1: *len = lb_le32(p), *lbn = lb_le32(p + 4), *pref = lb_le16(p + 8); return 0;
	case 2: *len = lb_le32(p), *lbn = lb_le32(p + 12), *pref = lb_le16(p + 16); return 0;
	default: return -1;
	}
}

/* The allocation descriptors of file `ino` (in area, len bytes, then in
 * each Allocation Extent Descriptor they continue into): every extent
 * claimed as `what`, and kept in x (holes too, as pblock 0) when x. */
static int walk_ads(struct udf *u, uint64_t ino, uint16_t icb_pref, int adtype, const uint8_t *area,
		    uint32_t len, const char *what, struct udf_exts *x)
{
	uint32_t off = 0;
	for (;;) {
		uint32_t elen, lbn, size = adtype == 0 ? 8 : adtype == 1 ? 16 : 20;
		uint16_t pref;
		if (off + size > len)
			return 0;
		if (parse_ad(area + off, adtype, icb_pref, &elen, &lbn, &pref))
			return lb_fail(u->b, "inode %" PRIu64 ": allocation type %d", ino, adtype);
		off += size;
		uint32_t bytes = elen & UDF_EXT_MASK, type = elen >> 30;
		if (!bytes)
			return 0; /* the list ends at a zero length */
		if (!u->budget--)
			return lb_fail(u->b,
				       "more allocation descriptors than blocks: looping extents");
		uint64_t at = 0, n = blocks_of(u, bytes);
		if (type != 2 && pblock(u, pref, lbn, type == 3 ? 1 : n, &at))
			return -1;
		if (type == 3) {
			/* EXT_NEXT_EXTENT_ALLOCDESCS: an allocExtDesc block. */
			if (claim(u, at, u->bs, "allocation-extent", 0, ino) ||
			    lb_read(u->b, at * u->bs, u->aed, u->bs))
				return -1;
			uint32_t l = lb_le32(u->aed + 20);
			if (!tag_ok(u->aed, TAG_AED, lbn) || l > u->bs - 24)
				return lb_fail(u->b,
					       "inode %" PRIu64
					       ": allocation extent at block %" PRIu64
					       " is not one (%u bytes of descriptors)",
					       ino, at, l);
			area = u->aed + 24;
			len = l;
			off = 0;
			icb_pref = pref;
			continue;
		}
		if (type != 2 && claim(u, at, bytes, what, 0, ino))
			return -1;
		if (x && keep_ext(u, x, type == 0 ? at : 0, bytes))
			return -1;
	}
}

/* Queue the file entry at (lbn, pref) unless already queued. */
static int enqueue(struct udf *u, uint32_t lbn, uint16_t pref)
{
	uint64_t at;
	if (pblock(u, pref, lbn, 1, &at))
		return -1;
	if (u->seen[at / 8] >> (at % 8) & 1)
		return 0;
	u->seen[at / 8] |= (uint8_t)(1u << (at % 8));
	if (u->qn == u->qcap) {
		size_t cap = u->qcap ? 2 * u->qcap : 64;
		struct udf_icb *q = realloc(u->q, cap * sizeof(*q));
		if (!q)
			return lb_fail(u->b, "out of memory");
		u->q = q;
		u->qcap = cap;
	}
	u->q[u->qn++] = (struct udf_icb){lbn, pref};
	return 0;
}

/* The File Identifier Descriptors of a directory's bytes (ecma_167.h:
 * struct fileIdentDesc; directory.c: udf_fiiter_*): each child's ICB
 * queued, the parent entry and deleted ones left. */
static int read_fids(struct udf *u, uint64_t ino, const uint8_t *d, uint64_t len)
{
	uint64_t off = 0;
	while (off + 38 <= len) {
		const uint8_t *f = d + off;
		uint64_t size = (38u + lb_le16(f + 36) + f[19] + 3) & ~3u;
		if (lb_le16(f) != TAG_FID || off + size > len)
			return lb_fail(u->b,
				       "directory %" PRIu64 ": no file identifier at byte %" PRIu64,
				       ino, off);
		if (!(f[18] & (FID_PARENT | FID_DELETED)) && (lb_le32(f + 20) & UDF_EXT_MASK) &&
		    enqueue(u, lb_le32(f + 24), lb_le16(f + 28)))
			return -1;
		off += size;
	}
	return 0;
}

/* A directory's bytes from its extents, informationLength of them. */
static int read_dir(struct udf *u, uint64_t ino, const struct udf_exts *x, uint64_t size)
{
	if (size > UDF_DIR_MAX || size > u->b->size)
		return lb_fail(u->b, "directory %" PRIu64 " of %" PRIu64 " bytes", ino, size);
	uint8_t *d = calloc(1, size ? size : 1);
	if (!d)
		return lb_fail(u->b, "out of memory");
	uint64_t got = 0;
	int rc = 0;
	for (size_t i = 0; i < x->n && got < size && !rc; i++) {
		uint64_t n = x->e[i].bytes < size - got ? x->e[i].bytes : size - got;
		if (x->e[i].pblock)
			rc = lb_read(u->b, x->e[i].pblock * u->bs, d + got, n);
		got += n;
	}
	if (!rc)
		rc = read_fids(u, ino, d, got);
	free(d);
	return rc;
}

/* The places of an FE's or EFE's fields (ecma_167.h: struct fileEntry,
 * struct extendedFileEntry). */
struct fe_fields {
	uint32_t ea_icb, l_ea, hdr;
};

static struct fe_fields fe_fields(const uint8_t *fe)
{
	if (lb_le16(fe) == TAG_EFE)
		return (struct fe_fields){136, 208, 216};
	return (struct fe_fields){112, 168, 176};
}

/* icbtag.fileType (ecma_167.h: ICBTAG_FILE_TYPE_*) as a mode, or 0 for
 * the types that hold no blocks of their own. */
static uint32_t mode_of(uint8_t type)
{
	switch (type) {
	case 4:
	case 13: return 0040000; /* a directory, a stream directory */
	case 12: return 0120000;
	case 5:
	case 249: return 0100000; /* regular, and UDF's real-time file */
	default: return 0;
	}
}

/* One file entry: claimed, then its blocks; a directory's children queued. */
static int walk_file(struct udf *u, struct udf_icb icb)
{
	uint64_t ino;
	if (pblock(u, icb.pref, icb.lbn, 1, &ino) || lb_read(u->b, ino * u->bs, u->fe, u->bs))
		return -1;
	const uint8_t *fe = u->fe;
	uint16_t id = lb_le16(fe);
	if ((id != TAG_FE && id != TAG_EFE) || !tag_ok(fe, id, icb.lbn))
		return lb_fail(u->b, "inode %" PRIu64 ": no file entry (tag %u)", ino, id);
	if (claim(u, ino, u->bs, "file-entry", u->bs, ino))
		return -1;
	if (lb_le16(fe + 20) != 4)
		return lb_fail(u->b, "inode %" PRIu64 ": ICB strategy %u (only 4 is read)", ino,
			       lb_le16(fe + 20));
	struct fe_fields f = fe_fields(fe);
	uint32_t l_ea = lb_le32(fe + f.l_ea), l_ad = lb_le32(fe + f.l_ea + 4);
	if (l_ea > u->bs - f.hdr || l_ad > u->bs - f.hdr - l_ea)
		return lb_fail(u->b, "inode %" PRIu64 ": %u bytes of attributes, %u of descriptors",
			       ino, l_ea, l_ad);
	/* The extended attribute ICB, a long_ad. */
	uint32_t ea_len = lb_le32(fe + f.ea_icb) & UDF_EXT_MASK;
	uint64_t ea_at;
	if (ea_len && (pblock(u, lb_le16(fe + f.ea_icb + 8), lb_le32(fe + f.ea_icb + 4),
			      blocks_of(u, ea_len), &ea_at) ||
		       claim(u, ea_at, ea_len, "xattr", 0, ino)))
		return -1;
	/* An EFE's streamDirectoryICB: the file's named streams. */
	if (lb_le16(fe) == TAG_EFE && (lb_le32(fe + 152) & UDF_EXT_MASK) &&
	    enqueue(u, lb_le32(fe + 156), lb_le16(fe + 160)))
		return -1;
	uint32_t mode = mode_of(fe[27]);
	int adtype = lb_le16(fe + 34) & 7;
	if (!mode || adtype == 3) {
		/* ICBTAG_FLAG_AD_IN_ICB: the bytes are in the entry. */
		return mode == 0040000 && adtype == 3 ? read_fids(u, ino, fe + f.hdr + l_ea, l_ad)
						      : 0;
	}
	/* walk_ads reads continuations into u->aed: u->fe stays. */
	struct udf_exts x = {0};
	int rc = walk_ads(u, ino, icb.pref, adtype, fe + f.hdr + l_ea, l_ad, lb_kind_of_mode(mode),
			  mode == 0040000 ? &x : NULL);
	if (!rc && mode == 0040000)
		rc = read_dir(u, ino, &x, lb_le64(u->fe + 56));
	free(x.e);
	return rc;
}

/* The File Set Descriptor (ecma_167.h: struct fileSetDesc), found by the
 * LVD's logicalVolContentsUse long_ad; its rootDirectoryICB queued. */
static int file_set(struct udf *u)
{
	const uint8_t *ad = u->lvd + 248;
	uint32_t len = lb_le32(ad) & UDF_EXT_MASK, lbn = lb_le32(ad + 4);
	uint64_t at;
	if (pblock(u, lb_le16(ad + 8), lbn, blocks_of(u, len ? len : 1), &at) ||
	    claim(u, at, len ? len : u->bs, "file-set", 0, 0) ||
	    lb_read(u->b, at * u->bs, u->fe, 512))
		return -1;
	if (!tag_ok(u->fe, TAG_FSD, lbn))
		return lb_fail(u->b, "no file set descriptor at block %" PRIu64, at);
	/* The system stream directory (UDF 2.01 2.3.4: streamDirectoryICB)
	 * holds named streams of the volume; mkudffs makes one. */
	if ((lb_le32(u->fe + 464) & UDF_EXT_MASK) &&
	    enqueue(u, lb_le32(u->fe + 468), lb_le16(u->fe + 472)))
		return -1;
	return enqueue(u, lb_le32(u->fe + 404), lb_le16(u->fe + 408));
}

static int walk_files(struct udf *u)
{
	u->seen = calloc(1, u->blocks / 8 + 1);
	if (!u->seen)
		return lb_fail(u->b, "out of memory");
	if (file_set(u))
		return -1;
	for (size_t i = 0; i < u->qn; i++)
		if (walk_file(u, u->q[i]))
			return -1;
	return 0;
}

static void udf_close(struct udf *u)
{
	free(u->seen);
	free(u->q);
}

int layout_udf_entry(struct lb *b, uint64_t ino, uint8_t fe[4096], uint32_t *bs)
{
	struct udf *u = malloc(sizeof(*u));
	if (!u)
		return lb_fail(b, "out of memory");
	int rc = udf_open(b, u), found = 0;
	for (int k = 0; k < UDF_MAXPARTS && !rc && !found; k++) {
		const struct udf_part *p = &u->pd[k];
		if (!p->used || ino < p->start || ino - p->start >= p->len)
			continue;
		found = 1;
		rc = lb_read(b, ino * u->bs, fe, u->bs);
		uint16_t id = rc ? 0 : lb_le16(fe);
		if (!rc && ((id != TAG_FE && id != TAG_EFE) ||
			    !tag_ok(fe, id, (uint32_t)(ino - p->start))))
			rc = lb_fail(b, "inode %" PRIu64 ": no file entry (tag %u)", ino, id);
	}
	if (!rc && !found)
		rc = lb_fail(b, "inode %" PRIu64 " is outside the partitions", ino);
	*bs = u->bs;
	udf_close(u);
	free(u);
	return rc;
}

int layout_udf(struct lb *b)
{
	struct udf *u = malloc(sizeof(*u));
	if (!u)
		return lb_fail(b, "out of memory");
	int rc = udf_open(b, u);
	if (!rc) {
		b->l->block_size = u->bs;
		b->l->inode_size = u->bs;
		/* The integrity sequence: the LVD's integritySeqExt. */
		uint32_t ilen = lb_le32(u->lvd + 432);
		if (ilen)
			rc = claim(u, lb_le32(u->lvd + 436), ilen, "integrity", 0, 0);
	}
	for (int k = 0; k < UDF_MAXPARTS && !rc; k++)
		if (u->pd[k].used && u->pd[k].bitmap_len)
			rc = claim(u, u->pd[k].start + u->pd[k].bitmap_pos, u->pd[k].bitmap_len,
				   "partition-bitmap", 0, 0);
	if (!rc)
		rc = walk_files(u);
	for (int k = 0; k < UDF_MAXPARTS && !rc; k++)
		if (u->pd[k].used)
			rc = free_space(u, &u->pd[k]);
	udf_close(u);
	free(u);
	return rc;
}
