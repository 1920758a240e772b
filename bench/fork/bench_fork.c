/* bench_fork.c - cost of the machine fork against what a branch dirtied.
 *
 * Boots Linux on the Themis board to the agent's command loop (a real,
 * populated machine), then measures, side by side in one process:
 *  - fork: virt_fork (+ the matching empty release, timed apart), for two
 *    RAM sizes, to show it does not grow with RAM;
 *  - restore after N dirtied pages, N from 1 to 100,000: fork, write one
 *    byte into N distinct pages through the same path the hart's stores
 *    take (ram_page_w), then time virt_restore; median of several rounds;
 *  - a full-copy snapshot of the same machine as the baseline: copying all
 *    of RAM aside and back, what a snapshot without copy-on-write costs.
 * Prints a table, the ratio to the full copy, and the per-page slope.
 *   bench_fork BUILD_DIR [ROUNDS]          (never fails on speed) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../src/machine/virt.h"

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return v[n / 2];
}

static int boot(struct virt *v, const char *b, uint64_t mem)
{
	static char k[512], i[512], d[512];
	snprintf(k, sizeof(k), "%s/guest/Image", b);
	snprintf(i, sizeof(i), "%s/guest/initramfs.cpio.gz", b);
	snprintf(d, sizeof(d), "%s/images/ext4.img", b);
	struct virt_config cfg = {.kernel = k,
				  .initrd = i,
				  .append = "console=ttyS0 panic=-1 quiet themis.fs=ext4",
				  .mem = mem,
				  .disks = {{d, false}},
				  .ndisks = 1,
				  .wait = true};
	char err[512];
	if (virt_init(v, &cfg, err, sizeof(err))) {
		fprintf(stderr, "bench_fork: %s\n", err);
		return -1;
	}
	if (virt_run(v, 20000000000ULL) != VIRT_WAITING) {
		fprintf(stderr, "bench_fork: the guest did not reach the command loop\n");
		return -1;
	}
	return 0;
}

/* Median microseconds of a fork and of the release of an empty level. */
static void time_fork(struct virt *v, int rounds, double *fork_us, double *release_us)
{
	double *f = calloc((size_t)rounds, sizeof(double)),
	       *r = calloc((size_t)rounds, sizeof(double));
	for (int k = 0; k < rounds; k++) {
		double t0 = now_us();
		virt_fork(v);
		double t1 = now_us();
		virt_release(v);
		double t2 = now_us();
		f[k] = t1 - t0, r[k] = t2 - t1;
	}
	*fork_us = median(f, rounds);
	*release_us = median(r, rounds);
	free(f);
	free(r);
}

/* Dirty n distinct pages spread over RAM, as guest stores would. */
static void dirty(struct virt *v, uint64_t n, uint64_t round)
{
	uint64_t step = v->ram.npages / n;
	for (uint64_t k = 0; k < n; k++) {
		uint64_t pa = v->ram.base + (k * step + round % (step ? step : 1)) * RAM_PAGE_SIZE;
		uint8_t *p = ram_page_w(&v->ram, pa);
		if (p)
			p[k % RAM_PAGE_SIZE] ^= 1;
	}
}

/* Median restore time after n dirtied pages; *write_us gets the median
 * time of the n first writes (each copies a page aside: the fork's cost
 * moves there, paid only for pages a branch touches). */
static double time_restore(struct virt *v, uint64_t n, int rounds, double *write_us)
{
	double *t = calloc((size_t)rounds, sizeof(double)),
	       *w = calloc((size_t)rounds, sizeof(double));
	virt_fork(v);
	for (int k = 0; k < rounds; k++) {
		double t0 = now_us();
		dirty(v, n, (uint64_t)k);
		double t1 = now_us();
		virt_restore(v); /* re-armed: the level stays open */
		t[k] = now_us() - t1;
		w[k] = t1 - t0;
	}
	virt_release(v);
	double m = median(t, rounds);
	*write_us = median(w, rounds);
	free(t);
	free(w);
	return m;
}

/* The baseline: a machine whose RAM is one flat block snapshotted by
 * copying all of it aside and restored by copying it back (both buffers
 * already faulted in, so only the copying is timed). Best of 3. */
static void time_full_copy(struct virt *v, double *save_us, double *restore_us)
{
	uint8_t *live = malloc(v->ram.size), *copy = malloc(v->ram.size);
	*save_us = *restore_us = 1e30;
	if (!live || !copy)
		return;
	ram_read(&v->ram, v->ram.base, live, v->ram.size);
	memset(copy, 0, v->ram.size);
	for (int k = 0; k < 3; k++) {
		double t0 = now_us();
		memcpy(copy, live, v->ram.size);
		double t1 = now_us();
		memcpy(live, copy, v->ram.size);
		double t2 = now_us();
		if (t1 - t0 < *save_us)
			*save_us = t1 - t0;
		if (t2 - t1 < *restore_us)
			*restore_us = t2 - t1;
	}
	free(live);
	free(copy);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: bench_fork BUILD_DIR [ROUNDS]\n");
		return 2;
	}
	int rounds = argc > 2 ? atoi(argv[2]) : 9;
	struct virt *small = calloc(1, sizeof(*small)), *v = calloc(1, sizeof(*v));
	if (!small || !v || boot(small, argv[1], 128ULL << 20) || boot(v, argv[1], 1ULL << 30))
		return 1;
	double f_small, r_small, f_big, r_big;
	time_fork(small, 2001, &f_small, &r_small);
	time_fork(v, 2001, &f_big, &r_big);
	printf("fork (median of 2001):  %.2f us with 128 MiB of RAM, %.2f us with 1 GiB\n", f_small,
	       f_big);
	printf("release of an empty level: %.2f us / %.2f us\n\n", r_small, r_big);

	double save_us, full_us;
	time_full_copy(v, &save_us, &full_us);
	static const uint64_t ns[] = {1, 10, 40, 100, 1000, 10000, 100000};
	double r40 = 0, r100k = 0;
	printf("%10s %14s %12s %18s %18s\n", "dirtied", "restore (us)", "us/page",
	       "vs full copy (x)", "first writes (us)");
	for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
		double w, r = time_restore(v, ns[i], rounds, &w);
		if (ns[i] == 40)
			r40 = r;
		if (ns[i] == 100000)
			r100k = r;
		printf("%10llu %14.2f %12.3f %18.1f %18.1f\n", (unsigned long long)ns[i], r,
		       r / ns[i], full_us / r, w);
	}
	printf("\nfull-copy snapshot of the same 1 GiB machine: save %.0f us, restore %.0f us\n",
	       save_us, full_us);
	printf("slope beyond 40 pages: %.3f us per page ((t(100000) - t(40)) / 99960)\n",
	       (r100k - r40) / 99960.0);
	printf("goals: fork < 5 us at any RAM size; restore < 5 us at 40 pages; < 0.2 us/page\n");
	virt_free(small);
	virt_free(v);
	free(small);
	free(v);
	return 0;
}
