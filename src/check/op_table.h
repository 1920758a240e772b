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
 *            seed < 2^64, X an xattr name, C create flags (- or excl,trunc),
 *            W write flags (- or append,sync), F a fallocate mode (0 or
 *            keep_size);
 *   args     the arguments' names, space-separated, as the usage and the
 *            coverage report show them ("-" for one coverage does not count);
 *   flags    OPF_SCOPE: in the default exploration scope; OPF_READONLY: it
 *            never changes the state (the io lens's cold-read probes);
 *   example  one instance, without "op", over the profile's populated tree
 *            (f0, d0/f1, an empty e0; src/lens/profile.c): what `themis
 *            profile` measures, and, for the arguments after a single
 *            leading path, the values the exhaustive enumeration uses.
 *
 * A new operation is a line here and its function in the agent (op_NAME):
 * the enumeration tries its example at every path of the pools, the
 * profile measures its example, coverage bins its arguments by letter.
 * Only a kind whose candidates must differ from that (other paths, several
 * sizes) gets a case in ops.c.
 *
 * FS_TABLE(X) calls X(name, unsupported, unrepresented) per filesystem the
 * checker knows: the operations it cannot do (a mask of OPB(ENUM) bits)
 * and the fingerprint fields it cannot represent (the agent's `ignore`
 * list).
 *
 * ATIME_TABLE(X) calls X(name, FLAG) per atime mount option the agent's
 * `mountopt` command takes: FLAG is mount(2)'s MS_FLAG. relatime is what
 * the kernel gives a mount that names none (the agent's at boot). */
#ifndef THEMIS_OP_TABLE_H
#define THEMIS_OP_TABLE_H

#define OPF_SCOPE    1u
#define OPF_READONLY 2u

#define OP_TABLE(X)                                                                                \
	X(CREATE, create, "PMC", "path mode flags", OPF_SCOPE, "create f2 0644 -")                 \
	X(WRITE, write, "PNNSW", "path off size - flags", OPF_SCOPE, "write f0 0 4096 1 -")        \
	X(TRUNCATE, truncate, "PN", "path size", OPF_SCOPE, "truncate f0 4096")                    \
	X(UNLINK, unlink, "P", "path", OPF_SCOPE, "unlink f0")                                     \
	X(MKDIR, mkdir, "PM", "path mode", OPF_SCOPE, "mkdir d1 0755")                             \
	X(RMDIR, rmdir, "P", "path", OPF_SCOPE, "rmdir e0")                                        \
	X(CHMOD, chmod, "PM", "path mode", OPF_SCOPE, "chmod f0 0600")                             \
	X(CHOWN, chown, "PI", "path uid", OPF_SCOPE, "chown f0 1000")                              \
	X(CHGRP, chgrp, "PI", "path gid", OPF_SCOPE, "chgrp f0 1000")                              \
	X(SETXATTR, setxattr, "PXNS", "path name size -", OPF_SCOPE, "setxattr f0 user.a 16 1")    \
	X(REMOVEXATTR, removexattr, "PX", "path name", OPF_SCOPE, "removexattr f0 user.a")         \
	X(RENAME, rename, "PP", "src dst", OPF_SCOPE, "rename f0 f3")                              \
	X(LINK, link, "PP", "src dst", OPF_SCOPE, "link f0 f4")                                    \
	X(SYMLINK, symlink, "TP", "target path", OPF_SCOPE, "symlink f0 f5")                       \
	X(FSYNC, fsync, "P", "path", OPF_SCOPE, "fsync f0")                                        \
	X(FALLOCATE, fallocate, "PFNN", "path mode off len", OPF_SCOPE,                            \
	  "fallocate f0 0 8192 65536")                                                             \
	X(REMOUNT, remount, "", "", OPF_SCOPE, "remount")                                          \
	X(SYNC, sync, "", "", 0, "sync")                                                           \
	X(STAT, stat, "P", "path", OPF_READONLY, "stat f0")                                        \
	X(READ, read, "PNN", "path off size", OPF_READONLY, "read f0 0 1")

#define OPB(e) (1u << OP_##e)

/* Operations outside ext2's, ext3's and jfs's reach; the FAT family's. */
#define OPS_NO_FALLOCATE OPB(FALLOCATE)
#define OPS_NO_XATTR	 (OPB(SETXATTR) | OPB(REMOVEXATTR))
#define OPS_FAT                                                                                    \
	(OPB(CHOWN) | OPB(CHGRP) | OPB(LINK) | OPB(SYMLINK) | OPB(CHMOD) | OPS_NO_XATTR |          \
	 OPS_NO_FALLOCATE)

/* FAT keeps no permission bits (all read 0755 from the mount's umask), no
 * link counts worth the name, and no xattrs. */
#define FS_TABLE(X)                                                                                \
	X(ext2, OPS_NO_FALLOCATE, "")                                                              \
	X(ext3, OPS_NO_FALLOCATE, "")                                                              \
	X(ext4, 0, "")                                                                             \
	X(xfs, 0, "")                                                                              \
	X(btrfs, 0, "")                                                                            \
	X(f2fs, 0, "")                                                                             \
	X(jfs, OPS_NO_FALLOCATE, "")                                                               \
	X(nilfs2, OPS_NO_FALLOCATE | OPS_NO_XATTR, "")                                             \
	X(minix, OPS_NO_FALLOCATE | OPS_NO_XATTR, "")                                              \
	X(vfat, OPS_FAT, "mode,nlink,xattrs")                                                      \
	X(exfat, OPS_FAT, "mode,nlink,xattrs")

#define ATIME_TABLE(X)                                                                             \
	X(strictatime, STRICTATIME)                                                                \
	X(relatime, RELATIME)                                                                      \
	X(noatime, NOATIME)

#endif
