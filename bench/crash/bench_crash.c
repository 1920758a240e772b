/* bench_crash.c - crash states checked per second, against a baseline
 * that does what CrashMonkey does, inside the same machine.
 *
 * Boots Linux with ext4 and xfs, arms the write logs, runs a small
 * workload (creates, an O_SYNC write, a plain write and its fsync, a
 * rename, sync), and lists its crash points per disk: every operation's
 * end, the first write after every completed flush, and up to SUBSETS
 * seeded subsets of each epoch's writes (the other disk at its end).
 * A subset drawn twice is one crash state: the list holds each point
 * once. Then, side by side:
 *  - Themis: crash_recover of the running machine (the crash disk
 *    assembled from the write log and moved into a fork of a machine
 *    booted alike with its disks unmounted, mount: the guest's recovery,
 *    fingerprints, release), with the time of each
 *    phase; once with the memo of crash contents (crash_memo.h: a crash
 *    disk whose bytes an earlier point recovered is not recovered again),
 *    once without it, once with the memo and the checker on every
 *    recovered disk (itself memoized);
 *  - the baseline, per crash state: a fresh boot from the base images,
 *    the agent's unmount, the workload's write log replayed onto the disks
 *    up to the crash point (and the subset), mount, fingerprints: a reboot
 *    and a log replay per state, as CrashMonkey restores a snapshot and
 *    replays its bio log.
 * Both must recover every state to the same fingerprints (a check, not a
 * timing: a mismatch exits 1). Prints states per second, the ratio, and
 * where Themis's time goes.
 *   bench_crash BUILD_DIR [BASELINE_STATES]   (never fails on speed) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/lens/crash.h"
#include "../../src/machine/virt.h"
#include "../../src/util/clock.h"
#include "../../src/util/rng.h"
#include "../../tests/check/crash_machine.h"

#define MAX_POINTS 512
#define SUBSETS	   24 /* per epoch and disk */

static const char *const workload[] = {"op create f0 0644 -",
				       "op write f0 0 12288 7 sync",
				       "op create f1 0644 -",
				       "op write f1 0 8192 3 -",
				       "op fsync f1",
				       "op rename f0 f2",
				       "op write f2 4096 4096 5 -",
				       "op sync"};
#define NOPS (int)(sizeof(workload) / sizeof(workload[0]))

struct point {
	int disk;
	uint64_t upto, extra[16];
	size_t nextra;
	uint8_t fp[16]; /* what Themis recovered the crashed disk to */
};

static char paths[4][512];

static void machine_of(struct check_machine *m, const char *b)
{
	crash_machine(b, "ext4", "xfs", paths, m);
}

/* The crash points of disk i's log. */
static int points_of(struct virt *v, int i, struct point *p, int n, const uint64_t *ends,
		     uint64_t *rng)
{
	const struct disk_wentry *e;
	uint64_t first, len = disk_wlog(&v->disks[i], &e, &first);
	for (int k = 0; k <= NOPS && n < MAX_POINTS; k++)
		p[n++] = (struct point){.disk = i, .upto = ends[k]};
	for (uint64_t j = 1; j < len && n < MAX_POINTS; j++)
		if (e[j].epoch != e[j - 1].epoch)
			p[n++] = (struct point){.disk = i, .upto = first + j};
	for (uint64_t to = len; to > 0;) {
		uint64_t from = to;
		while (from > 0 && e[from - 1].epoch == e[to - 1].epoch)
			from--;
		uint64_t lo = to - from > 16 ? to - 16 : from;
		for (int s = 0; s < SUBSETS && n < MAX_POINTS; s++) {
			struct point *q = &p[n++];
			*q = (struct point){.disk = i, .upto = first + lo};
			for (uint64_t k = lo; k < to; k++)
				if (splitmix64(rng) & 1)
					q->extra[q->nextra++] = first + k;
		}
		to = from;
	}
	return n;
}

static bool same_point(const struct point *a, const struct point *b)
{
	return a->disk == b->disk && a->upto == b->upto && a->nextra == b->nextra &&
	       !memcmp(a->extra, b->extra, sizeof(a->extra[0]) * a->nextra);
}

/* p[0..n) with each point once, in first-drawn order: the new count. */
static int distinct(struct point *p, int n)
{
	int m = 0;
	for (int k = 0; k < n; k++) {
		bool seen = false;
		for (int j = 0; j < m && !seen; j++)
			seen = same_point(&p[j], &p[k]);
		if (!seen)
			p[m++] = p[k];
	}
	return m;
}

static void pts_of(struct virt *v, const struct point *p, struct crash_disk *pts)
{
	crash_point_now(v, 2, pts);
	pts[!p->disk].live = true; /* the other disk stays as it is */
	pts[p->disk] = (struct crash_disk){p->upto, p->extra, p->nextra, false};
}

/* Themis: every point on the running machine; fingerprints into p[]. */
static double themis_run(struct virt *v, struct crash_reboot *rb, const struct check_machine *m,
			 struct point *p, int n, struct crash_ask *ask)
{
	double t0 = host_seconds();
	for (int k = 0; k < n; k++) {
		struct crash_disk pts[2];
		struct crash_result r;
		char why[512];
		pts_of(v, &p[k], pts);
		if (crash_recover(v, rb, m, pts, ask, &r, why, sizeof(why)) || !r.mounted) {
			fprintf(stderr, "bench_crash: point %d: %s\n", k,
				r.mounted ? why : "unmounted");
			exit(1);
		}
		memcpy(p[k].fp, r.fp.fp[p[k].disk], 16);
		crash_result_free(&r);
	}
	return host_seconds() - t0;
}

/* The baseline for one point: boot, unmount, replay the log, mount. */
static int baseline_one(const struct check_machine *m, struct virt *orig, const struct point *p)
{
	static struct virt v;
	struct check_step st;
	char err[512];
	if (check_boot(&v, m, err, sizeof(err)))
		return fprintf(stderr, "bench_crash: baseline: %s\n", err), -1;
	/* The disks as the workload found them: what the unmount writes is
	 * not theirs (CrashMonkey's snapshot is taken before it). */
	for (int i = 0; i < 2; i++)
		disk_power(&v.disks[i], false);
	int rc = check_apply(&v, 2, "umount", &st, err, sizeof(err));
	for (int i = 0; i < 2; i++)
		disk_power(&v.disks[i], true);
	if (rc)
		return fprintf(stderr, "bench_crash: baseline: %s\n", err), -1;
	struct disk *from = &orig->disks[p->disk], *to = &v.disks[p->disk];
	const struct disk_wentry *e;
	uint64_t first, len = disk_wlog(from, &e, &first);
	for (uint64_t k = 0; k < len; k++) {
		bool in = first + k < p->upto;
		for (size_t x = 0; x < p->nextra && !in; x++)
			in = p->extra[x] == first + k;
		if (in)
			disk_write(to, e[k].sector, disk_wentry_data(from, &e[k], true),
				   e[k].count);
	}
	for (int i = 0; i < 2; i++) /* the other disk: its whole log, the end */
		if (i != p->disk) {
			len = disk_wlog(&orig->disks[i], &e, &first);
			for (uint64_t k = 0; k < len; k++)
				disk_write(&v.disks[i], e[k].sector,
					   disk_wentry_data(&orig->disks[i], &e[k], true),
					   e[k].count);
		}
	rc = check_apply(&v, 2, "mount", &st, err, sizeof(err)) ||
	     check_apply(&v, 2, "fp", &st, err, sizeof(err));
	bool same = !rc && !memcmp(st.fp[p->disk], p->fp, 16);
	virt_free(&v);
	if (!same)
		fprintf(stderr,
			"bench_crash: the baseline recovered disk %d crashed at write %llu (+%zu) "
			"to another state (%s)\n",
			p->disk, (unsigned long long)p->upto, p->nextra,
			rc ? err : "fingerprints differ");
	return same ? 0 : -1;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: bench_crash BUILD_DIR [BASELINE_STATES]\n");
		return 2;
	}
	int nbase = argc > 2 ? atoi(argv[2]) : 12;
	static struct virt v;
	static struct crash_reboot rb;
	static struct point p[MAX_POINTS];
	struct check_machine m;
	struct check_step st;
	char err[512];
	machine_of(&m, argv[1]);
	if (check_boot(&v, &m, err, sizeof(err)) || crash_boot(&rb, &m, err, sizeof(err)))
		return fprintf(stderr, "bench_crash: %s\n", err), 1;
	crash_arm(&v, 2);
	uint64_t ends[2][NOPS + 1], rng = 1;
	for (int k = 0; k <= NOPS; k++) {
		if (k && check_apply(&v, 2, workload[k - 1], &st, err, sizeof(err)))
			return fprintf(stderr, "bench_crash: %s\n", err), 1;
		for (int i = 0; i < 2; i++) {
			struct crash_disk now[2];
			crash_point_now(&v, 2, now);
			ends[i][k] = now[i].upto;
		}
	}
	int n = points_of(&v, 0, p, 0, ends[0], &rng);
	n = points_of(&v, 1, p, n, ends[1], &rng);
	int drawn = n;
	n = distinct(p, n);
	struct crash_times t = {0}, t_plain = {0};
	struct crash_memo recovered = {0}, checked_memo = {0};
	struct crash_ask warm = {0};
	(void)themis_run(&v, &rb, &m, p, n, &warm); /* the translation cache warmed, not measured */
	struct crash_ask ask = {.times = &t, .memo = &recovered};
	double ours = themis_run(&v, &rb, &m, p, n, &ask);
	struct crash_ask plain = {.times = &t_plain};
	double unmemo = themis_run(&v, &rb, &m, p, n, &plain);
	static struct crash_fsck memo = {.timeout = 60};
	struct crash_ask with_fsck = {.fsck = &memo, .fsck_disks = 3, .memo = &checked_memo};
	double checked = themis_run(&v, &rb, &m, p, n, &with_fsck);
	crash_fsck_free(&memo);
	crash_memo_free(&recovered);
	crash_memo_free(&checked_memo);
	if (nbase > n)
		nbase = n;
	double b0 = host_seconds();
	for (int k = 0; k < nbase; k++)
		if (baseline_one(&m, &v, &p[(size_t)k * (size_t)n / (size_t)nbase]))
			return 1;
	double base = host_seconds() - b0;
	printf("crash states: %d distinct of %d drawn (ext4 and xfs, %d operations)\n", n, drawn,
	       NOPS);
	printf("themis:   %8.1f states/s (%.1f ms a state; the memo answered %llu of %llu "
	       "crashed disks)\n",
	       n / ours, 1e3 * ours / n, (unsigned long long)recovered.hits,
	       (unsigned long long)(recovered.hits + recovered.misses));
	printf("  without the memo: %.1f states/s (%.1f ms a state), ratio %.1fx\n", n / unmemo,
	       1e3 * unmemo / n, (n / unmemo) / (nbase / base));
	printf("baseline: %8.1f states/s (%.1f ms a state: reboot, replay the write log, mount; "
	       "%d states, each recovered to the same fingerprints)\n",
	       nbase / base, 1e3 * base / nbase, nbase);
	printf("ratio:    %8.1fx\n", (n / ours) / (nbase / base));
	printf("with the checker on every recovered disk (memoized): %.1f states/s, %llu runs, "
	       "%llu memo hits\n",
	       n / checked, (unsigned long long)memo.n.runs, (unsigned long long)memo.n.hits);
	printf("where a Themis crash state's time goes (with the memo, without it):\n");
#define PRINT_PHASE(name, text)                                                                    \
	printf("  %-34s %5.1f%% %5.1f%%\n", text, 100 * t.name / ours, 100 * t_plain.name / unmemo);
	CRASH_PHASES(PRINT_PHASE)
#undef PRINT_PHASE
	virt_free(&v);
	return 0;
}
