/* minimize.c - turn a trace into a simplest one that still shows the same
 * discrepancy (same signature, at its last operation and at no earlier
 * one). Three moves, each kept only when the discrepancy holds, repeated
 * until none changes the trace:
 *   drop     an operation removed;
 *   kind     an operation replaced by a simpler kind whose arguments it
 *            can fill (`symlink T P` by `create P`, where the symlink only
 *            served to make the name exist), the rest at their simplest;
 *   value    an argument replaced by a simpler value of its bin, and a
 *            path renamed, everywhere in the trace, to a simpler one.
 * "Simpler" is ops.h's order (op_value_rank), derived from op_table.h and
 * the pools: no list of its own here. Every move makes the trace simpler
 * by one measure (fewer operations, an earlier kind, an earlier value, or
 * simpler names in the order they first appear), so the loop ends; a cap
 * on the rounds guards it all the same.
 *
 * Each attempt runs from the root state of one booted machine (fork once,
 * restore before every attempt), so it costs only its operations. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lens/crash.h"
#include "minimize.h"

#define MIN_ARGS   8  /* an operation's arguments, at most (op_table.h) */
#define MIN_ROUNDS 16 /* drop and simplify rounds, at most */

/* One operation split into its kind and argument words. */
struct words {
	int kind;
	int n;
	char w[MIN_ARGS][OP_TEXT_MAX];
};

/* The attempt loop's state: the machine, the run, the target. */
struct mini {
	struct virt *root;
	const struct check_step *root_step;
	const struct check_config *cfg;
	const char *sig;
	char (*trial)[OP_TEXT_MAX];
	int tries;
	char step[OP_TEXT_MAX];	    /* the crash step of the last attempt that showed ("": none) */
	char why[CHECK_DETAIL_MAX]; /* and its detail: the kept trace's own ("": none) */
};

/* Run ops from the root; 1 if the last one (and no earlier one) shows a
 * discrepancy with signature `sig`. */
static int shows(struct mini *x, char ops[][OP_TEXT_MAX], int n)
{
	struct check_step st[2];
	char why[CHECK_DETAIL_MAX], got[64];
	/* The run's lenses, counting nowhere: an attempt is not a state of
	 * the run. */
	struct check_machine plain = x->cfg->m;
	plain.lens_words = NULL;
	x->tries++;
	virt_restore(x->root);
	for (int i = 0; i < n; i++) {
		struct op op;
		check_op_of_text(ops[i], &op);
		if (check_state(x->root, &plain, &op, i ? &st[(i - 1) & 1] : x->root_step,
				&st[i & 1], why, sizeof(why), got, sizeof(got))) {
			if (i != n - 1 || strcmp(got, x->sig))
				return 0;
			if (!crash_step_of(why, x->step, sizeof(x->step)))
				x->step[0] = 0;
			snprintf(x->why, sizeof(x->why), "%s", why);
			return 1;
		}
	}
	return 0;
}

/* Try the trial trace of n operations: kept into ops (1) if it shows. */
static int attempt(struct mini *x, char ops[][OP_TEXT_MAX], int *nops, int n)
{
	if (!shows(x, x->trial, n))
		return 0;
	memcpy(ops, x->trial, OP_TEXT_MAX * (size_t)n);
	*nops = n;
	return 1;
}

static int split_op(const char *text, struct words *o)
{
	o->kind = op_kind_of_text(text);
	o->n = 0;
	const char *p = text + strcspn(text, " "); /* after "op" */
	p += strspn(p, " "), p += strcspn(p, " "); /* after the name */
	while (o->kind >= 0 && *(p += strspn(p, " ")) && o->n < MIN_ARGS) {
		size_t len = strcspn(p, " ");
		snprintf(o->w[o->n++], OP_TEXT_MAX, "%.*s", (int)len, p);
		p += len;
	}
	return o->kind >= 0 && o->n == (int)strlen(op_letters((enum op_kind)o->kind)) ? 0 : -1;
}

static void join_op(const struct words *o, char *out)
{
	size_t len = (size_t)snprintf(out, OP_TEXT_MAX, "op %s", op_name((enum op_kind)o->kind));
	for (int i = 0; i < o->n && len < OP_TEXT_MAX; i++)
		len += (size_t)snprintf(out + len, OP_TEXT_MAX - len, " %s", o->w[i]);
}

/* ---- drop ---- */

static int drop_pass(struct mini *x, char ops[][OP_TEXT_MAX], int *nops)
{
	int changed = 0;
	for (int drop = 0; drop < *nops - 1 && *nops > 1; drop++) {
		int n = 0;
		for (int i = 0; i < *nops; i++)
			if (i != drop)
				memcpy(x->trial[n++], ops[i], OP_TEXT_MAX);
		if (attempt(x, ops, nops, n))
			changed = 1, drop--;
	}
	return changed;
}

/* ---- kind ---- */

/* Operation `a` as kind k: each argument of k from a's last unused one of
 * the same letter (`link P P` gives `create` its destination), the others
 * at their simplest. -1 when k needs a path a does not have. */
static int as_kind(const struct words *a, int k, const struct op_pools *p, struct words *b)
{
	const char *la = op_letters((enum op_kind)a->kind), *lb = op_letters((enum op_kind)k);
	bool used[MIN_ARGS] = {false};
	b->kind = k;
	b->n = (int)strlen(lb);
	for (int j = b->n - 1; j >= 0; j--) {
		int from = -1;
		for (int i = a->n - 1; i >= 0 && from < 0; i--)
			if (!used[i] && la[i] == lb[j])
				from = i;
		if (from >= 0) {
			used[from] = true;
			snprintf(b->w[j], OP_TEXT_MAX, "%s", a->w[from]);
		} else if (lb[j] == 'P' || lb[j] == 'T' || lb[j] == 'E' ||
			   op_value_at(lb[j], p, 0, b->w[j], OP_TEXT_MAX)) {
			return -1;
		}
	}
	return 0;
}

static int kind_pass(struct mini *x, char ops[][OP_TEXT_MAX], int *nops)
{
	int changed = 0;
	for (int i = 0; i < *nops; i++) {
		struct words a, b;
		if (split_op(ops[i], &a))
			continue;
		for (int k = 0; k < a.kind; k++) {
			if (!(x->cfg->ops >> k & 1) || as_kind(&a, k, &x->cfg->pools, &b))
				continue;
			memcpy(x->trial, ops, OP_TEXT_MAX * (size_t)*nops);
			join_op(&b, x->trial[i]);
			if (attempt(x, ops, nops, *nops)) {
				changed = 1;
				break;
			}
		}
	}
	return changed;
}

/* ---- value ---- */

/* Each argument but paths (renamed below) to a simpler value of its bin,
 * the simplest that holds. */
static int value_pass(struct mini *x, char ops[][OP_TEXT_MAX], int *nops)
{
	const struct op_pools *p = &x->cfg->pools;
	int changed = 0;
	for (int i = 0; i < *nops; i++) {
		struct words a;
		if (split_op(ops[i], &a))
			continue;
		const char *l = op_letters((enum op_kind)a.kind);
		for (int j = 0; j < a.n; j++) {
			if (l[j] == 'P' || l[j] == 'T')
				continue;
			int rank = op_value_rank(l[j], p, a.w[j]);
			for (int r = 0; r < rank; r++) {
				struct words b = a;
				if (op_value_at(l[j], p, r, b.w[j], OP_TEXT_MAX) ||
				    !strcmp(b.w[j], a.w[j]))
					continue;
				memcpy(x->trial, ops, OP_TEXT_MAX * (size_t)*nops);
				join_op(&b, x->trial[i]);
				if (attempt(x, ops, nops, *nops)) {
					a = b;
					changed = 1;
					break;
				}
			}
		}
	}
	return changed;
}

/* w with path `from` (or a path below it) named `to`, into out. */
static void rename_word(const char *w, const char *from, const char *to, char *out)
{
	size_t n = strlen(from);
	if (!strncmp(w, from, n) && (w[n] == 0 || w[n] == '/'))
		snprintf(out, OP_TEXT_MAX, "%s%s", to, w + n);
	else
		snprintf(out, OP_TEXT_MAX, "%s", w);
}

/* The trace with paths a and b swapped everywhere, into x->trial. */
static int swap_paths(struct mini *x, char ops[][OP_TEXT_MAX], int n, const char *a, const char *b)
{
	for (int i = 0; i < n; i++) {
		struct words o, t;
		if (split_op(ops[i], &o))
			return -1;
		const char *l = op_letters((enum op_kind)o.kind);
		t = o;
		for (int j = 0; j < o.n; j++) {
			if (l[j] != 'P' && l[j] != 'T')
				continue;
			char tmp[OP_TEXT_MAX];
			rename_word(o.w[j], a, "\001", tmp); /* a placeholder no path holds */
			rename_word(tmp, b, a, t.w[j]);
			snprintf(tmp, OP_TEXT_MAX, "%s", t.w[j]);
			rename_word(tmp, "\001", b, t.w[j]);
		}
		join_op(&t, x->trial[i]);
	}
	return 0;
}

/* The paths the trace names, in the order they first appear (at most
 * max); a path below another counts its own name only. */
static int names_of(char ops[][OP_TEXT_MAX], int n, char names[][OP_TEXT_MAX], int max)
{
	int k = 0;
	for (int i = 0; i < n; i++) {
		struct words o;
		if (split_op(ops[i], &o))
			continue;
		const char *l = op_letters((enum op_kind)o.kind);
		for (int j = 0; j < o.n && k < max; j++) {
			bool seen = l[j] != 'P' && l[j] != 'T';
			for (int q = 0; q < k && !seen; q++)
				seen = !strcmp(names[q], o.w[j]);
			if (!seen)
				snprintf(names[k++], OP_TEXT_MAX, "%s", o.w[j]);
		}
	}
	return k;
}

/* A name to a simpler one of the pools, swapped with it where the trace
 * names that one too (only if it first appears later: the names, in the
 * order they first appear, get simpler). Once one holds, start over. */
static int path_pass(struct mini *x, char ops[][OP_TEXT_MAX], int *nops)
{
	const struct op_pools *p = &x->cfg->pools;
	char names[2 * MIN_ARGS][OP_TEXT_MAX];
	int changed = 0, guard = 0;
	for (bool again = true; again && guard++ < 64;) {
		again = false;
		int k = names_of(ops, *nops, names, 2 * MIN_ARGS);
		for (int q = 0; q < k && !again; q++) {
			int rank = op_value_rank('P', p, names[q]);
			for (int r = 0; r < rank && !again; r++) {
				char y[OP_TEXT_MAX];
				bool earlier = false;
				if (op_value_at('P', p, r, y, sizeof(y)))
					break;
				for (int e = 0; e < q; e++)
					earlier |= !strcmp(names[e], y);
				if (earlier || swap_paths(x, ops, *nops, names[q], y))
					continue;
				again = attempt(x, ops, nops, *nops);
			}
			changed |= again;
		}
	}
	return changed;
}

int check_minimize(struct virt *root, const struct check_step *root_step,
		   const struct check_config *cfg, char ops[][OP_TEXT_MAX], int *nops,
		   const char *sig, char *detail, size_t cap)
{
	struct mini *x = calloc(1, sizeof(*x));
	char(*trial)[OP_TEXT_MAX] = malloc(sizeof(char[TRACE_MAX_OPS][OP_TEXT_MAX]));
	if (!x || !trial) {
		free(x);
		free(trial);
		return -1;
	}
	*x = (struct mini){
	    .root = root, .root_step = root_step, .cfg = cfg, .sig = sig, .trial = trial};
	/* A trace's crash step names a point of its own operations: the
	 * candidates crash every point the run would (crash_at NULL), and
	 * the result ends in the step of the last one that showed. */
	char step[OP_TEXT_MAX] = "";
	if (*nops > 0 && !strncmp(ops[*nops - 1], "crash ", 6))
		snprintf(step, sizeof(step), "%s", ops[--*nops]);
	bool changed = true;
	for (int round = 0; changed && round < MIN_ROUNDS; round++) {
		changed = drop_pass(x, ops, nops);
		changed |= kind_pass(x, ops, nops);
		changed |= value_pass(x, ops, nops);
		changed |= path_pass(x, ops, nops);
	}
	virt_restore(root);
	if (step[0])
		snprintf(ops[(*nops)++], OP_TEXT_MAX, "%s", x->step[0] ? x->step : step);
	/* The last attempt that showed is the trace kept: its detail is the
	 * simplified trace's own, not the one it was found with. */
	snprintf(detail, cap, "%s", x->why);
	int tries = x->tries;
	free(x->trial);
	free(x);
	return tries;
}
