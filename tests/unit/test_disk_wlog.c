/* tier: fast */
/* test_disk_wlog.c - the disk's write log and crash-disk assembly
 * (src/disk/disk_wlog.c).
 *
 * Build and run from the repository root:
 *   make build/asan/test_disk_wlog
 *   build/asan/test_disk_wlog [test-name]
 *
 * "model" drives seeded random sequences of served writes (overlapping,
 * chunk-straddling), flushes, nested forks, restores, releases and
 * disk_wlog_keep against a model that keeps every served write in order.
 * After each step it assembles a crash disk in a fork at a random entry
 * the log still reaches, with a random subset of the later writes in a
 * random order, and compares every byte with the model's answer (the base,
 * the writes before that entry in order, then the chosen ones); then it
 * releases the fork and checks the content is the current one again. The
 * entries the log lists must be the model's (sector, count, epoch, the
 * bytes after). "peek" checks that keeping a write's old bytes is not
 * counted as a read, that a disk powered off drops writes and logs no
 * request, and that the log refuses what it cannot do. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unit.h"
#include "disk/disk.h"
#include "util/rng.h"

#define SECTORS	  133 /* 16 chunks and a part: the last chunk is short */
#define SIZE	  (SECTORS * DISK_SECTOR_SIZE)
#define SEQUENCES 400
#define STEPS	  40
#define MAX_W	  512 /* served writes a sequence can make */

struct write {
	uint64_t sector, count, epoch;
	uint8_t *data;
};

struct model {
	uint8_t base[SIZE];
	struct write w[MAX_W];
	uint64_t n, keep, epoch; /* writes so far, the oldest reachable, flushes */
	uint64_t level_n[DISK_MAX_DEPTH + 1], level_keep[DISK_MAX_DEPTH + 1],
	    level_epoch[DISK_MAX_DEPTH + 1];
	unsigned depth;
};

static uint64_t pick(uint64_t *s, uint64_t lo, uint64_t hi)
{
	return lo + splitmix64(s) % (hi - lo + 1);
}

static int make_base(struct model *m, uint64_t *s, char *path)
{
	for (size_t i = 0; i < SIZE; i++)
		m->base[i] = (uint8_t)splitmix64(s);
	int fd = mkstemp(path);
	if (fd < 0)
		return -1;
	int rc = write(fd, m->base, SIZE) == SIZE ? 0 : -1;
	close(fd);
	return rc;
}

/* The model's content just before write `upto`, then extra[] applied. */
static void model_content(const struct model *m, uint64_t upto, const uint64_t *extra, size_t nx,
			  uint8_t *out)
{
	memcpy(out, m->base, SIZE);
	for (uint64_t k = 0; k < upto + nx; k++) {
		const struct write *w = &m->w[k < upto ? k : extra[k - upto]];
		memcpy(out + w->sector * DISK_SECTOR_SIZE, w->data, w->count * DISK_SECTOR_SIZE);
	}
}

static bool disk_is(struct disk *d, const uint8_t *want)
{
	static uint8_t got[SIZE];
	return disk_peek(d, 0, got, SECTORS) == 0 && memcmp(got, want, SIZE) == 0;
}

static void serve_write(struct disk *d, struct model *m, uint64_t *s)
{
	struct write *w = &m->w[m->n];
	w->count = pick(s, 1, 20);
	w->sector = pick(s, 0, SECTORS - w->count);
	w->epoch = m->epoch;
	w->data = malloc(w->count * DISK_SECTOR_SIZE);
	if (!CHECK(w->data != NULL))
		return;
	for (uint64_t i = 0; i < w->count * DISK_SECTOR_SIZE; i++)
		w->data[i] = (uint8_t)splitmix64(s);
	(void)disk_log_request(d, DISK_REQ_WRITE, w->sector, w->count);
	CHECK(disk_write_served(d, w->sector, w->data, w->count) == 0);
	m->n++;
}

/* The log lists exactly the model's reachable writes. */
static void check_listing(struct disk *d, const struct model *m)
{
	const struct disk_wentry *e;
	uint64_t first, n = disk_wlog(d, &e, &first);
	CHECK(first == m->keep && first + n == m->n);
	for (uint64_t i = 0; i < n && first + n == m->n; i++) {
		const struct write *w = &m->w[first + i];
		CHECK(e[i].sector == w->sector && e[i].count == w->count && e[i].epoch == w->epoch);
		CHECK(memcmp(disk_wentry_data(d, &e[i], true), w->data,
			     w->count * DISK_SECTOR_SIZE) == 0);
	}
}

/* A crash disk at a random reachable entry with a random subset of the
 * later writes in a random order, checked, then released. */
static void check_crash(struct disk *d, const struct model *m, uint64_t *s)
{
	static uint8_t want[SIZE];
	uint64_t upto = pick(s, m->keep, m->n), extra[MAX_W];
	size_t nx = 0;
	for (uint64_t k = upto; k < m->n; k++)
		if (splitmix64(s) & 1)
			extra[nx++] = k;
	for (size_t i = nx; i > 1; i--) { /* shuffle: any order may reach the disk */
		size_t j = (size_t)pick(s, 0, i - 1);
		uint64_t t = extra[i - 1];
		extra[i - 1] = extra[j];
		extra[j] = t;
	}
	CHECK(disk_fork(d) == 0);
	CHECK(disk_crash_assemble(d, upto, extra, nx) == 0);
	model_content(m, upto, extra, nx, want);
	CHECK(disk_is(d, want));
	CHECK(disk_release(d) == 0);
	model_content(m, m->n, NULL, 0, want);
	CHECK(disk_is(d, want));
}

static void random_step(struct disk *d, struct model *m, uint64_t *s)
{
	switch (splitmix64(s) % 8) {
	case 0:
		if (m->depth < 6 && disk_fork(d) == 0) {
			m->depth++;
			m->level_n[m->depth] = m->n;
			m->level_keep[m->depth] = m->keep;
			m->level_epoch[m->depth] = m->epoch;
		}
		break;
	case 1:
		if (m->depth) {
			CHECK(disk_restore(d) == 0);
			for (uint64_t k = m->level_n[m->depth]; k < m->n; k++)
				free(m->w[k].data);
			m->n = m->level_n[m->depth];
			m->keep = m->level_keep[m->depth];
			m->epoch = m->level_epoch[m->depth];
			if (splitmix64(s) & 1) {
				CHECK(disk_release(d) == 0);
				m->depth--;
			}
		}
		break;
	case 2:
		(void)disk_log_request(d, DISK_REQ_FLUSH, 0, 0);
		m->epoch++;
		break;
	case 3: {
		uint64_t k = pick(s, m->keep, m->n);
		disk_wlog_keep(d, k);
		m->keep = k;
		break;
	}
	default:
		if (m->n < MAX_W)
			serve_write(d, m, s);
	}
}

static void test_model(void)
{
	static struct model m;
	for (uint64_t seq = 0; seq < SEQUENCES; seq++) {
		uint64_t s = seq * 0x9e3779b97f4a7c15ULL + 1;
		char path[] = "/tmp/test_disk_wlog.XXXXXX", err[256];
		struct disk d;
		memset(&m, 0, sizeof(m));
		if (!CHECK(make_base(&m, &s, path) == 0))
			return;
		int rc = disk_open(&d, path, false, err, sizeof(err));
		if (CHECK(rc == 0)) {
			disk_wlog_enable(&d);
			for (int step = 0; step < STEPS; step++) {
				random_step(&d, &m, &s);
				check_listing(&d, &m);
				check_crash(&d, &m, &s);
			}
			CHECK(d.nwlog + d.wbase == m.n && d.wbase <= m.keep);
			disk_close(&d);
		}
		for (uint64_t k = 0; k < m.n; k++)
			free(m.w[k].data);
		static uint8_t now[SIZE];
		FILE *f = fopen(path, "rb");
		CHECK(f && fread(now, 1, SIZE, f) == SIZE && memcmp(now, m.base, SIZE) == 0);
		if (f)
			fclose(f);
		unlink(path);
		if (failures) {
			printf("test_disk_wlog: sequence %llu failed\n", (unsigned long long)seq);
			return;
		}
	}
}

static void test_peek(void)
{
	static struct model m;
	uint64_t s = 7;
	char path[] = "/tmp/test_disk_wlog.XXXXXX", err[256];
	struct disk d;
	memset(&m, 0, sizeof(m));
	if (!CHECK(make_base(&m, &s, path) == 0))
		return;
	if (CHECK(disk_open(&d, path, false, err, sizeof(err)) == 0)) {
		disk_wlog_enable(&d);
		uint8_t buf[DISK_SECTOR_SIZE] = {1};
		disk_clear_io(&d);
		CHECK(disk_write_served(&d, 9, buf, 1) == 0);
		CHECK(disk_chunk_written(&d, 1) && !disk_chunk_read(&d, 1));
		CHECK(disk_write_served(&d, SECTORS, buf, 1) == -EINVAL);
		uint64_t none = 0;
		CHECK(disk_crash_assemble(&d, 0, &none, 1) == -EINVAL); /* at the root */
		CHECK(disk_fork(&d) == 0);
		disk_power(&d, false); /* dropped, not logged */
		CHECK(disk_write_served(&d, 20, buf, 1) == 0);
		CHECK(disk_log_request(&d, DISK_REQ_FLUSH, 0, 0) == 0 && disk_epoch(&d) == 0);
		const struct disk_wentry *e;
		uint64_t first;
		CHECK(disk_wlog(&d, &e, &first) == 1 && first == 0);
		disk_power(&d, true);
		CHECK(disk_crash_assemble(&d, 2, NULL, 0) == -EINVAL); /* past the end */
		none = 1;
		CHECK(disk_crash_assemble(&d, 0, &none, 1) == -EINVAL);
		CHECK(disk_crash_assemble(&d, 0, NULL, 0) == 0);
		CHECK(disk_is(&d, m.base)); /* sector 20's dropped write is not there */
		disk_close(&d);
	}
	unlink(path);
}

int main(int argc, char **argv)
{
	static const struct unit_test tests[] = {{"model", test_model}, {"peek", test_peek}};
	return unit_main("test_disk_wlog", tests, sizeof(tests) / sizeof(tests[0]), argc, argv);
}
