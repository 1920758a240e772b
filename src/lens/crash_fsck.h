/* crash_fsck.h - the filesystems' own checkers on a machine's disks,
 * cheap enough to run on every crash state (src/lens/crash.c) and every
 * explored state (explore --fsck, src/lens/lens_fsck.c).
 *
 * Three savings over saving the whole disk and checking it each time
 * (corrupt_fsck_disk):
 *   - a memo of verdicts keyed by the content as the checker judges it
 *     (fsck_key.h: times, generations, checksums, log positions and free
 *     space masked), so a disk that differs from an earlier one only in
 *     what a history stamped on it is not checked again; the key hashes
 *     only the disk's private chunks (the base is the same for every
 *     crash of a run), so taking it costs O(chunks written);
 *   - one scratch image per disk, a copy of its base made once, brought
 *     to each crash disk's content by rewriting only the chunks that
 *     differ from the base now or did last time;
 *   - the checkers of one machine's disks run side by side (each disk has
 *     its own scratch image and output), not one after the other.
 * A checker's run still reads the whole image: that is its own cost. */
#ifndef THEMIS_CHECK_CRASH_FSCK_H
#define THEMIS_CHECK_CRASH_FSCK_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "../disk/disk.h"
#include "corrupt_fsck.h"

#define CRASH_FSCK_SLOTS     4096
#define CRASH_FSCK_MAX_DISKS 8

/* How verdicts are remembered: X(NAME, word) per mode, the first the
 * default; the words are --fsck-memo's. */
#define CRASH_FSCK_MEMOS(X)                                                                        \
	X(MASKED, "on")	  /* keyed by fsck_key: what a checker judges */                           \
	X(EXACT, "exact") /* keyed by the bytes */                                                 \
	X(OFF, "off")	  /* none: the checker every time (the memo's benchmark) */                \
	X(CHECK, "check") /* masked, and the checker run anyway wherever the masked key answers    \
			     and the bytes would not have: a verdict that differs is counted */

enum crash_fsck_memo {
#define CRASH_FSCK_MEMO_ENUM(name, word) CRASH_FSCK_MEMO_##name,
	CRASH_FSCK_MEMOS(CRASH_FSCK_MEMO_ENUM)
#undef CRASH_FSCK_MEMO_ENUM
};

/* The mode named by word (--fsck-memo's), or -1. */
int crash_fsck_memo_parse(const char *word);

struct crash_fsck {
	struct crash_fsck_entry {
		/* A disk's key: its bytes' (disk_private_key) or its masked
		 * one (fsck_key), both salted by its index; they never meet. */
		uint8_t key[16];
		uint8_t exact[16]; /* the bytes' key of the disk judged */
		uint8_t used, verdict;
		char said[160];
	} e[CRASH_FSCK_SLOTS];
	struct crash_scratch {
		char path[4096]; /* "" until made */
		int fd;
		pid_t pid;	 /* the process that made it: a worker forked later makes its own */
		uint64_t *dirty; /* chunks that differ from the base in the file */
		uint64_t ndirty;
	} scratch[CRASH_FSCK_MAX_DISKS];
	double timeout;		   /* seconds a checker may take */
	enum crash_fsck_memo memo; /* how verdicts are remembered */
	struct crash_fsck_counts {
		uint64_t runs, hits;
		uint64_t masked_hits; /* of the hits, those the bytes would have missed */
		uint64_t checked;     /* the check mode: checker runs on such hits, */
		uint64_t mismatches;  /* and verdicts that differed from the memo's */
	} n;
};

/* A zeroed struct crash_fsck is ready; set timeout. */

/* One disk to judge: disk index i of filesystem fs; clean: the kernel
 * unmounted it without an error (its log and journal say so), which the
 * masked key needs, else the disk is keyed by its bytes. Out: the
 * checker's verdict and its first line naming a problem. */
struct crash_fsck_ask {
	const struct disk *d;
	int i;
	const char *fs;
	bool clean;
	enum corrupt_fsck_verdict verdict;
	char said[160];
};

/* The verdicts of n disks (at most CRASH_FSCK_MAX_DISKS) of one machine:
 * each from the memo or by its checker, the checkers of all the disks
 * that need one started before any is waited for, so they run side by
 * side. */
void crash_fsck_disks(struct crash_fsck *c, struct crash_fsck_ask *a, int n);

/* Remove the scratch images and free what they held. */
void crash_fsck_free(struct crash_fsck *c);

#endif
