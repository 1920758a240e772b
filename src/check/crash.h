/* crash.h - power the machine off at a crash point and on again: the
 * mechanism under the crash lens (issue 20), over the disks' write logs
 * (disk_wlog.c).
 *
 * A crash point names, per disk, the content a power cut leaves: what the
 * disk held just before write-log entry `upto`, plus the later writes
 * `extra` (a subset, in an order) that made it through. crash_recover
 * opens a fork level, cuts the power (every disk drops what the kernel
 * writes from then on) and has the agent unmount: the kernel's caches,
 * dirty pages and journal state die with the mounts, and nothing they
 * write lands. Then the power comes back, each disk is made its crash
 * content, and the agent mounts them: the filesystem's own recovery
 * (journal or log replay) runs in the guest, as after a real power cut,
 * and its writes are logged like any others. The recovered state's
 * fingerprint is read, and the level is released: the machine is as it
 * was before the call. */
#ifndef THEMIS_CHECK_CRASH_H
#define THEMIS_CHECK_CRASH_H

#include "check.h"

struct crash_disk {
	uint64_t upto;
	const uint64_t *extra;
	size_t nextra;
};

/* What a crash recovered to, per filesystem. */
struct crash_result {
	int mount_ret[CHECK_MAX_FS];	  /* the mount's return: 0, or -1 */
	char mount_err[CHECK_MAX_FS][24]; /* its errno's name ("0" when mounted) */
	bool mounted;			  /* every disk mounted: fp holds */
	struct check_step fp;		  /* the recovered states' fingerprints */
};

/* Turn on the write log of every disk: crash points can name any write
 * served from now on. */
void crash_arm(struct virt *v, int nfs);

/* The crash point where every disk keeps all it was written: a power cut
 * after the last write (what the kernel still holds is lost). */
void crash_point_now(struct virt *v, int nfs, struct crash_disk *pts);

/* Crash at pts[0..nfs) and recover (see above). 0 with r filled (a disk
 * that did not mount is in r, not an error); -1 when the guest failed
 * (panic, hang, a recovery that never ends: why says what) or the crash
 * disk could not be assembled; the machine is as it was in either case. */
int crash_recover(struct virt *v, int nfs, const struct crash_disk *pts, struct crash_result *r,
		  char *why, size_t whylen);

#endif
