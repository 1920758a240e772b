/* corrupt.h - one bit below the filesystem (`themis corrupt`): flip a bit
 * of a chosen on-disk structure and measure the blast radius against the
 * bit-exact unflipped counterfactual.
 *
 * Per filesystem, one machine: boot with its disk, populate it (the tree
 * of profile.h: f0, d0/f1 of known contents, d0, e0, an xattr; and 24
 * empty files e0/g00..g23 and, where the filesystem has them, a symlink
 * l0), sync and unmount, so the disk holds a clean state. The layout map (layout.h) and
 * the field map (fields.h) of that state locate the targets
 * (corrupt_target.h). The counterfactual, once: in a fork, mount and dump
 * the tree (every entry's metadata and the hash of every file's contents
 * read back). Then per flip, in a fork of the clean state:
 *   1. one bit is written into the disk's copy-on-write overlay (the base
 *      image is never written: disk.h);
 *   2. the filesystem's own checker runs read-only on the same content
 *      exported to a scratch file, on the host, while
 *   3. the guest mounts the disk (the block cache dropped first) and dumps
 *      the tree;
 *   4. the fork is thrown away.
 * The outcome, from the most to the least severe (the first that holds):
 *   kernel-failure     the guest panicked, hung (caught by the per-command
 *                      instruction budget: virtual time), or printed an
 *                      oops or BUG; the machine is restored and the run
 *                      goes on; --at replays it;
 *   unmountable        the mount failed;
 *   error-returned     some entry's stat, read, readlink, listing or xattrs
 *                      failed (EIO, EUCLEAN...) where the counterfactual's
 *                      did not;
 *   entries-lost       entries of the counterfactual are missing, with no
 *                      error returned;
 *   silent-wrong-data  every call succeeded and something differs: a
 *                      file's contents, a size, a mode, a link count...;
 *   fsck-only          the tree reads back identical, and the checker
 *                      found errors (its verdict on the counterfactual
 *                      being clean);
 *   none               no effect seen.
 * The kernel runs at loglevel 5: its warnings about the flip that the
 * counterfactual's mount did not print are kept with each flip ("kernel"),
 * and counted apart in the summary (a warning in a log alone tells no
 * caller). The sweep's summary sets the checksummed layouts against the
 * others: of the flips with an effect, the share detected (an error
 * returned, a refused mount, the checker) and the share silent. */
#ifndef THEMIS_CORRUPT_H
#define THEMIS_CORRUPT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "../check/check.h"
#include "../lens/corrupt_fsck.h"
#include "corrupt_target.h"

/* The outcomes, once, from the most severe: X(NAME, text). */
#define CORRUPT_OUTCOMES(X)                                                                        \
	X(KERNEL, "kernel-failure")                                                                \
	X(UNMOUNTABLE, "unmountable")                                                              \
	X(ERROR, "error-returned")                                                                 \
	X(LOST, "entries-lost")                                                                    \
	X(SILENT, "silent-wrong-data")                                                             \
	X(FSCK_ONLY, "fsck-only")                                                                  \
	X(NONE, "none")

enum corrupt_outcome {
#define CORRUPT_OUTCOME_ENUM(name, text) CORRUPT_##name,
	CORRUPT_OUTCOMES(CORRUPT_OUTCOME_ENUM)
#undef CORRUPT_OUTCOME_ENUM
	    CORRUPT_NOUTCOMES
};

const char *corrupt_outcome_name(enum corrupt_outcome o);

#define CORRUPT_DETAIL_MAX 200

/* One flip and what came of it. */
struct corrupt_flip {
	char fs[16];
	char structure[CORRUPT_NAME_MAX]; /* the class asked for (--at: the layout's name) */
	char field[CORRUPT_NAME_MAX];	  /* the record's field the bit lies in, or "" */
	uint64_t lba;			  /* 512-byte sector */
	unsigned byte, bit;		  /* within the sector; bit 0 is the least significant */
	enum corrupt_outcome outcome;
	enum corrupt_fsck_verdict fsck;
	int fsck_status;		    /* the checker's exit status, -1 none */
	char fsck_said[CORRUPT_DETAIL_MAX]; /* its first line naming a problem */
	char detail[CORRUPT_DETAIL_MAX];    /* the first difference, or the mount's errno */
	char kernel[CORRUPT_DETAIL_MAX];    /* the kernel's first line (warning or worse; the
					       failure, if one) the counterfactual did not print */
	/* A kernel failure's report: the report it opened (splat.h), its
	 * lines as printed, each frame with its source line on a debug
	 * kernel (kline.h); for a failure that opened none (a hang, a
	 * panic without one) the failure's whole line, where the hart spun
	 * included; NULL otherwise. Owned: corrupt_free frees it. */
	char *report;
};

/* What to flip: one of at, target, sweep. */
struct corrupt_config {
	struct check_machine m; /* every filesystem; each runs in a machine of its own */
	const char *target;	/* STRUCT[:FIELD], or NULL */
	bool sweep;		/* every structure class of every filesystem */
	bool at;		/* the one place below (a single filesystem) */
	uint64_t at_lba;
	unsigned at_byte, at_bit;
	int bits; /* flips per target or class */
	uint64_t seed;
	uint64_t budget;     /* instructions a flip's mount or walk may take (0: the checker's) */
	double fsck_timeout; /* seconds */
	bool progress;	     /* a line per flip on stderr */
	const char *save;    /* --at: the flipped disk, as the guest mounts it, saved here */
};

struct corrupt_result {
	struct corrupt_flip *f;
	int n, cap;
	int nfs;
	char fs[CHECK_MAX_FS][16];
	bool csum[CHECK_MAX_FS];			   /* a checksummed layout */
	enum corrupt_fsck_verdict base_fsck[CHECK_MAX_FS]; /* on the counterfactual */
	char base_said[CHECK_MAX_FS][CORRUPT_DETAIL_MAX];
	uint64_t budget; /* the flips' instruction budget, for the replay line */
	double seconds;	 /* host time of the flips (boots and populating excluded) */
	double setup_seconds;
};

/* Check the configuration against each filesystem's base image before any
 * machine boots (an unknown structure or field): 0, or -1 with a reason. */
int corrupt_validate(const struct corrupt_config *cfg, char *err, size_t errlen);

/* Run every flip. 0; -1 with err when a machine could not be set up (the
 * boot, populating, an image) or a target is absent from the image. A
 * guest that fails on a flipped disk is an outcome, not an error. */
int corrupt_run(const struct corrupt_config *cfg, struct corrupt_result *r, char *err,
		size_t errlen);
void corrupt_free(struct corrupt_result *r);

/* Compare a dump of the tree with the counterfactual's (the agent's "e I
 * RECORD" lines): the outcome among error-returned, entries-lost,
 * silent-wrong-data and none, with the first difference in detail. */
enum corrupt_outcome corrupt_classify_tree(const char *base, const char *flipped, char *detail,
					   size_t detaillen);

/* Whether a console line is the kernel failing (oops, BUG, panic...). */
bool corrupt_kernel_line(const char *line);

/* Whether fs's layout checksums its metadata (ext4 with metadata_csum,
 * xfs v5, btrfs, f2fs; nilfs2, whose every log segment carries a crc32 of
 * its summary and of its payload), given its field map's csum flag. */
bool corrupt_checksummed(const char *fs, bool fields_csum);

void corrupt_print(const struct corrupt_result *r, FILE *f);
/* A list of flips: {fs, structure, field, lba, byte, bit, outcome, fsck,
 * fsck_status, fsck_said, detail, kernel}. */
void corrupt_json(const struct corrupt_result *r, FILE *f);
/* DIR/corrupt-spectrum.svg: per filesystem and structure, a bar of the
 * outcomes' counts. 0, or -1 with err. */
int corrupt_svg(const struct corrupt_result *r, const char *dir, char *err, size_t errlen);

#endif
