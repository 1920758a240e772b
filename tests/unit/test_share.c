/* tier: fast */
/* test_share.c - the workers' share (share.h): the same checks against the
 * shared-memory share (share_local.c) and the Redis one (share_redis.c),
 * with workers as forked processes, plus what only Redis has (URLs,
 * joining, a server that is not there, errors and a lost connection).
 *
 * Run from the repository root:
 *   make build/asan/test_share
 *   build/asan/test_share local             the shared-memory share only
 *   build/asan/test_share redis://HOST:PORT both; the run's keys there
 *                                           (themis:*) are overwritten
 * tests/unit/test_share.sh starts a throwaway loopback Redis server and
 * runs the second form; `make test-unit` calls it.
 *
 * Checked: visit's answers (new 2, again 0, deeper 1, shallower 0), also
 * when several processes visit the same keys at once (exactly one sees a
 * key new, the largest remaining is kept); the queue's termination with
 * several processes working synthetic trees of binary items (each item
 * processed exactly once; a worker's take returns 0 only once every item
 * has been ended, so the counted states are complete); hungry; stop;
 * totals that add up over processes (deepest a maximum, coverage OR-ed, per-depth counts summed);
 * records numbered 1..n over processes, read back intact and in number
 * order, at most SHARE_RECORDS_MAX kept. Prints one line per test and
 * exits nonzero on any failure. */
#include <arpa/inet.h>
#include <hiredis/hiredis.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check/share.h"
#include "util/clock.h"
#include "util/rng.h"

#define WORKERS	    5
#define CHILD_LIMIT 60 /* seconds: a worker that hangs is killed, and fails */

static int checks, failures;

#define CHECK(cond) check((cond), #cond, __LINE__)

static bool check(bool ok, const char *what, int line)
{
	checks++;
	if (!ok) {
		failures++;
		fprintf(stderr, "[%d] line %d: check failed: %s\n", (int)getpid(), line, what);
	}
	return ok;
}

/* ---- the two shares ---- */

static const char *url; /* the Redis server's, or NULL */
static char host[256];
static int port;

struct backend {
	const char *name;
	/* A new run: the root item queued, nothing visited, counted or recorded. */
	struct share *(*create)(void);
	/* In a forked worker: the share it works through (run: the parent's). */
	struct share *(*worker)(struct share *run);
};

static struct share *local_create(void)
{
	char err[256];
	struct share *s = share_local_new(err, sizeof(err));
	if (!s)
		fprintf(stderr, "share_local_new: %s\n", err);
	return s;
}

static struct share *inherit(struct share *run)
{
	return run;
}

static const char test_config[] = "config: --depth 3\nimage\t\xe9\xff sha 0123";

static struct share *redis_create(void)
{
	char err[256];
	struct share *s = share_redis_create(url, test_config, 30, err, sizeof(err));
	if (!s)
		fprintf(stderr, "share_redis_create: %s\n", err);
	return s;
}

static struct share *redis_join(struct share *run)
{
	(void)run;
	char err[256], config[256];
	struct share *s = share_redis_join(url, 0, config, sizeof(config), err, sizeof(err));
	if (!s)
		fprintf(stderr, "share_redis_join: %s\n", err);
	else
		CHECK(!strcmp(config, test_config));
	return s;
}

static const struct backend local_backend = {"local", local_create, inherit};
/* Workers on "other hosts": each joins with a connection of its own. */
static const struct backend redis_backend = {"redis", redis_create, redis_join};
/* Workers forked after create, using the parent's share (which opens a
 * connection of its own in each child). */
static const struct backend redis_forked = {"redis-forked", redis_create, inherit};

/* ---- worker processes ---- */

/* Fork n workers running fn(run's share for worker i, i); each exits with
 * its failures (capped) and is killed after CHILD_LIMIT seconds. */
static int spawn(const struct backend *b, struct share *run, int n,
		 void (*fn)(struct share *s, int i, void *arg), void *arg, pid_t *pids)
{
	fflush(NULL);
	for (int i = 0; i < n; i++) {
		pids[i] = fork();
		if (pids[i] < 0) {
			perror("fork");
			return -1;
		}
		if (pids[i] == 0) {
			alarm(CHILD_LIMIT);
			failures = 0;
			struct share *s = b->worker(run);
			if (CHECK(s != NULL)) {
				fn(s, i, arg);
				s->ops->close(s);
			}
			fflush(NULL);
			exit(failures > 100 ? 100 : failures);
		}
	}
	return 0;
}

/* Wait for the n workers; each failure or abnormal end counts. */
static void reap(pid_t *pids, int n)
{
	for (int i = 0; i < n; i++) {
		int status;
		if (!CHECK(waitpid(pids[i], &status, 0) == pids[i]))
			continue;
		if (WIFEXITED(status)) {
			failures += WEXITSTATUS(status);
		} else {
			fprintf(stderr, "worker %d ended by signal %d\n", i, WTERMSIG(status));
			failures++;
		}
	}
}

/* Memory the workers share with the parent, zeroed. */
static void *shared(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	return p;
}

static void pause_us(long us)
{
	nanosleep(&(struct timespec){us / 1000000, us % 1000000 * 1000}, NULL);
}

static double seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void key_of(uint32_t n, uint8_t key[16])
{
	uint64_t st = n;
	uint64_t a = splitmix64(&st), b = splitmix64(&st);
	memcpy(key, &a, 8);
	memcpy(key + 8, &b, 8);
	key[3] = 0; /* NUL and newline bytes inside keys */
	key[9] = '\n';
}

/* ---- visit ---- */

static void test_visit(const struct backend *b)
{
	struct share *s = b->create();
	if (!CHECK(s != NULL))
		return;
	uint8_t k[16], k2[16];
	key_of(1, k);
	memcpy(k2, k, 16);
	k2[15] ^= 1;
	CHECK(s->ops->visit(s, k, 3, 0) == 2);
	CHECK(s->ops->visit(s, k, 3, 0) == 0);
	CHECK(s->ops->visit(s, k, 5, 0) == 1);
	CHECK(s->ops->visit(s, k, 4, 0) == 0);
	CHECK(s->ops->visit(s, k, 5, 0) == 0);
	CHECK(s->ops->visit(s, k2, 1, 2) == 2); /* one bit apart: another state */
	CHECK(s->ops->visit(s, k, 6, 0) == 1);
	/* A share that counts unique states counts each at its depth. */
	struct share_totals zero = {0}, total;
	CHECK(s->ops->count(s, &zero, &total) == 0);
	if (s->counts_unique)
		CHECK(total.unique == 2 && total.by_depth[SHARE_DEPTH_unique][0] == 1 &&
		      total.by_depth[SHARE_DEPTH_unique][2] == 1 &&
		      total.by_depth[SHARE_DEPTH_unique][1] == 0);
	s->ops->close(s);
}

#define RACE_KEYS 3000

struct race {
	int go;
	int news[RACE_KEYS]; /* how many workers were told each key is new */
	int errors;
};

/* Worker i visits every key with remaining 1 + (i + key) % WORKERS (for
 * each key one worker gives WORKERS): the first three in the same order,
 * starting together, so they meet on each key; the others in orders of
 * their own. */
static void race_worker(struct share *s, int i, void *arg)
{
	struct race *r = arg;
	uint64_t st = i < 3 ? 1 : (uint64_t)i * 7919;
	uint32_t order[RACE_KEYS];
	for (uint32_t k = 0; k < RACE_KEYS; k++)
		order[k] = k;
	for (uint32_t k = RACE_KEYS - 1; k > 0; k--) {
		uint32_t j = (uint32_t)(splitmix64(&st) % (k + 1)), t = order[k];
		order[k] = order[j];
		order[j] = t;
	}
	uint8_t warm[16];
	key_of(0, warm);
	s->ops->visit(s, warm, 1, 0); /* a forked share connects on its first use */
	__atomic_add_fetch(&r->go, 1, __ATOMIC_RELAXED);
	while (__atomic_load_n(&r->go, __ATOMIC_RELAXED) < WORKERS)
		;
	for (uint32_t n = 0; n < RACE_KEYS; n++) {
		uint8_t key[16];
		key_of(1000 + order[n], key);
		int rc = s->ops->visit(s, key, 1 + (int)((order[n] + (uint32_t)i) % WORKERS), 1);
		if (rc == 2)
			__atomic_add_fetch(&r->news[order[n]], 1, __ATOMIC_RELAXED);
		else if (rc < 0)
			__atomic_add_fetch(&r->errors, 1, __ATOMIC_RELAXED);
	}
}

static void test_visit_race(const struct backend *b)
{
	struct share *s = b->create();
	if (!CHECK(s != NULL))
		return;
	struct race *r = shared(sizeof(*r));
	pid_t pids[WORKERS];
	if (!spawn(b, s, WORKERS, race_worker, r, pids))
		reap(pids, WORKERS);
	CHECK(r->errors == 0);
	int once = 0, kept = 0;
	for (uint32_t k = 0; k < RACE_KEYS; k++) {
		uint8_t key[16];
		key_of(1000 + k, key);
		once += r->news[k] == 1;
		kept += s->ops->visit(s, key, WORKERS, 0) == 0 &&
			s->ops->visit(s, key, WORKERS + 1, 0) == 1;
	}
	if (!CHECK(once == RACE_KEYS))
		fprintf(stderr, "  %d of %d keys were new to exactly one worker\n", once,
			RACE_KEYS);
	if (!CHECK(kept == RACE_KEYS))
		fprintf(stderr, "  %d of %d keys kept the largest remaining\n", kept, RACE_KEYS);
	munmap(r, sizeof(*r));
	s->ops->close(s);
}

/* ---- the queue ---- */

/* Synthetic trees of work: an item shorter than depth bytes has fan
 * children, itself plus one letter each. The letters include a newline
 * and a byte above 127 (items are binary-safe). Item i's children are
 * fan * i + 1 .. fan * i + fan (the root is 0).
 *
 * The wide tree has the queue mostly full; the chain (fan 1) empties it
 * at every step, so the moment between one item's end and the next's
 * start, when a waiting worker could wrongly conclude that no work is
 * left, comes a thousand times. */
#define TREE_MAX 1024

static const char letters[3] = {'a', '\n', (char)0xe9};

struct tree {
	int fan, depth, items;
	long work_us; /* each item's work: up to this long, at random */
	int hits[TREE_MAX];
	int bad_items, errors, early; /* early: take gave 0 before every item was counted */
	int taken[WORKERS];
};

static int tree_index(const struct tree *t, const char *item)
{
	int i = 0;
	for (const char *p = item; *p; p++) {
		const char *l = memchr(letters, *p, (size_t)t->fan);
		if (!l || i >= t->items)
			return -1;
		i = t->fan * i + 1 + (int)(l - letters);
	}
	return i < t->items ? i : -1;
}

static void tree_worker(struct share *s, int w, void *arg)
{
	struct tree *t = arg;
	uint64_t st = (uint64_t)w + 1;
	char item[SHARE_ITEM_MAX];
	int rc;
	while ((rc = s->ops->take(s, item, sizeof(item))) == 1) {
		int i = tree_index(t, item);
		if (i < 0) {
			__atomic_add_fetch(&t->bad_items, 1, __ATOMIC_RELAXED);
			continue;
		}
		__atomic_add_fetch(&t->hits[i], 1, __ATOMIC_RELAXED);
		t->taken[w]++;
		/* Work a while (the root longer), so others find the queue
		 * empty with this one busy. */
		if (t->work_us)
			pause_us((long)(splitmix64(&st) % (uint64_t)t->work_us) +
				 (i == 0 ? 20000 : 0));
		size_t len = strlen(item);
		if ((int)len < t->depth) {
			for (int c = 0; c < t->fan; c++) {
				item[len] = letters[c];
				item[len + 1] = 0;
				if (s->ops->put(s, item))
					__atomic_add_fetch(&t->errors, 1, __ATOMIC_RELAXED);
			}
		}
		struct share_totals one = {.states = 1};
		if (s->ops->count(s, &one, NULL))
			__atomic_add_fetch(&t->errors, 1, __ATOMIC_RELAXED);
	}
	if (rc < 0) {
		fprintf(stderr, "take: %s\n", s->err);
		__atomic_add_fetch(&t->errors, 1, __ATOMIC_RELAXED);
	}
	/* No work left: every item was ended, each counted before its end. */
	struct share_totals zero = {0}, total;
	if (s->ops->count(s, &zero, &total) || total.states != (uint64_t)t->items) {
		fprintf(stderr, "worker %d: take gave 0 with %llu of %d items counted\n", w,
			(unsigned long long)total.states, t->items);
		__atomic_add_fetch(&t->early, 1, __ATOMIC_RELAXED);
	}
}

static void run_tree(const struct backend *b, int fan, int depth, long work_us)
{
	struct share *s = b->create();
	if (!CHECK(s != NULL))
		return;
	struct tree *t = shared(sizeof(*t));
	t->fan = fan;
	t->depth = depth;
	t->work_us = work_us;
	for (int n = 1, level = 0; level <= depth; level++, n *= fan)
		t->items += n;
	CHECK(t->items <= TREE_MAX);
	pid_t pids[WORKERS];
	double t0 = seconds();
	if (!spawn(b, s, WORKERS, tree_worker, t, pids))
		reap(pids, WORKERS);
	int once = 0, busy = 0;
	for (int i = 0; i < t->items; i++)
		once += t->hits[i] == 1;
	for (int w = 0; w < WORKERS; w++)
		busy += t->taken[w] > 0;
	if (!CHECK(once == t->items))
		fprintf(stderr, "  %d of %d items processed exactly once\n", once, t->items);
	CHECK(t->bad_items == 0);
	CHECK(t->errors == 0);
	CHECK(t->early == 0);
	CHECK(busy > 1); /* the work was shared, not done by one */
	struct share_totals zero = {0}, total;
	CHECK(s->ops->count(s, &zero, &total) == 0 && total.states == (uint64_t)t->items);
	printf("  %s: %d items (fan %d), %d workers, %.2f s\n", b->name, t->items, fan, WORKERS,
	       seconds() - t0);
	munmap(t, sizeof(*t));
	s->ops->close(s);
}

static void test_tree(const struct backend *b)
{
	run_tree(b, 3, 5, 400);
}

static void test_chain(const struct backend *b)
{
	run_tree(b, 1, 1000, 0);
}

/* One process: items round-trip intact, up to SHARE_ITEM_MAX - 1 bytes. */
static void test_items(const struct backend *b)
{
	struct share *s = b->create();
	if (!CHECK(s != NULL))
		return;
	char *big = malloc(SHARE_ITEM_MAX + 1), *item = malloc(SHARE_ITEM_MAX);
	for (int i = 0; i < SHARE_ITEM_MAX; i++)
		big[i] = (char)(1 + i % 255); /* every byte but NUL */
	big[SHARE_ITEM_MAX] = 0;
	CHECK(s->ops->put(s, big) == -1); /* one byte too long */
	big[SHARE_ITEM_MAX - 1] = 0;
	CHECK(s->ops->take(s, item, SHARE_ITEM_MAX) == 1 && !strcmp(item, "")); /* the root */
	CHECK(s->ops->put(s, big) == 0);
	CHECK(s->ops->put(s, "x\ny \"z\"\t\\") == 0);
	int got_big = 0, got_small = 0;
	for (int n = 0; n < 2; n++) {
		if (!CHECK(s->ops->take(s, item, SHARE_ITEM_MAX) == 1))
			break;
		got_big += !strcmp(item, big);
		got_small += !strcmp(item, "x\ny \"z\"\t\\");
	}
	CHECK(got_big == 1 && got_small == 1);
	CHECK(s->ops->take(s, item, SHARE_ITEM_MAX) == 0); /* empty, and no one busy */
	free(big);
	free(item);
	s->ops->close(s);
}

/* hungry: a worker waiting while the queue is empty. */
struct hungry {
	int go; /* set once the parent holds the root, taken after the fork: a
		 * worker forked from a holder would inherit its item */
	int got_a, zero_after;
};

/* Wait for the parent's go. */
static void wait_go(int *go)
{
	while (!__atomic_load_n(go, __ATOMIC_ACQUIRE))
		pause_us(1000);
}

static void hungry_worker(struct share *s, int i, void *arg)
{
	(void)i;
	struct hungry *h = arg;
	char item[64];
	wait_go(&h->go);
	int rc = s->ops->take(s, item, sizeof(item)); /* waits: the parent holds the root */
	h->got_a = rc == 1 && !strcmp(item, "a");
	pause_us(300000);			  /* works on it: no one waits */
	rc = s->ops->take(s, item, sizeof(item)); /* waits again, until the parent ends */
	h->zero_after = rc == 0;
}

/* Poll f until it is want, for at most 3 s. */
static bool eventually(struct share *s, bool (*f)(struct share *), bool want)
{
	for (double t0 = seconds(); seconds() - t0 < 3;) {
		if (f(s) == want)
			return true;
		pause_us(1000);
	}
	return false;
}

static void test_hungry(const struct backend *b)
{
	struct share *s = b->create();
	if (!CHECK(s != NULL))
		return;
	struct hungry *h = shared(sizeof(*h));
	char item[64];
	pid_t pid;
	if (!spawn(b, s, 1, hungry_worker, h, &pid)) {
		CHECK(s->ops->take(s, item, sizeof(item)) == 1);
		pause_us(10000);
		CHECK(!s->ops->hungry(s)); /* busy, but no one waits */
		__atomic_store_n(&h->go, 1, __ATOMIC_RELEASE);
		CHECK(eventually(s, s->ops->hungry, true));
		CHECK(s->ops->put(s, "a") == 0);
		CHECK(eventually(s, s->ops->hungry, false));	 /* work there, then taken */
		CHECK(eventually(s, s->ops->hungry, true));	 /* and waits again */
		CHECK(s->ops->take(s, item, sizeof(item)) == 0); /* ends the root: all done */
		reap(&pid, 1);
	}
	CHECK(h->got_a);
	CHECK(h->zero_after);
	munmap(h, sizeof(*h));
	s->ops->close(s);
}

/* stop: a waiting worker's take returns 0, and stopped says so. */
struct stopping {
	int go, took_zero, saw_stopped;
	double waited;
};

static void stop_worker(struct share *s, int i, void *arg)
{
	(void)i;
	struct stopping *st = arg;
	char item[64];
	wait_go(&st->go);
	double t0 = seconds();
	st->took_zero = s->ops->take(s, item, sizeof(item)) == 0;
	st->waited = seconds() - t0;
	st->saw_stopped = eventually(s, s->ops->stopped, true);
}

static void test_stop(const struct backend *b)
{
	struct share *s = b->create();
	if (!CHECK(s != NULL))
		return;
	struct stopping *st = shared(sizeof(*st));
	char item[64];
	CHECK(!s->ops->stopped(s));
	pid_t pid;
	if (!spawn(b, s, 1, stop_worker, st, &pid)) {
		CHECK(s->ops->take(s, item, sizeof(item)) == 1);
		__atomic_store_n(&st->go, 1, __ATOMIC_RELEASE);
		pause_us(200000); /* the worker waits for work */
		s->ops->stop(s);
		reap(&pid, 1);
	}
	CHECK(st->took_zero && st->waited >= 0.1);
	CHECK(st->saw_stopped);
	CHECK(s->ops->stopped(s));
	CHECK(s->ops->put(s, "b") == 0);
	CHECK(s->ops->take(s, item, sizeof(item)) == 0); /* stopped, though there is work */
	munmap(st, sizeof(*st));
	s->ops->close(s);
}

/* ---- totals ---- */

#define COUNTS 40
/* Lens words of each merge kind: summed, maximum, OR-ed 32-bit sets. */
static const char lens_kinds[] = "somsomsom";
#define NLENS (sizeof(lens_kinds) - 1)

static uint64_t lens_value(int j, int i, int k)
{
	return lens_kinds[j] == 's'   ? (uint64_t)(j + 1)
	       : lens_kinds[j] == 'm' ? (uint64_t)(i * 1000 + k * 7 + j)
				      : 1ull << ((i + k + j) % 32);
}

/* Worker i's k-th per-depth counts: some depths, the last one among them. */
static void depth_values(struct share_totals *d, int i, int k)
{
	d->by_depth[SHARE_DEPTH_states][k % 5] = (uint64_t)(i + 1);
	d->by_depth[SHARE_DEPTH_unique][(i * 7 + k) % SHARE_DEPTHS] = (uint64_t)k;
	d->by_depth[SHARE_DEPTH_unique][SHARE_DEPTHS - 1] = 1;
}

static void count_worker(struct share *s, int i, void *arg)
{
	(void)arg;
	memcpy(s->kinds, lens_kinds, sizeof(lens_kinds));
	for (int k = 0; k < COUNTS; k++) {
		struct share_totals d = {.states = 1,
					 .ops = 2,
					 .unique = (uint64_t)i,
					 .restores = 3,
					 .discrepancies = k == 0,
					 .findings = (uint64_t)k,
					 .deepest = (uint64_t)(i * 100 + k)};
		for (size_t j = 0; j < NLENS; j++)
			d.lens[j] = lens_value((int)j, i, k);
		depth_values(&d, i, k);
		struct share_totals total;
		CHECK(s->ops->count(s, &d, k % 2 ? &total : NULL) == 0);
		if (k % 2)
			CHECK(total.states >= (uint64_t)k + 1);
	}
}

static void test_totals(const struct backend *b)
{
	struct share *s = b->create();
	if (!CHECK(s != NULL))
		return;
	struct share_totals zero = {0}, total, want = {0};
	memcpy(s->kinds, lens_kinds, sizeof(lens_kinds));
	CHECK(s->ops->count(s, &zero, &total) == 0);
	CHECK(!memcmp(&total, &zero, sizeof(total)));
	pid_t pids[WORKERS];
	if (!spawn(b, s, WORKERS, count_worker, NULL, pids))
		reap(pids, WORKERS);
	for (int i = 0; i < WORKERS; i++)
		for (int k = 0; k < COUNTS; k++) {
			want.states += 1;
			want.ops += 2;
			want.unique += (uint64_t)i;
			want.restores += 3;
			want.discrepancies += k == 0;
			want.findings += (uint64_t)k;
			if ((uint64_t)(i * 100 + k) > want.deepest)
				want.deepest = (uint64_t)(i * 100 + k);
			struct share_totals one = {0};
			for (size_t j = 0; j < NLENS; j++)
				one.lens[j] = lens_value((int)j, i, k);
			lens_merge_words(want.lens, one.lens, lens_kinds, NLENS);
			depth_values(&one, i, k);
			for (int q = 0; q < SHARE_NDEPTH; q++)
				for (int dd = 0; dd < SHARE_DEPTHS; dd++)
					want.by_depth[q][dd] += one.by_depth[q][dd];
		}
	/* deepest is a maximum: a smaller one changes nothing */
	struct share_totals small = {.deepest = 3, .states = 0xffffffffffULL};
	want.states += small.states;
	CHECK(s->ops->count(s, &small, &total) == 0);
	CHECK(total.states == want.states && total.ops == want.ops && total.unique == want.unique &&
	      total.restores == want.restores && total.discrepancies == want.discrepancies &&
	      total.findings == want.findings && total.deepest == want.deepest);
	CHECK(!memcmp(total.lens, want.lens, sizeof(want.lens)));
	CHECK(!memcmp(total.by_depth, want.by_depth, sizeof(want.by_depth)));
	for (size_t j = 0; j < NLENS; j++)
		if (total.lens[j] != want.lens[j])
			printf("  lens word %zu (%c): %llu, want %llu\n", j, lens_kinds[j],
			       (unsigned long long)total.lens[j], (unsigned long long)want.lens[j]);
	s->ops->close(s);
}

/* ---- records ---- */

static void fill_record(struct share_record *r, int tag, bool big)
{
	memset(r, 0, sizeof(*r));
	r->finding = tag % 3 == 0;
	r->depth = tag % 7;
	snprintf(r->sig, sizeof(r->sig), "sig %d\n\t\"q\" \xe9", tag);
	snprintf(r->detail, sizeof(r->detail), "detail of %d:\nline two \\ %%s", tag);
	if (big) { /* the largest fields there are */
		memset(r->sig, 's', sizeof(r->sig) - 1);
		for (size_t i = 0; i < sizeof(r->ops) - 1; i++)
			r->ops[i] = (char)(1 + i % 255);
		memset(r->detail, 'd', sizeof(r->detail) - 1);
		memset(r->min_ops, '\n', sizeof(r->min_ops) - 1);
	} else {
		snprintf(r->ops, sizeof(r->ops), "create f%d\nwrite f%d 0 512", tag, tag);
		if (tag % 2)
			snprintf(r->min_ops, sizeof(r->min_ops), "write f%d 0 1", tag);
	}
}

static bool same_record(const struct share_record *a, const struct share_record *b)
{
	return a->finding == b->finding && a->depth == b->depth && !strcmp(a->sig, b->sig) &&
	       !strcmp(a->detail, b->detail) && !strcmp(a->ops, b->ops) &&
	       !strcmp(a->min_ops, b->min_ops);
}

#define RECORDERS 4
#define EACH	  30

struct numbering {
	int tag_of[RECORDERS * EACH + 1]; /* by number: the tag recorded, + 1 */
	int errors;
};

static void record_worker(struct share *s, int i, void *arg)
{
	struct numbering *nb = arg;
	struct share_record *r = malloc(sizeof(*r));
	for (int j = 0; j < EACH; j++) {
		int tag = 100 + i * EACH + j;
		fill_record(r, tag, false);
		int n = s->ops->record(s, r);
		if (n < 1 || n > RECORDERS * EACH ||
		    !__atomic_compare_exchange_n(&nb->tag_of[n], &(int){0}, tag + 1, false,
						 __ATOMIC_RELAXED, __ATOMIC_RELAXED))
			__atomic_add_fetch(&nb->errors, 1, __ATOMIC_RELAXED);
	}
	free(r);
}

static void test_records(const struct backend *b)
{
	struct share *s = b->create();
	if (!CHECK(s != NULL))
		return;
	struct share_record *one = malloc(sizeof(*one));
	struct share_record *all = malloc(sizeof(*all) * SHARE_RECORDS_MAX);
	CHECK(s->ops->records(s, all, SHARE_RECORDS_MAX) == 0);
	struct numbering *nb = shared(sizeof(*nb));
	pid_t pids[RECORDERS];
	if (!spawn(b, s, RECORDERS, record_worker, nb, pids))
		reap(pids, RECORDERS);
	CHECK(nb->errors == 0);
	int n = RECORDERS * EACH;
	fill_record(one, 1, true);
	CHECK(s->ops->record(s, one) == n + 1);
	CHECK(s->ops->records(s, all, SHARE_RECORDS_MAX) == n + 1);
	int intact = 0;
	for (int k = 1; k <= n; k++) {
		fill_record(one, nb->tag_of[k] - 1, false);
		intact += nb->tag_of[k] && same_record(&all[k - 1], one);
	}
	if (!CHECK(intact == n))
		fprintf(stderr, "  %d of %d records read back intact, in number order\n", intact,
			n);
	fill_record(one, 1, true);
	CHECK(same_record(&all[n], one));
	CHECK(s->ops->records(s, all, 7) == 7); /* at most max */
	/* Past SHARE_RECORDS_MAX: numbered on, not kept. */
	int last = 0;
	for (int k = n + 2; k <= SHARE_RECORDS_MAX + 5; k++) {
		fill_record(one, k, false);
		last = s->ops->record(s, one);
		if (last != k)
			break;
	}
	CHECK(last == SHARE_RECORDS_MAX + 5);
	CHECK(s->ops->records(s, all, SHARE_RECORDS_MAX) == SHARE_RECORDS_MAX);
	fill_record(one, SHARE_RECORDS_MAX, false);
	CHECK(same_record(&all[SHARE_RECORDS_MAX - 1], one));
	munmap(nb, sizeof(*nb));
	free(one);
	free(all);
	s->ops->close(s);
}

/* ---- Redis only ---- */

/* A connection of the test's own, to look at and spoil the run's keys. */
static redisContext *admin(void)
{
	redisContext *c = redisConnect(host, port);
	if (!c || c->err) {
		fprintf(stderr, "admin connection: %s\n", c ? c->errstr : "out of memory");
		redisFree(c);
		return NULL;
	}
	return c;
}

static void admin_do(redisContext *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static long long admin_int(redisContext *c, const char *cmd)
{
	redisReply *rep = redisCommand(c, cmd);
	long long v = rep && rep->type == REDIS_REPLY_INTEGER ? rep->integer : -1;
	freeReplyObject(rep);
	return v;
}

static void admin_do(redisContext *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	redisReply *rep = redisvCommand(c, fmt, ap);
	va_end(ap);
	CHECK(rep && rep->type != REDIS_REPLY_ERROR);
	freeReplyObject(rep);
}

static bool starts(const char *s, const char *prefix)
{
	if (strncmp(s, prefix, strlen(prefix))) {
		fprintf(stderr, "  got '%s', want '%s...'\n", s, prefix);
		return false;
	}
	return true;
}

static void test_redis_urls(void)
{
	static const char *const bad[] = {
	    "http://127.0.0.1:6379", "redis://",      "redis://:6379", "redis://h:0",
	    "redis://h:65536",	     "redis://h:12x", "redis://h:",    "redis://h:6379/0",
	    "redis://u@h:6379",	     "redis://[::1",  "127.0.0.1:6379"};
	char err[256], want[300], config[64];
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(want, sizeof(want), "bad Redis URL '%s': expected redis://HOST:PORT",
			 bad[i]);
		err[0] = 0;
		CHECK(!share_redis_create(bad[i], "", 30, err, sizeof(err)));
		CHECK(!strcmp(err, want));
		err[0] = 0;
		CHECK(!share_redis_join(bad[i], 0, config, sizeof(config), err, sizeof(err)));
		CHECK(!strcmp(err, want));
	}
}

/* A port on loopback that nothing listens on: one the kernel just gave out. */
static int closed_port(void)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(a);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(fd, (struct sockaddr *)&a, &len)) {
		perror("closed_port");
		exit(1);
	}
	close(fd);
	return ntohs(a.sin_port);
}

static void test_redis_unreachable(void)
{
	char u[64], err[256], want[64], config[64];
	int p = closed_port();
	snprintf(u, sizeof(u), "redis://127.0.0.1:%d", p);
	snprintf(want, sizeof(want), "cannot reach Redis at 127.0.0.1:%d: ", p);
	double t0 = seconds();
	CHECK(!share_redis_create(u, "", 30, err, sizeof(err)));
	CHECK(starts(err, want) && strlen(err) > strlen(want));
	CHECK(!share_redis_join(u, 0, config, sizeof(config), err, sizeof(err)));
	CHECK(starts(err, want));
	CHECK(seconds() - t0 < 2);
	/* The default port: reachable or not, never a URL error. */
	struct share *s =
	    share_redis_join("redis://127.0.0.1", 0, config, sizeof(config), err, sizeof(err));
	CHECK(s || !strstr(err, "bad Redis URL"));
	if (s)
		s->ops->close(s);
}

static void test_redis_join(void)
{
	redisContext *c = admin();
	if (!CHECK(c != NULL))
		return;
	char err[256], want[300], config[256];
	snprintf(want, sizeof(want), "no exploration is running at %s:%d", host, port);
	admin_do(c, "DEL themis:config");
	CHECK(!share_redis_join(url, 0, config, sizeof(config), err, sizeof(err)));
	CHECK(!strcmp(err, want));
	/* A worker given time waits that long for a run, then says so. */
	double t0 = host_seconds();
	CHECK(!share_redis_join(url, 1, config, sizeof(config), err, sizeof(err)));
	CHECK(host_seconds() - t0 >= 1 && strstr(err, "no exploration started at") &&
	      strstr(err, "within 1 s"));

	struct share *s = share_redis_create(url, test_config, 30, err, sizeof(err));
	if (!CHECK(s != NULL))
		goto out;
	struct share *w = share_redis_join(url, 0, config, sizeof(config), err, sizeof(err));
	CHECK(w && !strcmp(config, test_config));
	if (w)
		w->ops->close(w);
	CHECK(!share_redis_join(url, 0, config, 10, err, sizeof(err))); /* config too long */
	CHECK(strstr(err, "config of") != NULL);
	/* A worker's close does not end the run: the coordinator reads it
	 * afterwards. The coordinator's close ends it (stopped, every key
	 * expiring within a minute); the last process to leave an ended run
	 * deletes its keys: nothing of it stays on the server. */
	w = share_redis_join(url, 0, config, sizeof(config), err, sizeof(err));
	CHECK(w != NULL && admin_int(c, "INCRBY themis:active 0") == 2);
	s->ops->close(s);
	CHECK(admin_int(c, "EXISTS themis:config") == 1 && admin_int(c, "EXISTS themis:stop") == 1);
	CHECK(admin_int(c, "TTL themis:config") > 0 && admin_int(c, "TTL themis:config") <= 60);
	if (w) {
		CHECK(w->ops->stopped(w));
		w->ops->close(w);
	}
	CHECK(admin_int(c, "EXISTS themis:config") == 0 && admin_int(c, "EXISTS themis:run") == 0 &&
	      admin_int(c, "EXISTS themis:active") == 0);
	CHECK(!share_redis_join(url, 0, config, sizeof(config), err, sizeof(err)));
out:
	redisFree(c);
}

/* create clears the previous run: every key under the prefix, nothing else. */
static void test_redis_fresh(void)
{
	redisContext *c = admin();
	if (!CHECK(c != NULL))
		return;
	struct share *s = redis_create();
	if (!CHECK(s != NULL))
		goto out;
	uint8_t k[16];
	key_of(7, k);
	char item[64];
	struct share_record *r = calloc(1, sizeof(*r));
	struct share_totals d = {.states = 5, .deepest = 3}, total;
	snprintf(s->kinds, sizeof(s->kinds), "o");
	d.lens[0] = 1;
	CHECK(s->ops->visit(s, k, 2, 0) == 2);
	CHECK(s->ops->take(s, item, sizeof(item)) == 1);
	CHECK(s->ops->put(s, "left over") == 0);
	CHECK(s->ops->count(s, &d, &total) == 0 && total.states == 5);
	CHECK(s->ops->record(s, r) == 1);
	s->ops->stop(s);
	s->ops->close(s);
	admin_do(c, "SET themis:from-an-older-build 1");
	admin_do(c, "SET other:key 1");

	s = redis_create();
	if (!CHECK(s != NULL))
		goto out;
	CHECK(admin_int(c, "EXISTS themis:from-an-older-build") == 0);
	CHECK(admin_int(c, "EXISTS other:key") == 1);
	admin_do(c, "DEL other:key");
	CHECK(!s->ops->stopped(s));
	CHECK(s->ops->visit(s, k, 2, 0) == 2);
	/* Nothing of the old run is counted; the visit counts its new state. */
	struct share_totals zero = {0}, want = {.unique = 1};
	want.by_depth[SHARE_DEPTH_unique][0] = 1;
	CHECK(s->ops->count(s, &zero, &total) == 0 && !memcmp(&total, &want, sizeof(total)));
	CHECK(s->ops->records(s, r, 1) == 0);
	CHECK(s->ops->take(s, item, sizeof(item)) == 1 && !strcmp(item, ""));
	CHECK(s->ops->take(s, item, sizeof(item)) == 0);
	s->ops->close(s);
	free(r);
out:
	redisFree(c);
}

/* Redis errors and a lost connection: -1 and a one-line message, no crash. */
static void test_redis_errors(void)
{
	redisContext *c = admin();
	if (!CHECK(c != NULL))
		return;
	struct share *s = redis_create();
	if (!CHECK(s != NULL))
		goto out;
	uint8_t k[16];
	key_of(9, k);
	admin_do(c, "SET themis:visited not-a-hash");
	CHECK(s->ops->visit(s, k, 1, 0) == -1);
	CHECK(strstr(s->err, "WRONGTYPE") != NULL && !strchr(s->err, '\n'));
	admin_do(c, "DEL themis:visited");
	CHECK(s->ops->visit(s, k, 1, 0) == 2); /* an error reply leaves the share usable */
	CHECK(!s->ops->stopped(s));
	admin_do(c, "SCRIPT FLUSH"); /* the scripts are sent again */
	CHECK(s->ops->visit(s, k, 2, 0) == 1);

	char item[64];
	CHECK(s->ops->take(s, item, sizeof(item)) == 1);
	/* Drop every client but this one: the share's connection is gone. */
	CHECK(admin_int(c, "CLIENT KILL TYPE normal SKIPME yes") >= 1);
	struct share_totals zero = {0}, total;
	struct share_record *r = calloc(1, sizeof(*r));
	CHECK(s->ops->visit(s, k, 3, 0) == -1);
	CHECK(starts(s->err, "lost the connection to Redis at "));
	CHECK(s->ops->stopped(s));
	CHECK(!s->ops->hungry(s));
	CHECK(s->ops->take(s, item, sizeof(item)) == -1);
	CHECK(s->ops->put(s, "x") == -1);
	CHECK(s->ops->count(s, &zero, &total) == -1);
	CHECK(s->ops->record(s, r) == -1);
	CHECK(s->ops->records(s, r, 1) == -1);
	s->ops->stop(s);
	free(r);
	s->ops->close(s);
out:
	redisFree(c);
}

/* A worker that dies holding an item, and one cut off (stopped) for
 * longer than the lease: the item goes back to the queue, the dead
 * worker's marks count as never made (visit answers 1, explore again, and
 * counts nothing twice), and the one cut off is told so when it comes back. */
static void lease_child(struct share *run, int mode, int go, int ready)
{
	alarm(CHILD_LIMIT);
	run->ops->close(run); /* the parent's: this worker joins as from another host */
	char err[256], config[256], item[64];
	struct share *s = share_redis_join(url, 0, config, sizeof(config), err, sizeof(err));
	uint8_t key[16];
	key_of(7, key);
	int ok = s && s->ops->take(s, item, sizeof(item)) == 1 && s->ops->visit(s, key, 2, 0) == 2;
	if (mode == 0 || !ok) /* die holding the item */
		raise(SIGKILL);
	char c = 'v';
	if (write(ready, &c, 1) != 1)
		exit(1);
	ok = read(go, &c, 1) == 1 && s->ops->take(s, item, sizeof(item)) == -1 &&
	     strstr(s->err, "lost its lease") && s->ops->stopped(s);
	s->ops->close(s);
	exit(ok ? 0 : 1);
}

static void test_redis_lease(void)
{
	char err[256], item[64];
	uint8_t key[16];
	key_of(7, key);
	for (int mode = 0; mode < 2; mode++) {
		struct share *s = share_redis_create(url, test_config, 1, err, sizeof(err));
		redisContext *a = admin();
		int go[2], ready[2];
		char c;
		if (!CHECK(s && a && pipe(go) == 0 && pipe(ready) == 0))
			return;
		fflush(NULL);
		pid_t pid = fork();
		if (pid == 0)
			lease_child(s, mode, go[0], ready[1]);
		int status = 0;
		if (mode == 0) {
			CHECK(waitpid(pid, &status, 0) == pid && WIFSIGNALED(status));
		} else {
			CHECK(read(ready[0], &c, 1) == 1); /* it holds the item, key marked */
			kill(pid, SIGSTOP);
		}
		double t0 = seconds();
		/* Polls while the item is held; gets it back once the lease ends. */
		CHECK(s->ops->take(s, item, sizeof(item)) == 1 && !strcmp(item, ""));
		CHECK(seconds() - t0 > 0.2);
		CHECK(admin_int(a, "SCARD themis:dead") == 1);
		CHECK(s->ops->visit(s, key, 2, 0) == 1); /* the dead worker's mark */
		CHECK(s->ops->visit(s, key, 2, 0) == 0); /* this one's */
		struct share_totals zero = {0}, total;
		CHECK(s->ops->count(s, &zero, &total) == 0 && total.unique == 1);
		if (mode == 1) {
			kill(pid, SIGCONT);
			CHECK(write(go[1], "g", 1) == 1);
			CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
			      WEXITSTATUS(status) == 0);
		}
		CHECK(s->ops->take(s, item, sizeof(item)) == 0); /* nothing left, none busy */
		CHECK(admin_int(a, "HLEN themis:held") == 0);
		close(go[0]);
		close(go[1]);
		close(ready[0]);
		close(ready[1]);
		redisFree(a);
		s->ops->close(s);
	}
}

/* Workers that joined a run a new one replaced (they read its config
 * just before): every call that would change the new run fails, saying
 * so, and the new run is untouched. */
static void test_redis_run_over(void)
{
	struct share *old = redis_create();
	struct share *w1 = old ? redis_join(old) : NULL, *w2 = old ? redis_join(old) : NULL;
	struct share *now = w1 && w2 ? redis_create() : NULL;
	redisContext *a = admin();
	char item[64];
	uint8_t k[16];
	key_of(3, k);
	struct share_totals d = {.states = 7}, total;
	if (CHECK(now && a)) {
		CHECK(w1->ops->take(w1, item, sizeof(item)) == -1 && strstr(w1->err, "is over") &&
		      w1->lost && w1->ops->stopped(w1));
		CHECK(w2->ops->visit(w2, k, 2, 0) == -1 && strstr(w2->err, "is over") && w2->lost);
		CHECK(w2->ops->put(w2, "stale") == -1);
		CHECK(w2->ops->count(w2, &d, NULL) == -1);
		CHECK(admin_int(a, "LLEN themis:queue") == 1 &&
		      admin_int(a, "HLEN themis:visited") == 0);
		CHECK(now->ops->count(now, &(struct share_totals){0}, &total) == 0 &&
		      total.states == 0);
		CHECK(now->ops->take(now, item, sizeof(item)) == 1 && !strcmp(item, ""));
		CHECK(!now->lost);
	}
	struct share *all[] = {old, w1, w2, now};
	for (int i = 0; i < 4; i++)
		if (all[i])
			all[i]->ops->close(all[i]);
	redisFree(a);
}

/* ---- main ---- */

struct test {
	const char *name;
	void (*fn)(const struct backend *b);
};

static const struct test common[] = {
    {"visit", test_visit}, {"visit-race", test_visit_race}, {"items", test_items},
    {"tree", test_tree},   {"chain", test_chain},	    {"hungry", test_hungry},
    {"stop", test_stop},   {"totals", test_totals},	    {"records", test_records},
};

static int passed, failed;

static void run(const char *name, const char *backend, void (*fn)(const struct backend *b),
		void (*plain)(void), const struct backend *b)
{
	int before = failures;
	if (fn)
		fn(b);
	else
		plain();
	bool ok = failures == before;
	passed += ok;
	failed += !ok;
	printf("%s %s %s\n", ok ? "ok:  " : "FAIL:", backend, name);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	if (argc != 2 || (strcmp(argv[1], "local") && strncmp(argv[1], "redis://", 8))) {
		fprintf(stderr,
			"usage: %s local | redis://HOST:PORT\n"
			"  (tests/unit/test_share.sh starts a throwaway Redis server)\n",
			argv[0]);
		return 2;
	}
	signal(SIGPIPE, SIG_IGN); /* a dropped connection is an error return, not a signal */
	const struct backend *backends[3] = {&local_backend};
	int nb = 1;
	if (strcmp(argv[1], "local")) {
		url = argv[1];
		if (sscanf(url, "redis://%255[^:]:%d", host, &port) != 2) {
			fprintf(stderr, "test_share: give the URL as redis://HOST:PORT\n");
			return 2;
		}
		backends[nb++] = &redis_backend;
		backends[nb++] = &redis_forked;
	}
	for (int i = 0; i < nb; i++)
		for (size_t t = 0; t < sizeof(common) / sizeof(common[0]); t++)
			run(common[t].name, backends[i]->name, common[t].fn, NULL, backends[i]);
	if (url) {
		run("urls", "redis", NULL, test_redis_urls, NULL);
		run("unreachable", "redis", NULL, test_redis_unreachable, NULL);
		run("join", "redis", NULL, test_redis_join, NULL);
		run("fresh", "redis", NULL, test_redis_fresh, NULL);
		run("errors", "redis", NULL, test_redis_errors, NULL);
		run("lease", "redis", NULL, test_redis_lease, NULL);
		run("run-over", "redis", NULL, test_redis_run_over, NULL);
	}
	printf("test_share: %d checks\n", checks);
	printf("test_share: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
