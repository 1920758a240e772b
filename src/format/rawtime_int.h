/* rawtime_int.h - what rawtime.c shares with the per-format parsers
 * (rawtime_ext.c, rawtime_xfs.c, ...; each format's is its descriptor's,
 * src/fs): the parsers' signature. They read through layout_int.h's struct
 * lb, so a read past the image and a failure are reported alike. */
#ifndef THEMIS_RAWTIME_INT_H
#define THEMIS_RAWTIME_INT_H

#include "layout_int.h"
#include "rawtime.h"

/* Set out's mtime (ctime false) or ctime (ctime true: have_ctime too) to
 * sec and nsec, and its fields text from fmt, the stored fields as the
 * format names them ("i_mtime=0x... i_mtime_nsec=..."). */
void rawtime_set(struct rawtime *out, bool ctime, int64_t sec, uint32_t nsec, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* The pair f2fs and nilfs2 both store: an le64 of signed seconds at
 * in + at and an le32 of nanoseconds at in + nsat, named i_mtime and
 * i_mtime_nsec (i_ctime, i_ctime_nsec); set as rawtime_set does. */
void rawtime_le64_pair(struct rawtime *out, bool ctime, const uint8_t *in, size_t at, size_t nsat);

/* Fill out for the file (name, ino): 0, or -1 with lb_fail. */
typedef int rawtime_fn(struct lb *b, const char *name, uint64_t ino, struct rawtime *out);
rawtime_fn rawtime_ext, rawtime_xfs, rawtime_btrfs, rawtime_f2fs, rawtime_jfs, rawtime_nilfs2,
    rawtime_minix, rawtime_vfat, rawtime_exfat, rawtime_ntfs3, rawtime_udf, rawtime_reiserfs,
    rawtime_gfs2, rawtime_ocfs2;

#endif
