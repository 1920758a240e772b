/* gprof_stack.c - the guest profile's stacks (gprof.h): each sample's
 * phase, operation kind and kernel stack as one row of function numbers
 * (outermost first, the function the pc was in last); the rows sorted and
 * counted in runs give the folded file, and, since a sorted list of
 * stacks is a tree read in order, the flame graph drawn from it. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "gprof.h"
#include "gprof_int.h"
#include "ops.h"
#include "phase.h"

#define CALLERS_SHOWN 4

#define FLAME_W	      1200
#define FLAME_ROW     16
#define FLAME_TOP     34
#define FLAME_MIN_BOX 1.0 /* pixels: narrower boxes (and what they hold) are not drawn */

/* A distinct stack: its row in the pool, and how many samples had it. */
struct stack {
	size_t off;
	int len;
	uint64_t n;
};

struct stacks {
	const struct gprof_syms *syms;
	long nfn; /* function numbers below this; phases, then kinds, above */
	long *pool;
	struct stack *s;
	size_t ns;
	uint64_t total;
	int deepest;
};

static const char *row_name(const struct stacks *t, long x)
{
	if (x < t->nfn)
		return gprof_fn_name(t->syms, x);
	if (x < t->nfn + CHECK_NPHASES)
		return check_phase_key((int)(x - t->nfn));
	long k = x - t->nfn - CHECK_NPHASES;
	return k < OP_NKINDS ? op_name((enum op_kind)k) : "(root)";
}

static int by_row(const void *a, const void *b, void *arg)
{
	const struct stack *x = a, *y = b;
	const long *pool = arg;
	for (int i = 0; i < x->len && i < y->len; i++)
		if (pool[x->off + (size_t)i] != pool[y->off + (size_t)i])
			return pool[x->off + (size_t)i] < pool[y->off + (size_t)i] ? -1 : 1;
	return (x->len > y->len) - (x->len < y->len);
}

/* Every sample's row, sorted and counted into t. 0, or -1 (no memory). */
static int build(struct stacks *t, const struct gprof_syms *syms, const struct virt_sampler *smp)
{
	*t = (struct stacks){.syms = syms, .nfn = (long)gprof_nfn(syms), .total = smp->n};
	size_t cells = smp->nframes + 3 * smp->n + 1;
	t->pool = malloc(cells * sizeof(*t->pool));
	t->s = malloc((smp->n ? smp->n : 1) * sizeof(*t->s));
	if (!t->pool || !t->s)
		return -1;
	size_t at = 0;
	for (size_t i = 0; i < smp->n; i++) {
		const struct virt_sample *x = &smp->s[i];
		long kind = x->tag >= 0 && x->tag <= OP_NKINDS ? x->tag : OP_NKINDS;
		t->s[i] = (struct stack){at, x->depth + 3, 1};
		t->pool[at++] = t->nfn + x->phase;
		t->pool[at++] = t->nfn + CHECK_NPHASES + kind;
		for (int d = x->depth - 1; d >= 0; d--)
			t->pool[at++] = gprof_fn_at(syms, smp->frames[x->stack + (size_t)d] - 1, 1);
		t->pool[at++] = gprof_fn_at(syms, x->pc, x->priv);
	}
	qsort_r(t->s, smp->n, sizeof(*t->s), by_row, t->pool);
	for (size_t i = 0; i < smp->n; i++) {
		if (t->ns && !by_row(&t->s[t->ns - 1], &t->s[i], t->pool))
			t->s[t->ns - 1].n++;
		else
			t->s[t->ns++] = t->s[i];
		if (t->s[i].len > t->deepest)
			t->deepest = t->s[i].len;
	}
	return 0;
}

static void drop(struct stacks *t)
{
	free(t->pool);
	free(t->s);
}

static int write_folded(const struct stacks *t, const char *path, char *err, size_t errlen)
{
	FILE *f = gprof_open(path, err, errlen);
	if (!f)
		return -1;
	for (size_t i = 0; i < t->ns; i++) {
		for (int d = 0; d < t->s[i].len; d++) {
			const char *name = row_name(t, t->pool[t->s[i].off + (size_t)d]);
			if (d)
				fputc(';', f);
			for (; *name; name++)
				fputc(*name == ';' ? ',' : *name, f);
		}
		fprintf(f, " %" PRIu64 "\n", t->s[i].n);
	}
	return gprof_close(f, path, err, errlen);
}

/* ---- the flame graph ---- */

static const char *const phase_fill[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2",
					 "#59a14f", "#edc948", "#b07aa1", "#9c755f"};

static void fill_of(const struct stacks *t, long x, int row, char *out, size_t cap)
{
	const char *name = row_name(t, x);
	unsigned h = (unsigned)XXH3_64bits(name, strlen(name));
	if (row == 0)
		snprintf(out, cap, "%s", phase_fill[(x - t->nfn) % 8]);
	else if (row == 1)
		snprintf(out, cap, "#b8c0c8");
	else if (!strncmp(name, "agent:", 6))
		snprintf(out, cap, "hsl(%u,60%%,%u%%)", 200 + h % 30, 62 + h / 30 % 14);
	else
		snprintf(out, cap, "hsl(%u,85%%,%u%%)", h % 50, 55 + h / 50 % 16);
}

static void flame_box(FILE *f, const struct stacks *t, long x, int row, double at, double w,
		      uint64_t n)
{
	char fill[40];
	fill_of(t, x, row, fill, sizeof(fill));
	double y = FLAME_TOP + (double)(t->deepest - 1 - row) * FLAME_ROW;
	const char *name = row_name(t, x);
	fputs("<g><title>", f);
	gprof_xml_text(f, name);
	fprintf(f,
		": %" PRIu64 " samples, %.2f%%</title><rect x=\"%.2f\" y=\"%.0f\" width=\"%.2f\" "
		"height=\"%d\" fill=\"%s\" stroke=\"white\" stroke-width=\"0.5\"/>",
		n, 100.0 * (double)n / (double)t->total, at, y, w, FLAME_ROW - 1, fill);
	int chars = (int)(w / 6.5) - 1;
	if (chars >= 3) {
		char cut[KMAP_NAME_MAX + 16];
		snprintf(cut, sizeof(cut), "%.*s", chars, name);
		fprintf(f, "<text x=\"%.2f\" y=\"%.0f\">", at + 2, y + FLAME_ROW - 4);
		gprof_xml_text(f, cut);
		fputs("</text>", f);
	}
	fputs("</g>\n", f);
}

/* The stacks [lo, hi), alike in their first `row` entries, from x on:
 * each run of them alike in one more is a box, and the same below it. */
static void flame(FILE *f, const struct stacks *t, size_t lo, size_t hi, int row, double x,
		  double scale)
{
	for (size_t i = lo; i < hi;) {
		if (t->s[i].len <= row) { /* ends here: its samples are its parent's own */
			x += (double)t->s[i++].n * scale;
			continue;
		}
		long name = t->pool[t->s[i].off + (size_t)row];
		size_t j = i;
		uint64_t n = 0;
		while (j < hi && t->s[j].len > row && t->pool[t->s[j].off + (size_t)row] == name)
			n += t->s[j++].n;
		double w = (double)n * scale;
		if (w >= FLAME_MIN_BOX) {
			flame_box(f, t, name, row, x, w, n);
			flame(f, t, i, j, row + 1, x, scale);
		}
		x += w;
		i = j;
	}
}

static int write_flame(const struct stacks *t, const char *path, char *err, size_t errlen)
{
	FILE *f = gprof_open(path, err, errlen);
	if (!f)
		return -1;
	gprof_svg_head(f, FLAME_W, FLAME_TOP + t->deepest * FLAME_ROW + 4, 10);
	fprintf(f,
		"<text x=\"0\" y=\"14\" font-size=\"12\">guest flame graph: %" PRIu64
		" samples; bottom up: phase, operation kind, the kernel stack "
		"(each box as wide as its samples; hover for its share)</text>\n",
		t->total);
	if (t->total)
		flame(f, t, 0, t->ns, 0, 0, (double)FLAME_W / (double)t->total);
	fputs("</svg>\n", f);
	return gprof_close(f, path, err, errlen);
}

int gprof_write_stacks(const struct gprof_syms *syms, const struct virt_sampler *smp,
		       const char *folded_path, const char *flame_path, char *err, size_t errlen)
{
	struct stacks t;
	int rc = build(&t, syms, smp);
	if (rc)
		snprintf(err, errlen, "out of memory for the stacks of %zu samples", smp->n);
	if (rc == 0 && folded_path)
		rc = write_folded(&t, folded_path, err, errlen);
	if (rc == 0 && flame_path)
		rc = write_flame(&t, flame_path, err, errlen);
	drop(&t);
	return rc;
}

/* ---- callers ---- */

static void callers_of(FILE *f, const struct gprof_syms *s, const struct virt_sampler *smp, long fn,
		       uint64_t *by, size_t nfn)
{
	uint64_t all = 0, none = 0;
	memset(by, 0, nfn * sizeof(*by));
	for (size_t i = 0; i < smp->n; i++) {
		const struct virt_sample *x = &smp->s[i];
		if (gprof_fn_at(s, x->pc, x->priv) != fn)
			continue;
		all++;
		if (x->depth)
			by[gprof_fn_at(s, smp->frames[x->stack] - 1, 1)]++;
		else
			none++;
	}
	fprintf(f, "  %s:", gprof_fn_name(s, fn));
	for (int k = 0; k < CALLERS_SHOWN; k++) {
		uint64_t n;
		size_t best = gprof_take_top(by, nfn, &n);
		if (best == nfn)
			break;
		fprintf(f, "%s %.0f%% %s", k ? "," : "", 100.0 * (double)n / (double)all,
			gprof_fn_name(s, (long)best));
	}
	if (none)
		fprintf(f, "%s %.0f%% with no stack", all > none ? "," : "",
			100.0 * (double)none / (double)all);
	fputc('\n', f);
}

void gprof_callers(FILE *f, const struct gprof_syms *s, const struct virt_sampler *smp,
		   const long *fns, int n)
{
	size_t nfn = gprof_nfn(s);
	uint64_t *by = calloc(nfn, sizeof(*by));
	if (!by)
		return;
	fprintf(f, "\ncallers of the top functions (the first frame of each sample's stack):\n");
	for (int i = 0; i < n; i++)
		callers_of(f, s, smp, fns[i], by, nfn);
	free(by);
}
