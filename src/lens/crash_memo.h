/* crash_memo.h - what a crash disk recovered to, remembered by the crash
 * disk's content, so src/lens/crash.c asks the guest once per content.
 *
 * A filesystem's recovery reads nothing but its disk: the same crash
 * content recovers to the same tree, the same checker verdict and the same
 * repeatable recovery, whatever path of operations left it. An exploration
 * meets the same crash content again and again: an operation that sent a
 * disk nothing leaves its parent's end there, a subset of an epoch that
 * keeps none of its writes is the epoch's start, and writes to distinct
 * blocks kept in another order make the same bytes. (explore ext4 xfs
 * --crash --depth 2: 72% of the crashed disks had a content met before.)
 *
 * The crashes of a recovery (crash.c) are looked up too, and remembered
 * with only the tree they recovered to.
 *
 * Only clean recoveries are remembered: the disk mounted and, where that
 * was asked, recovered again to the same state. Anything a finding comes
 * from is recovered anew each time it is met, so every finding is shown
 * from its own run in the guest. A slot is kept per key hash bucket; a
 * newer entry replaces an older one in its bucket. */
#ifndef THEMIS_CHECK_CRASH_MEMO_H
#define THEMIS_CHECK_CRASH_MEMO_H

#include <stdbool.h>
#include <stdint.h>

#define CRASH_MEMO_SLOTS 4096

/* One crash content's recovery. */
struct crash_memo_entry {
	uint8_t key[16]; /* disk_private_key of the crash disk, salted by its index */
	bool used;
	bool nested;	 /* the recovery was crashed again and repeated */
	bool fsck;	 /* the checker judged the recovered disk: verdict, said */
	uint8_t fp[16];	 /* the recovered tree's fingerprint */
	uint8_t verdict; /* enum corrupt_fsck_verdict */
	char said[160];
	char *dump; /* the recovered disk's "e I ..." lines (NULL: not read) */
};

struct crash_memo {
	struct crash_memo_entry *slot; /* CRASH_MEMO_SLOTS, made at the first put */
	bool off;		       /* remember nothing: every crash recovered in the guest */
	/* Recover in the guest even what the memo answers, and fail the crash
	 * where the two differ: the test of the memo's premise. */
	bool check;
	uint64_t hits, misses; /* crashed disks answered here, recovered in the guest */
	uint64_t nested_hits;  /* crashes of recoveries answered here */
};

/* The entry for key, if it holds at least what is asked: a recovery
 * crashed again (nested), the checker's verdict (fsck), the dump lines
 * (dump). NULL otherwise, or when the memo is off. */
const struct crash_memo_entry *crash_memo_find(const struct crash_memo *c, const uint8_t key[16],
					       bool nested, bool fsck, bool dump);

/* Remember e (its key, flags and fields; the dump copied). 0, or -1 when
 * there is no memory for it (nothing is remembered, nothing is lost). */
int crash_memo_put(struct crash_memo *c, const struct crash_memo_entry *e);

void crash_memo_free(struct crash_memo *c);

#endif
