/* phase.h - the phases a state's guest work is counted by (virt_phase,
 * virt.h), the one list: the guest lens's words and report, and the guest
 * profiler's samples, are generated from it. The agent marks the two
 * phases of an `op` command itself (DB_MARK, src/proto/doorbell.h), so
 * those two sit at the doorbell's numbers. */
#ifndef THEMIS_PHASE_H
#define THEMIS_PHASE_H

#include "../proto/doorbell.h"
#include "../machine/virt.h"

/* X(NAME, json key, words) */
#define CHECK_PHASES(X)                                                                            \
	X(OTHER, "other", "boot, the root and the rest")                                           \
	X(OP, "operation", "the operation on every filesystem")                                    \
	X(FP, "fingerprint", "the live view: the tree walked after it")                            \
	X(DISK, "disk_view", "the on-disk view: sync, drop caches or remount, walk")               \
	X(CRASH, "crash", "crash states: the live view, the recovered trees, their checkers")      \
	X(RECOVERY, "recovery", "mounting crash disks: the filesystems' recovery")                 \
	X(FSCK, "fsck", "the checkers' clean unmount and mount")

enum check_phase {
#define CHECK_PHASE_ENUM(name, key, text) CHECK_PHASE_##name,
	CHECK_PHASES(CHECK_PHASE_ENUM)
#undef CHECK_PHASE_ENUM
	    CHECK_NPHASES
};

/* A phase's JSON key ("disk_view"); the first for one out of range. */
static inline const char *check_phase_key(int phase)
{
	static const char *const keys[] = {
#define CHECK_PHASE_KEY(name, key, text) key,
	    CHECK_PHASES(CHECK_PHASE_KEY)
#undef CHECK_PHASE_KEY
	};
	return keys[phase >= 0 && phase < CHECK_NPHASES ? phase : 0];
}

_Static_assert(CHECK_PHASE_OP == DB_PHASE_OP && CHECK_PHASE_FP == DB_PHASE_FP,
	       "the agent marks the op and fp phases by the doorbell's numbers");
_Static_assert(CHECK_NPHASES <= VIRT_PHASES, "the machine counts VIRT_PHASES phases");

#endif
