/* lens_coverage.c - input and output coverage (coverage.h, after IOCov) as
 * a lens (always on in explore): each operation's argument bins and its
 * outcome on the first filesystem, OR-ed into 32-bit sets that merge
 * across workers; the report sets them against the bins the scope holds. */
#include <string.h>

#include "../check/check.h"
#include "../report/report_lens.h"
#include "lens.h"

/* Words: per kind, COV_ARGS argument sets then the outcome set. */
#define COV_WORDS_PER_KIND (COV_ARGS + 1)

struct cov_state {
	const struct op_pools *pools; /* NULL: not in explore (nothing counted) */
	uint32_t mask;		      /* the run's operations */
};

static void cov_kinds(char *out)
{
	memset(out, 'o', OP_NKINDS * COV_WORDS_PER_KIND);
}

static int cov_attach(void *state, const struct check_config *cfg, const struct check_machine *m,
		      char *err, size_t errlen)
{
	(void)m, (void)err, (void)errlen;
	struct cov_state *c = state;
	if (cfg) {
		c->pools = &cfg->pools;
		c->mask = cfg->ops;
	}
	return 0;
}

static void words_to_cov(const uint64_t *w, struct coverage *c)
{
	for (int k = 0; k < OP_NKINDS; k++) {
		for (int a = 0; a < COV_ARGS; a++)
			c->in[k][a] = (uint32_t)w[k * COV_WORDS_PER_KIND + a];
		c->out[k] = (uint32_t)w[k * COV_WORDS_PER_KIND + COV_ARGS];
	}
}

static int cov_after(void *state, uint64_t *words, struct virt *v, const struct check_machine *m,
		     const struct op *op, const struct check_step *parent, struct check_step *s,
		     struct lens_out *out)
{
	(void)v, (void)m, (void)parent, (void)out;
	const struct cov_state *c = state;
	if (!c || !c->pools || (unsigned)op->kind >= OP_NKINDS)
		return 0;
	struct coverage one = {0};
	cov_add(&one, c->pools, op->text, s->verdict < 0 ? "EIO" : s->err[0]);
	for (int a = 0; a < COV_ARGS; a++)
		words[op->kind * COV_WORDS_PER_KIND + a] |= one.in[op->kind][a];
	words[op->kind * COV_WORDS_PER_KIND + COV_ARGS] |= one.out[op->kind];
	return 0;
}

static void cov_report(const void *state, const uint64_t *words, FILE *f, bool json)
{
	const struct cov_state *c = state;
	if (!c || !c->pools) {
		if (json)
			fprintf(f, "{}");
		return;
	}
	struct coverage tried, scope;
	words_to_cov(words, &tried);
	cov_scope(&scope, c->mask, c->pools);
	if (json)
		cov_json(f, &tried, &scope, c->mask);
	else
		cov_print(f, &tried, &scope, c->mask);
}

static const struct lens_def coverage_lens = {
    .name = "coverage",
    .help = "input and output coverage after IOCov: argument bins tried, outcomes seen",
    .order = 10,
    .always = true,
    .words = OP_NKINDS * COV_WORDS_PER_KIND,
    .state_size = sizeof(struct cov_state),
    .kinds = cov_kinds,
    .attach = cov_attach,
    .after = cov_after,
    .report = cov_report,
    .html = report_coverage,
};
LENS_REGISTER(coverage_lens);
