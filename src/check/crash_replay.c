/* crash_replay.c - see crash_replay.h. */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lens/corrupt_fsck.h"
#include "crash_replay.h"

#define REPLAY_MAX_ARGS 4

/* Each filesystem's replay: the tool and its arguments (the image goes
 * last), and what its output says when the replay failed though the tool
 * exits 0 (jfs_fsck prints "logredo failed (rc=N).  fsck continuing.",
 * marks the superblock clean and leaves the log dirty, which the kernel
 * then refuses to mount). */
static const struct {
	const char *fs, *argv[REPLAY_MAX_ARGS], *failed;
} replays[] = {
    {"jfs", {"jfs_fsck", "--replay_journal_only"}, "logredo failed"},
};
#define NREPLAYS (sizeof(replays) / sizeof(replays[0]))

static int replay_of(const char *fs)
{
	for (size_t i = 0; i < NREPLAYS; i++)
		if (!strcmp(replays[i].fs, fs))
			return (int)i;
	return -1;
}

const char *crash_replay_command(const char *fs)
{
	static char line[128];
	int k = replay_of(fs);
	return k < 0 ? NULL
		     : corrupt_fsck_join(replays[k].argv, REPLAY_MAX_ARGS, line, sizeof(line));
}

#define IMPORT_SECTORS 128 /* compared at a time: 64 KiB */

/* Write into d every sector where the file at fd differs from it. */
static int import_changes(struct disk *d, int fd, char *said, size_t saidlen)
{
	uint8_t *now = malloc(2 * IMPORT_SECTORS * DISK_SECTOR_SIZE);
	if (!now) {
		snprintf(said, saidlen, "out of memory reading the replay back");
		return -1;
	}
	uint8_t *got = now + IMPORT_SECTORS * DISK_SECTOR_SIZE;
	uint64_t total = disk_sectors(d);
	int rc = 0;
	for (uint64_t s = 0; s < total && !rc; s += IMPORT_SECTORS) {
		uint64_t n = total - s < IMPORT_SECTORS ? total - s : IMPORT_SECTORS;
		size_t bytes = (size_t)n * DISK_SECTOR_SIZE;
		ssize_t r = pread(fd, got, bytes, (off_t)(s * DISK_SECTOR_SIZE));
		if (r != (ssize_t)bytes || disk_peek(d, s, now, n)) {
			snprintf(said, saidlen,
				 "cannot read the replayed image back at sector %llu",
				 (unsigned long long)s);
			rc = -1;
		}
		for (uint64_t k = 0; k < n && !rc; k++) {
			size_t off = (size_t)k * DISK_SECTOR_SIZE;
			if (memcmp(now + off, got + off, DISK_SECTOR_SIZE) &&
			    disk_write(d, s + k, got + off, 1)) {
				snprintf(said, saidlen, "out of memory writing the replay back");
				rc = -1;
			}
		}
	}
	free(now);
	return rc;
}

/* Whether the output at `out` holds a line with `words`: into said. */
static bool said_failure(const char *out, const char *words, char *said, size_t saidlen)
{
	FILE *f = fopen(out, "r");
	if (!f)
		return false;
	char line[512];
	bool found = false;
	while (!found && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\r\n")] = 0;
		if ((found = strstr(line, words) != NULL))
			snprintf(said, saidlen, "%s", line);
	}
	fclose(f);
	return found;
}

/* The tool on image; 0 it exited 0, 1 it failed (said), -1 not started. */
static int run_tool(int k, const char *image, double timeout_s, char *said, size_t saidlen)
{
	char out[4200];
	snprintf(out, sizeof(out), "%s.out", image);
	const char *argv[REPLAY_MAX_ARGS + 2] = {0};
	int n = 0;
	for (; n < REPLAY_MAX_ARGS && replays[k].argv[n]; n++)
		argv[n] = replays[k].argv[n];
	argv[n] = image;
	struct corrupt_fsck c = {.fs = replays[k].fs};
	int status = -1, rc = 0;
	if (corrupt_fsck_spawn(&c, argv, out)) {
		snprintf(said, saidlen, "%s could not be started", argv[0]);
		rc = -1;
	} else {
		enum corrupt_fsck_verdict v =
		    corrupt_fsck_wait(&c, timeout_s, &status, said, saidlen);
		if (v == CORRUPT_FSCK_MISSING)
			snprintf(said, saidlen, "%s is not installed", argv[0]);
		else if (status != 0 && !said[0])
			snprintf(said, saidlen, "%s: %s (exit status %d)", argv[0],
				 corrupt_fsck_name(v), status);
		rc = status == 0 ? 0 : 1;
		if (!rc && said_failure(out, replays[k].failed, said, saidlen))
			rc = 1;
	}
	unlink(out);
	return rc;
}

int crash_replay(struct disk *d, const char *fs, double timeout_s, char *said, size_t saidlen)
{
	said[0] = 0;
	int k = replay_of(fs);
	if (k < 0)
		return 0;
	char image[4096], err[512];
	snprintf(image, sizeof(image), "%s/themis-replay-XXXXXX", corrupt_fsck_scratch_dir());
	int fd = mkstemp(image);
	if (fd < 0) {
		snprintf(said, saidlen, "%s: %s", image, strerror(errno));
		return -1;
	}
	int rc = disk_save(d, image, err, sizeof(err));
	if (rc)
		snprintf(said, saidlen, "%.200s", err);
	else if ((rc = run_tool(k, image, timeout_s, said, saidlen)) == 0)
		rc = import_changes(d, fd, said, saidlen);
	/* The scratch name is no part of what the tool said. */
	char *at = strstr(said, image);
	if (at)
		memmove(at, at + strlen(image), strlen(at + strlen(image)) + 1);
	close(fd);
	unlink(image);
	return rc;
}
