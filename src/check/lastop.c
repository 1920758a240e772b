/* lastop.c - see lastop.h. The disk before the last operation is copied
 * to memory, since a fork level's content is gone once the level is
 * released; after the operation, each disk is compared with its copy in a
 * fork. Times, uuids and the checksums over them are masked where Themis
 * knows the fields (diff.h's normalize), so what is left is what the
 * operation meant to write; both counts are said. */
#include <stdlib.h>
#include <string.h>

#include "../format/diff.h"
#include "../lens/lens.h"
#include "lastop.h"
#include "trace.h"

struct lastop {
	struct virt v;
	struct check_machine m; /* the run's, without crash states, checkers or counts */
	struct check_step root, st[2];
	uint8_t *before[CHECK_MAX_FS]; /* each disk's synced bytes before the last operation */
	uint64_t size[CHECK_MAX_FS];
	struct trace t;
};

int lastop_open(struct lastop **out, const struct check_machine *m, char *err, size_t errlen)
{
	struct lastop *x = calloc(1, sizeof(*x));
	*out = NULL;
	if (!x) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	x->m = *m;
	x->m.lens_words = NULL;
	lens_all_off(&x->m); /* it only looks: no crash states, no checkers */
	x->m.console = NULL;
	if (check_boot(&x->v, &x->m, err, errlen)) {
		free(x);
		return -1;
	}
	int rc = check_root(&x->v, &x->m, &x->root, err, errlen);
	if (rc || virt_fork(&x->v)) {
		if (!rc)
			snprintf(err, errlen, "cannot fork the machine");
		lastop_close(x);
		return -1;
	}
	*out = x;
	return 0;
}

void lastop_close(struct lastop *x)
{
	if (!x)
		return;
	for (int i = 0; i < CHECK_MAX_FS; i++)
		free(x->before[i]);
	virt_free(&x->v);
	free(x);
}

static int copy_before(struct disk *d, int i, void *ctx, char *why, size_t whylen)
{
	struct lastop *x = ctx;
	uint64_t n = disk_sectors(d);
	if (x->size[i] != n * 512) {
		free(x->before[i]);
		x->size[i] = n * 512;
		x->before[i] = malloc(x->size[i]);
	}
	if (!x->before[i] || disk_peek(d, 0, x->before[i], n)) {
		snprintf(why, whylen, "cannot copy disk %d (%llu sectors): %s", i,
			 (unsigned long long)n, x->before[i] ? "a read failed" : "out of memory");
		x->size[i] = 0;
		return -1;
	}
	return 0;
}

/* What diff_after writes to. */
struct after {
	struct lastop *x;
	const char *op;
	FILE *out;
};

static void say_result(FILE *out, const char *label, const char *op, const struct diff_result *r,
		       bool normalized)
{
	fprintf(out, "%s: `%s` changed %llu sector%s", label, op, (unsigned long long)r->sectors,
		r->sectors == 1 ? "" : "s");
	if (normalized)
		fprintf(out, " (%llu before masking times, uuids and their checksums)",
			(unsigned long long)r->sectors_raw);
	else
		fprintf(out, " (every byte: Themis knows no fields of %s to mask)",
			r->fs[0] ? r->fs : "this filesystem");
	fputs(r->sectors ? ":\n" : "\n", out);
}

static int diff_after(struct disk *d, int i, void *ctx, char *why, size_t whylen)
{
	struct after *a = ctx;
	struct diff_memory c = {a->x->before[i], a->x->size[i]};
	struct diff_side before = {diff_memory_read, &c, c.size, "the disk before"};
	struct diff_side after = {disk_read_bytes, d, d->size, "the disk after"};
	struct diff_opts o = {.normalize = true};
	struct diff_result r;
	char err[256], label[CHECK_LABEL_MAX];
	int rc = diff_compare(&r, &before, &after, &o, err, sizeof(err));
	if (rc < 0) { /* no field tables for this filesystem: every byte */
		diff_free(&r);
		o.normalize = false;
		rc = diff_compare(&r, &before, &after, &o, err, sizeof(err));
	}
	if (rc >= 0) {
		say_result(a->out, check_label(&a->x->m, i, label), a->op, &r, o.normalize);
		diff_print(&r, a->out);
	} else {
		snprintf(why, whylen, "%s: %s", check_label(&a->x->m, i, label), err);
	}
	diff_free(&r);
	return rc < 0 ? -1 : 0;
}

/* The operations before the last from the root: 0, or 1 the guest failed
 * at one (said on out). */
static int run_prefix(struct lastop *x, FILE *out)
{
	char why[CHECK_DETAIL_MAX], sig[64];
	for (int i = 0; i + 1 < x->t.nops; i++) {
		struct op op;
		check_op_of_text(x->t.ops[i], &op);
		if (check_state(&x->v, &x->m, &op, i ? &x->st[(i - 1) & 1] : &x->root,
				&x->st[i & 1], why, sizeof(why), sig, sizeof(sig)) < 0) {
			fprintf(out, "no diff: the guest failed at operation %d: %.*s\n", i + 1,
				(int)strcspn(why, "\n"), why);
			return 1;
		}
	}
	return 0;
}

int lastop_write(struct lastop *x, const char *trace, FILE *out, char *err, size_t errlen)
{
	if (trace_parse(trace, &x->t, err, errlen))
		return -1;
	if (x->t.nops == 0) {
		fputs("no diff: the trace has no operation (the root differs)\n", out);
		return 0;
	}
	if (virt_restore(&x->v)) {
		snprintf(err, errlen, "cannot restore the machine to its root");
		return -1;
	}
	char why[CHECK_DETAIL_MAX], sig[64];
	int n = x->t.nops;
	if (run_prefix(x, out))
		return 0;
	if (check_synced(&x->v, &x->m, copy_before, x, err, errlen))
		return -1;
	struct op op;
	check_op_of_text(x->t.ops[n - 1], &op);
	if (check_state(&x->v, &x->m, &op, n > 1 ? &x->st[(n - 2) & 1] : &x->root,
			&x->st[(n - 1) & 1], why, sizeof(why), sig, sizeof(sig)) < 0) {
		fprintf(out, "no diff: the guest failed during the last operation: %.*s\n",
			(int)strcspn(why, "\n"), why);
		return 0;
	}
	if (x->t.crash[0])
		fprintf(out,
			"(a crash trace: the diff of its last operation as run and synced, before "
			"its step `%s`)\n",
			x->t.crash);
	/* Said as the user writes it, without the agent's word */
	struct after a = {x, op.text + (strncmp(op.text, "op ", 3) ? 0 : 3), out};
	return check_synced(&x->v, &x->m, diff_after, &a, err, errlen);
}
