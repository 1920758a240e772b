/* share.h - what the workers of one exploration share: the visited set,
 * the queue of subtrees still to explore, the running totals, and the
 * discrepancies found. Each worker is a whole machine of its own (a
 * process); the search below a work item is explore.c's.
 *
 * Two implementations behind one table of functions:
 *   share_local.c  shared memory between worker processes forked from the
 *                  one booted machine of `themis explore --jobs N`;
 *   share_redis.c  a Redis server, for workers on any number of hosts
 *                  (`themis explore ... --redis URL` starts a run there,
 *                  `themis explore --worker URL` joins it).
 *
 * A work item is a path from the root: operation texts joined by '\n'.
 * The empty item is the root itself (explore every candidate there);
 * otherwise the last operation is a candidate not yet tried at the node
 * the others lead to. Items travel as text, so any worker whose machine
 * is the same (same build, kernel, initramfs, images: checked when it
 * joins) reaches the same state by replaying them. */
#ifndef THEMIS_SHARE_H
#define THEMIS_SHARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "check.h"
#include "coverage.h"

#define SHARE_ITEM_MAX	  8192
#define SHARE_RECORDS_MAX 1000 /* discrepancies kept for the report */

/* The totals kept per depth (operations from the root, 0 to
 * CHECK_MAX_DEPTH), the one list: X(name, json key) per total, all summed
 * over workers. Both share backends and report.json's "by_depth" are
 * generated from it. states: states reached that deep (depth 0: the root,
 * counted by the taker of the root item; the run's `states` counts from
 * depth 1); unique: states new to the visited set there (a state at the
 * run's last depth is never stored: nothing is explored below it). */
#define SHARE_DEPTH_TOTALS(X)                                                                      \
	X(states, "states")                                                                        \
	X(unique, "unique")

enum {
#define SHARE_DEPTH_ENUM(name, json) SHARE_DEPTH_##name,
	SHARE_DEPTH_TOTALS(SHARE_DEPTH_ENUM)
#undef SHARE_DEPTH_ENUM
	    SHARE_NDEPTH
};
#define SHARE_DEPTHS	  (CHECK_MAX_DEPTH + 1)
#define SHARE_DEPTH_WORDS (SHARE_NDEPTH * SHARE_DEPTHS)

/* Counts that add up over workers: the fixed totals (by name or as an
 * array), the per-depth totals (by_depth[SHARE_DEPTH_name][depth]), then
 * the lenses' words, merged by the kinds the run's lens set gives
 * (lens.h; the share holds them in `kinds`). full: the visited set filled
 * up, later states counted as seen. */
struct share_totals {
	CHECK_TOTALS_FIELDS;
	uint64_t by_depth[SHARE_NDEPTH][SHARE_DEPTHS];
	uint64_t lens[LENS_WORDS_MAX];
};

/* The fixed totals' kinds, in order ("ssssssmm"). */
#define SHARE_TOTAL_KIND(name, kind, json, text) kind,
static const char share_fixed_kinds[CHECK_NTOTALS] = {CHECK_TOTALS(SHARE_TOTAL_KIND)};
#undef SHARE_TOTAL_KIND

/* Merge d into t: the fixed totals by their kinds, the lens words by `kinds`. */
void share_totals_merge(struct share_totals *t, const struct share_totals *d, const char *kinds);

/* One discrepancy or finding, as a worker saw it: enough for the
 * coordinator to write the trace (and its minimized twin) and the report. */
struct share_record {
	bool finding;
	int depth;
	char sig[64];
	char detail[CHECK_DETAIL_MAX];
	char ops[SHARE_ITEM_MAX];	   /* the path, '\n'-joined (empty: the root) */
	char min_ops[SHARE_ITEM_MAX];	   /* --minimize's result, or empty */
	char min_detail[CHECK_DETAIL_MAX]; /* what min_ops shows ("": as detail) */
};

struct share;

struct share_ops {
	/* Mark the state `key`, `depth` operations from the root, as reached
	 * with `remaining` operations still to explore below it: 2 if it is
	 * new, 1 if it was reached before only with fewer remaining (explore
	 * it again, deeper), 0 if not (prune), -1 on error. A share that
	 * counts_unique counts a new state at its depth too. */
	int (*visit)(struct share *s, const uint8_t key[16], int remaining, int depth);
	/* Queue a work item. 0 or -1. */
	int (*put)(struct share *s, const char *item);
	/* End this worker's current item (if any) and wait for the next:
	 * 1 with it in item, 0 when no work is left anywhere (the queue is
	 * empty and no worker is busy) or the run was stopped, -1 on error. */
	int (*take)(struct share *s, char *item, size_t cap);
	/* Whether a worker is waiting for work that is not there. */
	bool (*hungry)(struct share *s);
	/* Add a worker's counts since its last call; *total gets the run's. */
	int (*count)(struct share *s, const struct share_totals *delta, struct share_totals *total);
	/* Keep a discrepancy: its number (1, 2, ... in the order recorded,
	 * over the whole run), or -1. */
	int (*record)(struct share *s, const struct share_record *r);
	/* Stop every worker (--stop-on-first, a budget spent, an error). */
	void (*stop)(struct share *s);
	bool (*stopped)(struct share *s);
	/* The records kept, for the coordinator: fills r (at most max), returns how many. */
	int (*records)(struct share *s, struct share_record *r, int max);
	void (*close)(struct share *s);
};

struct share {
	const struct share_ops *ops;
	/* visit counts a new state (its 2) in the totals' unique itself,
	 * rather than the caller in its deltas: Redis, where a worker may die
	 * before it sends its counts. */
	bool counts_unique;
	/* This worker was cut off from its run (Redis: its lease ran out, or
	 * a new run replaced it): what it did since counts for nothing. */
	bool lost;
	char err[256]; /* the last error, for messages */
	/* The merge kinds of the run's lens words (lens_set_kinds), set by
	 * the explorer before the first count: every worker runs the same
	 * lenses, so every one sets the same. */
	char kinds[LENS_WORDS_MAX + 1];
};

/* Shared memory for `workers` processes forked after this call; the
 * queue starts with the root item. NULL with err on failure. */
struct share *share_local_new(char *err, size_t errlen);

/* A run in Redis at url (redis://HOST:PORT): create clears the server's
 * previous run, stores `config` (what joining workers must match) and the
 * lease (seconds: how long a worker's process may go unheard from before
 * its item goes to another) and queues the root item; join connects to a
 * run and reads its config, waiting up to `wait` seconds for one to start
 * (a worker a scheduler started before the run), saying so once on stderr.
 * NULL with err on failure (unreachable server, no run there in time). */
struct share *share_redis_create(const char *url, const char *config, int lease, char *err,
				 size_t errlen);
struct share *share_redis_join(const char *url, double wait, char *config, size_t cap, char *err,
			       size_t errlen);

#endif
