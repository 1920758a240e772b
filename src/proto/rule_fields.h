/* rule_fields.h - the fingerprint fields an ignore rule may name
 * (rules/FS.rules, rules.h): the names of the guest agent's `ignore`
 * command, one list the host and the agent (guest/agent/check.c) share.
 * Plain macros only: the agent is a static riscv64 program.
 *
 * RULE_FIELDS(X) calls X(name) per field; bit i of an ignore mask is the
 * i-th. roottime: the root directory's times (--time); dirsize: a
 * directory's st_size (a file's size is always compared). */
#ifndef THEMIS_RULE_FIELDS_H
#define THEMIS_RULE_FIELDS_H

#define RULE_FIELDS(X)                                                                             \
	X(mode)                                                                                    \
	X(uid)                                                                                     \
	X(gid)                                                                                     \
	X(nlink)                                                                                   \
	X(xattrs)                                                                                  \
	X(roottime)                                                                                \
	X(dirsize)

#endif
