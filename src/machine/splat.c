/* splat.c - the kernel's reports on its console, told apart and kept
 * (splat.h). A report ends at the kernel's own end marker ("---[ end
 * trace", or the row of '=' KASAN and UBSAN close with), at the next
 * report, or after SPLAT_LINES_MAX lines: what follows is no part of it. */
#include <string.h>

#include "splat.h"

static const struct {
	enum splat_kind kind;
	const char *text;
} openings[] = {
#define SPLAT_OPENING_ROW(kind, text) {SPLAT_##kind, text},
    SPLAT_OPENINGS(SPLAT_OPENING_ROW)
#undef SPLAT_OPENING_ROW
};

static const char *const kind_names[SPLAT_NKINDS] = {"none",
#define SPLAT_KIND_NAME(name) #name,
						     SPLAT_KINDS(SPLAT_KIND_NAME)
#undef SPLAT_KIND_NAME
};

const char *splat_kind_name(enum splat_kind k)
{
	return k > SPLAT_NONE && k < SPLAT_NKINDS ? kind_names[k] : kind_names[SPLAT_NONE];
}

/* The message of a console line: after printk's "[    1.234567] ". */
static const char *message(const char *line)
{
	if (line[0] != '[')
		return line;
	const char *end = strstr(line, "] ");
	return end ? end + 2 : line;
}

enum splat_kind splat_opens(const char *line)
{
	const char *msg = message(line);
	for (size_t i = 0; i < sizeof(openings) / sizeof(openings[0]); i++) {
		size_t n = strlen(openings[i].text);
		if (strncmp(msg, openings[i].text, n))
			continue;
		if (openings[i].kind == SPLAT_hung && !strstr(msg, "blocked for more than"))
			continue;
		return openings[i].kind;
	}
	return SPLAT_NONE;
}

void splat_mark(struct splat_log *l)
{
	l->opened = 0;
	l->kind = SPLAT_NONE;
	l->open = false;
	l->lines = 0;
	l->len = 0;
	l->text[0] = 0;
}

/* A line that ends a report: the kernel's end marker, or the row of '='
 * around a KASAN or UBSAN report (not its first line). */
static bool closes(const char *msg, unsigned lines)
{
	return strstr(msg, "---[ end trace") || (lines > 0 && !strncmp(msg, "=======", 7));
}

static void keep(struct splat_log *l, const char *msg)
{
	size_t n = strlen(msg);
	if (l->len + n + 2 > sizeof(l->text) || l->lines == SPLAT_LINES_MAX) {
		l->open = false;
		return;
	}
	memcpy(l->text + l->len, msg, n);
	l->len += n;
	l->text[l->len++] = '\n';
	l->text[l->len] = 0;
	l->lines++;
}

void splat_line(struct splat_log *l, const char *line)
{
	const char *msg = message(line);
	enum splat_kind k = splat_opens(line);
	if (k != SPLAT_NONE) {
		l->opened++;
		if (l->kind != SPLAT_NONE) { /* only the first is kept */
			l->open = false;
			return;
		}
		l->kind = k;
		l->open = true;
	} else if (!l->open) {
		return;
	} else if (closes(msg, l->lines)) {
		keep(l, msg);
		l->open = false;
		return;
	}
	keep(l, msg);
}
