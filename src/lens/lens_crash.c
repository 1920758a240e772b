/* lens_crash.c - crash states at every explored node (explore --crash):
 * after each operation that reached a disk, the machine loses its power at
 * crash points and comes back: each crash disk is recovered in a fork of
 * a machine booted alike, as after a reboot (src/lens/crash.c), and each
 * recovered filesystem is judged. Always registered, it acts only when the
 * machine asks for crash states (check_machine.crash_states), so replay
 * and the minimizer crash the same points as the run that found them.
 *
 * Crash points, per operation, built from the disks' write logs:
 *   - the operation's end, every disk at once (what the kernel holds in
 *     memory is lost; everything the disks were sent is there);
 *   - per disk, the completion of every flush the operation sent: the
 *     writes before it, none after;
 *   - per disk, up to K (crash_states) seeded subsets, each in a seeded
 *     order, of the writes of an epoch that was open during the operation:
 *     the writes since the last completed flush (which may lie several
 *     operations back), or those an operation's flush closed. Until the
 *     flush completes, the device may have written any of them.
 *
 * What is checked (signatures "crash:KIND"):
 *   - unmountable: a crash disk does not mount (jfs's after jfs_fsck's
 *     log replay, which the kernel leaves to user space: crash_replay.h);
 *   - unreadable: a crash disk mounts, but walking it fails (EIO...);
 *   - recovery: the guest panics or hangs recovering;
 *   - lost-sync: at the end of `sync`, the recovered tree is not the one
 *     sync returned on (every filesystem promises sync);
 *   - fsck: the filesystem's own checker (read-only, corrupt_fsck.h), run
 *     on every recovered disk after an unmount lets recovery's writes
 *     land (memoized by content: crash_fsck.h), finds errors, on a
 *     filesystem that recovers (its descriptor, src/fs);
 *   - lost-fsync: at the end of `fsync P`, P's record (kind, mode, owner,
 *     size, content, target, xattrs; not nlink, which other names share)
 *     is not the one the call returned on; at the end of `fdatasync P`, P
 *     is missing or its size or content is not the one the call returned
 *     on; at the end of a write of 1 byte or more with O_SYNC (O_DSYNC, or
 *     an mwrite's msync), which syncs only the range it wrote, P is
 *     missing, shorter than the range's end (or than it was, when an
 *     mwrite stored past its end), or (O_SYNC) of another kind,
 *     mode or owner. P is the file a symlink at P leads to (open follows
 *     it). On a filesystem that makes a file's name durable with it
 *     (the descriptor's fsync_names); others (ext2, vfat, exfat, minix, jfs)
 *     promise nothing beyond sync here.
 *   - recovery-crash: at the operation's end, the recovery itself is
 *     crashed (nesting depth 2: after each flush it completed, and, after
 *     a host log replay, before any of the kernel's writes landed) and
 *     recovered again, which must mount and reach the state the
 *     uninterrupted recovery reached;
 * Within an operation (flush points, subsets) only the first three apply:
 * what an unfinished call promises is nothing.
 *
 * Each discrepancy names its crash point as a trace step (docs/trace.md),
 * `crash end`, `crash flush DISK UPTO` or `crash subset DISK FROM ORDER`:
 * write numbers are the disk's since power-on, ORDER the subset's writes
 * as offsets from FROM in crash order, one base-64 digit each ("." for
 * none). A replay of a trace ending in such a step (check_machine's
 * crash_at) crashes that point alone, at the last operation. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "../check/check.h"
#include "../fs/fs.h"
#include "crash.h"
#include "crash_replay.h"
#include "../proto/op_grammar.h"
#include "../machine/kline.h"
#include "../machine/virt.h"
#include "../util/rng.h"
#include "lens_crash.h"
#include "../check/phase.h"
#include "lens.h"

#define CRASH_EXTRA_MAX 64 /* writes a subset draws from: the epoch's last ones */

/* The lens's counters, once: X(NAME, json key). */
#define CRASH_WORDS(X)                                                                             \
	X(STATES, "crash_states")                                                                  \
	X(ENDS, "at_operation_end")                                                                \
	X(FLUSHES, "after_flush")                                                                  \
	X(SUBSETS, "subsets")                                                                      \
	X(NESTED, "recovery_crashes")                                                              \
	X(FSCK_RUNS, "fsck_runs")                                                                  \
	X(FSCK_HITS, "fsck_memo_hits")                                                             \
	X(FSCK_MASKED, "fsck_memo_masked_hits")                                                    \
	X(FSCK_MISMATCHES, "fsck_memo_mismatches")                                                 \
	X(MEMO_HITS, "recovery_memo_hits")                                                         \
	X(NESTED_HITS, "recovery_crash_memo_hits")                                                 \
	X(DIVERGED, "ends_diverged")

enum {
#define CRASH_WORD_ENUM(name, json) CR_##name,
	CRASH_WORDS(CRASH_WORD_ENUM)
#undef CRASH_WORD_ENUM
	    CR_WORDS
};

#define CRASH_FSCK_TIMEOUT 60.0 /* seconds a checker may take */

struct crash_state {
	bool on;		      /* the machine asks for crash states */
	uint64_t start[CHECK_MAX_FS]; /* each write log's end at before() */
	uint64_t epoch[CHECK_MAX_FS]; /* and each disk's flush count */
	struct crash_fsck fsck;	      /* the checker, memoized by recovered content */
	struct crash_memo memo;	      /* recoveries, remembered by crash content */
	struct crash_reboot *reboot;  /* where crashes recover, booted at the first */
	struct kline *lines;	      /* the kernel's line tables (crash_ask.lines) */
};

static int crash_attach(void *state, const struct check_config *cfg, const struct check_machine *m,
			char *err, size_t errlen)
{
	(void)cfg;
	struct crash_state *c = state;
	c->on = m->crash_states > 0;
	c->fsck.timeout = CRASH_FSCK_TIMEOUT;
	c->fsck.memo = m->fsck_memo;
	c->memo.off = m->crash_no_memo;
	c->memo.check = m->crash_memo_check;
	if (c->on && m->kernel && kline_open(&c->lines, m->kernel) < 0) {
		snprintf(err, errlen, "the crash lens: out of memory");
		return -1;
	}
	return 0;
}

static void crash_detach(void *state)
{
	struct crash_state *c = state;
	crash_fsck_free(&c->fsck);
	crash_memo_free(&c->memo);
	kline_close(c->lines);
	c->lines = NULL;
	if (c->reboot)
		crash_reboot_free(c->reboot);
	free(c->reboot);
	c->reboot = NULL;
}

/* The machines crashes recover in, booted on first use (each worker
 * process boots its own). NULL with why when they cannot boot. */
static struct crash_reboot *reboot_machines(struct crash_state *c, const struct check_machine *m,
					    char *why, size_t whylen)
{
	if (c->reboot)
		return c->reboot;
	struct crash_reboot *b = malloc(sizeof(*b));
	if (!b) {
		snprintf(why, whylen, "out of memory for the machines crashes recover in");
		return NULL;
	}
	if (crash_boot(b, m, why, whylen)) {
		free(b);
		return NULL;
	}
	return c->reboot = b;
}

static void crash_before(void *state, struct virt *v, const struct op *op)
{
	(void)op;
	struct crash_state *c = state;
	if (!c->on)
		return; /* the write log stays off: it costs a copy of every write */
	for (int i = 0; i < v->ndisks && i < CHECK_MAX_FS; i++) {
		struct disk *d = &v->disks[i];
		disk_wlog_enable(d);
		const struct disk_wentry *e;
		uint64_t first, n = disk_wlog(d, &e, &first), from = n;
		/* Keep the open epoch's writes: a crash may lose any of them. */
		while (from > 0 && e[from - 1].epoch == disk_epoch(d))
			from--;
		disk_wlog_keep(d, first + from);
		c->start[i] = first + n;
		c->epoch[i] = disk_epoch(d);
	}
}

/* One operation's crash states being judged, and where to say what they
 * found. */
struct judge {
	struct virt *v;
	const struct check_machine *m;
	const struct op *op;
	const struct check_step *s, *parent;
	struct lens_out *out;
	struct crash_state *c;
	uint64_t *words;
	uint64_t rng;
	char step[OP_TEXT_MAX]; /* the crash point being judged, as a trace step */
	char *live;		/* the state's live dump, once read (crash_ask.live) */
};

static const char order_digits[] = CRASH_ORDER_DIGITS;
_Static_assert(sizeof(order_digits) - 1 == CRASH_EXTRA_MAX, "one digit per write a subset draws");

/* What an operation promises durable at its end. */
enum promise {
	PROMISE_NONE,
	PROMISE_FILE, /* fsync: the file's whole record */
	PROMISE_DATA, /* fdatasync: its size and content */
	/* An O_SYNC write (FILE_RANGE), an O_DSYNC write or msync
	 * (DATA_RANGE) syncs the range it wrote (vfs_fsync_range), not what
	 * earlier writes left dirty elsewhere in the file: the file is there,
	 * at least as long as the range's end, (O_SYNC) with its mode and
	 * owner, and the range's bytes as the call left them (read back with
	 * the agent's range command: the dump hashes whole files). */
	PROMISE_FILE_RANGE,
	PROMISE_DATA_RANGE,
};

/* The path the operation promises durable at its end into path ("" for
 * none), what of it (*what) and, for a range, the range [*from, *upto);
 * true when it promises the whole tree (sync). fdatasync promises the
 * data and what reads it back (the size), not the mode, owner or times
 * (POSIX's fdatasync; Linux's skip the journal commit when only those
 * changed). */
static bool promised(const struct op *op, char *path, size_t cap, enum promise *what,
		     unsigned long long *from, unsigned long long *upto)
{
	char name[32], p[128], flags[64] = "";
	unsigned long long off = 0, size = 0;
	path[0] = 0;
	*what = PROMISE_NONE;
	if (op->kind == OP_SYNC)
		return true;
	if (op->kind == OP_FSYNC)
		*what = PROMISE_FILE;
	else if (op->kind == OP_FDATASYNC)
		*what = PROMISE_DATA;
	/* A write of no bytes syncs nothing: Linux syncs what was written. */
	else if (op->kind == OP_WRITE &&
		 sscanf(op->text, "op write %*s %llu %llu %*s %63s", &off, &size, flags) == 3 &&
		 size)
		*what = op_flag_set('W', flags) & op_flag_set('W', "sync")    ? PROMISE_FILE_RANGE
			: op_flag_set('W', flags) & op_flag_set('W', "dsync") ? PROMISE_DATA_RANGE
									      : PROMISE_NONE;
	/* msync(MS_SYNC) of the mapped range, after every store landed (RET
	 * = size: checked by the caller, which skips a failed call). */
	else if (op->kind == OP_MWRITE &&
		 sscanf(op->text, "op mwrite %*s %llu %llu", &off, &size) == 2 && size)
		*what = PROMISE_DATA_RANGE;
	*from = off;
	*upto = off + size;
	if (*what != PROMISE_NONE && sscanf(op->text, "op %31s %127s", name, p) == 2) {
		size_t len = strlen(p);
		snprintf(path, cap, "%.*s", (int)(len > 1 && p[len - 1] == '/' ? len - 1 : len), p);
	}
	return false;
}

void lens_crash_promise(const char *optext, char *out, size_t cap)
{
	struct op op = {.kind = (enum op_kind)op_kind_of_text(optext)};
	char path[128];
	enum promise what;
	unsigned long long from, upto;
	snprintf(op.text, sizeof(op.text), "%s", optext);
	out[0] = 0;
	if ((int)op.kind < 0)
		return;
	if (promised(&op, path, sizeof(path), &what, &from, &upto)) {
		snprintf(out, cap, "sync");
		return;
	}
	static const char *const words[] = {"", "file", "data", "file-range", "data-range"};
	if (what != PROMISE_NONE && path[0])
		snprintf(out, cap, "%s %s %llu", words[what], path, upto);
}

/* Only a record's fields named in keep (each "NAME=", NULL-ended). */
static void keep_fields(char *rec, size_t cap, const char *const *keep)
{
	char out[1024];
	size_t len = 0;
	out[0] = 0;
	for (const char *f = rec; *f; f += strcspn(f, " "), f += strspn(f, " "))
		for (const char *const *k = keep; *k; k++)
			if (!strncmp(f, *k, strlen(*k)))
				len += (size_t)snprintf(out + len, sizeof(out) - len, "%s%.*s",
							len ? " " : "", (int)strcspn(f, " "), f);
	snprintf(rec, cap, "%s", out);
}

/* The fields each kind of promise holds (PROMISE_FILE: all of them). */
static const char *const *promise_fields(enum promise kind)
{
	static const char *const data[] = {"size=", "content=", NULL};
	static const char *const file_range[] = {"kind=", "mode=", "uid=", "gid=", NULL};
	static const char *const data_range[] = {"kind=", NULL};
	return kind == PROMISE_DATA	    ? data
	       : kind == PROMISE_FILE_RANGE ? file_range
	       : kind == PROMISE_DATA_RANGE ? data_range
					    : NULL;
}

/* A record's size= field: its value, or -1 when it has none. */
static long long size_of(const char *rec)
{
	const char *f = strstr(rec, " size=");
	return f && f[6] >= '0' && f[6] <= '9' ? atoll(f + 6) : -1;
}

/* Disk i's record of path in a dump, without its nlink, into out; false
 * when the dump has none. */
static bool record_of(const char *dump, int i, const char *path, char *out, size_t cap)
{
	char head[160];
	int n = snprintf(head, sizeof(head), "e %d %s ", i, path);
	for (const char *l = dump; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (strncmp(l, head, (size_t)n))
			continue;
		snprintf(out, cap, "%.*s", (int)strcspn(l + n, "\n"), l + n);
		char *nl = strstr(out, "nlink=");
		if (nl) {
			char *end = nl + strcspn(nl, " ");
			memmove(nl, end + (*end == ' '), strlen(end + (*end == ' ')) + 1);
		}
		return true;
	}
	return false;
}

/* fsync and O_SYNC open their path, and open follows symlinks: what the
 * call made durable is the file a symlink at path leads to, not the link
 * (btrfs logs only that inode). path becomes that file's path in disk
 * i's live dump, and its record goes into rec; false when the chain
 * leaves the test root or is longer than the kernel follows (the call
 * failed then, and promised nothing). */
static bool follow_links(const char *dump, int i, char *path, size_t pathcap, char *rec, size_t cap)
{
	for (int hops = 0; hops < 40; hops++) {
		if (!record_of(dump, i, path, rec, cap))
			return false;
		const char *t = strstr(rec, " target=");
		if (!strstr(rec, "kind=symlink") || !t)
			return true;
		t += strlen(" target=");
		int tlen = (int)strcspn(t, " ");
		const char *slash = strrchr(path, '/');
		int dirlen = slash ? (int)(slash - path) + 1 : 0;
		char next[128];
		if (*t == '/' || strstr(t, "..") ||
		    snprintf(next, sizeof(next), "%.*s%.*s", dirlen, path, tlen, t) >=
			(int)sizeof(next))
			return false;
		snprintf(path, pathcap, "%s", next);
	}
	return false;
}

/* Disk i's paths in a dump, a directory with a '/', into out. */
static void names_of(const char *dump, int i, char *out, size_t cap)
{
	char head[16];
	size_t len = 0;
	int n = snprintf(head, sizeof(head), "e %d ", i);
	out[0] = 0;
	for (const char *l = dump; l && *l && len < cap;
	     l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *p = l + n, *kind = strstr(p, " kind=");
		size_t w = strcspn(p, " \n");
		if (strncmp(l, head, (size_t)n) || (w == 1 && *p == '.'))
			continue;
		bool dir = kind && kind < p + strcspn(p, "\n") && kind[6] == 'd';
		len += (size_t)snprintf(out + len, cap - len, "%s%.*s%s", len ? " " : "", (int)w, p,
					dir ? "/" : "");
	}
	if (!out[0])
		snprintf(out, cap, "nothing");
}

/* The agent's range command for a range promise's bytes: each disk's
 * LEN what its call wrote (a write's return; msync's whole range);
 * false for a promise of no range. */
static bool range_command(const struct judge *j, const char *path, enum promise kind,
			  unsigned long long from, unsigned long long upto, char *out, size_t cap)
{
	if ((kind != PROMISE_FILE_RANGE && kind != PROMISE_DATA_RANGE) || !path[0])
		return false;
	size_t len = (size_t)snprintf(out, cap, AGENT_WORD(range, " %s %llu"), path, from);
	for (int i = 0; i < j->m->nfs && len < cap; i++) {
		long long ret = j->s->ret[i];
		unsigned long long n = j->op->kind != OP_WRITE ? upto - from
				       : ret > 0	       ? (unsigned long long)ret
							       : 0;
		len += (size_t)snprintf(out + len, cap - len, " %llu", n);
	}
	return len < cap;
}

/* Disk i's range line of a dump ("h I N HASH FILE"): "N HASH" (or its
 * "!ERRNO"), or NULL when it has none. */
static const char *range_of(const char *dump, int i, char *out, size_t cap)
{
	char head[16];
	int n = snprintf(head, sizeof(head), "h %d ", i);
	for (const char *l = dump; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (!strncmp(l, head, (size_t)n)) {
			const char *v = l + n, *hash = v + strcspn(v, " \n");
			hash += *hash == ' ';
			snprintf(out, cap, "%.*s", (int)(hash - v + strcspn(hash, " \n")), v);
			return out;
		}
	return NULL;
}

/* Say a crash state's discrepancy: sig crash:KIND, why = what, then
 * where and the step that crashes it again. Returns 1 (a discrepancy). */
/* A finding at this crash point, signed sig. */
static int found_signed(struct judge *j, const char *sig, const char *what, const char *where)
{
	snprintf(j->out->sig, j->out->siglen, "%s", sig);
	snprintf(j->out->why, j->out->whylen, "%s (crash point: %s; " CRASH_STEP_MARK "%s`)", what,
		 where, j->step);
	return 1;
}

static int found(struct judge *j, const char *kind, const char *what, const char *where)
{
	char sig[64];
	snprintf(sig, sizeof(sig), "crash:%s", kind);
	return found_signed(j, sig, what, where);
}

/* The kernel reported something while it recovered this crash disk: the
 * kernel lens's finding (kernel:KIND:SITE), at this crash point. */
static int check_report(struct judge *j, const struct crash_result *r, const char *where)
{
	char what[400];
	if (r->report == SPLAT_NONE)
		return 0;
	snprintf(what, sizeof(what), "the kernel reported %s while it recovered a crash: %s",
		 splat_kind_name(r->report), r->report_line);
	return found_signed(j, r->report_sig, what, where);
}

/* How many writes of e[from..at) touch a sector e[at] writes. */
static uint64_t touches_before(const struct disk_wentry *e, uint64_t from, uint64_t at)
{
	uint64_t n = 0;
	for (uint64_t w = from; w < at; w++)
		n += e[w].sector < e[at].sector + e[at].count &&
		     e[at].sector < e[w].sector + e[w].count;
	return n;
}

/* The crash point on disk i as a reproducer rebuilds it from its own
 * recording of the writes (repro.h), appended to the finding as a shown
 * line: "crash-point FS drop R" (every write but the last R runs, a run
 * being the writes between two completed flushes) or "crash-point FS
 * subset R C S+N#K,..." (every write before the last R+1 runs, the first C
 * writes of run R, then of run R's writes the K+1-th that touches sectors
 * S+N, range by range, in that order). */
static void say_point(struct judge *j, int i)
{
	struct crash_step cs;
	const struct disk_wentry *e;
	uint64_t first, n = disk_wlog(&j->v->disks[i], &e, &first);
	size_t len = strlen(j->out->why), cap = j->out->whylen;
	char *w = j->out->why;
	if (crash_step_parse(j->step, &cs) || len >= cap)
		return;
	if (cs.kind != CRASH_STEP_END && (cs.disk != i || cs.at < first || cs.at > first + n))
		return;
	uint64_t k = cs.kind == CRASH_STEP_END ? n : cs.at - first; /* the end keeps all */
	if (cs.kind != CRASH_STEP_SUBSET) {
		snprintf(w + len, cap - len, "\n" CRASH_POINT_WORD " %s drop %llu", j->m->fs[i],
			 (unsigned long long)crash_runs_from(e, k, n));
		return;
	}
	uint64_t c = 0, runs = crash_runs_from(e, k, n);
	while (k < n && c < k && e[k - c - 1].epoch == e[k].epoch)
		c++;
	len += (size_t)snprintf(w + len, cap - len, "\n" CRASH_POINT_WORD " %s subset %llu %llu ",
				j->m->fs[i], (unsigned long long)(runs ? runs - 1 : 0),
				(unsigned long long)c);
	for (size_t x = 0; x < cs.nextra && len < cap; x++) {
		uint64_t at = cs.extra[x] - first;
		len += (size_t)snprintf(w + len, cap - len, "%s%llu+%u#%llu", x ? "," : "",
					(unsigned long long)e[at].sector, e[at].count,
					(unsigned long long)touches_before(e, k - c, at));
	}
	if (!cs.nextra && len < cap)
		snprintf(w + len, cap - len, ".");
}

/* A finding on disk i's filesystem, with its crash point for a reproducer. */
static int found_on(struct judge *j, int i, const char *kind, const char *what, const char *where)
{
	found(j, kind, what, where);
	say_point(j, i);
	return 1;
}

/* What the operation promised, against the recovered state. */
static int check_promise(struct judge *j, const struct crash_result *r, const char *where)
{
	char path[128], what[2800];
	enum promise kind;
	unsigned long long from, upto;
	bool sync = promised(j->op, path, sizeof(path), &kind, &from, &upto);
	for (int i = 0; i < j->m->nfs; i++) {
		if (sync && memcmp(r->fp.fp[i], j->s->plain[i], 16)) {
			char why[1024], sig[64];
			check_explain_dumps(j->m, r->live, i, r->recovered, i, "crash", why,
					    sizeof(why), sig, sizeof(sig));
			snprintf(
			    what, sizeof(what),
			    "%s: a crash after sync recovers another tree than sync returned on: "
			    "%s",
			    j->m->fs[i], why);
			return found_on(j, i, "lost-sync", what, where);
		}
		char want[1024], got[1024];
		/* A call that failed (fsync of a dangling symlink: ENOENT) made
		 * no promise, though the path names something. */
		char at[128];
		snprintf(at, sizeof(at), "%s", path);
		if (!path[0] || !fs_find_or_none(j->m->fs[i])->fsync_names || j->s->ret[i] < 0 ||
		    !follow_links(r->live, i, at, sizeof(at), want, sizeof(want)))
			continue;
		if (!record_of(r->recovered, i, at, got, sizeof(got)))
			snprintf(got, sizeof(got), "missing");
		/* A range promises the file at least as long as the range's end,
		 * or as it was when the call returned if shorter (an mwrite past
		 * the end of the file stores into its last page, not the file). */
		bool range = kind == PROMISE_FILE_RANGE || kind == PROMISE_DATA_RANGE;
		long long size = size_of(got), had = size_of(want);
		long long least = had >= 0 && had < (long long)upto ? had : (long long)upto;
		bool short_of = range && strcmp(got, "missing") && size < least;
		if (promise_fields(kind) && strcmp(got, "missing"))
			keep_fields(want, sizeof(want), promise_fields(kind)),
			    keep_fields(got, sizeof(got), promise_fields(kind));
		if (short_of)
			snprintf(got + strlen(got), sizeof(got) - strlen(got),
				 ", %lld bytes long: short of the written range's end, %lld", size,
				 least);
		/* The range's bytes, as the call left them (NULL when the
		 * range was not read: a promise of no range). */
		char hw[80], hg[80];
		const char *bw = range ? range_of(r->live, i, hw, sizeof(hw)) : NULL;
		const char *bg = bw ? range_of(r->recovered, i, hg, sizeof(hg)) : NULL;
		if (!strcmp(want, got) && !short_of && bw && (!bg || strcmp(bw, bg))) {
			unsigned long long n = 0;
			sscanf(bw, "%llu", &n);
			snprintf(what, sizeof(what),
				 "%s: a crash lost what '%s' made durable: the %llu bytes it "
				 "wrote at %llu of %s%s%s%s read back otherwise after the crash "
				 "(bytes read and their XXH3-128: '%s' when it returned, '%s' "
				 "after)",
				 j->m->fs[i], j->op->text + 3, n, from, at,
				 strcmp(at, path) ? " (through the symlink " : "",
				 strcmp(at, path) ? path : "", strcmp(at, path) ? ")" : "", bw,
				 bg ? bg : "none");
			return found_on(j, i, "lost-fsync", what, where);
		}
		if (strcmp(want, got) || short_of) {
			snprintf(what, sizeof(what),
				 "%s: a crash lost what '%s' made durable: %s%s%s%s was '%s' when "
				 "it returned, '%s' after the crash",
				 j->m->fs[i], j->op->text + 3, at,
				 strcmp(at, path) ? " (through the symlink " : "",
				 strcmp(at, path) ? path : "", strcmp(at, path) ? ")" : "", want,
				 got);
			return found_on(j, i, "lost-fsync", what, where);
		}
	}
	return 0;
}

/* The checker's verdict on every recovered disk of a filesystem that
 * recovers: errors are a finding. (One that does not is unclean after any
 * crash, even right after sync: vfat's dirty bit stays set until the
 * unmount that never came; its checker is not run.) */
static int check_fsck(struct judge *j, const struct crash_result *r, const char *where)
{
	char what[600];
	for (int i = 0; i < j->m->nfs; i++) {
		if (r->fsck[i] != CORRUPT_FSCK_ERRORS || !fs_find_or_none(j->m->fs[i])->recovers)
			continue;
		snprintf(what, sizeof(what),
			 "%s's checker finds the recovered disk damaged (%s): %s", j->m->fs[i],
			 corrupt_fsck_command(j->m->fs[i]), r->fsck_said[i]);
		return found_on(j, i, "fsck", what, where);
	}
	return 0;
}

/* Does the operation change the namespace (what exists)? Its crash
 * points are where atomicity is judged. */
static bool names_op(const struct op *op)
{
	return op->kind < OP_NKINDS && (op_flags(op->kind) & OPF_NAMES);
}

/* The namespaces a crash may recover: after each operation since the last
 * sync (the parent's list), or this one's. 0 when unknown. */
static int allowed_names(const struct judge *j, uint64_t *out)
{
	const struct check_step *p = j->parent;
	if (!j->s->nnames || !p || !p->nnames)
		return 0;
	memcpy(out, p->names, sizeof(*out) * (size_t)p->nnames);
	out[p->nnames] = j->s->names[j->s->nnames - 1];
	return p->nnames + 1;
}

/* On a filesystem with ordered names, the recovered namespace is one a
 * prefix of the operations had: else the operation was not atomic. */
static int check_atomic(struct judge *j, const struct crash_result *r, const char *where)
{
	uint64_t allowed[CHECK_NAMES_MAX + 1];
	int n = allowed_names(j, allowed);
	for (int i = 0; n && i < j->m->nfs; i++) {
		if (!fs_find_or_none(j->m->fs[i])->ordered_names || r->mount_ret[i])
			continue;
		uint64_t got = check_names_of_dump(r->recovered, i);
		bool ok = false;
		for (int k = 0; k < n; k++)
			ok |= allowed[k] == got;
		if (ok)
			continue;
		char what[2400], names[1600];
		names_of(r->recovered, i, names, sizeof(names));
		snprintf(what, sizeof(what),
			 "%s recovered a namespace no prefix of the operations had (%d since the "
			 "last sync, the last '%s'): not atomic; it holds: %s",
			 j->m->fs[i], n - 1, j->op->text + 3, names);
		return found_on(j, i, "atomicity", what, where);
	}
	return 0;
}

/* A finding's shown lines: every checked disk's verdict, whatever the
 * finding was ("fsck ext4 (e2fsck -fn): clean"). */
static void say_fsck(struct judge *j, const struct crash_result *r, unsigned disks)
{
	size_t len = strlen(j->out->why);
	for (int i = 0; i < j->m->nfs && len < j->out->whylen; i++) {
		const char *how = corrupt_fsck_command(j->m->fs[i]); /* NULL: nilfs2 has none */
		if (disks & (1u << i))
			len += (size_t)snprintf(
			    j->out->why + len, j->out->whylen - len, "\nfsck %s (%s): %s%s%s",
			    j->m->fs[i], how ? how : "no checker", corrupt_fsck_name(r->fsck[i]),
			    r->fsck_said[i][0] ? ": " : "", r->fsck_said[i]);
	}
}

/* Across filesystems, at one logical point (an operation's end, every
 * disk crashed): each recovered state was judged against the one live
 * state they shared, under its own promises, above; where they still
 * recovered different trees (one journal had committed more), that is
 * legal and only counted. 1 if any two differ. */
static int diverged(const struct judge *j, const struct crash_result *r)
{
	for (int i = 1; i < j->m->nfs; i++)
		if (memcmp(r->fp.fp[i], r->fp.fp[0], 16))
			return 1;
	return 0;
}

/* Crash at pts and judge the recovery: 0 fine, 1 a discrepancy. */
static int crash_at(struct judge *j, const struct crash_disk *pts, bool at_end, const char *where)
{
	struct crash_result r;
	char why[1024], what[1400], path[128];
	struct crash_ask ask = {
	    .fsck = &j->c->fsck, .memo = &j->c->memo, .live = &j->live, .lines = j->c->lines};
	for (int i = 0; i < j->m->nfs; i++)
		ask.fsck_disks |= (unsigned)fs_find_or_none(j->m->fs[i])->recovers << i;
	enum promise kind;
	unsigned long long from, upto;
	char range[256];
	ask.dumps =
	    (at_end && (promised(j->op, path, sizeof(path), &kind, &from, &upto) || path[0])) ||
	    names_op(j->op);
	if (at_end && range_command(j, path, kind, from, upto, range, sizeof(range)))
		ask.range = range, ask.live = NULL; /* the cached live dump has no range */
	ask.nested = at_end; /* the recovery crashed again, at the operation's end */
	struct crash_fsck_counts was = j->c->fsck.n;
	uint64_t memo = j->c->memo.hits, nested_memo = j->c->memo.nested_hits;
	j->words[CR_STATES]++;
	struct crash_reboot *b = reboot_machines(j->c, j->m, why, sizeof(why));
	int rc = b ? crash_recover(j->v, b, j->m, pts, &ask, &r, why, sizeof(why)) : -1;
	j->words[CR_FSCK_RUNS] += j->c->fsck.n.runs - was.runs;
	j->words[CR_FSCK_HITS] += j->c->fsck.n.hits - was.hits;
	j->words[CR_FSCK_MASKED] += j->c->fsck.n.masked_hits - was.masked_hits;
	j->words[CR_FSCK_MISMATCHES] += j->c->fsck.n.mismatches - was.mismatches;
	j->words[CR_MEMO_HITS] += j->c->memo.hits - memo;
	j->words[CR_NESTED_HITS] += j->c->memo.nested_hits - nested_memo;
	if (rc) {
		snprintf(what, sizeof(what),
			 "the guest failed through a crash and its recovery: %s%s%s", why,
			 r.report != SPLAT_NONE ? "; the kernel said: " : "", r.report_line);
		return found(j, "recovery", what, where);
	}
	for (int i = 0; i < j->m->nfs && !rc; i++)
		if (r.mount_ret[i]) {
			char replay[400] = "";
			if (r.replay_said[i][0])
				snprintf(replay, sizeof(replay), ": its log replay (%s) failed: %s",
					 crash_replay_command(j->m->fs[i]), r.replay_said[i]);
			snprintf(what, sizeof(what), "%s's crash disk does not mount (%s)%s",
				 j->m->fs[i], r.mount_err[i], replay);
			rc = found_on(j, i, "unmountable", what, where);
		}
	for (int i = 0; i < j->m->nfs && !rc; i++)
		if (r.fp.fp_err[i][0]) {
			snprintf(what, sizeof(what),
				 "%s's crash disk mounts, but reading it back fails (%s)",
				 j->m->fs[i], r.fp.fp_err[i]);
			rc = found_on(j, i, "unreadable", what, where);
		}
	j->words[CR_NESTED] += (uint64_t)r.nested;
	if (!rc && ask.dumps && at_end)
		rc = check_promise(j, &r, where);
	if (!rc && ask.dumps && names_op(j->op))
		rc = check_atomic(j, &r, where);
	/* After the promises: a recovery that loses what was promised is the
	 * plainer finding, and would hide behind a recovery that is not
	 * repeatable (F1 on f2fs). */
	if (!rc && r.nested_disk >= 0) {
		char how[1024] = "", sig[64];
		int d = r.nested_disk;
		char first[64], again[64];
		snprintf(first, sizeof(first), "%s after the whole recovery", j->m->fs[d]);
		snprintf(again, sizeof(again), "%s recovered again", j->m->fs[d]);
		if (r.nested_first && r.nested_again)
			check_explain_named(j->m, r.nested_first, d, first, r.nested_again, d,
					    again, "crash", how, sizeof(how), sig, sizeof(sig));
		snprintf(
		    what, sizeof(what),
		    "%s: a crash during its recovery, before the recovery's write %llu, %s%s%s",
		    j->m->fs[d], (unsigned long long)r.nested_upto, r.nested_what,
		    how[0] ? ": " : "", how);
		rc = found_on(j, d, "recovery-crash", what, where);
		size_t len = strlen(j->out->why);
		if (len < j->out->whylen)
			snprintf(j->out->why + len, j->out->whylen - len,
				 "\n" CRASH_POINT_WORD " %s recovery-drop %llu", j->m->fs[d],
				 (unsigned long long)r.nested_drop);
	}
	if (!rc && r.mounted)
		rc = check_fsck(j, &r, where);
	if (!rc)
		rc = check_report(j, &r, where);
	if (!rc && at_end && r.mounted)
		j->words[CR_DIVERGED] += diverged(j, &r);
	if (rc && r.mounted)
		say_fsck(j, &r, ask.fsck_disks);
	crash_result_free(&r);
	return rc;
}

/* Disk i crashed keeping its writes before upto; the others live. */
static void flush_point(const struct judge *j, int i, uint64_t upto, struct crash_disk *pts)
{
	crash_point_now(j->v, j->m->nfs, pts);
	for (int o = 0; o < j->m->nfs; o++)
		pts[o].live = o != i;
	pts[i].upto = upto;
}

/* Disk i crashed keeping its writes before from, then extra[0..nx) in that
 * order; the others live. */
static void subset_disk(const struct judge *j, int i, uint64_t from, const uint64_t *extra,
			size_t nx, struct crash_disk *pts)
{
	crash_point_now(j->v, j->m->nfs, pts);
	for (int o = 0; o < j->m->nfs; o++)
		pts[o].live = true;
	pts[i] = (struct crash_disk){from, extra, nx, false};
}

/* Disk i's flush points in this operation: for every flush it completed,
 * the writes before it and none after. */
static int flush_points(struct judge *j, int i)
{
	const struct disk_wentry *e;
	struct crash_disk pts[CHECK_MAX_FS];
	uint64_t first, n = disk_wlog(&j->v->disks[i], &e, &first);
	for (uint64_t k = j->c->start[i] - first; k < n; k++) {
		if (k == 0 || e[k].epoch == e[k - 1].epoch || e[k].epoch <= j->c->epoch[i])
			continue;
		char where[160];
		snprintf(where, sizeof(where), "%s's flush %llu done, writes up to %llu kept",
			 j->m->fs[i], (unsigned long long)e[k].epoch,
			 (unsigned long long)(first + k));
		snprintf(j->step, sizeof(j->step), "flush %d %llu", i,
			 (unsigned long long)(first + k));
		flush_point(j, i, first + k, pts);
		j->words[CR_FLUSHES]++;
		if (crash_at(j, pts, false, where))
			return 1;
	}
	return 0;
}

/* The epochs open during the operation on disk i, newest first: [from,
 * to) of the kept entries. Returns how many (at most max). */
static int open_epochs(struct judge *j, int i, uint64_t (*range)[2], int max)
{
	const struct disk_wentry *e;
	uint64_t first, n = disk_wlog(&j->v->disks[i], &e, &first), to = n;
	int k = 0;
	while (to > 0 && k < max) {
		uint64_t from = to;
		while (from > 0 && e[from - 1].epoch == e[to - 1].epoch)
			from--;
		/* An epoch that closed before the operation began is no crash
		 * state of this operation: the parent's. */
		if (e[to - 1].epoch < j->c->epoch[i] || first + to <= j->c->start[i])
			if (e[to - 1].epoch != disk_epoch(&j->v->disks[i]))
				break;
		range[k][0] = from, range[k][1] = to, k++;
		to = from;
	}
	return k;
}

/* One seeded subset of [from, to) (its last CRASH_EXTRA_MAX), in a seeded
 * order, crashed on disk i. */
static int subset_point(struct judge *j, int i, uint64_t first, uint64_t from, uint64_t to)
{
	struct crash_disk pts[CHECK_MAX_FS];
	uint64_t extra[CRASH_EXTRA_MAX];
	size_t nx = 0;
	if (to - from > CRASH_EXTRA_MAX)
		from = to - CRASH_EXTRA_MAX;
	for (uint64_t k = from; k < to; k++)
		if (splitmix64(&j->rng) & 1)
			extra[nx++] = first + k;
	for (size_t s = nx; s > 1; s--) {
		size_t r = (size_t)(splitmix64(&j->rng) % s);
		uint64_t t = extra[s - 1];
		extra[s - 1] = extra[r], extra[r] = t;
	}
	char where[200], order[CRASH_EXTRA_MAX + 1];
	snprintf(where, sizeof(where),
		 "%s lost power with %zu of the %llu writes from %llu in flight", j->m->fs[i], nx,
		 (unsigned long long)(to - from), (unsigned long long)(first + from));
	for (size_t k = 0; k < nx; k++)
		order[k] = order_digits[extra[k] - (first + from)];
	snprintf(order + nx, sizeof(order) - nx, "%s", nx ? "" : ".");
	snprintf(j->step, sizeof(j->step), "subset %d %llu %s", i,
		 (unsigned long long)(first + from), order);
	subset_disk(j, i, first + from, extra, nx, pts);
	j->words[CR_SUBSETS]++;
	return crash_at(j, pts, false, where);
}

/* Up to crash_states subsets over the disks' open epochs, round robin. */
static int subsets(struct judge *j)
{
	uint64_t range[CHECK_MAX_FS][8][2];
	int nr[CHECK_MAX_FS], total = 0;
	for (int i = 0; i < j->m->nfs; i++)
		total += nr[i] = open_epochs(j, i, range[i], 8);
	for (unsigned k = 0; total && k < j->m->crash_states; k++) {
		int i = (int)(k % (unsigned)j->m->nfs);
		if (!nr[i])
			continue;
		const struct disk_wentry *e;
		uint64_t first;
		(void)disk_wlog(&j->v->disks[i], &e, &first);
		uint64_t *r = range[i][splitmix64(&j->rng) % (uint64_t)nr[i]];
		if (subset_point(j, i, first, r[0], r[1]))
			return 1;
	}
	return 0;
}

/* Did the operation send any disk a write or a flush? */
static bool reached_disk(const struct judge *j)
{
	for (int i = 0; i < j->m->nfs; i++) {
		const struct disk_wentry *e;
		uint64_t first, n = disk_wlog(&j->v->disks[i], &e, &first);
		if (first + n > j->c->start[i] || disk_epoch(&j->v->disks[i]) > j->c->epoch[i])
			return true;
	}
	return false;
}

/* The crash point of a trace's crash step alone ("" for none: the
 * operations before it). A step that names no point this operation has
 * is a discrepancy of its own: the trace does not reproduce. */
static int crash_literal(struct judge *j, const char *step)
{
	struct crash_disk pts[CHECK_MAX_FS];
	struct crash_step cs;
	if (!*step)
		return 0;
	snprintf(j->step, sizeof(j->step), "%s", step);
	bool ok = crash_step_parse(step, &cs) == 0;
	if (ok && cs.kind == CRASH_STEP_END) {
		crash_point_now(j->v, j->m->nfs, pts);
		j->words[CR_ENDS]++;
		return crash_at(j, pts, true, "the operation's end, every disk");
	}
	const struct disk_wentry *e;
	uint64_t first = 0, len = 0;
	int i = cs.disk;
	ok &= i < j->m->nfs;
	if (ok)
		len = disk_wlog(&j->v->disks[i], &e, &first);
	for (size_t k = 0; k < cs.nextra; k++)
		ok &= cs.extra[k] < first + len;
	if (!ok || cs.at < first || cs.at > first + len) {
		char what[300];
		snprintf(what, sizeof(what),
			 "the trace's crash step names no crash point of this operation (disk "
			 "%d's write log holds writes %llu to %llu)",
			 i, (unsigned long long)first, (unsigned long long)(first + len));
		return found(j, "no-such-point", what, step);
	}
	char where[160];
	snprintf(where, sizeof(where), "the trace's step on %s", j->m->fs[i]);
	if (cs.kind == CRASH_STEP_FLUSH)
		flush_point(j, i, cs.at, pts);
	else
		subset_disk(j, i, cs.at, cs.extra, cs.nextra, pts);
	j->words[cs.kind == CRASH_STEP_FLUSH ? CR_FLUSHES : CR_SUBSETS]++;
	return crash_at(j, pts, false, where);
}

/* Every crash point of the operation, judged until one finds something. */
static int judge_operation(struct judge *j)
{
	const struct check_machine *m = j->m;
	char path[128];
	enum promise kind;
	unsigned long long from, upto;
	bool promise = promised(j->op, path, sizeof(path), &kind, &from, &upto) || path[0];
	if (!promise && !reached_disk(j))
		return 0; /* its crash states are its parent's */
	/* The seed: the operation and the state it left, so a replay draws
	 * the same subsets. */
	j->rng = XXH3_64bits(j->op->text, strlen(j->op->text)) ^
		 XXH3_64bits(j->s->plain, sizeof(j->s->plain));
	if (m->crash_at)
		return crash_literal(j, m->crash_at);
	struct crash_disk pts[CHECK_MAX_FS];
	crash_point_now(j->v, m->nfs, pts);
	j->words[CR_ENDS]++;
	snprintf(j->step, sizeof(j->step), "end");
	if (crash_at(j, pts, true, "the operation's end, every disk"))
		return 1;
	for (int i = 0; i < m->nfs; i++)
		if (flush_points(j, i))
			return 1;
	return subsets(j);
}

static int crash_after(void *state, uint64_t *words, struct virt *v, const struct check_machine *m,
		       const struct op *op, const struct check_step *parent, struct check_step *s,
		       struct lens_out *out)
{
	struct crash_state *c = state;
	if (!c->on || s->verdict != 0 || op->kind == OP_NKINDS)
		return 0;
	struct judge j = {v, m, op, s, parent, out, c, words, 0, "", NULL};
	int rc = judge_operation(&j);
	free(j.live);
	return rc;
}

static void crash_report(const void *state, const uint64_t *w, FILE *f, bool json)
{
	(void)state;
	if (json) {
		static const char *const keys[] = {
#define CRASH_WORD_KEY(name, json) json,
		    CRASH_WORDS(CRASH_WORD_KEY)
#undef CRASH_WORD_KEY
		};
		for (int k = 0; k < CR_WORDS; k++)
			fprintf(f, "%s\"%s\": %llu", k ? ", " : "{", keys[k],
				(unsigned long long)w[k]);
		fputs("}", f);
		return;
	}
	if (!w[CR_STATES])
		return;
	fprintf(f,
		"crash: %llu crash states recovered and judged (%llu at an operation's end, %llu "
		"after a flush, %llu subsets of an epoch's writes), %llu recoveries crashed "
		"again; %llu crashed disks' recoveries (and %llu of the recoveries' crashes) "
		"answered by the memo of crash contents; "
		"fsck run "
		"%llu times, %llu answered by the memo; at %llu operation ends the filesystems "
		"recovered different trees, each within its promises\n",
		(unsigned long long)w[CR_STATES], (unsigned long long)w[CR_ENDS],
		(unsigned long long)w[CR_FLUSHES], (unsigned long long)w[CR_SUBSETS],
		(unsigned long long)w[CR_NESTED], (unsigned long long)w[CR_MEMO_HITS],
		(unsigned long long)w[CR_NESTED_HITS], (unsigned long long)w[CR_FSCK_RUNS],
		(unsigned long long)w[CR_FSCK_HITS], (unsigned long long)w[CR_DIVERGED]);
}

static int set_crash(struct check_machine *m, const char *val, char *err, size_t errlen)
{
	(void)val, (void)err, (void)errlen;
	if (!m->crash_states)
		m->crash_states = CHECK_CRASH_STATES_DEFAULT;
	return 0;
}

static int set_crash_states(struct check_machine *m, const char *val, char *err, size_t errlen)
{
	unsigned long long u;
	if (!lens_number(val, 1, CHECK_CRASH_STATES_MAX, &u)) {
		snprintf(err, errlen,
			 "--crash-states needs a count of crash states per operation from 1 to "
			 "%d, got '%s'",
			 CHECK_CRASH_STATES_MAX, val);
		return -1;
	}
	m->crash_states = (unsigned)u;
	return 0;
}

static int set_crash_memo(struct check_machine *m, const char *val, char *err, size_t errlen)
{
	if (strcmp(val, "on") && strcmp(val, "off") && strcmp(val, "check")) {
		snprintf(err, errlen, "--crash-memo needs on, off or check, got '%s'", val);
		return -1;
	}
	m->crash_no_memo = !strcmp(val, "off");
	m->crash_memo_check = !strcmp(val, "check");
	return 0;
}

static const struct lens_opt crash_opts[] = {
    {"--crash", NULL,
     "crash states at every operation that reached a disk: the\n"
     "operation's end, every flush it completed, and seeded\n"
     "subsets of the writes a flush had not yet made durable;\n"
     "each recovered in the guest and judged (mounts, what\n"
     "sync and fsync promised is there: see the README)",
     set_crash},
    {"--crash-states", "K", "subsets per operation (default 8; implies --crash)", set_crash_states},
    {"--crash-memo", "M",
     "on (default): a crash disk whose content an earlier crash\n"
     "recovered cleanly is answered from that; off: every one\n"
     "recovered in the guest (to measure the memo); check:\n"
     "recovered in the guest and compared with the memo's answer",
     set_crash_memo},
    {NULL, NULL, NULL, NULL},
};

static bool crash_wanted(const struct check_machine *m)
{
	return m->crash_states > 0;
}

/* "crash-states K": replay and the minimizer crash the points the run
 * did (they are drawn from a seed the state gives). */
static void crash_trace_write(const struct check_machine *m, FILE *f)
{
	if (m->crash_states)
		fprintf(f, "crash-states %u\n", m->crash_states);
}

static int crash_trace_parse(struct check_machine *m, const char *line, char *why, size_t whylen)
{
	unsigned long long u;
	int rc =
	    lens_trace_number(line, "crash-states", 1, CHECK_CRASH_STATES_MAX, &u, why, whylen);
	if (rc == 1)
		m->crash_states = (unsigned)u;
	return rc;
}

static void crash_off(struct check_machine *m)
{
	m->crash_states = 0;
	m->crash_at = NULL;
}

static const struct lens_def crash_lens = {
    .name = "crash",
    .help = "crash states at every operation (explore --crash): power cut, recovery, "
	    "judged",
    .order = 60,
    .phase = CHECK_PHASE_CRASH,
    .always = true,
    .words = CR_WORDS,
    .state_size = sizeof(struct crash_state),
    .attach = crash_attach,
    .detach = crash_detach,
    .before = crash_before,
    .after = crash_after,
    .report = crash_report,
    .opts = crash_opts,
    .wanted = crash_wanted,
    .one_machine = true,
    .trace_write = crash_trace_write,
    .trace_parse = crash_trace_parse,
    .off = crash_off,
};
LENS_REGISTER(crash_lens);
