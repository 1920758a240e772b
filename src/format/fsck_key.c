/* fsck_key.c - see fsck_key.h. The masks of each format, by the
 * structure the layout map names (layout.h's vocabulary); field offsets
 * are those of e2fsprogs' ext2_fs.h (ext2, ext3, ext4) and of the kernel's
 * fs/xfs/libxfs/xfs_format.h and xfs_da_format.h (xfs, v5 and v4). */
#include <ext2fs/ext2_fs.h>
#include <stddef.h>
#include <string.h>
#define XXH_STATIC_LINKING_ONLY /* XXH3_state_t on the stack: hashing cannot fail */
#include <xxhash.h>

#include "fsck_key.h"
#include "layout_int.h"

#define ERA_BITS   20	       /* a time keeps the 2^20 s (12 days) it falls in */
#define NSEC_MAX   1000000000u /* a nanosecond field at or above it is kept */
#define JBD2_MAGIC 0xc03b3998u

struct fk;
/* Mask the record rec (len bytes at byte offset off of the disk), held by
 * the structure named `what`. */
typedef void fk_mask_fn(const struct fk *k, const char *what, uint8_t *rec, size_t len,
			uint64_t off);
/* What the masks need of the disk, read once per key; -1: no masks. */
typedef int fk_init_fn(struct fk *k);

/* At most this many inodes whose "data" a checker reads (quota, orphan
 * and realtime files: data by their mode, metadata by their use). */
#define FK_SPECIAL_MAX 8

struct fk {
	const struct layout *l;
	const struct disk *d;
	uint32_t bs;	    /* the filesystem's block: a record of block structures */
	uint32_t inodes;    /* ext: s_inodes_count (a dtime below it links orphans) */
	uint64_t jsb;	    /* ext: byte offset of the journal superblock */
	bool journal_clean; /* ext: that superblock says nothing to replay */
	bool v5;	    /* xfs: a v5 (CRC) filesystem */
	/* A regular file's bytes are judged by no checker, so its "data"
	 * records are masked whole, except those of the inodes below
	 * first_owner and of special[] (0: the rule is off). */
	uint64_t first_owner;
	uint64_t special[FK_SPECIAL_MAX];
	fk_mask_fn *mask;
};

/* Whether the "data" of inode `owner` is read by no checker. */
static bool data_unjudged(const struct fk *k, uint64_t owner)
{
	if (!k->first_owner || owner < k->first_owner)
		return false;
	for (int i = 0; i < FK_SPECIAL_MAX; i++)
		if (k->special[i] == owner)
			return false;
	return true;
}

/* ---- the fields ---- */

static bool is(const char *what, const char *name)
{
	return !strcmp(what, name);
}

static void zero(uint8_t *rec, size_t len, size_t at, size_t n)
{
	if (at + n <= len)
		memset(rec + at, 0, n);
}

/* A 32-bit time of seconds keeps its era (the bits above ERA_BITS). */
static void era32(uint8_t *rec, size_t len, size_t at)
{
	if (at + 4 > len)
		return;
	uint8_t *p = rec + at; /* little-endian: bits 0-19 are 2.5 bytes from p */
	p[0] = p[1] = 0;
	p[2] &= 0xf0;
}

static void era32_be(uint8_t *rec, size_t len, size_t at)
{
	if (at + 4 > len)
		return;
	uint8_t *p = rec + at;
	p[3] = p[2] = 0;
	p[1] &= 0xf0;
}

/* ---- ext2, ext3, ext4 ---- */

#define EXT_INO(f) offsetof(struct ext2_inode_large, f)
#define EXT_SB(f)  offsetof(struct ext2_super_block, f)

/* ext4's "extra" time: 2 epoch bits kept, a valid nanosecond count masked. */
static void ext_extra(uint8_t *rec, size_t len, size_t at)
{
	if (at + 4 > len)
		return;
	uint32_t x = lb_le32(rec + at);
	if (x >> 2 < NSEC_MAX)
		x &= 3;
	for (int i = 0; i < 4; i++)
		rec[at + i] = (uint8_t)(x >> 8 * i);
}

static void ext_inode(const struct fk *k, uint8_t *in, size_t len)
{
	era32(in, len, EXT_INO(i_atime));
	era32(in, len, EXT_INO(i_ctime));
	era32(in, len, EXT_INO(i_mtime));
	/* A dtime below the inode count links the orphan list: kept. */
	if (EXT_INO(i_dtime) + 4 <= len && lb_le32(in + EXT_INO(i_dtime)) > k->inodes)
		era32(in, len, EXT_INO(i_dtime));
	zero(in, len, EXT_INO(osd1.linux1.l_i_version), 4);
	zero(in, len, EXT_INO(i_generation), 4);
	zero(in, len, EXT_INO(osd2.linux2.l_i_checksum_lo), 2);
	if (len <= EXT2_GOOD_OLD_INODE_SIZE)
		return;
	/* The extra fields exist as far as i_extra_isize reaches; past it
	 * are the inode's own extended attributes, kept. */
	size_t end = EXT2_GOOD_OLD_INODE_SIZE + lb_le16(in + EXT_INO(i_extra_isize));
	end = end < len ? end : len;
	zero(in, end, EXT_INO(i_checksum_hi), 2);
	ext_extra(in, end, EXT_INO(i_ctime_extra));
	ext_extra(in, end, EXT_INO(i_mtime_extra));
	ext_extra(in, end, EXT_INO(i_atime_extra));
	era32(in, end, EXT_INO(i_crtime));
	ext_extra(in, end, EXT_INO(i_crtime_extra));
	zero(in, end, EXT_INO(i_version_hi), 4);
}

/* The primary superblock, 1024 bytes at byte 1024 of the disk. */
static void ext_super(uint8_t *rec, size_t len, uint64_t off)
{
	if (off > 1024 || off + len < 2048)
		return;
	uint8_t *s = rec + (1024 - off);
	era32(s, 1024, EXT_SB(s_mtime));
	era32(s, 1024, EXT_SB(s_wtime));
	zero(s, 1024, EXT_SB(s_mnt_count), 2);
	zero(s, 1024, EXT_SB(s_kbytes_written), 8);
	zero(s, 1024, EXT_SB(s_last_mounted), 64); /* the directory it was mounted on */
	zero(s, 1024, EXT_SB(s_checksum), 4);
}

/* A directory block's checksum tail (a dirent of inode 0, 12 bytes, type
 * 0xde); it covers the inode's generation. */
static void ext_dir_tail(uint8_t *b, size_t len)
{
	if (len < 12)
		return;
	uint8_t *t = b + len - 12;
	if (!lb_le32(t) && lb_le16(t + 4) == 12 && !t[6] && t[7] == 0xde)
		zero(t, 12, 8, 4);
}

/* An extent block's checksum, after eh_max entries of 12 bytes. */
static void ext_extent_tail(uint8_t *b, size_t len)
{
	if (len >= 12 && lb_le16(b) == 0xf30a)
		zero(b, len, 12 + 12 * (size_t)lb_le16(b + 4), 4);
}

static void ext_mask(const struct fk *k, const char *what, uint8_t *rec, size_t len, uint64_t off)
{
	if (is(what, "inode-table"))
		ext_inode(k, rec, len);
	else if (is(what, "superblock"))
		ext_super(rec, len, off);
	else if (is(what, "directory"))
		ext_dir_tail(rec, len);
	else if (is(what, "extent-tree"))
		ext_extent_tail(rec, len);
	else if (is(what, "free"))
		memset(rec, 0, len);
	else if (is(what, "journal") && k->journal_clean) {
		/* Behind a clean journal superblock: its sequence and checksum
		 * say how much was ever logged; the blocks what, long ago. */
		if (off == k->jsb) {
			zero(rec, len, 0x18, 4); /* s_sequence */
			zero(rec, len, 0xfc, 4); /* s_checksum */
		} else {
			memset(rec, 0, len);
		}
	}
}

static int ext_init(struct fk *k)
{
	uint8_t sb[1024], jsb[1024];
	if (disk_peek(k->d, 2, sb, 2))
		return -1;
	k->inodes = lb_le32(sb + EXT_SB(s_inodes_count));
	k->jsb = UINT64_MAX;
	/* e2fsck reads a file's bytes only where they hold metadata: the
	 * reserved inodes, the quota and orphan files, and every file when
	 * xattr values live in inodes of their own (ea_inode). */
	if (!(lb_le32(sb + EXT_SB(s_feature_incompat)) & EXT4_FEATURE_INCOMPAT_EA_INODE)) {
		bool old = lb_le32(sb + EXT_SB(s_rev_level)) == EXT2_GOOD_OLD_REV;
		k->first_owner = old ? EXT2_GOOD_OLD_FIRST_INO : lb_le32(sb + EXT_SB(s_first_ino));
		const size_t at[] = {EXT_SB(s_journal_inum), EXT_SB(s_usr_quota_inum),
				     EXT_SB(s_grp_quota_inum), EXT_SB(s_prj_quota_inum),
				     EXT_SB(s_orphan_file_inum)};
		for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++)
			k->special[i] = lb_le32(sb + at[i]);
	}
	/* The journal's superblock: the first block of its lowest run (mkfs
	 * lays the journal out in one run, block 0 first). Found and clean,
	 * or the journal is keyed whole. */
	for (size_t i = 0; i < k->l->n; i++)
		if (is(k->l->r[i].structure, "journal")) {
			uint64_t at = k->l->r[i].lba;
			if (disk_peek(k->d, at, jsb, 2))
				return -1;
			uint32_t type = lb_be32(jsb + 4);
			if (lb_be32(jsb) == JBD2_MAGIC && (type == 3 || type == 4)) {
				k->jsb = at * LAYOUT_SECTOR;
				k->journal_clean = lb_be32(jsb + 0x1c) == 0; /* s_start */
			}
			break;
		}
	return 0;
}

/* ---- xfs ---- */

/* An 8-byte time: nanoseconds since 1901 under bigtime, else seconds and
 * nanoseconds. */
static void xfs_time(uint8_t *in, size_t len, size_t at, bool bigtime)
{
	if (at + 8 > len)
		return;
	if (bigtime) {
		/* 2^50 ns is the era of 2^20 s. */
		memset(in + at + 2, 0, 6);
		in[at + 1] &= 0xfc;
		return;
	}
	era32_be(in, len, at);
	if (lb_be32(in + at + 4) < NSEC_MAX)
		zero(in, len, at + 4, 4);
}

static void xfs_inode(uint8_t *in, size_t len)
{
	if (len < 0x64 || lb_be16(in) != 0x494e) /* "IN" */
		return;
	bool v3 = in[4] >= 3 && len >= 0xb0;
	bool bigtime = v3 && (lb_be64(in + 0x78) & 8); /* di_flags2 BIGTIME */
	xfs_time(in, len, 0x20, bigtime);	       /* di_atime */
	xfs_time(in, len, 0x28, bigtime);	       /* di_mtime */
	xfs_time(in, len, 0x30, bigtime);	       /* di_ctime */
	zero(in, len, 0x5c, 4);			       /* di_gen */
	if (!v3)
		return;
	zero(in, len, 0x64, 4);		  /* di_crc */
	zero(in, len, 0x68, 8);		  /* di_changecount */
	zero(in, len, 0x70, 8);		  /* di_lsn */
	xfs_time(in, len, 0x90, bigtime); /* di_crtime */
}

/* A v5 block's self-describing header: its CRC and LSN, found by magic. */
static void xfs_self(uint8_t *b, size_t len)
{
	if (len < 64)
		return;
	switch (lb_be32(b)) {
	case 0x58444233: /* XDB3, XDD3, XDF3: dir3 block, data, free */
	case 0x58444433:
	case 0x58444633:
		zero(b, len, 4, 4);
		zero(b, len, 16, 8);
		return;
	case 0x5841524d: /* XARM: remote xattr value */
	case 0x58534c4d: /* XSLM: remote symlink */
		zero(b, len, 12, 4);
		zero(b, len, 48, 8);
		return;
	}
	switch (lb_be16(b + 8)) {
	case 0x3df1: /* da3 blkinfo: dir3 leaf1, leafn, node; attr3 leaf */
	case 0x3dff:
	case 0x3ebe:
	case 0x3bee: zero(b, len, 12, 4); zero(b, len, 24, 8);
	}
}

static void xfs_mask(const struct fk *k, const char *what, uint8_t *rec, size_t len, uint64_t off)
{
	(void)off;
	if (is(what, "inode-chunk"))
		xfs_inode(rec, len);
	else if (is(what, "free") || is(what, "free-list") || is(what, "log"))
		memset(rec, 0, len);
	else if (!k->v5)
		return;
	else if (is(what, "superblock") && lb_be32(rec) == 0x58465342) /* XFSB */
		zero(rec, len, 224, 4), zero(rec, len, 240, 8);
	else if (is(what, "agf") && lb_be32(rec) == 0x58414746)
		zero(rec, len, 208, 12);
	else if (is(what, "agi") && lb_be32(rec) == 0x58414749)
		zero(rec, len, 312, 4), zero(rec, len, 320, 8);
	else if (is(what, "agfl") && lb_be32(rec) == 0x5841464c)
		zero(rec, len, 24, 12);
	else if (is(what, "free-space-btree") || is(what, "inode-btree") ||
		 is(what, "rmap-btree") || is(what, "refcount-btree"))
		zero(rec, len, 24, 8), zero(rec, len, 52, 4); /* short form: lsn, crc */
	else if (is(what, "extent-tree"))
		zero(rec, len, 32, 8), zero(rec, len, 64, 4); /* long form: lsn, crc */
	else if (is(what, "directory") || is(what, "xattr") || is(what, "data") ||
		 is(what, "symlink"))
		xfs_self(rec, len);
}

static int xfs_init(struct fk *k)
{
	uint8_t sb[LAYOUT_SECTOR];
	if (disk_peek(k->d, 0, sb, 1))
		return -1;
	k->v5 = (lb_be16(sb + 100) & 0xf) == 5; /* sb_versionnum */
	/* xfs_repair reads a file's bytes only in the realtime bitmap and
	 * summary and the quota files (sb_rbmino, sb_rsumino, sb_uquotino,
	 * sb_gquotino, sb_pquotino). */
	const size_t at[] = {64, 72, 160, 168, 232};
	k->first_owner = 1;
	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++)
		k->special[i] = lb_be64(sb + at[i]);
	return 0;
}

/* ---- the formats ---- */

/* FSCK_KEY_FORMATS(X): X(fs, init, mask) per format with masks. */
#define FSCK_KEY_FORMATS(X)                                                                        \
	X(ext2, ext_init, ext_mask)                                                                \
	X(ext3, ext_init, ext_mask)                                                                \
	X(ext4, ext_init, ext_mask)                                                                \
	X(xfs, xfs_init, xfs_mask)

static const struct fk_format {
	const char *fs;
	fk_init_fn *init;
	fk_mask_fn *mask;
} formats[] = {
#define FK_FORMAT(fs, init, mask) {#fs, init, mask},
    FSCK_KEY_FORMATS(FK_FORMAT)
#undef FK_FORMAT
};

static const struct fk_format *format_of(const char *fs)
{
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (!strcmp(formats[i].fs, fs))
			return &formats[i];
	return NULL;
}

bool fsck_key_masks(const char *fs)
{
	return format_of(fs) != NULL;
}

/* The layout map's reader: the disk's content, read as no I/O (the
 * chunks are not marked read). */
static int peek_bytes(void *ctx, uint64_t off, void *buf, size_t n)
{
	const struct disk *d = ctx;
	uint8_t *p = buf;
	while (n) {
		uint8_t sec[DISK_SECTOR_SIZE];
		uint64_t at = off % DISK_SECTOR_SIZE, take = DISK_SECTOR_SIZE - at;
		take = take < n ? take : n;
		if (!at && n >= DISK_SECTOR_SIZE) {
			take = n - n % DISK_SECTOR_SIZE;
			if (disk_peek(d, off / DISK_SECTOR_SIZE, p, take / DISK_SECTOR_SIZE))
				return -1;
		} else {
			if (disk_peek(d, off / DISK_SECTOR_SIZE, sec, 1))
				return -1;
			memcpy(p, sec + at, take);
		}
		p += take, off += take, n -= take;
	}
	return 0;
}

/* Mask the chunk at byte offset coff (buf, len bytes): each record of each
 * structure wholly inside it. */
static void mask_chunk(const struct fk *k, uint64_t coff, uint8_t *buf, size_t len)
{
	const struct layout_range *done = NULL;
	for (uint64_t s = 0; s < len / LAYOUT_SECTOR; s++) {
		const struct layout_range *r = layout_find(k->l, coff / LAYOUT_SECTOR + s);
		if (!r || r == done)
			continue;
		done = r;
		uint64_t start = r->lba * LAYOUT_SECTOR, end = start + r->count * LAYOUT_SECTOR;
		uint64_t rec = r->unit ? r->unit : k->bs;
		rec = rec < end - start ? rec : end - start;
		uint64_t o = start;
		if (coff > start)
			o = start + (coff - start + rec - 1) / rec * rec;
		bool unjudged = is(r->structure, "data") && data_unjudged(k, r->owner);
		for (; o + rec <= end && o + rec <= coff + len; o += rec)
			if (unjudged)
				memset(buf + (o - coff), 0, rec);
			else
				k->mask(k, r->structure, buf + (o - coff), rec, o);
	}
}

bool fsck_key(const char *fs, const struct disk *d, uint64_t salt, bool clean, uint8_t key[16])
{
	const struct fk_format *f = format_of(fs);
	struct layout l = {0};
	char err[256];
	if (!f || !clean || layout_parse(&l, peek_bytes, (void *)d, d->size, err, sizeof(err))) {
		disk_private_key(d, salt, key);
		return false;
	}
	struct fk k = {.l = &l, .d = d, .bs = l.block_size, .mask = f->mask};
	if (!k.bs || k.bs % LAYOUT_SECTOR || f->init(&k)) {
		layout_free(&l);
		disk_private_key(d, salt, key);
		return false;
	}
	XXH3_state_t st;
	XXH3_INITSTATE(&st);
	XXH3_128bits_reset(&st);
	static const char domain[] = "fsck_key masked";
	XXH3_128bits_update(&st, domain, sizeof(domain));
	XXH3_128bits_update(&st, &salt, sizeof(salt));
	uint8_t now[DISK_CHUNK_SIZE], base[DISK_CHUNK_SIZE];
	for (uint64_t c = 0; c < disk_chunks(d); c++) {
		if (!disk_chunk_private(d, c))
			continue;
		uint64_t off = c * DISK_CHUNK_SIZE, len = disk_chunk_len(d, c);
		disk_peek(d, c * DISK_SECTORS_PER_CHUNK, now, len / DISK_SECTOR_SIZE);
		memcpy(base, d->base + off, len);
		mask_chunk(&k, off, now, len);
		mask_chunk(&k, off, base, len);
		/* A chunk that masks to what the base masks to is keyed as
		 * the base is: not at all (a log block written, a block
		 * freed again). */
		if (!memcmp(now, base, len))
			continue;
		XXH3_128bits_update(&st, &c, sizeof(c));
		XXH3_128bits_update(&st, now, len);
	}

	XXH128_canonical_t h;
	XXH128_canonicalFromHash(&h, XXH3_128bits_digest(&st));
	memcpy(key, h.digest, 16);
	layout_free(&l);
	return true;
}
