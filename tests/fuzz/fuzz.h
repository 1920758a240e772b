/* fuzz.h - what the fuzzers of whole inputs share (fuzz_trace.c,
 * fuzz_snapshot.c, fuzz_agent.c): a seeded mutator over a byte buffer that
 * knows a little of text (lines and numbers) and of binary layouts (64-bit
 * fields), the one command line (ROUNDS FIRST-SEED), and a per-round time
 * limit that turns a hang into a failure naming its seed.
 *
 * Every round is a pure function of its seed: `FUZZER 1 SEED` replays a
 * failing round alone. Header-only, like src/util: each fuzzer is one
 * file and links the sanitizer build of the modules it drives. */
#ifndef THEMIS_FUZZ_H
#define THEMIS_FUZZ_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/rng.h"

#define FUZZ_ROUND_LIMIT 20 /* seconds: a round taking longer is a hang */

/* A growable byte buffer: the input under mutation. */
struct fuzz_buf {
	uint8_t *p;
	size_t n, cap;
};

static inline void fuzz_die(const char *what)
{
	fprintf(stderr, "fuzz: %s\n", what);
	exit(1);
}

static inline void fuzz_reserve(struct fuzz_buf *b, size_t n)
{
	if (n <= b->cap)
		return;
	size_t cap = n + n / 2 + 64;
	uint8_t *p = realloc(b->p, cap);
	if (!p)
		fuzz_die("out of memory");
	b->p = p, b->cap = cap;
}

static inline void fuzz_set(struct fuzz_buf *b, const void *p, size_t n)
{
	fuzz_reserve(b, n + 1);
	memcpy(b->p, p, n);
	b->n = n;
}

/* Replace [at, at+len) by n bytes of p. */
static inline void fuzz_splice(struct fuzz_buf *b, size_t at, size_t len, const void *p, size_t n)
{
	if (at > b->n)
		at = b->n;
	if (len > b->n - at)
		len = b->n - at;
	fuzz_reserve(b, b->n - len + n + 1);
	memmove(b->p + at + n, b->p + at + len, b->n - at - len);
	memcpy(b->p + at, p, n);
	b->n = b->n - len + n;
}

static inline uint64_t fuzz_below(uint64_t *rng, uint64_t n)
{
	return n ? splitmix64(rng) % n : 0;
}

/* Values that break arithmetic: edges of every width, and their
 * neighbours. */
static inline uint64_t fuzz_interesting(uint64_t *rng)
{
	static const uint64_t v[] = {0,
				     1,
				     2,
				     7,
				     8,
				     255,
				     256,
				     4095,
				     4096,
				     65535,
				     65536,
				     0x7fffffff,
				     0x80000000,
				     0xffffffff,
				     0x100000000ULL,
				     0x7fffffffffffffffULL,
				     0x8000000000000000ULL,
				     0xfffffffffffff000ULL,
				     0xffffffffffffffffULL};
	uint64_t x = v[fuzz_below(rng, sizeof(v) / sizeof(v[0]))];
	return fuzz_below(rng, 4) ? x : x + fuzz_below(rng, 3) - 1;
}

/* Start and length of a random line of b (text inputs). */
static inline void fuzz_pick_line(uint64_t *rng, const struct fuzz_buf *b, size_t *at, size_t *len)
{
	size_t i = b->n ? fuzz_below(rng, b->n) : 0;
	while (i > 0 && b->p[i - 1] != '\n')
		i--;
	size_t e = i;
	while (e < b->n && b->p[e] != '\n')
		e++;
	*at = i, *len = e - i + (e < b->n); /* with its newline */
}

/* One text mutation: lines deleted, duplicated, moved or cut short; a
 * number replaced by an edge value or an overlong one; a token from
 * `dict` (NULL-terminated) put in; bytes that text parsers forget (NUL,
 * CR, a very long run). */
static inline void fuzz_mutate_text(uint64_t *rng, struct fuzz_buf *b, const char *const *dict)
{
	size_t at, len, at2, len2;
	char tmp[64];
	fuzz_pick_line(rng, b, &at, &len);
	switch (fuzz_below(rng, 10)) {
	case 0: fuzz_splice(b, at, len, "", 0); break;
	case 1: {
		uint8_t *copy = malloc(len + 1);
		if (!copy)
			fuzz_die("out of memory");
		memcpy(copy, b->p + at, len);
		fuzz_pick_line(rng, b, &at2, &len2);
		fuzz_splice(b, at2, 0, copy, len);
		free(copy);
		break;
	}
	case 2: fuzz_splice(b, at + (len ? fuzz_below(rng, len) : 0), len, "\n", 1); break;
	case 3:
	case 4: { /* a number, somewhere in the line, made extreme */
		size_t i = at + (len ? fuzz_below(rng, len) : 0), e;
		while (i < b->n && (b->p[i] < '0' || b->p[i] > '9'))
			i++;
		for (e = i; e < b->n && b->p[e] >= '0' && b->p[e] <= '9'; e++)
			;
		int n = fuzz_below(rng, 4)
			    ? snprintf(tmp, sizeof(tmp), "%llu",
				       (unsigned long long)fuzz_interesting(rng))
			    : snprintf(tmp, sizeof(tmp), "%s", "-99999999999999999999999999");
		fuzz_splice(b, i, e - i, tmp, (size_t)n);
		break;
	}
	case 5:
		if (dict) {
			size_t nd = 0;
			while (dict[nd])
				nd++;
			const char *w = dict[fuzz_below(rng, nd)];
			fuzz_splice(b, at + (len ? fuzz_below(rng, len) : 0), 0, w, strlen(w));
		}
		break;
	case 6: { /* an overlong run: past every fixed buffer */
		size_t n = 1 + fuzz_below(rng, 5000);
		char *run = malloc(n);
		if (!run)
			fuzz_die("out of memory");
		memset(run, "a /:=0\xff"[fuzz_below(rng, 7)], n);
		fuzz_splice(b, at + (len ? fuzz_below(rng, len) : 0), 0, run, n);
		free(run);
		break;
	}
	case 7: {
		static const char odd[] = {0, '\r', '\t', ' ', '\n', '%', '\\', (char)0x80};
		fuzz_splice(b, b->n ? fuzz_below(rng, b->n) : 0, fuzz_below(rng, 2),
			    &odd[fuzz_below(rng, sizeof(odd))], 1);
		break;
	}
	case 8: /* a line moved */
		fuzz_pick_line(rng, b, &at2, &len2);
		if (at2 != at && len2) {
			uint8_t *copy = malloc(len2);
			if (!copy)
				fuzz_die("out of memory");
			memcpy(copy, b->p + at2, len2);
			fuzz_splice(b, at2, len2, "", 0);
			fuzz_splice(b, at < b->n ? at : b->n, 0, copy, len2);
			free(copy);
		}
		break;
	default:
		if (b->n)
			b->p[fuzz_below(rng, b->n)] ^= (uint8_t)(1u << fuzz_below(rng, 8));
		break;
	}
}

/* One binary mutation inside [lo, hi) (hi clipped to the input): a bit
 * flipped, a byte scribbled, an aligned 64- or 32-bit field set to an
 * edge value, or the input cut there. */
static inline void fuzz_mutate_bytes(uint64_t *rng, struct fuzz_buf *b, size_t lo, size_t hi)
{
	hi = hi < b->n ? hi : b->n;
	if (hi <= lo)
		return;
	size_t i = lo + fuzz_below(rng, hi - lo);
	uint64_t x = fuzz_interesting(rng);
	switch (fuzz_below(rng, 8)) {
	case 0:
	case 1: b->p[i] ^= (uint8_t)(1u << fuzz_below(rng, 8)); break;
	case 2: b->p[i] = (uint8_t)splitmix64(rng); break;
	case 3:
	case 4:
		i &= ~(size_t)7;
		if (i >= lo && i + 8 <= hi)
			memcpy(b->p + i, &x, 8);
		break;
	case 5:
		i &= ~(size_t)3;
		if (i >= lo && i + 4 <= hi)
			memcpy(b->p + i, &x, 4);
		break;
	case 6:
		if (!fuzz_below(rng, 8))
			b->n = i;
		break;
	default: b->p[i] = (uint8_t)(fuzz_below(rng, 2) ? 0 : 0xff); break;
	}
}

/* Append the whole file at path to b (what: the file, for the message
 * when it cannot be read). */
static inline void fuzz_read_file(const char *path, struct fuzz_buf *b, const char *what)
{
	FILE *f = fopen(path, "rb");
	char chunk[65536];
	size_t n;
	if (!f)
		fuzz_die(what);
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		fuzz_splice(b, b->n, 0, chunk, n);
	fclose(f);
}

static inline void fuzz_write_file(const char *path, const struct fuzz_buf *b)
{
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(b->p, 1, b->n, f) != b->n || fclose(f))
		fuzz_die("cannot write the round's input");
}

/* The round a SIGALRM interrupts, for its message. */
static uint64_t fuzz_current_seed;
static const char *fuzz_name = "fuzz";

static inline void fuzz_on_alarm(int sig)
{
	(void)sig;
	char msg[160];
	int n = snprintf(msg, sizeof(msg),
			 "%s: round with seed %llu hangs (over %d s): replay "
			 "with `%s 1 %llu`\n",
			 fuzz_name, (unsigned long long)fuzz_current_seed, FUZZ_ROUND_LIMIT,
			 fuzz_name, (unsigned long long)fuzz_current_seed);
	if (n > 0 && write(2, msg, (size_t)n) < 0)
		_exit(3);
	_exit(1);
}

/* ROUNDS FIRST-SEED from the command line (defaults given). */
static inline void fuzz_args(int argc, char **argv, const char *name, uint64_t *rounds,
			     uint64_t *first)
{
	fuzz_name = name;
	*rounds = argc > 1 ? strtoull(argv[1], NULL, 0) : *rounds;
	*first = argc > 2 ? strtoull(argv[2], NULL, 0) : *first;
	signal(SIGALRM, fuzz_on_alarm);
}

static inline void fuzz_round_start(uint64_t seed)
{
	fuzz_current_seed = seed;
	alarm(FUZZ_ROUND_LIMIT);
}

#endif
