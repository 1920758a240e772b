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
 * seed: `fuzz_layout 1 SEED IMG` replays it. */
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lens/layout.h"
#include "util/rng.h"

#define MAX_MUT	    48
#define MAX_READS   (1u << 16)
#define ROUND_LIMIT 20 /* seconds: a round taking longer is a hang */

struct image {
	char path[128];
	const uint8_t *bytes;
	uint64_t size;
	struct {
		uint64_t off, n;
	} * reads; /* what the clean parse read */
	size_t nreads;
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
	printf("fuzz_layout: %s: %s, %zu ranges, %zu reads\n", path, l.fs, l.n, im->nreads);
	layout_free(&l);
	return 0;
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
    {"vfat", "truncate -s 8M %s && mkfs.vfat %s"},
    {"vfat32", "truncate -s 64M %s && mkfs.vfat -F 32 %s"},
    {"exfat", "truncate -s 8M %s && mkfs.exfat %s"},
    {"minix", "truncate -s 8M %s && mkfs.minix -3 %s"},
    {"minix1", "truncate -s 8M %s && mkfs.minix -1 %s"},
    {"f2fs", "truncate -s 64M %s && mkfs.f2fs -q %s"},
    {"jfs", "truncate -s 16M %s && mkfs.jfs -q %s"},
    {"nilfs2", "truncate -s 160M %s && mkfs.nilfs2 -q -f %s"},
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
			snprintf(cmd, sizeof(cmd), mkfs_cmds[i][1], path, path);
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
	uint64_t failed = 0, parsed = 0;
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
			case 2: v.mut[i++] = (struct mut){off, splitmix64(&s) & 1 ? 0 : 0xff}; break;
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
	}
	printf("fuzz_layout: %" PRIu64 " rounds from seed %" PRIu64 " over %d images: %" PRIu64
	       " mapped, %" PRIu64 " refused, %" PRIu64 " broken\n",
	       rounds, first, nimg, parsed, rounds - parsed, failed);
	status = failed ? 1 : 0;
done:
	for (int i = 0; i < nimg; i++) {
		munmap((void *)img[i].bytes, img[i].size);
		free(img[i].reads);
	}
	if (made)
		rmdir(dir);
	return status;
}
