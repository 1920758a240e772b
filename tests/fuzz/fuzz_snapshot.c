/* fuzz_snapshot.c - hostile saved machines against virt_load
 * (src/machine/snapshot.c), the loader of `--load` and of a shared run's
 * start: whatever the file holds, loading must succeed or fail with a
 * reason, never crash, read out of bounds or hang; a machine it builds
 * must run (a hart and devices in any state the file can express) without
 * harming the host; and the base image under it must stay byte-identical.
 *
 * Build and run from the repository root (make test-fuzz and make fuzz):
 *   make build/asan/fuzz_snapshot
 *   build/asan/fuzz_snapshot ROUNDS FIRST-SEED
 *
 * The seed input is a real snapshot: a 16 MiB machine over a small image
 * made in a temporary folder, with some RAM pages and disk chunks written,
 * saved by virt_save. A file's checksum would refuse almost every
 * mutation before the parser sees it, so most rounds recompute it after
 * mutating: the parser behind it is what a forged file reaches. Most
 * mutations land past the identity text (a changed build line is refused
 * at once), as bit flips, scribbles and 64-bit fields set to edge values
 * (tests/fuzz/fuzz.h). A machine that loads runs FUZZ_INSNS instructions
 * and is hashed. Some rounds change nothing and must load. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

#include "fuzz.h"
#include "machine/identity.h"
#include "machine/snapshot.h"

#define FUZZ_INSNS 20000
#define FUZZ_MEM   (16ULL << 20)

static void make_image(const char *path)
{
	struct fuzz_buf b = {0};
	uint64_t s = 5;
	fuzz_reserve(&b, 1 << 20);
	for (size_t i = 0; i < 1 << 20; i++)
		b.p[i] = (uint8_t)splitmix64(&s);
	b.n = 1 << 20;
	fuzz_write_file(path, &b);
	free(b.p);
}

/* Where the identity text ends (magic, version, its length, the text),
 * and where the RAM pages begin: between them lie the fields a parser
 * believes (sizes, counts, the hart, the device block), where most
 * mutations go; one in five lands anywhere past the identity. */
static void field_span(const struct fuzz_buf *b, const struct virt *v, size_t *lo, size_t *hi)
{
	struct virt_part parts[VIRT_MAX_PARTS];
	uint64_t len;
	memcpy(&len, b->p + 16, 8);
	*lo = 24 + len;
	*hi = *lo + 8 * 4 + 8 * (size_t)v->ndisks + CPU_STATE_SIZE + 8;
	int n = virt_parts(v, parts);
	for (int i = 0; i < n; i++)
		*hi += 32 + 16 + parts[i].size;
	*hi += 8 + 8; /* the page count and the first page's index */
}

/* A machine with some state of its own, saved to path; the span of its
 * fields in the file (field_span). */
static void make_snapshot(const char *image, const char *path, FILE *console, struct fuzz_buf *file,
			  size_t *lo, size_t *hi)
{
	struct virt_config cfg = {
	    .mem = FUZZ_MEM, .ndisks = 1, .no_boot = true, .console = console};
	cfg.disks[0] = (struct virt_disk_config){image, false};
	struct virt *v = malloc(sizeof(*v));
	char err[512];
	if (!v || virt_init(v, &cfg, err, sizeof(err)))
		fuzz_die(v ? err : "out of memory");
	uint8_t page[4096];
	uint64_t s = 9;
	for (int k = 0; k < 8; k++) {
		for (size_t i = 0; i < sizeof(page); i++)
			page[i] = (uint8_t)splitmix64(&s);
		if (!ram_write(&v->ram, VIRT_DRAM_BASE + (uint64_t)k * 0x11000, page,
			       sizeof(page)) ||
		    disk_write(&v->disks[0], (uint64_t)k * 24, page, 8))
			fuzz_die("cannot give the seed machine its state");
	}
	v->cpu.pc = VIRT_DRAM_BASE; /* the hart runs the random pages */
	if (virt_save(v, &cfg, path, err, sizeof(err)))
		fuzz_die(err);
	fuzz_read_file(path, file, "cannot read the seed snapshot");
	field_span(file, v, lo, hi);
	virt_free(v);
	free(v);
}

/* The trailer (XXH3-128 of everything before it), as virt_save writes it. */
static void reseal(struct fuzz_buf *b)
{
	if (b->n < 16)
		return;
	XXH128_canonical_t c;
	XXH128_canonicalFromHash(&c, XXH3_128bits(b->p, b->n - 16));
	memcpy(b->p + b->n - 16, c.digest, 16);
}

int main(int argc, char **argv)
{
	uint64_t rounds = 500, first = 1;
	fuzz_args(argc, argv, "fuzz_snapshot", &rounds, &first);
	char dir[] = "/tmp/fuzz_snapshot.XXXXXX", image[64], path[64];
	if (!mkdtemp(dir))
		fuzz_die("cannot make a temporary folder");
	snprintf(image, sizeof(image), "%s/disk.img", dir);
	snprintf(path, sizeof(path), "%s/machine.snap", dir);
	FILE *console = fopen("/dev/null", "w");
	if (!console)
		fuzz_die("cannot open /dev/null");
	make_image(image);
	uint8_t before[16], after[16];
	if (!identity_file_hash(image, before))
		fuzz_die("cannot hash the image");
	struct fuzz_buf seedbuf = {0}, b = {0};
	size_t lo, hi;
	make_snapshot(image, path, console, &seedbuf, &lo, &hi);
	struct virt *v = malloc(sizeof(*v));
	if (!v)
		fuzz_die("out of memory");
	uint64_t loaded = 0, ran = 0;
	for (uint64_t r = 0; r < rounds; r++) {
		uint64_t seed = first + r, rng = seed;
		fuzz_round_start(seed);
		fuzz_set(&b, seedbuf.p, seedbuf.n);
		int nmut = (int)fuzz_below(&rng, 6); /* 0: the saved machine as it is */
		for (int i = 0; i < nmut; i++)
			if (fuzz_below(&rng, 5))
				fuzz_mutate_bytes(&rng, &b, fuzz_below(&rng, 8) ? lo : 0, hi);
			else
				fuzz_mutate_bytes(&rng, &b, lo, b.n);
		if (fuzz_below(&rng, 10))
			reseal(&b);
		fuzz_write_file(path, &b);
		struct virt_config cfg = {.console = console};
		char err[2048] = "";
		int rc = virt_load(v, &cfg, path, err, sizeof(err));
		if (rc != 0 && (rc != -1 || !err[0])) {
			fprintf(stderr, "fuzz_snapshot: seed %llu: refused without a reason\n",
				(unsigned long long)seed);
			return 1;
		}
		if (rc == 0) {
			uint8_t h[16];
			loaded++;
			ran += virt_run(v, FUZZ_INSNS) != VIRT_BUDGET;
			virt_state_hash(v, h);
			virt_free(v);
		} else if (nmut == 0) {
			fprintf(stderr,
				"fuzz_snapshot: seed %llu: the saved machine is refused: %s\n",
				(unsigned long long)seed, err);
			return 1;
		}
	}
	alarm(0);
	if (!identity_file_hash(image, after) || memcmp(before, after, 16))
		fuzz_die("the base image changed");
	printf("fuzz_snapshot: %llu rounds from seed %llu: %llu loaded and ran (%llu stopped "
	       "early), the rest refused with a reason; base image unchanged\n",
	       (unsigned long long)rounds, (unsigned long long)first, (unsigned long long)loaded,
	       (unsigned long long)ran);
	fclose(console);
	remove(image), remove(path), rmdir(dir);
	free(v), free(b.p), free(seedbuf.p);
	return 0;
}
