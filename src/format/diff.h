/* diff.h - the byte-level disk diff: which sectors of two filesystem
 * images differ, and which bytes, each named by the structure that holds
 * it (the layout map) and the field (fields.h): "lba 2 (+1) superblock
 * s_mtime", "inode-table inode 12 i_ctime_extra", "data inode 13".
 *
 * Both sides are read through callbacks, chunk by chunk, so the same
 * engine compares two image files, two disks of a run (struct disk, in a
 * fork or not), or a disk against the base it was opened on.
 *
 * Normalizing masks the fields flagged as nuisance in fields.c (times,
 * random identities, and the checksums that cover them), at the places the
 * images' own geometry gives. A byte is masked only when both images put
 * the same field there. Both counts are kept: sectors_raw (every differing
 * byte) and sectors (those with a difference no mask explains).
 *
 * A byte's structure is image A's layout map's, unless A's calls it free
 * and B's does not (a block B allocated); fields are placed by A's
 * geometry, or B's where A's has no record.
 *
 * Images of different sizes are not compared (an error): their geometries
 * differ, so no byte of one has a counterpart in the other. */
#ifndef THEMIS_DIFF_H
#define THEMIS_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../disk/disk.h"
#include "layout.h"

/* One side of the comparison. name is used in messages only. */
struct diff_side {
	layout_read_fn read;
	void *ctx;
	uint64_t size; /* bytes */
	const char *name;
};

/* A run of differing bytes within one field (or, for unnamed structures,
 * one filesystem block): bytes [byte, byte + len) of the image, the first
 * and last differing byte included, in sectors [lba, lba + count). */
struct diff_range {
	uint64_t lba, count;
	uint64_t byte, len;
	const char *structure; /* the layout vocabulary, or "unknown" (static storage) */
	const char *field;     /* "s_mtime", or "" for no field (static storage) */
	const char *id_name;   /* "inode", "group", "ag", or NULL */
	uint64_t id;	       /* the inode (the record's, or the data block's owner)... */
	bool masked;	       /* every byte of it lies in a masked field */
};

struct diff_result {
	char fs[16];	      /* of image A (B when A's is not known), "" unknown */
	uint64_t sectors_raw; /* sectors with a differing byte */
	uint64_t sectors; /* of those, with a byte no mask explains (= raw without --normalize) */
	uint64_t masked;  /* ranges left out of the count by the masks */
	struct diff_range *r; /* in byte order: masked ranges too (see .masked) */
	size_t n, cap;
};

struct diff_opts {
	bool normalize;
	/* Fields --normalize leaves unmasked: "s_mtime" (in every table) or
	 * "ext2_inode:i_mtime" (in one; see field_table.name). For the tests'
	 * controls: each mask must matter. */
	const char *const *no_mask;
	size_t n_no_mask;
};

/* Compare. 0 the same, 1 different (after the masks with normalize), -1
 * trouble with a one-line reason in err naming the image: a read error,
 * different sizes, no memory, --normalize on an image whose filesystem
 * has no field tables. res is filled in the first two cases and must be
 * freed with diff_free in every case. */
int diff_compare(struct diff_result *res, const struct diff_side *a, const struct diff_side *b,
		 const struct diff_opts *o, char *err, size_t errlen);
/* The same of two image files (opened read-only), */
int diff_files(struct diff_result *res, const char *a, const char *b, const struct diff_opts *o,
	       char *err, size_t errlen);
/* of two disks' current content, */
int diff_disks(struct diff_result *res, struct disk *a, struct disk *b, const struct diff_opts *o,
	       char *err, size_t errlen);
/* and of a disk against its own base image (A the base, B the disk). */
int diff_disk_base(struct diff_result *res, struct disk *d, const struct diff_opts *o, char *err,
		   size_t errlen);
void diff_free(struct diff_result *res);

/* A side held in memory: bytes [0, size) at p, read by diff_memory_read
 * (ctx a struct diff_memory *). */
struct diff_memory {
	const uint8_t *p;
	uint64_t size;
};
int diff_memory_read(void *ctx, uint64_t off, void *buf, size_t n);

/* A line per unmasked range: "lba N (+count) structure [id_name id] field:
 * bytes a..b" (image byte offsets, b included). */
void diff_print(const struct diff_result *res, FILE *f);
/* {"fs", "sectors_differing", "sectors_differing_raw", "masked_ranges",
 * "ranges": [{"lba", "count", "structure", "field", "byte", "len" and the
 * id ("inode": 12) when there is one}]}, unmasked ranges only. */
void diff_json(const struct diff_result *res, FILE *f);

#endif
