/* op_table.h - the one list of the checker's operations, shared by the host
 * (src/check: the enum, names, generator, coverage) and the guest agent
 * (guest/agent/check.c: parsing and running them). Nothing else lists the
 * operations; every other table is generated from this one, as Linux does
 * with its X-macro tables. Plain macros only: the agent is a static riscv64
 * program and includes this file too.
 *
 * OP_TABLE(X) calls X(ENUM, name, letters, args, flags, example) per
 * operation:
 *   ENUM     OP_ENUM in enum op_kind;
 *   name     the word after "op" in the agent's command;
 *   letters  one per argument, the agent's grammar: P a path (relative to
 *            the test root), T a symlink target (any word), M an octal mode
 *            <= 07777, N a decimal <= 2^31, I a uid/gid < 2^32 - 1, S a data
 *            seed < 2^64, X an xattr name, flags as OP_FLAG_WORDS in
 *            op_grammar.h lists them ("-", or "0" for F, or a comma list
 *            of words): C create flags (excl,trunc), W write flags
 *            (append,sync,dsync,direct), F a fallocate mode (keep_size,
 *            punch_hole, zero_range, collapse_range, insert_range), R
 *            renameat2 flags (noreplace, exchange, whiteout); E an instant
 *            (@SEC[.NSEC], SEC may be negative, or +SEC / -SEC from the
 *            guest clock's now);
 *   args     the arguments' names, space-separated, as the usage and the
 *            coverage report show them ("-" for one coverage does not count);
 *   flags    OPF_SCOPE: in the default exploration scope; OPF_READONLY: it
 *            never changes the state (the io lens's cold-read probes);
 *            OPF_TIME: in the default scope of explore --time;
 *            OPF_CLOCK: it sets the machine's wall clock, not a
 *            filesystem: the agent runs it, a reproducer refuses it (the
 *            host's clock is not its to set);
 *            OPF_NAMES: it changes the namespace (what exists), where a
 *            crash is judged for atomicity (src/lens/lens_crash.c);
 *   example  one instance, without "op", over the profile's populated tree
 *            (f0, d0/f1, an empty e0; src/tools/profile.c): what `themis
 *            profile` measures, and, for the arguments after a single
 *            leading path, the values the exhaustive enumeration uses.
 *
 * A new operation is a line here and its function in src/proto/op_run.h
 * (op_NAME), which the agent and every reproducer run:
 * the enumeration tries its example at every path of the pools, the
 * profile measures its example, coverage bins its arguments by letter.
 * Only a kind whose candidates must differ from that (other paths, several
 * sizes) gets a case in ops.c.
 *
 * ATIME_TABLE(X) calls X(name, FLAG) per atime mount option the agent's
 * `mountopt` command takes: FLAG is mount(2)'s MS_FLAG. relatime is what
 * the kernel gives a mount that names none (the agent's at boot). */
#ifndef THEMIS_OP_TABLE_H
#define THEMIS_OP_TABLE_H

#define OPF_SCOPE    1u
#define OPF_READONLY 2u
#define OPF_TIME     4u
#define OPF_NAMES    8u
#define OPF_CLOCK    16u

#define OP_TABLE(X)                                                                                \
	X(CREATE, create, "PMC", "path mode flags", OPF_SCOPE | OPF_NAMES, "create f2 0644 -")     \
	X(WRITE, write, "PNNSW", "path off size seed flags", OPF_SCOPE, "write f0 0 4096 1 -")     \
	X(TRUNCATE, truncate, "PN", "path size", OPF_SCOPE, "truncate f0 4096")                    \
	X(UNLINK, unlink, "P", "path", OPF_SCOPE | OPF_NAMES, "unlink f0")                         \
	X(MKDIR, mkdir, "PM", "path mode", OPF_SCOPE | OPF_NAMES, "mkdir d1 0755")                 \
	X(RMDIR, rmdir, "P", "path", OPF_SCOPE | OPF_NAMES, "rmdir e0")                            \
	X(CHMOD, chmod, "PM", "path mode", OPF_SCOPE, "chmod f0 0600")                             \
	X(CHOWN, chown, "PI", "path uid", OPF_SCOPE, "chown f0 1000")                              \
	X(CHGRP, chgrp, "PI", "path gid", OPF_SCOPE, "chgrp f0 1000")                              \
	X(SETXATTR, setxattr, "PXNS", "path name size -", OPF_SCOPE, "setxattr f0 user.a 16 1")    \
	X(REMOVEXATTR, removexattr, "PX", "path name", OPF_SCOPE, "removexattr f0 user.a")         \
	X(RENAME, rename, "PP", "src dst", OPF_SCOPE | OPF_NAMES, "rename f0 f3")                  \
	X(LINK, link, "PP", "src dst", OPF_SCOPE | OPF_NAMES, "link f0 f4")                        \
	X(SYMLINK, symlink, "TP", "target path", OPF_SCOPE | OPF_NAMES, "symlink f0 f5")           \
	X(FSYNC, fsync, "P", "path", OPF_SCOPE, "fsync f0")                                        \
	X(FALLOCATE, fallocate, "PFNN", "path mode off len", OPF_SCOPE,                            \
	  "fallocate f0 0 8192 65536")                                                             \
	X(REMOUNT, remount, "", "", OPF_SCOPE, "remount")                                          \
	X(SYNC, sync, "", "", OPF_SCOPE, "sync")                                                   \
	X(FDATASYNC, fdatasync, "P", "path", OPF_SCOPE, "fdatasync f0")                            \
	X(MWRITE, mwrite, "PNNS", "path off size seed", OPF_SCOPE, "mwrite f0 0 4096 1")           \
	X(RENAMEAT2, renameat2, "PPR", "src dst flags", OPF_SCOPE | OPF_NAMES,                     \
	  "renameat2 f0 f3 noreplace")                                                             \
	X(COPYRANGE, copyrange, "PPNN", "src dst off len", OPF_SCOPE, "copyrange f0 f1 0 4096")    \
	X(STAT, stat, "P", "path", OPF_READONLY, "stat f0")                                        \
	X(READ, read, "PNN", "path off size", OPF_READONLY, "read f0 0 1")                         \
	X(SETTIME, settime, "E", "time", OPF_TIME | OPF_CLOCK, "settime @2147483648")              \
	X(UTIMES, utimes, "PE", "path time", OPF_TIME, "utimes f0 @-1")

#define OPB(e) (1u << OP_##e)

/* INSTANT_TABLE(X) calls X(name, arg, flags) per adversarial instant: the
 * edges of every on-disk time format Themis builds (signed and unsigned
 * 32-bit seconds, ext4's 34-bit epoch, xfs bigtime, FAT's 1980-2107), a
 * rollback, two instants 1 ns apart, and one a nanosecond short of a whole
 * second (what a filesystem keeps of it is its granularity). arg is an E argument. flags:
 * INSTF_SETTIME, INSTF_UTIMES: the argument bins of settime and utimes in
 * an exploration; `themis clock` tries every instant both ways. */
#define INSTF_SETTIME 1u
#define INSTF_UTIMES  2u
#define INSTANT_TABLE(X)                                                                           \
	X(s32_min_minus_1, "@-2147483649", 0)                                                      \
	X(s32_min, "@-2147483648", 0)                                                              \
	X(before_epoch, "@-1", INSTF_UTIMES)                                                       \
	X(epoch, "@0", 0)                                                                          \
	X(epoch_plus_1, "@1", 0)                                                                   \
	X(fat_min_minus_1, "@315532799", 0)                                                        \
	X(fat_min, "@315532800", 0)                                                                \
	X(s32_max, "@2147483647", 0)                                                               \
	X(y2038, "@2147483648", INSTF_SETTIME)                                                     \
	X(u32_max, "@4294967295", 0)                                                               \
	X(y2106, "@4294967296", INSTF_SETTIME)                                                     \
	X(fat_max, "@4354819198", 0)                                                               \
	X(exfat_max, "@4354819199", 0)                                                             \
	X(fat_max_plus_2, "@4354819200", 0)                                                        \
	X(ext4_max, "@15032385535", 0)                                                             \
	X(ext4_max_plus_1, "@15032385536", 0)                                                      \
	X(xfs_bigtime_max, "@16299260424", 0)                                                      \
	X(xfs_bigtime_max_plus_1, "@16299260425", 0)                                               \
	X(s34_max, "@17179869183", 0)                                                              \
	X(s34, "@17179869184", INSTF_UTIMES)                                                       \
	X(far_future, "@1000000000000", 0)                                                         \
	X(rollback, "-86400", INSTF_SETTIME)                                                       \
	X(ns_a, "@2000000000.000000001", 0)                                                        \
	X(ns_b, "@2000000000.000000002", 0)                                                        \
	X(gran_probe, "@2000000001.999999999", 0)

#define ATIME_TABLE(X)                                                                             \
	X(strictatime, STRICTATIME)                                                                \
	X(relatime, RELATIME)                                                                      \
	X(noatime, NOATIME)

#endif
