/* Pseudo-random filesystem work for the command loop ("work SEED N").
 *
 * On one mounted disk, N operations under w/, each chosen by a splitmix64
 * generator seeded from SEED and the disk's index, so a (state, SEED, N)
 * gives the same operations and the same results every time. Names come
 * from a small pool in two directories, w/ and w/d (w/d is itself in the
 * pool, so it may be removed, recreated, renamed, even become a file):
 * operations often fail (ENOENT, EEXIST, EISDIR, ENOTEMPTY...), which is
 * fine, they are deterministic all the same. Writes go at random offsets
 * with random lengths up to 64 KiB, some aimed across a 4 KiB boundary;
 * fsync, fdatasync and a sync() after every 8th operation push them to
 * the disk, and what is not synced stays dirty in the page cache.
 *
 * Nothing is printed here: the caller prints how many operations
 * succeeded (for an operation of several calls: all of them).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent.h"

#define WORK_MAX_LEN	65536 /* the largest write */
#define WORK_MAX_OFF	65536 /* writes start below this */
#define WORK_SYNC_EVERY 8

static const char *const pool[] = {"w/a", "w/b", "w/c", "w/d/a", "w/d/b", "w/d/c", "w/d"};
#define NPOOL  (sizeof(pool) / sizeof(pool[0]))
#define NFILES (NPOOL - 1) /* pool[] less "w/d" */
static const char *const dirs[] = {"w", "w/d"};
/* Symlink targets: dangling or not, depending on where the link lands,
 * but never out of w/ (open(O_CREAT) follows a dangling link and creates
 * its target): "../w/a" is w/a from w/, and a w/w/ that never exists from
 * w/d/. */
static const char *const targets[] = {"a", "b", "d/c", "../w/a", "d"};
static const mode_t modes[] = {0644, 0600, 0755, 0400, 0666, 0700};

static struct disk *cur;
static uint8_t wbuf[WORK_MAX_LEN];

/* Uniform enough in [0, n) for the small n here. */
static uint64_t below(uint64_t *s, uint64_t n)
{
	return agent_splitmix64(s) % n;
}

/* The full path of `rel` on the current disk, in one of two buffers. */
static const char *fp(int which, const char *rel)
{
	static char buf[2][64];
	snprintf(buf[which], sizeof(buf[which]), "%s/%s", cur->mnt, rel);
	return buf[which];
}

/* A file name most of the time, sometimes w/d. */
static const char *pick_name(uint64_t *s)
{
	return pool[below(s, 8) == 0 ? NPOOL - 1 : below(s, NFILES)];
}

/* w/d half of the time (so the directory comes back), else any name. */
static const char *pick_dir_name(uint64_t *s)
{
	return below(s, 2) ? "w/d" : pool[below(s, NPOOL)];
}

static int do_write(uint64_t *s, const char *rel)
{
	uint64_t off, len;
	if (below(s, 4) == 0) {
		/* Across a 4 KiB boundary: a few bytes before it to a few after. */
		uint64_t page = 1 + below(s, WORK_MAX_OFF / 4096 - 1);
		off = page * 4096 - 1 - below(s, 256);
		len = (page * 4096 - off) + 1 + below(s, 512);
	} else {
		off = below(s, WORK_MAX_OFF);
		len = 1 + below(s, WORK_MAX_LEN);
	}
	uint64_t seed = agent_splitmix64(s);
	for (uint64_t i = 0; i < len; i++) {
		uint64_t x = (off + i + 1) * 0x9e3779b97f4a7c15ull ^ seed;
		x ^= x >> 29;
		wbuf[i] = (uint8_t)(x ^ (x >> 17));
	}
	int fd = open(fp(0, rel), O_WRONLY | O_CREAT, 0644);
	if (fd < 0)
		return -1;
	ssize_t w = pwrite(fd, wbuf, (size_t)len, (off_t)off);
	int c = close(fd);
	return w == (ssize_t)len && c == 0 ? 0 : -1;
}

/* fsync (data = false) or fdatasync of a file or directory. */
static int do_fsync(const char *rel, bool dir, bool data)
{
	int fd = open(fp(0, rel), dir ? O_RDONLY | O_DIRECTORY : O_RDONLY);
	if (fd < 0)
		return -1;
	int r = data ? fdatasync(fd) : fsync(fd);
	close(fd);
	return r;
}

/* One operation; 0 when it succeeded. */
static int one_op(uint64_t *s)
{
	const char *a = pick_name(s);
	switch (below(s, 16)) {
	case 0: { /* creat: create or empty */
		int fd = open(fp(0, a), O_WRONLY | O_CREAT | O_TRUNC, (mode_t)modes[below(s, 2)]);
		if (fd < 0)
			return -1;
		return close(fd);
	}
	case 1:
	case 2:
	case 3:
	case 4: return do_write(s, a);
	case 5: return truncate(fp(0, a), (off_t)below(s, WORK_MAX_OFF + WORK_MAX_LEN / 4));
	case 6: return unlink(fp(0, a));
	case 7: return mkdir(fp(0, pick_dir_name(s)), 0755);
	case 8: return rmdir(fp(0, pick_dir_name(s)));
	case 9: return rename(fp(0, a), fp(1, pool[below(s, NPOOL)]));
	case 10: return link(fp(0, a), fp(1, pool[below(s, NFILES)]));
	case 11: {
		const char *t = targets[below(s, sizeof(targets) / sizeof(targets[0]))];
		return symlink(t, fp(0, pool[below(s, NFILES)]));
	}
	case 12: return chmod(fp(0, a), modes[below(s, sizeof(modes) / sizeof(modes[0]))]);
	case 13: return do_fsync(a, false, false);
	case 14: return do_fsync(dirs[below(s, 2)], true, false);
	default: return do_fsync(a, false, true);
	}
}

unsigned long work_run(struct disk *d, unsigned long long seed, unsigned long n)
{
	cur = d;
	uint64_t s = (uint64_t)seed;
	/* Mix the disk in, then one draw to spread it. */
	s ^= ((uint64_t)d->idx + 1) * 0xd1b54a32d192ed03ull;
	agent_splitmix64(&s);
	mkdir(fp(0, "w"), 0755); /* not counted: EEXIST after the first time */
	unsigned long ok = 0;
	for (unsigned long i = 0; i < n; i++) {
		if (one_op(&s) == 0)
			ok++;
		if (i % WORK_SYNC_EVERY == WORK_SYNC_EVERY - 1)
			sync();
	}
	return ok;
}
