/* lens_rules.c - what each rule of rules/FS.rules masked (always on): a
 * word per rule in force (rules.h), summed across workers.
 *
 *   errno rule        an operation whose filesystems answered errnos the
 *                     rule makes one answer (the check accepted them);
 *   unsupported rule  a state the run explored (as the summary counts
 *                     them: not the root) while its operation, wanted by
 *                     the scope, was left out;
 *   ignore rule       a state where its field differed between two
 *                     filesystems it is for: the agent leaves the field
 *                     out of every fingerprint but reports a hash of
 *                     what it held (its "m" lines, check_step.masked),
 *                     per field and disk;
 *   times rule        under --time, a state whose filesystems differed
 *                     only in times it let differ (check_step.time_rule).
 * One word more, after the rules': under --time, the states whose
 * filesystems differed only in times each held to its own declared range
 * (step.c's clamp rule: check_step.time_clamped).
 *
 * The report lists every rule with its reason, source and count, the
 * text at the end of explore those that masked something. */
#include <stdio.h>
#include <string.h>

#include "../check/check.h"
#include "../util/json.h"
#include "../report/report_lens.h"
#include "lens.h"

struct rules_lens {
	const struct rules *rules; /* the run's (NULL: none) */
};

static int rl_attach(void *state, const struct check_config *cfg, const struct check_machine *m,
		     char *err, size_t errlen)
{
	(void)cfg, (void)err, (void)errlen;
	((struct rules_lens *)state)->rules = m->rules;
	return 0;
}

/* Whether a field of ignore rule i held different values on two
 * filesystems the rule is for (one of the pair), as the agent's hashes of
 * what it left out say. */
static bool masked_field(const struct rules *r, int i, const struct check_machine *m,
			 const struct check_step *s)
{
	for (int k = 1; k < m->nfs; k++) {
		if (!(s->masked_from & 1u) || !(s->masked_from >> k & 1) ||
		    (!rules_apply_to(r, i, m->fs[0]) && !rules_apply_to(r, i, m->fs[k])))
			continue;
		for (int f = 0; f < RULE_NFIELDS; f++)
			if ((r->r[i].fields >> f & 1) && s->masked[0][f] != s->masked[k][f])
				return true;
	}
	return false;
}

/* Whether rule i masks something of this state of a run of m. */
static bool masks(const struct rules *r, int i, const struct check_machine *m, int kind,
		  const struct check_step *s)
{
	const struct rule *x = &r->r[i];
	bool mine = false;
	for (int k = 0; k < m->nfs; k++)
		mine |= rules_apply_to(r, i, m->fs[k]);
	if (!mine)
		return false;
	switch (x->kind) {
	case RULE_UNSUPPORTED: /* the states the run counts: the root is none */
		return (x->ops & r->dropped) && kind < OP_NKINDS;
	case RULE_IGNORE: return masked_field(r, i, m, s);
	case RULE_TIMES: return s->time_rule == i;
	case RULE_REFUSES: return s->refused_rule == i;
	case RULE_ERRNO:
		for (int k = 1; k < m->nfs; k++)
			if (s->ret[k] == s->ret[0] &&
			    rules_errno_match(r, kind, m->fs[0], s->err[0], m->fs[k], s->err[k]) ==
				i)
				return true;
		return false;
	case RULE_NKINDS: break; /* no rule has it */
	}
	return false;
}

static int rl_after(void *state, uint64_t *words, struct virt *v, const struct check_machine *m,
		    const struct op *op, const struct check_step *parent, struct check_step *s,
		    struct lens_out *out)
{
	(void)v, (void)parent, (void)out;
	const struct rules *r = ((struct rules_lens *)state)->rules;
	if (!r || s->verdict < 0)
		return 0;
	for (int i = 0; i < r->n; i++)
		words[i] += masks(r, i, m, (int)op->kind, s);
	words[RULES_MAX] += s->time_clamped;
	return 0;
}

/* What rule x's count counts, for people. */
static const char *counted(const struct rule *x)
{
	return x->kind == RULE_ERRNO	? "operations whose errnos it made one answer"
	       : x->kind == RULE_IGNORE ? "states where the field it left out differed"
	       : x->kind == RULE_TIMES	? "states where the times it lets differ differed"
	       : x->kind == RULE_REFUSES
		   ? "states where it refused a call another did (nothing below them explored)"
		   : "states where the operation was left out";
}

static void report_json(const struct rules *r, const uint64_t *w, FILE *f)
{
	fprintf(f, "{\"dir\": ");
	json_string(f, r ? r->dir : "");
	fprintf(f, ", \"hash\": \"%016llx\", \"rules\": [", r ? (unsigned long long)r->hash : 0ULL);
	for (int i = 0; r && i < r->n; i++) {
		const struct rule *x = &r->r[i];
		fprintf(f, "%s\n      {\"where\": ", i ? "," : "");
		json_string(f, x->where);
		fprintf(f, ", \"fs\": ");
		json_string(f, x->fs);
		fprintf(f, ", \"kind\": \"%s\", \"rule\": ", rule_kind_name(x->kind));
		json_string(f, x->text);
		fprintf(f, ", \"reason\": ");
		json_string(f, x->reason);
		fprintf(f, ", \"source\": ");
		json_string(f, x->source);
		fprintf(f, ", \"masked\": %llu, \"counts\": ", (unsigned long long)w[i]);
		json_string(f, counted(x));
		fprintf(f, "}");
	}
	fprintf(f, "], \"time_clamps\": %llu}", (unsigned long long)w[RULES_MAX]);
}

static void rl_report(const void *state, const uint64_t *w, FILE *f, bool json)
{
	const struct rules *r = ((const struct rules_lens *)state)->rules;
	if (json) {
		report_json(r, w, f);
		return;
	}
	if (!r)
		return;
	int masked = 0;
	for (int i = 0; i < r->n; i++)
		masked += w[i] != 0;
	fprintf(f, "rules: %d in force from %s (hash %016llx), %d of them masked something%s\n",
		r->n, r->dir, (unsigned long long)r->hash, masked, masked ? ":" : "");
	for (int i = 0; i < r->n; i++)
		if (w[i])
			fprintf(f, "  %-18s %-40s %llu %s\n", r->r[i].where, r->r[i].text,
				(unsigned long long)w[i], counted(&r->r[i]));
	if (w[RULES_MAX])
		fprintf(f,
			"time clamps: %llu states where the filesystems differed only in times "
			"one instant explains, each at or clamped to its own declared range "
			"(--time's rule)\n",
			(unsigned long long)w[RULES_MAX]);
}

static const struct lens_def rules_lens = {
    .name = "rules",
    .help = "what each rule of rules/FS.rules masked",
    .order = 5,
    .always = true,
    .words = RULES_MAX + 1,
    .state_size = sizeof(struct rules_lens),
    .attach = rl_attach,
    .after = rl_after,
    .report = rl_report,
    .html = report_rules,
};
LENS_REGISTER(rules_lens);
