/* profile.h - per-operation I/O profiles (`themis profile`): what each
 * operation costs the disk below each filesystem, measured from the disk's
 * request log (disk.h) in forks of one populated machine, and named by the
 * layout map (layout.h) of the disk as the operation left it.
 *
 * For every operation, from the populated state:
 *   written: fork, run the operation, syncfs, and take every sector the
 *            disk was asked to write (the operation's and its sync's);
 *   read:    fork, unmount and mount (the mount's reads are the baseline,
 *            reported apart), run the operation, and take the sectors read
 *            cold: a filesystem with no cache left;
 *   amplification: sectors written x 512 / the bytes the call asked to
 *            write (writes only). */
#ifndef THEMIS_PROFILE_H
#define THEMIS_PROFILE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "../check/check.h"
#include "../format/layout.h"

#define PROFILE_MAX_RUNS 64 /* coalesced LBA ranges kept per measure */

struct profile_run {
	uint64_t lba, count;
	char structure[32];
};

struct profile_io {
	uint64_t sectors;
	int nruns;
	struct profile_run runs[PROFILE_MAX_RUNS];
	bool truncated; /* more ranges than kept */
};

/* One operation on one filesystem. */
struct profile_entry {
	char fs[16];
	char op[OP_TEXT_MAX];
	enum op_kind kind;
	uint64_t bytes; /* asked to write (write), else 0 */
	long long ret;
	char err[24];
	struct profile_io written, read;
};

struct profile_result {
	int nfs;
	char fs[CHECK_MAX_FS][16];
	uint64_t mount_baseline[CHECK_MAX_FS]; /* sectors the remount read */
	struct layout map[CHECK_MAX_FS];       /* each disk after the populate step */
	struct profile_entry *e;
	int n, cap;
	double seconds; /* host time of the measures, for the cost per operation */
};

/* The operations profiled by default over the populated tree (f0 8 KiB,
 * d0/f1 64 KiB, d0 and an empty e0, an xattr user.a on f0): one of every
 * kind in `mask` plus, for write, one per size in sizes[] (default: every
 * power of two from 1 B to 1 MiB). Returns how many, into ops. */
int profile_ops(uint32_t mask, const unsigned long *sizes, int nsizes, struct op *ops, int max);

/* A machine booted from m with the populated state (see profile_ops) on
 * every disk: what the profile and the semantics lens (semantics.h) start
 * from. NULL with err (the boot failed, or an operation of the populate
 * step failed on some filesystem); the caller virt_free()s and free()s it. */
struct virt *profile_machine(const struct check_machine *m, char *err, size_t errlen);

/* Boot m, populate, and measure ops on every filesystem. 0, or -1 with err. */
int profile_run(const struct check_machine *m, const struct op *ops, int nops,
		struct profile_result *r, char *err, size_t errlen);
void profile_free(struct profile_result *r);

void profile_print(const struct profile_result *r, FILE *f);
/* A list of {fs, op, bytes, sectors_written, sectors_read, written: [{lba,
 * count, structure}], read: [...]}, plus the mount baselines. */
void profile_json(const struct profile_result *r, FILE *f);
/* The same object's members alone ("mount_baseline": ..., "profile": [...],
 * without braces or a final newline), for a caller adding members of its
 * own. */
void profile_json_members(const struct profile_result *r, FILE *f);
/* amplification.svg (the write curve, one line per filesystem) and
 * layout-FS.svg (the disk as a strip of structures, with each operation's
 * writes overlaid: the paper's Figure 4). 0, or -1 with err. */
int profile_svg(const struct profile_result *r, const char *dir, char *err, size_t errlen);

#endif
