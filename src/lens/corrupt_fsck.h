/* corrupt_fsck.h - the filesystem's own checker, run read-only on an image
 * file by `themis corrupt` (corrupt.h): e2fsck -fn, xfs_repair -n, btrfs
 * check --readonly, fsck.f2fs --dry-run, fsck.vfat -n, fsck.exfat -n,
 * jfs_fsck -n, fsck.minix (which only reports without -a or -r). nilfs2
 * has no checker in Debian (nilfs-tools ships none): its verdict is "none".
 *
 * The checker is started in the background (corrupt_fsck_start) so it runs
 * on the host while the guest remounts the same flipped disk, and waited
 * for with a timeout (corrupt_fsck_wait). What it printed is kept in a
 * scratch file of the caller's; its first line that names a problem goes
 * into the result. A checker that exits 0 after saying it fell back to a
 * backup superblock (e2fsck -n does) or to the other copy of a block that
 * failed its checksum (btrfs check does) counts as having found errors. */
#ifndef THEMIS_CORRUPT_FSCK_H
#define THEMIS_CORRUPT_FSCK_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The verdicts, once: X(NAME, text). */
#define CORRUPT_FSCK_VERDICTS(X)                                                                   \
	X(CLEAN, "clean")     /* exit 0, nothing said of a problem */                              \
	X(ERRORS, "errors")   /* it found something */                                             \
	X(CRASHED, "crashed") /* killed by a signal of its own */                                  \
	X(TIMEOUT, "timeout") /* still running at the timeout: killed */                           \
	X(NONE, "none")	      /* the format has no checker */                                      \
	X(MISSING, "missing") /* the checker is not installed */                                   \
	X(NOT_RUN, "not-run") /* could not be started */

enum corrupt_fsck_verdict {
#define CORRUPT_FSCK_ENUM(name, text) CORRUPT_FSCK_##name,
	CORRUPT_FSCK_VERDICTS(CORRUPT_FSCK_ENUM)
#undef CORRUPT_FSCK_ENUM
};

const char *corrupt_fsck_name(enum corrupt_fsck_verdict v);

/* A checker under way. */
struct corrupt_fsck {
	pid_t pid;		       /* 0 when nothing was started */
	enum corrupt_fsck_verdict now; /* the verdict when pid is 0 */
	const char *fs;
	char out[4096]; /* the scratch file its output goes to */
};

/* The checker's command for fs, as one line ("e2fsck -fn"), or NULL. */
const char *corrupt_fsck_command(const char *fs);
/* Whether fs has a checker (installed or not): nilfs2 has none. */
bool corrupt_fsck_exists(const char *fs);

/* Start fs's checker on `image`, its output into the file `out` (created
 * or truncated). 0 (started, or the verdict is known already: none,
 * missing); -1 when it could not be started (then c->now is NOT_RUN). */
int corrupt_fsck_start(struct corrupt_fsck *c, const char *fs, const char *image, const char *out);

/* Start any tool as a checker is started: argv (NULL-ended; argv[0] is
 * looked up in $PATH and the system folders), its output into `out`, no
 * input. c must be zeroed; c->fs and c->out are the caller's. 0 (started,
 * or MISSING when argv[0] is not installed); -1 when it could not be
 * started (then c->now is NOT_RUN). corrupt_fsck_wait waits for it. */
int corrupt_fsck_spawn(struct corrupt_fsck *c, const char *const *argv, const char *out);

/* The library every tool started here is given (LD_PRELOAD): libaio's
 * calls done at once (src/fsck/checker_aio.c), as a path this process
 * and its children can open, "/proc/self/fd/N" of a memfd kept open;
 * "" when it could not be made (the tools then run without it). */
void corrupt_fsck_preload(char *out, size_t cap);

/* Wait for the checker, killing it after timeout_s seconds: the verdict,
 * its exit status in *status (-1 when it did not exit), and the first line
 * of its output that names a problem in said (empty when none, and when
 * the verdict is clean). */
enum corrupt_fsck_verdict corrupt_fsck_wait(struct corrupt_fsck *c, double timeout_s, int *status,
					    char *said, size_t saidlen);

/* Where scratch images go: $TMPDIR, else /dev/shm (memory), else /tmp. */
const char *corrupt_fsck_scratch_dir(void);

/* The whole check of a disk's current content: saved to a scratch image
 * (under $TMPDIR, else /dev/shm, else /tmp; removed after), checked, and
 * waited for as corrupt_fsck_wait does. A disk that cannot be saved is
 * NOT_RUN, with the reason in said. */
struct disk;
enum corrupt_fsck_verdict corrupt_fsck_disk(const struct disk *d, const char *fs, double timeout_s,
					    int *status, char *said, size_t saidlen);

#endif
