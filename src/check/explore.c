/* explore.c - the bounded depth-first search (see check.h), run by one or
 * more workers over a share (share.h).
 *
 * At a node: fork the machine; for each candidate operation (by default
 * every operation of the scope, op_enumerate; with --branch K, K drawn at
 * random from a generator seeded by the run's seed and the path, so the
 * same seed explores the same tree): apply it, check the state it leaves
 * in both views (check_state), and if the filesystems agree and the state
 * is new to the visited set, or was reached before only with less depth
 * left below it, recurse; then restore (the level is re-armed for the next
 * candidate). After the candidates, release the level. A discrepancy is
 * recorded and the search goes on from the parent state; a guest that
 * panics or hangs is a finding, recorded the same way. The visited key is
 * the first filesystem's live and on-disk fingerprints (the filesystems
 * agree, so theirs do too), stored with the depth left below the state:
 * the search is exhaustive to --depth whatever order it meets states in.
 *
 * Workers: each is a process with a machine of its own, all forked from
 * one booted machine (--jobs) or booted alike on other hosts (--worker).
 * Work moves as paths from the root: when a worker waits for work, a busy
 * one gives away half of the untried candidates of its shallowest open
 * node, each as a path the taker replays from its root.
 *
 * Swarm (--swarm N, after swarm verification in SPIN, as Metis uses it):
 * N searches from the same root, each exhaustive over a small random
 * slice of the space: a few kinds of operation, a few paths (with their
 * parents), a few sizes. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../machine/identity.h"
#include "../util/json.h"
#include "../util/clock.h"
#include "check.h"
#include "../lens/crash.h"
#include "group.h"
#include "gprof.h"
#include "lastop.h"
#include "minimize.h"
#include "repro.h"
#include "share.h"
#include "trace.h"

#define CHECK_MAX_BRANCH 4096
#define COUNT_EVERY	 16 /* states between reports of counts to the share */

struct search {
	const struct check_config *cfg;
	struct share *share; /* the run's: totals, records, stop */
	struct share *space; /* the queue and the visited set: the run's, or a swarm member's */
	struct virt *v;
	struct share_totals delta;		     /* counts not yet given to the share */
	struct share_totals total;		     /* the run's, as of the last report */
	uint64_t own_states;			     /* explored by this process */
	char path[CHECK_MAX_DEPTH + 1][OP_TEXT_MAX]; /* the operations from the root */
	struct op *cand[CHECK_MAX_DEPTH + 1];	     /* candidates per depth */
	int ncand[CHECK_MAX_DEPTH + 1], next[CHECK_MAX_DEPTH + 1];
	int depth;
	bool stop, show_progress;
	struct virt *mini;	     /* for --minimize: a second machine held at the root */
	struct check_step mini_root; /* its root, checked */
	uint8_t *saved[CHECK_MAX_DEPTH + 1][CHECK_MAX_FS]; /* baseline: images per level */
	double t0, last_progress, deadline;
	/* A swarm member's own budget: states it may reach before the
	 * next member's turn (0: none). Spending it stops the member only. */
	uint64_t member_limit;
	uint64_t states0;	/* the run's states when this process joined it */
	struct trace_head head; /* its traces' head, once one is written */
};

static volatile sig_atomic_t interrupted;
/* A progress line is on the terminal, unended: whatever is said next on
 * stderr first clears it, so it gets a line of its own. Display state of
 * this process only, never the machine's. */
static bool progress_drawn;
/* A forked worker: its parent draws the progress line, at any time. */
static bool progress_elsewhere;

static void on_interrupt(int sig)
{
	(void)sig;
	interrupted = 1;
}

/* ---- counting and progress ---- */

static void flush_counts(struct search *s)
{
	s->share->ops->count(s->share, &s->delta, &s->total);
	s->own_states += s->delta.states;
	memset(&s->delta, 0, sizeof(s->delta));
}

/* Progress goes to a terminal only (cfg->progress is set so by the CLI):
 * "\r" redraws the line in place, "\033[K" clears what is left of a
 * longer one. */
static void print_progress(const struct search *s, int depth, bool final)
{
	const struct share_totals *t = &s->total;
	double el = host_seconds() - s->t0;
	/* The rate since this process started: a worker joining a long run
	 * late must not divide the run's states by its own few seconds. */
	uint64_t since = t->states > s->states0 ? t->states - s->states0 : 0;
	fprintf(stderr,
		"\r\033[Kstates %llu  %.1f states/s  depth %d/%d  unique %llu  discrepancies %llu  "
		"findings %llu%s",
		(unsigned long long)t->states, el > 0 ? since / el : 0.0, depth, s->cfg->depth,
		(unsigned long long)t->unique, (unsigned long long)t->discrepancies,
		(unsigned long long)t->findings, final ? "\n" : "");
	progress_drawn = !final;
}

/* Before a line of its own on stderr: clear an unended progress line. */
static void end_progress(void)
{
	if (progress_drawn || progress_elsewhere)
		fputs("\r\033[K", stderr);
	progress_drawn = false;
}

static void progress(struct search *s)
{
	double t = host_seconds();
	if (!s->show_progress || t - s->last_progress < 0.5)
		return;
	s->last_progress = t;
	flush_counts(s);
	print_progress(s, s->depth, false);
}

static bool budget_left(struct search *s)
{
	if (s->stop)
		return false;
	if (s->delta.states >= COUNT_EVERY)
		flush_counts(s);
	const struct check_config *c = s->cfg;
	/* The run's states as last counted, plus this process's since. */
	uint64_t states = s->total.states + s->delta.states;
	bool spent = interrupted || (c->max_states && states >= c->max_states) ||
		     (s->deadline && host_seconds() >= s->deadline);
	if (spent)
		s->share->ops->stop(s->share);
	s->stop = spent || s->share->ops->stopped(s->share) ||
		  (s->member_limit && states >= s->member_limit);
	return !s->stop;
}

/* ---- recording ---- */

static void join_path(const struct search *s, int n, char *out, size_t cap)
{
	size_t len = 0;
	out[0] = 0;
	for (int i = 0; i < n && len < cap; i++)
		len += (size_t)snprintf(out + len, cap - len, "%s%s", i ? "\n" : "", s->path[i]);
}

/* Split a '\n'-joined path into ops[]; how many (at most max). */
static int split_path(const char *text, char ops[][OP_TEXT_MAX], int max)
{
	int n = 0;
	for (const char *p = text; *p && n < max;) {
		size_t len = strcspn(p, "\n");
		snprintf(ops[n++], OP_TEXT_MAX, "%.*s", (int)len, p);
		p += len + (p[len] == '\n');
	}
	return n;
}

static void trace_name(const struct check_config *cfg, const struct share_record *r, unsigned n,
		       bool min, char *out, size_t cap)
{
	snprintf(out, cap, "%s/%s-%04u%s", cfg->out_dir, r->finding ? "finding" : "discrepancy", n,
		 min ? ".min.trace" : ".trace");
}

/* Write record n's trace (and its minimized twin) unless it exists. */
static void write_traces(const struct check_config *cfg, struct trace_head *head,
			 const struct share_record *r, unsigned n)
{
	char(*ops)[OP_TEXT_MAX] = malloc(sizeof(char[TRACE_MAX_OPS][OP_TEXT_MAX]));
	char path[1100], err[512];
	for (int min = 0; ops && min < 2; min++) {
		if (min && !r->min_ops[0])
			break;
		trace_name(cfg, r, n, min, path, sizeof(path));
		if (access(path, F_OK) == 0)
			continue;
		int nops = split_path(min ? r->min_ops : r->ops, ops, TRACE_MAX_OPS);
		const char *detail = min && r->min_detail[0] ? r->min_detail : r->detail;
		if (trace_write(path, head, &cfg->m, ops, nops, r->finding ? "finding" : r->sig,
				detail, err, sizeof(err)))
			fprintf(stderr, "themis: %s\n", err);
	}
	free(ops);
}

/* Simplify the path in r to a simplest reproducer (r->min_ops); what was
 * done, and what it cost, into said (a line of its own). */
static void minimize_record(struct search *s, struct share_record *r, char *said, size_t cap)
{
	char err[512];
	double t0 = host_seconds();
	if (!s->mini) {
		s->mini = calloc(1, sizeof(*s->mini));
		if (!s->mini || check_boot(s->mini, &s->cfg->m, err, sizeof(err)) ||
		    check_root(s->mini, &s->cfg->m, &s->mini_root, err, sizeof(err)) ||
		    virt_fork(s->mini)) {
			fprintf(stderr, "themis: --minimize: %s\n",
				s->mini ? err : "out of memory");
			free(s->mini);
			s->mini = NULL;
			return;
		}
	}
	char(*ops)[OP_TEXT_MAX] = malloc(sizeof(char[TRACE_MAX_OPS][OP_TEXT_MAX]));
	int n = ops ? split_path(r->ops, ops, TRACE_MAX_OPS) : 0, was = n;
	int tries = n ? check_minimize(s->mini, &s->mini_root, s->cfg, ops, &n, r->sig,
				       r->min_detail, sizeof(r->min_detail))
		      : 0;
	if (!ops || tries < 0) {
		fprintf(stderr, "themis: --minimize: out of memory\n");
		free(ops);
		return;
	}
	size_t len = 0;
	for (int i = 0; i < n && len < sizeof(r->min_ops); i++)
		len += (size_t)snprintf(r->min_ops + len, sizeof(r->min_ops) - len, "%s%s",
					i ? "\n" : "", ops[i]);
	double el = host_seconds() - t0;
	s->delta.min_attempts += (uint64_t)tries;
	s->delta.min_ms += (uint64_t)(el * 1000);
	len = (size_t)snprintf(said, cap, "  simplified from %d to %d operation%s (", was, n,
			       n == 1 ? "" : "s");
	for (int i = 0; i < n && len < cap; i++) {
		int k = op_kind_of_text(ops[i]);
		len += (size_t)snprintf(said + len, cap - len, "%s%s", i ? ", " : "",
					k < 0 ? "crash" : op_name((enum op_kind)k));
	}
	if (len < cap)
		snprintf(said + len, cap - len, ") in %d attempts, %.1f s\n", tries, el);
	free(ops);
}

/* Count a discrepancy or finding and say it, on lines of its own. */
static void say_record(struct search *s, int n, const char *op, const char *detail, bool finding)
{
	if (finding)
		s->delta.findings++;
	else
		s->delta.discrepancies++;
	end_progress();
	fprintf(stderr, "%s at depth %d: %s\n  after: %s\n", finding ? "finding" : "discrepancy", n,
		detail, op ? op : "(the root: before any operation)");
}

/* Record the current path + `op` (NULL: the root itself). */
static void record(struct search *s, const char *op, const char *sig, const char *detail,
		   bool finding)
{
	/* --stop-on-first: another worker's record came first; this one,
	 * found while the stop travelled, is not the run's. */
	if (s->cfg->stop_on_first && s->share->ops->stopped(s->share))
		return;
	struct share_record *r = calloc(1, sizeof(*r));
	if (!r)
		return;
	int n = op ? s->depth + 1 : 0;
	if (op)
		snprintf(s->path[s->depth], OP_TEXT_MAX, "%s", op);
	r->finding = finding;
	r->depth = n;
	snprintf(r->sig, sizeof(r->sig), "%s", sig);
	snprintf(r->detail, sizeof(r->detail), "%s", detail);
	join_path(s, n, r->ops, sizeof(r->ops));
	/* A crash state's path ends in the crash step naming its point. */
	char step[OP_TEXT_MAX];
	size_t len = strlen(r->ops);
	if (crash_step_of(detail, step, sizeof(step)))
		snprintf(r->ops + len, sizeof(r->ops) - len, "%s%s", len ? "\n" : "", step);
	/* Said at once, before a minimization that may take a while; with
	 * --stop-on-first only once the record is known to be the run's. */
	bool said = !s->cfg->stop_on_first;
	if (said)
		say_record(s, n, op, detail, finding);
	char mini[512] = "";
	if (s->cfg->minimize && n > 0)
		minimize_record(s, r, mini, sizeof(mini));
	int num = s->share->ops->record(s->share, r);
	if (s->cfg->stop_on_first && num > 1) {
		/* Two workers raced past the check above: the first record
		 * is the run's one (write_report keeps only it). */
		s->stop = true;
		free(r);
		return;
	}
	if (!said)
		say_record(s, n, op, detail, finding);
	fputs(mini, stderr);
	if (num > 0 && s->cfg->out_dir)
		write_traces(s->cfg, &s->head, r, (unsigned)num);
	if (s->cfg->stop_on_first)
		s->share->ops->stop(s->share);
	s->stop |= s->cfg->stop_on_first;
	free(r);
}

/* ---- the search ---- */

static uint64_t node_seed(const struct search *s)
{
	uint64_t h = s->cfg->seed * 0x9e3779b97f4a7c15ULL + (uint64_t)s->depth;
	for (int d = 0; d < s->depth; d++)
		for (const char *p = s->path[d]; *p; p++)
			h = (h ^ (uint8_t)*p) * 0x100000001b3ULL;
	return h;
}

static void dfs(struct search *s, const struct check_step *node);

/* Mark a state reached with `remaining` operations left below it: the
 * visit's answer (see share.h), a new state counted unique, and an error
 * said and the search stopped. */
static int mark_state(struct search *s, const uint8_t key[16], int remaining)
{
	int depth = s->cfg->depth - remaining;
	int seen = s->space->ops->visit(s->space, key, remaining, depth);
	if (seen < 0) {
		fprintf(stderr, "themis: %s\n", s->space->err);
		s->stop = true;
	}
	bool counted = seen == 2 && !s->space->counts_unique;
	s->delta.unique += counted;
	s->delta.by_depth[SHARE_DEPTH_unique][depth] += counted;
	return seen;
}

/* One candidate at the current node; the machine is forked and is
 * restored by the caller afterwards. */
static void try_op(struct search *s, const struct op *op, const struct check_step *node)
{
	const struct check_machine *m = &s->cfg->m;
	struct check_step *st = malloc(sizeof(*st));
	char why[CHECK_DETAIL_MAX], sig[64];
	if (!st) {
		s->stop = true;
		return;
	}
	s->delta.ops++;
	s->delta.states++;
	s->delta.by_depth[SHARE_DEPTH_states][s->depth + 1]++;
	if ((uint64_t)s->depth + 1 > s->delta.deepest)
		s->delta.deepest = (uint64_t)s->depth + 1; /* operations deep */
	int rc = check_state(s->v, m, op, node, st, why, sizeof(why), sig, sizeof(sig));
	if (s->cfg->verbose && rc >= 0) {
		end_progress();
		fprintf(stderr, "%*s%s ->", 2 * s->depth, "", op->text);
		for (int i = 0; i < m->nfs; i++)
			fprintf(stderr, " %s %lld %s",
				check_label(m, i, (char[CHECK_LABEL_MAX]){0}),
				(long long)st->ret[i], st->err[i]);
		fprintf(stderr, "\n");
	}
	int remaining = s->cfg->depth - (s->depth + 1);
	if (rc) {
		record(s, op->text, sig, why, rc < 0);
	} else if (remaining > 0 && st->refused_rule < 0) {
		/* A refusal (a refuses rule) is a leaf: below it the filesystems
		 * hold different files. Unmarked, its key (the first
		 * filesystem's views) stays open to a path that reaches that
		 * state with every call made. */
		if (mark_state(s, st->key, remaining) > 0) {
			snprintf(s->path[s->depth], OP_TEXT_MAX, "%s", op->text);
			s->depth++;
			dfs(s, st);
			s->depth--;
		}
	}
	free(st);
}

/* When a worker waits for work, give it half of the untried candidates
 * of the shallowest node that has some (its subtrees are the largest). */
static void donate(struct search *s)
{
	if (!s->space->ops->hungry(s->space))
		return;
	for (int l = 0; l <= s->depth; l++) {
		int left = s->ncand[l] - s->next[l];
		if (left < 1 || (left < 2 && l == s->depth))
			continue;
		int from = s->ncand[l] - (left + 1) / 2;
		char *item = malloc(SHARE_ITEM_MAX);
		if (!item)
			return;
		int given = s->ncand[l];
		for (int j = s->ncand[l] - 1; j >= from; j--) {
			join_path(s, l, item, SHARE_ITEM_MAX);
			size_t len = strlen(item);
			snprintf(item + len, SHARE_ITEM_MAX - len, "%s%s", l ? "\n" : "",
				 s->cand[l][j].text);
			if (s->space->ops->put(s->space, item))
				break; /* the queue is full: keep the rest */
			given = j;
		}
		s->ncand[l] = given;
		free(item);
		return;
	}
}

/* ---- the baseline: backtracking without the fork ---- */

static int agent_simple(struct search *s, const char *cmd)
{
	struct check_step st;
	char why[256];
	if (check_apply(s->v, s->cfg->m.nfs, cmd, &st, why, sizeof(why)) == 0)
		return 0;
	fprintf(stderr, "themis: baseline: %s\n", why);
	s->stop = true;
	return -1;
}

/* Copy every disk whole, between an unmount and a mount, as an in-OS
 * checker saves its device images (write: puts them back). */
static int baseline_images(struct search *s, int level, bool write)
{
	if (agent_simple(s, AGENT_WORD(umount)))
		return -1;
	for (int i = 0; i < s->cfg->m.nfs; i++) {
		struct disk *d = &s->v->disks[i];
		uint64_t n = disk_sectors(d);
		if (!s->saved[level][i] && !(s->saved[level][i] = malloc(n * DISK_SECTOR_SIZE)))
			return -1;
		int rc = write ? disk_write(d, 0, s->saved[level][i], n)
			       : disk_read(d, 0, s->saved[level][i], n);
		if (rc)
			return -1;
	}
	return agent_simple(s, AGENT_WORD(mount));
}

static void dfs_baseline(struct search *s, struct op *ops, int n, const struct check_step *node)
{
	if (baseline_images(s, s->depth, false))
		return;
	for (int i = 0; i < n && budget_left(s); i++) {
		try_op(s, &ops[i], node);
		if (baseline_images(s, s->depth, true))
			return;
		s->delta.restores++;
		progress(s);
	}
}

static int candidates(struct search *s, const struct op_view *view)
{
	int d = s->depth;
	if (!s->cand[d] && !(s->cand[d] = malloc(sizeof(struct op) * CHECK_MAX_BRANCH)))
		return -1;
	int n = s->cfg->branch;
	if (n == 0) {
		n = op_enumerate(s->cfg->ops, &s->cfg->pools, view, s->cand[d], CHECK_MAX_BRANCH);
	} else {
		uint64_t rng = node_seed(s);
		for (int i = 0; i < n; i++)
			op_generate(&rng, s->cfg->ops, &s->cfg->pools, view, &s->cand[d][i]);
	}
	/* Flag words a filesystem of the run refuses (its OP:WORD rules). */
	return rules_filter(s->cfg->m.rules, s->cfg->m.fs, s->cfg->m.nfs, s->cand[d], n);
}

static void dfs(struct search *s, const struct check_step *node)
{
	int d = s->depth;
	int n = candidates(s, &node->view);
	if (n < 0 || (!s->cfg->baseline && virt_fork(s->v))) {
		s->stop = true;
		return;
	}
	if (s->cfg->baseline) {
		dfs_baseline(s, s->cand[d], n, node);
		return;
	}
	s->ncand[d] = n;
	s->next[d] = 0;
	/* check.h's invariant, after the fork, every restore and before the
	 * release: this node's fork is level d + 1. */
	while (s->v->depth == (unsigned)d + 1 && s->next[d] < s->ncand[d] && budget_left(s)) {
		donate(s);
		if (s->next[d] >= s->ncand[d])
			break;
		try_op(s, &s->cand[d][s->next[d]++], node);
		virt_restore(s->v);
		s->delta.restores++;
		progress(s);
	}
	if (s->v->depth != (unsigned)d + 1) {
		fprintf(stderr, "themis: internal error: fork level %u at search depth %d\n",
			s->v->depth, d);
		s->share->ops->stop(s->share); /* the run is not complete */
		s->stop = true;
	}
	s->ncand[d] = s->next[d] = 0;
	virt_release(s->v);
}

/* One work item (share.h): replay its path but the last operation, try
 * that one, and come back to the root. */
static void run_item(struct search *s, const char *item, const struct check_step *root)
{
	if (!*item) {
		/* The root item's taker marks the root, so that it is in the
		 * visited set before any state below it (one equal to it, say)
		 * is; the root counts as a unique state like any other, and
		 * as the one state at depth 0. */
		s->delta.by_depth[SHARE_DEPTH_states][0]++;
		if (mark_state(s, root->key, s->cfg->depth) >= 0)
			dfs(s, root);
		return;
	}
	char(*ops)[OP_TEXT_MAX] = malloc(sizeof(char[CHECK_MAX_DEPTH + 1][OP_TEXT_MAX]));
	int n = ops ? split_path(item, ops, CHECK_MAX_DEPTH + 1) : 0, forks = 0;
	for (int i = 0; i + 1 < n && !s->stop; i++) {
		struct check_step st;
		char why[CHECK_DETAIL_MAX];
		if (virt_fork(s->v) ||
		    (forks++, check_apply(s->v, s->cfg->m.nfs, ops[i], &st, why, sizeof(why)))) {
			fprintf(stderr, "themis: replaying a work item: %s\n", why);
			s->stop = true;
			break;
		}
		snprintf(s->path[i], OP_TEXT_MAX, "%s", ops[i]);
		s->depth = i + 1;
	}
	if (!s->stop && n && !virt_fork(s->v)) {
		s->ncand[s->depth] = s->next[s->depth] = 0; /* nothing here to donate */
		struct op op = {(enum op_kind)op_kind_of_text(ops[n - 1]), ""};
		snprintf(op.text, OP_TEXT_MAX, "%s", ops[n - 1]);
		try_op(s, &op, n == 1 ? root : NULL);
		virt_release(s->v);
	}
	while (forks--)
		virt_release(s->v);
	s->depth = 0;
	free(ops);
}

/* The state at the root, checked as every other is: 0 and its view,
 * 1 a discrepancy there (recorded), -1 an error (err). */
static int search_root(struct search *s, struct check_step *root, char *err, size_t errlen)
{
	char why[CHECK_DETAIL_MAX], sig[64];
	int rc = check_state(s->v, &s->cfg->m, &check_root_op, NULL, root, why, sizeof(why), sig,
			     sizeof(sig));
	if (rc < 0)
		snprintf(err, errlen, "at the root: %s", why);
	else if (rc > 0)
		record(s, NULL, sig, why, false);
	return rc;
}

/* This worker's loop: take items until no work is left. */
static void work(struct search *s, const struct check_step *root)
{
	char *item = malloc(SHARE_ITEM_MAX);
	int rc = 0;
	/* The counts of an item are in before take ends it: once no worker
	 * is busy the coordinator reads the run's totals as final. */
	while (item && !s->stop && (flush_counts(s), true) &&
	       (rc = s->space->ops->take(s->space, item, SHARE_ITEM_MAX)) > 0)
		run_item(s, item, root);
	if (item && !s->stop && rc < 0)
		fprintf(stderr, "themis: %s\n", s->space->err);
	flush_counts(s);
	free(item);
}

/* ---- swarm ---- */

static void add_dir_with_parents(struct op_pools *p, const char *dir)
{
	for (int i = 0; i < p->ndirs; i++)
		if (!strcmp(p->dirs[i], dir))
			return;
	const char *slash = strrchr(dir, '/');
	if (slash) { /* the parent first, so mkdir can build the path */
		static const char *const parents[] = {"d0", "d1", "d2", "d3"};
		for (size_t k = 0; k < sizeof(parents) / sizeof(parents[0]); k++)
			if ((size_t)(slash - dir) == strlen(parents[k]) &&
			    !strncmp(dir, parents[k], strlen(parents[k])))
				add_dir_with_parents(p, parents[k]);
	}
	if (p->ndirs < OP_POOL_MAX)
		p->dirs[p->ndirs++] = dir;
}

/* A member's slice of the space: create and write (what builds state) plus
 * 1-3 other kinds, 1-2 files, 1-3 directories (closed under parents), and
 * offset 0 plus 1-2 other sizes. */
static void swarm_member(const struct check_config *cfg, int member, struct check_config *mc)
{
	static const unsigned long sizes[] = {0,    1,	  511,	512,  513,  1023, 1024,
					      1025, 4095, 4096, 4097, 8192, 65536};
	uint64_t rng = cfg->seed * 0x2545f4914f6cdd1dULL + (uint64_t)member;
	const struct op_pools *all = &cfg->pools;
	int kinds[OP_NKINDS], nk = 0;
	*mc = *cfg;
	mc->branch = 0;
	for (int k = 0; k < OP_NKINDS; k++)
		if (cfg->ops >> k & 1)
			kinds[nk++] = k;
	mc->ops = cfg->ops & (1u << OP_CREATE | 1u << OP_WRITE);
	for (int want = 1 + (int)(op_rng_next(&rng) % 3); want > 0 && nk; want--)
		mc->ops |= 1u << kinds[op_rng_next(&rng) % (uint64_t)nk];
	memset(&mc->pools, 0, sizeof(mc->pools));
	for (int f = 1 + (int)(op_rng_next(&rng) % 2); f > 0; f--) {
		const char *file = all->files[op_rng_next(&rng) % (uint64_t)all->nfiles];
		bool dup = false;
		for (int i = 0; i < mc->pools.nfiles; i++)
			dup |= !strcmp(mc->pools.files[i], file);
		if (!dup)
			mc->pools.files[mc->pools.nfiles++] = file;
		if (strrchr(file, '/')) { /* its directory, so it can be created */
			for (int i = 0; i < all->ndirs; i++)
				if (!strncmp(all->dirs[i], file, strlen(all->dirs[i])) &&
				    file[strlen(all->dirs[i])] == '/')
					add_dir_with_parents(&mc->pools, all->dirs[i]);
		}
	}
	for (int d = 1 + (int)(op_rng_next(&rng) % 3); d > 0; d--)
		add_dir_with_parents(&mc->pools,
				     all->dirs[op_rng_next(&rng) % (uint64_t)all->ndirs]);
	int nsz = 2 + (int)(op_rng_next(&rng) % 2);
	mc->pools.sizes[mc->pools.nsizes++] = 0;
	for (int i = 1; i < nsz; i++)
		mc->pools.sizes[mc->pools.nsizes++] =
		    all->nsizes ? all->sizes[op_rng_next(&rng) % (uint64_t)all->nsizes]
				: sizes[op_rng_next(&rng) % (sizeof(sizes) / sizeof(sizes[0]))];
}

/* Each member a search of its own from the root, with a visited set of
 * its own, in this process; the run's share keeps the totals and records. */
static void run_swarm(struct search *s, const struct check_step *root)
{
	const struct check_config *cfg = s->cfg;
	uint64_t share = cfg->max_states ? cfg->max_states / (uint64_t)cfg->swarm : 3000;
	struct check_config mc;
	char err[256];
	for (int m = 0; m < cfg->swarm && !s->stop && !interrupted; m++) {
		swarm_member(cfg, m, &mc);
		flush_counts(s);
		s->member_limit = s->total.states + (share ? share : 1);
		if (cfg->verbose) {
			end_progress();
			fprintf(stderr, "swarm member %d: ops", m + 1);
			for (int k = 0; k < OP_NKINDS; k++)
				if (mc.ops >> k & 1)
					fprintf(stderr, " %s", op_name((enum op_kind)k));
			fprintf(stderr, "\n");
		}
		struct share *own = share_local_new(err, sizeof(err));
		if (!own) {
			fprintf(stderr, "themis: %s\n", err);
			break;
		}
		memcpy(own->kinds, s->share->kinds, sizeof(own->kinds));
		s->cfg = &mc;
		s->space = own;
		work(s, root);
		s->space = s->share;
		s->cfg = cfg;
		own->ops->close(own);
		s->member_limit = 0;
		/* A member that spent its own budget leaves the run going. */
		s->stop = s->share->ops->stopped(s->share);
		if (cfg->max_states && s->total.states >= cfg->max_states)
			break;
	}
}

/* ---- the run ---- */

static struct search *search_new(const struct check_config *cfg, struct share *sh, struct virt *v)
{
	struct search *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->cfg = cfg;
	s->share = s->space = sh;
	s->v = v;
	s->t0 = host_seconds();
	s->deadline = cfg->time_budget > 0 ? s->t0 + cfg->time_budget : 0;
	return s;
}

static void search_free(struct search *s)
{
	if (s->mini) {
		virt_free(s->mini);
		free(s->mini);
	}
	for (int l = 0; l <= CHECK_MAX_DEPTH; l++) {
		free(s->cand[l]);
		for (int i = 0; i < CHECK_MAX_FS; i++)
			free(s->saved[l][i]);
	}
	trace_head_free(&s->head);
	free(s);
}

static struct share *open_share(const struct check_config *cfg, bool create, char *err,
				size_t errlen)
{
	if (!cfg->redis)
		return share_local_new(err, errlen);
	if (create)
		return share_redis_create(cfg->redis, cfg->redis_config ? cfg->redis_config : "",
					  cfg->lease, err, errlen);
	static char config[65536]; /* read and dropped: this worker's was checked */
	return share_redis_join(cfg->redis, 0, config, sizeof(config), err, errlen);
}

/* Fork the workers (each a copy of this process and its machine at the
 * root) and wait for them, printing the run's progress. Each leaves the
 * count of states it explored in `explored` (shared memory), for own_states.
 * SIGCHLD is blocked from before the first fork, so a worker's end is
 * pending until the wait below takes it: the run's end is seen at once, not
 * at the next progress tick. */
static int run_jobs(struct search *s, const struct check_step *root)
{
	const struct check_config *cfg = s->cfg;
	pid_t pids[256];
	int n = 0;
	uint64_t *explored = mmap(NULL, sizeof(uint64_t) * 256, PROT_READ | PROT_WRITE,
				  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (explored == MAP_FAILED)
		return -1;
	sigset_t chld, old;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &old);
	fflush(NULL);
	for (; n < cfg->jobs && n < 256; n++) {
		pids[n] = fork();
		if (pids[n] < 0)
			break;
		if (pids[n] == 0) {
			char err[256];
			sigprocmask(SIG_SETMASK, &old, NULL);
			struct share *own =
			    cfg->redis ? open_share(cfg, false, err, sizeof(err)) : s->share;
			if (!own) {
				fprintf(stderr, "themis: worker %d: %s\n", n + 1, err);
				_exit(2);
			}
			if (own != s->share)
				memcpy(own->kinds, s->share->kinds, sizeof(own->kinds));
			s->share = s->space = own;
			s->show_progress = false;
			progress_elsewhere = cfg->progress;
			progress_drawn = false;
			work(s, root);
			explored[n] = s->own_states;
			if (cfg->redis) /* leaves the run: its keys go once all have */
				own->ops->close(own);
			fflush(NULL);
			_exit(0);
		}
	}
	int bad = n < cfg->jobs;
	for (int left = n; left > 0;) {
		int status;
		pid_t p = waitpid(-1, &status, WNOHANG);
		if (p > 0) {
			left--;
			if (!WIFEXITED(status) || WEXITSTATUS(status)) {
				bad = 1;
				s->share->ops->stop(s->share);
			}
			continue;
		}
		if (interrupted)
			s->share->ops->stop(s->share);
		if (cfg->progress) {
			struct share_totals zero = {0};
			s->share->ops->count(s->share, &zero, &s->total);
			print_progress(s, 0, false);
		}
		sigtimedwait(&chld, NULL, &(struct timespec){0, 200000000});
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	for (int i = 0; i < n; i++)
		s->own_states += explored[i];
	munmap(explored, sizeof(uint64_t) * 256);
	return bad ? -1 : 0;
}

/* report.json's "stopped": why a run that is not complete stopped. */
static void json_stopped(FILE *f, const struct check_result *r)
{
	if (r->complete)
		return;
	fprintf(f, "  \"stopped\": ");
	json_string(f, r->stopped);
	fprintf(f, ",\n");
}

/* report.json's "by_depth": the per-depth totals (share.h) of depths 0
 * to the run's, one object a depth. */
static void json_by_depth(FILE *f, const struct share_totals *t, int depth)
{
	fprintf(f, "  \"by_depth\": [");
	for (int d = 0; d <= depth && d < SHARE_DEPTHS; d++) {
		fprintf(f, "%s\n    {\"depth\": %d", d ? "," : "", d);
#define JSON_DEPTH(name, json)                                                                     \
	fprintf(f, ", \"%s\": %llu", json, (unsigned long long)t->by_depth[SHARE_DEPTH_##name][d]);
		SHARE_DEPTH_TOTALS(JSON_DEPTH)
#undef JSON_DEPTH
		fprintf(f, "}");
	}
	fprintf(f, "\n  ],\n");
}

/* Group the records (group.h) into res, each record's group index into
 * of[i], and name each group's simplest trace. 0, or -1 out of memory. */
static int group_run(const struct check_config *cfg, const struct share_record *recs, int n,
		     int *of, struct check_result *res)
{
	res->groups = calloc((size_t)(n ? n : 1), sizeof(*res->groups));
	if (!res->groups)
		return -1;
	res->nrecords = n;
	res->ngroups = group_records(recs, n, res->groups, of);
	for (int g = 0; g < res->ngroups; g++) {
		const struct share_record *r = &recs[res->groups[g].simplest];
		trace_name(cfg, r, (unsigned)res->groups[g].simplest + 1, r->min_ops[0] != 0,
			   res->groups[g].simplest_trace, sizeof(res->groups[g].simplest_trace));
	}
	return 0;
}

/* report.json's "groups": each group once, with its members' traces. */
static void write_groups(FILE *f, const struct check_config *cfg, const struct share_record *recs,
			 int n, const int *of, const struct check_result *res)
{
	fprintf(f, "  \"groups\": [");
	for (int g = 0; g < res->ngroups; g++) {
		const struct check_group *gr = &res->groups[g];
		fprintf(f, "%s\n    {\"id\": %d, \"signature\": ", g ? "," : "", gr->id);
		json_string(f, gr->sig);
		fprintf(f, ", \"view\": \"%s\", \"filesystems\": [", group_view(gr->sig));
		for (int i = 0; i < cfg->m.nfs; i++)
			fprintf(f, "%s\"%s\"", i ? ", " : "", cfg->m.fs[i]);
		fprintf(f, "], \"shape\": ");
		json_string(f, gr->shape);
		fprintf(f, ", \"count\": %d, \"simplest\": ", gr->count);
		json_string(f, gr->simplest_trace);
		fprintf(f, ", \"members\": [");
		for (int i = 0, k = 0; i < n; i++) {
			char trace[1100];
			if (of[i] != g)
				continue;
			trace_name(cfg, &recs[i], (unsigned)i + 1, false, trace, sizeof(trace));
			fprintf(f, "%s", k++ ? ", " : "");
			json_string(f, trace);
		}
		fprintf(f, "]}");
	}
	fprintf(f, "%s],\n", res->ngroups ? "\n  " : "");
}

/* Group g's reproducer (repro.h) from its simplest trace, into its
 * folder; where repro refuses the trace (a time field, a finding, an
 * operation the program lacks), its reason goes into no-repro.txt there
 * instead, which the report shows. */
static void write_group_repro(const struct check_group *g, const char *dir)
{
	char err[512], path[PATH_MAX + 16];
	if (repro_write(g->simplest_trace, dir, err, sizeof(err)) == 0)
		return;
	snprintf(path, sizeof(path), "%s/" REPRO_REFUSED, dir);
	FILE *f = fopen(path, "w");
	if (!f || fprintf(f, "%s\n", err) < 0 || fclose(f) != 0)
		fprintf(stderr, "themis: %s: %s\n", dir, err);
}

/* Group g's disks' byte diff of its simplest trace's last operation
 * (lastop.h) into its folder's LASTOP_FILE; x booted on first use. */
static void write_group_diff(const struct check_config *cfg, struct lastop **x,
			     const struct check_group *g, const char *dir)
{
	char err[512] = "", path[PATH_MAX + 16];
	snprintf(path, sizeof(path), "%s/" LASTOP_FILE, dir);
	FILE *f = fopen(path, "w");
	int rc = f ? 0 : -1;
	if (f && !*x && lastop_open(x, &cfg->m, err, sizeof(err)))
		rc = -1;
	if (rc == 0)
		rc = lastop_write(*x, g->simplest_trace, f, err, sizeof(err));
	if (rc && f) /* the report shows why there is none */
		fprintf(f, "no diff: %s\n", err);
	if (!f || fclose(f) != 0 || rc)
		fprintf(stderr, "themis: %s: %s\n", path, err[0] ? err : strerror(errno));
}

/* Each group's folder, OUT/group-NNNN/: its reproducer and its disks'
 * byte diff. */
static void write_group_files(const struct check_config *cfg, const struct check_result *r)
{
	struct lastop *x = NULL;
	for (int g = 0; g < r->ngroups; g++) {
		char dir[PATH_MAX];
		snprintf(dir, sizeof(dir), "%s/group-%04d", cfg->out_dir, r->groups[g].id);
		if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
			fprintf(stderr, "themis: %s: cannot create: %s\n", dir, strerror(errno));
			continue;
		}
		write_group_repro(&r->groups[g], dir);
		write_group_diff(cfg, &x, &r->groups[g], dir);
	}
	lastop_close(x);
}

/* What a reader needs to rerun the run or judge it: the command line, the
 * kernel (its banner), this build (the executable's hash, as traces name
 * it) and the operations in scope. */
static void json_setup(FILE *f, const struct check_config *cfg)
{
	const struct check_machine *m = &cfg->m;
	char banner[512], ops[1024] = "";
	uint8_t h[16];
	fprintf(f, "  \"command\": ");
	char command[1100];
	snprintf(command, sizeof(command), "themis explore %s", m->options ? m->options : "");
	json_string(f, command);
	fprintf(f, ",\n  \"kernel\": ");
	json_string(f, m->kernel ? m->kernel : "");
	trace_kernel_version(m->kernel ? m->kernel : "", banner, sizeof(banner));
	fprintf(f, ",\n  \"kernel_version\": ");
	json_string(f, banner);
	fprintf(f, ",\n  \"build\": \"");
	bool known = identity_file_hash("/proc/self/exe", h);
	for (int i = 0; i < 16; i++)
		fprintf(f, known ? "%02x" : "", h[i]);
	fprintf(f, "\",\n  \"scope\": ");
	size_t used = 0;
	for (int k = 0; k < OP_NKINDS && used < sizeof(ops); k++)
		if (cfg->ops >> k & 1)
			used += (size_t)snprintf(ops + used, sizeof(ops) - used, "%s%s",
						 used ? " " : "", op_name((enum op_kind)k));
	json_string(f, ops);
	fprintf(f, ",\n");
}

static int write_report(const struct check_config *cfg, const struct lens_set *ls, struct share *sh,
			struct check_result *r, const struct share_totals *t, char *err,
			size_t errlen)
{
	char path[1024];
	if (mkdir(cfg->out_dir, 0777) != 0 && errno != EEXIST) {
		snprintf(err, errlen, "--out %s: cannot create: %s", cfg->out_dir, strerror(errno));
		return -1;
	}
	snprintf(path, sizeof(path), "%s/report.json", cfg->out_dir);
	FILE *f = fopen(path, "w");
	struct share_record *recs = malloc(sizeof(*recs) * SHARE_RECORDS_MAX);
	int *of = malloc(sizeof(*of) * SHARE_RECORDS_MAX);
	if (!f || !recs || !of) {
		snprintf(err, errlen, "--out %s: cannot write: %s", path, strerror(errno));
		free(recs);
		free(of);
		if (f)
			fclose(f);
		return -1;
	}
	int n = sh->ops->records(sh, recs, SHARE_RECORDS_MAX);
	if (cfg->stop_on_first && n > 1)
		n = 1; /* see record(): later ones lost the race to the stop */
	if (n < 0 || group_run(cfg, recs, n > 0 ? n : 0, of, r)) {
		snprintf(err, errlen, "%s: cannot group the records: %s", path,
			 n < 0 ? sh->err : "out of memory");
		free(recs);
		free(of);
		fclose(f);
		return -1;
	}
	fprintf(f, "{\n  \"results\": [");
	struct trace_head head = {0};
	for (int i = 0; i < n; i++) {
		char trace[1100];
		write_traces(cfg, &head, &recs[i], (unsigned)i + 1);
		trace_name(cfg, &recs[i], (unsigned)i + 1, false, trace, sizeof(trace));
		fprintf(f,
			"%s\n    {\"kind\": \"%s\", \"depth\": %d, \"signature\": ", i ? "," : "",
			recs[i].finding ? "finding" : "discrepancy", recs[i].depth);
		json_string(f, recs[i].sig);
		fprintf(f, ", \"detail\": ");
		json_string(f, recs[i].detail);
		fprintf(f, ", \"operations\": ");
		json_string(f, recs[i].ops);
		fprintf(f, ", \"trace\": ");
		json_string(f, trace);
		fprintf(f, ", \"group\": %d}", r->groups[of[i]].id);
	}
	trace_head_free(&head);
	fprintf(f, "\n  ],\n");
	write_group_files(cfg, r);
	write_groups(f, cfg, recs, n, of, r);
	free(recs);
	free(of);
	const struct check_machine *m = &cfg->m;
	if (m->kernel_b) { /* one filesystem, disk 0 under the first, 1 the second */
		fprintf(f, "  \"kernels\": [");
		json_string(f, m->kernel);
		fprintf(f, ", ");
		json_string(f, m->kernel_b);
		fprintf(f, "],\n");
	}
	json_setup(f, cfg);
	fprintf(f, "  \"filesystems\": [");
	for (int i = 0; i < m->nfs; i++)
		fprintf(f, "%s\"%s\"", i ? ", " : "", m->fs[i]);
	fprintf(f,
		"],\n  \"depth\": %d,\n  \"seed\": %llu,\n  \"branch\": %d,\n  \"swarm\": %d,\n"
		"  \"jobs\": %d,\n  \"durability\": \"%s\",\n  \"time\": %s,\n",
		cfg->depth, (unsigned long long)cfg->seed, cfg->branch, cfg->swarm, cfg->jobs,
		check_durability_name(m->durability), m->time ? "true" : "false");
#define JSON_TOTAL(name, kind, json, text)                                                         \
	fprintf(f, "  \"%s\": %llu,\n", json, (unsigned long long)t->name);
	CHECK_TOTALS(JSON_TOTAL)
#undef JSON_TOTAL
	fprintf(f, "  \"complete\": %s,\n  \"seconds\": %.3f,\n  \"states_per_second\": %.2f,\n",
		r->complete ? "true" : "false", r->seconds,
		r->seconds > 0 ? r->states / r->seconds : 0.0);
	json_stopped(f, r);
	if (m->time) {
		char rules[512];
		check_time_rules(m, rules, sizeof(rules));
		fprintf(f, "  \"time_rules\": ");
		json_string(f, rules);
		fprintf(f, ",\n");
	}
	json_by_depth(f, t, cfg->depth);
	fprintf(f, "  \"lenses\": ");
	lens_set_report(ls, t->lens, f, true);
	fprintf(f, "\n}\n");
	if (fclose(f) != 0) {
		snprintf(err, errlen, "%s: write failed", path);
		return -1;
	}
	return 0;
}

static void result_from(struct check_result *res, const struct share_totals *t)
{
	memcpy(res->fixed, t->fixed, sizeof(res->fixed));
	memcpy(res->lens, t->lens, sizeof(res->lens));
	if (t->full && !res->note[0])
		snprintf(res->note, sizeof(res->note),
			 "the visited set filled up: later states were taken as seen and not "
			 "explored");
}

/* Why a run that is not complete stopped, in words, into res->stopped.
 * Inferred from what the run reached rather than told by the worker that
 * stopped it: workers are other processes, maybe on other hosts. */
static void stop_reason(const struct check_config *cfg, struct check_result *res)
{
	const char *why = "stopped before the end of the scope";
	if (interrupted)
		why = "interrupted (SIGINT or SIGTERM)";
	else if (cfg->stop_on_first && (res->discrepancies || res->findings))
		why = "--stop-on-first: stopped at the first discrepancy";
	else if (cfg->time_budget > 0 && res->seconds >= cfg->time_budget)
		why = "--time-budget spent";
	else if (cfg->max_states && res->states >= cfg->max_states)
		why = "--max-states reached";
	else if (res->note[0])
		why = res->note;
	snprintf(res->stopped, sizeof(res->stopped), "%s", why);
}

/* The guest profile of the run's machine (gprof.h) into OUT. 0, or -1
 * with err. */
static int write_profile(const struct check_config *cfg, struct virt *v,
			 const struct gprof_syms *syms, char *err, size_t errlen)
{
	char text[PATH_MAX], svg[PATH_MAX];
	snprintf(text, sizeof(text), "%s/" GPROF_TEXT, cfg->out_dir ? cfg->out_dir : ".");
	snprintf(svg, sizeof(svg), "%s/" GPROF_SVG, cfg->out_dir ? cfg->out_dir : ".");
	FILE *f = fopen(text, "w");
	if (!f) {
		snprintf(err, errlen, "%s: cannot write: %s", text, strerror(errno));
		return -1;
	}
	int rc = gprof_write(syms, v->sampler, cfg->m.kernel, f, svg, err, errlen);
	if (fclose(f) != 0 && rc == 0) {
		snprintf(err, errlen, "%s: write failed", text);
		rc = -1;
	}
	char folded[PATH_MAX], flame[PATH_MAX];
	snprintf(folded, sizeof(folded), "%s/" GPROF_FOLDED, cfg->out_dir ? cfg->out_dir : ".");
	snprintf(flame, sizeof(flame), "%s/" GPROF_FLAME, cfg->out_dir ? cfg->out_dir : ".");
	return rc ? rc : gprof_write_stacks(syms, v->sampler, folded, flame, err, errlen);
}

/* Boot (or load) the machine, check the root, and run the search: in this
 * process (jobs 1, swarm, baseline) or in forked workers; with `report`,
 * write the run's report.json. The lenses are opened here, once per
 * process that boots a machine (forked workers inherit them). */
static int explore_run(const struct check_config *given, struct share *sh, struct check_result *res,
		       bool report, char *err, size_t errlen)
{
	memset(res, 0, sizeof(*res));
	struct check_config run = *given, *cfg = &run;
	struct lens_set ls;
	if (lens_set_open(&ls, cfg->lens_names, given, &given->m, err, errlen))
		return -1;
	lens_set_kinds(&ls, sh->kinds);
	run.m.lenses = &ls;
	struct virt *v = calloc(1, sizeof(*v));
	struct gprof_syms *syms = NULL;
	if (!v || check_boot(v, &cfg->m, err, errlen)) {
		free(v);
		lens_set_close(&ls);
		return -1;
	}
	if (cfg->profile_every &&
	    (gprof_syms_load(&syms, cfg->m.kernel, cfg->m.initrd, err, errlen) ||
	     virt_sampler_start(v, cfg->profile_every, gprof_kernel_map(syms)))) {
		if (syms)
			snprintf(err, errlen, "--profile-guest: out of memory");
		gprof_syms_free(syms);
		virt_free(v);
		free(v);
		lens_set_close(&ls);
		return -1;
	}
	struct search *s = search_new(cfg, sh, v);
	struct check_step *root = malloc(sizeof(*root));
	if (s)
		run.m.lens_words = s->delta.lens;
	int rc = s && root ? search_root(s, root, err, errlen) : -1;
	if (rc > 0)
		sh->ops->stop(sh); /* nothing below a root that differs is worth a look */
	if (rc == 0) {
		flush_counts(s);
		s->states0 = s->total.states;
	}
	signal(SIGINT, on_interrupt);
	signal(SIGTERM, on_interrupt);
	if (rc == 0) {
		s->show_progress = cfg->progress;
		if (cfg->swarm) {
			run_swarm(s, root);
		} else if (cfg->jobs > 1) {
			if (run_jobs(s, root) && !interrupted)
				snprintf(res->note, sizeof(res->note),
					 "a worker failed (see above): the exploration is not "
					 "complete");
		} else {
			work(s, root);
		}
	}
	free(root);
	if (rc >= 0 && s) {
		struct share_totals zero = {0};
		flush_counts(s);
		sh->ops->count(sh, &zero, &s->total);
		result_from(res, &s->total);
		res->own_states = s->own_states;
		res->seconds = host_seconds() - s->t0;
		res->complete = !sh->ops->stopped(sh) && !res->note[0];
		if (!res->complete)
			stop_reason(cfg, res);
		if (cfg->progress)
			print_progress(s, 0, true);
		rc = report && cfg->out_dir
			 ? write_report(cfg, &ls, sh, res, &s->total, err, errlen)
			 : 0;
		if (rc == 0 && syms)
			rc = write_profile(cfg, v, syms, err, errlen);
	}
	gprof_syms_free(syms);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	if (s)
		search_free(s);
	virt_free(v);
	free(v);
	lens_set_close(&ls);
	return rc;
}

/* Does `name` end in `suffix` after a trace's stem (discrepancy-NNNN or
 * finding-NNNN, maybe .min)? */
static bool trace_stem(const char *name, const char *suffix)
{
	size_t n = strlen(name), s = strlen(suffix);
	return n > s && !strcmp(name + n - s, suffix) &&
	       (!strncmp(name, "discrepancy-", 12) || !strncmp(name, "finding-", 8));
}

/* Is `name` a file a run writes into --out (report.json, its traces), or
 * the page `themis report` made of them (report.html, which would show the
 * earlier run's findings beside this run's report.json)? */
static bool run_output(const char *name)
{
	return trace_stem(name, ".trace") || !strcmp(name, "report.json") ||
	       !strcmp(name, "report.html") || !strcmp(name, GPROF_TEXT) ||
	       !strcmp(name, GPROF_SVG) || !strcmp(name, GPROF_FOLDED) ||
	       !strcmp(name, GPROF_FLAME);
}

/* Is `name` a reproducer folder of a run: a group's (group-NNNN), or one
 * `themis repro` wrote beside a trace (NAME.repro)? */
static bool run_group_dir(const char *name)
{
	return (!strncmp(name, "group-", 6) && strlen(name) >= 10 &&
		strspn(name + 6, "0123456789") == strlen(name + 6)) ||
	       trace_stem(name, ".repro");
}

/* Remove a group folder's reproducer files, then the folder; anything else
 * a user put there stays, and so does the folder. 0, or -1 with errno. */
static int clear_group_dir(const char *path)
{
	static const char *const files[] = {"repro.c", "repro.sh", REPRO_REFUSED, LASTOP_FILE};
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char f[PATH_MAX + 16];
		snprintf(f, sizeof(f), "%s/%s", path, files[i]);
		if (unlink(f) != 0 && errno != ENOENT)
			return -1;
	}
	return rmdir(path) != 0 && errno != ENOTEMPTY ? -1 : 0;
}

/* Remove an earlier run's report, traces and group folders from --out, so that what the
 * directory holds afterwards is this run's alone (a trace left over would
 * pass for one of its findings). How many were removed, or -1 with err. */
static int clear_out_dir(const char *dir, char *err, size_t errlen)
{
	DIR *d = opendir(dir);
	if (!d) {
		snprintf(err, errlen, "--out %s: cannot read: %s", dir, strerror(errno));
		return -1;
	}
	int n = 0, rc = 0;
	for (struct dirent *e; rc == 0 && (e = readdir(d));) {
		char path[PATH_MAX];
		bool group = run_group_dir(e->d_name);
		if (!group && !run_output(e->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if ((group ? clear_group_dir(path) : unlink(path)) == 0)
			n++;
		else if (errno != ENOENT) {
			snprintf(err, errlen, "--out %s: cannot remove the earlier run's %s: %s",
				 dir, e->d_name, strerror(errno));
			rc = -1;
		}
	}
	closedir(d);
	return rc ? rc : n;
}

void check_result_free(struct check_result *res)
{
	free(res->groups);
	res->groups = NULL;
	res->ngroups = res->nrecords = 0;
}

int check_explore(const struct check_config *cfg, struct check_result *res, char *err,
		  size_t errlen)
{
	memset(res, 0, sizeof(*res)); /* a share that cannot open leaves nothing to free */
	/* A lens that refuses the run (a kernel that cannot print the reports
	 * asked for) does so before an earlier run's files are removed. */
	struct lens_set trial;
	if (lens_set_open(&trial, cfg->lens_names, cfg, &cfg->m, err, errlen))
		return -1;
	lens_set_close(&trial);
	bool created = cfg->out_dir && mkdir(cfg->out_dir, 0777) == 0;
	if (cfg->out_dir && !created && errno != EEXIST) {
		snprintf(err, errlen, "--out %s: cannot create: %s", cfg->out_dir, strerror(errno));
		return -1;
	}
	int cleared = cfg->out_dir ? clear_out_dir(cfg->out_dir, err, errlen) : 0;
	if (cleared < 0)
		return -1;
	if (cleared > 0)
		fprintf(stderr,
			"themis: --out %s: removed %d file%s of an earlier run (report.json, "
			"report.html, traces, reproducer folders)\n",
			cfg->out_dir, cleared, cleared == 1 ? "" : "s");
	struct share *sh = open_share(cfg, true, err, errlen);
	int rc = sh ? explore_run(cfg, sh, res, true, err, errlen) : -1;
	res->cleared = (unsigned)cleared;
	if (rc)
		check_result_free(res);
	if (rc && created)
		rmdir(cfg->out_dir); /* a run that never started leaves no empty folder */
	if (sh)
		sh->ops->close(sh);
	return rc;
}

int check_work(const struct check_config *cfg, struct share *sh, struct check_result *res,
	       char *err, size_t errlen)
{
	return explore_run(cfg, sh, res, false, err, errlen);
}
