/* op_check.c - the host's reading of an operation, with the parser the
 * agent and the reproducer use (op_grammar.h's op_parse_args), so that a
 * hand-edited trace with a malformed operation is refused as bad input
 * before it reaches the guest, where it would come back as an error of
 * the guest and pass for a finding. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../proto/op_grammar.h"
#include "ops.h"

int op_text_check(const char *text, char *why, size_t whylen)
{
	int k = op_kind_of_text(text);
	if (k < 0) {
		snprintf(why, whylen, "not an operation (op NAME ARGS...; NAME one of %s)",
			 op_names_list());
		return -1;
	}
	const char *letters = op_letters((enum op_kind)k);
	size_t want = strlen(letters), n = 0;
	char copy[OP_TEXT_MAX];
	if (strlen(text) >= sizeof(copy)) {
		snprintf(why, whylen, "too long (at most %d characters)", OP_TEXT_MAX - 1);
		return -1;
	}
	snprintf(copy, sizeof(copy), "%s", text);
	char *save, *words[OP_TEXT_MAX / 2], *w = strtok_r(copy, " ", &save);
	w = strtok_r(NULL, " ", &save); /* the name */
	for (w = strtok_r(NULL, " ", &save); w && n <= want; w = strtok_r(NULL, " ", &save))
		words[n++] = w;
	struct op_args args;
	if (n != want || !op_parse_args(letters, words, (int)n, &args)) {
		snprintf(why, whylen, "malformed %s: it takes %s%s%s", op_name((enum op_kind)k),
			 want ? "" : "no arguments", op_args((enum op_kind)k),
			 want ? " (see docs/trace.md)" : "");
		return -1;
	}
	return 0;
}
