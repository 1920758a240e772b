/* op_grammar.h - the pieces of the operation grammar that the guest agent
 * (guest/agent/check.c, which parses and runs operations) and the host
 * (src/check/op_check.c, which refuses a malformed operation in a trace as
 * bad input before it reaches the guest) must read alike: one copy, so the
 * two cannot drift. Header-only and libc-only, since the agent is a static
 * riscv64 program built apart (scripts/build-initramfs.sh hashes this file
 * with the agent's sources). */
#ifndef THEMIS_OP_GRAMMAR_H
#define THEMIS_OP_GRAMMAR_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

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

#endif
