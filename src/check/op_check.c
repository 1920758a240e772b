/* op_check.c - the host's reading of the agent's operation grammar
 * (op_table.h's argument letters, as guest/agent/check.c parses them), so
 * that a hand-edited trace with a malformed operation is refused as bad
 * input before it reaches the guest, where it would come back as an error
 * of the guest and pass for a finding. Keep it as strict as the agent: an
 * operation accepted here must be one the agent runs. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_grammar.h"
#include "ops.h"

#define ARG_MAX_SIZE (1ull << 31)  /* N: sizes and offsets */
#define ARG_MAX_ID   4294967294ull /* I: uids and gids (not -1) */

static bool is_dec(const char *s, uint64_t max)
{
	if (!*s || strlen(s) > 20 || strspn(s, "0123456789") != strlen(s))
		return false;
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	return v <= max && !(v == UINT64_MAX && strcmp(s, "18446744073709551615"));
}

/* @SEC[.NSEC] (SEC may be negative) or +SEC / -SEC; SEC below 2^62, NSEC
 * 1 to 9 digits. */
static bool good_instant(const char *s)
{
	if (*s != '@' && *s != '+' && *s != '-')
		return false;
	s += 1 + (s[0] == '@' && s[1] == '-');
	char secs[24];
	size_t n = strcspn(s, ".");
	if (n >= sizeof(secs))
		return false;
	memcpy(secs, s, n);
	secs[n] = 0;
	if (!is_dec(secs, 1ull << 62))
		return false;
	if (s[n] != '.')
		return true;
	size_t digits = strlen(s + n + 1);
	return digits >= 1 && digits <= 9 && is_dec(s + n + 1, 999999999);
}

static bool good_arg(char letter, const char *w)
{
	switch (letter) {
	case 'P': return op_path_ok(w);
	case 'T': return true;
	case 'X': return true;
	case 'M':
		return strlen(w) <= 5 && strspn(w, "01234567") == strlen(w) && *w &&
		       strtoul(w, NULL, 8) <= 07777;
	case 'N': return is_dec(w, ARG_MAX_SIZE);
	case 'I': return is_dec(w, ARG_MAX_ID);
	case 'S': return is_dec(w, UINT64_MAX);
	case 'E': return good_instant(w);
	default: return op_is_flag_letter(letter) && op_flags_parse(letter, w, NULL, NULL);
	}
}

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
	char *save, *w = strtok_r(copy, " ", &save);
	w = strtok_r(NULL, " ", &save); /* the name */
	bool ok = true;
	for (w = strtok_r(NULL, " ", &save); w && ok; w = strtok_r(NULL, " ", &save), n++)
		ok = n < want && good_arg(letters[n], w);
	if (!ok || n != want) {
		snprintf(why, whylen, "malformed %s: it takes %s%s%s", op_name((enum op_kind)k),
			 want ? "" : "no arguments", op_args((enum op_kind)k),
			 want ? " (see docs/trace.md)" : "");
		return -1;
	}
	return 0;
}
