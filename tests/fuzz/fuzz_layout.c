/* fuzz_layout.c - hostile images against the layout map (src/lens): the
 * parser must never crash, read out of bounds, hang or leak, whatever the
 * bytes, and must either fail with a reason or return a map that is sorted,
 * disjoint and inside the image.
 *
 * Build and run from the repository root (make test-fuzz does both):
 *   make build/asan/fuzz_layout
 *   build/asan/fuzz_layout ROUNDS FIRST-SEED [IMG...]
 *
 * The images are the ones named, or, with none, small ones made with mkfs
 * in a temporary folder (each format whose mkfs is installed). Each image
 * is mapped read-only and parsed once cleanly, recording every byte range
 * the parser read: those are the bytes it trusts, so the mutations land
 * there. A round picks an image and a seed-determined mix of bit flips,
 * byte scribbles (random, 0, 0xff), 32-bit fields set to 0, 1, all ones or
 * a random value, and sometimes a truncation, applied as an overlay on the
 * read callback (the image itself is never written); then parses it under
 * ASan and UBSan with a time limit. A failing round prints its image and
 * seed: `fuzz_layout 1 SEED IMG` replays it.
 *
 * Each round also reads a file's raw timestamps from the same mutated view
 * (src/format/rawtime.h, the parsers that walk below the filesystem to one
 * inode or directory entry): the root directory's inode by its number, or
 * on vfat and exfat, which find a file by name, a name looked up through
 * the whole root directory. It must succeed or fail with a one-line
 * reason, under the same limits.
 *
 * And the checkers' memo key (src/format/fsck_key.c, which parses the
 * layout of a disk and masks fields by it): the same mutations written
 * into a fork of the image as a disk (copy-on-write, as the machine
 * writes), keyed twice; it must not crash and must give one key. */
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "disk/disk.h"
#include "format/fsck_key.h"
#include "format/layout.h"
#include "format/rawtime.h"
#include "util/rng.h"

#define MAX_MUT	    48
#define MAX_READS   (1u << 16)
#define ROUND_LIMIT 20 /* seconds: a round taking longer is a hang */

struct image {
	char path[128];
	char fs[16];	  /* the clean parse's format */
	const char *name; /* what rawtime_mtime looks up */
	uint64_t ino;
	const uint8_t *bytes;
	uint64_t size;
	struct {
		uint64_t off, n;
	} * reads; /* what the clean parse read */
	size_t nreads;
	struct disk disk; /* the image as a disk, for the memo key */
};

/* The image as one round sees it: the base, an overlay, a size. */
struct view {
	struct image *img;
	uint64_t size;
	struct mut {
		uint64_t off;
		uint8_t val;
	} mut[MAX_MUT];
	int nmut;
	bool record;
};

static int view_read(void *ctx, uint64_t off, void *buf, size_t n)
{
	struct view *v = ctx;
	if (off > v->size || n > v->size - off)
		return -1;
	memcpy(buf, v->img->bytes + off, n);
	for (int i = 0; i < v->nmut; i++)
		if (v->mut[i].off >= off && v->mut[i].off - off < n)
			((uint8_t *)buf)[v->mut[i].off - off] = v->mut[i].val;
	if (v->record && v->img->nreads < MAX_READS) {
		v->img->reads[v->img->nreads].off = off;
		v->img->reads[v->img->nreads].n = n;
		v->img->nreads++;
	}
	return 0;
}

/* Checks a returned map keeps layout.h's promises. */
static int check_map(const struct layout *l, uint64_t size)
{
	uint64_t next = 0;
	for (size_t i = 0; i < l->n; i++) {
		const struct layout_range *r = &l->r[i];
		if (!r->count || r->lba < next || r->lba + r->count > size / LAYOUT_SECTOR ||
		    !r->structure)
			return -1;
		next = r->lba + r->count;
		if (layout_find(l, r->lba) != r || layout_find(l, next - 1) != r)
			return -1;
	}
	return 0;
}

/* What rawtime_mtime is asked for on an image: the root directory's
 * inode, by the number each format gives it; where the number is not
 * fixed (gfs2, ocfs2 and udf number an inode by its block), the first
 * owner the clean image's map names; vfat and exfat find by name (no such
 * name: the lookup walks the whole root directory and fails). */
static void root_file(struct image *im, const struct layout *l)
{
	static const struct {
		const char *fs;
		uint64_t ino;
	} roots[] = {{"ext2", 2},    {"ext3", 2},  {"ext4", 2},	   {"xfs", 128},
		     {"btrfs", 256}, {"f2fs", 3},  {"jfs", 2},	   {"nilfs2", 2},
		     {"minix", 1},   {"ntfs3", 5}, {"reiserfs", 2}};
	im->name = "rawtime-probe";
	im->ino = 1;
	for (size_t i = 0; i < l->n; i++)
		if (l->r[i].owner) {
			im->ino = l->r[i].owner;
			break;
		}
	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++)
		if (!strcmp(roots[i].fs, im->fs))
			im->ino = roots[i].ino;
}

static int load(struct image *im, const char *path)
{
	int fd = open(path, O_RDONLY);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) || st.st_size < 4096) {
		if (fd >= 0)
			close(fd);
		fprintf(stderr, "fuzz_layout: %s: cannot open or too small\n", path);
		return -1;
	}
	void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return -1;
	*im = (struct image){.bytes = p, .size = (uint64_t)st.st_size};
	snprintf(im->path, sizeof(im->path), "%s", path);
	im->reads = malloc(MAX_READS * sizeof(*im->reads));
	if (!im->reads) {
		munmap(p, im->size);
		return -1;
	}
	struct view v = {.img = im, .size = im->size, .record = true};
	struct layout l;
	char err[256];
	if (layout_parse(&l, view_read, &v, v.size, err, sizeof(err))) {
		fprintf(stderr, "fuzz_layout: %s: the clean image does not parse: %s\n", path, err);
		munmap(p, im->size);
		free(im->reads);
		return -1;
	}
	snprintf(im->fs, sizeof(im->fs), "%s", l.fs);
	root_file(im, &l);
	if (disk_open(&im->disk, path, false, err, sizeof(err))) {
		fprintf(stderr, "fuzz_layout: %s: %s\n", path, err);
		layout_free(&l);
		munmap(p, im->size);
		free(im->reads);
		return -1;
	}
	struct rawtime rt;
	int rc =
	    rawtime_mtime(im->fs, view_read, &v, v.size, im->name, im->ino, &rt, err, sizeof(err));
	printf("fuzz_layout: %s: %s, %zu ranges, %zu reads; raw time of %s (inode %" PRIu64
	       "): %s\n",
	       path, l.fs, l.n, im->nreads, im->name, im->ino,
	       rc < 0	? err
	       : rc > 0 ? "no parser"
			: rt.fields);
	layout_free(&l);
	return 0;
}

/* The mutations written into a fork of the image's disk, the key taken
 * twice: 0 when both agree, -1 when they do not (or a write fails). */
static int key_round(struct image *im, const struct view *v)
{
	struct disk *d = &im->disk;
	uint8_t k1[16], k2[16];
	if (disk_fork(d))
		return -1;
	int rc = 0;
	for (int i = 0; i < v->nmut && !rc; i++) {
		uint8_t sec[DISK_SECTOR_SIZE];
		uint64_t at = v->mut[i].off / DISK_SECTOR_SIZE;
		rc = disk_read(d, at, sec, 1);
		sec[v->mut[i].off % DISK_SECTOR_SIZE] = v->mut[i].val;
		rc = rc ? rc : disk_write(d, at, sec, 1);
	}
	bool m1 = fsck_key(im->fs, d, 3, true, k1), m2 = fsck_key(im->fs, d, 3, true, k2);
	if (disk_release(d))
		rc = -1;
	return rc || m1 != m2 || memcmp(k1, k2, 16) ? -1 : 0;
}

static void on_alarm(int sig)
{
	(void)sig;
	static const char msg[] = "fuzz_layout: a round ran past its time limit (hang)\n";
	ssize_t k = write(2, msg, sizeof(msg) - 1);
	(void)k;
	_exit(1);
}

/* Small images made at run time, for when none are named. */
static const char *const mkfs_cmds[][2] = {
    {"ext2", "mkfs.ext2 -q -F %s 8M"},
    {"ext4", "mkfs.ext4 -q -F -O metadata_csum,64bit %s 8M"},
    {"ext4k", "mkfs.ext4 -q -F -b 4096 %s 16M"},
    {"xfs", "truncate -s 300M %s && mkfs.xfs -q -f %s"},
    {"btrfs", "truncate -s 128M %s && mkfs.btrfs -q -f %s"},
    {"vfat", "truncate -s 8M %s && mkfs.vfat %s && mcopy -i %s /etc/os-release ::/rawtime-probe"},
    {"vfat32", "truncate -s 64M %s && mkfs.vfat -F 32 %s"},
    {"exfat", "truncate -s 8M %s && mkfs.exfat %s"},
    {"minix", "truncate -s 8M %s && mkfs.minix -3 %s"},
    {"minix1", "truncate -s 8M %s && mkfs.minix -1 %s"},
    {"f2fs", "truncate -s 64M %s && mkfs.f2fs -q %s"},
    {"jfs", "truncate -s 16M %s && mkfs.jfs -q %s"},
    {"nilfs2", "truncate -s 160M %s && mkfs.nilfs2 -q -f %s"},
    {"ntfs3", "truncate -s 8M %s && mkntfs -F -q -f -s 512 -p 0 -H 0 -S 0 %s 2>/dev/null"},
    {"udf", "truncate -s 8M %s && mkudffs -b 2048 %s >/dev/null"},
    {"reiserfs", "truncate -s 40M %s && mkreiserfs -f -q %s 2>/dev/null"},
    {"gfs2", "truncate -s 64M %s && mkfs.gfs2 -O -p lock_nolock -j 1 -J 8 %s >/dev/null"},
    {"ocfs2", "truncate -s 32M %s && mkfs.ocfs2 -q -M local -N 1 %s >/dev/null"},
};

int main(int argc, char **argv)
{
	uint64_t rounds = argc > 1 ? strtoull(argv[1], NULL, 0) : 2000;
	uint64_t first = argc > 2 ? strtoull(argv[2], NULL, 0) : 1;
	struct image img[32];
	int nimg = 0, status = 1;
	char dir[] = "/tmp/fuzz_layout.XXXXXX";
	bool made = argc <= 3;
	if (made && !mkdtemp(dir))
		return 1;
	if (made) {
		setenv("QA_CHECK_FS", "1", 1); /* lets mkfs.xfs make a small test image */
		for (size_t i = 0; i < sizeof(mkfs_cmds) / sizeof(mkfs_cmds[0]); i++) {
			char path[128], cmd[512];
			snprintf(path, sizeof(path), "%s/%s.img", dir, mkfs_cmds[i][0]);
			snprintf(cmd, sizeof(cmd), mkfs_cmds[i][1], path, path, path);
			strcat(cmd, " >/dev/null 2>&1");
			if (system(cmd) != 0) {
				printf("fuzz_layout: skipping %s (mkfs failed or missing)\n",
				       mkfs_cmds[i][0]);
				continue;
			}
			/* Mapped, the file can go now: nothing is left behind. */
			int rc = load(&img[nimg], path);
			unlink(path);
			if (rc)
				goto done;
			nimg++;
		}
	} else {
		for (int i = 3; i < argc && nimg < 32; i++, nimg++)
			if (load(&img[nimg], argv[i]))
				goto done;
	}
	if (!nimg) {
		fprintf(stderr, "fuzz_layout: no image to fuzz\n");
		goto done;
	}
	signal(SIGALRM, on_alarm);
	uint64_t failed = 0, parsed = 0, timed = 0;
	for (uint64_t round = 0; round < rounds; round++) {
		uint64_t seed = first + round, s = seed * 0x2545f4914f6cdd1dULL;
		struct image *im = &img[splitmix64(&s) % (uint64_t)nimg];
		struct view v = {.img = im, .size = im->size};
		int kind = (int)(splitmix64(&s) % 8);
		if (kind == 0) /* truncation, somewhere the parser looks */
			v.size = im->reads[splitmix64(&s) % im->nreads].off + splitmix64(&s) % 4096;
		v.nmut = kind == 0 ? 0 : 1 + (int)(splitmix64(&s) % (kind == 1 ? MAX_MUT - 4 : 6));
		for (int i = 0; i < v.nmut;) {
			uint64_t at = splitmix64(&s) % im->nreads;
			uint64_t off = im->reads[at].off + splitmix64(&s) % im->reads[at].n;
			uint8_t old = im->bytes[off];
			switch (splitmix64(&s) % 5) {
			case 0:
				v.mut[i++] = (struct mut){off, old ^ (1u << (splitmix64(&s) % 8))};
				break;
			case 1: v.mut[i++] = (struct mut){off, (uint8_t)splitmix64(&s)}; break;
			case 2:
				v.mut[i++] = (struct mut){off, splitmix64(&s) & 1 ? 0 : 0xff};
				break;
			default: { /* a whole little-endian 32-bit field */
				static const uint32_t vals[] = {0,	     1, 0xffffffffu,
								0x80000000u, 2, 0x7fffffffu};
				uint32_t w = splitmix64(&s) & 1 ? vals[splitmix64(&s) % 6]
								: (uint32_t)splitmix64(&s);
				off &= ~3ULL;
				for (int k = 0; k < 4 && i < MAX_MUT && off + k < im->size; k++)
					v.mut[i++] = (struct mut){off + k, (uint8_t)(w >> 8 * k)};
			}
			}
		}
		struct layout l;
		char err[256];
		alarm(ROUND_LIMIT);
		int rc = layout_parse(&l, view_read, &v, v.size, err, sizeof(err));
		alarm(0);
		if (rc) {
			if (!err[0] || strchr(err, '\n')) {
				printf("fuzz_layout: %s seed %" PRIu64
				       ": error without a one-line reason\n",
				       im->path, seed);
				failed++;
			}
		} else {
			parsed++;
			if (check_map(&l, v.size)) {
				printf("fuzz_layout: %s seed %" PRIu64
				       ": map breaks layout.h's promises\n",
				       im->path, seed);
				failed++;
			}
		}
		layout_free(&l);
		struct rawtime rt;
		alarm(ROUND_LIMIT);
		rc = rawtime_mtime(im->fs, view_read, &v, v.size, im->name, im->ino, &rt, err,
				   sizeof(err));
		alarm(0);
		if (rc == 0)
			timed++;
		else if (rc < 0 && (!err[0] || strchr(err, '\n'))) {
			printf("fuzz_layout: %s seed %" PRIu64
			       ": raw time error without a one-line reason\n",
			       im->path, seed);
			failed++;
		}
		alarm(ROUND_LIMIT);
		rc = kind == 0 ? 0 : key_round(im, &v); /* a disk is not truncated */
		alarm(0);
		if (rc) {
			printf("fuzz_layout: %s seed %" PRIu64 ": the memo key failed or moved\n",
			       im->path, seed);
			failed++;
		}
	}
	printf("fuzz_layout: raw times read in %" PRIu64 " of %" PRIu64 " rounds\n", timed, rounds);
	printf("fuzz_layout: %" PRIu64 " rounds from seed %" PRIu64 " over %d images: %" PRIu64
	       " mapped, %" PRIu64 " refused, %" PRIu64 " broken\n",
	       rounds, first, nimg, parsed, rounds - parsed, failed);
	status = failed ? 1 : 0;
done:
	for (int i = 0; i < nimg; i++) {
		munmap((void *)img[i].bytes, img[i].size);
		free(img[i].reads);
		disk_close(&img[i].disk);
	}
	if (made)
		rmdir(dir);
	return status;
}
