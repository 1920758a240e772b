/* rule_fields.h - the fingerprint fields an ignore rule may name
 * (rules/FS.rules, rules.h): the names of the guest agent's `ignore`
 * command, one list the host and the agent (guest/agent/check.c) share.
 * Plain macros only: the agent is a static riscv64 program.
 *
 * RULE_FIELDS(X) calls X(name) per field; bit i of an ignore mask is the
 * i-th. roottime: the root directory's times (--time); rootmode: the root
 * directory's mode (which no operation of a scope changes); dirsize: a
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
	X(rootmode)                                                                                \
	X(dirsize)

/* The names as one string, "mode uid ... dirsize", for usage lines. */
#define RULE_FIELD_WORD(name) " " #name
#define RULE_FIELD_WORDS      RULE_FIELDS(RULE_FIELD_WORD)

#endif
