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
 *   3. An entry changes in three ways only: copy-up (NULL -> private copy,
 *      by the first write to a chunk, in chunk_for_write in disk.c) and the
 *      two kinds of restore below (private -> NULL, private -> the saved
 *      copy, in undo_one).
 *
 * A read is O(1) per chunk at any fork depth: one table lookup and a memcpy.
 *
 * Fork levels (the epsilon-copy fork, as in ram.h): disk_fork() opens a level
 * in O(1). The first write to a chunk in a level saves what it held on the
 * level's undo list: "fresh" if it still read as the base (the copy-up), or
 * a copy of its private content. disk_restore() reverts exactly the top
 * level's list, O(chunks written in the level), and keeps the level open so
 * it can be restored again and again; disk_release() restores and closes
 * it. Restoring a fresh entry frees the private copy (the chunk reads as
 * the base again); restoring a saved one makes the saved copy the chunk's
 * buffer. A struct copy of a disk shares its table and chunks: it is not a
 * snapshot, a fork is.
 *
 * For the checker the disk also records which chunks were written and which
 * were read since the last disk_clear_io(), one bit per chunk each; a
 * restore leaves those bits alone (they record I/O, not content).
 *
 * The request log: every request the device served, in order (reads,
 * writes, flushes), each stamped with its flush epoch (the number of
 * flushes completed before it). It is the disk's history, so it forks with
 * the content: disk_fork remembers its length and epoch, and a restore cuts
 * it back to them, so the log always tells how the content came to be (the
 * writes since the last flush are what a crash may lose). Virtio-blk has no
 * FUA bit: Linux sends a forced-unit-access write as the write and a flush
 * after it, which the log shows as such.
 *
 * The write log (disk_wlog.c), off unless a caller turns it on: with it,
 * every write the device serves (disk_write_served) keeps its payload, the
 * bytes before and after, numbered from 0 for the disk's life. From it a
 * crash disk is assembled in a fork: the content as it was at an earlier
 * entry, plus any chosen later writes in any order (disk_crash_assemble).
 * It forks with the content like the request log; disk_wlog_keep lets the
 * entries a caller no longer needs go. */
#ifndef THEMIS_DISK_H
#define THEMIS_DISK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define DISK_SECTOR_SIZE       512u
#define DISK_CHUNK_SIZE	       4096u
#define DISK_SECTORS_PER_CHUNK (DISK_CHUNK_SIZE / DISK_SECTOR_SIZE)
#define DISK_MAX_DEPTH	       256u /* open fork levels, as many as RAM's */
#define DISK_POOL_MAX	       256u /* spare chunk buffers kept for reuse (1 MiB) */

/* One undo entry, beside its chunk number in undo_chunk: the chunk held
 * `saved` when the level first wrote it (NULL: it read as the base) and had
 * been saved last at level `prev_level` (0: at no level). */
struct disk_undo {
	uint8_t *saved;
	uint16_t prev_level;
};

struct disk_spare; /* a free chunk buffer, linked through its first bytes */

enum disk_req_kind { DISK_REQ_READ, DISK_REQ_WRITE, DISK_REQ_FLUSH };

/* One served request of the log. */
struct disk_req {
	uint64_t sector;
	uint32_t count; /* sectors; 0 for a flush */
	uint16_t kind;	/* enum disk_req_kind */
	uint16_t pad;
	uint64_t epoch; /* flushes completed before this request */
};

#define DISK_LOG_MAX (1u << 22) /* entries kept; later ones are counted, not kept */

/* One served write of the write log; its payload, count sectors before the
 * write and count after, lies at byte `at` of the payload store. */
struct disk_wentry {
	uint64_t sector;
	uint32_t count;
	uint32_t pad;
	uint64_t epoch; /* flushes completed before it */
	uint64_t req;	/* its request's index in the request log */
	uint64_t at;
};

#define DISK_WLOG_BYTES_MAX (1ULL << 30) /* payload kept; past it, entries are lost */

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
	/* Fork levels; the invariants are listed at the top of disk.c. */
	uint16_t *saved_at;	 /* per chunk: the newest level that saved it, 0 none */
	unsigned depth;		 /* open levels, 0 = the root (no undo list) */
	uint64_t *undo_chunk;	 /* the undo stack, all levels, oldest first: */
	struct disk_undo *undo;	 /* chunk numbers and entries, side by side */
	uint64_t nundo, capundo; /* entries used and allocated */
	uint64_t level_start[DISK_MAX_DEPTH + 1]; /* [L]: first entry of level L */
	struct disk_spare *spares;		  /* the pool of free chunk buffers */
	unsigned nspares;			  /* at most DISK_POOL_MAX */
	/* The request log (see above): nlog entries of caplog, the current
	 * epoch, and per open level the length and epoch to restore. */
	struct disk_req *log;
	uint64_t nlog, caplog, log_lost; /* log_lost: entries past DISK_LOG_MAX */
	uint64_t epoch;
	uint64_t log_start[DISK_MAX_DEPTH + 1], epoch_start[DISK_MAX_DEPTH + 1];
	/* The write log (disk_wlog.c). Entry numbers and payload offsets are
	 * absolute: entry k is wlog[k - wbase], byte b is wbytes[b - wbbase].
	 * wkeep: the oldest entry a crash disk may go back to. */
	bool wlog_on;
	bool powered_off; /* served writes and requests are dropped */
	struct disk_wentry *wlog;
	uint64_t wbase, nwlog, capwlog, wkeep, wlog_lost;
	uint8_t *wbytes;
	uint64_t wbbase, nwbytes, capwbytes;
	uint64_t wlog_start[DISK_MAX_DEPTH + 1], wbytes_start[DISK_MAX_DEPTH + 1],
	    wkeep_start[DISK_MAX_DEPTH + 1];
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
/* disk_read that is not I/O: the chunks are not marked read. buf NULL
 * only checks the range. */
int disk_peek(const struct disk *d, uint64_t sector, void *buf, uint64_t n);
/* n bytes at byte offset off of the disk (a struct disk *, as void * so
 * it serves as the layout map's read callback): 0, or -1 past the end. A
 * range not on sector boundaries goes through a bounce sector. */
int disk_read_bytes(void *disk, uint64_t off, void *buf, size_t n);

/* Write the disk's whole current content to a new file at `path` (created
 * or truncated; never the base image). 0, or -errno with a reason in err. */
int disk_save(const struct disk *d, const char *path, char *err, size_t errlen);

/* Chunk bookkeeping. `chunk` is a chunk index below disk_chunks(d); out of
 * range reads as false. */
uint64_t disk_chunks(const struct disk *d);
/* Bytes of chunk `chunk` inside the disk: DISK_CHUNK_SIZE, less for the last. */
uint64_t disk_chunk_len(const struct disk *d, uint64_t chunk);
bool disk_chunk_private(const struct disk *d, uint64_t chunk);
bool disk_chunk_written(const struct disk *d, uint64_t chunk);
bool disk_chunk_read(const struct disk *d, uint64_t chunk);
/* Forget which chunks were read and written (the content stays). */
void disk_clear_io(struct disk *d);

/* Append a served request to the log (a flush also ends the epoch). 0, or
 * -ENOMEM when it could not be kept (it is counted in log_lost). */
int disk_log_request(struct disk *d, enum disk_req_kind kind, uint64_t sector, uint64_t count);
/* The log: sets *list (valid until the next disk call) and returns its
 * length. Entries from an index remembered earlier are the requests since. */
uint64_t disk_log(const struct disk *d, const struct disk_req **list);
/* Flushes completed so far. */
uint64_t disk_epoch(const struct disk *d);

/* Power: a disk powered off drops the writes it is served
 * (disk_write_served answers 0 and changes nothing) and logs no request;
 * reads still answer. A crash is the machine losing the disk's power:
 * whatever the kernel writes on its way down (an unmount) never lands. */
void disk_power(struct disk *d, bool on);

/* The write log. disk_wlog_enable turns it on (a no-op when on already;
 * entries start at the next write, at any fork level). disk_write_served is disk_write for the
 * device: with the log on it also keeps the write's entry (a payload past DISK_WLOG_BYTES_MAX is
 * counted in wlog_lost and ends what a crash disk can go back to: wkeep moves past it). */
void disk_wlog_enable(struct disk *d);
int disk_write_served(struct disk *d, uint64_t sector, const void *buf, uint64_t n);
/* The entries kept: sets *list to entry *first (valid until the next disk
 * call) and returns how many; the last is entry *first + n - 1. */
uint64_t disk_wlog(const struct disk *d, const struct disk_wentry **list, uint64_t *first);
/* One past the newest entry's number: where the next write's entry goes. */
uint64_t disk_wlog_end(const struct disk *d);
/* A payload: count sectors, before (after = false) or after the write. */
const uint8_t *disk_wentry_data(const struct disk *d, const struct disk_wentry *e, bool after);
/* Entries before `first` are no longer needed: crash disks go back no
 * further; their memory goes once no fork level can bring them back. */
void disk_wlog_keep(struct disk *d, uint64_t first);
/* Make the content a crash disk, in a fork level (disk_restore puts it
 * back): as it was just before entry `upto` (later entries undone, newest
 * first), then the entries extra[0..nextra) written again in that order
 * (each at least upto: a subset and an order of the writes the crash may
 * have let through). 0, -EINVAL for an entry out of range or a
 * call at the root, -ENOMEM (the content is then undefined until the
 * restore). */
int disk_crash_assemble(struct disk *d, uint64_t upto, const uint64_t *extra, size_t nextra);

/* Make d's content src's: every chunk that differs written with src's
 * bytes, at d's top level (a fork level brings the old content back). The
 * two disks are over the same base image, so a chunk neither holds a
 * private copy of is the same: O(chunks) to scan, O(chunks either wrote)
 * to compare. The crash lens moves a crash disk so into the machine that
 * recovers it. 0; -EINVAL when the bases differ; -EROFS; -ENOMEM (d's
 * content is then undefined until the restore). */
int disk_copy_content(struct disk *d, const struct disk *src);

/* Make d's content image's (d's size in bytes, the disk as a host tool
 * left it in a file) in the chunks whose bit is set in the bitmap
 * `candidates` (disk_chunks(d) bits; NULL: every chunk), where the
 * caller knows the others hold d's bytes: every chunk that differs
 * written, at d's top level, and its bit set in the bitmap `changed`. 0,
 * or -EROFS / -ENOMEM (d's content is then undefined until the restore). */
int disk_import(struct disk *d, const uint8_t *image, const uint64_t *candidates,
		uint64_t *changed);

/* Open a fork level: O(1). 0, or -EOVERFLOW with DISK_MAX_DEPTH levels
 * open. */
int disk_fork(struct disk *d);
/* Put the content back as it was when the top level was opened, keeping the
 * level open (re-armed): O(chunks written in it). 0, or -EINVAL when no
 * level is open (nothing changed). */
int disk_restore(struct disk *d);
/* disk_restore, then close the top level. 0, or -EINVAL at the root. */
int disk_release(struct disk *d);
/* Open levels: 0 at the root. */
unsigned disk_depth(const struct disk *d);
/* The chunks written in the top level since it was opened or last restored,
 * each once, in the order first written: sets *list (valid until the next
 * disk call) and returns their number; 0 at the root. */
uint64_t disk_level_chunks(const struct disk *d, const uint64_t **list);

/* XXH3-128 of the disk's whole current content, in canonical (big-endian)
 * byte order: equal to the hash of the file disk_save would write. */
void disk_hash(const struct disk *d, uint8_t out[16]);

/* XXH3-128 of salt and every chunk whose bytes differ from the base's
 * (number and bytes): a key for the content among disks of one base, the
 * same for the same content whichever chunks hold private copies (a crash
 * disk's undone writes leave private copies of the base's bytes), taken
 * in O(chunks) with only the private ones read. */
void disk_private_key(const struct disk *d, uint64_t salt, uint8_t key[16]);

/* Debugging: check the invariants listed at the top of disk.c, in
 * O(chunks + undo entries). 0 when they hold, else the number of the first
 * one broken, or -ENOMEM when no scratch memory is left for the check. */
int disk_check(const struct disk *d);

#endif
