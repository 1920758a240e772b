/* fields.h - the fields of on-disk records (an ext superblock, an inode, a
 * group descriptor, a journal superblock; the xfs superblock, AG headers and
 * inode) and where those records lie on a given image.
 *
 * Each table is written once, as an X-macro list in fields.c (name, place,
 * flags), and serves twice: `themis diff` names a differing byte by it
 * ("inode 12 i_mtime"), and --normalize masks the fields it flags as
 * nuisance. The places of the records come from the image's own geometry
 * (the superblock and the descriptors it points at, the layout map's
 * structures), never from fixed offsets on the disk.
 *
 * The image is untrusted: a damaged image gets -1 with a reason, never an
 * out-of-range read. */
#ifndef THEMIS_FIELDS_H
#define THEMIS_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "layout.h"

/* Why a field is masked by --normalize. */
#define FIELD_NUISANCE 1u /* a time or a random identity: differs between equal runs */
#define FIELD_CSUM                                                                                 \
	2u /* a checksum over a nuisance field or seeded from the uuid;                            \
	      masked only when the record's filesystem has such checksums */

struct field {
	const char *name; /* as the format's own headers spell it: s_mtime, i_ctime_extra */
	uint32_t off, size;
	unsigned flags;
};

/* The fields of one kind of record, sorted by offset. */
struct field_table {
	const char *name; /* the record's C struct: ext2_super_block, xfs_dinode... */
	const struct field *f;
	size_t n;
	uint32_t size; /* bytes the fields span */
};

extern const struct field_table field_ext_super, field_ext_inode, field_ext_gd, field_jbd2_super,
    field_ext_dir_tail, field_ext_dx_tail, field_ext_extent_tail, field_ext_xattr_header,
    field_xfs_sb, field_xfs_agf, field_xfs_agi, field_xfs_agfl, field_xfs_dinode;

/* The field holding byte `off` of a record, or NULL (padding, past the end). */
const struct field *field_at(const struct field_table *t, uint32_t off);
/* Whether some table has a field of this name (for --no-mask's check). */
bool field_name_known(const char *name);

/* One run of records of one kind on an image: `len` bytes at byte `off`, one
 * record of `unit` bytes after the other, the first numbered `first_id`
 * (an inode number, a group number; id_name NULL: not numbered). */
struct field_rec {
	uint64_t off, len;
	uint32_t unit;
	const struct field_table *t;
	const char *structure; /* the layout map's vocabulary: superblock, inode-table... */
	const char *id_name;   /* "inode", "group", "ag" or NULL */
	uint64_t first_id;
	bool csum; /* the FIELD_CSUM fields of these records are uuid-seeded */
};

/* The records of an image, sorted by off, not overlapping. */
struct field_map {
	char fs[16];	     /* "ext2", "ext4", "xfs"; "" when not known */
	uint32_t block_size; /* 0 when not known */
	uint32_t inode_size;
	bool csum; /* metadata checksums seeded from the uuid (ext metadata_csum, xfs v5) */
	struct field_rec *r;
	size_t n, cap;
};

/* Find the records of the image of `size` bytes read through `read`. 0; 1
 * when the image holds no filesystem these tables know (m->fs is then "",
 * and the reason is in err); -1 for a damaged one or no memory (reason in
 * err). m is usable (possibly empty) and must be freed in every case. */
int field_map_build(struct field_map *m, layout_read_fn read, void *ctx, uint64_t size, char *err,
		    size_t errlen);
void field_map_free(struct field_map *m);
/* The run of records holding byte `off`, or NULL. O(log n). */
const struct field_rec *field_map_find(const struct field_map *m, uint64_t off);

/* Records found inside a block by its content, for the structures the
 * layout map names but whose checksummed tails move with the content (an
 * ext directory block's tail, an htree node's tail, an extent block's tail,
 * an xattr block's header). Given the block's bytes (in `blk`, `len` bytes:
 * one filesystem block) and its layout structure, sets *t and *at (the
 * record's offset in the block) and returns true when byte `pos` of the
 * block lies in such a record. */
bool field_in_block(const struct field_map *m, const char *structure, const uint8_t *blk,
		    uint32_t len, uint32_t pos, const struct field_table **t, uint32_t *at);

#endif
