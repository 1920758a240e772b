/* ops.h - the model checker's operations: what the guest agent applies to
 * every filesystem under test, their argument pools (Metis-style: a small
 * path pool, power-of-two sizes and their +-1 neighbours, small sets of
 * modes, owners and flags), and the filesystems the checker knows.
 *
 * An operation travels as the agent's command text ("op write f0 4096 1 3 -"),
 * which is also what a trace stores, so a trace replays exactly what ran. */
#ifndef THEMIS_OPS_H
#define THEMIS_OPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../fs/fs.h"
#include "../proto/op_table.h"

enum op_kind {
#define OP_ENUM(e, name, letters, args, flags, example) OP_##e,
	OP_TABLE(OP_ENUM)
#undef OP_ENUM
	    OP_NKINDS
};

#define OP_ALL_MASK ((1u << OP_NKINDS) - 1)
_Static_assert(OP_NKINDS <= 32, "operation masks are 32 bits");

#define OP_TEXT_MAX 192

struct op {
	enum op_kind kind;
	char text[OP_TEXT_MAX]; /* the agent command, "op NAME ARGS..." */
};

const char *op_name(enum op_kind k);
/* The kind's argument letters and names, and OPF_* flags (op_table.h). */
const char *op_letters(enum op_kind k);
const char *op_args(enum op_kind k);
unsigned op_flags(enum op_kind k);
/* The table's example of the kind, without "op" ("chmod f0 0600"). */
const char *op_example(enum op_kind k);
/* The operations with OPF_SCOPE: what explore tries by default. */
uint32_t op_scope_mask(void);
/* The operations with the OPF_* flag `flag` (OPF_TIME: what --time adds). */
uint32_t op_flag_mask(unsigned flag);
/* The known names, comma-separated, for messages ("create, write, ..."). */
const char *op_names_list(void);
/* The kind of an agent command text ("op NAME ..."), or -1. */
int op_kind_of_text(const char *text);
/* Whether an agent command text is one the agent runs: its kind known and
 * its arguments as its letters say (op_table.h). 0, or -1 with why. */
int op_text_check(const char *text, char *why, size_t whylen);

/* Parse a comma list of operation names into a mask; -1 with the bad name
 * in *bad on error. "all" is every operation of the table; "scope" those
 * explore tries by default. */
int64_t op_mask_parse(const char *list, const char **bad, int *badlen);

/* The argument pools. Paths are relative to each filesystem's test root. */
#define OP_POOL_MAX 32
struct op_pools {
	const char *files[OP_POOL_MAX], *dirs[OP_POOL_MAX];
	int nfiles, ndirs;
	unsigned long sizes[OP_POOL_MAX]; /* offsets and lengths; 0 entries: pow2 bins */
	int nsizes;
};

/* The default pools: files f0..f2 and directories d0, d1 at the root and
 * in d0 (Metis: 3 files and 2 directories a level, 2 levels); sizes from
 * power-of-two bins and their +-1 neighbours. */
void op_pools_default(struct op_pools *p);
/* Replace the paths with a comma list (a trailing '/' marks a directory)
 * or the sizes with a comma list of numbers. -1 if malformed. */
int op_pools_set_paths(struct op_pools *p, char *list);
int op_pools_set_sizes(struct op_pools *p, const char *list);

/* What exists at a node (from the agent's dump): the generator prefers
 * existing paths for operations on them and absent paths whose parent
 * exists for create, mkdir and the targets of rename, link and symlink, so
 * few candidates are wasted on ENOENT. */
struct op_view {
	char files[OP_POOL_MAX][64], dirs[OP_POOL_MAX][64];
	int nfiles, ndirs;
};

/* A random operation of a kind in `mask`, from the pools (view may be NULL). */
void op_generate(uint64_t *rng, uint32_t mask, const struct op_pools *p, const struct op_view *view,
		 struct op *out);

/* Every operation of a kind in `mask` over the pools, with the other
 * arguments at their first pool value (modes 0644/0755, no flags, sync and
 * not for writes), or, for a kind with no case of its own in ops.c, its
 * table example's (chmod 0600, owner 1000, xattr user.a of 16 bytes), the kinds
 * interleaved round robin: the exhaustive search's candidates at a node.
 * With a view, candidates bound to fail with ENOENT (a source that does
 * not exist, a destination whose parent does not) are left out but one
 * per kind. Returns how many (at most max) were written. */
int op_enumerate(uint32_t mask, const struct op_pools *p, const struct op_view *view,
		 struct op *out, int max);

/* Simplicity, the minimizer's order (minimize.c), defined here once: of
 * two kinds of operation the one earlier in op_table.h is the simpler; of
 * an argument's values, the one earlier in the bin its letter draws from
 * (the pools above, the generator's lists): paths in the pools' order
 * (files, then directories), numbers (N, S) the smaller, modes, owners,
 * flags and xattr names in the generator's order, whose first is the
 * default. An instant (E) has no simpler value: which instant is the test.
 *
 * The rank of `value` among its letter's values (0: the simplest). A value
 * outside the bin ranks after every value of it (a number, after every
 * smaller one). */
int op_value_rank(char letter, const struct op_pools *p, const char *value);
/* The value of rank `rank` of a letter's bin into out: 0, or -1 past its end. */
int op_value_at(char letter, const struct op_pools *p, int rank, char *out, size_t cap);

/* splitmix64: the checker's only source of randomness (seeded). */
uint64_t op_rng_next(uint64_t *state);

#endif
