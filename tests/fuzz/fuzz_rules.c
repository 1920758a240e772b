/* fuzz_rules.c - hostile rules files against rules_parse (src/check/rules.c),
 * the reader of rules/FS.rules that every run loads: whatever the text, it
 * must return 0 or -1 with a message naming "FILE:LINE:", never crash,
 * read out of bounds or hang; what it accepts must be usable as it stands
 * (at most RULES_MAX rules, each with its kind's arguments, a reason, a
 * source and a where). Unmutated rounds must be accepted, so a parser that
 * refused everything fails here too.
 *
 * Build and run from the repository root (make test-fuzz and make fuzz):
 *   make build/asan/fuzz_rules
 *   build/asan/fuzz_rules ROUNDS FIRST-SEED
 *
 * The seed input is the repository's vfat.rules and xfs.rules together
 * (every kind of rule, an OP:WORD refusal among them); each round applies 0 to 8 text mutations
 * (tests/fuzz/fuzz.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/rules.h"
#include "fuzz.h"

static const char *const dict[] = {"unsupported ",
				   "ignore ",
				   "errno ",
				   "reason: ",
				   "source: ",
				   "\treason: x\n\tsource: y\n",
				   "any ",
				   "EEXIST ",
				   "ENOTEMPTY",
				   "roottime",
				   "chmod,",
				   "#",
				   "\n",
				   "\r\n",
				   "\t",
				   " ",
				   ",",
				   ":",
				   "renameat2:",
				   "exchange,",
				   "fallocate:",
				   "refuses ",
				   "write:direct ",
				   "EINVAL",
				   NULL};

/* An accepted set must be whole: 0, or the round fails. */
static int check_accepted(const struct rules *r, uint64_t seed)
{
	bool bad = r->n < 0 || r->n > RULES_MAX;
	for (int i = 0; !bad && i < r->n; i++) {
		const struct rule *x = &r->r[i];
		for (int j = 0; j < x->nrefusals && j < RULE_REFUSALS_MAX; j++)
			bad |= x->refusals[j].op < 0 || x->refusals[j].op >= OP_NKINDS ||
			       !x->refusals[j].letter || !x->refusals[j].words[0];
		bad |=
		    !x->reason[0] || !x->source[0] || !x->where[0] || !x->text[0] ||
		    (x->kind == RULE_UNSUPPORTED &&
		     ((!x->ops && !x->nrefusals) || x->ops & ~OP_ALL_MASK ||
		      x->nrefusals > RULE_REFUSALS_MAX)) ||
		    (x->kind == RULE_IGNORE && (!x->fields || x->fields >> RULE_NFIELDS)) ||
		    (x->kind == RULE_ERRNO &&
		     (x->nerrnos < 2 || x->nerrnos > RULE_ERRNOS_MAX || !x->ops)) ||
		    (x->kind == RULE_REFUSES &&
		     (x->nerrnos < 1 || x->nerrnos > RULE_ERRNOS_MAX || !x->ops == !x->nrefusals));
	}
	if (bad)
		fprintf(stderr, "fuzz_rules: seed %llu: an accepted rules file is unusable\n",
			(unsigned long long)seed);
	return bad;
}

int main(int argc, char **argv)
{
	uint64_t rounds, first;
	fuzz_args(argc, argv, "fuzz_rules", &rounds, &first);
	struct fuzz_buf seedbuf = {0}, b = {0};
	fuzz_read_file("rules/vfat.rules", &seedbuf,
		       "cannot read rules/ (run from the repository's root)");
	fuzz_read_file("rules/xfs.rules", &seedbuf,
		       "cannot read rules/ (run from the repository's root)");
	fuzz_read_file("rules/reiserfs.rules", &seedbuf,
		       "cannot read rules/ (run from the repository's root)");
	struct rules *r = malloc(sizeof(*r));
	if (!r)
		fuzz_die("out of memory");
	uint64_t accepted = 0, clean = 0;
	char err[1024];
	for (uint64_t k = 0; k < rounds; k++) {
		uint64_t seed = first + k, rng = seed;
		fuzz_round_start(seed);
		fuzz_set(&b, seedbuf.p, seedbuf.n);
		int nmut = (int)fuzz_below(&rng, 9); /* 0: the clean text */
		for (int i = 0; i < nmut; i++)
			fuzz_mutate_text(&rng, &b, dict);
		b.p[b.n] = 0; /* the parser reads text: a NUL ends it early */
		memset(r, 0, sizeof(*r));
		err[0] = 0;
		int rc = rules_parse(r, "t", "t.rules", (const char *)b.p, err, sizeof(err));
		if (rc != 0 &&
		    (rc != -1 || strncmp(err, "t.rules:", 8) || !memchr(err, 0, sizeof(err)))) {
			fprintf(stderr,
				"fuzz_rules: seed %llu: refused without FILE:LINE (%d): %s\n",
				(unsigned long long)seed, rc, err);
			return 1;
		}
		if (rc == 0 && check_accepted(r, seed))
			return 1;
		accepted += rc == 0;
		if (nmut == 0 && (clean++, rc != 0)) {
			fprintf(stderr, "fuzz_rules: seed %llu: the clean text is refused: %s\n",
				(unsigned long long)seed, err);
			return 1;
		}
	}
	alarm(0);
	printf("fuzz_rules: %llu rounds from seed %llu: %llu accepted (%llu unmutated), the rest "
	       "refused with FILE:LINE\n",
	       (unsigned long long)rounds, (unsigned long long)first, (unsigned long long)accepted,
	       (unsigned long long)clean);
	free(r), free(b.p), free(seedbuf.p);
	return 0;
}
