/* explore.c - the bounded depth-first search (see check.h).
 *
 * At a node: fork the machine; for each of `branch` candidate operations
 * (drawn from a generator seeded by the run's seed and the path to the
 * node, so the same seed explores the same tree): apply it, compare the
 * filesystems, and if they agree and the combined state is new, recurse;
 * then restore (the level is re-armed for the next candidate). After the
 * candidates, release the level. A discrepancy is recorded and the search
 * goes on from the parent state; a guest that panics or hangs is a finding,
 * recorded the same way. The visited set holds the combined fingerprints
 * (one 128-bit key: the filesystems agree, so their fingerprints do).
 *
 * Swarm (--swarm N, after swarm verification in SPIN, as Metis uses it):
 * instead of one search over everything, N searches from the same root,
 * each exhaustive (every operation at every node) over a small random
 * slice of the space: a few kinds of operation, a few paths (with their
 * parents), a few sizes. A bug that needs one precise sequence of a few
 * operations is out of reach of random sampling over the whole space but
 * certain within any member whose slice contains it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "check.h"
#include "minimize.h"
#include "trace.h"

struct visited {
	uint8_t (*keys)[16];
	bool *used;
	size_t cap, n;
};

struct search {
	const struct check_config *cfg;
	struct check_result *res;
	struct virt *v;
	struct visited seen;
	char path[CHECK_MAX_DEPTH + 1][OP_TEXT_MAX]; /* the operations from the root */
	int depth;
	bool stop;
	FILE *report;	   /* the JSON report's discrepancy list, or NULL */
	struct virt *mini; /* for --minimize: a second machine held at the root */
	uint8_t *saved[CHECK_MAX_DEPTH + 1][CHECK_MAX_FS]; /* baseline: images per level */
	double t0, last_progress;
};

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts); /* progress and rates only */
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- the visited set: open addressing on the key's first 8 bytes ---- */

static uint64_t key_hash(const uint8_t k[16])
{
	uint64_t h;
	memcpy(&h, k, 8);
	return h;
}

static bool visited_grow(struct visited *s)
{
	struct visited n = {0};
	n.cap = s->cap ? s->cap * 2 : 4096;
	n.keys = calloc(n.cap, 16);
	n.used = calloc(n.cap, 1);
	if (!n.keys || !n.used) {
		free(n.keys);
		free(n.used);
		return false;
	}
	for (size_t i = 0; i < s->cap; i++)
		if (s->used[i]) {
			size_t j = key_hash(s->keys[i]) & (n.cap - 1);
			while (n.used[j])
				j = (j + 1) & (n.cap - 1);
			memcpy(n.keys[j], s->keys[i], 16);
			n.used[j] = true;
			n.n++;
		}
	free(s->keys);
	free(s->used);
	*s = n;
	return true;
}

/* Add a key; true if it was new. */
static bool visited_add(struct visited *s, const uint8_t k[16])
{
	if ((s->n + 1) * 2 > s->cap && !visited_grow(s))
		return false; /* out of memory: treat as seen, the search stays bounded */
	size_t j = key_hash(k) & (s->cap - 1);
	while (s->used[j]) {
		if (!memcmp(s->keys[j], k, 16))
			return false;
		j = (j + 1) & (s->cap - 1);
	}
	memcpy(s->keys[j], k, 16);
	s->used[j] = true;
	s->n++;
	return true;
}

/* ---- reporting ---- */

static void progress(struct search *s, bool final)
{
	double t = now();
	if (!s->cfg->progress || (!final && t - s->last_progress < 0.5))
		return;
	s->last_progress = t;
	double rate = t > s->t0 ? s->res->states / (t - s->t0) : 0;
	fprintf(stderr,
		"\rstates %llu  ops %llu  %.1f states/s  depth %d/%d  unique %llu  "
		"discrepancies %u  findings %u   %s",
		(unsigned long long)s->res->states, (unsigned long long)s->res->ops, rate, s->depth,
		s->cfg->depth, (unsigned long long)s->res->unique, s->res->discrepancies,
		s->res->findings, final ? "\n" : "");
}

static void json_string(FILE *f, const char *str)
{
	fputc('"', f);
	for (; *str; str++) {
		if (*str == '"' || *str == '\\')
			fprintf(f, "\\%c", *str);
		else if ((unsigned char)*str < 0x20)
			fprintf(f, "\\u%04x", *str);
		else
			fputc(*str, f);
	}
	fputc('"', f);
}

/* Shrink the current path to a shortest reproducer and write it beside
 * the full trace as NAME.min.trace. */
static void minimize_into(struct search *s, const char *full, const char *sig, const char *detail)
{
	char err[512], path[1100];
	if (!s->mini) {
		s->mini = calloc(1, sizeof(*s->mini));
		if (!s->mini || check_boot(s->mini, &s->cfg->m, err, sizeof(err)) ||
		    virt_fork(s->mini)) {
			fprintf(stderr, "themis: --minimize: %s\n",
				s->mini ? err : "out of memory");
			free(s->mini);
			s->mini = NULL;
			return;
		}
	}
	char(*ops)[OP_TEXT_MAX] = malloc(sizeof(char[TRACE_MAX_OPS][OP_TEXT_MAX]));
	int n = s->depth + 1;
	if (!ops)
		return;
	memcpy(ops, s->path, OP_TEXT_MAX * (size_t)n);
	int tries = check_minimize(s->mini, &s->cfg->m, ops, &n, sig);
	snprintf(path, sizeof(path), "%.1000s", full);
	char *dot = strrchr(path, '.');
	snprintf(dot ? dot : path + strlen(path), 16, ".min.trace");
	if (trace_write(path, &s->cfg->m, ops, n, sig, detail, err, sizeof(err)))
		fprintf(stderr, "themis: %s\n", err);
	else if (s->cfg->progress)
		fprintf(stderr, "  minimized to %d operation%s in %d attempts: %s\n", n,
			n == 1 ? "" : "s", tries, path);
	free(ops);
}

/* Write the trace of the current path + `op` and note it in the report. */
static void record(struct search *s, const char *op, const char *sig, const char *detail,
		   bool finding)
{
	struct check_result *r = s->res;
	unsigned n = finding ? ++r->findings : ++r->discrepancies;
	if (s->cfg->progress)
		fprintf(stderr, "\n%s %u at depth %d: %s\n  after: %s\n",
			finding ? "finding" : "discrepancy", n, s->depth + 1, detail, op);
	if (!s->cfg->out_dir)
		return;
	char path[1024], err[512];
	snprintf(path, sizeof(path), "%s/%s-%04u.trace", s->cfg->out_dir,
		 finding ? "finding" : "discrepancy", n);
	snprintf(s->path[s->depth], OP_TEXT_MAX, "%s", op);
	if (trace_write(path, &s->cfg->m, s->path, s->depth + 1, sig, detail, err, sizeof(err)))
		fprintf(stderr, "themis: %s\n", err);
	if (s->cfg->minimize)
		minimize_into(s, path, sig, detail);
	if (s->report) {
		fprintf(s->report, "%s\n    {\"kind\": \"%s\", \"depth\": %d, \"signature\": ",
			r->discrepancies + r->findings > 1 ? "," : "",
			finding ? "finding" : "discrepancy", s->depth + 1);
		json_string(s->report, sig);
		fprintf(s->report, ", \"detail\": ");
		json_string(s->report, detail);
		fprintf(s->report, ", \"operation\": ");
		json_string(s->report, op);
		fprintf(s->report, ", \"trace\": ");
		json_string(s->report, path);
		fprintf(s->report, "}");
	}
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

static bool budget_left(const struct search *s)
{
	return !s->stop && (!s->cfg->max_states || s->res->states < s->cfg->max_states);
}

static void dfs(struct search *s);

/* One candidate at the current node; the machine is forked and is
 * restored by the caller afterwards. */
static void try_op(struct search *s, const struct op *op)
{
	const struct check_machine *m = &s->cfg->m;
	struct check_step st;
	char why[CHECK_DETAIL_MAX], sig[64];
	s->res->ops++;
	s->res->states++;
	if (s->depth + 1 > s->res->deepest)
		s->res->deepest = s->depth + 1; /* operations deep */
	if (check_apply(s->v, m->nfs, op->text, &st, why, sizeof(why)) ||
	    (m->time && check_apply(s->v, m->nfs, "fp time", &st, why, sizeof(why)))) {
		record(s, op->text, "finding", why, true);
		s->stop = s->cfg->stop_on_first;
		return;
	}
	if (s->cfg->verbose) {
		fprintf(stderr, "%*s%s ->", 2 * s->depth, "", op->text);
		for (int i = 0; i < m->nfs; i++)
			fprintf(stderr, " %s %lld %s", m->fs[i], (long long)st.ret[i], st.err[i]);
		fprintf(stderr, "\n");
	}
	if (check_compare(s->v, m, &st, why, sizeof(why), sig, sizeof(sig))) {
		record(s, op->text, sig, why, false);
		s->stop = s->cfg->stop_on_first;
		return;
	}
	if (s->depth + 1 < s->cfg->depth && visited_add(&s->seen, st.fp[0])) {
		s->res->unique++;
		snprintf(s->path[s->depth], OP_TEXT_MAX, "%s", op->text);
		s->depth++;
		dfs(s);
		s->depth--;
	}
}

#define CHECK_MAX_BRANCH 4096

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
	if (agent_simple(s, "umount"))
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
	return agent_simple(s, "mount");
}

static void dfs_baseline(struct search *s, struct op *ops, int n)
{
	if (baseline_images(s, s->depth, false))
		return;
	for (int i = 0; i < n && budget_left(s); i++) {
		try_op(s, &ops[i]);
		if (baseline_images(s, s->depth, true))
			return;
		s->res->restores++;
		progress(s, false);
	}
}

static void dfs(struct search *s)
{
	uint64_t rng = node_seed(s);
	struct op *ops = malloc(sizeof(struct op) * CHECK_MAX_BRANCH);
	struct op_view view;
	int n = s->cfg->branch;
	bool have_view = n && check_view(s->v, &s->cfg->m, &view) == 0;
	if (!ops || (!s->cfg->baseline && virt_fork(s->v))) {
		free(ops);
		s->stop = true;
		return;
	}
	if (n == 0)
		n = op_enumerate(s->cfg->ops, &s->cfg->pools, ops, CHECK_MAX_BRANCH);
	else
		for (int i = 0; i < n; i++)
			op_generate(&rng, s->cfg->ops, &s->cfg->pools, have_view ? &view : NULL,
				    &ops[i]);
	if (s->cfg->baseline) {
		dfs_baseline(s, ops, n);
		free(ops);
		return;
	}
	for (int i = 0; i < n && budget_left(s); i++) {
		try_op(s, &ops[i]);
		virt_restore(s->v);
		s->res->restores++;
		progress(s, false);
	}
	virt_release(s->v);
	free(ops);
}

static FILE *open_report(const struct check_config *cfg, char *err, size_t errlen)
{
	char path[1024];
	if (mkdir(cfg->out_dir, 0777) != 0 && errno != EEXIST) {
		snprintf(err, errlen, "--out %s: cannot create: %s", cfg->out_dir, strerror(errno));
		return NULL;
	}
	snprintf(path, sizeof(path), "%s/report.json", cfg->out_dir);
	FILE *f = fopen(path, "w");
	if (!f)
		snprintf(err, errlen, "--out %s: cannot write: %s", path, strerror(errno));
	else
		fprintf(f, "{\n  \"results\": [");
	return f;
}

static void close_report(FILE *f, const struct check_config *cfg, const struct check_result *r)
{
	const struct check_machine *m = &cfg->m;
	fprintf(f, "\n  ],\n  \"filesystems\": [");
	for (int i = 0; i < m->nfs; i++)
		fprintf(f, "%s\"%s\"", i ? ", " : "", m->fs[i]);
	fprintf(f,
		"],\n  \"depth\": %d,\n  \"seed\": %llu,\n  \"branch\": %d,\n  \"swarm\": %d,\n"
		"  \"time\": %s,\n",
		cfg->depth, (unsigned long long)cfg->seed, cfg->branch, cfg->swarm,
		m->time ? "true" : "false");
	fprintf(f, "  \"states\": %llu,\n  \"operations\": %llu,\n  \"unique_states\": %llu,\n",
		(unsigned long long)r->states, (unsigned long long)r->ops,
		(unsigned long long)r->unique);
	fprintf(f, "  \"deepest\": %d,\n  \"seconds\": %.3f,\n  \"states_per_second\": %.2f,\n",
		r->deepest, r->seconds, r->seconds > 0 ? r->states / r->seconds : 0.0);
	fprintf(f, "  \"discrepancies\": %u,\n  \"findings\": %u\n}\n", r->discrepancies,
		r->findings);
	fclose(f);
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
	mc->ops = 0;
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

static void visited_reset(struct visited *v)
{
	free(v->keys);
	free(v->used);
	memset(v, 0, sizeof(*v));
}

static void run_swarm(struct search *s, const uint8_t root[16])
{
	const struct check_config *cfg = s->cfg;
	uint64_t share = cfg->max_states ? cfg->max_states / (uint64_t)cfg->swarm : 3000;
	struct check_config mc;
	for (int m = 0; m < cfg->swarm && !s->stop; m++) {
		swarm_member(cfg, m, &mc);
		mc.max_states = s->res->states + (share ? share : 1);
		if (cfg->verbose) {
			fprintf(stderr, "swarm member %d: ops", m + 1);
			for (int k = 0; k < OP_NKINDS; k++)
				if (mc.ops >> k & 1)
					fprintf(stderr, " %s", op_name((enum op_kind)k));
			fprintf(stderr, "\n");
		}
		visited_reset(&s->seen);
		visited_add(&s->seen, root);
		s->cfg = &mc;
		dfs(s);
		s->cfg = cfg;
		if (cfg->max_states && s->res->states >= cfg->max_states)
			break;
	}
}

int check_explore(const struct check_config *cfg, struct check_result *res, char *err,
		  size_t errlen)
{
	struct search s = {.cfg = cfg, .res = res};
	memset(res, 0, sizeof(*res));
	if (cfg->out_dir && !(s.report = open_report(cfg, err, errlen)))
		return -1;
	s.v = calloc(1, sizeof(*s.v));
	if (!s.v || check_boot(s.v, &cfg->m, err, errlen)) {
		free(s.v);
		if (s.report)
			fclose(s.report);
		return -1;
	}
	struct check_step root;
	char why[CHECK_DETAIL_MAX], sig[64];
	s.t0 = now();
	int rc = 0;
	if (check_apply(s.v, cfg->m.nfs, cfg->m.time ? "fp time" : "fp", &root, why, sizeof(why))) {
		snprintf(err, errlen, "at the root: %s", why);
		rc = -1;
	} else if (check_compare(s.v, &cfg->m, &root, why, sizeof(why), sig, sizeof(sig))) {
		record(&s, "(root: before any operation)", sig, why, false);
	} else {
		visited_add(&s.seen, root.fp[0]);
		res->unique = 1;
		if (cfg->swarm)
			run_swarm(&s, root.fp[0]);
		else
			dfs(&s);
	}
	res->seconds = now() - s.t0;
	progress(&s, true);
	if (s.report)
		close_report(s.report, cfg, res);
	virt_free(s.v);
	free(s.v);
	if (s.mini) {
		virt_free(s.mini);
		free(s.mini);
	}
	for (int l = 0; l <= CHECK_MAX_DEPTH; l++)
		for (int i = 0; i < CHECK_MAX_FS; i++)
			free(s.saved[l][i]);
	free(s.seen.keys);
	free(s.seen.used);
	return rc;
}
