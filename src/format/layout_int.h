/* layout_int.h - what layout.c shares with the per-format parsers
 * (layout_ext.c, layout_xfs.c, layout_btrfs.c, layout_f2fs.c, ...): the map
 * under construction, a bounds-checked read, and claiming byte ranges.
 *
 * A parser claims byte ranges in any order and may claim a sector twice;
 * layout.c rounds each claim out to whole sectors, clips it to the image,
 * and where claims overlap gives the sector to the one made first. So a
 * parser claims what it trusts most first (superblocks, fixed metadata),
 * then what it found by following pointers, then "free": a hostile image
 * whose file claims the inode table cannot rename the inode table. */
#ifndef THEMIS_LAYOUT_INT_H
#define THEMIS_LAYOUT_INT_H

#include "layout.h"

/* Claims beyond this are a damaged image, not a map (bounds memory and
 * time on hostile input; the largest real map of a built image has a few
 * thousand ranges). */
#define LAYOUT_MAX_CLAIMS (1u << 22)

struct lb {
	struct layout *l;
	layout_read_fn read;
	void *ctx;
	uint64_t size; /* bytes of the image */
	char *err;
	size_t errlen;
};

/* Read n bytes at off: 0; -1 with a reason in b->err when the range is
 * outside the image or the read fails. */
int lb_read(struct lb *b, uint64_t off, void *buf, size_t n);
/* Write "FS: <reason>" into b->err; returns -1. */
int lb_fail(struct lb *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Claim bytes [off, off+len) for `structure`: 0; -1 (out of memory, or
 * too many claims) with b->err set. A claim wholly past the image is
 * dropped, one partly past it clipped. */
int lb_add(struct lb *b, uint64_t off, uint64_t len, const char *structure, uint32_t unit,
	   uint64_t owner);

/* The structure holding an inode's blocks, by its POSIX mode: directory,
 * symlink (a target too long for the inode) or data. Checkers read the
 * first two; no checker reads a regular file's bytes, which the fsck
 * memo's key relies on (fsck_key.c). */
static inline const char *lb_kind_of_mode(uint32_t mode)
{
	switch (mode & 0170000) {
	case 0040000: return "directory";
	case 0120000: return "symlink";
	default: return "data";
	}
}

/* Little-endian and big-endian fields of on-disk structures. */
static inline uint16_t lb_le16(const void *p)
{
	const uint8_t *b = p;
	return (uint16_t)(b[0] | b[1] << 8);
}
static inline uint32_t lb_le32(const void *p)
{
	const uint8_t *b = p;
	return b[0] | b[1] << 8 | b[2] << 16 | (uint32_t)b[3] << 24;
}
static inline uint64_t lb_le64(const void *p)
{
	return lb_le32(p) | (uint64_t)lb_le32((const uint8_t *)p + 4) << 32;
}
static inline uint16_t lb_be16(const void *p)
{
	const uint8_t *b = p;
	return (uint16_t)(b[0] << 8 | b[1]);
}
static inline uint32_t lb_be32(const void *p)
{
	const uint8_t *b = p;
	return (uint32_t)b[0] << 24 | b[1] << 16 | b[2] << 8 | b[3];
}
static inline uint64_t lb_be64(const void *p)
{
	return (uint64_t)lb_be32(p) << 32 | lb_be32((const uint8_t *)p + 4);
}

/* Open the image of b read-only through libext2fs (its geometry checked
 * first): 0, or -1 with b->err. Close with ext2fs_close_free. Shared with
 * the raw timestamps (rawtime_ext.c). */
struct struct_ext2_filsys;
int layout_ext_open(struct lb *b, struct struct_ext2_filsys **out);

/* Shared with the raw timestamps (rawtime_FS.c): each walks its format
 * as the layout parser does (claims made on the way go to b->l, which the
 * raw-time reader leaves empty so they are dropped), and returns 0 or -1
 * with b->err. */
/* minix: inode `ino` (from 1) into in (a v1 inode fills 32 bytes, v2 and
 * v3 64) and the format's version (1, 2 or 3). */
int layout_minix_inode(struct lb *b, uint32_t ino, uint8_t in[64], int *version);
/* vfat (exfat false) or exfat: the root directory's entries in a
 * malloc'd *dir of *len bytes (the caller frees it). */
int layout_fat_root(struct lb *b, bool exfat, uint8_t **dir, uint64_t *len);

/* jfs: fileset inode `ino` (512 bytes) through the inode map's IAG. */
int layout_jfs_inode(struct lb *b, uint32_t ino, uint8_t di[512]);

/* f2fs: the inode block of inode `nid` (4096 bytes), through the valid
 * checkpoint's NAT (its journal first). */
int layout_f2fs_node(struct lb *b, uint32_t nid, uint8_t out[4096]);

/* btrfs: the data of item (objectid, type, offset) of tree `tree` (5:
 * the top-level subvolume), up to cap bytes into out, its length (up to
 * cap) in *len; no such item is an error. */
int layout_btrfs_item(struct lb *b, uint64_t tree, uint64_t objectid, uint8_t type, uint64_t offset,
		      uint8_t *out, uint32_t cap, uint32_t *len);

/* nilfs2: the first len bytes of inode `ino` in the ifile, its newest
 * copy in the logs (the layout walk's: no DAT lookup). */
int layout_nilfs2_inode(struct lb *b, uint64_t ino, uint8_t *out, uint32_t len);

/* gfs2: the first len bytes (up to the block) of dinode `ino`, the block
 * `ino` (fs/gfs2/inode.c: i_ino is no_addr), checked to be that dinode. */
int layout_gfs2_dinode(struct lb *b, uint64_t ino, uint8_t *out, uint32_t len);
/* ntfs3: the first 48 bytes of MFT record `ino`'s $STANDARD_INFORMATION
 * (its times), the record found through $MFT's runs. */
int layout_ntfs3_std(struct lb *b, uint64_t ino, uint8_t si[48]);
/* ocfs2: the first len bytes (up to the block size) of inode `ino`, the
 * block of that number, checked as an inode of that block. */
int layout_ocfs2_inode(struct lb *b, uint64_t ino, uint8_t *out, uint32_t len);
/* reiserfs: the stat data (44 bytes; a 3.5 one, *v1 set, fills 32) of
 * object `ino`, keyed by the root directory's entry `name` (the root, 2, by
 * its fixed key). */
int layout_reiserfs_stat(struct lb *b, const char *name, uint32_t ino, uint8_t sd[44], bool *v1);
/* udf: the (Extended) File Entry of inode `ino`, the physical block Linux
 * numbers it by (udf_get_lb_pblock), into fe, its block size in *bs. */
int layout_udf_entry(struct lb *b, uint64_t ino, uint8_t fe[4096], uint32_t *bs);

/* The parsers, one per on-disk format (ext2, ext3 and ext4 share one). */
int layout_ext(struct lb *b);
int layout_xfs(struct lb *b);
int layout_btrfs(struct lb *b);
int layout_f2fs(struct lb *b);
int layout_vfat(struct lb *b);
int layout_exfat(struct lb *b);
int layout_jfs(struct lb *b);
int layout_nilfs2(struct lb *b);
int layout_minix(struct lb *b);
int layout_ntfs3(struct lb *b);
int layout_udf(struct lb *b);
int layout_reiserfs(struct lb *b);
int layout_gfs2(struct lb *b);
int layout_ocfs2(struct lb *b);

#endif
