/* walk.h - the agent's tree walk (walk.c) as the checker's commands
 * (check.c) use it: a disk's fingerprint and records, the fields the host
 * masks and the time granularities it sets, and two pieces of the walk
 * the commands share (a directory's listing, a file's user xattrs). The
 * walk runs chrooted into a disk: check.c's enter_disk and leave_disk.
 * Also the commands of bytes.c, for check.c's command table. */
#ifndef THEMIS_AGENT_WALK_H
#define THEMIS_AGENT_WALK_H

#include <stdbool.h>
#include <stdint.h>

#include "../../src/proto/rule_fields.h"
#include "agent.h"
#include "sb.h"

#define FP_LEN 40 /* a fingerprint's text: 32 hex digits, "unmounted", "!ERRNO" */

/* Fields a filesystem under test cannot represent (FAT has no modes,
 * link counts or xattrs; the host's ignore rules, rules/FS.rules): set by
 * the host with `ignore`, printed as "*" and so left out of every
 * fingerprint. Agent-wide, like the disks. Bit i: the i-th of RULE_FIELDS. */
enum {
#define IGN_BIT(name) IGN_BIT_##name,
	RULE_FIELDS(IGN_BIT)
#undef IGN_BIT
	    IGN_NFIELDS
};
enum { IGN_ROOTTIME = 1 << IGN_BIT_roottime };
extern unsigned ignored;
/* What the ignored fields held in the last walk, a hash per field. */
extern uint64_t masked_last[IGN_NFIELDS];
/* The granularities times are recorded in, ns (`timegran`). */
extern uint64_t time_gran, atime_gran;

/* The fingerprint of the tree at the working directory (a disk's root,
 * chrooted) into out; with view, the first disk's entries for the host. */
void fp_here(bool time, char out[FP_LEN], struct sb *view);
/* Enter d's root (chroot): true; false with "!ERRNO" or "unmounted" in out. */
bool enter_or_say(const struct disk *d, char out[FP_LEN]);
/* d's fingerprint, entered and left. */
void disk_fp(const struct disk *d, bool time, char out[FP_LEN], struct sb *view);
/* d's records, one "e I RECORD" line each. */
void print_dump(const struct disk *d, bool time);
/* The "m I HASH..." line of the masked fields' hashes h. */
void print_masked(int idx, const uint64_t *h);

/* The names in the directory fd, sorted, lost+found and .nilfs left out
 * at the root: how many (names freed with free_names), or -1. */
int list_names(int fd, bool root, char ***names);
void free_names(char **names, int n);

/* A file's user.* xattr names. */
struct xnames {
	char *list; /* first_list, or malloc'd */
	char **names;
};
int user_xattr_names(int fd, struct xnames *x);

/* check.c: the agent's one buffer (op_run.h's op_chunk, which the walk
 * reads files and directories through between operations), its size and
 * the content hash's block. */
#define AGENT_CHUNK (256 * 1024)
#define AGENT_BLOCK 4096
extern uint8_t *const agent_chunk;

/* check.c: chroot into a disk's mount point, and back to the agent's root. */
int enter_disk(const struct disk *d);
void leave_disk(void);

/* bytes.c: the commands diff and range (check.c's command table). */
void cmd_diff(struct disk *disks, int ndisks, char **w, int nw);
void cmd_range(struct disk *disks, int ndisks, char **w, int nw);

#endif
