/* crash.c - see crash.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../machine/kline.h"
#include "../machine/virt.h"
#include "../util/clock.h"
#include "crash.h"
#include "../check/phase.h"
#include "crash_replay.h"

#define CRASH_REPLAY_TIMEOUT 60.0 /* seconds a host log replay may take */

void crash_arm(struct virt *v, int nfs)
{
	for (int i = 0; i < nfs; i++)
		disk_wlog_enable(&v->disks[i]);
}

void crash_point_now(struct virt *v, int nfs, struct crash_disk *pts)
{
	for (int i = 0; i < nfs; i++) {
		const struct disk_wentry *e;
		uint64_t first, n = disk_wlog(&v->disks[i], &e, &first);
		pts[i] = (struct crash_disk){.upto = first + n};
	}
}

/* Boot b and leave it with its disks unmounted and logging their writes. */
static int boot_unmounted(struct virt *b, const struct check_machine *m, char *err, size_t errlen)
{
	struct check_step st;
	char why[512];
	if (check_boot(b, m, err, errlen))
		return -1;
	int rc = check_apply(b, m->nfs, AGENT_WORD(umount), &st, why, sizeof(why));
	for (int i = 0; i < m->nfs && !rc; i++)
		if (st.ret[i]) {
			snprintf(why, sizeof(why), "disk %d (%s) does not unmount: %s", i, m->fs[i],
				 st.err[i]);
			rc = -1;
		}
	if (rc) {
		snprintf(err, errlen, "%s", why);
		virt_free(b);
		return -1;
	}
	virt_counts_clear(b); /* no state's work, as the boot's is not */
	crash_arm(b, m->nfs);
	return 0;
}

int crash_boot(struct crash_reboot *rb, const struct check_machine *m, char *err, size_t errlen)
{
	char why[512];
	memset(rb, 0, sizeof(*rb));
	if (boot_unmounted(&rb->recover, m, why, sizeof(why)))
		return snprintf(err, errlen, "the machine crashes recover in: %s", why), -1;
	if (boot_unmounted(&rb->again, m, why, sizeof(why))) {
		virt_free(&rb->recover);
		return snprintf(err, errlen, "the machine recoveries' crashes recover in: %s", why),
		       -1;
	}
	return 0;
}

void crash_reboot_free(struct crash_reboot *rb)
{
	virt_free(&rb->recover);
	virt_free(&rb->again);
	for (int i = 0; i < CHECK_MAX_FS; i++)
		crash_replay_scratch_free(&rb->replay[i]);
}

uint64_t crash_runs_from(const struct disk_wentry *e, uint64_t k, uint64_t n)
{
	uint64_t runs = 0;
	for (uint64_t w = k; w < n; w++)
		runs += w == k || e[w].epoch != e[w - 1].epoch;
	return runs;
}

/* "umount I..." or "mount I...": the crashing disks. */
static void mount_command(const char *verb, int nfs, const struct crash_disk *pts, char *cmd,
			  size_t cap)
{
	size_t n = (size_t)snprintf(cmd, cap, "%s", verb);
	for (int i = 0; i < nfs && n < cap; i++)
		if (!pts[i].live)
			n += (size_t)snprintf(cmd + n, cap - n, " %d", i);
}

/* The mount's answers (check_apply parsed them; every disk answered)
 * into r. */
static void mount_results(const struct check_step *st, int nfs, struct crash_result *r)
{
	r->mounted = true;
	for (int i = 0; i < nfs; i++) {
		r->mount_ret[i] = st->ret[i] == 0 ? 0 : -1;
		snprintf(r->mount_err[i], sizeof(r->mount_err[i]), "%s", st->err[i]);
		r->mounted &= st->ret[i] == 0;
	}
}

/* Close the phase that began at *t0 (when timed) and begin the next. */
static void lap(const struct crash_ask *ask, double *phase, double *t0)
{
	if (!ask->times)
		return;
	double t = host_seconds();
	*phase += t - *t0;
	*t0 = t;
}

/* Whether a disk of `disks` mounted but its walk failed (st's fp_err):
 * the filesystem's finding, not the guest's failure. */
static bool unreadable(const struct check_step *st, unsigned disks)
{
	for (int i = 0; i < CHECK_MAX_FS; i++)
		if (disks >> i & 1 && st->fp_err[i][0])
			return true;
	return false;
}

/* The crashing disks' bits. */
static unsigned crashing(int nfs, const struct crash_disk *pts)
{
	unsigned bits = 0;
	for (int i = 0; i < nfs; i++)
		bits |= (unsigned)!pts[i].live << i;
	return bits;
}

/* The crashing disks, each its crash content already: the host's log
 * replay where the filesystem leaves it to user space, then the mount,
 * the guest's recovery. The mount's answers in r. */
static int recover(struct virt *v, struct crash_replay_scratch *images,
		   const struct check_machine *m, const struct crash_disk *pts,
		   const struct crash_ask *ask, struct crash_result *r, char *why, size_t whylen,
		   double *t0)
{
	int nfs = m->nfs;
	struct check_step st;
	struct crash_times scratch, *t = ask->times ? ask->times : &scratch;
	char mount[64];
	for (int i = 0; i < nfs; i++)
		if (!pts[i].live &&
		    crash_replay(&images[i], &v->disks[i], m->fs[i], CRASH_REPLAY_TIMEOUT,
				 r->replay_said[i], sizeof(r->replay_said[i])) < 0) {
			snprintf(why, whylen, "disk %d: no log replay: %s", i, r->replay_said[i]);
			return -1;
		}
	mount_command(AGENT_WORD(mount), nfs, pts, mount, sizeof(mount));
	virt_phase(v, CHECK_PHASE_RECOVERY, v->tag);
	int rc = check_apply(v, nfs, mount, &st, why, whylen);
	if (rc == 0)
		mount_results(&st, nfs, r);
	virt_phase(v, CHECK_PHASE_CRASH, v->tag);
	lap(ask, &t->recover, t0);
	return rc ? -1 : 0;
}

/* Disk d made its crash content at p in a disk fork level, fn(d, ctx)
 * applied to it, and the level let go: 0, or -1 (no such crash disk, or
 * fn's -1). */
static int at_crash_content(struct disk *d, const struct crash_disk *p,
			    int (*fn)(struct disk *d, void *ctx), void *ctx)
{
	if (disk_fork(d))
		return -1;
	int rc = disk_crash_assemble(d, p->upto, p->extra, p->nextra) ? -1 : fn(d, ctx);
	return disk_release(d) || rc ? -1 : 0;
}

static int copy_into(struct disk *d, void *to)
{
	return disk_copy_content(to, d) ? -1 : 0;
}

/* Each crashing disk of v made its crash content on b, the machine that
 * recovers it. */
static int move_crash_disks(struct virt *v, struct virt *b, int nfs, const struct crash_disk *pts,
			    char *why, size_t whylen)
{
	for (int i = 0; i < nfs; i++)
		if (!pts[i].live &&
		    at_crash_content(&v->disks[i], &pts[i], copy_into, &b->disks[i])) {
			snprintf(why, whylen, "disk %d: no crash disk at write %llu", i,
				 (unsigned long long)pts[i].upto);
			return -1;
		}
	return 0;
}

struct key_of {
	uint64_t salt;
	uint8_t *key;
};

static int take_key(struct disk *d, void *ctx)
{
	struct key_of *k = ctx;
	disk_private_key(d, k->salt, k->key);
	return 0;
}

/* The memo's key of disk i at its crash point p: the crash content's. */
static int crash_key(struct disk *d, int i, const struct crash_disk *p, uint8_t key[16])
{
	return at_crash_content(d, p, take_key, &(struct key_of){(uint64_t)i, key});
}

/* One crash of disk i's recovery on b, before its write `upto`: that
 * crash disk recovered again in a fork level of b2, a second machine
 * booted alike. 0 when it mounts to the state the whole recovery reached
 * (r), else 1 with what in r. */
static int crash_one_recovery(struct crash_reboot *rb, const struct check_machine *m, int i,
			      uint64_t upto, uint64_t drop, const struct crash_ask *ask,
			      struct crash_result *r, char *why, size_t whylen)
{
	struct virt *b = &rb->recover, *b2 = &rb->again;
	struct crash_disk p[CHECK_MAX_FS];
	struct crash_result again = {0};
	struct crash_ask plain = {.times = ask->times};
	double t0 = ask->times ? host_seconds() : 0;
	int nfs = m->nfs;
	for (int o = 0; o < nfs; o++)
		p[o] = (struct crash_disk){.upto = disk_wlog_end(&b->disks[o]), .live = o != i};
	p[i].upto = upto;
	r->nested++;
	/* A recovery is a function of its crash disk: a content recovered
	 * cleanly before, to the same tree, needs no guest. */
	struct crash_memo *memo =
	    ask->memo && !ask->memo->off && !ask->memo->check ? ask->memo : NULL;
	uint8_t key[16];
	const struct crash_memo_entry *known = NULL;
	if (memo && crash_key(&b->disks[i], i, &p[i], key))
		return snprintf(why, whylen, "disk %d: no crash disk at write %llu", i,
				(unsigned long long)upto),
		       -1;
	if (memo && (known = crash_memo_find(memo, key, false, false, false)) &&
	    !memcmp(known->fp, r->fp.fp[i], 16)) {
		memo->nested_hits++;
		return 0;
	}
	if (virt_fork(b2)) {
		snprintf(why, whylen, "cannot fork the machine for a crash during recovery");
		return -1;
	}
	virt_phase(b2, b->phase, b->tag);
	int rc = move_crash_disks(b, b2, nfs, p, why, whylen);
	if (!rc)
		rc = recover(b2, rb->replay, m, p, &plain, &again, why, whylen, &t0);
	struct check_step st;
	bool unread = false;
	if (!rc && again.mounted &&
	    (rc = check_apply_on(b2, nfs, 1u << i, AGENT_WORD(fp), &st, why, whylen)) &&
	    unreadable(&st, 1u << i))
		rc = 0, unread = true;
	bool readable = again.mounted && !unread;
	bool same = !rc && readable && !memcmp(st.fp[i], r->fp.fp[i], 16);
	if (!rc && readable && !same &&
	    !(r->nested_again = check_dump(b2, nfs, AGENT_WORD(dump), why, whylen)))
		rc = -1;
	virt_release(b2);
	virt_counts_move(b, b2);
	if (rc)
		return -1;
	if (same && memo && !known) {
		struct crash_memo_entry e = {0};
		memcpy(e.key, key, 16);
		memcpy(e.fp, st.fp[i], 16);
		(void)crash_memo_put(memo, &e); /* -1: not remembered */
	}
	if (same)
		return 0;
	if (again.mounted && !(r->nested_first = check_dump(b, nfs, AGENT_WORD(dump), why, whylen)))
		return -1;
	r->nested_disk = i;
	r->nested_upto = upto;
	r->nested_drop = drop;
	if (unread)
		snprintf(r->nested_what, sizeof(r->nested_what),
			 "mounts, but reading it back fails (%s)", st.fp_err[i]);
	else
		snprintf(r->nested_what, sizeof(r->nested_what), "%s",
			 readable ? "recovers to another state than the uninterrupted recovery"
				  : again.mount_err[i]);
	return 1;
}

/* Crash the recoveries themselves (nesting depth 2): each crashed disk's
 * recovery, after each flush it completed, and, where the host replayed
 * the disk's log before the mount (jfs), before any of the kernel's
 * writes landed (elsewhere that crash disk is the one just recovered, in
 * a machine booted alike: the same state by construction). A recovery
 * must be repeatable: recovering again from where the cut left it reaches
 * the state the whole recovery reached. 0, 1 with r->nested_* set at the
 * first that does not, -1 a guest failure. */
static int crash_recoveries(struct crash_reboot *rb, const struct check_machine *m,
			    const struct crash_disk *pts, const uint64_t *start,
			    const struct crash_ask *ask, struct crash_result *r, char *why,
			    size_t whylen)
{
	struct virt *b = &rb->recover;
	int nfs = m->nfs;
	for (int i = 0; i < nfs; i++) {
		if (pts[i].live)
			continue;
		bool replayed = crash_replay_command(m->fs[i]) != NULL;
		const struct disk_wentry *e;
		uint64_t first, n = disk_wlog(&b->disks[i], &e, &first);
		for (uint64_t k = start[i] - first; k <= n; k++) {
			bool point = k == start[i] - first ? replayed
							   : k < n && e[k].epoch != e[k - 1].epoch;
			if (!point)
				continue;
			int rc = crash_one_recovery(rb, m, i, first + k, crash_runs_from(e, k, n),
						    ask, r, why, whylen);
			if (rc)
				return rc;
			(void)disk_wlog(&b->disks[i], &e, &first); /* b moved nothing */
		}
	}
	return 0;
}

/* The dump, then cmd's lines (a range command's "h" lines) after it;
 * NULL, with why, when either fails. */
static char *dump_then(struct virt *v, int nfs, const char *cmd, char *why, size_t whylen)
{
	char *d = check_dump(v, nfs, AGENT_WORD(dump), why, whylen);
	if (!d || !cmd)
		return d;
	char *h = check_dump(v, nfs, cmd, why, whylen);
	char *both = h ? malloc(strlen(d) + strlen(h) + 1) : NULL;
	if (h && !both)
		snprintf(why, whylen, "out of memory for a dump");
	if (both)
		strcat(strcpy(both, d), h);
	free(d);
	free(h);
	return both;
}

/* Disk i's live "h" line: the bytes it read into *n (0 where it read
 * none) and the file it read them from into file ("" where none). */
static void live_range_of(const char *live, int i, unsigned long long *n, char *file)
{
	int d;
	for (const char *l = live; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (sscanf(l, "h %d %llu %*s %159s", &d, n, file) == 3 && d == i)
			return;
	*n = 0, file[0] = 0;
}

/* The range command for the recovered state: the file the live state read
 * (ask->range's path with its symlinks resolved, where every disk read the
 * same one: a crash may lose a link that no call promised), each disk's
 * LEN the bytes its live line read. */
static int recovered_range(const struct crash_ask *ask, const char *live, int nfs, char *out,
			   size_t cap)
{
	char path[160], file[160], first[160] = "";
	unsigned long long off, n[CHECK_MAX_FS];
	if (sscanf(ask->range, "range %159s %llu", path, &off) != 2)
		return -1;
	bool same = true;
	for (int i = 0; i < nfs; i++) {
		live_range_of(live, i, &n[i], file);
		if (!first[0])
			snprintf(first, sizeof(first), "%s", file);
		same &= !file[0] || !strcmp(file, first);
	}
	size_t len = (size_t)snprintf(out, cap, AGENT_WORD(range, " %s %llu"),
				      same && first[0] ? first : path, off);
	for (int i = 0; i < nfs && len < cap; i++)
		len += (size_t)snprintf(out + len, cap - len, " %llu", n[i]);
	return len < cap ? 0 : -1;
}

/* Disk i's lines of a dump ("e I RECORD", and a range command's "h I
 * ..."), appended to out at *len. */
static int append_lines(char **out, size_t *len, size_t *cap, const char *dump, int i)
{
	char head[16];
	int n = snprintf(head, sizeof(head), "e %d ", i);
	for (const char *l = dump; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		size_t w = strcspn(l, "\n");
		if ((l[0] != 'e' && l[0] != 'h') || strncmp(l + 1, head + 1, (size_t)n - 1))
			continue;
		if (*len + w + 2 > *cap) {
			size_t want = 2 * (*len + w + 2);
			char *p = realloc(*out, want);
			if (!p)
				return -1;
			*out = p, *cap = want;
		}
		memcpy(*out + *len, l, w);
		*len += w;
		(*out)[(*len)++] = '\n';
		(*out)[*len] = 0;
	}
	return 0;
}

/* A dump of every disk: disk i's lines from from[i], or from base where
 * from[i] is NULL. NULL without memory. */
static char *splice_dump(const char *base, int nfs, const char *const *from)
{
	size_t len = 0, cap = 256;
	char *out = malloc(cap);
	if (!out)
		return NULL;
	out[0] = 0;
	for (int i = 0; i < nfs; i++)
		if (append_lines(&out, &len, &cap, from[i] ? from[i] : base, i)) {
			free(out);
			return NULL;
		}
	return out;
}

/* The live dump of the machine as it is (a copy: the caller frees it),
 * from the caller's cache when it holds one, else read in a fork level
 * (a dump runs the guest) and cached. */
static char *live_dump(struct virt *v, int nfs, const struct crash_ask *ask, char *why,
		       size_t whylen)
{
	if (ask->live && *ask->live)
		return strdup(*ask->live);
	if (virt_fork(v)) {
		snprintf(why, whylen, "cannot fork the machine for its dump");
		return NULL;
	}
	char *d = dump_then(v, nfs, ask->range, why, whylen);
	virt_release(v);
	if (d && ask->live)
		*ask->live = strdup(d); /* no memory: read again next time */
	return d;
}

/* The recovered dump of b, where the disks that did not crash are
 * unmounted: theirs are the live dump's lines (they are as they were). */
static char *recovered_dump(struct virt *b, int nfs, const struct crash_disk *pts, const char *live,
			    const char *cmd, char *why, size_t whylen)
{
	char *d = dump_then(b, nfs, cmd, why, whylen);
	const char *from[CHECK_MAX_FS] = {0};
	bool any = false;
	for (int i = 0; i < nfs; i++)
		if (pts[i].live)
			from[i] = live, any = true;
	if (!d || !any)
		return d;
	char *spliced = splice_dump(d, nfs, from);
	free(d);
	if (!spliced)
		snprintf(why, whylen, "out of memory for a recovered dump");
	return spliced;
}

/* The crash and the recovery on b (the caller's fork level of it): the
 * crashing disks of v moved there as their crash contents, mounted, read
 * and, as asked, crashed again and checked. */
static int crash_in(struct virt *v, struct crash_reboot *rb, const struct check_machine *m,
		    const struct crash_disk *pts, const struct crash_ask *ask,
		    struct crash_result *r, char *why, size_t whylen, double *t0)
{
	struct virt *b = &rb->recover;
	struct crash_times scratch, *t = ask->times ? ask->times : &scratch;
	int nfs = m->nfs;
	uint64_t start[CHECK_MAX_FS];
	for (int i = 0; i < nfs; i++)
		start[i] = disk_wlog_end(&b->disks[i]);
	if (move_crash_disks(v, b, nfs, pts, why, whylen))
		return -1;
	lap(ask, &t->assemble, t0);
	if (recover(b, rb->replay, m, pts, ask, r, why, whylen, t0))
		return -1;
	if (!r->mounted)
		return 0;
	if (check_apply_on(b, nfs, crashing(nfs, pts), AGENT_WORD(fp), &r->fp, why, whylen)) {
		if (!unreadable(&r->fp, crashing(nfs, pts)))
			return -1;
		r->mounted = false; /* mounted, but nothing of it can be read */
		return 0;
	}
	char range[256];
	if (ask->dumps && ask->range && recovered_range(ask, r->live, nfs, range, sizeof(range)))
		return snprintf(why, whylen, "a range command too long: %s", ask->range), -1;
	if (ask->dumps && !(r->recovered = recovered_dump(b, nfs, pts, r->live,
							  ask->range ? range : NULL, why, whylen)))
		return -1;
	lap(ask, &t->read, t0);
	if (ask->nested) {
		int rc = crash_recoveries(rb, m, pts, start, ask, r, why, whylen);
		lap(ask, &t->nested, t0);
		if (rc < 0)
			return -1;
		if (rc)
			return 0;
	}
	if (!ask->fsck || !ask->fsck_disks)
		return 0;
	unsigned unmounted, judged = 0;
	for (int i = 0; i < nfs; i++)
		judged |= (unsigned)(ask->fsck_disks >> i & 1 && !pts[i].live) << i;
	if (check_quiesce(b, m, judged, &unmounted, why, whylen))
		return -1;
	struct crash_fsck_ask a[CRASH_FSCK_MAX_DISKS];
	int n = 0;
	for (int i = 0; i < nfs && n < CRASH_FSCK_MAX_DISKS; i++)
		if (judged >> i & 1)
			a[n++] = (struct crash_fsck_ask){
			    .d = &b->disks[i], .i = i, .fs = m->fs[i], .clean = true};
	crash_fsck_disks(ask->fsck, a, n);
	for (int k = 0; k < n; k++) {
		r->fsck[a[k].i] = a[k].verdict;
		snprintf(r->fsck_said[a[k].i], sizeof(r->fsck_said[a[k].i]), "%s", a[k].said);
	}
	lap(ask, &t->fsck, t0);
	return 0;
}

void crash_result_free(struct crash_result *r)
{
	free(r->live);
	free(r->recovered);
	free(r->nested_first);
	free(r->nested_again);
	r->live = r->recovered = r->nested_first = r->nested_again = NULL;
}

static bool fsck_asked(const struct crash_ask *ask, int i)
{
	return ask->fsck && (ask->fsck_disks >> i & 1);
}

/* Each crashing disk of run the memo answers into hit[i], and made live
 * there (it does not crash: its recovery is the memo's); the keys of all
 * into keys, to remember the others by. */
static int memo_lookup(struct virt *v, int nfs, const struct crash_ask *ask, struct crash_disk *run,
		       uint8_t (*keys)[16], const struct crash_memo_entry **hit, char *why,
		       size_t whylen)
{
	for (int i = 0; i < nfs; i++) {
		if (run[i].live)
			continue;
		if (crash_key(&v->disks[i], i, &run[i], keys[i])) {
			snprintf(why, whylen, "disk %d: no crash disk at write %llu", i,
				 (unsigned long long)run[i].upto);
			return -1;
		}
		hit[i] = crash_memo_find(ask->memo, keys[i], ask->nested, fsck_asked(ask, i),
					 ask->dumps);
		run[i].live = hit[i] && !ask->memo->check;
		*(hit[i] ? &ask->memo->hits : &ask->memo->misses) += 1;
	}
	return 0;
}

/* Under crash_memo.check: what the memo answered against what the guest
 * recovered. 0 the same, else -1 with why. */
static int memo_check(int nfs, const struct crash_memo_entry *const *hit,
		      const struct crash_result *r, char *why, size_t whylen)
{
	for (int i = 0; i < nfs; i++) {
		if (!hit[i])
			continue;
		char *lines = NULL;
		size_t len = 0, cap = 0;
		bool dump_same = true;
		if (hit[i]->dump && r->recovered) {
			if (append_lines(&lines, &len, &cap, r->recovered, i))
				return snprintf(why, whylen, "out of memory for a dump"), -1;
			dump_same = !strcmp(lines ? lines : "", hit[i]->dump);
			free(lines);
		}
		const char *what = r->mount_ret[i]			 ? "it did not mount"
				   : memcmp(r->fp.fp[i], hit[i]->fp, 16) ? "its fingerprint"
				   : !dump_same				 ? "its tree"
				   : hit[i]->fsck && r->fsck[i] != hit[i]->verdict
				       ? "the checker's verdict"
				       : NULL;
		if (what) {
			snprintf(why, whylen,
				 "the memo of crash contents answered disk %d otherwise than its "
				 "recovery in the guest: %s differs",
				 i, what);
			return -1;
		}
	}
	return 0;
}

/* Fill what the memo answered into r: mounted, its fingerprint, verdict
 * and dump lines. r->live and r->recovered are the guest's (or, when it
 * was not asked, both the live dump). */
static int answer_from_memo(int nfs, const struct crash_memo_entry *const *hit,
			    struct crash_result *r, char *why, size_t whylen)
{
	bool any = false;
	for (int i = 0; i < nfs; i++) {
		if (!hit[i])
			continue;
		any = true;
		r->mount_ret[i] = 0;
		snprintf(r->mount_err[i], sizeof(r->mount_err[i]), "0");
		memcpy(r->fp.fp[i], hit[i]->fp, 16);
		if (hit[i]->fsck) {
			r->fsck[i] = (enum corrupt_fsck_verdict)hit[i]->verdict;
			snprintf(r->fsck_said[i], sizeof(r->fsck_said[i]), "%s", hit[i]->said);
		}
	}
	if (!any || !r->recovered)
		return 0;
	const char *from[CHECK_MAX_FS] = {0};
	for (int i = 0; i < nfs; i++)
		from[i] = hit[i] ? hit[i]->dump : NULL;
	char *spliced = splice_dump(r->recovered, nfs, from);
	if (!spliced) {
		snprintf(why, whylen, "out of memory for a recovered dump");
		return -1;
	}
	free(r->recovered);
	r->recovered = spliced;
	return 0;
}

/* Remember each disk recovered in the guest, when its recovery was clean
 * (see crash_memo.h). A memo that cannot grow forgets: nothing is lost. */
static void remember(const struct crash_ask *ask, int nfs, const struct crash_disk *run,
		     uint8_t (*keys)[16], const struct crash_result *r)
{
	if (!r->mounted || r->nested_disk >= 0 || (ask->dumps && !r->recovered) ||
	    r->report != SPLAT_NONE)
		return; /* only a clean recovery answers for its crash disk */
	for (int i = 0; i < nfs; i++) {
		if (run[i].live)
			continue;
		struct crash_memo_entry e = {.nested = ask->nested, .fsck = fsck_asked(ask, i)};
		memcpy(e.key, keys[i], 16);
		memcpy(e.fp, r->fp.fp[i], 16);
		e.verdict = (uint8_t)r->fsck[i];
		snprintf(e.said, sizeof(e.said), "%s", r->fsck_said[i]);
		size_t len = 0, cap = 256;
		if (ask->dumps &&
		    (!(e.dump = malloc(cap)) ||
		     (e.dump[0] = 0, append_lines(&e.dump, &len, &cap, r->recovered, i)))) {
			free(e.dump);
			continue;
		}
		(void)crash_memo_put(ask->memo, &e); /* -1: not remembered */
		free(e.dump);
	}
}

/* The first report of log l, if any, into r; its frames' source lines
 * from `lines` (NULL: as printed). */
static void take_report(const struct splat_log *l, struct kline *lines, struct crash_result *r)
{
	if (!l->opened)
		return;
	char text[2 * SPLAT_TEXT_MAX];
	kline_annotate(lines, l->text, text, sizeof(text));
	r->report = l->kind;
	splat_signature(l->kind, text, r->report_sig, sizeof(r->report_sig));
	snprintf(r->report_line, sizeof(r->report_line), "%.*s", (int)strcspn(l->text, "\n"),
		 l->text);
}

/* The guest's part of a crash at run: the live dump where one is asked
 * for, then, in a fork level of b, the crash and the recovery of the
 * disks not live (none when the memo answered them all). b's work is
 * counted as v's. */
static int guest_part(struct virt *v, struct crash_reboot *rb, const struct check_machine *m,
		      const struct crash_disk *run, const struct crash_ask *ask,
		      struct crash_result *r, char *why, size_t whylen, double *t0)
{
	struct virt *b = &rb->recover;
	struct crash_times scratch, *t = ask->times ? ask->times : &scratch;
	bool crashes = crashing(m->nfs, run) != 0;
	r->mounted = !crashes;
	if (ask->dumps && !(r->live = live_dump(v, m->nfs, ask, why, whylen)))
		return -1;
	lap(ask, &t->read, t0);
	if (!crashes) {
		if (ask->dumps && !(r->recovered = strdup(r->live)))
			return snprintf(why, whylen, "out of memory for a dump"), -1;
		return 0;
	}
	if (virt_fork(b)) {
		snprintf(why, whylen, "cannot fork the machine crashes recover in");
		return -1;
	}
	b->sampler = rb->again.sampler = v->sampler; /* lent: their samples are v's */
	virt_phase(b, v->phase, v->tag);
	lap(ask, &t->fork, t0);
	splat_mark(&b->splat);
	splat_mark(&rb->again.splat);
	int rc = crash_in(v, rb, m, run, ask, r, why, whylen, t0);
	take_report(b->splat.opened ? &b->splat : &rb->again.splat, ask->lines, r);
	virt_release(b);
	b->sampler = rb->again.sampler = NULL;
	virt_counts_move(v, b);
	lap(ask, &t->fork, t0);
	return rc;
}

int crash_recover(struct virt *v, struct crash_reboot *rb, const struct check_machine *m,
		  const struct crash_disk *pts, const struct crash_ask *ask, struct crash_result *r,
		  char *why, size_t whylen)
{
	struct crash_disk run[CHECK_MAX_FS];
	const struct crash_memo_entry *hit[CHECK_MAX_FS] = {0};
	uint8_t keys[CHECK_MAX_FS][16];
	struct crash_times scratch, *t = ask->times ? ask->times : &scratch;
	memset(r, 0, sizeof(*r));
	r->nested_disk = -1;
	memcpy(run, pts, sizeof(*pts) * (size_t)m->nfs);
	double t0 = ask->times ? host_seconds() : 0;
	bool memo = ask->memo && !ask->memo->off && !ask->range;
	int rc = memo ? memo_lookup(v, m->nfs, ask, run, keys, hit, why, whylen) : 0;
	lap(ask, &t->memo, &t0);
	if (!rc)
		rc = guest_part(v, rb, m, run, ask, r, why, whylen, &t0);
	if (!rc)
		rc = memo && ask->memo->check ? memo_check(m->nfs, hit, r, why, whylen)
					      : answer_from_memo(m->nfs, hit, r, why, whylen);
	if (rc) {
		crash_result_free(r);
		return -1;
	}
	if (memo)
		remember(ask, m->nfs, run, keys, r);
	return 0;
}

bool crash_step_of(const char *why, char *out, size_t cap)
{
	const char *p = strstr(why, CRASH_STEP_MARK);
	if (!p)
		return false;
	p += strlen(CRASH_STEP_MARK) - strlen("crash ");
	snprintf(out, cap, "%.*s", (int)strcspn(p, "`\n"), p);
	return true;
}

int crash_step_parse(const char *point, struct crash_step *out)
{
	static const char digits[] = CRASH_ORDER_DIGITS;
	int n = 0;
	unsigned long long at = 0;
	char order[80];
	*out = (struct crash_step){.kind = CRASH_STEP_END};
	if (!strcmp(point, "end"))
		return 0;
	if (sscanf(point, "flush %d %llu%n", &out->disk, &at, &n) == 2 && !point[n])
		out->kind = CRASH_STEP_FLUSH;
	else if (sscanf(point, "subset %d %llu %79s%n", &out->disk, &at, order, &n) == 3 &&
		 !point[n] && (!strcmp(order, ".") || strlen(order) <= sizeof(out->extra) / 8))
		out->kind = CRASH_STEP_SUBSET;
	else
		return -1;
	out->at = at;
	for (size_t k = 0; out->kind == CRASH_STEP_SUBSET && strcmp(order, ".") && order[k]; k++) {
		const char *d = strchr(digits, order[k]);
		if (!d)
			return -1;
		out->extra[out->nextra++] = at + (uint64_t)(d - digits);
	}
	return out->disk >= 0 && out->disk < CHECK_MAX_FS ? 0 : -1;
}
