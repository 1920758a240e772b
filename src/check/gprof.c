/* gprof.c - see gprof.h. Each sample becomes a key (phase, operation
 * kind, function); the keys sorted and counted in runs give every table
 * and the picture. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "gprof.h"
#include "gprof_int.h"
#include "ops.h"
#include "phase.h"

#define GPROF_TOP 12 /* functions listed per table */

int gprof_syms_load(struct gprof_syms **out, const char *kernel, const char *initrd, char *err,
		    size_t errlen)
{
	char path[4096];
	struct gprof_syms *s = calloc(1, sizeof(*s));
	*out = NULL;
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	snprintf(path, sizeof(path), "%s.map", kernel);
	int rc = kmap_load(&s->k, path, err, errlen);
	if (rc > 0) {
		size_t n = strlen(err);
		snprintf(err + n, errlen - n,
			 " (scripts/build-kernel.sh writes the kernel's System.map there: "
			 "build the kernel again)");
	}
	/* The agent's is optional: without it, its samples are one entry. */
	const char *slash = strrchr(initrd, '/');
	snprintf(path, sizeof(path), "%.*sagent.map", slash ? (int)(slash - initrd + 1) : 0,
		 initrd);
	char why[512];
	if (rc == 0 && kmap_load(&s->a, path, why, sizeof(why)) < 0) {
		snprintf(err, errlen, "%s", why);
		rc = -1;
	}
	if (rc) {
		gprof_syms_free(s);
		return -1;
	}
	*out = s;
	return 0;
}

const struct kmap *gprof_kernel_map(const struct gprof_syms *s)
{
	return &s->k;
}

void gprof_syms_free(struct gprof_syms *s)
{
	if (s) {
		kmap_free(&s->k);
		kmap_free(&s->a);
	}
	free(s);
}

const char *gprof_symbol(const struct gprof_syms *s, uint64_t pc)
{
	long i = kmap_index(&s->k, pc);
	return i < 0 ? "" : s->k.s[i].name;
}

/* ---- counting ---- */

struct run {
	int phase, kind;
	long fn; /* symbol index, or nsyms + FN_* */
	uint64_t n;
};

struct profile {
	const struct gprof_syms *syms;
	struct run *r; /* sorted by phase, fn, kind */
	size_t nr;
	uint64_t total;
};

size_t gprof_nfn(const struct gprof_syms *s)
{
	return s->k.n + s->a.n + FN_SPECIAL;
}

long gprof_fn_at(const struct gprof_syms *s, uint64_t pc, int priv)
{
	long kn = (long)s->k.n, special = kn + (long)s->a.n;
	if (priv == 3)
		return special + FN_SBI;
	if (priv == 0) {
		if (!s->a.n)
			return special + FN_AGENT;
		long i = kmap_index(&s->a, pc);
		return i < 0 ? special + FN_USER : kn + i;
	}
	long i = kmap_index(&s->k, pc);
	return i < 0 ? special + FN_UNKNOWN : i;
}

static long fn_of(const struct gprof_syms *s, const struct virt_sample *x)
{
	return gprof_fn_at(s, x->pc, x->priv);
}

static uint64_t key_of(const struct gprof_syms *s, const struct virt_sample *x)
{
	uint64_t kind = x->tag >= 0 && x->tag <= OP_NKINDS ? (uint64_t)x->tag : OP_NKINDS;
	return (uint64_t)x->phase << 56 | (uint64_t)fn_of(s, x) << 16 | kind;
}

static int by_key(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static int count_runs(struct profile *p, const struct virt_sampler *smp)
{
	uint64_t *k = malloc((smp->n ? smp->n : 1) * sizeof(*k));
	p->r = malloc((smp->n ? smp->n : 1) * sizeof(*p->r));
	if (!k || !p->r) {
		free(k);
		return -1;
	}
	for (size_t i = 0; i < smp->n; i++)
		k[i] = key_of(p->syms, &smp->s[i]);
	qsort(k, smp->n, sizeof(*k), by_key);
	for (size_t i = 0; i < smp->n; i++) {
		if (p->nr == 0 || k[i] != k[i - 1])
			p->r[p->nr++] = (struct run){(int)(k[i] >> 56), (int)(k[i] & 0xffff),
						     (long)(k[i] >> 16 & 0xffffffffffULL), 0};
		p->r[p->nr - 1].n++;
	}
	p->total = smp->n;
	free(k);
	return 0;
}

const char *gprof_fn_name(const struct gprof_syms *s, long fn)
{
	static __thread char agent[KMAP_NAME_MAX + 8];
	long kn = (long)s->k.n, special = kn + (long)s->a.n;
	if (fn < kn)
		return s->k.s[fn].name;
	if (fn < special) {
		snprintf(agent, sizeof(agent), "agent:%s", s->a.s[fn - kn].name);
		return agent;
	}
	return fn == special + FN_USER	  ? "[user mode, outside the agent: the vDSO]"
	       : fn == special + FN_AGENT ? "[the agent, user mode: no agent.map]"
	       : fn == special + FN_SBI	  ? "[SBI, machine mode]"
					  : "[kernel, no symbol]";
}

static const char *fn_name(const struct profile *p, long fn)
{
	return gprof_fn_name(p->syms, fn);
}

static const char *kind_name(int kind)
{
	return kind < OP_NKINDS ? op_name((enum op_kind)kind) : "(root)";
}

/* A filter over runs: phase and kind, -1 for any. */
struct filter {
	int phase, kind;
};

static bool passes(const struct run *r, struct filter f)
{
	return (f.phase < 0 || r->phase == f.phase) && (f.kind < 0 || r->kind == f.kind);
}

/* The `top` functions by samples among runs that pass f, into fns/counts;
 * how many, and the samples that passed into *all. */
static int top_functions(const struct profile *p, struct filter f, long *fns, uint64_t *counts,
			 int top, uint64_t *all)
{
	size_t nfn = p->syms->k.n + p->syms->a.n + FN_SPECIAL;
	uint64_t *by = calloc(nfn, sizeof(*by));
	int n = 0;
	*all = 0;
	if (!by)
		return 0;
	for (size_t i = 0; i < p->nr; i++)
		if (passes(&p->r[i], f)) {
			by[p->r[i].fn] += p->r[i].n;
			*all += p->r[i].n;
		}
	for (; n < top; n++) { /* top is small: a pass per place */
		size_t best = gprof_take_top(by, nfn, &counts[n]);
		if (best == nfn)
			break;
		fns[n] = (long)best;
	}
	free(by);
	return n;
}

size_t gprof_take_top(uint64_t *by, size_t n, uint64_t *count)
{
	size_t best = n;
	for (size_t j = 0; j < n; j++)
		if (by[j] && (best == n || by[j] > by[best]))
			best = j;
	*count = best < n ? by[best] : 0;
	if (best < n)
		by[best] = 0;
	return best;
}

static void table(FILE *f, const struct profile *p, struct filter flt, const char *title, int top)
{
	long fns[GPROF_TOP];
	uint64_t counts[GPROF_TOP], all;
	int n = top_functions(p, flt, fns, counts, top, &all);
	if (!all)
		return;
	fprintf(f, "%s: %" PRIu64 " samples, %.1f%% of all\n", title, all,
		100.0 * (double)all / (double)p->total);
	for (int i = 0; i < n; i++)
		fprintf(f, "  %5.1f%%  %8" PRIu64 "  %s\n", 100.0 * (double)counts[i] / (double)all,
			counts[i], fn_name(p, fns[i]));
}

static void write_text(FILE *f, const struct profile *p, const struct virt_sampler *smp,
		       const char *kernel)
{
	fprintf(f,
		"guest profile: one sample every %" PRIu64 " guest instructions, %" PRIu64
		" samples (%" PRIu64 " lost), kernel %s, symbols %s.map\n"
		"(each sample is the function the pc was in, and its kernel stack as the "
		"functions' prologues and epilogues say where each caller is)\n\n",
		smp->every, p->total, smp->lost, kernel, kernel);
	table(f, p, (struct filter){-1, -1}, "all phases", GPROF_TOP);
	long fns[GPROF_TOP];
	uint64_t counts[GPROF_TOP], all;
	int n = top_functions(p, (struct filter){-1, -1}, fns, counts, GPROF_TOP, &all);
	gprof_callers(f, p->syms, smp, fns, n);
	for (int ph = 0; ph < CHECK_NPHASES; ph++) {
		char title[96];
		snprintf(title, sizeof(title), "\nphase %s", check_phase_key(ph));
		table(f, p, (struct filter){ph, -1}, title, GPROF_TOP);
	}
	for (int k = 0; k <= OP_NKINDS; k++) {
		char title[96];
		snprintf(title, sizeof(title), "\noperation kind %s, every phase", kind_name(k));
		table(f, p, (struct filter){-1, k}, title, 6);
	}
}

/* ---- the picture ---- */

#define SVG_W	    1200
#define SVG_ROW	    20
#define SVG_TOP	    30
#define SVG_MIN_BOX 2.0 /* pixels: narrower boxes are not drawn */

static const char *const palette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2",
				      "#59a14f", "#edc948", "#b07aa1", "#9c755f"};

void gprof_xml_text(FILE *f, const char *s)
{
	for (; *s; s++)
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
}

static void box(FILE *f, double x, int row, double w, const char *fill, const char *label,
		uint64_t n, uint64_t total)
{
	if (w < SVG_MIN_BOX)
		return;
	double y = SVG_TOP + row * SVG_ROW;
	fprintf(f, "<g><title>");
	gprof_xml_text(f, label);
	fprintf(f, ": %" PRIu64 " samples, %.1f%%</title>", n, 100.0 * (double)n / (double)total);
	fprintf(f,
		"<rect x=\"%.1f\" y=\"%.0f\" width=\"%.1f\" height=\"%d\" fill=\"%s\" "
		"stroke=\"white\"/>",
		x, y, w, SVG_ROW - 1, fill);
	int chars = (int)(w / 7) - 1;
	if (chars >= 3) {
		fprintf(f, "<text x=\"%.1f\" y=\"%.0f\">", x + 3, y + SVG_ROW - 6);
		char cut[KMAP_NAME_MAX + 32];
		snprintf(cut, sizeof(cut), "%.*s", chars, label);
		gprof_xml_text(f, cut);
		fprintf(f, "</text>");
	}
	fprintf(f, "</g>\n");
}

/* Rows: the phases, then each phase's functions, then each function's
 * operation kinds; each box as wide as its samples' share. */
static void draw(FILE *f, const struct profile *p)
{
	double scale = (double)SVG_W / (double)p->total, x = 0;
	for (size_t i = 0; i < p->nr;) {
		size_t ph_end = i;
		uint64_t ph_n = 0;
		while (ph_end < p->nr && p->r[ph_end].phase == p->r[i].phase)
			ph_n += p->r[ph_end++].n;
		box(f, x, 0, (double)ph_n * scale, palette[p->r[i].phase % 8],
		    check_phase_key(p->r[i].phase), ph_n, p->total);
		double fx = x;
		for (size_t j = i; j < ph_end;) {
			size_t fn_end = j;
			uint64_t fn_n = 0;
			while (fn_end < ph_end && p->r[fn_end].fn == p->r[j].fn)
				fn_n += p->r[fn_end++].n;
			box(f, fx, 1, (double)fn_n * scale, "#d9a441", fn_name(p, p->r[j].fn), fn_n,
			    p->total);
			double kx = fx;
			for (size_t m = j; m < fn_end; m++) {
				box(f, kx, 2, (double)p->r[m].n * scale, "#9aa5b1",
				    kind_name(p->r[m].kind), p->r[m].n, p->total);
				kx += (double)p->r[m].n * scale;
			}
			fx += (double)fn_n * scale;
			j = fn_end;
		}
		x += (double)ph_n * scale;
		i = ph_end;
	}
}

FILE *gprof_open(const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "w");
	if (!f)
		snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
	return f;
}

int gprof_close(FILE *f, const char *path, char *err, size_t errlen)
{
	if (fclose(f) == 0)
		return 0;
	snprintf(err, errlen, "%s: write failed", path);
	return -1;
}

void gprof_svg_head(FILE *f, int width, int height, int font_size)
{
	fprintf(f,
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"font-family=\"sans-serif\" font-size=\"%d\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
		width, height, font_size);
}

static int write_svg(const struct profile *p, const char *path, char *err, size_t errlen)
{
	FILE *f = gprof_open(path, err, errlen);
	if (!f)
		return -1;
	gprof_svg_head(f, SVG_W, SVG_TOP + 3 * SVG_ROW + 4, 11);
	fprintf(f,
		"<text x=\"0\" y=\"18\">guest instructions by phase, function and "
		"operation kind (%" PRIu64 " samples; hover a box for its share)</text>\n",
		p->total);
	if (p->total)
		draw(f, p);
	fprintf(f, "</svg>\n");
	return gprof_close(f, path, err, errlen);
}

int gprof_write(const struct gprof_syms *syms, const struct virt_sampler *smp, const char *kernel,
		FILE *text, const char *svg_path, char *err, size_t errlen)
{
	struct profile p = {.syms = syms};
	if (count_runs(&p, smp)) {
		snprintf(err, errlen, "out of memory for %zu samples", smp->n);
		free(p.r);
		return -1;
	}
	write_text(text, &p, smp, kernel);
	int rc = svg_path ? write_svg(&p, svg_path, err, errlen) : 0;
	free(p.r);
	return rc;
}
