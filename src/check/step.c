/* step.c - one step of the checker, shared by explore, replay and the
 * minimizer: boot the machine, apply an operation through the agent's
 * client (agent.c), and compare what every filesystem answered, live and
 * on disk. */
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "../lens/corrupt_fsck.h"
#include "../machine/snapshot.h"
#include "check.h"
#include "phase.h"
#include "show.h"

void check_time_rules(const struct check_machine *m, char *out, size_t cap)
{
	uint64_t g, ag;
	check_time_grans(m, &g, &ag);
	const char *by = "every filesystem";
	for (int i = 0; i < m->nfs && g > 1; i++) {
		const struct fs_desc *t = fs_find(m->fs[i]);
		if (t && t->gran_ns == g)
			by = m->fs[i];
	}
	int n = snprintf(out, cap,
			 "mtime and ctime compared to %llu ns (%s's declared granularity), atime "
			 "to %llu ns; ranges:",
			 (unsigned long long)g, by, (unsigned long long)ag);
	for (int i = 0; i < m->nfs && n > 0 && (size_t)n < cap; i++) {
		const struct fs_desc *t = fs_find(m->fs[i]);
		if (t)
			n += snprintf(out + n, cap - (size_t)n, " %s %lld..%lld", m->fs[i],
				      (long long)t->tmin, (long long)t->tmax);
	}
	if (n > 0 && (size_t)n < cap)
		snprintf(out + n, cap - (size_t)n,
			 " s (two times that one instant explains, each at or clamped to its own "
			 "filesystem's range, agree: counted as time clamps, not reported)");
}

/* Send a setting the agent answers by echoing its name: 0, or -1 (the
 * machine freed) with why. */
static int agent_setting(struct virt *v, const struct check_machine *m, const char *cmd, char *err,
			 size_t errlen)
{
	struct check_step st;
	if (check_apply(v, m->nfs, cmd, &st, err, errlen) || !v->log ||
	    strncmp(v->log, cmd, strcspn(cmd, " ") + 1)) {
		snprintf(err, errlen,
			 "the agent refused '%s' (an initramfs older than this build?)", cmd);
		virt_free(v);
		return -1;
	}
	return 0;
}

void check_time_grans(const struct check_machine *m, uint64_t *gran, uint64_t *agran)
{
	*gran = *agran = 1;
	for (int i = 0; i < m->nfs; i++) {
		const struct fs_desc *t = fs_find(m->fs[i]);
		*gran = t && t->gran_ns > *gran ? t->gran_ns : *gran;
		*agran = t && t->atime_gran_ns > *agran ? t->atime_gran_ns : *agran;
	}
}

/* Tell the agent the fields some filesystem of the pair cannot represent
 * (the ignore rules, rules/FS.rules): they are benign differences, left
 * out of every fingerprint; and, under --time, the granularity the times
 * compare in. */
static int set_ignored(struct virt *v, const struct check_machine *m, char *err, size_t errlen)
{
	char cmd[128], fields[96];
	rules_ignore_list(m->rules, m->fs, m->nfs, fields, sizeof(fields));
	snprintf(cmd, sizeof(cmd), AGENT_WORD(ignore, " %s"), fields);
	if (agent_setting(v, m, cmd, err, errlen))
		return -1;
	if (!m->time)
		return 0;
	/* Every root's times at the clock base: mkfs leaves its own (xfs an
	 * atime of 0), which are no filesystem's semantics. Each disk's turn
	 * at one instant, as every operation; FAT's root cannot keep them and
	 * is left out of the comparison (roottime). */
	struct check_step st;
	snprintf(cmd, sizeof(cmd), "op utimes . @%llu",
		 (unsigned long long)(m->clock_ns / 1000000000));
	if (check_apply(v, m->nfs, cmd, &st, err, errlen)) {
		virt_free(v);
		return -1;
	}
	uint64_t g, ag;
	check_time_grans(m, &g, &ag);
	snprintf(cmd, sizeof(cmd), AGENT_WORD(timegran, " %llu %llu"), (unsigned long long)g,
		 (unsigned long long)ag);
	return agent_setting(v, m, cmd, err, errlen);
}

/* Boot one machine of m to the agent's command loop: `kernel` with the
 * disks of m from `first` on, n of them (a saved machine instead when
 * m->load). 0, or -1 with err (v freed). */
static int boot_one(struct virt *v, const struct check_machine *m, const char *kernel, int first,
		    int n, char *err, size_t errlen)
{
	char append[256] = "";
	size_t used = (size_t)snprintf(
	    append, sizeof(append),
	    "console=ttyS0 panic=-1 %s themis.fs=", m->warnings ? "loglevel=5" : "quiet");
	struct virt_config cfg = {
	    .kernel = kernel,
	    .initrd = m->initrd,
	    .append = append,
	    .mem = m->mem,
	    .ndisks = n,
	    .clock_ns = m->clock_ns,
	    .clock_host = m->clock_host,
	    .seed = m->machine_seed,
	    .wait = true,
	    .console = m->console,
	};
	for (int i = 0; i < n; i++) {
		cfg.disks[i] = (struct virt_disk_config){m->images[first + i], false};
		used += (size_t)snprintf(append + used, sizeof(append) - used, "%s%s", i ? "," : "",
					 m->fs[first + i]);
	}
	if (used >= sizeof(append)) {
		snprintf(err, errlen, "kernel command line too long");
		return -1;
	}
	if (m->load) {
		if (virt_load(v, &cfg, m->load, err, errlen))
			return -1;
		if (v->ndisks != n) {
			snprintf(err, errlen, "%s: the saved machine has %d disks, not %d", m->load,
				 v->ndisks, n);
			virt_free(v);
			return -1;
		}
		v->op_budget = m->op_budget;
		return 0;
	}
	if (virt_init(v, &cfg, err, errlen))
		return -1;
	v->op_budget = m->op_budget;
	bool ready = virt_run(v, 40000000000ULL) == VIRT_WAITING;
	if (check_boot_diagnose(v, kernel, ready, err, errlen)) {
		virt_free(v);
		return -1;
	}
	if (!ready) {
		snprintf(err, errlen,
			 "the guest did not reach the agent's command loop (stop %d%s%s)", v->stop,
			 v->stop_detail[0] ? ": " : "", v->stop_detail);
		virt_free(v);
		return -1;
	}
	return 0;
}

/* The boot's guest work is no state's (the guest and hart lenses count
 * states'). */
static int boot_done(struct virt *v, int rc)
{
	if (rc == 0)
		virt_counts_clear(v);
	return rc;
}

int check_boot(struct virt *v, const struct check_machine *m, char *err, size_t errlen)
{
	if (!m->kernel_b)
		return boot_done(v, boot_one(v, m, m->kernel, 0, m->nfs, err, errlen) ||
					    set_ignored(v, m, err, errlen)
					? -1
					: 0);
	if (m->nfs != 2 || m->load) { /* the CLI refuses these */
		snprintf(err, errlen, "two kernels need one filesystem and no saved machine");
		return -1;
	}
	struct virt *b = calloc(1, sizeof(*b));
	if (!b) {
		snprintf(err, errlen, "out of memory for the second kernel's machine");
		return -1;
	}
	if (boot_one(v, m, m->kernel, 0, 1, err, errlen)) {
		free(b);
		return -1;
	}
	char why[512];
	if (boot_one(b, m, m->kernel_b, 1, 1, why, sizeof(why))) {
		snprintf(err, errlen, "the second kernel (%s): %s", m->kernel_b, why);
		free(b);
		virt_free(v);
		return -1;
	}
	v->peer = b;
	return boot_done(v, set_ignored(v, m, err, errlen));
}

static const char *const durability_names[] = {"off", "drop-caches", "remount"};

const char *check_durability_name(enum check_durability d)
{
	return (unsigned)d < 3 ? durability_names[d] : "?";
}

int check_durability_by_name(const char *name)
{
	for (int i = 0; i < 3; i++)
		if (!strcmp(name, durability_names[i]))
			return i;
	return -1;
}

static uint64_t name_hash(const char *path, size_t len, bool dir)
{
	char b[80];
	int n = snprintf(b, sizeof(b), "%.*s%c%c", (int)len, path, 0, dir ? 'd' : 'f');
	return XXH3_64bits(b, (size_t)n);
}

uint64_t check_names_of_view(const struct op_view *v)
{
	uint64_t h = 0;
	for (int i = 0; i < v->nfiles; i++)
		h += name_hash(v->files[i], strlen(v->files[i]), false);
	for (int i = 0; i < v->ndirs; i++)
		h += name_hash(v->dirs[i], strlen(v->dirs[i]), true);
	return h;
}

uint64_t check_names_of_dump(const char *dump, int disk)
{
	char head[16];
	uint64_t h = 0;
	int n = snprintf(head, sizeof(head), "e %d ", disk);
	for (const char *l = dump; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (strncmp(l, head, (size_t)n))
			continue;
		const char *p = l + n, *kind = strstr(p, " kind=");
		size_t len = strcspn(p, " \n");
		if (len == 1 && *p == '.')
			continue; /* the root, which a view leaves out */
		h += name_hash(p, len, kind && kind < p + strcspn(p, "\n") && kind[6] == 'd');
	}
	return h;
}

/* s's namespaces: its parent's and its own (from the root, or from a sync,
 * whose state a crash cannot go back before). */
static void chain_names(const struct op *op, const struct check_step *parent, struct check_step *s)
{
	s->nnames = 0;
	if (s->view.nfiles == OP_POOL_MAX || s->view.ndirs == OP_POOL_MAX)
		return; /* the view may be cut */
	if (parent && op->kind != OP_SYNC) {
		if (!parent->nnames || parent->nnames == CHECK_NAMES_MAX)
			return;
		memcpy(s->names, parent->names, sizeof(s->names[0]) * (size_t)parent->nnames);
		s->nnames = parent->nnames;
	}
	s->names[s->nnames++] = check_names_of_view(&s->view);
}

/* Filesystems a and b gave one answer: equal return values and errnos,
 * or errnos an errno rule (rules/FS.rules) makes one answer to this
 * operation (xfs's EEXIST for ENOTEMPTY on rename, which POSIX allows). */
static bool same_answer(const struct check_machine *m, int kind, const struct check_step *s, int a,
			int b)
{
	return s->ret[a] == s->ret[b] &&
	       (!strcmp(s->err[a], s->err[b]) ||
		rules_errno_match(m->rules, kind, m->fs[a], s->err[a], m->fs[b], s->err[b]) >= 0);
}

/* The answers differ only where a refuses rule lets a filesystem fail the
 * call: the rule (s->refused_rule), else -1. */
static int refusal_only(const struct check_machine *m, const struct op *op,
			const struct check_step *s)
{
	int rule = -1, base = -1;
	for (int i = 0; i < m->nfs; i++) {
		int r = s->ret[i] < 0 ? rules_refusal_rule(m->rules, m->fs[i], op->text, s->err[i])
				      : -1;
		if (r >= 0)
			rule = r;
		else if (base < 0)
			base = i;
		else if (!same_answer(m, (int)op->kind, s, base, i))
			return -1;
	}
	return rule;
}

/* Results differ unless every filesystem gave one answer, or those that
 * did not failed as a refuses rule lets them (then s->refused_rule). */
static int compare_results(const struct check_machine *m, const struct op *op, struct check_step *s,
			   char *why, size_t whylen)
{
	int i = 1;
	while (i < m->nfs && same_answer(m, (int)op->kind, s, 0, i))
		i++;
	if (i == m->nfs || (s->refused_rule = refusal_only(m, op, s)) >= 0)
		return 0;
	size_t n = (size_t)snprintf(why, whylen, "return values differ:");
	char l[CHECK_LABEL_MAX];
	for (int k = 0; k < m->nfs && n < whylen; k++)
		n += (size_t)snprintf(why + n, whylen - n, " %s %lld %s", check_label(m, k, l),
				      (long long)s->ret[k], s->err[k]);
	return 1;
}

/* The dump line of disk i for `path` and its fields; NULL if absent. */
static const char *find_entry(const char *log, int disk, const char *path)
{
	char prefix[300];
	int n = snprintf(prefix, sizeof(prefix), "e %d %s ", disk, path);
	for (const char *l = log; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (!strncmp(l, prefix, (size_t)n))
			return l + n;
	return NULL;
}

static size_t line_len(const char *l)
{
	return l ? strcspn(l, "\n") : 0;
}

/* One side of a comparison of two dumps: a dump log, a disk in it, and
 * what to call it ("ext4", "ext4's disk"). */
struct side {
	const char *log;
	int disk;
	const char *name;
	const struct check_machine *m;
};

/* A time field of filesystem `side` ("atime=SEC.NSEC", mtime, ctime):
 * its second, the granularity step it was rounded down to (the walk
 * rounds every time to the run's), and the edges of the range the
 * filesystem declares (its descriptor, src/fs), rounded alike. false: not a time, or a
 * filesystem with no declared range. */
static bool time_field(const char *f, struct side side, long long *sec, long long *step,
		       long long *lo, long long *hi)
{
	char fs[16];
	snprintf(fs, sizeof(fs), "%.*s", (int)strcspn(side.name, "'@ "), side.name);
	const struct fs_desc *t = fs_find(fs);
	bool atime = !strncmp(f, "atime=", 6);
	if (!t || (strncmp(f, "mtime=", 6) && strncmp(f, "ctime=", 6) && !atime) ||
	    sscanf(f + 6, "%lld", sec) != 1)
		return false;
	uint64_t g, ag;
	check_time_grans(side.m, &g, &ag);
	*step = (long long)((atime ? ag : g) / 1000000000);
	*step = *step < 1 ? 1 : *step;
	/* (The whole of time64 has no edge a time reaches: left alone.) */
	*lo =
	    t->tmin > FS_T64_MIN + *step ? t->tmin - ((t->tmin % *step) + *step) % *step : t->tmin;
	*hi = t->tmax - ((t->tmax % *step) + *step) % *step;
	return true;
}

/* " (at ext4's declared last second)" when the field at f is a time at an
 * edge of the range its filesystem declares (reported: no instant the
 * other side's time stands for clamps there). Else "". */
static void time_limit_note(const char *f, struct side side, char *out, size_t cap)
{
	long long sec, step, lo, hi;
	out[0] = 0;
	if (time_field(f, side, &sec, &step, &lo, &hi) && (sec == hi || sec == lo))
		snprintf(out, cap, " (at %.*s's declared %s second)",
			 (int)strcspn(side.name, "'@ "), side.name, sec == hi ? "last" : "first");
}

/* The seconds [*from, *to] of the instants a stored time can stand for:
 * its own (to its step), or, at an edge of its filesystem's range, every
 * instant past the edge (the filesystem clamped it there, as it declares
 * it does); *edge says which. */
static bool instants(const char *f, struct side side, long long *from, long long *to, bool *edge)
{
	long long sec, step, lo, hi;
	if (!time_field(f, side, &sec, &step, &lo, &hi))
		return false;
	*edge = sec == lo || sec == hi;
	*from = sec == lo ? LLONG_MIN : sec;
	*to = sec == hi ? LLONG_MAX : sec + step - 1;
	return true;
}

/* Whether two differing stored times fa and fb (same field) are one
 * instant, each side holding it to its own range: at least one at an edge
 * (two in range would be equal: both are the instant rounded alike), and
 * their instants overlap. */
static bool one_instant(const char *fa, struct side sa, const char *fb, struct side sb)
{
	long long a0, a1, b0, b1;
	bool ea, eb;
	return !strncmp(fa, fb, 6) && instants(fa, sa, &a0, &a1, &ea) &&
	       instants(fb, sb, &b0, &b1, &eb) && (ea || eb) && a1 >= b0 && b1 >= a0;
}

/* Whether entries a and b differ only in times that one instant explains,
 * each held to its own filesystem's declared range (a clamp each side
 * declares: 2446 on ext4 where xfs keeps 2486 is no discrepancy; a time
 * neither the instant nor a clamp of it, a 2038 wrap, is). */
static bool clamps_only(const char *a, struct side sa, const char *b, struct side sb,
			unsigned waived, bool *used)
{
	size_t la = line_len(a), lb = line_len(b);
	const char *fa = a, *fb = b;
	while (fa < a + la && fb < b + lb) {
		size_t wa = strcspn(fa, " \n"), wb = strcspn(fb, " \n");
		bool differs = wa != wb || memcmp(fa, fb, wa);
		bool clamp = differs && one_instant(fa, sa, fb, sb);
		bool let = !strncmp(fa, fb, 6) && rules_time_field(waived, fa);
		if (differs && !clamp && !let)
			return false;
		*used |= differs && !clamp && let;
		fa += wa + (fa[wa] == ' '), fb += wb + (fb[wb] == ' ');
	}
	return fa >= a + la && fb >= b + lb;
}

/* The times a waiver of s lets differ at path, and its rule in *rule. */
static unsigned waived_at(const struct check_step *s, const char *path, int *rule)
{
	uint64_t h = XXH3_64bits(path, strlen(path));
	unsigned times = 0;
	for (int i = 0; s && i < s->nwaived; i++)
		if (s->waived[i].path == h) {
			times |= s->waived[i].times;
			*rule = s->waived[i].rule;
		}
	return times;
}

/* Whether two dumps' entries (every path on both sides) differ only as
 * clamps_only allows, with the times s's waivers let differ; sets
 * s->time_rule when a waiver was needed. */
static bool dumps_clamp_only(struct side a, struct side b, struct check_step *s)
{
	for (int pass = 0; pass < 2; pass++) {
		struct side src = pass ? b : a, other = pass ? a : b;
		char pfx[8], path[256];
		int pn = snprintf(pfx, sizeof(pfx), "e %d ", src.disk);
		for (const char *l = src.log; l && *l;
		     l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
			if (strncmp(l, pfx, (size_t)pn) || sscanf(l + pn, "%255s", path) != 1)
				continue;
			const char *ea = l + pn + strlen(path) + 1,
				   *eb = find_entry(other.log, other.disk, path);
			int rule = -1;
			bool used = false;
			unsigned waived = waived_at(s, path, &rule);
			if (!eb || (!pass && !clamps_only(ea, src, eb, other, waived, &used)))
				return false;
			if (used)
				s->time_rule = rule;
		}
	}
	return true;
}

/* Say where entries a and b (of one path) differ: the first field. */
static void field_difference(const char *path, const char *a, struct side sa, const char *b,
			     struct side sb, const char *kind, char *why, size_t whylen, char *sig,
			     size_t siglen)
{
	size_t la = line_len(a), lb = line_len(b);
	const char *fa = a, *fb = b;
	while (fa < a + la && fb < b + lb) {
		size_t wa = strcspn(fa, " \n"), wb = strcspn(fb, " \n");
		if (wa != wb || memcmp(fa, fb, wa)) {
			size_t key = strcspn(fa, "=");
			char na[96], nb[96];
			time_limit_note(fa, sa, na, sizeof(na));
			time_limit_note(fb, sb, nb, sizeof(nb));
			snprintf(why, whylen, "%s differs at %s: %.*s on %s%s, %.*s on %s%s", kind,
				 path, (int)wa, fa, sa.name, na, (int)wb, fb, sb.name, nb);
			snprintf(sig, siglen, "%s:%.*s", kind, (int)(key < wa ? key : wa), fa);
			return;
		}
		fa += wa + (fa[wa] == ' '), fb += wb + (fb[wb] == ' ');
	}
}

/* Name the first path (in order) and field where two dumps differ.
 * kind: "state", "disk" or "durability" (the signature's prefix). */
static void first_difference(struct side a, struct side b, const char *kind, char *why,
			     size_t whylen, char *sig, size_t siglen, char path_out[256])
{
	path_out[0] = 0;
	for (int pass = 0; pass < 2; pass++) {
		struct side src = pass ? b : a, other = pass ? a : b;
		char pfx[8];
		int pn = snprintf(pfx, sizeof(pfx), "e %d ", src.disk);
		for (const char *l = src.log; l && *l;
		     l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
			char path[256];
			if (strncmp(l, pfx, (size_t)pn) || sscanf(l + pn, "%255s", path) != 1)
				continue;
			const char *ea = l + pn + strlen(path) + 1,
				   *eb = find_entry(other.log, other.disk, path);
			snprintf(path_out, 256, "%s", path);
			if (!eb) {
				snprintf(why, whylen, "%s differs: %s exists on %s only", kind,
					 path, src.name);
				snprintf(sig, siglen, "%s:exists", kind);
				return;
			}
			size_t la = line_len(ea), lb = line_len(eb);
			if (la != lb || memcmp(ea, eb, la)) {
				field_difference(path, ea, src, eb, other, kind, why, whylen, sig,
						 siglen);
				return;
			}
		}
	}
	path_out[0] = 0;
	snprintf(why, whylen, "%s: fingerprints differ between %s and %s (entries alike)", kind,
		 a.name, b.name);
	snprintf(sig, siglen, "%s:fingerprint", kind);
}

void check_explain_dumps(const struct check_machine *m, const char *log_a, int a, const char *log_b,
			 int b, const char *kind, char *why, size_t whylen, char *sig,
			 size_t siglen)
{
	char la[CHECK_LABEL_MAX], lb[CHECK_LABEL_MAX];
	check_explain_named(m, log_a, a, check_label(m, a, la), log_b, b, check_label(m, b, lb),
			    kind, why, whylen, sig, siglen);
}

void check_explain_named(const struct check_machine *m, const char *log_a, int a,
			 const char *name_a, const char *log_b, int b, const char *name_b,
			 const char *kind, char *why, size_t whylen, char *sig, size_t siglen)
{
	char path[256];
	first_difference((struct side){log_a, a, name_a, m}, (struct side){log_b, b, name_b, m},
			 kind, why, whylen, sig, siglen, path);
}

/* Show what differs at `path` across the disks of the dump `log`, in the
 * state the machine is in: the stat of every side, and for content the
 * bytes around the first differing offset. */
static void show_difference(struct virt *v, const struct check_machine *m, const char *log,
			    const char *path, const char *sig, const char *suffix, char *why,
			    size_t whylen)
{
	if (!path[0])
		return;
	check_show_stat(m, log, path, suffix, -1, false, why, whylen);
	const char *field = strchr(sig, ':');
	if (field && !strcmp(field, ":content"))
		check_show_bytes(v, m, path, suffix, why, whylen);
}

/* The first disk whose fingerprint differs from disk 0's, or nfs. */
static int first_unlike(const uint8_t (*fp)[16], int nfs)
{
	int k = 1;
	while (k < nfs && !memcmp(fp[k], fp[0], 16))
		k++;
	return k;
}

/* Under --time: every filesystem whose live view differs from the first's
 * differs only in times each clamped as it declares (the rules lens counts
 * such states: check_step.time_clamped). */
static bool clamped_alike(const struct check_machine *m, const char *log, struct check_step *s)
{
	char l0[CHECK_LABEL_MAX], lk[CHECK_LABEL_MAX];
	for (int k = 1; k < m->nfs; k++)
		if (memcmp(s->fp[k], s->fp[0], 16) &&
		    !dumps_clamp_only((struct side){log, 0, check_label(m, 0, l0), m},
				      (struct side){log, k, check_label(m, k, lk), m}, s)) {
			s->time_rule = -1;
			return false;
		}
	s->time_clamped = s->time_rule < 0;
	return true;
}

/* ---- times rules (rules.h): what an operation may or may not stamp ---- */

/* An operation a times rule names, before it runs: the rule, the files it
 * acts on and their sizes on every disk (-1: missing), and where each is
 * after the operation. Most act on one file (its path, symlinks followed)
 * whose other names (hard links) share its times and size; a rename acts
 * on the name itself (the link, not its target) and moves it to its
 * destination, and an exchange also moves the destination's file to the
 * source. */
#define WAIVER_NAMES 4
struct waiver_before {
	int rule;
	char path[WAIVER_NAMES][256], after[WAIVER_NAMES][256];
	int npaths;
	long long size[WAIVER_NAMES][CHECK_MAX_FS];
};

/* The size field of disk i's dump entry for path; -2 for a file without
 * one (a symlink's "size=-"), -1 if there is no such entry. */
static long long entry_size(const char *log, int i, const char *path)
{
	const char *e = find_entry(log, i, path), *f = e ? strstr(e, "size=") : NULL;
	long long n;
	if (!f || f - e > (ptrdiff_t)line_len(e))
		return -1;
	return f[5] == '-' ? -2 : sscanf(f + 5, "%lld", &n) == 1 ? n : -1;
}

/* The path a symlink at `path` leads to (in the dump of disk 0), a few
 * hops at most, into path; false when it leaves the tree or goes nowhere. */
static bool follow(const char *log, char *path, size_t cap)
{
	for (int hop = 0; hop < 8; hop++) {
		const char *e = find_entry(log, 0, path), *t = e ? strstr(e, " target=") : NULL;
		if (!e || strncmp(e, "kind=symlink", 12))
			return e != NULL;
		char target[128], dir[128];
		if (!t || sscanf(t + 8, "%127s", target) != 1 || target[0] == '/' ||
		    strstr(target, ".."))
			return false;
		const char *slash = strrchr(path, '/');
		snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path + 1) : 0, path);
		snprintf(path, cap, "%.127s%.127s", dir, target);
	}
	return false;
}

/* The other names of a file with links (nlink > 1) at w->path[0]: every
 * path whose record on disk 0 is the same, times and all. */
static void hard_links(const char *log, struct waiver_before *w)
{
	const char *e = find_entry(log, 0, w->path[0]), *n = e ? strstr(e, " nlink=") : NULL;
	if (!n || n - e > (ptrdiff_t)line_len(e) || !strncmp(n, " nlink=1 ", 9))
		return;
	for (const char *l = log; l && *l && w->npaths < WAIVER_NAMES;
	     l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		char path[256];
		if (strncmp(l, "e 0 ", 4) || sscanf(l + 4, "%255s", path) != 1 ||
		    !strcmp(path, w->path[0]))
			continue;
		const char *r = l + 4 + strlen(path) + 1;
		if (line_len(r) == line_len(e) && !memcmp(r, e, line_len(e)))
			snprintf(w->path[w->npaths++], sizeof(w->path[0]), "%s", path);
	}
}

/* Under --time, before an operation a times rule names: what it needs to
 * hold (w->rule -1: none, or the dump failed). */
static void waiver_before(struct virt *v, const struct check_machine *m, const struct op *op,
			  struct waiver_before *w)
{
	char src[256], dst[256], flags[64] = "";
	w->rule = -1;
	w->npaths = 0;
	bool rename = op->kind == OP_RENAME || op->kind == OP_RENAMEAT2;
	if (!m->time || op->kind >= OP_NKINDS ||
	    sscanf(op->text, "op %*s %255s %255s %63s", src, dst, flags) < (rename ? 2 : 1))
		return;
	int rule = rules_times_rule(m->rules, m->fs, m->nfs, (int)op->kind);
	char err[256];
	/* In a fork: the dump reads files and takes time, and the operation
	 * must run on the machine as it was (the rule must not change what it
	 * judges). */
	if (rule < 0 || virt_fork(v))
		return;
	char *log = check_dump(v, m->nfs, AGENT_WORD(dump, " time"), err, sizeof(err));
	virt_restore(v);
	virt_release(v);
	if (!log)
		return;
	snprintf(w->path[0], sizeof(w->path[0]), "%s", src);
	if (rename) {
		w->npaths = 1 + (op->kind == OP_RENAMEAT2 && strstr(flags, "exchange"));
		snprintf(w->path[1], sizeof(w->path[1]), "%s", dst);
		snprintf(w->after[0], sizeof(w->after[0]), "%s", dst);
		snprintf(w->after[1], sizeof(w->after[1]), "%s", src);
	} else if (follow(log, w->path[0], sizeof(w->path[0]))) {
		w->npaths = 1;
		hard_links(log, w);
		for (int p = 0; p < w->npaths; p++)
			memcpy(w->after[p], w->path[p], sizeof(w->after[p]));
	}
	for (int p = 0; p < w->npaths; p++)
		for (int i = 0; i < m->nfs; i++)
			w->size[p][i] = entry_size(log, i, w->path[p]);
	w->rule = w->npaths ? rule : -1;
	free(log);
}

/* Waivers follow their file through the namespace operations that
 * succeeded: a rename moves one (and ends the one of the name it
 * replaced), an exchange swaps two, a link adds one. */
static void waivers_follow(const struct op *op, struct check_step *s)
{
	char src[256], dst[256], flags[64] = "";
	bool rename = op->kind == OP_RENAME || op->kind == OP_RENAMEAT2;
	if ((!rename && op->kind != OP_LINK) || s->ret[0] != 0 || !s->nwaived ||
	    sscanf(op->text, "op %*s %255s %255s %63s", src, dst, flags) < 2)
		return;
	uint64_t hs = XXH3_64bits(src, strlen(src)), hd = XXH3_64bits(dst, strlen(dst));
	bool exchange = op->kind == OP_RENAMEAT2 && strstr(flags, "exchange");
	int n = s->nwaived;
	for (int i = 0; i < n; i++) {
		struct check_waiver *w = &s->waived[i];
		if (op->kind == OP_LINK) {
			if (w->path == hs && s->nwaived < CHECK_WAIVED_MAX)
				s->waived[s->nwaived++] =
				    (struct check_waiver){hd, w->times, w->rule};
		} else if (w->path == hs) {
			w->path = hd;
		} else if (w->path == hd) {
			w->path = exchange ? hs : 0; /* 0: the replaced name's, gone */
		}
	}
}

/* After the operation (log: the dump): for each file it acted on, where it
 * left the file's size as it was on every disk, the rule's times may
 * differ at the file's name after it from now on. */
static void waiver_after(const struct check_machine *m, const struct waiver_before *w,
			 const char *log, struct check_step *s)
{
	for (int p = 0; w->rule >= 0 && p < w->npaths && s->nwaived < CHECK_WAIVED_MAX; p++) {
		bool same = true;
		for (int i = 0; i < m->nfs; i++)
			same &=
			    w->size[p][i] != -1 && entry_size(log, i, w->after[p]) == w->size[p][i];
		if (same)
			s->waived[s->nwaived++] =
			    (struct check_waiver){XXH3_64bits(w->after[p], strlen(w->after[p])),
						  m->rules->r[w->rule].times, w->rule};
	}
}

static int compare_live(struct virt *v, const struct check_machine *m, const struct op *op,
			const struct waiver_before *wb, struct check_step *s, char *why,
			size_t whylen, char *sig, size_t siglen)
{
	if (compare_results(m, op, s, why, whylen)) {
		snprintf(sig, siglen, "result");
		return 1;
	}
	int k = first_unlike(s->fp, m->nfs);
	if (k == m->nfs || s->refused_rule >= 0) /* a refusal: their trees part here */
		return 0;
	char err[256];
	char *log = check_dump(v, m->nfs, m->time ? AGENT_WORD(dump, " time") : AGENT_WORD(dump),
			       err, sizeof(err));
	if (!log) {
		snprintf(why, whylen, "fingerprints differ (%s)", err);
		snprintf(sig, siglen, "state:fingerprint");
		return 1;
	}
	char path[256], l0[CHECK_LABEL_MAX], lk[CHECK_LABEL_MAX];
	if (m->time)
		waiver_after(m, wb, log, s);
	if (m->time && clamped_alike(m, log, s)) {
		free(log);
		return 0;
	}
	first_difference((struct side){log, 0, check_label(m, 0, l0), m},
			 (struct side){log, k, check_label(m, k, lk), m}, "state", why, whylen, sig,
			 siglen, path);
	show_difference(v, m, log, path, sig, "", why, whylen);
	free(log);
	return 1;
}

/* Explain a disagreement of the on-disk views (the machine is back at the
 * state after the operation, inside the durability fork). */
static void explain_disk(struct virt *v, const struct check_machine *m, const struct check_step *s,
			 char *why, size_t whylen, char *sig, size_t siglen)
{
	char cmd[64], err[256], names[2][CHECK_LABEL_MAX + 32], path[256], l[CHECK_LABEL_MAX];
	snprintf(cmd, sizeof(cmd), AGENT_WORD(durable, " %s dump"),
		 check_durability_name(m->durability));
	char *disk = check_dump(v, m->nfs, cmd, err, sizeof(err));
	int k = s->refused_rule < 0 ? first_unlike(s->disk, m->nfs) : m->nfs;
	if (k < m->nfs) { /* the filesystems' disks disagree */
		snprintf(names[0], sizeof(names[0]), "%s's disk", check_label(m, 0, l));
		snprintf(names[1], sizeof(names[1]), "%s's disk", check_label(m, k, l));
		if (disk) {
			first_difference((struct side){disk, 0, names[0], m},
					 (struct side){disk, k, names[1], m}, "disk", why, whylen,
					 sig, siglen, path);
			show_difference(v, m, disk, path, sig, "'s disk", why, whylen);
			check_show_fsck(v, m, why, whylen);
		}
		virt_restore(v);
		free(disk);
		return;
	}
	/* The fsck verdicts are of the synced disks: taken before the
	 * machine goes back to its cache. */
	char fsck[CHECK_DETAIL_MAX] = "";
	if (disk)
		check_show_fsck(v, m, fsck, sizeof(fsck));
	virt_restore(v);
	int i = 0; /* a filesystem whose disk disagrees with its own cache */
	while (i < m->nfs && !memcmp(s->disk[i], s->plain[i], 16))
		i++;
	char *live = check_dump(v, m->nfs, AGENT_WORD(dump), err, sizeof(err));
	snprintf(names[0], sizeof(names[0]), "%s's cache", check_label(m, i, l));
	snprintf(names[1], sizeof(names[1]), "%s's disk after sync", check_label(m, i, l));
	if (live && disk) {
		first_difference((struct side){live, i, names[0], m},
				 (struct side){disk, i, names[1], m}, "durability", why, whylen,
				 sig, siglen, path);
		if (path[0]) {
			check_show_stat(m, live, path, "'s cache", i, false, why, whylen);
			check_show_stat(m, disk, path, "'s disk after sync", i, true, why, whylen);
		}
		snprintf(why + strnlen(why, whylen), whylen - strnlen(why, whylen), "%s", fsck);
	}
	free(live);
	free(disk);
}

/* A step that failed because a filesystem's walk of its tree returned an
 * errno (the agent answered "f I !ERRNO"; the machine is fine): a
 * discrepancy of that filesystem, kind `VIEW:unreadable`, not a guest
 * failure. 1 when so (why and sig say it), else 0. */
static int unreadable(const struct check_machine *m, const struct check_step *s, const char *view,
		      const char *where, char *why, size_t whylen, char *sig, size_t siglen)
{
	char l[CHECK_LABEL_MAX];
	for (int i = 0; i < m->nfs; i++)
		if (s->fp_err[i][0]) {
			snprintf(why, whylen, "%s%s cannot be read back %s: the walk fails (%s)",
				 check_label(m, i, l), view[0] == 'd' ? "'s disk" : "'s tree",
				 where, s->fp_err[i]);
			snprintf(sig, siglen, "%s:unreadable", view);
			return 1;
		}
	return 0;
}

/* The on-disk view of the state the machine is in, compared across the
 * filesystems and against each one's live view; sets s->disk. */
static int check_durable(struct virt *v, const struct check_machine *m, struct check_step *s,
			 char *why, size_t whylen, char *sig, size_t siglen)
{
	char cmd[64];
	struct check_step d;
	snprintf(cmd, sizeof(cmd), AGENT_WORD(durable, " %s"),
		 check_durability_name(m->durability));
	if (virt_fork(v)) {
		snprintf(why, whylen, "cannot fork the machine for the on-disk view");
		snprintf(sig, siglen, "finding");
		return -1;
	}
	if (check_apply(v, m->nfs, cmd, &d, why, whylen)) {
		virt_release(v);
		if (unreadable(m, &d, "disk", "after sync", why, whylen, sig, siglen))
			return 1;
		snprintf(sig, siglen, "finding");
		return -1;
	}
	memcpy(s->disk, d.fp, sizeof(s->disk));
	int rc = 0;
	/* After a refusal each filesystem is held to its own live view only. */
	bool cross = s->refused_rule < 0 && first_unlike(s->disk, m->nfs) < m->nfs;
	bool own = memcmp(s->disk, s->plain, 16 * (size_t)m->nfs) != 0;
	if (cross || own) {
		virt_restore(v);
		snprintf(why, whylen, "on-disk view differs");
		snprintf(sig, siglen, "disk:fingerprint");
		explain_disk(v, m, s, why, whylen, sig, siglen);
		rc = 1;
	}
	virt_release(v);
	return rc;
}

int check_disk_view(struct virt *v, const struct check_machine *m, const struct check_step *parent,
		    struct check_step *s, char *why, size_t whylen, char *sig, size_t siglen)
{
	/* An operation that left every live view as it was (it failed, or
	 * changed nothing) leaves what sync puts on the disk as it was too:
	 * the parent's on-disk view stands, and costs nothing. */
	if (s->verdict < 0)
		return 0;
	bool unchanged = parent && !memcmp(parent->plain, s->plain, sizeof(s->plain));
	if (unchanged)
		memcpy(s->disk, parent->disk, sizeof(s->disk));
	else if (s->verdict == 0 && m->durability != CHECK_DURABLE_OFF)
		return check_durable(v, m, s, why, whylen, sig, siglen);
	return 0;
}

const struct op check_root_op = {OP_NKINDS, "fp"};

int check_root(struct virt *v, const struct check_machine *m, struct check_step *root, char *why,
	       size_t whylen)
{
	char sig[64];
	int rc = check_state(v, m, &check_root_op, NULL, root, why, whylen, sig, sizeof(sig));
	if (rc > 0)
		snprintf(why, whylen, "the root state differs (%s): nothing below it is checked",
			 sig);
	return rc ? -1 : 0;
}

void check_op_of_text(const char *text, struct op *out)
{
	out->kind = (enum op_kind)op_kind_of_text(text);
	snprintf(out->text, sizeof(out->text), "%s", text);
}

/* Every lens's after(), with the verdict so far in s; a discrepancy's
 * detail gets the lenses' notes. */
static int run_lenses(const struct lens_set *ls, struct virt *v, const struct check_machine *m,
		      const struct op *op, const struct check_step *parent, struct check_step *s,
		      char *why, size_t whylen, char *sig, size_t siglen)
{
	uint64_t scratch[LENS_WORDS_MAX];
	char notes[2 * LENS_NOTE_MAX];
	int rc = lens_set_after(ls, m->lens_words ? m->lens_words : scratch, v, m, op, parent, s,
				why, whylen, sig, siglen);
	if (rc == 0)
		rc = s->verdict;
	if (rc <= 0)
		return rc;
	lens_set_notes(ls, notes, sizeof(notes));
	/* The notes end the summary line, before the lines that show it. */
	size_t first = strcspn(why, "\n");
	char *shown = notes[0] ? strdup(why + first) : NULL;
	if (shown && first + 1 < whylen)
		snprintf(why + first, whylen - first, " | %s%s", notes, shown);
	free(shown);
	return rc;
}

int check_state(struct virt *v, const struct check_machine *m, const struct op *op,
		const struct check_step *parent, struct check_step *s, char *why, size_t whylen,
		char *sig, size_t siglen)
{
	const struct lens_set *ls = m->lenses;
	snprintf(sig, siglen, "finding");
	if (!ls) { /* a caller's bug: the on-disk view would be skipped */
		snprintf(why, whylen, "internal error: a check without its lenses");
		return -1;
	}
	lens_set_before(ls, v, op);
	struct waiver_before wb;
	virt_phase(v, CHECK_PHASE_FP, (int)op->kind);
	waiver_before(v, m, op, &wb);
	/* The agent marks the walk after the operation itself (DB_MARK); the
	 * root's `fp` is a walk alone. */
	virt_phase(v, op->kind < OP_NKINDS ? CHECK_PHASE_OP : CHECK_PHASE_FP, (int)op->kind);
	int rc = check_apply(v, m->nfs, op->text, s, why, whylen);
	if (rc < 0) {
		char after[sizeof(op->text) + 16];
		if (op->kind < OP_NKINDS)
			snprintf(after, sizeof(after), "after '%s'", op->text);
		else
			snprintf(after, sizeof(after), "at the start");
		rc = unreadable(m, s, "state", after, why, whylen, sig, siglen) ? 1 : -1;
	}
	s->nwaived = parent ? parent->nwaived : 0; /* after check_apply, which clears s */
	if (parent)
		memcpy(s->waived, parent->waived, sizeof(s->waived));
	waivers_follow(op, s);
	s->time_rule = -1;
	s->refused_rule = -1;
	if (rc == 0) {
		chain_names(op, parent, s); /* for a lens that judges atomicity (crash) */
		memcpy(s->plain, s->fp, sizeof(s->plain));
		struct check_step t;
		if (m->time && check_apply(v, m->nfs, AGENT_WORD(fp, " time"), &t, why, whylen))
			rc = -1;
		else if (m->time) {
			memcpy(s->fp, t.fp, sizeof(s->fp));
			memcpy(s->masked, t.masked, sizeof(s->masked)); /* with the root's times */
			s->masked_from = t.masked_from;
		}
	}
	s->time_clamped = false;
	if (rc == 0)
		rc = compare_live(v, m, op, &wb, s, why, whylen, sig, siglen);
	s->verdict = rc;
	if (rc < 0)
		snprintf(sig, siglen, "finding");
	rc = run_lenses(ls, v, m, op, parent, s, why, whylen, sig, siglen);
	if (rc < 0)
		return -1;
	/* The visited key: both views of the first filesystem, and under
	 * --time the clock's last setting. */
	s->clock_tag = op->kind == OP_SETTIME ? XXH3_64bits(op->text, strlen(op->text))
		       : parent		      ? parent->clock_tag
					      : 0;
	uint8_t both[40];
	memcpy(both, s->fp[0], 16);
	memcpy(both + 16, s->disk[0], 16);
	uint64_t tag = m->time ? s->clock_tag : 0;
	memcpy(both + 32, &tag, 8);
	XXH128_canonical_t key;
	XXH128_canonicalFromHash(&key, XXH3_128bits(both, sizeof(both)));
	memcpy(s->key, key.digest, 16);
	return rc;
}
