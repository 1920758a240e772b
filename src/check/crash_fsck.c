/* crash_fsck.c - see crash_fsck.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crash_fsck.h"

static int write_chunk(int fd, const struct disk *d, uint64_t c, bool base)
{
	uint8_t buf[DISK_CHUNK_SIZE];
	uint64_t off = c * DISK_CHUNK_SIZE, len = d->size - off;
	len = len < DISK_CHUNK_SIZE ? len : DISK_CHUNK_SIZE;
	const void *p = base ? d->base + off : buf;
	if (!base)
		disk_peek(d, c * DISK_SECTORS_PER_CHUNK, buf, len / DISK_SECTOR_SIZE);
	return pwrite(fd, p, len, (off_t)off) == (ssize_t)len ? 0 : -1;
}

/* Make the scratch image of disk i: the base, once. */
static int scratch_make(struct crash_scratch *s, const struct disk *d, char *said, size_t saidlen)
{
	const char *tmp = corrupt_fsck_scratch_dir();
	snprintf(s->path, sizeof(s->path), "%s/themis-crash-XXXXXX", tmp);
	s->fd = mkstemp(s->path);
	/* Unlinked at once: no exit, however abrupt (a worker's _exit, a
	 * kill), leaves it behind. The checker opens it through this
	 * process's descriptor. */
	s->pid = getpid();
	if (s->fd >= 0) {
		unlink(s->path);
		snprintf(s->path, sizeof(s->path), "/proc/%d/fd/%d", (int)getpid(), s->fd);
	}
	s->dirty = malloc(disk_chunks(d) * sizeof(*s->dirty));
	bool ok = s->fd >= 0 && s->dirty;
	for (uint64_t off = 0; ok && off < d->size;) {
		ssize_t w = pwrite(s->fd, d->base + off, d->size - off, (off_t)off);
		ok = w > 0;
		off += ok ? (uint64_t)w : 0;
	}
	if (!ok) {
		snprintf(said, saidlen, "scratch image %s: %s", s->path, strerror(errno));
		if (s->fd >= 0)
			close(s->fd);
		free(s->dirty);
		*s = (struct crash_scratch){.fd = -1};
		return -1;
	}
	s->ndirty = 0;
	return 0;
}

/* Bring the scratch image to the disk's content: the chunks that
 * differed last time back to the base, then the private ones. */
static int scratch_sync(struct crash_scratch *s, const struct disk *d)
{
	for (uint64_t k = 0; k < s->ndirty; k++)
		if (!disk_chunk_private(d, s->dirty[k]) && write_chunk(s->fd, d, s->dirty[k], true))
			return -1;
	s->ndirty = 0;
	for (uint64_t c = 0; c < disk_chunks(d); c++)
		if (disk_chunk_private(d, c)) {
			if (write_chunk(s->fd, d, c, false))
				return -1;
			s->dirty[s->ndirty++] = c;
		}
	return 0;
}

static enum corrupt_fsck_verdict run_checker(struct crash_fsck *c, const struct disk *d, int i,
					     const char *fs, char *said, size_t saidlen)
{
	struct crash_scratch *s = &c->scratch[i];
	said[0] = 0;
	if (i < 0 || i >= CRASH_FSCK_MAX_DISKS) {
		snprintf(said, saidlen, "disk %d: too many disks for the crash checker", i);
		return CORRUPT_FSCK_NOT_RUN;
	}
	/* A scratch image made before this worker was forked is its
	 * parent's, and its siblings' too: not this process's to rewrite. */
	if (s->path[0] && s->pid != getpid()) {
		close(s->fd);
		free(s->dirty);
		*s = (struct crash_scratch){.fd = -1};
	}
	if (!s->path[0] && scratch_make(s, d, said, saidlen))
		return CORRUPT_FSCK_NOT_RUN;
	if (scratch_sync(s, d)) {
		snprintf(said, saidlen, "scratch image %s: %s", s->path, strerror(errno));
		return CORRUPT_FSCK_NOT_RUN;
	}
	char out[4200];
	const char *tmp = corrupt_fsck_scratch_dir();
	snprintf(out, sizeof(out), "%s/themis-crash-%d-%d.fsck", tmp, (int)getpid(), i);
	struct corrupt_fsck fc;
	int status;
	enum corrupt_fsck_verdict v = CORRUPT_FSCK_NOT_RUN;
	if (!corrupt_fsck_start(&fc, fs, s->path, out))
		v = corrupt_fsck_wait(&fc, c->timeout, &status, said, saidlen);
	unlink(out);
	/* The scratch name is no part of what the checker found. */
	char *at = strstr(said, s->path);
	size_t n = strlen(s->path);
	if (at)
		memmove(at, at + n + (at[n] == ':'), strlen(at + n + (at[n] == ':')) + 1);
	return v;
}

enum corrupt_fsck_verdict crash_fsck_disk(struct crash_fsck *c, const struct disk *d, int i,
					  const char *fs, char *said, size_t saidlen)
{
	uint8_t key[16];
	disk_private_key(d, (uint64_t)i, key);
	uint64_t slot;
	memcpy(&slot, key, sizeof(slot));
	struct crash_fsck_entry *e = &c->e[slot % CRASH_FSCK_SLOTS];
	if (e->used && !memcmp(e->key, key, 16) && !c->no_memo) {
		c->hits++;
	} else {
		c->runs++;
		e->verdict = (uint8_t)run_checker(c, d, i, fs, e->said, sizeof(e->said));
		memcpy(e->key, key, 16);
		e->used = 1;
	}
	snprintf(said, saidlen, "%s", e->said);
	return (enum corrupt_fsck_verdict)e->verdict;
}

void crash_fsck_free(struct crash_fsck *c)
{
	for (int i = 0; i < CRASH_FSCK_MAX_DISKS; i++) {
		struct crash_scratch *s = &c->scratch[i];
		if (s->path[0])
			close(s->fd);
		free(s->dirty);
		*s = (struct crash_scratch){.fd = -1};
	}
}
