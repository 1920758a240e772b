/* The guest agent's pieces shared between agent.c (PID 1: mounts, the
 * doorbell, power off; leave.c, its exit from the initramfs), fsops.c (the fixed script of
 * filesystem operations), work.c (pseudo-random work) and check.c, walk.c and bytes.c (the model
 * checker's commands). */
#ifndef THEMIS_GUEST_AGENT_H
#define THEMIS_GUEST_AGENT_H

#include <stdbool.h>
#include <stdint.h>

#define AGENT_MAX_DISKS 8

/* splitmix64's increment: state i of the sequence seeded with s is
 * s + i * AGENT_SPLITMIX64_GAMMA. */
#define AGENT_SPLITMIX64_GAMMA 0x9e3779b97f4a7c15ull

/* splitmix64: advance *state and return the next number of its sequence.
 * The agent's one copy (the agent is built apart from the host, whose
 * copy is src/util/rng.h; the two must stay the same function). */
static inline uint64_t agent_splitmix64(uint64_t *state)
{
	uint64_t z = (*state += AGENT_SPLITMIX64_GAMMA);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* One disk /dev/vdX, mounted at /mnt/N with the type from themis.fs=. */
struct disk {
	int idx;	     /* N: 0 for vda, 1 for vdb, ... */
	char name[8];	     /* "vda" */
	char dev[16];	     /* "/dev/vda" */
	char mnt[16];	     /* "/mnt/0" */
	char type[32];	     /* "ext4"; empty: the disk is skipped */
	unsigned long flags; /* mount(2) flags, the same for the remount */
	const char *data;    /* mount(2) options, the same for the remount */
	int err;	     /* errno of the last mount, 0 when it succeeded */
	bool mounted;
};

/* Print one line (without its '\n'): with DB_LOG when the host has a
 * doorbell (the host prints it), on the console otherwise. Lines must be deterministic: no
 * times, no inode numbers, nothing that differs between two runs. */
void out(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The line "KIND IDX TEXT" (no IDX when idx < 0), TEXT the first len
 * bytes of text: what out("%c %d %.*s", ...) prints, without printf's
 * cost, for the lines a state's check prints by the hundred. */
void out_item(char kind, int idx, const char *text, size_t len);

/* Tell the host which phase of a command (DB_PHASE_*, doorbell.h) the
 * guest's work from here on is for; nothing without a doorbell. */
void mark(unsigned phase);

/* "EPERM" for EPERM..., or the number as text for unnamed ones; "0" for 0. */
const char *errname(int err);

/* leave.c: run from anonymous copies of the program's pages and remove
 * /init, so drop_caches has no rootfs page to walk (said when it fails). */
void leave_rootfs(void);

/* Run the fixed script on a mounted disk, printing one line per
 * operation as "op args -> ret errno". Remounts the disk on the way. */
void fsops_run(struct disk *d);

/* Only the sorted listing of `top` (a path relative to the mount point,
 * "t" for the script's) on a mounted disk, its lines tagged `tag`
 * ("list0 t/a file ..."), so listings of several disks can be told apart. */
void fsops_list(struct disk *d, const char *top, const char *tag);

/* `n` pseudo-random operations under w/ on a mounted disk (work.c), chosen
 * from `seed` and the disk's index; prints nothing. Returns how many
 * succeeded. */
unsigned long work_run(struct disk *d, unsigned long long seed, unsigned long n);

/* The model checker's commands (check.c), on every disk of
 * disks[0..ndisks): op and run (op without the fingerprints), fp, dump,
 * reset and durable; ignore (the fields left out of fingerprints); umount
 * and mount (the baseline's backtrack and the profile's cold reads); times
 * (lstat's atime, mtime and ctime of some paths), mountopt (remount with an
 * atime option) and sleep (let the guest's clock move on), for the
 * semantics lens. w[] holds the command's words, nw of them (nw
 * may be one more than w[] holds: too many, a usage error). False when
 * w[0] is none of them (nothing done). */
bool check_command(struct disk *disks, int ndisks, char **w, int nw);

#endif
