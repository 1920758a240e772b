/* test_crash.c - power cuts on a real Linux guest (src/lens/crash.c over
 * the disks' write logs): every crash state a few operations leave must
 * mount, recover, and be a state the operations passed through.
 *
 *   test_crash BUILD_DIR [FS FS]     (default ext4 xfs)
 *
 * Boot with the two disks, arm the write logs, then run: create f0;
 * write f0 with O_SYNC (durable when it returns); create f1 (nothing asks
 * for it to be durable). Remember the live fingerprint after each, and the
 * root's. Then crash each disk, in a fork, at every persistence point of
 * its log (the first write after each completed flush, and the end of
 * each operation), and at every subset of each epoch's last writes (up
 * to 2^6, each in a shuffled order: until its flush completes, the device
 * may have written any of them, in any order). Each crash disk must
 * mount, and recover to:
 *   - at the root's end of the log: the root (the disk is as it was);
 *   - before the O_SYNC write returned: the root, or the state after an
 *     operation up to it (atomicity at the operation's grain);
 *   - from the write's return on: the state after it or after create f1
 *     (persistence: what O_SYNC promised is there).
 * And the machine after all the crashes must be the one before them,
 * hash for hash, and so must the machines the crashes recover in. Prints each crash's verdict;
 * exits 1 on any failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lens/crash.h"
#include "machine/virt.h"
#include "util/rng.h"
#include "crash_machine.h"

#define NOPS	 3
#define MAX_BITS 6 /* subsets of the open epoch's last writes: 2^6 at most */

static const char *const ops[NOPS] = {"op create f0 0644 -", "op write f0 0 12288 7 sync",
				      "op create f1 0644 -"};

struct run {
	struct virt *v;
	struct crash_reboot *rb; /* where the crashes recover */
	const struct check_machine *m;
	int nfs;
	struct check_step fp[NOPS + 1];	      /* [0] the root, [k] after op k */
	uint64_t end[NOPS + 1][CHECK_MAX_FS]; /* each disk's log length then */
	int checked, failed;
};

/* Which states (bits over fp[0..NOPS]) may a crash of disk i recover to,
 * its content as before log entry upto with writes up to reach - 1? */
static unsigned allowed(const struct run *r, int i, uint64_t upto, uint64_t reach)
{
	if (reach <= r->end[0][i])
		return 1u << 0; /* the disk as the root left it: nothing later is on it */
	if (upto >= r->end[2][i])
		return 1u << 2 | 1u << 3; /* the O_SYNC write had returned */
	return 1u << 0 | 1u << 1 | 1u << 2;
}

static int state_of(const struct run *r, int i, const struct crash_result *c)
{
	for (int k = 0; k <= NOPS; k++)
		if (!memcmp(c->fp.fp[i], r->fp[k].fp[i], 16))
			return k;
	return -1;
}

/* Crash disk i at (upto, extra), every other disk live; check. */
static void crash_one(struct run *r, int i, uint64_t upto, const uint64_t *extra, size_t n,
		      const char *what)
{
	struct crash_disk pts[CHECK_MAX_FS];
	struct crash_result c;
	char why[512];
	crash_point_now(r->v, r->nfs, pts);
	for (int o = 0; o < r->nfs; o++)
		pts[o].live = o != i; /* the others stay as they are */
	pts[i] = (struct crash_disk){upto, extra, n, false};
	r->checked++;
	if (crash_recover(r->v, r->rb, r->m, pts, &(struct crash_ask){0}, &c, why, sizeof(why))) {
		printf("FAIL disk %d crash %s at write %llu: %s\n", i, what,
		       (unsigned long long)upto, why);
		r->failed++;
		return;
	}
	uint64_t reach = upto;
	for (size_t j = 0; j < n; j++)
		reach = extra[j] + 1 > reach ? extra[j] + 1 : reach;
	int k = c.mounted ? state_of(r, i, &c) : -1;
	bool ok = c.mounted && k >= 0 && (allowed(r, i, upto, reach) >> k & 1);
	if (!ok || getenv("TEST_CRASH_VERBOSE") || r->checked % 8 == 1)
		printf("%s disk %d crash %s at write %llu (+%zu): %s%s\n", ok ? "ok  " : "FAIL", i,
		       what, (unsigned long long)upto, n, c.mounted ? "recovered to " : "mount ",
		       !c.mounted ? c.mount_err[i]
		       : k < 0	  ? "a state no operation left"
		       : k	  ? ops[k - 1]
				  : "the root");
	r->failed += !ok;
}

/* Every persistence point of disk i's log: the end of each operation and
 * the first write after each completed flush. */
static void persistence_points(struct run *r, int i)
{
	const struct disk_wentry *e;
	uint64_t first, n = disk_wlog(&r->v->disks[i], &e, &first);
	for (int k = 0; k <= NOPS; k++)
		crash_one(r, i, r->end[k][i], NULL, 0, "at an operation's end");
	for (uint64_t j = 1; j < n; j++)
		if (e[j].epoch != e[j - 1].epoch)
			crash_one(r, i, first + j, NULL, 0, "after a flush");
}

/* Each epoch's final writes (up to MAX_BITS): before its flush completed,
 * any subset of them may have landed, in any order. Every subset, each
 * shuffled. */
static void epoch_subsets(struct run *r, int i, uint64_t *seed)
{
	const struct disk_wentry *e;
	uint64_t first, n = disk_wlog(&r->v->disks[i], &e, &first), extra[MAX_BITS];
	for (uint64_t to = n; to > 0;) {
		uint64_t from = to;
		while (from > 0 && e[from - 1].epoch == e[to - 1].epoch)
			from--;
		uint64_t k = to - from < MAX_BITS ? to - from : MAX_BITS;
		printf("disk %d: epoch %llu has %llu writes: every subset of the last %llu\n", i,
		       (unsigned long long)e[to - 1].epoch, (unsigned long long)(to - from),
		       (unsigned long long)k);
		for (uint64_t mask = 0; mask < 1ULL << k; mask++) {
			size_t m = 0;
			for (uint64_t b = 0; b < k; b++)
				if (mask >> b & 1)
					extra[m++] = first + to - k + b;
			for (size_t s = m; s > 1; s--) {
				size_t j = (size_t)(splitmix64(seed) % s);
				uint64_t t = extra[s - 1];
				extra[s - 1] = extra[j], extra[j] = t;
			}
			crash_one(r, i, first + to - k, extra, m, "within an epoch");
		}
		to = from;
	}
}

static int setup(struct run *r, const char *build, const char *fs0, const char *fs1,
		 struct check_machine *m, char (*paths)[512])
{
	crash_machine(build, fs0, fs1, paths, m);
	char err[512];
	r->nfs = 2;
	if (check_boot(r->v, m, err, sizeof(err))) {
		fprintf(stderr, "test_crash: boot: %s\n", err);
		return -1;
	}
	if (crash_boot(r->rb, m, err, sizeof(err))) {
		fprintf(stderr, "test_crash: %s\n", err);
		return -1;
	}
	crash_arm(r->v, r->nfs);
	if (check_apply(r->v, r->nfs, "fp", &r->fp[0], err, sizeof(err)))
		return fprintf(stderr, "test_crash: %s\n", err), -1;
	for (int i = 0; i < r->nfs; i++)
		r->end[0][i] = disk_wlog_end(&r->v->disks[i]);
	for (int k = 1; k <= NOPS; k++) {
		if (check_apply(r->v, r->nfs, ops[k - 1], &r->fp[k], err, sizeof(err)) ||
		    r->fp[k].ret[0] < 0 || r->fp[k].ret[1] < 0)
			return fprintf(stderr, "test_crash: %s: %s\n", ops[k - 1], err), -1;
		for (int i = 0; i < r->nfs; i++)
			r->end[k][i] = disk_wlog_end(&r->v->disks[i]);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 2 && argc != 4) {
		fprintf(stderr, "usage: test_crash BUILD_DIR [FS FS]\n");
		return 2;
	}
	static struct virt v;
	static struct crash_reboot rb;
	static char paths[4][512];
	struct check_machine m;
	struct run r = {.v = &v, .rb = &rb, .m = &m};
	if (setup(&r, argv[1], argc == 4 ? argv[2] : "ext4", argc == 4 ? argv[3] : "xfs", &m,
		  paths))
		return 1;
	uint8_t before[3][16], after[3][16];
	virt_state_hash(&v, before[0]);
	virt_state_hash(&rb.recover, before[1]);
	virt_state_hash(&rb.again, before[2]);
	uint64_t seed = 1;
	for (int i = 0; i < r.nfs; i++) {
		printf("disk %d (%s): %llu writes logged, operations ended at %llu %llu %llu\n", i,
		       m.fs[i], (unsigned long long)disk_wlog_end(&v.disks[i]),
		       (unsigned long long)r.end[1][i], (unsigned long long)r.end[2][i],
		       (unsigned long long)r.end[3][i]);
		persistence_points(&r, i);
		epoch_subsets(&r, i, &seed);
	}
	virt_state_hash(&v, after[0]);
	virt_state_hash(&rb.recover, after[1]);
	virt_state_hash(&rb.again, after[2]);
	static const char *const which[] = {"the machine", "the machine crashes recover in",
					    "the machine recoveries' crashes recover in"};
	for (int k = 0; k < 3; k++)
		if (memcmp(before[k], after[k], 16)) {
			printf("FAIL %s after the crashes is not the one before them\n", which[k]);
			r.failed++;
		}
	printf("test_crash: %d crash states, %d failed\n", r.checked, r.failed);
	virt_free(&v);
	crash_reboot_free(&rb);
	return r.failed ? 1 : 0;
}
