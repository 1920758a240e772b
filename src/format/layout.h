/* layout.h - the layout map: every sector of a filesystem image named by
 * the on-disk structure that holds it, parsed from the image's own
 * geometry with the field's own libraries where they exist (libext2fs for
 * ext2/3/4) and from the documented on-disk formats elsewhere (xfs, btrfs,
 * f2fs, vfat, exfat, jfs, nilfs2, minix).
 *
 * The map reads the image through a callback, so the same parser serves a
 * base image file (`themis layout IMG`), and a disk's current content inside
 * a fork of the machine (profile, diff, the io lens): the disk, not the
 * base, after an operation has allocated new blocks.
 *
 * The image is untrusted: a damaged or hostile image gets -1 with a reason,
 * never a crash, a hang or an out-of-range read (tests/fuzz/fuzz_layout.c).
 *
 * Structure names (one vocabulary for every filesystem; `structure` points
 * at static storage, compare with strcmp):
 *   superblock, superblock-backup, group-descriptors, block-bitmap,
 *   inode-bitmap, inode-table, directory, extent-tree, indirect, journal,
 *   xattr, data (a regular file's contents), symlink (a symlink's target
 *   held in blocks), free (not in use),
 *   and per-format names documented in the parser of that format (xfs:
 *   ag-header, free-space-btree, inode-btree, log...; btrfs: tree:NAME...).
 * Sectors no structure claims read back as "free" from layout_name. */
#ifndef THEMIS_LAYOUT_H
#define THEMIS_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define LAYOUT_SECTOR 512u

/* One run of sectors held by one structure. */
struct layout_range {
	uint64_t lba, count;   /* 512-byte sectors */
	const char *structure; /* see the vocabulary above */
	uint32_t unit;	       /* bytes of one record in the range (an inode: 256), or 0 */
	uint64_t owner;	       /* the inode (or object id) it belongs to, or 0 */
};

struct layout {
	char fs[16];		/* "ext4", "xfs", ... (src/fs's names) */
	uint64_t sectors;	/* of the image */
	uint32_t block_size;	/* the filesystem's block size in bytes */
	uint32_t inode_size;	/* bytes per on-disk inode, 0 when not fixed */
	struct layout_range *r; /* sorted by lba, not overlapping */
	size_t n, cap;
};

/* Read n bytes at byte offset off of the image into buf: 0, or -1 (past
 * the end, I/O error). */
typedef int (*layout_read_fn)(void *ctx, uint64_t off, void *buf, size_t n);

/* Parse the image of `size` bytes. 0; -1 with a one-line reason in err for
 * an image of an unknown or damaged filesystem ("not a filesystem Themis
 * knows", "xfs: AG count 0 in the superblock"...). l is left empty on
 * error; layout_free is safe either way. */
int layout_parse(struct layout *l, layout_read_fn read, void *ctx, uint64_t size, char *err,
		 size_t errlen);
/* The same, of an image file (opened read-only, never written). */
int layout_parse_file(struct layout *l, const char *path, char *err, size_t errlen);
void layout_free(struct layout *l);
/* Open an image file (or block device) read-only for a layout_read_fn:
 * the descriptor, its size in *size; -1 with err. layout_read_fd reads
 * through a pointer to that descriptor (ctx = &fd). */
int layout_open_file(const char *path, uint64_t *size, char *err, size_t errlen);
int layout_read_fd(void *ctx, uint64_t off, void *buf, size_t n);

/* The range holding sector `lba`, or NULL (free or unnamed). O(log n). */
const struct layout_range *layout_find(const struct layout *l, uint64_t lba);
/* Its structure's name, or "free". */
const char *layout_name(const struct layout *l, uint64_t lba);

/* The map as text (a line per range: first last count structure) or as
 * JSON: a list of {"lba", "count", "structure"} (and "owner" when set). */
void layout_print(const struct layout *l, FILE *f);
void layout_json(const struct layout *l, FILE *f);

#endif
