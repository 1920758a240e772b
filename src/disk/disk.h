/* disk.h - a copy-on-write disk over an immutable base image: what the
 * virtio-blk device reads and writes, and what the model checker compares.
 *
 * The base image file is opened O_RDONLY and mapped read-only; nothing here
 * ever writes it. The disk is cut into 4 KiB chunks and a chunk table holds
 * one pointer per chunk:
 *
 *   1. chunks[i] == NULL: chunk i still reads as the base's bytes.
 *   2. chunks[i] != NULL: a private heap copy of DISK_CHUNK_SIZE bytes that
 *      holds chunk i's current content (bytes past the end of the disk in the
 *      last chunk are zero and never visible).
 *   3. The only transition is NULL -> private copy ("copy-up"), made by the
 *      first write to a chunk, in one function (chunk_for_write in disk.c).
 *
 * A read is O(1) per chunk: one table lookup and a memcpy. A later issue
 * adds fork levels over the same table: copy-up is where an undo entry
 * (chunk index, previous pointer) is recorded, and a write to a chunk made
 * private at an older level copies it again. Until then note that a struct
 * copy of a disk shares its table and chunks: it is not a snapshot.
 *
 * For the checker the disk also records which chunks were written and which
 * were read since the last disk_clear_io(), one bit per chunk each. */
#ifndef THEMIS_DISK_H
#define THEMIS_DISK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define DISK_SECTOR_SIZE       512u
#define DISK_CHUNK_SIZE	       4096u
#define DISK_SECTORS_PER_CHUNK (DISK_CHUNK_SIZE / DISK_SECTOR_SIZE)

struct disk {
	const uint8_t *base; /* read-only mapping of the base image */
	uint64_t size;	     /* bytes, a nonzero multiple of DISK_SECTOR_SIZE */
	uint64_t nchunks;    /* ceil(size / DISK_CHUNK_SIZE) */
	uint8_t **chunks;    /* the chunk table: nchunks entries, see above */
	uint64_t nprivate;   /* non-NULL entries in chunks */
	uint64_t *written;   /* bitmaps of nchunks bits: chunks written, */
	uint64_t *read;	     /* and read, since disk_clear_io() */
	bool read_only;	     /* the guest may not write (disk_write -> -EROFS) */
	dev_t base_dev;	     /* identity of the base file, so that disk_save */
	ino_t base_ino;	     /* refuses to overwrite it */
};

/* Open `path` as the base of a new disk. 0, or -errno with a one-line
 * reason in err (e.g. "size 1000 is not a multiple of 512 bytes"). */
int disk_open(struct disk *d, const char *path, bool read_only, char *err, size_t errlen);
/* Free the chunks and unmap the base; safe on a zeroed or closed disk. */
void disk_close(struct disk *d);

uint64_t disk_sectors(const struct disk *d);

/* Copy `n` sectors starting at `sector` to or from buf. 0, -EINVAL when the
 * range runs past the end, -EROFS for a write to a read-only disk, -ENOMEM
 * when a copy-up cannot be allocated (then no byte of the disk changed). */
int disk_read(struct disk *d, uint64_t sector, void *buf, uint64_t n);
int disk_write(struct disk *d, uint64_t sector, const void *buf, uint64_t n);

/* Write the disk's whole current content to a new file at `path` (created
 * or truncated; never the base image). 0, or -errno with a reason in err. */
int disk_save(const struct disk *d, const char *path, char *err, size_t errlen);

/* Chunk bookkeeping. `chunk` is a chunk index below disk_chunks(d); out of
 * range reads as false. */
uint64_t disk_chunks(const struct disk *d);
bool disk_chunk_private(const struct disk *d, uint64_t chunk);
bool disk_chunk_written(const struct disk *d, uint64_t chunk);
bool disk_chunk_read(const struct disk *d, uint64_t chunk);
/* Forget which chunks were read and written (the content stays). */
void disk_clear_io(struct disk *d);

#endif
