/* op_grammar.h - the operation grammar (op_table.h's argument letters),
 * parsed once: the guest agent (guest/agent/check.c, which runs the
 * operations), every reproducer (repro.c embeds this file) and the host
 * (src/check/op_check.c, which refuses a malformed operation in a trace as
 * bad input before it reaches the guest) read an operation with
 * op_parse_args, so none can accept what another refuses. Header-only and
 * libc-only, since the agent is a static riscv64 program built apart
 * (scripts/build-initramfs.sh hashes src/proto with the agent's sources)
 * and a reproducer is one file any Linux compiles. */
#ifndef THEMIS_OP_GRAMMAR_H
#define THEMIS_OP_GRAMMAR_H

#include <fcntl.h>
#include <linux/falloc.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#ifndef RENAME_NOREPLACE /* glibc before 2.28 */
#define RENAME_NOREPLACE (1 << 0)
#define RENAME_EXCHANGE	 (1 << 1)
#define RENAME_WHITEOUT	 (1 << 2)
#endif

#define OP_MAX_SIZE (1ull << 31)  /* N: sizes and offsets */
#define OP_MAX_ID   4294967294ull /* I: uids and gids (not -1) */
#define OP_MAX_SEC  (1ull << 62)  /* E: seconds of an instant */

/* A path argument (letter P): relative to the test root, without empty,
 * "." or ".." parts (a lone "." is the root itself), and not into
 * lost+found, which belongs to the filesystem, not the test. */
static inline bool op_path_ok(const char *p)
{
	if (!strcmp(p, "."))
		return true;
	if (!strncmp(p, "lost+found", 10) && (p[10] == 0 || p[10] == '/'))
		return false;
	for (;;) {
		size_t l = strcspn(p, "/");
		if (l == 0 || (l == 1 && p[0] == '.') || (l == 2 && p[0] == '.' && p[1] == '.'))
			return false;
		if (!p[l])
			return true;
		p += l + 1;
	}
}

/* OP_FLAG_WORDS(X) calls X(letter, word, value) per word of a flags
 * argument: C create flags, W write flags, F fallocate modes, R renameat2
 * flags. An argument is its letter's "none" word (op_flag_none) or a comma
 * list of its words; the agent ORs the values (its headers define them;
 * the host never expands them). F's words are fallocate(2)'s raw mode bits,
 * so a combination the kernel refuses (punch_hole without keep_size) is
 * the kernel's to refuse, alike on every filesystem. */
#define OP_FLAG_WORDS(X)                                                                           \
	X('C', excl, O_EXCL)                                                                       \
	X('C', trunc, O_TRUNC)                                                                     \
	X('W', append, O_APPEND)                                                                   \
	X('W', sync, O_SYNC)                                                                       \
	X('W', dsync, O_DSYNC)                                                                     \
	X('W', direct, O_DIRECT)                                                                   \
	X('F', keep_size, FALLOC_FL_KEEP_SIZE)                                                     \
	X('F', punch_hole, FALLOC_FL_PUNCH_HOLE)                                                   \
	X('F', zero_range, FALLOC_FL_ZERO_RANGE)                                                   \
	X('F', collapse_range, FALLOC_FL_COLLAPSE_RANGE)                                           \
	X('F', insert_range, FALLOC_FL_INSERT_RANGE)                                               \
	X('R', noreplace, RENAME_NOREPLACE)                                                        \
	X('R', exchange, RENAME_EXCHANGE)                                                          \
	X('R', whiteout, RENAME_WHITEOUT)

/* The word for no flags: fallocate's mode is a number in older traces. */
static inline const char *op_flag_none(char letter)
{
	return letter == 'F' ? "0" : "-";
}

static inline bool op_is_flag_letter(char letter)
{
	return letter == 'C' || letter == 'W' || letter == 'F' || letter == 'R';
}

/* The index in OP_FLAG_WORDS of `letter`'s word w[0..n), or -1. */
static inline int op_flag_word(char letter, const char *w, size_t n)
{
	static const struct {
		char letter;
		const char *word;
	} words[] = {
#define OP_FLAG_ROW(l, word, value) {l, #word},
	    OP_FLAG_WORDS(OP_FLAG_ROW)
#undef OP_FLAG_ROW
	};
	for (int i = 0; i < (int)(sizeof(words) / sizeof(words[0])); i++)
		if (words[i].letter == letter && strlen(words[i].word) == n &&
		    !strncmp(words[i].word, w, n))
			return i;
	return -1;
}

/* Whether s is a flags argument of `letter`: its none word, or a comma
 * list of its words. Each word's index goes to visit(i, ctx) when given. */
static inline bool op_flags_parse(char letter, const char *s, void (*visit)(int, void *), void *ctx)
{
	if (!strcmp(s, op_flag_none(letter)))
		return true;
	for (;;) {
		size_t l = strcspn(s, ",");
		int i = op_flag_word(letter, s, l);
		if (i < 0)
			return false;
		if (visit)
			visit(i, ctx);
		if (!s[l])
			return true;
		s += l + 1;
	}
}

static inline void op_flag_mark(int i, void *set)
{
	*(uint64_t *)set |= 1ull << i;
}

/* The words of a flags argument of `letter` as a set, bit i for word i of
 * OP_FLAG_WORDS (0: the none word; of a malformed argument, the words
 * before the fault): what takes flags compares sets, not strings. */
static inline uint64_t op_flag_set(char letter, const char *s)
{
	uint64_t set = 0;
	op_flags_parse(letter, s, op_flag_mark, &set);
	return set;
}

/* ---- the arguments of one operation ---- */

struct op_args {
	const char *path[2];  /* P and T, in order: PATH, SRC DST, or TARGET PATH */
	const char *name;     /* X: an xattr name */
	unsigned mode;	      /* M */
	uint64_t num[3];      /* N and I, in order */
	uint64_t seed;	      /* S */
	int flags;	      /* C, W, R: open(2) or renameat2 flags; F: fallocate's mode */
	struct timespec when; /* E: an instant */
	bool when_relative;   /* E was +SEC or -SEC: from the clock's now */
};

/* A decimal <= max, digits only. */
static inline bool op_parse_dec(const char *s, uint64_t max, uint64_t *v)
{
	uint64_t x = 0;
	if (!*s)
		return false;
	for (; *s; s++) {
		unsigned d = (unsigned)(*s - '0');
		if (d > 9 || x > (max - d) / 10)
			return false;
		x = x * 10 + d;
	}
	*v = x;
	return true;
}

/* An octal mode <= 07777, at most 5 digits. */
static inline bool op_parse_mode(const char *s, unsigned *mode)
{
	unsigned m = 0;
	if (!*s || strlen(s) > 5)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '7')
			return false;
		m = m * 8 + (unsigned)(*s - '0');
	}
	*mode = m;
	return m <= 07777;
}

/* An instant: @SEC[.NSEC] (SEC may be negative: "@-1.5" is 1.5 seconds
 * before the epoch, -2 s + 0.5 s) or +SEC / -SEC from the clock's now;
 * SEC below 2^62, NSEC 1 to 9 digits (a fraction). */
static inline bool op_parse_instant(const char *s, struct timespec *when, bool *relative)
{
	*relative = *s == '+' || *s == '-';
	if (*s != '@' && !*relative)
		return false;
	bool neg = *s == '-' || (s[0] == '@' && s[1] == '-');
	s += 1 + (s[0] == '@' && s[1] == '-');
	char secs[24];
	size_t n = strcspn(s, ".");
	uint64_t sec, nsec = 0;
	if (n >= sizeof(secs))
		return false;
	memcpy(secs, s, n);
	secs[n] = 0;
	if (!op_parse_dec(secs, OP_MAX_SEC, &sec))
		return false;
	if (s[n] == '.') {
		const char *f = s + n + 1;
		size_t digits = strlen(f);
		if (!digits || digits > 9 || !op_parse_dec(f, 999999999, &nsec))
			return false;
		for (; digits < 9; digits++)
			nsec *= 10;
	}
	when->tv_sec = neg ? -(time_t)sec - (nsec > 0) : (time_t)sec;
	when->tv_nsec = (long)(neg && nsec ? 1000000000 - nsec : nsec);
	return true;
}

static inline void op_or_flag(int i, void *flags)
{
	static const int values[] = {
#define OP_FLAG_VALUE(letter, word, value) value,
	    OP_FLAG_WORDS(OP_FLAG_VALUE)
#undef OP_FLAG_VALUE
	};
	*(int *)flags |= values[i];
}

/* One argument w of letter `letter` into a (np, nn: the P/T and N/I seen). */
static inline bool op_parse_arg(char letter, const char *w, struct op_args *a, int *np, int *nn)
{
	switch (letter) {
	case 'P': a->path[(*np)++ & 1] = w; return op_path_ok(w);
	case 'T': a->path[(*np)++ & 1] = w; return true;
	case 'M': return op_parse_mode(w, &a->mode);
	case 'N': return *nn < 3 && op_parse_dec(w, OP_MAX_SIZE, &a->num[(*nn)++]);
	case 'I': return *nn < 3 && op_parse_dec(w, OP_MAX_ID, &a->num[(*nn)++]);
	case 'S': return op_parse_dec(w, ~0ull, &a->seed);
	case 'E': return op_parse_instant(w, &a->when, &a->when_relative);
	case 'X': a->name = w; return true;
	default:
		a->flags = 0;
		return op_is_flag_letter(letter) &&
		       op_flags_parse(letter, w, op_or_flag, &a->flags);
	}
}

/* The n words w[0..n) as the arguments of an operation of `letters`: true
 * when there is one per letter and each parses. a is cleared first. */
static inline bool op_parse_args(const char *letters, char *const *w, int n, struct op_args *a)
{
	int np = 0, nn = 0;
	memset(a, 0, sizeof(*a));
	if ((size_t)n != strlen(letters))
		return false;
	for (int i = 0; i < n; i++)
		if (!op_parse_arg(letters[i], w[i], a, &np, &nn))
			return false;
	return true;
}

#endif
