/* semantics.h - the observed transition model (`themis profile
 * --semantics`): what each operation does to the abstract state and to
 * the three timestamps, per filesystem and per atime mount option, read
 * off the running kernel in forks of the profile's populated machine
 * (profile_machine).
 *
 * One measure of operation OP under mount option OPT, in a fork:
 *   mountopt OPT     remount every disk with the option (page cache kept);
 *   dump             every entry's fields before (the walk reads symlinks,
 *                    which moves their atime: so it runs first);
 *   times T P        the target's and its parent's times before (lstat
 *                    only: it moves nothing, and runs last);
 *   sleep SEM_SLEEP  the guest's clock moves on, so even a filesystem that
 *                    keeps whole seconds stamps a different time;
 *   OP;
 *   times T P        the times after, before anything else can move them;
 *   dump             the fields after.
 * The target is the inode OP acts on, followed by path (rename's source
 * before, its destination after; link's source: its count moves), the
 * parent the directory of its path after (link's and rename's
 * destination). Any other entry that appeared, went or changed is listed
 * as "elsewhere". A read-only operation (OPF_READONLY: read moves atime)
 * is measured a second time in the same fork, SEM_SLEEP later: relatime
 * moves atime only while it is not past mtime and ctime, so the first
 * read after the populate step's writes moves it and the second does not.
 *
 * Derived views: the footprint (which fields each operation changes, per
 * filesystem, under relatime, the kernel's default) and the timestamp
 * matrix (which of atime, mtime, ctime of the target and of the parent
 * each operation moves, per filesystem and mount option). */
#ifndef THEMIS_SEMANTICS_H
#define THEMIS_SEMANTICS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "../check/check.h"

#define SEM_SLEEP 2 /* seconds between the state before and the operation */

/* The fields compared, as the agent's dump names them (times from its
 * `times` command). */
#define SEM_FIELDS(X)                                                                              \
	X(KIND, kind)                                                                              \
	X(MODE, mode)                                                                              \
	X(UID, uid)                                                                                \
	X(GID, gid)                                                                                \
	X(NLINK, nlink)                                                                            \
	X(SIZE, size)                                                                              \
	X(CONTENT, content)                                                                        \
	X(TARGET, target)                                                                          \
	X(XATTRS, xattrs)                                                                          \
	X(ATIME, atime)                                                                            \
	X(MTIME, mtime)                                                                            \
	X(CTIME, ctime)

enum sem_field {
#define SEM_ENUM(e, name) SEM_##e,
	SEM_FIELDS(SEM_ENUM)
#undef SEM_ENUM
	    SEM_NFIELDS
};

/* The atime mount options, from the agent's list (op_table.h). */
enum sem_mount {
#define SEM_MOUNT_ENUM(name, FLAG) SEM_MOUNT_##FLAG,
	ATIME_TABLE(SEM_MOUNT_ENUM)
#undef SEM_MOUNT_ENUM
	    SEM_NMOUNTS
};

const char *sem_field_name(enum sem_field f);
const char *sem_mount_name(enum sem_mount m);

enum sem_role { SEM_ROLE_TARGET, SEM_ROLE_PARENT, SEM_NROLES };

/* One object of a measure: whether it existed before and after, and
 * (when it did both) which fields changed. */
struct sem_object {
	char path[64]; /* after the operation; "" when the operation has none */
	bool before, after;
	uint16_t changed; /* bits 1 << enum sem_field */
};

/* One operation on one filesystem under one mount option. */
struct sem_entry {
	char fs[16];
	char op[OP_TEXT_MAX]; /* the command without "op " */
	enum op_kind kind;
	enum sem_mount mount;
	bool again; /* the second run of a read-only operation */
	long long ret;
	char err[24];
	struct sem_object obj[SEM_NROLES];
	char elsewhere[160]; /* other entries: "+PATH" new, "-PATH" gone, "~PATH" changed */
};

struct sem_result {
	int nfs;
	char fs[CHECK_MAX_FS][16];
	/* The coarsest power of ten of nanoseconds every time seen on the
	 * filesystem is a multiple of (1: nanoseconds; 1e9: whole seconds;
	 * 0: no time seen). */
	uint32_t granularity_ns[CHECK_MAX_FS];
	struct sem_entry *e; /* by operation, mount, again, filesystem */
	int n, cap;
	double seconds; /* host time of the measures */
};

/* Boot m, populate it as the profile does, and measure every operation of
 * ops (remount and sync are skipped: they have no target) under every
 * mount option. 0, or -1 with err (the guest failed, or an agent without
 * the commands above). */
int semantics_run(const struct check_machine *m, const struct op *ops, int nops,
		  struct sem_result *r, char *err, size_t errlen);
void semantics_free(struct sem_result *r);

/* The footprint table and the timestamp matrix, as text. */
void semantics_print(const struct sem_result *r, FILE *f);
/* One JSON object member, "semantics": {...} (indented two spaces, no
 * final newline), for profile's object: interval_s, granularity_ns,
 * footprint_mount, footprint [{fs, op, command, again, result, target:
 * {path, before, after, changed: [FIELD...]}, parent: {...}, elsewhere,
 * disagree: [FIELD..., "parent", "elsewhere"]}] and timestamps [{fs, op,
 * command, again, mount, result, target: {atime, mtime, ctime, created,
 * removed}, parent: {...}, disagree}]. */
void semantics_json(const struct sem_result *r, FILE *f);

#endif
