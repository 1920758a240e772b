/* rules.h - the documented differences between filesystems, read from one
 * plain file per filesystem (rules/FS.rules, and rules/common.rules for
 * what applies to every one; docs/rules.md is the syntax), so a user sees
 * and extends what the checker accepts instead of finding it hard-coded.
 *
 * Five kinds of rule, each with a reason and a source:
 *   unsupported OP...        the filesystem cannot do these operations:
 *                            they are left out of a run it is in; an
 *                            OP:WORD,... refuses only the calls with one
 *                            of these flag words (fallocate:collapse_range:
 *                            op_grammar.h's OP_FLAG_WORDS);
 *   ignore FIELD...          it cannot represent these fingerprint fields:
 *                            the agent leaves them out (`ignore`);
 *   errno OP,...|any E E...  where POSIX lets it choose, it answers one of
 *                            these errnos: any two of them are one answer;
 *   times OP,... TIME...     under --time, where POSIX lets it choose
 *                            whether an operation that left the file's size
 *                            as it was stamps these times (atime, mtime,
 *                            ctime) of the path it names, it does or does
 *                            not: they may differ there from then on.
 *   refuses OP[:WORD,...] E...
 *                            a limitation that depends on the state: it
 *                            may fail these calls with these errnos where
 *                            others succeed (reiserfs's direct I/O onto a
 *                            packed tail); such a state is no discrepancy,
 *                            and nothing below it is explored (its
 *                            filesystems no longer hold the same files).
 *
 * A run loads the rules of its filesystems once, before any fork, and
 * every check reads them through check_machine.rules (NULL: no rules);
 * the rules lens (src/lens/lens_rules.c) counts what each one masked. */
#ifndef THEMIS_RULES_H
#define THEMIS_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ops.h"
#include "../proto/rule_fields.h"

enum rule_field {
#define RULE_FIELD_ENUM(name) RULE_FIELD_##name,
	RULE_FIELDS(RULE_FIELD_ENUM)
#undef RULE_FIELD_ENUM
	    RULE_NFIELDS
};

/* The kinds of rule, the one list: X(ENUM, head word). */
#define RULE_KINDS(X)                                                                              \
	X(UNSUPPORTED, unsupported)                                                                \
	X(IGNORE, ignore) X(ERRNO, errno) X(TIMES, times) X(REFUSES, refuses)

enum rule_kind {
#define RULE_KIND_ENUM(e, word) RULE_##e,
	RULE_KINDS(RULE_KIND_ENUM)
#undef RULE_KIND_ENUM
	    RULE_NKINDS
};

/* The times a `times` rule names (bits of rule.times). */
#define RULE_TIME_NAMES(X) X(atime) X(mtime) X(ctime)

#define RULES_MAX	  96 /* rules of one run's filesystems together (one lens word each) */
#define RULE_ERRNOS_MAX	  4
#define RULE_TEXT_MAX	  160
#define RULE_WORDS_MAX	  512
#define RULES_PATH_MAX	  4096
#define RULES_COMMON_NAME "common"

#define RULE_REFUSALS_MAX 4 /* OP:WORD,... tokens of one unsupported rule */

/* Flag words an operation refuses: `words` of its flags argument `letter`. */
struct rule_refusal {
	int op;
	char letter;
	char words[64]; /* comma list, as written */
	uint64_t set;	/* the same, as op_flag_set */
};

struct rule {
	enum rule_kind kind;
	char fs[16];		  /* whose file ("common": every filesystem's) */
	char where[48];		  /* FILE:LINE of its head, "vfat.rules:12" */
	char text[RULE_TEXT_MAX]; /* the head as written, spaces squeezed */
	uint32_t ops; /* unsupported: the operations; errno, times, refuses: its scope */
	struct rule_refusal refusals[RULE_REFUSALS_MAX]; /* unsupported, refuses: OP:WORD,... */
	int nrefusals;
	unsigned fields; /* ignore: bits of RULE_FIELDS */
	unsigned times;	 /* times: bits of RULE_TIME_NAMES */
	char errnos[RULE_ERRNOS_MAX][16];
	int nerrnos;
	char reason[RULE_WORDS_MAX], source[RULE_WORDS_MAX];
};

struct rules {
	char dir[RULES_PATH_MAX]; /* where they were read from */
	int n;
	struct rule r[RULES_MAX];
	/* XXH3-64 of what decides a run (kinds, filesystems, arguments; not
	 * reasons, sources or comments): a trace records it. */
	uint64_t hash;
	/* Operations a run wanted and its unsupported rules left out, whole
	 * or some of their calls (set by explore before it forks; the lens
	 * counts them). */
	uint32_t dropped;
};

/* The rules folder of this build: rules/ beside the themis binary's
 * folder (build/themis, build/asan/themis), else ./rules. */
void rules_default_dir(char *out, size_t cap);

/* Load dir/common.rules (if present) and dir/FS.rules for each distinct
 * filesystem of fs[0..nfs) into r. 0, or -1 with err naming FILE:LINE
 * (a syntax error, an unknown name, a rule without reason or source) or
 * the missing file. */
int rules_load(struct rules *r, const char *dir, const char *const *fs, int nfs, char *err,
	       size_t errlen);

/* Parse one file's text, its rules belonging to `fs`, appended to r
 * (name: the file's name in messages). 0, or -1 with err "NAME:LINE: ...". */
int rules_parse(struct rules *r, const char *fs, const char *name, const char *text, char *err,
		size_t errlen);
/* Compute r->hash over the rules read (rules_load does). */
void rules_rehash(struct rules *r);

/* The refuses rule that lets filesystem fs fail the operation `text`
 * with errno err, or -1. */
int rules_refusal_rule(const struct rules *r, const char *fs, const char *text, const char *err);

/* The first times rule naming op kind k that applies to one of fs[0..nfs),
 * or -1. */
int rules_times_rule(const struct rules *r, const char *const *fs, int nfs, int k);
/* Whether a dump field ("mtime=...") is a time times-bits name. */
bool rules_time_field(unsigned times, const char *field);

/* Whether rule i applies to filesystem fs (its own or common). */
bool rules_apply_to(const struct rules *r, int i, const char *fs);

/* The operations fs cannot do (OPB bits; 0 for NULL rules). */
uint32_t rules_unsupported(const struct rules *r, const char *fs);
/* The first unsupported rule of fs naming op kind k, or -1. */
int rules_unsupported_rule(const struct rules *r, const char *fs, enum op_kind k);
/* The operations of which fs refuses some flag words (OP:WORD rules). */
uint32_t rules_refusing(const struct rules *r, const char *fs);
/* Whether fs takes every flag word of the operation `text` ("op
 * renameat2 f0 f1 exchange"; true for NULL rules). */
bool rules_takes(const struct rules *r, const char *fs, const char *text);
/* Keep of ops[0..n) those every one of fs[0..nfs) takes (rules_takes),
 * in order; returns how many. */
int rules_filter(const struct rules *r, const char *const *fs, int nfs, struct op *ops, int n);

/* The fields left out of the fingerprints of a run of fs[0..nfs) (their
 * ignore rules together), as the agent's `ignore` list ("mode,nlink"),
 * "-" for none, into out. */
void rules_ignore_list(const struct rules *r, const char *const *fs, int nfs, char *out,
		       size_t cap);

/* The errno rule that makes answer ea of fs_a and eb of fs_b to operation
 * kind k one answer (a rule of fs_a, fs_b or common naming both), or -1.
 * Equal errnos need none (-1). */
int rules_errno_match(const struct rules *r, int k, const char *fs_a, const char *ea,
		      const char *fs_b, const char *eb);

const char *rule_kind_name(enum rule_kind k);
/* The names of RULE_FIELDS bits set in fields, comma-separated. */
void rules_field_names(unsigned fields, char *out, size_t cap);

#endif
