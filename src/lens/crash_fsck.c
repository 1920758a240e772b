/* crash_fsck.c - see crash_fsck.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../format/fsck_key.h"
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

/* A checker started on disk i's scratch image, to be waited for. */
struct started {
	struct corrupt_fsck fc;
	char out[4200]; /* where its output goes */
	bool on;	/* false: it could not start (the verdict is NOT_RUN) */
};

/* Bring disk i's scratch image to d's content and start fs's checker on
 * it; a reason in said when it cannot start. */
static void checker_start(struct crash_fsck *c, const struct disk *d, int i, const char *fs,
			  struct started *st, char *said, size_t saidlen)
{
	said[0] = 0;
	st->on = false;
	if (i < 0 || i >= CRASH_FSCK_MAX_DISKS) {
		snprintf(said, saidlen, "disk %d: too many disks for the crash checker", i);
		return;
	}
	struct crash_scratch *s = &c->scratch[i];
	/* A scratch image made before this worker was forked is its
	 * parent's, and its siblings' too: not this process's to rewrite. */
	if (s->path[0] && s->pid != getpid()) {
		close(s->fd);
		free(s->dirty);
		*s = (struct crash_scratch){.fd = -1};
	}
	if (!s->path[0] && scratch_make(s, d, said, saidlen))
		return;
	if (scratch_sync(s, d)) {
		snprintf(said, saidlen, "scratch image %s: %s", s->path, strerror(errno));
		return;
	}
	snprintf(st->out, sizeof(st->out), "%s/themis-crash-%d-%d.fsck", corrupt_fsck_scratch_dir(),
		 (int)getpid(), i);
	st->on = corrupt_fsck_start(&st->fc, fs, s->path, st->out) == 0;
	if (!st->on)
		unlink(st->out);
}

/* Wait for the checker started on disk i: its verdict, its first line of
 * trouble into said. */
static enum corrupt_fsck_verdict checker_finish(struct crash_fsck *c, int i, struct started *st,
						char *said, size_t saidlen)
{
	if (!st->on)
		return CORRUPT_FSCK_NOT_RUN;
	int status;
	enum corrupt_fsck_verdict v =
	    corrupt_fsck_wait(&st->fc, c->timeout, &status, said, saidlen);
	unlink(st->out);
	/* The scratch name is no part of what the checker found. */
	const char *path = c->scratch[i].path;
	char *at = strstr(said, path);
	size_t n = strlen(path);
	if (at && n)
		memmove(at, at + n + (at[n] == ':'), strlen(at + n + (at[n] == ':')) + 1);
	return v;
}

static enum corrupt_fsck_verdict run_checker(struct crash_fsck *c, const struct disk *d, int i,
					     const char *fs, char *said, size_t saidlen)
{
	struct started st;
	checker_start(c, d, i, fs, &st, said, saidlen);
	return checker_finish(c, i, &st, said, saidlen);
}

int crash_fsck_memo_parse(const char *word)
{
	static const char *const words[] = {
#define CRASH_FSCK_MEMO_WORD(name, w) w,
	    CRASH_FSCK_MEMOS(CRASH_FSCK_MEMO_WORD)
#undef CRASH_FSCK_MEMO_WORD
	};
	for (int m = 0; m < (int)(sizeof(words) / sizeof(words[0])); m++)
		if (!strcmp(word, words[m]))
			return m;
	return -1;
}

/* The check mode, at a hit the bytes would have missed: the checker
 * anyway, and a verdict other than the memo's said on stderr. */
static void check_hit(struct crash_fsck *c, const struct crash_fsck_entry *e, const struct disk *d,
		      int i, const char *fs)
{
	char said[sizeof(e->said)];
	c->n.checked++;
	enum corrupt_fsck_verdict v = run_checker(c, d, i, fs, said, sizeof(said));
	if (v == (enum corrupt_fsck_verdict)e->verdict)
		return;
	c->n.mismatches++;
	fprintf(stderr,
		"themis: fsck memo: %s's disk %d masks to a disk judged %s (%s), but its checker "
		"says %s (%s)\n",
		fs, i, corrupt_fsck_name((enum corrupt_fsck_verdict)e->verdict), e->said,
		corrupt_fsck_name(v), said);
}

static struct crash_fsck_entry *slot_of(struct crash_fsck *c, const uint8_t key[16])
{
	uint64_t slot;
	memcpy(&slot, key, sizeof(slot));
	return &c->e[slot % CRASH_FSCK_SLOTS];
}

static const struct crash_fsck_entry *find(struct crash_fsck *c, const uint8_t key[16])
{
	const struct crash_fsck_entry *e = slot_of(c, key);
	return e->used && !memcmp(e->key, key, 16) ? e : NULL;
}

static void put(struct crash_fsck *c, const uint8_t key[16], const uint8_t exact[16],
		uint8_t verdict, const char *said)
{
	struct crash_fsck_entry *e = slot_of(c, key);
	memcpy(e->key, key, 16);
	memcpy(e->exact, exact, 16);
	e->used = 1;
	e->verdict = verdict;
	snprintf(e->said, sizeof(e->said), "%s", said);
}

/* The verdict remembered for the disk, by its bytes and then by its
 * masked key (taken only when the bytes miss: it parses the layout), or
 * NULL. */
static const struct crash_fsck_entry *recall(struct crash_fsck *c, const struct disk *d, int i,
					     const char *fs, bool clean, const uint8_t exact[16],
					     uint8_t masked[16], bool *have_masked)
{
	*have_masked = false;
	if (c->memo == CRASH_FSCK_MEMO_OFF)
		return NULL;
	const struct crash_fsck_entry *e = find(c, exact);
	if (e || c->memo == CRASH_FSCK_MEMO_EXACT)
		return e;
	*have_masked = fsck_key(fs, d, (uint64_t)i, clean, masked);
	if (!*have_masked || !(e = find(c, masked)))
		return NULL;
	c->n.masked_hits++;
	if (c->memo == CRASH_FSCK_MEMO_CHECK)
		check_hit(c, e, d, i, fs);
	return e;
}

void crash_fsck_disks(struct crash_fsck *c, struct crash_fsck_ask *a, int n)
{
	struct pending {
		uint8_t exact[16], masked[16];
		bool have_masked, run, none; /* none: the format has no checker */
		struct started st;
	} p[CRASH_FSCK_MAX_DISKS];
	n = n < CRASH_FSCK_MAX_DISKS ? n : CRASH_FSCK_MAX_DISKS;
	for (int k = 0; k < n; k++) {
		a[k].said[0] = 0;
		if (!corrupt_fsck_exists(a[k].fs)) { /* no key, no scratch image: nothing to run */
			a[k].verdict = CORRUPT_FSCK_NONE;
			p[k].run = p[k].have_masked = false;
			p[k].none = true;
			continue;
		}
		p[k].none = false;
		if (c->memo != CRASH_FSCK_MEMO_OFF) /* the benchmark's baseline: no key either */
			disk_private_key(a[k].d, (uint64_t)a[k].i, p[k].exact);
		const struct crash_fsck_entry *e =
		    recall(c, a[k].d, a[k].i, a[k].fs, a[k].clean, p[k].exact, p[k].masked,
			   &p[k].have_masked);
		p[k].run = !e;
		if (e) {
			c->n.hits++;
			a[k].verdict = (enum corrupt_fsck_verdict)e->verdict;
			snprintf(a[k].said, sizeof(a[k].said), "%s", e->said);
		} else {
			c->n.runs++;
			checker_start(c, a[k].d, a[k].i, a[k].fs, &p[k].st, a[k].said,
				      sizeof(a[k].said));
		}
	}
	/* Every checker started before any is waited for: they run side by
	 * side on the host's cores. */
	for (int k = 0; k < n; k++) {
		if (p[k].run)
			a[k].verdict =
			    checker_finish(c, a[k].i, &p[k].st, a[k].said, sizeof(a[k].said));
		if (p[k].run && p[k].have_masked)
			put(c, p[k].masked, p[k].exact, (uint8_t)a[k].verdict, a[k].said);
		/* The bytes too, so the same disk again costs no layout. */
		if (c->memo != CRASH_FSCK_MEMO_OFF && !p[k].none)
			put(c, p[k].exact, p[k].exact, (uint8_t)a[k].verdict, a[k].said);
	}
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
