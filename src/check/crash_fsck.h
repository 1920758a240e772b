/* crash_fsck.h - the filesystem's own checker on crash-recovered disks,
 * cheap enough to run on every crash state (src/check/crash.c).
 *
 * Two savings over saving the whole disk and checking it each time
 * (corrupt_fsck_disk):
 *   - a memo of verdicts keyed by the content, so a recovery that leaves
 *     the same bytes as an earlier one is not checked again; the key
 *     hashes only the disk's private chunks (the base is the same for
 *     every crash of a run), so taking it costs O(chunks written);
 *   - one scratch image per disk, a copy of its base made once, brought
 *     to each crash disk's content by rewriting only the chunks that
 *     differ from the base now or did last time.
 * A checker's run still reads the whole image: that is its own cost. */
#ifndef THEMIS_CHECK_CRASH_FSCK_H
#define THEMIS_CHECK_CRASH_FSCK_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "../disk/disk.h"
#include "../lens/corrupt_fsck.h"

#define CRASH_FSCK_SLOTS     1024
#define CRASH_FSCK_MAX_DISKS 8

struct crash_fsck {
	struct crash_fsck_entry {
		uint8_t key[16]; /* XXH3-128 of the disk index and its private chunks */
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
	double timeout; /* seconds a checker may take */
	bool no_memo;	/* run the checker every time (the memo's benchmark) */
	uint64_t runs, hits;
};

/* A zeroed struct crash_fsck is ready; set timeout. */

/* The checker's verdict on disk index i (filesystem fs), its first line
 * naming a problem into said. */
enum corrupt_fsck_verdict crash_fsck_disk(struct crash_fsck *c, const struct disk *d, int i,
					  const char *fs, char *said, size_t saidlen);

/* Remove the scratch images and free what they held. */
void crash_fsck_free(struct crash_fsck *c);

#endif
