/* crash_replay.c - see crash_replay.h. */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../fs/fs.h"
#include "corrupt_fsck.h"
#include "crash_replay.h"

/* fs's replay (its descriptor's, src/fs), or NULL when its kernel
 * recovers on its own. */
static const struct fs_desc *replay_of(const char *fs)
{
	const struct fs_desc *d = fs_find(fs);
	return d && d->replay[0] ? d : NULL;
}

const char *crash_replay_command(const char *fs)
{
	static char line[128];
	const struct fs_desc *d = replay_of(fs);
	return d ? fs_join(d->replay, FS_ARGV_MAX, line, sizeof(line)) : NULL;
}

/* Whether the output at `out` holds a line with `words`: into said. */
static bool said_failure(const char *out, const char *words, char *said, size_t saidlen)
{
	FILE *f = fopen(out, "r");
	if (!f)
		return false;
	char line[512];
	bool found = false;
	while (!found && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\r\n")] = 0;
		if ((found = strstr(line, words) != NULL))
			snprintf(said, saidlen, "%s", line);
	}
	fclose(f);
	return found;
}

/* The tool on image, its output to out; 0 it exited 0, 1 it failed
 * (said), -1 not started. */
static int run_tool(const struct fs_desc *k, const char *image, const char *out, double timeout_s,
		    char *said, size_t saidlen)
{
	const char *argv[FS_ARGV_MAX + 2] = {0};
	int n = 0;
	for (; n < FS_ARGV_MAX && k->replay[n]; n++)
		argv[n] = k->replay[n];
	argv[n] = image;
	struct corrupt_fsck c = {.fs = k->name};
	int status = -1, rc = 0;
	if (corrupt_fsck_spawn(&c, argv, out)) {
		snprintf(said, saidlen, "%s could not be started", argv[0]);
		rc = -1;
	} else {
		enum corrupt_fsck_verdict v =
		    corrupt_fsck_wait(&c, timeout_s, &status, said, saidlen);
		if (v == CORRUPT_FSCK_MISSING)
			snprintf(said, saidlen, "%s is not installed", argv[0]);
		else if (status != 0 && !said[0])
			snprintf(said, saidlen, "%s: %s (exit status %d)", argv[0],
				 corrupt_fsck_name(v), status);
		rc = status == 0 ? 0 : 1;
		if (!rc && k->replay_failed && said_failure(out, k->replay_failed, said, saidlen))
			rc = 1;
	}
	unlink(out);
	return rc;
}

void crash_replay_scratch_free(struct crash_replay_scratch *s)
{
	if (s->map)
		munmap(s->map, s->size);
	if (s->map && s->fd >= 0)
		close(s->fd);
	free(s->dirty);
	free(s->data);
	memset(s, 0, sizeof(*s));
}

/* The scratch file is sparse: a chunk of zeros is a hole, so the chunks
 * that hold data (SEEK_DATA) are the few the disk uses plus those the
 * tool wrote, and only those are compared after it (an image is mostly
 * zeros; comparing all of it was a sixth of a jfs crash run). */
static bool zeros(const uint8_t *p, size_t n)
{
	return n == 0 || (p[0] == 0 && !memcmp(p, p + 1, n - 1));
}

/* The 64-bit words of a bitmap of the chunks of `size` bytes. */
static uint64_t chunk_words(uint64_t size)
{
	return (size + 64 * (uint64_t)DISK_CHUNK_SIZE - 1) / (64 * (uint64_t)DISK_CHUNK_SIZE);
}

/* Chunk c of the file made d's: its bytes, or a hole where they are zeros. */
static void scratch_put(struct crash_replay_scratch *s, const struct disk *d, uint64_t c)
{
	uint64_t off = c * DISK_CHUNK_SIZE, len = disk_chunk_len(d, c);
	disk_peek(d, c * DISK_SECTORS_PER_CHUNK, s->map + off, len / DISK_SECTOR_SIZE);
	/* A hint: zeros that stay data are only compared once more. */
	if (zeros(s->map + off, len))
		(void)fallocate(s->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)off,
				(off_t)len);
}

/* The chunks of the file that hold data, into s->data: false when the
 * file's filesystem cannot say (every chunk is then a candidate). */
static bool scratch_data(struct crash_replay_scratch *s)
{
	memset(s->data, 0, chunk_words(s->size) * sizeof(*s->data));
	off_t at = 0, end;
	while ((at = lseek(s->fd, at, SEEK_DATA)) >= 0) {
		if ((end = lseek(s->fd, at, SEEK_HOLE)) < 0)
			return false;
		for (uint64_t c = (uint64_t)at / DISK_CHUNK_SIZE;
		     c * DISK_CHUNK_SIZE < (uint64_t)end; c++)
			s->data[c / 64] |= 1ULL << (c % 64);
		at = end;
	}
	return errno == ENXIO;
}

/* Make s: a file of d's size holding the base's bytes, unlinked at once
 * (no exit leaves it behind; the tool opens it by this process's
 * descriptor) and mapped. 0, or -1 with why in said. */
static int scratch_make(struct crash_replay_scratch *s, const struct disk *d, char *said,
			size_t saidlen)
{
	char name[4096];
	snprintf(name, sizeof(name), "%s/themis-replay-XXXXXX", corrupt_fsck_scratch_dir());
	int fd = mkstemp(name);
	if (fd < 0) {
		snprintf(said, saidlen, "%s: %s", name, strerror(errno));
		return -1;
	}
	unlink(name);
	uint64_t words = chunk_words(d->size);
	s->dirty = calloc(words, sizeof(*s->dirty));
	s->data = calloc(words, sizeof(*s->data));
	s->map = ftruncate(fd, (off_t)d->size)
		     ? MAP_FAILED
		     : mmap(NULL, d->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (!s->dirty || !s->data || s->map == MAP_FAILED) {
		snprintf(said, saidlen, "scratch image %s: %s", name, strerror(errno));
		s->map = NULL;
		close(fd);
		crash_replay_scratch_free(s);
		return -1;
	}
	s->size = d->size;
	s->fd = fd;
	for (uint64_t c = 0; c < disk_chunks(d); c++) {
		uint64_t off = c * DISK_CHUNK_SIZE, len = disk_chunk_len(d, c);
		if (!zeros(d->base + off, len))
			memcpy(s->map + off, d->base + off, len);
	}
	s->pid = getpid();
	snprintf(s->path, sizeof(s->path), "/proc/%d/fd/%d", (int)s->pid, fd);
	return 0;
}

/* Bring s to d's content: every chunk that may differ from the base in
 * the file or in d, copied from d. */
static void scratch_sync(struct crash_replay_scratch *s, const struct disk *d)
{
	for (uint64_t c = 0; c < disk_chunks(d); c++) {
		bool dirty = s->dirty[c / 64] >> (c % 64) & 1, private = disk_chunk_private(d, c);
		if (!dirty && !private)
			continue;
		scratch_put(s, d, c);
		s->dirty[c / 64] = private ? s->dirty[c / 64] | 1ULL << (c % 64)
					   : s->dirty[c / 64] & ~(1ULL << (c % 64));
	}
}

int crash_replay(struct crash_replay_scratch *s, struct disk *d, const char *fs, double timeout_s,
		 char *said, size_t saidlen)
{
	said[0] = 0;
	const struct fs_desc *k = replay_of(fs);
	if (!k)
		return 0;
	/* A parent's image is its other children's too: this process lets go
	 * of its own mapping and descriptor only, and makes its own. */
	if (s->map && (s->pid != getpid() || s->size != d->size))
		crash_replay_scratch_free(s);
	if (!s->map && scratch_make(s, d, said, saidlen))
		return -1;
	scratch_sync(s, d);
	char out[4200];
	snprintf(out, sizeof(out), "%s/themis-replay-%d-%d.out", corrupt_fsck_scratch_dir(),
		 (int)getpid(), s->fd);
	int rc = run_tool(k, s->path, out, timeout_s, said, saidlen);
	/* The tool wrote only where the file now holds data. */
	if (rc == 0 && disk_import(d, s->map, scratch_data(s) ? s->data : NULL, s->dirty)) {
		snprintf(said, saidlen, "out of memory writing the replay back");
		rc = -1;
	}
	/* The scratch name is no part of what the tool said. */
	char *at = strstr(said, s->path);
	if (at)
		memmove(at, at + strlen(s->path), strlen(at + strlen(s->path)) + 1);
	return rc;
}
