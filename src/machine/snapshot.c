/* snapshot.c - a machine saved to a file and loaded later, so runs and
 * tests need not boot each time.
 *
 * File layout (little-endian, as the host writes it; the build check below
 * makes a file from another host layout fail before any field is used):
 *   header   magic "THMSSNAP", version, the machine's identity as text
 *            (identity.h: the build and each disk's base image with its
 *            path; length, then the bytes), RAM size, wall-clock base
 *   disks    count, then per disk its read-only flag
 *   state    the hart (CPU_STATE_SIZE bytes), then the device block as the
 *            board's parts (virt_parts): a count, and per part its name
 *            (SNAP_NAMELEN bytes), version, size and bytes
 *   ram      count, then (page index, 4 KiB) for every page ever written
 *   chunks   per disk: count, then (chunk index, 4 KiB) for every chunk the
 *            guest wrote (the rest is the base image)
 *   trailer  XXH3-128 of everything before it (a damaged file is refused)
 * The identity has no kernel or initrd: they are in the saved RAM. Loading
 * checks everything (integrity, build, disks) before it builds the
 * machine; nothing is half loaded. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define XXH_STATIC_LINKING_ONLY /* XXH3_state_t on the stack */
#include <xxhash.h>

#include "identity.h"
#include "snapshot.h"

#define SNAP_MAGIC   "THMSSNAP"
#define SNAP_VERSION 3
#define SNAP_NAMELEN 32
#define SNAP_ID_MAX  (16u << 10) /* the identity's text, at most */

/* ---- a hashing writer and reader ---- */

struct sfile {
	FILE *f;
	XXH3_state_t h;
	bool bad;
};

static void sfile_start(struct sfile *s, FILE *f)
{
	s->f = f;
	s->bad = false;
	XXH3_INITSTATE(&s->h);
	XXH3_128bits_reset(&s->h);
}

static void put(struct sfile *s, const void *p, size_t n)
{
	if (!s->bad && fwrite(p, 1, n, s->f) != n)
		s->bad = true;
	XXH3_128bits_update(&s->h, p, n);
}

static void put_u64(struct sfile *s, uint64_t v)
{
	put(s, &v, 8);
}

static bool get(struct sfile *s, void *p, size_t n)
{
	if (s->bad || fread(p, 1, n, s->f) != n) {
		s->bad = true;
		return false;
	}
	XXH3_128bits_update(&s->h, p, n);
	return true;
}

static uint64_t get_u64(struct sfile *s)
{
	uint64_t v = 0;
	get(s, &v, 8);
	return v;
}

static void digest(XXH3_state_t *h, uint8_t out[16])
{
	XXH128_canonical_t c;
	XXH128_canonicalFromHash(&c, XXH3_128bits_digest(h));
	memcpy(out, c.digest, 16);
}

/* ---- saving ---- */

static void put_table(struct sfile *s, uint8_t *const *table, uint64_t n, size_t size)
{
	uint64_t count = 0;
	for (uint64_t i = 0; i < n; i++)
		count += table[i] != NULL;
	put_u64(s, count);
	for (uint64_t i = 0; i < n; i++)
		if (table[i]) {
			put_u64(s, i);
			put(s, table[i], size);
		}
}

static void put_config(struct sfile *s, const struct virt *v, const char *id)
{
	put_u64(s, strlen(id));
	put(s, id, strlen(id));
	put_u64(s, v->ram.size);
	put_u64(s, v->clock_base_ns);
	put_u64(s, (uint64_t)v->ndisks);
	for (int i = 0; i < v->ndisks; i++)
		put_u64(s, v->disks[i].read_only);
}

/* The device block, part by part, each named and versioned. */
static void put_parts(struct sfile *s, const struct virt *v)
{
	struct virt_part parts[VIRT_MAX_PARTS];
	int n = virt_parts(v, parts);
	put_u64(s, (uint64_t)n);
	for (int i = 0; i < n; i++) {
		char name[SNAP_NAMELEN] = {0};
		snprintf(name, sizeof(name), "%s", parts[i].name);
		put(s, name, sizeof(name));
		put_u64(s, parts[i].version);
		put_u64(s, parts[i].size);
		put(s, (const char *)&v->dev + parts[i].offset, parts[i].size);
	}
}

/* The identity of this build and v's base images, as text. */
static char *identity_text(const struct virt *v, const struct virt_config *cfg, char *err,
			   size_t errlen)
{
	const char *images[VIRT_MAX_DISKS];
	for (int i = 0; i < v->ndisks; i++)
		images[i] = cfg->disks[i].path;
	struct identity *id = malloc(sizeof(*id));
	char *text = malloc(SNAP_ID_MAX);
	bool ok = id && text;
	if (!ok)
		snprintf(err, errlen, "out of memory");
	if (ok && identity_take(id, NULL, NULL, images, NULL, v->ndisks, err, errlen))
		ok = false;
	if (ok && (text[0] = 0, identity_to_text(id, true, text, SNAP_ID_MAX) < 0)) {
		snprintf(err, errlen, "the disk paths are too long to record");
		ok = false;
	}
	free(id);
	if (!ok) {
		free(text);
		return NULL;
	}
	return text;
}

int virt_save(const struct virt *v, const struct virt_config *cfg, const char *path, char *err,
	      size_t errlen)
{
	uint8_t cpu[CPU_STATE_SIZE], sum[16];
	if (v->depth) {
		snprintf(err, errlen, "cannot save a machine with %u fork levels open", v->depth);
		return -1;
	}
	char *id = identity_text(v, cfg, err, errlen);
	if (!id)
		return -1;
	FILE *f = fopen(path, "wb");
	if (!f) {
		snprintf(err, errlen, "%s: cannot create: %s", path, strerror(errno));
		free(id);
		return -1;
	}
	struct sfile s;
	sfile_start(&s, f);
	put(&s, SNAP_MAGIC, 8);
	put_u64(&s, SNAP_VERSION);
	put_config(&s, v, id);
	free(id);
	cpu_state_save(&v->cpu, cpu);
	put(&s, cpu, sizeof(cpu));
	put_parts(&s, v);
	put_table(&s, v->ram.pages, v->ram.npages, RAM_PAGE_SIZE);
	for (int i = 0; i < v->ndisks; i++)
		put_table(&s, v->disks[i].chunks, v->disks[i].nchunks, DISK_CHUNK_SIZE);
	digest(&s.h, sum);
	if (!s.bad && fwrite(sum, 1, 16, s.f) != 16)
		s.bad = true;
	if (fclose(s.f) != 0 || s.bad) {
		snprintf(err, errlen, "%s: write failed: %s", path, strerror(errno));
		remove(path);
		return -1;
	}
	return 0;
}

/* ---- loading ---- */

static int fail(char *err, size_t errlen, const char *path, const char *what)
{
	snprintf(err, errlen, "%s: %s", path, what);
	return -1;
}

/* Pass 1: the whole file's integrity, before anything is believed. */
static int check_trailer(const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return fail(err, errlen, path, strerror(errno));
	if (fseek(f, 0, SEEK_END) != 0 || ftell(f) < 16 + 8) {
		fclose(f);
		return fail(err, errlen, path, "too short to be a Themis snapshot");
	}
	long size = ftell(f) - 16;
	rewind(f);
	XXH3_state_t state, *h = &state;
	XXH3_INITSTATE(h);
	XXH3_128bits_reset(h);
	uint8_t buf[1 << 16], sum[16], want[16];
	char magic[8];
	bool ok = fread(magic, 1, 8, f) == 8 && memcmp(magic, SNAP_MAGIC, 8) == 0;
	if (ok) {
		XXH3_128bits_update(h, magic, 8);
		for (long left = size - 8; ok && left > 0;) {
			size_t n = left < (long)sizeof(buf) ? (size_t)left : sizeof(buf);
			ok = fread(buf, 1, n, f) == n;
			XXH3_128bits_update(h, buf, n);
			left -= (long)n;
		}
		ok = ok && fread(want, 1, 16, f) == 16;
	}
	digest(h, sum);
	fclose(f);
	if (!ok && memcmp(magic, SNAP_MAGIC, 8) != 0)
		return fail(err, errlen, path, "not a Themis snapshot (bad magic)");
	if (!ok || memcmp(sum, want, 16) != 0)
		return fail(err, errlen, path, "damaged snapshot (checksum mismatch)");
	return 0;
}

/* The recorded identity: text of at most SNAP_ID_MAX bytes, one part a
 * line. */
static int read_identity(struct sfile *s, struct identity *want)
{
	uint64_t len = get_u64(s);
	char *text = len < SNAP_ID_MAX ? malloc(len + 1) : NULL;
	int rc = text && get(s, text, len) ? 0 : -1;
	if (rc == 0) {
		text[len] = 0;
		memset(want, 0, sizeof(*want));
		for (char *l = strtok(text, "\n"); l && rc == 0; l = strtok(NULL, "\n"))
			rc = identity_parse_line(want, l) == 1 ? 0 : -1;
	}
	free(text);
	return rc;
}

/* The header and disk list: fill cfg (disk paths default to the recorded
 * ones, in want), check the build and the base images. */
static int read_config(struct sfile *s, const char *path, struct virt_config *cfg,
		       struct identity *want, char *err, size_t errlen)
{
	char magic[8], why[2048], what[1100];
	struct identity have;
	get(s, magic, 8);
	if (get_u64(s) != SNAP_VERSION)
		return fail(err, errlen, path,
			    "snapshot format version not supported by this build");
	if (read_identity(s, want))
		return fail(err, errlen, path, "damaged snapshot (identity)");
	if (identity_take(&have, NULL, NULL, NULL, NULL, 0, why, sizeof(why)) ||
	    identity_diff(want, &have, IDENTITY_BUILD, what, sizeof(what)))
		return fail(err, errlen, path,
			    "snapshot made by another build of themis (rebuild it with this one)");
	cfg->mem = get_u64(s);
	cfg->clock_ns = get_u64(s);
	uint64_t nd = get_u64(s);
	if (nd > VIRT_MAX_DISKS || nd != (uint64_t)want->nimages)
		return fail(err, errlen, path, "damaged snapshot (disk count)");
	if (cfg->ndisks && (uint64_t)cfg->ndisks != nd) {
		snprintf(why, sizeof(why), "snapshot has %llu disks, %d given with --disk",
			 (unsigned long long)nd, cfg->ndisks);
		return fail(err, errlen, path, why);
	}
	const char *images[VIRT_MAX_DISKS];
	for (uint64_t i = 0; i < nd; i++) {
		uint64_t ro = get_u64(s);
		if (!cfg->ndisks)
			cfg->disks[i] = (struct virt_disk_config){want->images[i].path, ro != 0};
		images[i] = cfg->disks[i].path;
	}
	cfg->ndisks = (int)nd;
	if (s->bad)
		return fail(err, errlen, path, "damaged snapshot (truncated header)");
	if (identity_take(&have, NULL, NULL, images, NULL, (int)nd, what, sizeof(what)))
		return fail(err, errlen, path, what);
	if (identity_diff(want, &have, IDENTITY_IMAGES, what, sizeof(what))) {
		snprintf(why, sizeof(why),
			 "%s is not the base image the snapshot was taken with (changed since, "
			 "or another disk)",
			 what);
		return fail(err, errlen, path, why);
	}
	cfg->no_boot = true;
	return 0;
}

static int read_table(struct sfile *s, uint64_t n, size_t size,
		      bool (*store)(void *, uint64_t, const uint8_t *), void *obj)
{
	uint8_t *buf = malloc(size);
	uint64_t count = get_u64(s);
	int rc = buf && count <= n ? 0 : -1;
	for (uint64_t k = 0; rc == 0 && k < count; k++) {
		uint64_t i = get_u64(s);
		if (i >= n || !get(s, buf, size) || !store(obj, i, buf))
			rc = -1;
	}
	free(buf);
	return rc;
}

static bool store_page(void *obj, uint64_t i, const uint8_t *data)
{
	struct ram *r = obj;
	return ram_write(r, r->base + i * RAM_PAGE_SIZE, data, RAM_PAGE_SIZE);
}

static bool store_chunk(void *obj, uint64_t i, const uint8_t *data)
{
	struct disk *d = obj;
	uint64_t sector = i * DISK_SECTORS_PER_CHUNK, total = disk_sectors(d);
	uint64_t n =
	    total - sector < DISK_SECTORS_PER_CHUNK ? total - sector : DISK_SECTORS_PER_CHUNK;
	bool ro = d->read_only;
	d->read_only = false; /* the guest's writes, not the guest writing */
	bool ok = disk_write(d, sector, data, n) == 0;
	d->read_only = ro;
	return ok;
}

/* The device block, into the parts of this build's board, which must be
 * the file's: same names, versions and sizes in the same order. */
static int read_parts(struct sfile *s, struct virt *v)
{
	struct virt_part parts[VIRT_MAX_PARTS];
	int n = virt_parts(v, parts);
	if (get_u64(s) != (uint64_t)n)
		return -1;
	for (int i = 0; i < n; i++) {
		char name[SNAP_NAMELEN];
		if (!get(s, name, sizeof(name)) || name[SNAP_NAMELEN - 1] ||
		    strcmp(name, parts[i].name) || get_u64(s) != parts[i].version ||
		    get_u64(s) != parts[i].size ||
		    !get(s, (char *)&v->dev + parts[i].offset, parts[i].size))
			return -1;
	}
	return 0;
}

static int read_state(struct sfile *s, struct virt *v)
{
	uint8_t cpu[CPU_STATE_SIZE];
	if (!get(s, cpu, sizeof(cpu)) || read_parts(s, v))
		return -1;
	cpu_state_load(&v->cpu, cpu);
	if (read_table(s, v->ram.npages, RAM_PAGE_SIZE, store_page, &v->ram))
		return -1;
	for (int i = 0; i < v->ndisks; i++)
		if (read_table(s, v->disks[i].nchunks, DISK_CHUNK_SIZE, store_chunk, &v->disks[i]))
			return -1;
	for (int i = 0; i < v->ndisks; i++)
		disk_clear_io(&v->disks[i]);
	return 0;
}

int virt_load(struct virt *v, struct virt_config *cfg, const char *path, char *err, size_t errlen)
{
	struct identity *want = calloc(1, sizeof(*want)); /* holds the recorded paths */
	if (!want)
		return fail(err, errlen, path, "out of memory");
	if (check_trailer(path, err, errlen)) {
		free(want);
		return -1;
	}
	FILE *f = fopen(path, "rb");
	if (!f) {
		free(want);
		return fail(err, errlen, path, strerror(errno));
	}
	struct sfile s;
	sfile_start(&s, f);
	int rc = read_config(&s, path, cfg, want, err, errlen);
	if (rc == 0 && (rc = virt_init(v, cfg, err, errlen)) == 0 && read_state(&s, v)) {
		virt_free(v);
		rc = fail(err, errlen, path, "damaged snapshot (machine state)");
	}
	fclose(s.f);
	/* Paths taken from the file point into want, which is going: the
	 * machine's own copies replace them, or nothing on failure. */
	for (int i = 0; i < cfg->ndisks; i++)
		if (cfg->disks[i].path == want->images[i].path)
			cfg->disks[i].path = rc == 0 ? v->disk_path[i] : NULL;
	free(want);
	if (rc == 0)
		v->stop = VIRT_WAITING;
	return rc;
}
