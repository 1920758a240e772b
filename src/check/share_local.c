/* share_local.c - the share (share.h) of `themis explore --jobs N`: one
 * anonymous shared mapping, created before the worker processes are forked
 * from the booted machine, so every worker sees the same visited set,
 * queue, totals and records. One process-shared mutex guards it all: a
 * worker takes it a few times per state (visit, count), thousands of times
 * less often than it runs guest instructions.
 *
 * The visited set is open addressing over a fixed table (it cannot grow
 * in place under other processes); when it is half full, new states are
 * treated as seen, which keeps the search bounded, and `full` says so. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "share.h"

#define LOCAL_SLOTS (1u << 22) /* visited entries: 96 MiB reserved, touched as used */
#define LOCAL_QUEUE 2048       /* work items waiting at once */

struct slot {
	uint64_t a, b;
	int32_t remaining; /* 0: empty (states are only visited with remaining >= 1) */
};

struct local_shm {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int busy, waiting;
	bool stop, full;
	struct share_totals total;
	unsigned nrecords;
	size_t head, count; /* the queue: a ring of LOCAL_QUEUE items */
	char items[LOCAL_QUEUE][SHARE_ITEM_MAX];
	struct share_record records[SHARE_RECORDS_MAX];
	size_t nslots;
	struct slot slots[LOCAL_SLOTS];
};

struct local {
	struct share base;
	struct local_shm *shm;
	bool has_item; /* per process: this worker holds an item */
};

static struct local_shm *shm_of(struct share *s)
{
	return ((struct local *)s)->shm;
}

static int local_visit(struct share *s, const uint8_t key[16], int remaining, int depth)
{
	(void)depth; /* the caller counts unique states: !counts_unique */
	struct local_shm *m = shm_of(s);
	uint64_t a, b;
	memcpy(&a, key, 8);
	memcpy(&b, key + 8, 8);
	int rc = 0;
	pthread_mutex_lock(&m->lock);
	size_t j = a & (LOCAL_SLOTS - 1);
	while (m->slots[j].remaining && (m->slots[j].a != a || m->slots[j].b != b))
		j = (j + 1) & (LOCAL_SLOTS - 1);
	struct slot *e = &m->slots[j];
	if (e->remaining) {
		rc = e->remaining < remaining;
		if (rc)
			e->remaining = remaining;
	} else if (m->nslots * 2 < LOCAL_SLOTS) {
		*e = (struct slot){a, b, remaining};
		m->nslots++;
		rc = 2;
	} else {
		m->full = true;
	}
	pthread_mutex_unlock(&m->lock);
	return rc;
}

static int local_put(struct share *s, const char *item)
{
	struct local_shm *m = shm_of(s);
	int rc = -1;
	pthread_mutex_lock(&m->lock);
	if (m->count < LOCAL_QUEUE && strlen(item) < SHARE_ITEM_MAX) {
		strcpy(m->items[(m->head + m->count) % LOCAL_QUEUE], item);
		m->count++;
		rc = 0;
		pthread_cond_broadcast(&m->cond);
	}
	pthread_mutex_unlock(&m->lock);
	if (rc)
		snprintf(s->err, sizeof(s->err), "the work queue is full (%d items)", LOCAL_QUEUE);
	return rc;
}

static int local_take(struct share *s, char *item, size_t cap)
{
	struct local *l = (struct local *)s;
	struct local_shm *m = l->shm;
	pthread_mutex_lock(&m->lock);
	if (l->has_item) {
		l->has_item = false;
		m->busy--;
		pthread_cond_broadcast(&m->cond);
	}
	while (!m->stop && !m->count && m->busy) {
		m->waiting++;
		pthread_cond_wait(&m->cond, &m->lock);
		m->waiting--;
	}
	int rc = 0;
	if (!m->stop && m->count) {
		snprintf(item, cap, "%s", m->items[m->head]);
		m->head = (m->head + 1) % LOCAL_QUEUE;
		m->count--;
		m->busy++;
		l->has_item = true;
		rc = 1;
	}
	pthread_mutex_unlock(&m->lock);
	return rc;
}

static bool local_hungry(struct share *s)
{
	struct local_shm *m = shm_of(s);
	/* A racy read is fine: a late answer only delays a donation. */
	return __atomic_load_n(&m->waiting, __ATOMIC_RELAXED) > 0 &&
	       __atomic_load_n(&m->count, __ATOMIC_RELAXED) == 0;
}

static int local_count(struct share *s, const struct share_totals *d, struct share_totals *total)
{
	struct local_shm *m = shm_of(s);
	pthread_mutex_lock(&m->lock);
	struct share_totals *t = &m->total;
	share_totals_merge(t, d, s->kinds);
	t->full = m->full;
	if (total)
		*total = *t;
	pthread_mutex_unlock(&m->lock);
	return 0;
}

static int local_record(struct share *s, const struct share_record *r)
{
	struct local_shm *m = shm_of(s);
	pthread_mutex_lock(&m->lock);
	unsigned n = ++m->nrecords;
	if (n <= SHARE_RECORDS_MAX)
		m->records[n - 1] = *r;
	pthread_mutex_unlock(&m->lock);
	return (int)n;
}

static void local_stop(struct share *s)
{
	struct local_shm *m = shm_of(s);
	pthread_mutex_lock(&m->lock);
	m->stop = true;
	pthread_cond_broadcast(&m->cond);
	pthread_mutex_unlock(&m->lock);
}

static bool local_stopped(struct share *s)
{
	return __atomic_load_n(&shm_of(s)->stop, __ATOMIC_RELAXED);
}

static int local_records(struct share *s, struct share_record *r, int max)
{
	struct local_shm *m = shm_of(s);
	pthread_mutex_lock(&m->lock);
	int n = (int)(m->nrecords < SHARE_RECORDS_MAX ? m->nrecords : SHARE_RECORDS_MAX);
	n = n < max ? n : max;
	memcpy(r, m->records, sizeof(*r) * (size_t)n);
	pthread_mutex_unlock(&m->lock);
	return n;
}

static void local_close(struct share *s)
{
	struct local *l = (struct local *)s;
	munmap(l->shm, sizeof(*l->shm));
	free(l);
}

static const struct share_ops local_ops = {
    local_visit,  local_put,  local_take,    local_hungry,  local_count,
    local_record, local_stop, local_stopped, local_records, local_close,
};

struct share *share_local_new(char *err, size_t errlen)
{
	struct local *l = calloc(1, sizeof(*l));
	struct local_shm *m = mmap(NULL, sizeof(*m), PROT_READ | PROT_WRITE,
				   MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (!l || m == MAP_FAILED) {
		snprintf(err, errlen, "cannot map the workers' shared memory");
		free(l);
		if (m != MAP_FAILED)
			munmap(m, sizeof(*m));
		return NULL;
	}
	pthread_mutexattr_t ma;
	pthread_condattr_t ca;
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
	pthread_condattr_init(&ca);
	pthread_condattr_setpshared(&ca, PTHREAD_PROCESS_SHARED);
	pthread_mutex_init(&m->lock, &ma);
	pthread_cond_init(&m->cond, &ca);
	pthread_mutexattr_destroy(&ma);
	pthread_condattr_destroy(&ca);
	m->count = 1; /* the root item: "" */
	l->shm = m;
	l->base.ops = &local_ops;
	return &l->base;
}

void share_totals_merge(struct share_totals *t, const struct share_totals *d, const char *kinds)
{
	lens_merge_words(t->fixed, d->fixed, share_fixed_kinds, CHECK_NTOTALS);
	lens_merge_words(t->lens, d->lens, kinds, (unsigned)strlen(kinds));
	for (int k = 0; k < SHARE_NDEPTH; k++)
		for (int i = 0; i < SHARE_DEPTHS; i++)
			t->by_depth[k][i] += d->by_depth[k][i];
}
