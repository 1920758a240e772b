/* tier: fast */
/* test_disk_fork.c - the disk's epsilon-copy fork: disk_fork, disk_restore
 * (re-armable), disk_release, the undo lists behind them, disk_hash and
 * disk_level_chunks, disk_copy_content and disk_import.
 *
 * Build and run from the repository root:
 *   make build/asan/test_disk_fork
 *   build/asan/test_disk_fork [test-name]
 *
 * The main test drives thousands of seeded random sequences of writes (of
 * random sizes and offsets, chunk-straddling, whole-disk), nested forks,
 * restores and releases against a reference model that keeps a full copy of
 * the content for every open level in plain arrays; after every step it
 * compares the disk with the model through disk_read and disk_hash, checks
 * the chunk list of the top level and runs disk_check. A failure prints the
 * image size, the seed and the step. Base images are temporary files with
 * random bytes under $TMPDIR (default /tmp), hashed before and after to show
 * that nothing wrote them, and removed at the end. The program prints the
 * number of checks and exits nonzero on any failure; it measures no time. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>

#include "unit.h"
#include "disk/disk.h"
#include "util/rng.h" /* seeded, so any failure can be replayed */

#define MODEL_DEPTH 8	 /* deepest nesting the random sequences reach */
#define SEQUENCES   1500 /* random sequences per image size */
#define STEPS	    48	 /* operations per sequence */

/* A number in [lo, hi]. */
static uint64_t pick(uint64_t *state, uint64_t lo, uint64_t hi)
{
	return lo + splitmix64(state) % (hi - lo + 1);
}

static void fill_random(uint64_t *state, uint8_t *buf, uint64_t len)
{
	for (uint64_t i = 0; i < len; i++)
		buf[i] = (uint8_t)splitmix64(state);
}

static void hash_bytes(const uint8_t *buf, uint64_t len, uint8_t out[16])
{
	XXH128_canonical_t c;
	XXH128_canonicalFromHash(&c, XXH3_128bits(buf, len));
	memcpy(out, c.digest, 16);
}

/* --- base images ---------------------------------------------------------- */

struct image {
	char path[256];
	uint64_t size;
	uint8_t *orig;	  /* its bytes when created */
	uint8_t hash[16]; /* and their hash */
};

/* Read a whole file of `size` bytes into a new buffer; NULL if it cannot be
 * read or has another size. */
static uint8_t *read_file(const char *path, uint64_t size)
{
	uint8_t *buf = malloc(size + 1);
	int fd = open(path, O_RDONLY);
	ssize_t got = fd < 0 || !buf ? -1 : read(fd, buf, size + 1);
	if (fd >= 0)
		close(fd);
	if (got != (ssize_t)size) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* A temporary base image of `size` bytes of random content. */
static bool image_make(struct image *im, uint64_t size, uint64_t seed)
{
	*im = (struct image){.size = size};
	const char *dir = getenv("TMPDIR");
	snprintf(im->path, sizeof(im->path), "%s/themis-dfork-XXXXXX", dir && *dir ? dir : "/tmp");
	int fd = mkstemp(im->path);
	if (!CHECK(fd >= 0))
		return false;
	im->orig = malloc(size);
	fill_random(&seed, im->orig, size);
	hash_bytes(im->orig, size, im->hash);
	bool ok = write(fd, im->orig, size) == (ssize_t)size;
	close(fd);
	return CHECK(ok);
}

/* The base file still holds exactly its first bytes: same hash, same size. */
static bool image_unchanged(const struct image *im)
{
	uint8_t *now = read_file(im->path, im->size), h[16];
	if (!now)
		return false;
	hash_bytes(now, im->size, h);
	free(now);
	return memcmp(h, im->hash, 16) == 0;
}

static void image_remove(struct image *im)
{
	unlink(im->path);
	free(im->orig);
}

static bool disk_open_image(struct disk *d, const struct image *im, bool read_only)
{
	char err[200] = "";
	if (CHECK(disk_open(d, im->path, read_only, err, sizeof(err)) == 0))
		return true;
	fprintf(stderr, "disk_open: %s\n", err);
	return false;
}

/* The disk's whole content equals want (size bytes): read and hashed. */
static bool content_is(struct disk *d, const uint8_t *want, uint64_t size)
{
	uint8_t *buf = malloc(size), h[16], hw[16];
	bool ok = disk_read(d, 0, buf, size / DISK_SECTOR_SIZE) == 0;
	ok = ok && memcmp(buf, want, size) == 0;
	free(buf);
	disk_hash(d, h);
	hash_bytes(want, size, hw);
	return ok && memcmp(h, hw, 16) == 0;
}

/* --- the reference model -------------------------------------------------- */

/* The content at every open level as plain arrays, and the chunks each
 * level has written in the order first written. */
struct model {
	uint64_t size, nchunks;
	unsigned depth;
	uint8_t *cur;			   /* the current content */
	uint8_t *snap[MODEL_DEPTH + 1];	   /* [L]: the content when L opened */
	uint64_t *order[MODEL_DEPTH + 1];  /* [L]: chunks written in L, */
	uint64_t norder[MODEL_DEPTH + 1];  /* how many, */
	uint8_t *touched[MODEL_DEPTH + 1]; /* and one flag per chunk */
};

static void model_init(struct model *m, const struct image *im)
{
	*m = (struct model){.size = im->size};
	m->nchunks = (im->size + DISK_CHUNK_SIZE - 1) / DISK_CHUNK_SIZE;
	m->cur = malloc(im->size);
	memcpy(m->cur, im->orig, im->size);
	for (unsigned l = 0; l <= MODEL_DEPTH; l++) {
		m->snap[l] = malloc(im->size);
		m->order[l] = malloc(m->nchunks * sizeof(uint64_t));
		m->touched[l] = calloc(m->nchunks, 1);
	}
}

static void model_free(struct model *m)
{
	free(m->cur);
	for (unsigned l = 0; l <= MODEL_DEPTH; l++) {
		free(m->snap[l]);
		free(m->order[l]);
		free(m->touched[l]);
	}
}

/* Level L has written nothing yet. */
static void model_rearm(struct model *m, unsigned l)
{
	m->norder[l] = 0;
	memset(m->touched[l], 0, m->nchunks);
}

static void model_write(struct model *m, uint64_t sector, const uint8_t *buf, uint64_t n)
{
	uint64_t pos = sector * DISK_SECTOR_SIZE, len = n * DISK_SECTOR_SIZE;
	memcpy(m->cur + pos, buf, len);
	for (uint64_t i = pos / DISK_CHUNK_SIZE; m->depth && i <= (pos + len - 1) / DISK_CHUNK_SIZE;
	     i++) {
		if (!m->touched[m->depth][i]) {
			m->touched[m->depth][i] = 1;
			m->order[m->depth][m->norder[m->depth]++] = i;
		}
	}
}

static void model_fork(struct model *m)
{
	m->depth++;
	memcpy(m->snap[m->depth], m->cur, m->size);
	model_rearm(m, m->depth);
}

static void model_restore(struct model *m)
{
	memcpy(m->cur, m->snap[m->depth], m->size);
	model_rearm(m, m->depth);
}

/* The disk agrees with the model: depth, content (read whole, a random
 * part, hashed), the top level's chunk list, and the invariants. */
static bool agrees(struct disk *d, const struct model *m, uint64_t *rnd)
{
	const uint64_t *list;
	uint64_t n = disk_level_chunks(d, &list);
	bool ok = CHECK(disk_check(d) == 0) && CHECK(disk_depth(d) == m->depth);
	ok = ok && CHECK(n == m->norder[m->depth]);
	ok = ok && CHECK(n == 0 || memcmp(list, m->order[m->depth], n * sizeof(*list)) == 0);
	ok = ok && CHECK(content_is(d, m->cur, m->size));
	uint64_t total = m->size / DISK_SECTOR_SIZE, s = pick(rnd, 0, total - 1);
	uint64_t k = pick(rnd, 1, total - s);
	uint8_t *buf = malloc(k * DISK_SECTOR_SIZE);
	ok = ok && CHECK(disk_read(d, s, buf, k) == 0);
	ok = ok && CHECK(memcmp(buf, m->cur + s * DISK_SECTOR_SIZE, k * DISK_SECTOR_SIZE) == 0);
	free(buf);
	return ok;
}

/* --- the random sequences ------------------------------------------------- */

/* A write range: small, straddling a chunk boundary, the whole disk, or
 * anywhere of any length. */
static void pick_range(uint64_t *rnd, uint64_t total, uint64_t *sector, uint64_t *n)
{
	uint64_t kind = pick(rnd, 0, 3), nchunks = (total + 7) / DISK_SECTORS_PER_CHUNK;
	if (kind == 0 || (kind == 1 && nchunks < 2)) {
		*sector = pick(rnd, 0, total - 1);
		*n = pick(rnd, 1, total - *sector < 16 ? total - *sector : 16);
	} else if (kind == 1) {
		uint64_t edge = pick(rnd, 1, nchunks - 1) * DISK_SECTORS_PER_CHUNK;
		*sector = edge - pick(rnd, 1, DISK_SECTORS_PER_CHUNK);
		uint64_t most = total - *sector < 24 ? total - *sector : 24;
		*n = pick(rnd, edge - *sector + 1 <= most ? edge - *sector + 1 : most, most);
	} else if (kind == 2) {
		*sector = 0;
		*n = total;
	} else {
		*sector = pick(rnd, 0, total - 1);
		*n = pick(rnd, 1, total - *sector);
	}
}

static bool step_write(struct disk *d, struct model *m, uint64_t *rnd)
{
	uint64_t total = m->size / DISK_SECTOR_SIZE, sector, n;
	pick_range(rnd, total, &sector, &n);
	uint8_t *buf = malloc(n * DISK_SECTOR_SIZE);
	fill_random(rnd, buf, n * DISK_SECTOR_SIZE);
	bool ok = CHECK(disk_write(d, sector, buf, n) == 0);
	model_write(m, sector, buf, n);
	free(buf);
	return ok;
}

/* A write running past the end: refused, nothing changes. */
static bool step_bad_write(struct disk *d, uint64_t *rnd)
{
	uint64_t total = disk_sectors(d), sector = pick(rnd, 0, total);
	uint8_t buf[DISK_SECTOR_SIZE * 2] = {0};
	return CHECK(disk_write(d, sector, buf, total - sector + 1) == -EINVAL);
}

static bool step_fork(struct disk *d, struct model *m)
{
	if (m->depth == MODEL_DEPTH)
		return true;
	model_fork(m);
	return CHECK(disk_fork(d) == 0);
}

static bool step_restore(struct disk *d, struct model *m)
{
	if (m->depth == 0)
		return CHECK(disk_restore(d) == -EINVAL);
	model_restore(m);
	return CHECK(disk_restore(d) == 0);
}

static bool step_release(struct disk *d, struct model *m)
{
	if (m->depth == 0)
		return CHECK(disk_release(d) == -EINVAL);
	model_restore(m);
	m->depth--;
	return CHECK(disk_release(d) == 0);
}

static bool step(struct disk *d, struct model *m, uint64_t *rnd)
{
	uint64_t r = pick(rnd, 0, 99);
	if (r < 45)
		return step_write(d, m, rnd);
	if (r < 50)
		return step_bad_write(d, rnd);
	if (r < 70)
		return step_fork(d, m);
	if (r < 85)
		return step_restore(d, m);
	return step_release(d, m);
}

/* disk_save writes exactly the content disk_hash hashes. */
static bool saved_file_matches(struct disk *d, const struct image *im)
{
	char out[300], err[200] = "";
	uint8_t h[16], hf[16];
	snprintf(out, sizeof(out), "%s.saved", im->path);
	bool ok = CHECK(disk_save(d, out, err, sizeof(err)) == 0);
	uint8_t *bytes = read_file(out, im->size);
	unlink(out);
	ok = ok && CHECK(bytes != NULL);
	if (bytes) {
		hash_bytes(bytes, im->size, hf);
		disk_hash(d, h);
		ok = ok && CHECK(memcmp(h, hf, 16) == 0);
	}
	free(bytes);
	return ok;
}

/* One seeded sequence on a freshly opened disk. Half of them close the disk
 * with levels still open (disk_close must free them: ASan's leak check). */
static bool run_sequence(const struct image *im, uint64_t seed)
{
	struct disk d;
	struct model m;
	if (!disk_open_image(&d, im, false))
		return false;
	model_init(&m, im);
	uint64_t rnd = seed;
	bool ok = agrees(&d, &m, &rnd);
	int s = 0;
	for (; s < STEPS && ok; s++)
		ok = step(&d, &m, &rnd) && agrees(&d, &m, &rnd);
	while (ok && seed % 2 && m.depth)
		ok = step_release(&d, &m) && agrees(&d, &m, &rnd);
	if (ok && seed % 64 == 0)
		ok = saved_file_matches(&d, im);
	if (!ok)
		fprintf(stderr, "  image of %llu bytes, seed %llu, step %d\n",
			(unsigned long long)im->size, (unsigned long long)seed, s);
	model_free(&m);
	disk_close(&d);
	return ok;
}

static void test_random_sequences_match_the_model(void)
{
	/* One sector; a partial second chunk; eight whole chunks; 19 chunks and
	 * a partial one. */
	static const uint64_t sectors[] = {1, 9, 64, 157};
	int passed = 0, run = 0;
	for (size_t k = 0; k < sizeof(sectors) / sizeof(sectors[0]); k++) {
		struct image im;
		if (!image_make(&im, sectors[k] * DISK_SECTOR_SIZE, 1000 + k))
			return;
		for (uint64_t seed = 1; seed <= SEQUENCES; seed++, run++)
			passed += run_sequence(&im, seed * 7919 + k);
		CHECK(image_unchanged(&im));
		image_remove(&im);
	}
	printf("  %d of %d sequences of %d steps agreed with the model\n", passed, run, STEPS);
	CHECK(passed == run);
}

/* --- targeted tests ------------------------------------------------------- */

static void test_restore_at_the_root_fails_cleanly(void)
{
	struct image im;
	struct disk d;
	if (!image_make(&im, 20 * DISK_SECTOR_SIZE, 1) || !disk_open_image(&d, &im, false))
		return;
	uint8_t buf[DISK_SECTOR_SIZE], want[20 * DISK_SECTOR_SIZE];
	memset(buf, 0xa5, sizeof(buf));
	memcpy(want, im.orig, im.size);
	memset(want + 9 * DISK_SECTOR_SIZE, 0xa5, DISK_SECTOR_SIZE);
	CHECK(disk_write(&d, 9, buf, 1) == 0); /* a private chunk at the root */
	const uint64_t *list = &im.size;
	CHECK(disk_restore(&d) == -EINVAL && disk_release(&d) == -EINVAL);
	CHECK(disk_depth(&d) == 0 && disk_check(&d) == 0);
	CHECK(disk_level_chunks(&d, &list) == 0 && list == NULL);
	CHECK(content_is(&d, want, im.size) && disk_chunk_private(&d, 1));
	/* After a fork and its release the root is as unrestorable as before. */
	CHECK(disk_fork(&d) == 0 && disk_release(&d) == 0);
	CHECK(disk_release(&d) == -EINVAL && disk_depth(&d) == 0);
	CHECK(content_is(&d, want, im.size) && disk_check(&d) == 0);
	disk_close(&d);
	CHECK(image_unchanged(&im));
	image_remove(&im);
}

/* Writing a chunk again in the same level records nothing more; reading
 * records nothing at all. */
static void test_a_chunk_is_saved_once_per_level(void)
{
	struct image im;
	struct disk d;
	if (!image_make(&im, 4 * DISK_CHUNK_SIZE, 2) || !disk_open_image(&d, &im, false))
		return;
	uint8_t buf[2 * DISK_CHUNK_SIZE];
	memset(buf, 1, sizeof(buf));
	const uint64_t *list;
	CHECK(disk_write(&d, 0, buf, 1) == 0); /* chunk 0 private at the root */
	CHECK(disk_fork(&d) == 0);
	CHECK(disk_read(&d, 0, buf, 16) == 0 && disk_level_chunks(&d, &list) == 0);
	CHECK(disk_write(&d, 7, buf, 2) == 0); /* saves chunk 0, copies up 1 */
	CHECK(disk_level_chunks(&d, &list) == 2 && list[0] == 0 && list[1] == 1);
	CHECK(d.undo[0].saved != NULL && d.undo[1].saved == NULL);
	unsigned spares = d.nspares;
	CHECK(disk_write(&d, 0, buf, 16) == 0 && disk_write(&d, 3, buf, 1) == 0);
	CHECK(disk_level_chunks(&d, &list) == 2 && d.nspares == spares);
	CHECK(d.saved_at[0] == 1 && d.saved_at[1] == 1 && d.saved_at[2] == 0);
	/* A nested level saves chunk 0 again, over level 1's entry. */
	CHECK(disk_fork(&d) == 0 && disk_write(&d, 0, buf, 1) == 0);
	CHECK(disk_level_chunks(&d, &list) == 1 && list[0] == 0);
	CHECK(d.saved_at[0] == 2 && d.undo[2].prev_level == 1 && disk_check(&d) == 0);
	CHECK(disk_release(&d) == 0 && d.saved_at[0] == 1 && disk_check(&d) == 0);
	CHECK(disk_release(&d) == 0 && d.saved_at[0] == 0 && d.nundo == 0);
	CHECK(disk_chunk_private(&d, 0) && !disk_chunk_private(&d, 1) && d.nprivate == 1);
	disk_close(&d);
	image_remove(&im);
}

/* Restoring the same level again and again brings back the same snapshot,
 * whatever was written in between. */
static void test_restore_rearms_the_level(void)
{
	struct image im;
	struct disk d;
	if (!image_make(&im, 6 * DISK_CHUNK_SIZE, 3) || !disk_open_image(&d, &im, false))
		return;
	uint64_t rnd = 3, total = disk_sectors(&d);
	uint8_t buf[6 * DISK_CHUNK_SIZE], snap[6 * DISK_CHUNK_SIZE];
	fill_random(&rnd, buf, sizeof(buf));
	CHECK(disk_write(&d, 3, buf, 20) == 0 && disk_read(&d, 0, snap, total) == 0);
	CHECK(disk_fork(&d) == 0);
	for (int round = 0; round < 200; round++) {
		uint64_t s = pick(&rnd, 0, total - 1), n = pick(&rnd, 1, total - s);
		fill_random(&rnd, buf, n * DISK_SECTOR_SIZE);
		CHECK(disk_write(&d, s, buf, n) == 0);
		CHECK(disk_restore(&d) == 0 && disk_depth(&d) == 1);
		CHECK(content_is(&d, snap, im.size) && disk_check(&d) == 0);
	}
	CHECK(d.nundo == 0 && disk_release(&d) == 0 && content_is(&d, snap, im.size));
	disk_close(&d);
	image_remove(&im);
}

/* DISK_MAX_DEPTH levels open, one more is refused with nothing changed. */
static void test_depth_is_bounded(void)
{
	struct image im;
	struct disk d;
	if (!image_make(&im, 2 * DISK_CHUNK_SIZE, 4) || !disk_open_image(&d, &im, false))
		return;
	uint8_t buf[DISK_SECTOR_SIZE];
	bool ok = true;
	for (unsigned l = 1; l <= DISK_MAX_DEPTH && ok; l++) {
		memset(buf, (int)l, sizeof(buf));
		ok = disk_fork(&d) == 0 && disk_write(&d, l % 16, buf, 1) == 0;
	}
	CHECK(ok && disk_depth(&d) == DISK_MAX_DEPTH && disk_check(&d) == 0);
	CHECK(disk_fork(&d) == -EOVERFLOW && disk_depth(&d) == DISK_MAX_DEPTH);
	CHECK(disk_check(&d) == 0);
	for (unsigned l = DISK_MAX_DEPTH; l > 0 && ok; l--)
		ok = disk_release(&d) == 0 && disk_depth(&d) == l - 1;
	CHECK(ok && content_is(&d, im.orig, im.size) && d.nprivate == 0);
	disk_close(&d);
	image_remove(&im);
}

/* Restored buffers go to the pool and the next level takes them from it;
 * the pool never holds more than DISK_POOL_MAX. */
static void test_the_pool_recycles_buffers(void)
{
	struct image im;
	struct disk d;
	uint64_t nchunks = DISK_POOL_MAX + 40, size = nchunks * DISK_CHUNK_SIZE;
	if (!image_make(&im, size, 5) || !disk_open_image(&d, &im, false))
		return;
	uint8_t *buf = calloc(1, size);
	CHECK(disk_fork(&d) == 0 && disk_write(&d, 0, buf, 10 * 8) == 0);
	CHECK(d.nspares == 0 && disk_restore(&d) == 0 && d.nspares == 10);
	CHECK(disk_write(&d, 80, buf, 8 * 8) == 0 && d.nspares == 2);
	CHECK(disk_restore(&d) == 0 && d.nspares == 10);
	CHECK(disk_write(&d, 0, buf, disk_sectors(&d)) == 0 && d.nspares == 0);
	CHECK(disk_restore(&d) == 0 && d.nspares == DISK_POOL_MAX && disk_check(&d) == 0);
	CHECK(content_is(&d, im.orig, size));
	free(buf);
	disk_close(&d);
	image_remove(&im);
}

/* A read-only disk forks and restores; every write is refused at every
 * level. */
static void test_a_read_only_disk_forks(void)
{
	struct image im;
	struct disk d;
	if (!image_make(&im, 3 * DISK_SECTOR_SIZE, 6) || !disk_open_image(&d, &im, true))
		return;
	uint8_t buf[DISK_SECTOR_SIZE] = {7};
	CHECK(disk_fork(&d) == 0 && disk_write(&d, 0, buf, 1) == -EROFS);
	CHECK(disk_fork(&d) == 0 && disk_write(&d, 2, buf, 1) == -EROFS);
	CHECK(disk_restore(&d) == 0 && disk_release(&d) == 0 && disk_release(&d) == 0);
	CHECK(content_is(&d, im.orig, im.size) && disk_check(&d) == 0 && d.nprivate == 0);
	disk_close(&d);
	CHECK(image_unchanged(&im));
	image_remove(&im);
}

/* Random writes of 1 to 9 sectors at random places, each of random bytes. */
static void scribble(struct disk *d, uint64_t *rng, int n)
{
	uint8_t buf[9 * DISK_SECTOR_SIZE];
	uint64_t sectors = disk_sectors(d);
	for (int k = 0; k < n; k++) {
		uint64_t len = pick(rng, 1, 9 < sectors ? 9 : sectors);
		fill_random(rng, buf, len * DISK_SECTOR_SIZE);
		CHECK(disk_write(d, pick(rng, 0, sectors - len), buf, len) == 0);
	}
}

/* disk_copy_content: after random writes to two disks of one base (some
 * at the root, some in a level), the copy makes the second read as the
 * first, in a level whose release brings back what it held; a disk of
 * another base is refused. The image ends in part of a chunk. */
static void test_copy_content_makes_the_same_disk(void)
{
	struct image im, other;
	struct disk src, dst, far;
	uint64_t size = 7 * DISK_CHUNK_SIZE + 3 * DISK_SECTOR_SIZE;
	if (!image_make(&im, size, 11) || !image_make(&other, size, 12) ||
	    !disk_open_image(&src, &im, false) || !disk_open_image(&dst, &im, false) ||
	    !disk_open_image(&far, &other, false))
		return;
	uint64_t rng = 5;
	uint8_t *was = malloc(size), *want = malloc(size);
	for (int round = 0; round < 200 && was && want; round++) {
		scribble(&src, &rng, (int)pick(&rng, 0, 6));
		scribble(&dst, &rng, (int)pick(&rng, 0, 6));
		CHECK(disk_fork(&src) == 0);
		scribble(&src, &rng, (int)pick(&rng, 0, 4));
		CHECK(disk_read(&src, 0, want, size / DISK_SECTOR_SIZE) == 0);
		CHECK(disk_read(&dst, 0, was, size / DISK_SECTOR_SIZE) == 0);
		CHECK(disk_fork(&dst) == 0 && disk_copy_content(&dst, &src) == 0);
		CHECK(content_is(&dst, want, size) && disk_check(&dst) == 0);
		CHECK(disk_release(&dst) == 0 && content_is(&dst, was, size));
		CHECK(disk_release(&src) == 0);
	}
	CHECK(disk_fork(&far) == 0 && disk_copy_content(&far, &src) == -EINVAL);
	CHECK(disk_release(&far) == 0 && content_is(&far, other.orig, size));
	free(was);
	free(want);
	disk_close(&src);
	disk_close(&dst);
	disk_close(&far);
	CHECK(image_unchanged(&im) && image_unchanged(&other));
	image_remove(&im);
	image_remove(&other);
}

/* disk_import: an image that differs from the disk in some chunks (one
 * byte of each, some in the partial last chunk) makes the disk read as
 * the image, and marks exactly those chunks; the others stay as they
 * were. Given candidates, it looks at those chunks only: a chunk that
 * differs outside them stays as the disk had it. */
static void test_import_takes_the_changed_chunks(void)
{
	struct image im;
	struct disk d;
	uint64_t size = 5 * DISK_CHUNK_SIZE + 2 * DISK_SECTOR_SIZE, rng = 9;
	if (!image_make(&im, size, 13) || !disk_open_image(&d, &im, false))
		return;
	uint8_t *image = malloc(size);
	for (int round = 0; round < 100 && image; round++) {
		scribble(&d, &rng, (int)pick(&rng, 0, 3));
		CHECK(disk_read(&d, 0, image, size / DISK_SECTOR_SIZE) == 0);
		uint64_t want = 0, changed = 0;
		for (uint64_t c = 0; c < disk_chunks(&d); c++)
			if (pick(&rng, 0, 2) == 0) {
				uint64_t at = c * DISK_CHUNK_SIZE + pick(&rng, 0, DISK_SECTOR_SIZE);
				image[at] ^= (uint8_t)pick(&rng, 1, 255);
				want |= 1ULL << c;
			}
		CHECK(disk_fork(&d) == 0 && disk_import(&d, image, NULL, &changed) == 0);
		CHECK(changed == want && content_is(&d, image, size) && disk_check(&d) == 0);
		CHECK(disk_release(&d) == 0);
		/* The same image, looking at the even chunks only. */
		uint64_t even = 0x15, taken = 0;
		uint8_t *now = malloc(size);
		CHECK(disk_fork(&d) == 0 && disk_import(&d, image, &even, &taken) == 0);
		CHECK(taken == (want & even));
		if (now && disk_read(&d, 0, now, size / DISK_SECTOR_SIZE) == 0)
			for (uint64_t c = 0; c < disk_chunks(&d); c++) {
				uint64_t at = c * DISK_CHUNK_SIZE;
				uint64_t len =
				    size - at < DISK_CHUNK_SIZE ? size - at : DISK_CHUNK_SIZE;
				bool took = memcmp(now + at, image + at, len) == 0;
				CHECK(took == (!(want >> c & 1) || (even >> c & 1)));
			}
		free(now);
		CHECK(disk_release(&d) == 0 && disk_check(&d) == 0);
	}
	free(image);
	disk_close(&d);
	CHECK(image_unchanged(&im));
	image_remove(&im);
}

static const struct unit_test tests[] = {
    {"restore_at_the_root_fails_cleanly", test_restore_at_the_root_fails_cleanly},
    {"a_chunk_is_saved_once_per_level", test_a_chunk_is_saved_once_per_level},
    {"restore_rearms_the_level", test_restore_rearms_the_level},
    {"depth_is_bounded", test_depth_is_bounded},
    {"the_pool_recycles_buffers", test_the_pool_recycles_buffers},
    {"a_read_only_disk_forks", test_a_read_only_disk_forks},
    {"copy_content_makes_the_same_disk", test_copy_content_makes_the_same_disk},
    {"import_takes_the_changed_chunks", test_import_takes_the_changed_chunks},
    {"random_sequences_match_the_model", test_random_sequences_match_the_model},
};

UNIT_MAIN("test_disk_fork", tests)
