/* disk.c - see disk.h. The base is mmap'ed read-only (PROT_READ), so even a
 * bug here cannot write it; its descriptor is closed once mapped.
 *
 * Fork levels. Level L (1 <= L <= depth) owns the undo entries from
 * level_start[L] up to level_start[L + 1], read as nundo for the top level;
 * the root (level 0) owns none. Invariants, true after every public call
 * (disk_check verifies all but 5, which the unit test checks against a
 * model of the content):
 *
 *   1. depth <= DISK_MAX_DEPTH; level_start[1] = 0 <= level_start[2] <= ...
 *      <= level_start[depth] <= nundo <= capundo; at the root nundo = 0.
 *   2. For each chunk i, the entries naming i, newest first, have strictly
 *      decreasing levels; saved_at[i] is the newest one's level (0 if none)
 *      and each entry's prev_level is the next one's level (0 for the
 *      oldest). So a chunk is at most once in a level, and saved_at[i] ==
 *      depth says in O(1) that the top level has saved it.
 *   3. A chunk named by an entry is private. A fresh entry (saved == NULL)
 *      is its chunk's oldest (prev_level 0): a private chunk goes back to
 *      NULL only when that entry is restored. Hence a NULL chunk has no
 *      entry and saved_at 0.
 *   4. A saved copy is never its chunk's current buffer, and every buffer
 *      of the last chunk (current or saved) is zero past the end of the disk.
 *   5. Level L's entry for chunk i holds what chunk i held when level L was
 *      opened or last restored (NULL: the base's bytes), and a chunk with no
 *      entry in level L was not written since then. So popping level L's
 *      entries newest first brings back exactly that content.
 *   6. nprivate counts the non-NULL chunks.
 *   7. The spare list (the pool) holds nspares <= DISK_POOL_MAX buffers.
 *      Private chunks, saved copies and spares are distinct heap buffers of
 *      DISK_CHUNK_SIZE bytes, each held in exactly one place.
 *
 * Transitions, each made by one function: disk_fork (depth + 1, the new
 * level's list empty), chunk_for_write (copy-up; at a level, append the
 * chunk's entry to the top list on its first write there), undo_one (pop
 * the newest entry and put its chunk back: disk_restore pops the whole top
 * list, a failed disk_write pops what it appended), disk_release
 * (disk_restore, then depth - 1). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#define XXH_STATIC_LINKING_ONLY /* XXH3_state_t on the stack: hashing cannot fail */
#include <xxhash.h>

#include "disk.h"

/* A spare chunk buffer in the pool, linked through its first bytes. */
struct disk_spare {
	struct disk_spare *next;
};

static int fail(char *err, size_t errlen, int rc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return rc;
}

static bool bit_get(const uint64_t *map, uint64_t i)
{
	return map[i / 64] >> (i % 64) & 1;
}

static void bit_set(uint64_t *map, uint64_t i)
{
	map[i / 64] |= 1ULL << (i % 64);
}

static size_t bitmap_bytes(uint64_t nbits)
{
	return (size_t)((nbits + 63) / 64) * sizeof(uint64_t);
}

/* Check the base and record its identity and size; 0 or -errno, err set. */
static int check_base(int fd, struct disk *d, char *err, size_t errlen)
{
	struct stat st;
	if (fstat(fd, &st))
		return fail(err, errlen, -errno, "cannot stat: %s", strerror(errno));
	d->base_dev = st.st_dev;
	d->base_ino = st.st_ino;
	if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode))
		return fail(err, errlen, -EINVAL, "not a regular file or block device");
	off_t end = lseek(fd, 0, SEEK_END); /* st_size is 0 for a block device */
	if (end < 0)
		return fail(err, errlen, -errno, "cannot find the size: %s", strerror(errno));
	if (end == 0)
		return fail(err, errlen, -EINVAL, "image is empty (size 0)");
	if (end % DISK_SECTOR_SIZE)
		return fail(err, errlen, -EINVAL, "size %lld is not a multiple of %u bytes",
			    (long long)end, DISK_SECTOR_SIZE);
	d->size = (uint64_t)end;
	return 0;
}

/* Allocate the chunk table, the saved-at markers and the two bitmaps, all
 * zero. */
static int alloc_tables(struct disk *d)
{
	d->nchunks = (d->size + DISK_CHUNK_SIZE - 1) / DISK_CHUNK_SIZE;
	d->chunks = calloc(d->nchunks, sizeof(*d->chunks));
	d->saved_at = calloc(d->nchunks, sizeof(*d->saved_at));
	d->written = calloc(1, bitmap_bytes(d->nchunks));
	d->read = calloc(1, bitmap_bytes(d->nchunks));
	return d->chunks && d->saved_at && d->written && d->read ? 0 : -ENOMEM;
}

int disk_open(struct disk *d, const char *path, bool read_only, char *err, size_t errlen)
{
	*d = (struct disk){.read_only = read_only};
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fail(err, errlen, -errno, "cannot open: %s", strerror(errno));
	int rc = check_base(fd, d, err, errlen);
	if (rc) {
		close(fd);
		return rc;
	}
	void *p = mmap(NULL, d->size, PROT_READ, MAP_PRIVATE, fd, 0);
	rc = p == MAP_FAILED ? -errno : 0;
	close(fd);
	if (rc)
		return fail(err, errlen, rc, "cannot map: %s", strerror(-rc));
	d->base = p;
	if (alloc_tables(d)) {
		disk_close(d);
		return fail(err, errlen, -ENOMEM, "out of memory for the chunk table");
	}
	return 0;
}

void disk_close(struct disk *d)
{
	for (uint64_t i = 0; d->chunks && i < d->nchunks; i++)
		free(d->chunks[i]);
	for (uint64_t u = 0; u < d->nundo; u++)
		free(d->undo[u].saved);
	while (d->spares) {
		struct disk_spare *s = d->spares;
		d->spares = s->next;
		free(s);
	}
	free(d->chunks);
	free(d->saved_at);
	free(d->undo_chunk);
	free(d->undo);
	free(d->written);
	free(d->read);
	free(d->log);
	free(d->wlog);
	free(d->wbytes);
	if (d->base)
		munmap((void *)d->base, d->size);
	*d = (struct disk){0};
}

uint64_t disk_sectors(const struct disk *d)
{
	return d->size / DISK_SECTOR_SIZE;
}

static bool in_range(const struct disk *d, uint64_t sector, uint64_t n)
{
	uint64_t total = disk_sectors(d);
	return n <= total && sector <= total - n;
}

/* The current bytes of chunk i: its private copy, or the base's. */
static const uint8_t *chunk_bytes(const struct disk *d, uint64_t i)
{
	return d->chunks[i] ? d->chunks[i] : d->base + i * DISK_CHUNK_SIZE;
}

/* Bytes of chunk i inside the disk (less than a chunk only for the last). */
static uint64_t chunk_len(const struct disk *d, uint64_t i)
{
	uint64_t left = d->size - i * DISK_CHUNK_SIZE;
	return left < DISK_CHUNK_SIZE ? left : DISK_CHUNK_SIZE;
}

/* A chunk buffer, its content undefined: a spare from the pool if there is
 * one, else a new one. NULL when out of memory. */
static uint8_t *buf_get(struct disk *d)
{
	struct disk_spare *s = d->spares;
	if (!s)
		return malloc(DISK_CHUNK_SIZE);
	d->spares = s->next;
	d->nspares--;
	return (uint8_t *)s;
}

/* Give a chunk buffer up: into the pool while it has room, else freed. */
static void buf_put(struct disk *d, uint8_t *b)
{
	if (d->nspares == DISK_POOL_MAX) {
		free(b);
		return;
	}
	struct disk_spare *s = (struct disk_spare *)b;
	s->next = d->spares;
	d->spares = s;
	d->nspares++;
}

/* Room for one more undo entry. 0, or -ENOMEM with nothing changed (a
 * grown undo_chunk alone is harmless: capundo still bounds both). */
static int undo_reserve(struct disk *d)
{
	if (d->nundo < d->capundo)
		return 0;
	uint64_t cap = d->capundo ? 2 * d->capundo : 64;
	uint64_t *chunks = realloc(d->undo_chunk, cap * sizeof(*chunks));
	if (!chunks)
		return -ENOMEM;
	d->undo_chunk = chunks;
	struct disk_undo *undo = realloc(d->undo, cap * sizeof(*undo));
	if (!undo)
		return -ENOMEM;
	d->undo = undo;
	d->capundo = cap;
	return 0;
}

/* Append (i, saved) to the top level's list and mark chunk i saved there.
 * Assumes undo_reserve succeeded. */
static void undo_push(struct disk *d, uint64_t i, uint8_t *saved)
{
	d->undo_chunk[d->nundo] = i;
	d->undo[d->nundo] = (struct disk_undo){saved, d->saved_at[i]};
	d->nundo++;
	d->saved_at[i] = (uint16_t)d->depth;
}

/* Pop the newest undo entry and put its chunk back as it was (invariant 5):
 * the base's bytes for a fresh entry, else the saved copy. */
static void undo_one(struct disk *d)
{
	uint64_t u = --d->nundo, i = d->undo_chunk[u];
	struct disk_undo e = d->undo[u];
	buf_put(d, d->chunks[i]);
	d->chunks[i] = e.saved;
	d->saved_at[i] = e.prev_level;
	if (!e.saved)
		d->nprivate--;
}

static void undo_to(struct disk *d, uint64_t mark)
{
	while (d->nundo > mark)
		undo_one(d);
}

/* Make chunk i buffer b holding the base's bytes (copy-up). */
static void copy_up(struct disk *d, uint64_t i, uint8_t *b)
{
	uint64_t len = chunk_len(d, i);
	memcpy(b, d->base + i * DISK_CHUNK_SIZE, len);
	memset(b + len, 0, DISK_CHUNK_SIZE - len);
	d->chunks[i] = b;
	d->nprivate++;
}

/* Make chunk i writable in place. A chunk reading as the base is copied up;
 * at a fork level the first write to a chunk in the level also appends its
 * entry to the top list: fresh after a copy-up, else a copy of its content
 * (the chunk keeps its buffer). Later writes in the level cost nothing
 * extra. 0 or -ENOMEM with nothing changed. */
static int chunk_for_write(struct disk *d, uint64_t i)
{
	uint8_t *cur = d->chunks[i];
	if (cur && (d->depth == 0 || d->saved_at[i] == d->depth))
		return 0;
	if (d->depth && undo_reserve(d))
		return -ENOMEM;
	uint8_t *b = buf_get(d);
	if (!b)
		return -ENOMEM;
	if (cur) {
		memcpy(b, cur, DISK_CHUNK_SIZE);
		undo_push(d, i, b);
		return 0;
	}
	copy_up(d, i, b);
	if (d->depth)
		undo_push(d, i, NULL);
	return 0;
}

/* Copy n sectors from `sector` out to buf (NULL: only check the range);
 * mark the chunks read in `read` unless it is NULL. */
static int copy_out(const struct disk *d, uint64_t sector, void *buf, uint64_t n, uint64_t *read)
{
	if (!in_range(d, sector, n))
		return -EINVAL;
	uint8_t *out = buf;
	uint64_t pos = sector * DISK_SECTOR_SIZE, end = pos + n * DISK_SECTOR_SIZE;
	while (out && pos < end) {
		uint64_t i = pos / DISK_CHUNK_SIZE, off = pos % DISK_CHUNK_SIZE;
		uint64_t len =
		    DISK_CHUNK_SIZE - off < end - pos ? DISK_CHUNK_SIZE - off : end - pos;
		memcpy(out, chunk_bytes(d, i) + off, len);
		if (read)
			bit_set(read, i);
		out += len;
		pos += len;
	}
	return 0;
}

int disk_read(struct disk *d, uint64_t sector, void *buf, uint64_t n)
{
	return copy_out(d, sector, buf, n, d->read);
}

int disk_peek(const struct disk *d, uint64_t sector, void *buf, uint64_t n)
{
	return copy_out(d, sector, buf, n, NULL);
}

int disk_write(struct disk *d, uint64_t sector, const void *buf, uint64_t n)
{
	if (d->read_only)
		return -EROFS;
	if (!in_range(d, sector, n))
		return -EINVAL;
	if (n == 0)
		return 0;
	uint64_t pos = sector * DISK_SECTOR_SIZE, end = pos + n * DISK_SECTOR_SIZE;
	/* Make every chunk writable first, so that a failed allocation changes
	 * no byte: the entries appended so far are popped again (a copy-up at
	 * the root stays, holding the same bytes). */
	uint64_t mark = d->nundo;
	for (uint64_t i = pos / DISK_CHUNK_SIZE; i <= (end - 1) / DISK_CHUNK_SIZE; i++) {
		if (chunk_for_write(d, i)) {
			undo_to(d, mark);
			return -ENOMEM;
		}
	}
	const uint8_t *in = buf;
	while (pos < end) {
		uint64_t i = pos / DISK_CHUNK_SIZE, off = pos % DISK_CHUNK_SIZE;
		uint64_t len =
		    DISK_CHUNK_SIZE - off < end - pos ? DISK_CHUNK_SIZE - off : end - pos;
		memcpy(d->chunks[i] + off, in, len);
		bit_set(d->written, i);
		in += len;
		pos += len;
	}
	return 0;
}

/* write(2) all of buf, through short writes and signals. 0 or -errno. */
static int write_all(int fd, const uint8_t *buf, uint64_t len)
{
	while (len) {
		ssize_t w = write(fd, buf, len < (1u << 30) ? len : (1u << 30));
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		buf += w;
		len -= (uint64_t)w;
	}
	return 0;
}

/* Call fn on the whole content in order: once for each run of base chunks
 * (contiguous in the mapping) and once for each private chunk. Returns the
 * first nonzero result of fn, else 0. */
static int for_each_run(const struct disk *d, int (*fn)(void *ctx, const uint8_t *p, uint64_t len),
			void *ctx)
{
	uint64_t i = 0;
	while (i < d->nchunks) {
		uint64_t j = i + 1, len = chunk_len(d, i);
		for (; !d->chunks[i] && j < d->nchunks && !d->chunks[j]; j++)
			len += chunk_len(d, j);
		int rc = fn(ctx, chunk_bytes(d, i), len);
		if (rc)
			return rc;
		i = j;
	}
	return 0;
}

static int write_run(void *ctx, const uint8_t *p, uint64_t len)
{
	return write_all(*(int *)ctx, p, len);
}

int disk_save(const struct disk *d, const char *path, char *err, size_t errlen)
{
	/* No O_TRUNC yet: the base must be recognised before anything is cut. */
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return fail(err, errlen, -errno, "cannot create: %s", strerror(errno));
	struct stat st;
	int rc = fstat(fd, &st) ? -errno : 0;
	if (!rc && st.st_dev == d->base_dev && st.st_ino == d->base_ino) {
		close(fd);
		return fail(err, errlen, -EEXIST, "refusing to overwrite the base image");
	}
	if (!rc && ftruncate(fd, 0))
		rc = -errno;
	if (!rc)
		rc = for_each_run(d, write_run, &fd);
	if (close(fd) && !rc)
		rc = -errno;
	if (rc)
		return fail(err, errlen, rc, "cannot write: %s", strerror(-rc));
	return 0;
}

uint64_t disk_chunks(const struct disk *d)
{
	return d->nchunks;
}

uint64_t disk_chunk_len(const struct disk *d, uint64_t chunk)
{
	return chunk_len(d, chunk);
}

bool disk_chunk_private(const struct disk *d, uint64_t chunk)
{
	return chunk < d->nchunks && d->chunks[chunk];
}

bool disk_chunk_written(const struct disk *d, uint64_t chunk)
{
	return chunk < d->nchunks && bit_get(d->written, chunk);
}

bool disk_chunk_read(const struct disk *d, uint64_t chunk)
{
	return chunk < d->nchunks && bit_get(d->read, chunk);
}

void disk_clear_io(struct disk *d)
{
	if (!d->nchunks)
		return;
	memset(d->written, 0, bitmap_bytes(d->nchunks));
	memset(d->read, 0, bitmap_bytes(d->nchunks));
}

int disk_log_request(struct disk *d, enum disk_req_kind kind, uint64_t sector, uint64_t count)
{
	if (d->powered_off)
		return 0;
	if (d->nlog == d->caplog) {
		uint64_t cap = d->caplog ? 2 * d->caplog : 1024;
		struct disk_req *log =
		    d->nlog < DISK_LOG_MAX ? realloc(d->log, cap * sizeof(*log)) : NULL;
		if (!log) {
			d->log_lost++;
			d->epoch += kind == DISK_REQ_FLUSH;
			return -ENOMEM;
		}
		d->log = log;
		d->caplog = cap;
	}
	d->log[d->nlog++] = (struct disk_req){
	    .sector = sector, .count = (uint32_t)count, .kind = (uint16_t)kind, .epoch = d->epoch};
	d->epoch += kind == DISK_REQ_FLUSH;
	return 0;
}

uint64_t disk_log(const struct disk *d, const struct disk_req **list)
{
	*list = d->log;
	return d->nlog;
}

uint64_t disk_epoch(const struct disk *d)
{
	return d->epoch;
}

/* Chunk i of d made want's bytes where they differ: 1 written, 0 the
 * same already, or disk_write's error. */
static int take_chunk(struct disk *d, uint64_t i, const uint8_t *want)
{
	uint64_t len = chunk_len(d, i);
	if (!memcmp(chunk_bytes(d, i), want, len))
		return 0;
	int rc = disk_write(d, i * DISK_SECTORS_PER_CHUNK, want, len / DISK_SECTOR_SIZE);
	return rc ? rc : 1;
}

int disk_copy_content(struct disk *d, const struct disk *src)
{
	if (d->size != src->size || d->base_dev != src->base_dev || d->base_ino != src->base_ino)
		return -EINVAL;
	for (uint64_t i = 0; i < d->nchunks; i++) {
		int rc = d->chunks[i] || src->chunks[i] ? take_chunk(d, i, chunk_bytes(src, i)) : 0;
		if (rc < 0)
			return rc;
	}
	return 0;
}

int disk_import(struct disk *d, const uint8_t *image, const uint64_t *candidates, uint64_t *changed)
{
	for (uint64_t i = 0; i < d->nchunks; i++) {
		if (candidates && !bit_get(candidates, i))
			continue;
		int rc = take_chunk(d, i, image + i * DISK_CHUNK_SIZE);
		if (rc < 0)
			return rc;
		if (rc)
			bit_set(changed, i);
	}
	return 0;
}

int disk_fork(struct disk *d)
{
	if (d->depth == DISK_MAX_DEPTH)
		return -EOVERFLOW;
	d->level_start[++d->depth] = d->nundo;
	d->log_start[d->depth] = d->nlog;
	d->epoch_start[d->depth] = d->epoch;
	d->wlog_start[d->depth] = d->wbase + d->nwlog;
	d->wbytes_start[d->depth] = d->wbbase + d->nwbytes;
	d->wkeep_start[d->depth] = d->wkeep;
	return 0;
}

int disk_restore(struct disk *d)
{
	if (d->depth == 0)
		return -EINVAL;
	undo_to(d, d->level_start[d->depth]);
	d->nlog = d->log_start[d->depth];
	d->epoch = d->epoch_start[d->depth];
	/* The entries before a level's start are never compacted away while
	 * it is open (disk_wlog_keep), so cutting back is a truncation. */
	d->nwlog = d->wlog_start[d->depth] - d->wbase;
	d->nwbytes = d->wbytes_start[d->depth] - d->wbbase;
	d->wkeep = d->wkeep_start[d->depth];
	return 0;
}

int disk_release(struct disk *d)
{
	int rc = disk_restore(d);
	if (rc == 0)
		d->depth--;
	return rc;
}

unsigned disk_depth(const struct disk *d)
{
	return d->depth;
}

uint64_t disk_level_chunks(const struct disk *d, const uint64_t **list)
{
	uint64_t start = d->depth ? d->level_start[d->depth] : d->nundo;
	*list = d->nundo > start ? d->undo_chunk + start : NULL;
	return d->nundo - start;
}

static int hash_run(void *ctx, const uint8_t *p, uint64_t len)
{
	return XXH3_128bits_update(ctx, p, len) == XXH_OK ? 0 : -EINVAL;
}

void disk_hash(const struct disk *d, uint8_t out[16])
{
	XXH3_state_t st;
	XXH3_INITSTATE(&st);
	XXH3_128bits_reset(&st);
	for_each_run(d, hash_run, &st); /* cannot fail: the state is valid */
	XXH128_canonical_t c;
	XXH128_canonicalFromHash(&c, XXH3_128bits_digest(&st));
	memcpy(out, c.digest, sizeof(c.digest));
}

void disk_private_key(const struct disk *d, uint64_t salt, uint8_t key[16])
{
	XXH3_state_t st;
	XXH3_INITSTATE(&st);
	XXH3_128bits_reset(&st);
	XXH3_128bits_update(&st, &salt, sizeof(salt));
	for (uint64_t c = 0; c < d->nchunks; c++) {
		uint64_t len = chunk_len(d, c);
		if (!d->chunks[c] || !memcmp(d->chunks[c], d->base + c * DISK_CHUNK_SIZE, len))
			continue;
		XXH3_128bits_update(&st, &c, sizeof(c));
		XXH3_128bits_update(&st, d->chunks[c], len);
	}
	XXH128_canonical_t h;
	XXH128_canonicalFromHash(&h, XXH3_128bits_digest(&st));
	memcpy(key, h.digest, 16);
}

/* --- disk_check: the invariants at the top of this file ------------------ */

/* The end (one past the last entry) of level l's list. */
static uint64_t level_end(const struct disk *d, unsigned l)
{
	return l < d->depth ? d->level_start[l + 1] : d->nundo;
}

static bool levels_ok(const struct disk *d)
{
	if (d->depth > DISK_MAX_DEPTH || d->nundo > d->capundo)
		return false;
	if (d->depth == 0)
		return d->nundo == 0;
	if (d->level_start[1] != 0)
		return false;
	for (unsigned l = 1; l <= d->depth; l++)
		if (d->level_start[l] > level_end(d, l))
			return false;
	return true;
}

/* Invariants 2 and 3 for one entry; want[i] is the level chunk i's next
 * entry (walking newest first) must have, and moves down the chain. */
static int entry_ok(const struct disk *d, uint64_t u, unsigned l, uint16_t *want)
{
	uint64_t i = d->undo_chunk[u];
	const struct disk_undo *e = &d->undo[u];
	if (i >= d->nchunks || want[i] != l || e->prev_level >= l)
		return 2;
	if (!d->chunks[i] || (!e->saved && e->prev_level))
		return 3;
	want[i] = e->prev_level;
	return 0;
}

/* Invariants 2 and 3: walk every list newest first along a scratch copy of
 * saved_at; each chain must end at 0. */
static int chains_ok(const struct disk *d)
{
	uint16_t *want = malloc(d->nchunks * sizeof(*want));
	if (!want)
		return -ENOMEM;
	memcpy(want, d->saved_at, d->nchunks * sizeof(*want));
	int rc = 0;
	for (unsigned l = d->depth; l >= 1 && !rc; l--)
		for (uint64_t u = level_end(d, l); u-- > d->level_start[l] && !rc;)
			rc = entry_ok(d, u, l, want);
	for (uint64_t i = 0; i < d->nchunks && !rc; i++)
		if (want[i])
			rc = 2;
	free(want);
	return rc;
}

static bool tail_zero(const struct disk *d, const uint8_t *b)
{
	uint64_t len = chunk_len(d, d->nchunks - 1);
	for (uint64_t k = len; k < DISK_CHUNK_SIZE; k++)
		if (b[k])
			return false;
	return true;
}

/* Invariant 4. */
static bool buffers_ok(const struct disk *d)
{
	uint64_t last = d->nchunks - 1;
	if (d->chunks[last] && !tail_zero(d, d->chunks[last]))
		return false;
	for (uint64_t u = 0; u < d->nundo; u++) {
		const uint8_t *saved = d->undo[u].saved;
		if (saved && saved == d->chunks[d->undo_chunk[u]])
			return false;
		if (saved && d->undo_chunk[u] == last && !tail_zero(d, saved))
			return false;
	}
	return true;
}

/* Invariants 6 and 7 (the counts). */
static int counts_ok(const struct disk *d)
{
	uint64_t n = 0;
	for (uint64_t i = 0; i < d->nchunks; i++)
		n += d->chunks[i] != NULL;
	if (n != d->nprivate)
		return 6;
	unsigned spares = 0;
	for (const struct disk_spare *s = d->spares; s && spares <= DISK_POOL_MAX; s = s->next)
		spares++;
	return spares == d->nspares && spares <= DISK_POOL_MAX ? 0 : 7;
}

int disk_check(const struct disk *d)
{
	if (!levels_ok(d))
		return 1;
	int rc = chains_ok(d);
	if (rc)
		return rc;
	if (!buffers_ok(d))
		return 4;
	return counts_ok(d);
}

int disk_read_bytes(void *disk, uint64_t off, void *buf, size_t n)
{
	struct disk *d = disk;
	uint8_t *p = buf;
	while (n) {
		uint64_t sec = off / DISK_SECTOR_SIZE, in = off % DISK_SECTOR_SIZE;
		if (!in && n >= DISK_SECTOR_SIZE) { /* whole sectors straight in */
			uint64_t k = n / DISK_SECTOR_SIZE;
			if (disk_read(d, sec, p, k))
				return -1;
			p += k * DISK_SECTOR_SIZE;
			off += k * DISK_SECTOR_SIZE;
			n -= k * DISK_SECTOR_SIZE;
			continue;
		}
		uint8_t bounce[DISK_SECTOR_SIZE];
		if (disk_read(d, sec, bounce, 1))
			return -1;
		size_t take = DISK_SECTOR_SIZE - in < n ? DISK_SECTOR_SIZE - in : n;
		memcpy(p, bounce + in, take);
		p += take;
		off += take;
		n -= take;
	}
	return 0;
}
