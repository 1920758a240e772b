/* semantics.c - see semantics.h. Every measure is a fork of one populated
 * machine holding every filesystem's disk; the agent applies each command
 * to all of them at once, so the filesystems' answers to one measure sit
 * side by side in one reply. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../util/json.h"
#include "../util/clock.h"
#include "../util/array.h"
#include "profile.h"
#include "semantics.h"

static const char *const field_names[SEM_NFIELDS] = {
#define SEM_NAME(e, name) #name,
    SEM_FIELDS(SEM_NAME)
#undef SEM_NAME
};

static const char *const mount_names[SEM_NMOUNTS] = {
#define SEM_MOUNT_NAME(name, FLAG) #name,
    ATIME_TABLE(SEM_MOUNT_NAME)
#undef SEM_MOUNT_NAME
};

#define TIME_BITS (1u << SEM_ATIME | 1u << SEM_MTIME | 1u << SEM_CTIME)

const char *sem_field_name(enum sem_field f)
{
	return (unsigned)f < SEM_NFIELDS ? field_names[f] : "?";
}

const char *sem_mount_name(enum sem_mount m)
{
	return (unsigned)m < SEM_NMOUNTS ? mount_names[m] : "?";
}

/* ---- what an operation acts on ---- */

struct targets {
	char from[64], to[64], parent[64]; /* see semantics.h */
	char list[200];			   /* the distinct ones, space-separated */
};

static void dir_of(const char *path, char out[64])
{
	const char *slash = strrchr(path, '/');
	if (slash)
		snprintf(out, 64, "%.*s", (int)(slash - path), path);
	else
		snprintf(out, 64, ".");
}

static void list_add(struct targets *t, const char *p)
{
	size_t used = strlen(t->list), n = strlen(p);
	for (const char *s = t->list; *s;) { /* already there? */
		size_t w = strcspn(s, " ");
		if (w == n && !memcmp(s, p, n))
			return;
		s += w + (s[w] == ' ');
	}
	if (used + n + 2 <= sizeof(t->list))
		snprintf(t->list + used, sizeof(t->list) - used, "%s%s", used ? " " : "", p);
}

/* The target and parent of op, from its argument letters (op_table.h):
 * false when it names no path (sync, remount). */
static bool op_targets(const struct op *op, struct targets *t)
{
	const char *letters = op_letters(op->kind);
	char words[8][64];
	int nw = 0, np = 0, path[2] = {-1, -1};
	for (const char *s = op->text; *s && nw < 8;) {
		size_t n = strcspn(s, " ");
		snprintf(words[nw++], 64, "%.*s", (int)n, s);
		s += n + (s[n] == ' ');
	}
	for (int i = 0; letters[i] && 2 + i < nw; i++)
		if (letters[i] == 'P' && np < 2)
			path[np++] = 2 + i;
	if (!np)
		return false;
	memset(t, 0, sizeof(*t));
	snprintf(t->from, sizeof(t->from), "%s", words[path[0]]);
	/* rename: the inode moves to the second path; link: it stays, and its
	 * link count is what moves; a new name appears in the second's
	 * directory either way. */
	snprintf(t->to, sizeof(t->to), "%s",
		 op->kind == OP_RENAME && np == 2 ? words[path[1]] : words[path[0]]);
	dir_of(np == 2 ? words[path[1]] : words[path[0]], t->parent);
	list_add(t, t->from);
	list_add(t, t->to);
	list_add(t, t->parent);
	return true;
}

/* ---- the agent's replies ---- */

/* The rest of the line "TAG DISK PATH REST" of log, or NULL. */
static const char *find_line(const char *log, char tag, int disk, const char *path)
{
	char prefix[100];
	int n = snprintf(prefix, sizeof(prefix), "%c %d %s ", tag, disk, path);
	for (const char *l = log; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (!strncmp(l, prefix, (size_t)n))
			return l + n;
	return NULL;
}

/* The value of "KEY=VALUE" in a line's rest, its length in *len; NULL
 * when absent. */
static const char *field_value(const char *rest, const char *key, size_t *len)
{
	size_t k = strlen(key);
	for (const char *w = rest; w && *w && *w != '\n';) {
		size_t n = strcspn(w, " \n");
		if (n > k && w[k] == '=' && !memcmp(w, key, k)) {
			*len = n - k - 1;
			return w + k + 1;
		}
		w += n + (w[n] == ' ');
	}
	return NULL;
}

/* Whether an entry's line says it exists (lstat succeeded). */
static bool exists(const char *rest)
{
	size_t n;
	const char *kind = rest ? field_value(rest, "kind", &n) : NULL;
	return kind && n && kind[0] != '!';
}

/* Run an agent command and keep its reply (malloc'd), or NULL with err:
 * the guest failed, or the agent refused the command ("error ..."). */
static char *agent(struct virt *v, const struct check_machine *m, const char *cmd, char *err,
		   size_t errlen)
{
	struct check_step st;
	char why[CHECK_DETAIL_MAX];
	if (check_apply(v, m->nfs, cmd, &st, why, sizeof(why))) {
		snprintf(err, errlen, "%s", why);
		return NULL;
	}
	const char *log = v->log ? v->log : "";
	if (!strncmp(log, "error ", 6) || strstr(log, "\nerror ")) {
		snprintf(err, errlen,
			 "the agent refused '%s' (an initramfs older than this build?): %.200s",
			 cmd, log);
		return NULL;
	}
	char *copy = strdup(log);
	if (!copy)
		snprintf(err, errlen, "out of memory");
	return copy;
}

/* mountopt on every disk: 0 when each said "r I 0 0". */
static int remount_with(struct virt *v, const struct check_machine *m, enum sem_mount opt,
			char *err, size_t errlen)
{
	char cmd[64];
	snprintf(cmd, sizeof(cmd), AGENT_WORD(mountopt, " %s"), sem_mount_name(opt));
	char *log = agent(v, m, cmd, err, errlen);
	if (!log)
		return -1;
	struct check_step st = {0};
	int rc = check_parse_reply(log, m->nfs, CHECK_REPLY_R, &st, err, errlen);
	for (int i = 0; rc == 0 && i < m->nfs; i++)
		if (st.ret[i] != 0) {
			snprintf(err, errlen, "'%s' failed: %.200s", cmd, log);
			rc = -1;
		}
	free(log);
	return rc;
}

/* ---- one measure ---- */

/* Fold a "SEC.NSEC" time into the granularity: the largest power of ten
 * (up to a second) that divides every nanosecond part seen; 0 before the
 * first. */
static void fold_granularity(const char *val, size_t len, uint32_t *g)
{
	const char *dot = memchr(val, '.', len);
	if (!dot)
		return;
	uint32_t ns = (uint32_t)strtoul(dot + 1, NULL, 10);
	if (*g == 0)
		*g = 1000000000;
	while (*g > 1 && ns % *g)
		*g /= 10;
}

/* Which fields of the object differ between (dump0, times0 at `before`)
 * and (dump1, times1 at `after`). */
static void compare_object(const char *const logs[4], int disk, const char *before,
			   const char *after, struct sem_object *o, uint32_t *g)
{
	const char *d0 = find_line(logs[0], 'e', disk, before);
	const char *d1 = find_line(logs[3], 'e', disk, after);
	const char *t0 = find_line(logs[1], 't', disk, before);
	const char *t1 = find_line(logs[2], 't', disk, after);
	snprintf(o->path, sizeof(o->path), "%s", after);
	o->before = exists(d0), o->after = exists(d1);
	for (int f = 0; f < SEM_NFIELDS && o->before && o->after; f++) {
		bool timed = TIME_BITS >> f & 1;
		size_t la = 0, lb = 0;
		const char *a = field_value(timed ? t0 : d0, field_names[f], &la);
		const char *b = field_value(timed ? t1 : d1, field_names[f], &lb);
		if (timed && a && b) {
			fold_granularity(a, la, g);
			fold_granularity(b, lb, g);
		}
		if (!a || !b || la != lb || memcmp(a, b, la))
			o->changed |= (uint16_t)(1u << f);
	}
}

static bool is_target(const struct targets *t, const char *path, size_t n)
{
	const char *const mine[] = {t->from, t->to, t->parent};
	for (int i = 0; i < 3; i++)
		if (strlen(mine[i]) == n && !memcmp(mine[i], path, n))
			return true;
	return false;
}

static void elsewhere_add(char *out, size_t cap, char mark, const char *path, size_t n)
{
	size_t used = strlen(out);
	if (used + n + 6 >= cap) {
		if (used + 5 < cap && !strstr(out, "..."))
			snprintf(out + used, cap - used, "%s...", used ? " " : "");
		return;
	}
	snprintf(out + used, cap - used, "%s%c%.*s", used ? " " : "", mark, (int)n, path);
}

/* The entries of disk's dumps other than the targets that appeared ("+"),
 * went ("-") or changed ("~"). */
static void compare_elsewhere(const char *dump0, const char *dump1, int disk,
			      const struct targets *t, char *out, size_t cap)
{
	char pfx[16];
	int pn = snprintf(pfx, sizeof(pfx), "e %d ", disk);
	out[0] = 0;
	for (int pass = 0; pass < 2; pass++) {
		const char *src = pass ? dump1 : dump0, *other = pass ? dump0 : dump1;
		for (const char *l = src; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : "") {
			if (strncmp(l, pfx, (size_t)pn))
				continue;
			const char *path = l + pn;
			size_t n = strcspn(path, " \n");
			char p[100];
			if (n >= sizeof(p) || is_target(t, path, n))
				continue;
			snprintf(p, sizeof(p), "%.*s", (int)n, path);
			const char *mine = path + n + (path[n] == ' '),
				   *theirs = find_line(other, 'e', disk, p);
			if (!theirs)
				elsewhere_add(out, cap, pass ? '+' : '-', path, n);
			else if (!pass && (strcspn(mine, "\n") != strcspn(theirs, "\n") ||
					   memcmp(mine, theirs, strcspn(mine, "\n"))))
				elsewhere_add(out, cap, '~', path, n);
		}
	}
}

/* dump, times, sleep, the operation, times, dump: into e[0..nfs). */
static int measure(struct virt *v, const struct check_machine *m, const struct op *op,
		   const struct targets *t, struct sem_entry *e, struct sem_result *r, char *err,
		   size_t errlen)
{
	char times[256], sleep[32], why[CHECK_DETAIL_MAX];
	char *logs[4] = {NULL, NULL, NULL, NULL}; /* dump, times, times, dump */
	char *slept = NULL;
	struct check_step st;
	int rc = -1;
	snprintf(times, sizeof(times), AGENT_WORD(times, " %s"), t->list);
	snprintf(sleep, sizeof(sleep), AGENT_WORD(sleep, " %d"), SEM_SLEEP);
	if (!(logs[0] = agent(v, m, AGENT_WORD(dump), err, errlen)) ||
	    !(logs[1] = agent(v, m, times, err, errlen)) ||
	    !(slept = agent(v, m, sleep, err, errlen)))
		goto out;
	if (check_apply(v, m->nfs, op->text, &st, why, sizeof(why))) {
		snprintf(err, errlen, "%s", why);
		goto out;
	}
	if (!(logs[2] = agent(v, m, times, err, errlen)) ||
	    !(logs[3] = agent(v, m, AGENT_WORD(dump), err, errlen)))
		goto out;
	for (int i = 0; i < m->nfs; i++) {
		e[i].ret = st.ret[i];
		snprintf(e[i].err, sizeof(e[i].err), "%s", st.err[i]);
		const char *const l[4] = {logs[0], logs[1], logs[2], logs[3]};
		compare_object(l, i, t->from, t->to, &e[i].obj[SEM_ROLE_TARGET],
			       &r->granularity_ns[i]);
		compare_object(l, i, t->parent, t->parent, &e[i].obj[SEM_ROLE_PARENT],
			       &r->granularity_ns[i]);
		compare_elsewhere(logs[0], logs[3], i, t, e[i].elsewhere, sizeof(e[i].elsewhere));
	}
	rc = 0;
out:
	for (int i = 0; i < 4; i++)
		free(logs[i]);
	free(slept);
	return rc;
}

static struct sem_entry *new_entries(struct sem_result *r, int nfs)
{
	return array_grow((void **)&r->e, &r->n, &r->cap, sizeof(*r->e), nfs);
}

/* Every measure of one operation under one mount option, in one fork. */
static int measure_op(struct virt *v, const struct check_machine *m, const struct op *op,
		      const struct targets *t, enum sem_mount opt, struct sem_result *r, char *err,
		      size_t errlen)
{
	if (virt_fork(v))
		return snprintf(err, errlen, "cannot fork the machine"), -1;
	int rc = remount_with(v, m, opt, err, errlen);
	int runs = op_flags(op->kind) & OPF_READONLY ? 2 : 1;
	for (int again = 0; again < runs && !rc; again++) {
		struct sem_entry *e = new_entries(r, m->nfs);
		if (!e) {
			snprintf(err, errlen, "out of memory");
			rc = -1;
			break;
		}
		for (int i = 0; i < m->nfs; i++) {
			snprintf(e[i].fs, sizeof(e[i].fs), "%s", m->fs[i]);
			snprintf(e[i].op, sizeof(e[i].op), "%s", op->text + 3);
			e[i].kind = op->kind, e[i].mount = opt, e[i].again = again;
		}
		rc = measure(v, m, op, t, e, r, err, errlen);
	}
	if (virt_release(v) && !rc) {
		snprintf(err, errlen, "cannot restore the machine");
		rc = -1;
	}
	return rc;
}

int semantics_run(const struct check_machine *m, const struct op *ops, int nops,
		  struct sem_result *r, char *err, size_t errlen)
{
	memset(r, 0, sizeof(*r));
	r->nfs = m->nfs;
	for (int i = 0; i < m->nfs; i++)
		snprintf(r->fs[i], sizeof(r->fs[i]), "%s", m->fs[i]);
	struct virt *v = profile_machine(m, err, errlen);
	if (!v)
		return -1;
	int rc = 0;
	double t0 = host_seconds();
	for (int k = 0; k < nops && !rc; k++) {
		struct targets t;
		if (!op_targets(&ops[k], &t))
			continue;
		for (int o = 0; o < SEM_NMOUNTS && !rc; o++)
			rc = measure_op(v, m, &ops[k], &t, (enum sem_mount)o, r, err, errlen);
	}
	r->seconds = host_seconds() - t0;
	virt_free(v);
	free(v);
	return rc;
}

void semantics_free(struct sem_result *r)
{
	free(r->e);
	memset(r, 0, sizeof(*r));
}

/* ---- the views ---- */

/* The entry of (op, again) on filesystem fs under opt, or NULL. */
static const struct sem_entry *entry_of(const struct sem_result *r, const struct sem_entry *row,
					int fs, enum sem_mount opt)
{
	for (int k = 0; k < r->n; k++) {
		const struct sem_entry *e = &r->e[k];
		if (e->mount == opt && e->again == row->again && !strcmp(e->op, row->op) &&
		    !strcmp(e->fs, r->fs[fs]))
			return e;
	}
	return NULL;
}

/* Whether `row` is the first entry of its (op, again): the rows to print. */
static bool first_of_row(const struct sem_result *r, int k)
{
	for (int j = 0; j < k; j++)
		if (r->e[j].again == r->e[k].again && !strcmp(r->e[j].op, r->e[k].op))
			return false;
	return true;
}

/* A footprint cell: '+' created, '-' removed, ' ' absent both times,
 * 'X' changed, '.' not. */
static char cell(const struct sem_object *o, int field)
{
	if (!o->before || !o->after)
		return o->after ? '+' : o->before ? '-' : ' ';
	return o->changed >> field & 1 ? 'X' : '.';
}

/* The parent's changed fields as words, "-" for none. */
static void fields_text(const struct sem_object *o, char *out, size_t cap)
{
	size_t used = 0;
	out[0] = 0;
	if (!o->before || !o->after) {
		snprintf(out, cap, "%s", o->after ? "new" : o->before ? "gone" : "none");
		return;
	}
	for (int f = 0; f < SEM_NFIELDS && used < cap; f++)
		if (o->changed >> f & 1)
			used += (size_t)snprintf(out + used, cap - used, "%s%s", used ? "," : "",
						 field_names[f]);
	if (!used)
		snprintf(out, cap, "-");
}

/* The timestamps cell of one object: "amc" with '.' for a time that did
 * not move; "new"/"gone" for an object created or removed. */
static void times_cell(const struct sem_object *o, char out[8])
{
	if (!o->before || !o->after) {
		snprintf(out, 8, "%s", o->after ? "new" : o->before ? "gone" : "-");
		return;
	}
	out[0] = o->changed >> SEM_ATIME & 1 ? 'a' : '.';
	out[1] = o->changed >> SEM_MTIME & 1 ? 'm' : '.';
	out[2] = o->changed >> SEM_CTIME & 1 ? 'c' : '.';
	out[3] = 0;
}

static void timestamps_text(const struct sem_entry *e, char *out, size_t cap)
{
	char a[8], b[8];
	times_cell(&e->obj[SEM_ROLE_TARGET], a);
	times_cell(&e->obj[SEM_ROLE_PARENT], b);
	snprintf(out, cap, "%s/%s", a, b);
}

/* The footprint row of e differs from another filesystem's in field f
 * (f = SEM_NFIELDS: in the parent's fields; SEM_NFIELDS + 1: elsewhere). */
static bool disagree(const struct sem_result *r, const struct sem_entry *row, enum sem_mount opt,
		     int f)
{
	const struct sem_entry *first = NULL;
	for (int i = 0; i < r->nfs; i++) {
		const struct sem_entry *e = entry_of(r, row, i, opt);
		if (!e)
			continue;
		if (!first) {
			first = e;
			continue;
		}
		const struct sem_object *a = &first->obj[SEM_ROLE_PARENT],
					*b = &e->obj[SEM_ROLE_PARENT];
		bool differ =
		    f < SEM_NFIELDS
			? cell(&first->obj[SEM_ROLE_TARGET], f) != cell(&e->obj[SEM_ROLE_TARGET], f)
		    : f == SEM_NFIELDS
			? a->changed != b->changed || a->before != b->before || a->after != b->after
			: strcmp(first->elsewhere, e->elsewhere) != 0;
		if (differ)
			return true;
	}
	return false;
}

/* Timestamps of the row differ between filesystems under opt. */
static bool times_disagree(const struct sem_result *r, const struct sem_entry *row,
			   enum sem_mount opt)
{
	char first[24] = "", mine[24];
	for (int i = 0; i < r->nfs; i++) {
		const struct sem_entry *e = entry_of(r, row, i, opt);
		if (!e)
			continue;
		timestamps_text(e, mine, sizeof(mine));
		if (first[0] && strcmp(first, mine))
			return true;
		snprintf(first, sizeof(first), "%s", mine);
	}
	return false;
}

static void row_name(const struct sem_entry *e, char *out, size_t cap)
{
	snprintf(out, cap, "%s%s", e->op, e->again ? " (again)" : "");
}

static void print_footprint(const struct sem_result *r, FILE *f)
{
	fprintf(f,
		"footprint under relatime (the default): the target's fields, X changed, . not,\n"
		"+ created, - removed; its parent directory's; other entries + new, - gone, ~ "
		"changed;\n! after a column: the filesystems disagree there\n");
	fprintf(f, "%-30s %-6s", "operation", "fs");
	for (int k = 0; k < SEM_NFIELDS; k++)
		fprintf(f, " %-*s", (int)strlen(field_names[k]) + 1, field_names[k]);
	fprintf(f, " %-22s %-16s %s\n", "parent", "elsewhere", "result");
	for (int k = 0; k < r->n; k++) {
		if (!first_of_row(r, k))
			continue;
		char name[OP_TEXT_MAX + 16];
		row_name(&r->e[k], name, sizeof(name));
		bool bad[SEM_NFIELDS + 2];
		for (int x = 0; x < SEM_NFIELDS + 2; x++)
			bad[x] = disagree(r, &r->e[k], SEM_MOUNT_RELATIME, x);
		for (int i = 0; i < r->nfs; i++) {
			const struct sem_entry *e = entry_of(r, &r->e[k], i, SEM_MOUNT_RELATIME);
			if (!e)
				continue;
			char parent[96], other[sizeof(e->elsewhere) + 2];
			fields_text(&e->obj[SEM_ROLE_PARENT], parent, sizeof(parent));
			if (bad[SEM_NFIELDS])
				strcat(parent, "!"); /* fields_text leaves room: 12 names fit */
			snprintf(other, sizeof(other), "%s%s", e->elsewhere[0] ? e->elsewhere : "-",
				 bad[SEM_NFIELDS + 1] ? "!" : "");
			fprintf(f, "%-30.30s %-6s", i ? "" : name, e->fs);
			for (int x = 0; x < SEM_NFIELDS; x++)
				fprintf(f, " %c%-*s", cell(&e->obj[SEM_ROLE_TARGET], x),
					(int)strlen(field_names[x]), bad[x] ? "!" : "");
			fprintf(f, " %-22s %-16s %s\n", parent, other, e->err);
		}
	}
}

static void print_timestamps(const struct sem_result *r, FILE *f)
{
	fprintf(f, "\ntimestamps moved, target/parent: a atime, m mtime, c ctime, . did not move;\n"
		   "new/gone: created/removed; ! the filesystems disagree\n");
	fprintf(f, "%-30s %-6s", "operation", "fs");
	for (int o = 0; o < SEM_NMOUNTS; o++)
		fprintf(f, " %-13s", mount_names[o]);
	fprintf(f, "\n");
	for (int k = 0; k < r->n; k++) {
		if (!first_of_row(r, k))
			continue;
		char name[OP_TEXT_MAX + 16];
		row_name(&r->e[k], name, sizeof(name));
		for (int i = 0; i < r->nfs; i++) {
			fprintf(f, "%-30.30s %-6s", i ? "" : name, r->fs[i]);
			for (int o = 0; o < SEM_NMOUNTS; o++) {
				const struct sem_entry *e =
				    entry_of(r, &r->e[k], i, (enum sem_mount)o);
				char text[24] = "?";
				if (e)
					timestamps_text(e, text, sizeof(text));
				if (times_disagree(r, &r->e[k], (enum sem_mount)o))
					strcat(text, "!"); /* "gone/gone!" fits */
				fprintf(f, " %-13s", text);
			}
			fprintf(f, "\n");
		}
	}
}

/* "10 ms" for 10000000 (a power of ten of nanoseconds). */
static void unit_text(uint32_t ns, char *out, size_t cap)
{
	static const char *const units[] = {"ns", "us", "ms", "s"};
	int u = 0;
	if (!ns) {
		snprintf(out, cap, "none seen");
		return;
	}
	while (u < 3 && ns >= 1000 && ns % 1000 == 0)
		ns /= 1000, u++;
	snprintf(out, cap, "%u %s", ns, units[u]);
}

void semantics_print(const struct sem_result *r, FILE *f)
{
	fprintf(f,
		"\nsemantics: each operation runs %d s of guest time after the state before it;\n"
		"\"(again)\": a read-only operation run a second time, %d s after the first;\n"
		"timestamp granularity seen (the coarsest power of ten every time was a "
		"multiple of):",
		SEM_SLEEP, SEM_SLEEP);
	for (int i = 0; i < r->nfs; i++) {
		char unit[16];
		unit_text(r->granularity_ns[i], unit, sizeof(unit));
		fprintf(f, " %s %s%s", r->fs[i], unit, i + 1 < r->nfs ? "," : "");
	}
	fprintf(f, "\n\n");
	print_footprint(r, f);
	print_timestamps(r, f);
	int n = 0;
	for (int k = 0; k < r->n; k++)
		n += first_of_row(r, k);
	fprintf(f, "%d operations x %d mount options in %.2f s\n", n, SEM_NMOUNTS, r->seconds);
}

/* ---- JSON ---- */

static void json_fields(uint16_t bits, FILE *f)
{
	fprintf(f, "[");
	for (int x = 0, n = 0; x < SEM_NFIELDS; x++)
		if (bits >> x & 1)
			fprintf(f, "%s\"%s\"", n++ ? ", " : "", field_names[x]);
	fprintf(f, "]");
}

static void json_object(const struct sem_object *o, FILE *f)
{
	fprintf(f, "{\"path\": ");
	json_string(f, o->path);
	fprintf(f, ", \"before\": %s, \"after\": %s, \"changed\": ", o->before ? "true" : "false",
		o->after ? "true" : "false");
	json_fields(o->before && o->after ? o->changed : 0, f);
	fprintf(f, "}");
}

static void json_times(const struct sem_object *o, FILE *f)
{
	bool both = o->before && o->after;
	fprintf(
	    f, "{\"atime\": %s, \"mtime\": %s, \"ctime\": %s, \"created\": %s, \"removed\": %s}",
	    both && o->changed >> SEM_ATIME & 1 ? "true" : "false",
	    both && o->changed >> SEM_MTIME & 1 ? "true" : "false",
	    both && o->changed >> SEM_CTIME & 1 ? "true" : "false",
	    !o->before && o->after ? "true" : "false", o->before && !o->after ? "true" : "false");
}

static void json_head(const struct sem_entry *e, FILE *f)
{
	fprintf(f, "{\"fs\": \"%s\", \"op\": \"%s\", \"command\": ", e->fs, op_name(e->kind));
	json_string(f, e->op);
	fprintf(f, ", \"again\": %s, ", e->again ? "true" : "false");
}

void semantics_json(const struct sem_result *r, FILE *f)
{
	fprintf(f, "  \"semantics\": {\n    \"interval_s\": %d,\n    \"granularity_ns\": {",
		SEM_SLEEP);
	for (int i = 0; i < r->nfs; i++)
		fprintf(f, "%s\"%s\": %u", i ? ", " : "", r->fs[i], r->granularity_ns[i]);
	fprintf(f, "},\n    \"footprint_mount\": \"%s\",\n    \"footprint\": [",
		mount_names[SEM_MOUNT_RELATIME]);
	int n = 0;
	for (int k = 0; k < r->n; k++) {
		const struct sem_entry *e = &r->e[k];
		if (e->mount != SEM_MOUNT_RELATIME)
			continue;
		bool bad[SEM_NFIELDS + 2];
		for (int x = 0; x < SEM_NFIELDS + 2; x++)
			bad[x] = disagree(r, e, SEM_MOUNT_RELATIME, x);
		fprintf(f, "%s\n      ", n++ ? "," : "");
		json_head(e, f);
		fprintf(f, "\"result\": \"%s\",\n       \"target\": ", e->err);
		json_object(&e->obj[SEM_ROLE_TARGET], f);
		fprintf(f, ",\n       \"parent\": ");
		json_object(&e->obj[SEM_ROLE_PARENT], f);
		fprintf(f, ",\n       \"elsewhere\": ");
		json_string(f, e->elsewhere);
		fprintf(f, ", \"disagree\": [");
		for (int x = 0, k2 = 0; x < SEM_NFIELDS + 2; x++)
			if (bad[x])
				fprintf(f, "%s\"%s\"", k2++ ? ", " : "",
					x < SEM_NFIELDS	   ? field_names[x]
					: x == SEM_NFIELDS ? "parent"
							   : "elsewhere");
		fprintf(f, "]}");
	}
	fprintf(f, "\n    ],\n    \"timestamps\": [");
	for (int k = 0; k < r->n; k++) {
		const struct sem_entry *e = &r->e[k];
		fprintf(f, "%s\n      ", k ? "," : "");
		json_head(e, f);
		fprintf(f, "\"mount\": \"%s\", \"result\": \"%s\",\n       \"target\": ",
			mount_names[e->mount], e->err);
		json_times(&e->obj[SEM_ROLE_TARGET], f);
		fprintf(f, ",\n       \"parent\": ");
		json_times(&e->obj[SEM_ROLE_PARENT], f);
		fprintf(f, ", \"disagree\": %s}",
			times_disagree(r, e, e->mount) ? "true" : "false");
	}
	fprintf(f, "\n    ]\n  }");
}
