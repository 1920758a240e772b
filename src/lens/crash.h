/* crash.h - power the machine off at a crash point and on again: the
 * mechanism under the crash lens (issue 20), over the disks' write logs
 * (disk_wlog.c).
 *
 * A crash point names, per disk, the content a power cut leaves: what the
 * disk held just before write-log entry `upto`, plus the later writes
 * `extra` (a subset, in an order) that made it through. A power cut
 * loses everything the kernel held, and the machine boots again: so
 * crash_recover recovers each crash disk in a second machine, booted as
 * the explored one was and with its disks unmounted (crash_boot), not in
 * the machine that crashed. In a fork level of that machine each
 * crashing disk is made its crash content and the agent mounts them: the
 * filesystem's own recovery (journal or log replay) runs in the guest,
 * as after a real power cut, and its writes are logged like any others.
 * A recovery is so a function of the crash content alone (the memo of
 * crash contents counts on it), and the kernel never tears down mounts a
 * real power cut would simply lose. The recovered state's fingerprint is
 * read (and, when asked, the dumps and each disk's checker's verdict,
 * after an unmount lets recovery's writes land), and, when asked, the
 * recovery itself is crashed (nesting depth 2): before any of its writes
 * landed and after each flush it completed, the power of that disk is cut
 * in the recovering machine, the disk unmounted, made its crash content
 * and recovered again, which must reach the state the uninterrupted
 * recovery reached (recovery is repeatable). Then the level is released:
 * both machines are as they were before the call. */
#ifndef THEMIS_CHECK_CRASH_H
#define THEMIS_CHECK_CRASH_H

#include "../check/check.h"
#include "crash_fsck.h"
#include "crash_memo.h"
#include "crash_replay.h"
#include "../machine/virt.h"

/* Host seconds spent in each phase of crash_recover, summed over calls
 * (the benchmark's breakdown; never machine state). */
#define CRASH_PHASES(X)                                                                            \
	X(memo, "memo keys: crash disks hashed")                                                   \
	X(fork, "fork and release")                                                                \
	X(assemble, "crash disk assembly")                                                         \
	X(recover, "mount: the guest's recovery")                                                  \
	X(read, "fingerprints and dumps")                                                          \
	X(nested, "crashes of the recovery")                                                       \
	X(fsck, "the checker")
struct crash_times {
#define CRASH_PHASE_FIELD(name, text) double name;
	CRASH_PHASES(CRASH_PHASE_FIELD)
#undef CRASH_PHASE_FIELD
};

/* What to read from a recovered machine besides its fingerprints. */
struct kline;

struct crash_ask {
	struct crash_times *times; /* phases timed into it (NULL: none) */
	bool dumps;		   /* the agent's dumps, live and recovered */
	bool nested;		   /* crash each recovery again (see crash_recover) */
	struct crash_fsck *fsck;   /* the checker on recovered disks (NULL: none), */
	unsigned fsck_disks;	   /* those whose bit is set */
	/* Recoveries remembered by crash content (crash_memo.h; NULL: every
	 * crashing disk recovered in the guest). A disk the memo answers
	 * does not crash: its part of the result is the memo's. */
	struct crash_memo *memo;
	/* The live dump of the machine as it is, read once for every crash
	 * point of one state: the caller's (NULL: read each time), set at the
	 * first read, freed by the caller. */
	char **live;
	/* With dumps: an agent `range PATH OFF LEN...` command (one LEN per
	 * disk) whose "h I N HASH" lines end the live dump; the recovered
	 * dump ends with the same bytes' lines, each disk's LEN the N its live
	 * line read. NULL: none. The memo does not serve it (it keeps no
	 * range). */
	const char *range;
	/* The recovering kernel's line tables (kline.h; NULL: none): a
	 * report's frames inside a filesystem sign it. */
	struct kline *lines;
};

/* How a crash discrepancy's description names its point as a trace step:
 * "... step `crash POINT`)". explore ends the record's operations with
 * that step. */
#define CRASH_STEP_MARK "step `crash "

/* The word of a crash finding's shown line that names its point as a
 * reproducer rebuilds it ("crash-point FS drop R", lens_crash.c; read by
 * repro.c). */
#define CRASH_POINT_WORD "crash-point"

/* A subset's ORDER in a crash step: one digit per write, its offset from
 * FROM (so a subset draws from at most 64 writes). */
#define CRASH_ORDER_DIGITS "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ+/"

/* A crash step's point, parsed: "end", "flush DISK UPTO" or "subset DISK
 * FROM ORDER" (ORDER "." for none), the writes of a subset as numbers. */
struct crash_step {
	enum { CRASH_STEP_END, CRASH_STEP_FLUSH, CRASH_STEP_SUBSET } kind;
	int disk;
	uint64_t at; /* UPTO or FROM */
	uint64_t extra[sizeof(CRASH_ORDER_DIGITS) - 1];
	size_t nextra;
};

/* Parse point (the step without "crash "): 0, or -1 if it breaks the
 * grammar. The one reader of the grammar: traces and the crash lens. */
int crash_step_parse(const char *point, struct crash_step *out);

/* The trace step ("crash POINT") a crash discrepancy's description names,
 * into out; false when it names none. */
bool crash_step_of(const char *why, char *out, size_t cap);

struct crash_disk {
	uint64_t upto;
	const uint64_t *extra;
	size_t nextra;
	bool live; /* this disk does not crash: it stays mounted, as it is */
};

/* What a crash recovered to, per filesystem. */
struct crash_result {
	int mount_ret[CHECK_MAX_FS]; /* the mount's return: 0, or -1 */
	/* What the host's log replay said of a disk it failed on
	 * (crash_replay.h: jfs), before the mount; "" when it did not fail. */
	char replay_said[CHECK_MAX_FS][160];
	char mount_err[CHECK_MAX_FS][24]; /* its errno's name ("0" when mounted) */
	bool mounted; /* every disk mounted and read back: fp holds */
	/* The recovered states' fingerprints (fp.fp[i] of a disk that did not
	 * crash: unset). */
	struct check_step fp;
	/* With dumps asked for: the agent's dump ("e I RECORD" lines) of the
	 * live state before the crash and of the recovered one (NULL when
	 * not every disk mounted); crash_result_free frees them. */
	char *live, *recovered;
	/* With nested crashes asked for: how many were recovered, and the
	 * first whose second recovery did not reach the first's state (disk
	 * -1: none). */
	int nested, nested_disk;
	uint64_t nested_upto;
	/* That crash as its reproducer names it (repro.h): the groups of the
	 * recovery's writes between flushes it lost, counted from the last. */
	uint64_t nested_drop;
	char nested_what[96];
	/* At that one, the agent's dumps of both recoveries' states (the
	 * whole recovery's, the one recovered again), to show how they
	 * differ; NULL when it did not mount. */
	char *nested_first, *nested_again;
	/* With fsck asked for: each recovered disk's verdict, after unmount. */
	enum corrupt_fsck_verdict fsck[CHECK_MAX_FS];
	char fsck_said[CHECK_MAX_FS][160];
	/* The kernel's first report (splat.h) while the recovery machines
	 * ran (SPLAT_NONE: none): its kind, site and first line. */
	enum splat_kind report;
	char report_sig[64], report_line[200]; /* splat_signature's; its first line */
};

/* How many runs of writes (writes with no completed flush between them)
 * e[k..n) of a write log spans: what a crash point that keeps e[0..k) lost,
 * in terms any recording of the same writes shares (a reproducer's
 * dm-log-writes log numbers its writes otherwise, but flushes part them
 * alike). */
uint64_t crash_runs_from(const struct disk_wentry *e, uint64_t k, uint64_t n);

/* Turn on the write log of every disk: crash points can name any write
 * served from now on. */
void crash_arm(struct virt *v, int nfs);

/* The crash point where every disk keeps all it was written: a power cut
 * after the last write (what the kernel still holds is lost). */
void crash_point_now(struct virt *v, int nfs, struct crash_disk *pts);

/* The machines crashes recover in: booted as check_boot boots the
 * explored machine, then their disks unmounted and logging their writes,
 * and left at that state (they are only ever forked). `recover` recovers
 * the crash disks, `again` the crashes of those recoveries; `replay` holds
 * the scratch images of the host's log replays (crash_replay.h). */
struct crash_reboot {
	struct virt recover, again;
	struct crash_replay_scratch replay[CHECK_MAX_FS]; /* per disk, for log replays */
};

/* Boot both of rb's machines for m. 0, or -1 with err (nothing is left
 * to free). */
int crash_boot(struct crash_reboot *rb, const struct check_machine *m, char *err, size_t errlen);
void crash_reboot_free(struct crash_reboot *rb);

/* Crash v at pts[0..nfs) and recover in rb's machines (see above). 0 with
 * r filled (a disk that did not mount is in r, not an error); -1 when the
 * guest failed (panic, hang, a recovery that never ends: why says what)
 * or the crash disk could not be assembled; every machine is as it was in
 * either case, rb's work counted as v's (virt_counts_move). */
int crash_recover(struct virt *v, struct crash_reboot *rb, const struct check_machine *m,
		  const struct crash_disk *pts, const struct crash_ask *ask, struct crash_result *r,
		  char *why, size_t whylen);
void crash_result_free(struct crash_result *r);

#endif
