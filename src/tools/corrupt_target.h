/* corrupt_target.h - where `themis corrupt` (corrupt.h) may flip a bit: a
 * target STRUCT[:FIELD] resolved to byte ranges of one image, and a flip
 * at a given place named back by structure and field.
 *
 * STRUCT is a structure as the layout map names it (layout.h: superblock,
 * inode-table, directory, block-bitmap, data, free, tree:csum...), or one
 * of these classes that gather the layout's names:
 *   inode    the on-disk inodes of the populated entries (ext2/3/4, xfs:
 *            located from their inode numbers); elsewhere the layout's
 *            inode structures (inode-table, inode);
 *   dir      directory (as `directory`: where the map names the owners
 *            of directory blocks, those of the populated tree and its
 *            root only, not what mkfs left as ext's lost+found);
 *   bitmap   every allocation bitmap of the format;
 *   journal  journal or log.
 * FIELD, where the format has field tables (fields.h: ext2/3/4 and xfs),
 * is a member of the record as the format's headers spell it: ext
 * superblock:s_magic, inode:i_mode, group-descriptors:bg_flags,
 * journal:s_blocksize; xfs superblock:sb_magicnum, agf:agf_magicnum,
 * inode:di_mode. A target with a field covers that field in every record
 * of its kind (every in-use inode, every group's descriptor...).
 *
 * Everything here reads the image through the layout map's callback and
 * trusts nothing on it (out-of-range places are dropped). */
#ifndef THEMIS_CORRUPT_TARGET_H
#define THEMIS_CORRUPT_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../format/fields.h"
#include "../format/layout.h"

#define CORRUPT_NAME_MAX 40

/* A run of bytes of the image a bit may be flipped in. */
struct corrupt_span {
	uint64_t off, len;
};

struct corrupt_target {
	char structure[CORRUPT_NAME_MAX]; /* as asked: "inode", "tree:csum" */
	char field[CORRUPT_NAME_MAX];	  /* "" for the whole structure */
	struct corrupt_span *s;
	size_t n, cap;
	uint64_t bytes; /* the spans' total */
};

/* What resolving reads: the image's maps and the populated entries'
 * inode numbers (from the agent's `times`), and the image itself. */
struct corrupt_image {
	const char *fs;
	const struct layout *map;
	const struct field_map *fields; /* fields->fs "" when it has none */
	const uint64_t *inos;
	int ninos;
	layout_read_fn read;
	void *ctx;
	uint64_t size;
};

/* Split "STRUCT[:FIELD]" (the structure may hold a colon itself, as
 * btrfs's tree:csum: the field is what follows the last colon when that
 * is a field name of fs's tables). 0, or -1 with a one-line reason. */
int corrupt_target_split(const char *fs, const char *spec, char *structure, char *field, char *err,
			 size_t errlen);

/* Whether fs may have this target: the structure is a class above, a
 * layout name of `base` (the base image's map; NULL: not checked) or one a
 * populated tree adds (data, directory, indirect, extent-tree, xattr), and
 * the field is one of the structure's record. 0, or -1 with a one-line
 * reason that lists what is known. */
int corrupt_target_check(const char *fs, const char *structure, const char *field,
			 const struct layout *base, char *err, size_t errlen);

/* Resolve a target on an image into t (spans sorted, not empty). 0, or -1
 * with a reason (the image holds no such structure). */
int corrupt_target_resolve(const struct corrupt_image *im, const char *structure, const char *field,
			   struct corrupt_target *t, char *err, size_t errlen);
void corrupt_target_free(struct corrupt_target *t);

/* The byte offset of bit number `k` (0 .. bytes * 8 - 1) of t. */
uint64_t corrupt_target_byte(const struct corrupt_target *t, uint64_t k);

/* The structure and field a byte of the image lies in: the layout's name
 * (or "free"), and the field of a record where one is known (else ""). */
void corrupt_target_name(const struct corrupt_image *im, uint64_t off, char *structure, char *field,
			 size_t cap);

/* The structure classes of the image, for a sweep: every layout name it
 * holds (in map order, each once) with the classes above in place of what
 * they gather ("inode" for ext and xfs inode tables, "bitmap"...).
 * Returns how many were put in names (each CORRUPT_NAME_MAX), at most max. */
int corrupt_target_classes(const struct corrupt_image *im, char (*names)[CORRUPT_NAME_MAX],
			   int max);

/* The targets per filesystem, for --help. */
void corrupt_target_help(FILE *f);

#endif
