/* crash_replay.h - a filesystem whose kernel does not replay its own log:
 * the user-space step of its recovery, run on the host on a crash disk
 * before the guest mounts it (src/lens/crash.c).
 *
 * jfs is the one: Linux mounts a jfs whose superblock says it was not
 * unmounted only read-only (fs/jfs/jfs_mount.c, chkSuper: "File System
 * Dirty", EINVAL); its log is replayed by jfs_fsck (logredo), which a
 * distribution runs at boot before the mount. Themis runs the same step,
 * `jfs_fsck --replay_journal_only`, on a scratch copy of the crash disk
 * and writes the chunks it changed back into the disk (host writes: not
 * in the disk's write log, so a crash of the recovery crashes the
 * kernel's writes, and the replay runs again after it, as at a reboot).
 * The tool sees only the disk's bytes, and the replay writes no time:
 * the same crash disk replays to the same bytes (tests/test_crash.sh). */
#ifndef THEMIS_CHECK_CRASH_REPLAY_H
#define THEMIS_CHECK_CRASH_REPLAY_H

#include <stddef.h>
#include <sys/types.h>

#include "../disk/disk.h"

/* The replay's command for fs as one line, or NULL when fs's kernel
 * recovers on its own (every filesystem but jfs). */
const char *crash_replay_command(const char *fs);

/* A scratch image of one disk, for its replays: made once per process
 * (the base's bytes, in a file the tool opens by this process's
 * descriptor, mapped here), then brought to each crash disk's content by
 * the chunks where the two may differ, and read back through the map: a
 * replay moves what changed, not the whole disk. Zeroed: not made yet. */
struct crash_replay_scratch {
	uint8_t *map; /* the file, mapped shared; NULL until made */
	uint64_t size;
	int fd;
	pid_t pid;	 /* the process that made it: a worker forked later makes its own */
	uint64_t *dirty; /* bitmap: chunks where the file may differ from the base */
	uint64_t *data;	 /* bitmap: chunks of the file that hold data (scratch_data) */
	char path[64];	 /* /proc/PID/fd/FD */
};

/* Replay fs's log on d's content, in place (the caller's fork level),
 * through the scratch image s. 0: replayed, or nothing to do for fs; 1:
 * the tool failed or is missing, with what it said in said (the disk is
 * then as the crash left it); -1: the host failed (a scratch file,
 * memory), with the reason in said. */
int crash_replay(struct crash_replay_scratch *s, struct disk *d, const char *fs, double timeout_s,
		 char *said, size_t saidlen);
void crash_replay_scratch_free(struct crash_replay_scratch *s);

#endif
