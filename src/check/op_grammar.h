/* op_grammar.h - the pieces of the operation grammar that the guest agent
 * (guest/agent/check.c, which parses and runs operations) and the host
 * (src/check/op_check.c, which refuses a malformed operation in a trace as
 * bad input before it reaches the guest) must read alike: one copy, so the
 * two cannot drift. Header-only and libc-only, since the agent is a static
 * riscv64 program built apart (scripts/build-initramfs.sh hashes this file
 * with the agent's sources). */
#ifndef THEMIS_OP_GRAMMAR_H
#define THEMIS_OP_GRAMMAR_H

#include <stdbool.h>
#include <string.h>

/* A path argument (letter P): relative to the test root, without empty,
 * "." or ".." parts (a lone "." is the root itself), and not into
 * lost+found, which belongs to the filesystem, not the test. */
static inline bool op_path_ok(const char *p)
{
	if (!strcmp(p, "."))
		return true;
	if (!strncmp(p, "lost+found", 10) && (p[10] == 0 || p[10] == '/'))
		return false;
	for (;;) {
		size_t l = strcspn(p, "/");
		if (l == 0 || (l == 1 && p[0] == '.') || (l == 2 && p[0] == '.' && p[1] == '.'))
			return false;
		if (!p[l])
			return true;
		p += l + 1;
	}
}

#endif
