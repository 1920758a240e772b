/* fuzz_trace.c - hostile traces against trace_read (src/check/trace.c), the
 * parser of the files `themis replay` is handed: whatever the text, it must
 * return 0 or -1 with a reason, never crash, read out of bounds or hang,
 * and what it accepts must be usable as it stands (a machine of 1 to
 * CHECK_MAX_FS filesystems, every path set, every operation one the
 * operation table knows, each fitting its buffer).
 *
 * Build and run from the repository root (make test-fuzz and make fuzz):
 *   make build/asan/fuzz_trace
 *   build/asan/fuzz_trace ROUNDS FIRST-SEED
 *
 * The seed input is a real trace written by trace_write over small files
 * made in a temporary folder (kernel, initrd, two images), naming every
 * kind of operation; each round applies 1 to 8 text mutations
 * (tests/fuzz/fuzz.h) and reads the result back, with and without the
 * kernel check. Some rounds change nothing: those must be accepted, so a
 * parser that refused everything would fail here too. The files the trace
 * names must be unchanged at the end. Every round's text also goes to
 * repro_write (src/check/repro.c), which must write a reproducer or give
 * a reason. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lens/crash.h"
#include "check/repro.h"
#include "check/trace.h"
#include "fuzz.h"

static const char *const dict[] = {"op ",
				   "fs ",
				   "mem ",
				   "clock ",
				   "time 1",
				   "durability remount",
				   "end",
				   "image ",
				   "kernel ",
				   "kernel-b ",
				   "initrd ",
				   "build ",
				   "discrepancy ",
				   "op-budget ",
				   "crash-states 8\n",
				   "crash subset 0 12 3a0\n",
				   "crash flush 1 ",
				   "rules 0123456789abcdef /tmp\n",
				   "\n",
				   "op write ",
				   "op settime ",
				   "themis-trace 2\n",
				   "0123456789abcdef0123456789abcdef",
				   NULL};

/* A file of n bytes of a seeded pattern. */
static void make_file(const char *path, size_t n, uint64_t seed)
{
	struct fuzz_buf b = {0};
	fuzz_reserve(&b, n);
	for (size_t i = 0; i < n; i++)
		b.p[i] = (uint8_t)splitmix64(&seed);
	b.n = n;
	fuzz_write_file(path, &b);
	free(b.p);
}

static void read_file(const char *path, struct fuzz_buf *b)
{
	FILE *f = fopen(path, "rb");
	char chunk[4096];
	size_t n;
	if (!f)
		fuzz_die("cannot read the seed trace");
	b->n = 0;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		fuzz_splice(b, b->n, 0, chunk, n);
	fclose(f);
}

/* What an accepted trace must satisfy. */
static void check_accepted(const struct trace *t, uint64_t seed)
{
	const struct check_machine *m = &t->m;
	bool ok = m->nfs >= 1 && m->nfs <= CHECK_MAX_FS && m->kernel && m->initrd && m->mem &&
		  t->nops >= 0 && t->nops <= TRACE_MAX_OPS && t->sig[0];
	for (int i = 0; ok && i < m->nfs; i++)
		ok = m->fs[i] && m->images[i] && memchr(t->fsnames[i], 0, sizeof(t->fsnames[i]));
	for (int i = 0; ok && i < t->nops; i++) {
		struct op op;
		ok = memchr(t->ops[i], 0, OP_TEXT_MAX) && op_kind_of_text(t->ops[i]) >= 0;
		if (ok)
			check_op_of_text(t->ops[i], &op); /* what replay does with it */
	}
	/* A crash step is one the lens can read, after an operation, with
	 * the crash lens on. */
	if (ok && t->crash[0]) {
		struct crash_step cs;
		ok = t->nops > 0 && m->crash_states && memchr(t->crash, 0, sizeof(t->crash)) &&
		     !crash_step_parse(t->crash + 6, &cs);
	}
	/* A second kernel is one filesystem twice, its path set. */
	if (ok && t->kernel_b.known)
		ok = m->kernel_b && m->nfs == 2 && !strcmp(m->fs[0], m->fs[1]);
	if (!ok) {
		fprintf(stderr, "fuzz_trace: seed %llu: an accepted trace is unusable\n",
			(unsigned long long)seed);
		exit(1);
	}
}

int main(int argc, char **argv)
{
	uint64_t rounds = 2000, first = 1;
	fuzz_args(argc, argv, "fuzz_trace", &rounds, &first);
	char dir[] = "/tmp/fuzz_trace.XXXXXX", kernel[64], kernel_b[64], initrd[64], img[2][64],
	     path[64];
	if (!mkdtemp(dir))
		fuzz_die("cannot make a temporary folder");
	snprintf(kernel, sizeof(kernel), "%s/Image", dir);
	snprintf(initrd, sizeof(initrd), "%s/initrd", dir);
	snprintf(path, sizeof(path), "%s/trace", dir);
	snprintf(kernel_b, sizeof(kernel_b), "%s/Image-b", dir);
	make_file(kernel, 8192, 1);
	make_file(kernel_b, 8192, 9);
	make_file(initrd, 4096, 2);
	struct check_machine m = {.nfs = 2,
				  .kernel = kernel,
				  .initrd = initrd,
				  .mem = 256 << 20,
				  .clock_ns = 1700000000000000000ULL,
				  .machine_seed = 7,
				  .time = true,
				  .op_budget = 123456789,
				  .durability = CHECK_DURABLE_REMOUNT};
	static const char *const fs[2] = {"ext4", "xfs"};
	for (int i = 0; i < 2; i++) {
		snprintf(img[i], sizeof(img[i]), "%s/disk%d.img", dir, i);
		make_file(img[i], 16384, 3 + (uint64_t)i);
		m.fs[i] = fs[i], m.images[i] = img[i];
	}
	static char ops[OP_NKINDS][OP_TEXT_MAX];
	for (int k = 0; k < OP_NKINDS; k++)
		snprintf(ops[k], OP_TEXT_MAX, "op %s", op_example((enum op_kind)k));
	char err[2048];
	if (trace_write(path, NULL, &m, ops, OP_NKINDS, "state:mtime", "mtime differs at /f0", err,
			sizeof(err)))
		fuzz_die(err);
	struct fuzz_buf seedbuf = {0}, seed2 = {0}, b = {0};
	read_file(path, &seedbuf);
	/* A second seed a reproducer can be written for (no settime, no time
	 * field): odd rounds mutate it. */
	int n2 = 0;
	for (int k = 0; k < OP_NKINDS; k++)
		if (k != OP_SETTIME)
			memcpy(ops[n2++], ops[k], OP_TEXT_MAX);
	m.time = false;
	if (trace_write(path, NULL, &m, ops, n2, "disk:content", "disk differs at f0", err,
			sizeof(err)))
		fuzz_die(err);
	read_file(path, &seed2);
	/* A third, of one filesystem across two kernels (a kernel-b line):
	 * every fourth round mutates it. */
	struct fuzz_buf seed3 = {0};
	m.fs[1] = m.fs[0], m.images[1] = m.images[0], m.kernel_b = kernel_b;
	if (trace_write(path, NULL, &m, ops, n2, "state:nlink", "state differs at f0", err,
			sizeof(err)))
		fuzz_die(err);
	read_file(path, &seed3);
	struct trace *t = malloc(sizeof(*t));
	if (!t)
		fuzz_die("out of memory");
	uint64_t accepted = 0, clean_rounds = 0, written = 0;
	char repro_dir[96];
	snprintf(repro_dir, sizeof(repro_dir), "%s/repro", dir);
	for (uint64_t r = 0; r < rounds; r++) {
		uint64_t seed = first + r, rng = seed;
		fuzz_round_start(seed);
		const struct fuzz_buf *from = r % 4 == 3 ? &seed3 : r % 2 ? &seed2 : &seedbuf;
		fuzz_set(&b, from->p, from->n);
		int nmut = (int)fuzz_below(&rng, 9); /* 0: the clean trace */
		for (int i = 0; i < nmut; i++)
			fuzz_mutate_text(&rng, &b, dict);
		fuzz_write_file(path, &b);
		bool check_kernel = fuzz_below(&rng, 2);
		err[0] = 0;
		int rc = trace_read(path, t, check_kernel, err, sizeof(err));
		if (rc != 0 && (rc != -1 || !err[0] || !memchr(err, 0, sizeof(err)))) {
			fprintf(stderr, "fuzz_trace: seed %llu: refused without a reason (%d)\n",
				(unsigned long long)seed, rc);
			return 1;
		}
		if (rc == 0)
			check_accepted(t, seed), accepted++;
		/* The reproducer's generator reads the same text: a reproducer or a
		 * reason, never a crash. */
		err[0] = 0;
		int wrc = repro_write(path, repro_dir, err, sizeof(err));
		if (wrc != 0 && (wrc != -1 || !err[0] || !memchr(err, 0, sizeof(err)))) {
			fprintf(stderr,
				"fuzz_trace: seed %llu: repro refused without a reason (%d)\n",
				(unsigned long long)seed, wrc);
			return 1;
		}
		written += wrc == 0;
		if (nmut == 0 && (clean_rounds++, rc != 0)) {
			fprintf(stderr, "fuzz_trace: seed %llu: the clean trace is refused: %s\n",
				(unsigned long long)seed, err);
			return 1;
		}
	}
	alarm(0);
	uint8_t h[16], want[16];
	make_file(path, 8192, 1); /* the kernel's content, to compare */
	if (!identity_file_hash(path, want) || !identity_file_hash(kernel, h) ||
	    memcmp(h, want, 16))
		fuzz_die("the kernel file changed");
	printf("fuzz_trace: %llu rounds from seed %llu: %llu accepted (%llu unmutated), the rest "
	       "refused with a reason; %llu reproducers written\n",
	       (unsigned long long)rounds, (unsigned long long)first, (unsigned long long)accepted,
	       (unsigned long long)clean_rounds, (unsigned long long)written);
	/* What repro_write leaves (src/check/repro.c), so the folder goes. */
	static const char *const written_files[] = {"repro.c", "repro.sh", "mkfs-fixed.c"};
	for (size_t i = 0; i < sizeof(written_files) / sizeof(written_files[0]); i++) {
		snprintf(path, sizeof(path), "%s/repro/%s", dir, written_files[i]);
		remove(path);
	}
	rmdir(repro_dir);
	snprintf(path, sizeof(path), "%s/trace", dir);
	for (int i = 0; i < 2; i++)
		remove(img[i]);
	remove(kernel), remove(kernel_b), remove(initrd), remove(path), rmdir(dir);
	free(t), free(b.p), free(seedbuf.p), free(seed2.p), free(seed3.p);
	return 0;
}
