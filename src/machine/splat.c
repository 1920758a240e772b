/* splat.c - the kernel's reports on its console, told apart and kept
 * (splat.h). A report ends at the kernel's own end marker ("---[ end
 * trace", or the row of '=' KASAN and UBSAN close with), at the next
 * report, or after SPLAT_LINES_MAX lines: what follows is no part of it. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "kmap.h"
#include "splat.h"

static const struct {
	enum splat_kind kind;
	const char *text;
} openings[] = {
#define SPLAT_OPENING_ROW(kind, text) {SPLAT_##kind, text},
    SPLAT_OPENINGS(SPLAT_OPENING_ROW)
#undef SPLAT_OPENING_ROW
};

static const struct {
	const char *name, *symbols, *config;
} kinds[SPLAT_NKINDS] = {{"none", NULL, ""},
#define SPLAT_KIND_ROW(name, symbols, config) {#name, symbols, config},
			 SPLAT_KINDS(SPLAT_KIND_ROW)
#undef SPLAT_KIND_ROW
};

const char *splat_kind_name(enum splat_kind k)
{
	return kinds[k > SPLAT_NONE && k < SPLAT_NKINDS ? k : SPLAT_NONE].name;
}

enum splat_kind splat_kind_by_name(const char *name)
{
	for (int k = SPLAT_NONE + 1; k < SPLAT_NKINDS; k++)
		if (!strcmp(name, kinds[k].name))
			return (enum splat_kind)k;
	return SPLAT_NONE;
}

const char *splat_kind_config(enum splat_kind k)
{
	return kinds[k > SPLAT_NONE && k < SPLAT_NKINDS ? k : SPLAT_NONE].config;
}

bool splat_printable(const struct kmap *map, enum splat_kind k)
{
	if (k <= SPLAT_NONE || k >= SPLAT_NKINDS)
		return false;
	const char *p = kinds[k].symbols;
	if (!p)
		return true;
	while (*p) {
		char sym[64];
		size_t n = strcspn(p, " ");
		snprintf(sym, sizeof(sym), "%.*s", (int)n, p);
		if (kmap_addr(map, sym))
			return true;
		p += n + (p[n] == ' ');
	}
	return false;
}

/* The message of a console line: after printk's "[    1.234567] " (a
 * stack frame's "[<ffffffff80123456>]" is part of the message). */
static const char *message(const char *line)
{
	if (line[0] != '[')
		return line;
	size_t n = 1 + strspn(line + 1, " 0123456789.");
	return line[n] == ']' && line[n + 1] == ' ' ? line + n + 2 : line;
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

/* Whether an opening of kind k, met while a report of kind open is being
 * kept, is that report going on rather than a new one: an oops prints its
 * cause ("Unable to handle kernel ...") and then "Oops [#1]", its
 * registers and its stack, one report. */
static bool continues(enum splat_kind open, enum splat_kind k)
{
	return open == SPLAT_oops && k == SPLAT_oops;
}

void splat_line(struct splat_log *l, const char *line)
{
	const char *msg = message(line);
	enum splat_kind k = splat_opens(line);
	if (k != SPLAT_NONE && !(l->open && continues(l->kind, k))) {
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

/* The reporting machinery's functions, which a report's stack starts in:
 * never a report's site. */
static const char *const machinery[] = {
    "dump_stack", "show_stack",	    "__warn",  "warn_",	  "report_bug", "ubsan_",
    "__ubsan_",	  "kasan_",	    "__kasan", "__asan_", "kfence_",	"print_",
    "lockdep_",	  "__lock",	    "lock_",   "_raw_",	  "do_trap",	"handle_exception",
    "__might_",	  "__schedule_bug", "check_",  "debug_",  "__list_",	"panic",
};

static bool is_machinery(const char *name, size_t n)
{
	for (size_t i = 0; i < sizeof(machinery) / sizeof(machinery[0]); i++) {
		size_t m = strlen(machinery[i]);
		if (n >= m && !strncmp(name, machinery[i], m))
			return true;
	}
	return false;
}

/* The function named right after `mark` in line (up to its '+'), or NULL. */
static const char *named_after(const char *line, size_t len, const char *mark, size_t *n)
{
	const char *at = strstr(line, mark);
	if (!at || at >= line + len)
		return NULL;
	at += strlen(mark);
	if (mark[0] == ' ' && mark[1] == 'a') /* " at FILE:LINE FUNC+": skip the place */
		at = strchr(at, ' ') ? strchr(at, ' ') + 1 : at + strlen(at);
	*n = strcspn(at, "+ \n");
	return at[*n] == '+' && *n ? at : NULL;
}

/* name (n bytes) into out from its byte at, as [a-z0-9_]: the length. */
static size_t put_name(const char *name, size_t n, char *out, size_t at, size_t cap)
{
	for (size_t i = 0; i < n && at + 1 < cap; i++) {
		char c = name[i];
		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		out[at++] = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ? c : '_';
	}
	out[at < cap ? at : cap - 1] = 0;
	return at;
}

void splat_site(const char *text, char *out, size_t cap)
{
	static const char *const marks[] = {" at ", " in ", "at: ", "epc : ", "] "};
	out[0] = 0;
	for (const char *line = text; *line && cap;) {
		size_t len = strcspn(line, "\n");
		for (size_t k = 0; k < sizeof(marks) / sizeof(marks[0]); k++) {
			size_t n = 0;
			const char *name = named_after(line, len, marks[k], &n);
			if (!name || is_machinery(name, n))
				continue;
			put_name(name, n, out, 0, cap);
			return;
		}
		line += len + (line[len] == '\n');
	}
}

/* The function of the frame whose source line starts at src ("fs/ext4/
 * namei.c:3556)", after the frame's "FUNC+0xOFF/0xLEN (") when that
 * file lies in a folder of fs/ (a filesystem's own code, jbd2's too, not
 * the VFS's fs/namei.c): its first byte, and its length in *n; else NULL. */
static const char *fs_frame(const char *text, const char *src, size_t *n)
{
	size_t dir = strcspn(src + 3, "/:)\n");
	if (strncmp(src, "fs/", 3) || src[3 + dir] != '/' || src - text < 3 || src[-2] != ' ')
		return NULL;
	const char *end = src - 2, *start = end; /* the frame ends at the " (" */
	while (start > text && start[-1] != ' ' && start[-1] != '\n')
		start--;
	*n = strcspn(start, "+");
	return start + *n < end && *n ? start : NULL;
}

/* The first SPLAT_SITE_FRAMES functions, in the report's order, of
 * frames inside a filesystem, as "f1,f2" into out: its length (0: none). */
static size_t fs_frames(const char *text, char *out, size_t cap)
{
	const char *seen[SPLAT_SITE_FRAMES];
	size_t seen_n[SPLAT_SITE_FRAMES], found = 0, at = 0;
	out[0] = 0;
	for (const char *p = strstr(text, " (fs/"); p && found < SPLAT_SITE_FRAMES;
	     p = strstr(p + 1, " (fs/")) {
		size_t n;
		const char *name = fs_frame(text, p + 2, &n);
		bool again = false;
		for (size_t i = 0; name && i < found; i++)
			again |= seen_n[i] == n && !strncmp(seen[i], name, n);
		if (!name || again)
			continue;
		if (found && at + 2 < cap)
			out[at++] = ',';
		at = put_name(name, n, out, at, cap);
		seen[found] = name, seen_n[found++] = n;
	}
	return at;
}

void splat_signature(enum splat_kind kind, const char *text, char *out, size_t cap)
{
	char site[48];
	if (!fs_frames(text, site, sizeof(site)))
		splat_site(text, site, sizeof(site));
	snprintf(out, cap, "kernel:%s%s%s", splat_kind_name(kind), site[0] ? ":" : "", site);
}

size_t splat_append_lines(const char *text, char *out, size_t n, size_t cap)
{
	for (const char *p = text; *p && n < cap;) {
		size_t len = strcspn(p, "\n");
		n += (size_t)snprintf(out + n, cap - n, "\nkernel %.*s", (int)len, p);
		p += len + (p[len] == '\n');
	}
	return n;
}
