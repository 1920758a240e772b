/* ops.h - the model checker's operations: what the guest agent applies to
 * every filesystem under test, their argument pools (Metis-style: a small
 * path pool, power-of-two sizes and their +-1 neighbours, small sets of
 * modes, owners and flags), and which filesystem supports which.
 *
 * An operation travels as the agent's command text ("op write f0 4096 1 3 -"),
 * which is also what a trace stores, so a trace replays exactly what ran. */
#ifndef THEMIS_OPS_H
#define THEMIS_OPS_H

#include <stdbool.h>
#include <stdint.h>

enum op_kind {
	OP_CREATE,
	OP_WRITE,
	OP_TRUNCATE,
	OP_UNLINK,
	OP_MKDIR,
	OP_RMDIR,
	OP_CHMOD,
	OP_CHOWN,
	OP_CHGRP,
	OP_SETXATTR,
	OP_REMOVEXATTR,
	OP_RENAME,
	OP_LINK,
	OP_SYMLINK,
	OP_FSYNC,
	OP_FALLOCATE,
	OP_REMOUNT,
	OP_NKINDS
};

#define OP_TEXT_MAX 192

struct op {
	enum op_kind kind;
	char text[OP_TEXT_MAX]; /* the agent command, "op NAME ARGS..." */
};

const char *op_name(enum op_kind k);
/* The kind named `name`, or -1. */
int op_kind_by_name(const char *name);
/* The kind of an agent command text ("op NAME ..."), or -1. */
int op_kind_of_text(const char *text);

/* Parse a comma list of operation names into a mask; -1 with the bad name
 * in *bad on error. "all" is every operation. */
int64_t op_mask_parse(const char *list, const char **bad, int *badlen);

/* The operations filesystem `fs` supports (known names only: see
 * fs_known). vfat cannot chown or link, ext2 cannot fallocate... */
uint32_t fs_supported_ops(const char *fs);
bool fs_known(const char *fs);

/* A random operation of a kind in `mask`, from the argument pools. */
void op_generate(uint64_t *rng, uint32_t mask, struct op *out);

/* splitmix64: the checker's only source of randomness (seeded). */
uint64_t op_rng_next(uint64_t *state);

#endif
