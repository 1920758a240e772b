/* layout_ext.c - the layout map of ext2, ext3 and ext4, read through
 * libext2fs (the field's own library: it knows flex_bg, meta_bg, 64bit,
 * sparse_super2 and bigalloc placements better than a second parser
 * would). The image reaches libext2fs through a small io_manager over the
 * layout_read_fn callback, so a fork's disk needs no temporary file, and
 * the manager refuses every write, so the image is never changed.
 *
 * Structure names, claimed in this order (the first claim of a sector wins,
 * see layout_int.h):
 *   boot                   bytes 0-1023, before the primary superblock
 *   superblock             the primary superblock's block
 *   superblock-backup      each backup's block (sparse_super groups)
 *   group-descriptors      the primary descriptor blocks (meta_bg: the first
 *                          group of each meta group)
 *   group-descriptors-backup  their copies in backup groups
 *   reserved-gdt           blocks reserved for online resize, after each copy
 *   block-bitmap, inode-bitmap   one block per group
 *   inode-table            unit = the inode size
 *   then, walking every inode in use, with owner = the inode number:
 *   xattr                  an inode's external xattr block
 *   extent-tree            extent index and leaf blocks (extent inodes)
 *   indirect               indirect, double and triple indirect blocks
 *   journal                the blocks of the journal inode
 *   directory              a directory's blocks
 *   symlink                a symlink's target, when it is held in a block
 *   data                   any other inode's blocks (files, the resize,
 *                          quota and orphan inodes)
 *   free                   blocks the block bitmap marks unused
 *
 * Untrusted input: the superblock's geometry is checked here before
 * libext2fs sees it (and against the image's size: a truncated image is an
 * error, not a short map), every location libext2fs reports is checked
 * against the filesystem's size before it is claimed, and the walk of the
 * block maps has a budget, so looping indirect blocks end with an error. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <ext2fs/ext2_err.h>
#include <ext2fs/ext2fs.h>

#include "layout_int.h"

/* The io_manager: the channel's private data is the struct lb. libext2fs
 * opens a channel by name only, so the name carries the pointer. */
static errcode_t lio_open(const char *name, int flags, io_channel *channel);

static errcode_t lio_close(io_channel io)
{
	if (--io->refcount > 0)
		return 0;
	ext2fs_free_mem(&io->name);
	ext2fs_free_mem(&io);
	return 0;
}

static errcode_t lio_set_blksize(io_channel io, int blksize)
{
	if (blksize <= 0)
		return EXT2_ET_INVALID_ARGUMENT;
	io->block_size = blksize;
	return 0;
}

static errcode_t lio_read_blk64(io_channel io, unsigned long long block, int count, void *data)
{
	struct lb *b = io->private_data;
	uint64_t len = count < 0 ? (uint64_t) - (int64_t)count : (uint64_t)count * io->block_size;
	if (block > UINT64_MAX / (uint64_t)io->block_size)
		return EXT2_ET_LLSEEK_FAILED;
	uint64_t off = block * (uint64_t)io->block_size;
	if (off > b->size || len > b->size - off) {
		memset(data, 0, len);
		return EXT2_ET_SHORT_READ;
	}
	if (b->read(b->ctx, off, data, len))
		return EIO;
	return 0;
}

static errcode_t lio_read_blk(io_channel io, unsigned long block, int count, void *data)
{
	return lio_read_blk64(io, block, count, data);
}

static errcode_t lio_write_blk64(io_channel io, unsigned long long block, int count,
				 const void *data)
{
	(void)io, (void)block, (void)count, (void)data;
	return EROFS; /* the map only reads: a base image is never written */
}

static errcode_t lio_write_blk(io_channel io, unsigned long block, int count, const void *data)
{
	return lio_write_blk64(io, block, count, data);
}

static errcode_t lio_write_byte(io_channel io, unsigned long off, int count, const void *data)
{
	(void)io, (void)off, (void)count, (void)data;
	return EROFS;
}

static errcode_t lio_flush(io_channel io)
{
	(void)io;
	return 0;
}

static errcode_t lio_set_option(io_channel io, const char *option, const char *arg)
{
	(void)io, (void)option, (void)arg;
	return EXT2_ET_INVALID_ARGUMENT;
}

/* Never written: libext2fs takes a non-const io_manager, nothing in it
 * changes the table. */
static struct struct_io_manager layout_io = {
    .magic = EXT2_ET_MAGIC_IO_MANAGER,
    .name = "themis layout (read-only callback)",
    .open = lio_open,
    .close = lio_close,
    .set_blksize = lio_set_blksize,
    .read_blk = lio_read_blk,
    .write_blk = lio_write_blk,
    .flush = lio_flush,
    .write_byte = lio_write_byte,
    .set_option = lio_set_option,
    .read_blk64 = lio_read_blk64,
    .write_blk64 = lio_write_blk64,
};

static errcode_t lio_open(const char *name, int flags, io_channel *channel)
{
	void *p = NULL;
	if (flags & IO_FLAG_RW)
		return EROFS;
	if (!name || sscanf(name, "layout:%p", &p) != 1 || !p)
		return EXT2_ET_BAD_DEVICE_NAME;
	io_channel io;
	errcode_t e = ext2fs_get_memzero(sizeof(*io), &io);
	if (e)
		return e;
	e = ext2fs_get_mem(strlen(name) + 1, &io->name);
	if (e) {
		ext2fs_free_mem(&io);
		return e;
	}
	strcpy(io->name, name);
	io->magic = EXT2_ET_MAGIC_IO_CHANNEL;
	io->manager = &layout_io;
	io->block_size = 1024;
	io->refcount = 1;
	io->private_data = p;
	*channel = io;
	return 0;
}

/* The walk's state. */
struct ext_walk {
	struct lb *b;
	ext2_filsys fs;
	ext2_ino_t ino;
	const char *meta, *kind;     /* names of this inode's map and data blocks */
	uint64_t run_start, run_len; /* blocks pending a claim, to claim runs */
	const char *run_kind;
	uint64_t budget; /* block references left before the image counts as looping */
	int failed;
};

static int claim_blocks(struct lb *b, ext2_filsys fs, blk64_t blk, uint64_t n,
			const char *structure, uint32_t unit, uint64_t owner)
{
	uint64_t bs = fs->blocksize;
	return lb_add(b, blk * bs, n * bs, structure, unit, owner);
}

static int flush_run(struct ext_walk *w)
{
	if (!w->run_len)
		return 0;
	int rc = claim_blocks(w->b, w->fs, w->run_start, w->run_len, w->run_kind, 0, w->ino);
	w->run_len = 0;
	return rc;
}

static int walk_block(ext2_filsys fs, blk64_t *blocknr, e2_blkcnt_t blockcnt, blk64_t ref_blk,
		      int ref_offset, void *priv)
{
	(void)ref_blk, (void)ref_offset;
	struct ext_walk *w = priv;
	blk64_t blk = *blocknr;
	if (!w->budget--) {
		w->failed = lb_fail(w->b,
				    "inode %u: more block references than the filesystem "
				    "has blocks: looping block map",
				    w->ino);
		return BLOCK_ABORT;
	}
	if (blk < fs->super->s_first_data_block || blk >= ext2fs_blocks_count(fs->super)) {
		w->failed = lb_fail(w->b, "inode %u: block %llu outside the filesystem", w->ino,
				    (unsigned long long)blk);
		return BLOCK_ABORT;
	}
	const char *kind = blockcnt < 0 ? w->meta : w->kind;
	if (w->run_len && kind == w->run_kind && blk == w->run_start + w->run_len) {
		w->run_len++;
		return 0;
	}
	if (flush_run(w)) {
		w->failed = -1;
		return BLOCK_ABORT;
	}
	w->run_start = blk;
	w->run_len = 1;
	w->run_kind = kind;
	return 0;
}

static const char *ext_err(errcode_t e)
{
	return error_message(e);
}

/* The geometry libext2fs will trust, checked first: a hostile superblock
 * must fail here with a reason rather than reach the library's arithmetic. */
static int check_super(struct lb *b)
{
	uint8_t sb[1024];
	if (lb_read(b, 1024, sb, sizeof(sb)))
		return -1;
	uint32_t log_bs = lb_le32(sb + 0x18);
	if (log_bs > 6)
		return lb_fail(b, "block size 2^%u KiB in the superblock", log_bs);
	uint64_t bs = 1024u << log_bs;
	uint32_t incompat = lb_le32(sb + 0x60);
	uint64_t blocks = lb_le32(sb + 0x04);
	if (incompat & EXT4_FEATURE_INCOMPAT_64BIT)
		blocks |= (uint64_t)lb_le32(sb + 0x150) << 32;
	uint32_t per_group = lb_le32(sb + 0x20), ipg = lb_le32(sb + 0x28);
	uint32_t first = lb_le32(sb + 0x14);
	if (!blocks || !per_group || !ipg)
		return lb_fail(b,
			       "zero blocks count, blocks or inodes per group in the superblock");
	if (per_group > 8 * bs || ipg > 8 * bs)
		return lb_fail(b, "%u blocks and %u inodes per group exceed a bitmap block",
			       per_group, ipg);
	if (first >= blocks || (bs == 1024 && first != 1) || (bs > 1024 && first != 0))
		return lb_fail(b, "first data block %u with %" PRIu64 "-byte blocks", first, bs);
	if (blocks > b->size / bs)
		return lb_fail(b,
			       "%" PRIu64 " blocks of %" PRIu64 " bytes but the image holds "
			       "%" PRIu64 " bytes: truncated",
			       blocks, bs, b->size);
	uint16_t isz = lb_le32(sb + 0x4c) ? lb_le16(sb + 0x58) : 128; /* rev 0: 128 */
	if (isz < 128 || isz > bs || (isz & (isz - 1)))
		return lb_fail(b, "inode size %u in the superblock", isz);
	return 0;
}

/* Superblocks, descriptors, bitmaps and inode tables, group by group. */
static int claim_groups(struct lb *b, ext2_filsys fs)
{
	struct ext2_super_block *s = fs->super;
	blk64_t nblocks = ext2fs_blocks_count(s);
	uint64_t bs = fs->blocksize;
	uint32_t isz = EXT2_INODE_SIZE(s);
	int meta_bg = ext2fs_has_feature_meta_bg(s);
	blk64_t old_desc = meta_bg ? s->s_first_meta_bg : fs->desc_blocks;
	if (old_desc > fs->desc_blocks)
		old_desc = fs->desc_blocks;
	if (lb_add(b, 0, 1024, "boot", 0, 0))
		return -1;
	for (dgrp_t g = 0; g < fs->group_desc_count; g++) {
		blk64_t super = 0, old = 0, new = 0;
		blk_t used = 0;
		errcode_t e = ext2fs_super_and_bgd_loc2(fs, g, &super, &old, &new, &used);
		if (e)
			return lb_fail(b, "group %u: %s", g, ext_err(e));
		const char *copy = g ? "group-descriptors-backup" : "group-descriptors";
		if ((super || !g) &&
		    claim_blocks(b, fs, super, 1, g ? "superblock-backup" : "superblock", 0, 0))
			return -1;
		if (old) {
			if (old + old_desc + s->s_reserved_gdt_blocks > nblocks)
				return lb_fail(b,
					       "group %u: descriptors at block %llu past the end",
					       g, (unsigned long long)old);
			if (claim_blocks(b, fs, old, old_desc, copy, 0, 0) ||
			    claim_blocks(b, fs, old + old_desc, s->s_reserved_gdt_blocks,
					 "reserved-gdt", 0, 0))
				return -1;
		}
		if (new) {
			int first = g % EXT2_DESC_PER_BLOCK(s) == 0;
			if (new >= nblocks)
				return lb_fail(b, "group %u: descriptor block %llu past the end", g,
					       (unsigned long long)new);
			if (claim_blocks(b, fs, new, 1,
					 first ? "group-descriptors" : "group-descriptors-backup",
					 0, 0))
				return -1;
		}
		blk64_t bb = ext2fs_block_bitmap_loc(fs, g), ib = ext2fs_inode_bitmap_loc(fs, g);
		blk64_t it = ext2fs_inode_table_loc(fs, g);
		if (bb >= nblocks || ib >= nblocks || it >= nblocks ||
		    fs->inode_blocks_per_group > nblocks - it)
			return lb_fail(b,
				       "group %u: bitmaps or inode table past the end "
				       "(%llu, %llu, %llu of %llu blocks)",
				       g, (unsigned long long)bb, (unsigned long long)ib,
				       (unsigned long long)it, (unsigned long long)nblocks);
		if (claim_blocks(b, fs, bb, 1, "block-bitmap", 0, 0) ||
		    claim_blocks(b, fs, ib, 1, "inode-bitmap", 0, 0) ||
		    lb_add(b, it * bs, (uint64_t)fs->inode_blocks_per_group * bs, "inode-table",
			   isz, 0))
			return -1;
	}
	return 0;
}

/* Every inode in use: its xattr block and its block map. */
static int claim_inodes(struct lb *b, ext2_filsys fs)
{
	struct ext2_super_block *s = fs->super;
	ext2_inode_scan scan;
	errcode_t e = ext2fs_open_inode_scan(fs, 0, &scan);
	if (e)
		return lb_fail(b, "cannot scan the inodes: %s", ext_err(e));
	ext2fs_inode_scan_flags(scan, EXT2_SF_DO_LAZY, 0);
	struct ext_walk w = {.b = b, .fs = fs, .budget = 2 * ext2fs_blocks_count(s) + 1024};
	struct ext2_inode_large inode;
	int rc = 0;
	for (;;) {
		ext2_ino_t ino;
		e = ext2fs_get_next_inode_full(scan, &ino, (struct ext2_inode *)&inode,
					       sizeof(inode));
		if (e) {
			rc = lb_fail(b, "inode scan: %s", ext_err(e));
			break;
		}
		if (!ino)
			break;
		if (!ext2fs_test_inode_bitmap2(fs->inode_map, ino))
			continue;
		if (ino >= EXT2_FIRST_INO(s) && !inode.i_links_count)
			continue;
		struct ext2_inode *in = (struct ext2_inode *)&inode;
		blk64_t acl = ext2fs_file_acl_block(fs, in);
		if (acl && acl < ext2fs_blocks_count(s) && acl >= s->s_first_data_block &&
		    claim_blocks(b, fs, acl, 1, "xattr", 0, ino)) {
			rc = -1;
			break;
		}
		if (!ext2fs_inode_has_valid_blocks2(fs, in) || (in->i_flags & EXT4_INLINE_DATA_FL))
			continue;
		w.ino = ino;
		w.meta = (in->i_flags & EXT4_EXTENTS_FL) ? "extent-tree" : "indirect";
		w.kind = ino == s->s_journal_inum ? "journal" : lb_kind_of_mode(in->i_mode);
		e = ext2fs_block_iterate3(fs, ino, BLOCK_FLAG_READ_ONLY, NULL, walk_block, &w);
		if (w.failed) {
			rc = -1;
			break;
		}
		if (e) {
			rc = lb_fail(b, "inode %u's blocks: %s", ino, ext_err(e));
			break;
		}
		if (flush_run(&w)) {
			rc = -1;
			break;
		}
	}
	ext2fs_close_inode_scan(scan);
	return rc;
}

/* The runs the block bitmap marks free. */
static int claim_free(struct lb *b, ext2_filsys fs)
{
	blk64_t end = ext2fs_blocks_count(fs->super) - 1;
	blk64_t at = fs->super->s_first_data_block;
	while (at <= end) {
		blk64_t zero, set;
		if (ext2fs_find_first_zero_block_bitmap2(fs->block_map, at, end, &zero))
			break;
		if (ext2fs_find_first_set_block_bitmap2(fs->block_map, zero, end, &set))
			set = end + 1;
		if (claim_blocks(b, fs, zero, set - zero, "free", 0, 0))
			return -1;
		at = set;
	}
	return 0;
}

int layout_ext_open(struct lb *b, struct struct_ext2_filsys **out)
{
	if (check_super(b))
		return -1;
	initialize_ext2_error_table(); /* idempotent: messages for libext2fs's codes */
	char name[64];
	snprintf(name, sizeof(name), "layout:%p", (void *)b);
	int flags = EXT2_FLAG_64BITS | EXT2_FLAG_IGNORE_CSUM_ERRORS | EXT2_FLAG_SKIP_MMP;
	errcode_t e = ext2fs_open2(name, NULL, flags, 0, 0, &layout_io, out);
	if (e)
		return lb_fail(b, "libext2fs cannot open it: %s", ext_err(e));
	return 0;
}

int layout_ext(struct lb *b)
{
	ext2_filsys fs = NULL;
	errcode_t e;
	if (layout_ext_open(b, &fs))
		return -1;
	b->l->block_size = fs->blocksize;
	b->l->inode_size = EXT2_INODE_SIZE(fs->super);
	int rc = claim_groups(b, fs);
	if (!rc && (e = ext2fs_read_bitmaps(fs)))
		rc = lb_fail(b, "cannot read the bitmaps: %s", ext_err(e));
	if (!rc)
		rc = claim_inodes(b, fs);
	if (!rc)
		rc = claim_free(b, fs);
	ext2fs_close_free(&fs);
	return rc;
}
