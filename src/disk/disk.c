/* disk.c - see disk.h. The base is mmap'ed read-only (PROT_READ), so even a
 * bug here cannot write it; its descriptor is closed once mapped. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "disk.h"

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

/* Allocate the chunk table and the two bitmaps, all zero. */
static int alloc_tables(struct disk *d)
{
	d->nchunks = (d->size + DISK_CHUNK_SIZE - 1) / DISK_CHUNK_SIZE;
	d->chunks = calloc(d->nchunks, sizeof(*d->chunks));
	d->written = calloc(1, bitmap_bytes(d->nchunks));
	d->read = calloc(1, bitmap_bytes(d->nchunks));
	return d->chunks && d->written && d->read ? 0 : -ENOMEM;
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
	free(d->chunks);
	free(d->written);
	free(d->read);
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

/* Make chunk i private (copy-up). The one place a table entry changes: fork
 * levels will record their undo entry here. 0 or -ENOMEM. */
static int chunk_for_write(struct disk *d, uint64_t i)
{
	if (d->chunks[i])
		return 0;
	uint8_t *c = calloc(1, DISK_CHUNK_SIZE);
	if (!c)
		return -ENOMEM;
	memcpy(c, d->base + i * DISK_CHUNK_SIZE, chunk_len(d, i));
	d->chunks[i] = c;
	d->nprivate++;
	return 0;
}

int disk_read(struct disk *d, uint64_t sector, void *buf, uint64_t n)
{
	if (!in_range(d, sector, n))
		return -EINVAL;
	uint8_t *out = buf;
	uint64_t pos = sector * DISK_SECTOR_SIZE, end = pos + n * DISK_SECTOR_SIZE;
	while (pos < end) {
		uint64_t i = pos / DISK_CHUNK_SIZE, off = pos % DISK_CHUNK_SIZE;
		uint64_t len =
		    DISK_CHUNK_SIZE - off < end - pos ? DISK_CHUNK_SIZE - off : end - pos;
		memcpy(out, chunk_bytes(d, i) + off, len);
		bit_set(d->read, i);
		out += len;
		pos += len;
	}
	return 0;
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
	/* Copy up every chunk first, so a failed allocation changes nothing. */
	for (uint64_t i = pos / DISK_CHUNK_SIZE; i <= (end - 1) / DISK_CHUNK_SIZE; i++)
		if (chunk_for_write(d, i))
			return -ENOMEM;
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

/* Write the content, one write for each run of base chunks (they are
 * contiguous in the mapping) and one for each private chunk. */
static int write_content(const struct disk *d, int fd)
{
	uint64_t i = 0;
	while (i < d->nchunks) {
		uint64_t j = i + 1, len = chunk_len(d, i);
		for (; !d->chunks[i] && j < d->nchunks && !d->chunks[j]; j++)
			len += chunk_len(d, j);
		int rc = write_all(fd, chunk_bytes(d, i), len);
		if (rc)
			return rc;
		i = j;
	}
	return 0;
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
		rc = write_content(d, fd);
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
