/* snapshot.c - a machine saved to a file and loaded later, so runs and
 * tests need not boot each time.
 *
 * File layout (little-endian, as the host writes it; the build check below
 * makes a file from another host layout fail before any field is used):
 *   header   magic "THMSSNAP", version, the build's identity (XXH3-128 of
 *            the themis executable), RAM size, wall-clock base, disk count
 *   disks    per disk: path, size, read-only flag, XXH3-128 of the base
 *            image's content (a changed base image is detected)
 *   state    the hart (CPU_STATE_SIZE bytes), the device block without its
 *            pointers, the fork depth (always 0: only whole machines)
 *   ram      count, then (page index, 4 KiB) for every page ever written
 *   chunks   per disk: count, then (chunk index, 4 KiB) for every chunk the
 *            guest wrote (the rest is the base image)
 *   trailer  XXH3-128 of everything before it (a damaged file is refused)
 * Loading checks everything (build, sizes, disks, integrity) before it
 * builds the machine; nothing is half loaded. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "snapshot.h"

#define SNAP_MAGIC   "THMSSNAP"
#define SNAP_VERSION 1
#define SNAP_PATHMAX 4096

/* ---- a hashing writer and reader ---- */

struct sfile {
	FILE *f;
	XXH3_state_t *h;
	bool bad;
};

static void put(struct sfile *s, const void *p, size_t n)
{
	if (!s->bad && fwrite(p, 1, n, s->f) != n)
		s->bad = true;
	XXH3_128bits_update(s->h, p, n);
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
	XXH3_128bits_update(s->h, p, n);
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

bool virt_file_hash(const char *path, uint8_t out[16])
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return false;
	XXH3_state_t *h = XXH3_createState();
	if (!h) {
		fclose(f);
		errno = ENOMEM;
		return false;
	}
	XXH3_128bits_reset(h);
	static const size_t bufsize = 1 << 20;
	uint8_t *buf = malloc(bufsize);
	size_t n;
	bool ok = buf != NULL;
	while (ok && (n = fread(buf, 1, bufsize, f)) > 0)
		XXH3_128bits_update(h, buf, n);
	ok = ok && !ferror(f);
	digest(h, out);
	XXH3_freeState(h);
	free(buf);
	fclose(f);
	return ok;
}

static bool build_id(uint8_t out[16])
{
	return virt_file_hash("/proc/self/exe", out);
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

static void put_disks(struct sfile *s, const struct virt *v, const struct virt_config *cfg,
		      uint8_t hashes[][16])
{
	put_u64(s, (uint64_t)v->ndisks);
	for (int i = 0; i < v->ndisks; i++) {
		char path[SNAP_PATHMAX] = {0};
		snprintf(path, sizeof(path), "%s", cfg->disks[i].path);
		put(s, path, sizeof(path));
		put_u64(s, v->disks[i].size);
		put_u64(s, v->disks[i].read_only);
		put(s, hashes[i], 16);
	}
}

int virt_save(const struct virt *v, const struct virt_config *cfg, const char *path, char *err,
	      size_t errlen)
{
	uint8_t id[16], hashes[VIRT_MAX_DISKS][16], cpu[CPU_STATE_SIZE], sum[16];
	struct virt_devs dev;
	if (v->depth) {
		snprintf(err, errlen, "cannot save a machine with %u fork levels open", v->depth);
		return -1;
	}
	if (!build_id(id)) {
		snprintf(err, errlen, "cannot read the themis executable to identify the build");
		return -1;
	}
	for (int i = 0; i < v->ndisks; i++)
		if (!virt_file_hash(cfg->disks[i].path, hashes[i])) {
			snprintf(err, errlen, "%s: cannot read: %s", cfg->disks[i].path,
				 strerror(errno));
			return -1;
		}
	struct sfile s = {NULL, XXH3_createState(), false};
	if (!s.h) {
		snprintf(err, errlen, "%s: %s", path, strerror(ENOMEM));
		return -1;
	}
	if (!(s.f = fopen(path, "wb"))) {
		snprintf(err, errlen, "%s: cannot create: %s", path, strerror(errno));
		XXH3_freeState(s.h);
		return -1;
	}
	XXH3_128bits_reset(s.h);
	put(&s, SNAP_MAGIC, 8);
	put_u64(&s, SNAP_VERSION);
	put(&s, id, 16);
	put_u64(&s, v->ram.size);
	put_u64(&s, v->clock_base_ns);
	put_disks(&s, v, cfg, hashes);
	cpu_state_save(&v->cpu, cpu);
	put(&s, cpu, sizeof(cpu));
	virt_devs_scrub(&v->dev, &dev);
	put(&s, &dev, sizeof(dev));
	put_table(&s, v->ram.pages, v->ram.npages, RAM_PAGE_SIZE);
	for (int i = 0; i < v->ndisks; i++)
		put_table(&s, v->disks[i].chunks, v->disks[i].nchunks, DISK_CHUNK_SIZE);
	digest(s.h, sum);
	if (!s.bad && fwrite(sum, 1, 16, s.f) != 16)
		s.bad = true;
	XXH3_freeState(s.h);
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
	XXH3_state_t *h = XXH3_createState();
	if (!h) {
		fclose(f);
		return fail(err, errlen, path, strerror(ENOMEM));
	}
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
	XXH3_freeState(h);
	fclose(f);
	if (!ok && memcmp(magic, SNAP_MAGIC, 8) != 0)
		return fail(err, errlen, path, "not a Themis snapshot (bad magic)");
	if (!ok || memcmp(sum, want, 16) != 0)
		return fail(err, errlen, path, "damaged snapshot (checksum mismatch)");
	return 0;
}

/* The header and disk list: fill cfg, check build and base images. */
static int read_config(struct sfile *s, const char *path, struct virt_config *cfg,
		       char paths[][SNAP_PATHMAX], char *err, size_t errlen)
{
	char magic[8], why[SNAP_PATHMAX + 128];
	uint8_t id[16], mine[16], want[16], have[16];
	get(s, magic, 8);
	if (get_u64(s) != SNAP_VERSION)
		return fail(err, errlen, path,
			    "snapshot format version not supported by this build");
	get(s, id, 16);
	if (!build_id(mine) || memcmp(id, mine, 16) != 0)
		return fail(err, errlen, path,
			    "snapshot made by another build of themis (rebuild it with this one)");
	cfg->mem = get_u64(s);
	cfg->clock_ns = get_u64(s);
	uint64_t nd = get_u64(s);
	if (nd > VIRT_MAX_DISKS)
		return fail(err, errlen, path, "damaged snapshot (disk count)");
	if (cfg->ndisks && (uint64_t)cfg->ndisks != nd) {
		snprintf(why, sizeof(why), "snapshot has %llu disks, %d given with --disk",
			 (unsigned long long)nd, cfg->ndisks);
		return fail(err, errlen, path, why);
	}
	for (uint64_t i = 0; i < nd; i++) {
		get(s, paths[i], SNAP_PATHMAX);
		paths[i][SNAP_PATHMAX - 1] = 0;
		uint64_t size = get_u64(s), ro = get_u64(s);
		get(s, want, 16);
		if (!cfg->ndisks || i >= (uint64_t)cfg->ndisks)
			cfg->disks[i] = (struct virt_disk_config){paths[i], ro != 0};
		const char *p = cfg->disks[i].path;
		if (!virt_file_hash(p, have)) {
			snprintf(why, sizeof(why), "disk %llu: %.256s: cannot read",
				 (unsigned long long)i, p);
			return fail(err, errlen, path, why);
		}
		if (memcmp(have, want, 16) != 0) {
			snprintf(
			    why, sizeof(why),
			    "disk %llu: %.256s is not the base image the snapshot was taken with "
			    "(changed since, or another disk: %llu bytes expected)",
			    (unsigned long long)i, p, (unsigned long long)size);
			return fail(err, errlen, path, why);
		}
	}
	cfg->ndisks = (int)nd;
	cfg->no_boot = true;
	return s->bad ? fail(err, errlen, path, "damaged snapshot (truncated header)") : 0;
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

static int read_state(struct sfile *s, struct virt *v)
{
	uint8_t cpu[CPU_STATE_SIZE];
	struct virt_devs dev, wired = v->dev;
	if (!get(s, cpu, sizeof(cpu)) || !get(s, &dev, sizeof(dev)))
		return -1;
	cpu_state_load(&v->cpu, cpu);
	virt_devs_rewire(&dev, &wired);
	v->dev = dev;
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
	char(*paths)[SNAP_PATHMAX] =
	    calloc(VIRT_MAX_DISKS, SNAP_PATHMAX); /* virt_init copies them */
	if (!paths)
		return fail(err, errlen, path, "out of memory");
	if (check_trailer(path, err, errlen)) {
		free(paths);
		return -1;
	}
	struct sfile s = {NULL, XXH3_createState(), false};
	if (!s.h || !(s.f = fopen(path, "rb"))) {
		int e = s.h ? errno : ENOMEM;
		XXH3_freeState(s.h);
		free(paths);
		return fail(err, errlen, path, strerror(e));
	}
	XXH3_128bits_reset(s.h);
	int rc = read_config(&s, path, cfg, paths, err, errlen);
	if (rc == 0 && (rc = virt_init(v, cfg, err, errlen)) == 0 && read_state(&s, v)) {
		virt_free(v);
		rc = fail(err, errlen, path, "damaged snapshot (machine state)");
	}
	XXH3_freeState(s.h);
	fclose(s.f);
	for (int i = 0; i < cfg->ndisks; i++)
		if (cfg->disks[i].path >= paths[0] && cfg->disks[i].path < paths[VIRT_MAX_DISKS])
			cfg->disks[i].path = v->disk_path[i]; /* the copy, paths[] is going */
	free(paths);
	if (rc == 0)
		v->stop = VIRT_WAITING;
	return rc;
}
