/* show.c - see show.h. The bytes come from the agent's diff command (it
 * reads each disk through its own mount, up to a bound it names); the
 * fsck verdicts from the checker table `themis corrupt` uses. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lens/corrupt_fsck.h"
#include "show.h"

#define SHOW_FSCK_TIMEOUT 60.0 /* seconds a checker may take */
#define SHOW_ROW	  16   /* bytes on a line of the dump */

static void appendf(char *out, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void appendf(char *out, size_t cap, const char *fmt, ...)
{
	size_t n = strnlen(out, cap);
	if (n + 1 >= cap)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(out + n, cap - n, fmt, ap);
	va_end(ap);
}

/* The line of `log` that starts with prefix, its rest; NULL if none. */
static const char *line_after(const char *log, const char *prefix)
{
	size_t n = strlen(prefix);
	for (const char *l = log; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (!strncmp(l, prefix, n))
			return l + n;
	return NULL;
}

void check_show_stat(const struct check_machine *m, const char *log, const char *path,
		     const char *suffix, int only, bool more, char *out, size_t cap)
{
	if (!more)
		appendf(out, cap, "\n  stat of %s:", path);
	for (int i = 0; i < m->nfs; i++) {
		if (only >= 0 && i != only)
			continue;
		char prefix[300];
		snprintf(prefix, sizeof(prefix), "e %d %s ", i, path);
		const char *e = line_after(log, prefix);
		char l[CHECK_LABEL_MAX];
		appendf(out, cap, "\n    %s%s: %.*s", check_label(m, i, l), suffix,
			e ? (int)strcspn(e, "\n") : 6, e ? e : "absent");
	}
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* One disk's "START HEX" as xxd prints it, the row of `off` marked. */
static void xxd(const char *l, long long off, char *out, size_t cap)
{
	long long start;
	int n;
	if (sscanf(l, "%lld %n", &start, &n) != 1) {
		appendf(out, cap, " %.*s", (int)strcspn(l, "\n"), l);
		return;
	}
	const char *hex = l + n;
	size_t len = strcspn(hex, "\n") / 2;
	if (!len)
		appendf(out, cap, " (no bytes there: the file ends before it)");
	for (size_t r = 0; r < len; r += SHOW_ROW) {
		long long at = start + (long long)r;
		bool here = off >= at && off < at + SHOW_ROW;
		char text[SHOW_ROW + 1] = "";
		appendf(out, cap, "\n    %c %08llx:", here ? '>' : ' ', at);
		for (size_t j = 0; j < SHOW_ROW; j++) {
			if (r + j >= len) {
				appendf(out, cap, "%s  ", j % 2 ? "" : " ");
				continue;
			}
			int b = hexval(hex[2 * (r + j)]) * 16 + hexval(hex[2 * (r + j) + 1]);
			appendf(out, cap, "%s%02x", j % 2 ? "" : " ", b);
			text[j] = b >= 0x20 && b < 0x7f ? (char)b : '.';
		}
		appendf(out, cap, "  %s", text);
	}
}

/* Under two kernels: the first offset where disk 0's and disk 1's
 * windows ("b I START HEX", each from the file's start) differ, into *off:
 * 0; else -1 with what to say in out. */
static int peer_first_diff(const char *log, const char *path, char *out, size_t cap, long long *off)
{
	const char *b0 = line_after(log, "b 0 "), *b1 = line_after(log, "b 1 ");
	long long s0, s1;
	int n0, n1;
	if (!b0 || !b1 || sscanf(b0, "%lld %n", &s0, &n0) != 1 ||
	    sscanf(b1, "%lld %n", &s1, &n1) != 1 || s0 != s1) {
		appendf(out, cap, "\n  bytes of %s: not compared (a side is missing or unread)",
			path);
		return -1;
	}
	size_t l0 = strcspn(b0 + n0, "\n"), l1 = strcspn(b1 + n1, "\n"), k = 0;
	while (k < l0 && k < l1 && b0[n0 + k] == b1[n1 + k])
		k++;
	if (k == l0 && k == l1) {
		appendf(out, cap, "\n  bytes of %s: alike in the first %zu bytes compared", path,
			l0 / 2);
		return -1;
	}
	*off = s0 + (long long)(k / 2);
	return 0;
}

int check_show_bytes(struct virt *v, const struct check_machine *m, const char *path,
		     const char *suffix, char *out, size_t cap)
{
	char cmd[300], err[512];
	struct check_step st;
	snprintf(cmd, sizeof(cmd), AGENT_WORD(diff, " %s"), path);
	if (check_apply(v, m->nfs, cmd, &st, err, sizeof(err))) {
		appendf(out, cap, "\n  bytes of %s: %s", path, err);
		return -1;
	}
	const char *d = line_after(v->log, "d ");
	long long off = -1;
	if (v->peer) /* each machine compared its one disk with itself */
		d = peer_first_diff(v->log, path, out, cap, &off) ? NULL : "0";
	unsigned long long scanned;
	if (v->peer && !d)
		return 0;
	if (!d || !strncmp(d, "error", 5)) {
		appendf(out, cap, "\n  bytes of %s: the agent did not say (%.100s)", path,
			v->log ? v->log : "");
		return 0;
	}
	if (sscanf(d, "none %llu", &scanned) == 1) {
		appendf(out, cap, "\n  bytes of %s: alike in the first %llu bytes compared", path,
			scanned);
		return 0;
	}
	if (!v->peer && (sscanf(d, "%lld", &off) != 1 || off < 0)) {
		appendf(out, cap, "\n  bytes of %s: the agent said 'd %.40s'", path, d);
		return 0;
	}
	appendf(out, cap, "\n  first differing byte of %s: offset %lld (0x%llx)", path, off,
		(unsigned long long)off);
	for (int i = 0; i < m->nfs; i++) {
		char prefix[16];
		snprintf(prefix, sizeof(prefix), "b %d ", i);
		const char *b = line_after(v->log, prefix);
		char l[CHECK_LABEL_MAX];
		appendf(out, cap, "\n    %s%s:", check_label(m, i, l), suffix);
		xxd(b ? b : "(no answer)", off, out, cap);
	}
	return 0;
}

int check_show_fsck(struct virt *v, const struct check_machine *m, char *out, size_t cap)
{
	char err[512];
	unsigned unmounted;
	if (check_quiesce(v, m, (1u << m->nfs) - 1, &unmounted, err, sizeof(err))) {
		appendf(out, cap, "\n  fsck: %s", err);
		return -1;
	}
	appendf(out, cap, "\n  fsck of every disk (read-only, after a read-only remount):");
	for (int i = 0; i < m->nfs; i++) {
		char said[256];
		int status;
		enum corrupt_fsck_verdict verdict = corrupt_fsck_disk(
		    check_disk(v, i), m->fs[i], SHOW_FSCK_TIMEOUT, &status, said, sizeof(said));
		const char *how = corrupt_fsck_command(m->fs[i]);
		char l[CHECK_LABEL_MAX];
		appendf(out, cap, "\n    %s: %s", check_label(m, i, l), corrupt_fsck_name(verdict));
		if (unmounted >> i & 1)
			appendf(out, cap, " (after %s: it refused the remount)",
				check_quiesced_how(unmounted, i));
		if (how)
			appendf(out, cap, " (%s, exit %d)", how, status);
		if (said[0])
			appendf(out, cap, ": %s", said);
	}
	return 0;
}
