/* tier: fast */
/* test_ram_fork.c - guest RAM's epsilon-copy fork: ram_fork, ram_restore
 * (re-armable), ram_release and the undo lists behind them, against a
 * reference model that keeps a full copy of RAM for every open level.
 *
 * Build and run from the repository root:
 *   make build/asan/test_ram_fork && build/asan/test_ram_fork
 *
 * Seeded random sequences of writes (through ram_write, page-straddling,
 * and through ram_page_w pointers), nested forks, restores and releases.
 * After every step: RAM reads back as the model (ram_read, ram_page,
 * ram_hash), and the invariants at the top of src/mem/ram.c hold, with
 * each undo entry's saved page equal to the model's copy of that page when
 * its level was opened. A restore reports exactly the pages its level
 * dirtied to the callback, and `homed` hears of every page that gets a
 * home exactly once, when it does (the hart's TLB relies on it for pages
 * read as zeros until then). Every write counts in ram.copies the pages
 * it gave a copy of their own (the undo list's growth, or at level 0 the
 * pages homed). A failure prints the seed and the step. It
 * measures no time. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "mem/ram.h"
#include "util/rng.h"

#define PAGES	  12
#define BYTES	  (PAGES * RAM_PAGE_SIZE)
#define BASE	  0x80000000ULL
#define MAX_DEPTH 6
#define SEQUENCES 400
#define STEPS	  80

static int checks, failures;
static uint64_t seed_now;
static int step_now;

#define CHECK(cond) check((cond), #cond, __LINE__)

static bool check(bool ok, const char *what, int line)
{
	checks++;
	if (!ok && failures++ < 20)
		fprintf(stderr, "seed %llu step %d, line %d: check failed: %s\n",
			(unsigned long long)seed_now, step_now, line, what);
	return ok;
}

/* The model: cur is RAM now; at[L] is RAM as it was when level L opened. */
struct model {
	uint8_t cur[BYTES];
	uint8_t at[MAX_DEPTH + 1][BYTES];
	unsigned level;
};

static size_t released_count;

static void count_released(void *opaque, const uint8_t *page)
{
	(void)opaque, (void)page;
	released_count++;
}

/* Per page: homed reported it, and no restore took its home away since. */
static bool homed[PAGES];
static size_t homed_events;

static void note_homed(void *opaque, uint64_t pa)
{
	const struct ram *r = opaque;
	uint64_t i = (pa - BASE) / RAM_PAGE_SIZE;
	if (CHECK(pa % RAM_PAGE_SIZE == 0 && i < PAGES && r->pages[i] != NULL)) {
		CHECK(!homed[i]);
		homed[i] = true;
		homed_events++;
	}
}

/* Invariants 1-4 of ram.c, and the undo entries against the model. */
static void check_invariants(const struct ram *r, const struct model *m)
{
	CHECK(r->level == m->level);
	CHECK(r->level_start[0] == 0);
	for (unsigned l = 1; l <= r->level; l++)
		CHECK(r->level_start[l - 1] <= r->level_start[l]);
	CHECK(r->level_start[r->level] <= r->nundo);
	CHECK(r->level > 0 || r->nundo == 0);
	uint64_t allocated = 0;
	for (uint64_t i = 0; i < r->npages; i++)
		allocated += r->pages[i] != NULL;
	unsigned top[PAGES] = {0}; /* per page: the highest level holding it so far */
	for (unsigned l = 1; l <= r->level; l++) {
		size_t end = l < r->level ? r->level_start[l + 1] : r->nundo;
		int seen[PAGES] = {0};
		for (size_t k = r->level_start[l]; k < end; k++) {
			const struct ram_undo *e = &r->undo[k];
			if (!CHECK(e->page < PAGES))
				continue;
			CHECK(++seen[e->page] == 1);
			CHECK(e->prev_level == top[e->page]);
			top[e->page] = l;
			const uint8_t *want = m->at[l] + (size_t)e->page * RAM_PAGE_SIZE;
			CHECK(!memcmp(e->saved ? e->saved : ram_zero_page, want, RAM_PAGE_SIZE));
			allocated += e->saved != NULL;
		}
	}
	for (int p = 0; p < PAGES; p++)
		CHECK(r->saved_at[p] == top[p]);
	CHECK(r->allocated == allocated);
	for (int p = 0; p < PAGES; p++) { /* homed heard of each home (once: note_homed) */
		CHECK(homed[p] || r->pages[p] == NULL);
		homed[p] = r->pages[p] != NULL; /* a restore may have taken one away */
	}
}

static void check_content(const struct ram *r, const struct model *m)
{
	static uint8_t buf[BYTES];
	CHECK(ram_read(r, BASE, buf, BYTES) && !memcmp(buf, m->cur, BYTES));
	for (int p = 0; p < PAGES; p++)
		CHECK(!memcmp(ram_page(r, BASE + (uint64_t)p * RAM_PAGE_SIZE),
			      m->cur + (size_t)p * RAM_PAGE_SIZE, RAM_PAGE_SIZE));
	uint8_t h[16];
	XXH128_canonical_t c;
	ram_hash(r, h);
	XXH128_canonicalFromHash(&c, XXH3_128bits(m->cur, BYTES));
	CHECK(!memcmp(h, c.digest, 16));
}

/* A write's page copies (ram.copies, the hart lens's count): one for
 * every page that joins the top level's undo list, or at level 0 (no
 * list), every page that gets a home. */
static void random_write_counted(struct ram *r, struct model *m, uint64_t *s);

static void random_write(struct ram *r, struct model *m, uint64_t *s)
{
	uint64_t copies = r->copies, dirty = ram_level_dirty(r), homes = homed_events;
	random_write_counted(r, m, s);
	CHECK(r->copies - copies == (r->level ? ram_level_dirty(r) - dirty : homed_events - homes));
}

static void random_write_counted(struct ram *r, struct model *m, uint64_t *s)
{
	uint64_t off = splitmix64(s) % BYTES;
	uint64_t len = 1 + splitmix64(s) % (2 * RAM_PAGE_SIZE);
	if (len > BYTES - off)
		len = BYTES - off;
	uint8_t val = (uint8_t)(1 + splitmix64(s) % 255);
	if (splitmix64(s) % 2) {
		static uint8_t buf[2 * RAM_PAGE_SIZE];
		memset(buf, val, len);
		CHECK(ram_write(r, BASE + off, buf, len));
	} else { /* as the hart does: through the page pointer */
		len = len > RAM_PAGE_SIZE - off % RAM_PAGE_SIZE
			  ? RAM_PAGE_SIZE - off % RAM_PAGE_SIZE
			  : len;
		uint8_t *p = ram_page_w(r, BASE + off);
		if (CHECK(p != NULL))
			memset(p + off % RAM_PAGE_SIZE, val, len);
	}
	memset(m->cur + off, val, len);
}

static void random_step(struct ram *r, struct model *m, uint64_t *s)
{
	unsigned what = (unsigned)(splitmix64(s) % 8);
	if (what < 4) {
		random_write(r, m, s);
	} else if (what < 6 && m->level < MAX_DEPTH) {
		CHECK(ram_fork(r) == 0);
		m->level++;
		memcpy(m->at[m->level], m->cur, BYTES);
	} else if (m->level > 0) {
		size_t dirty = ram_level_dirty(r);
		released_count = 0;
		bool release = what == 7;
		CHECK((release ? ram_release : ram_restore)(r, count_released, NULL) == 0);
		CHECK(released_count == dirty);
		memcpy(m->cur, m->at[m->level], BYTES);
		m->level -= release;
		CHECK(ram_level_dirty(r) == 0 || release);
	} else {
		CHECK(ram_restore(r, NULL, NULL) == -EINVAL); /* no level open */
	}
}

int main(void)
{
	static struct model m;
	for (uint64_t seed = 1; seed <= SEQUENCES; seed++) {
		struct ram r;
		uint64_t s = seed;
		seed_now = seed;
		if (!CHECK(ram_init(&r, BASE, BYTES) == 0))
			break;
		r.homed = note_homed, r.homed_opaque = &r;
		memset(&m, 0, sizeof(m));
		memset(homed, 0, sizeof(homed));
		for (step_now = 0; step_now < STEPS; step_now++) {
			random_step(&r, &m, &s);
			check_invariants(&r, &m);
			check_content(&r, &m);
		}
		while (m.level > 0) { /* unwind: back to what level 1 saw */
			CHECK(ram_release(&r, NULL, NULL) == 0);
			memcpy(m.cur, m.at[m.level--], BYTES);
			check_invariants(&r, &m);
			check_content(&r, &m);
		}
		ram_free(&r);
	}
	printf("test_ram_fork: %d checks, %d failures\n", checks, failures);
	return failures != 0;
}
