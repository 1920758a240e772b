/* tier: fast */
/* test_ops.c - the operation table (op_table.h, ops.c), coverage's
 * binning (coverage.c) and the parsing of the agent's replies (step.c):
 * the pieces of the checker that need no machine. Each test names the
 * property it guards. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "check/check.h"
#include "check/coverage.h"
#include "check/ops.h"

/* Every kind's name reads back as that kind; names are distinct. */
static void test_names_round_trip(void)
{
	for (int k = 0; k < OP_NKINDS; k++) {
		char text[64];
		snprintf(text, sizeof(text), "op %s x", op_name((enum op_kind)k));
		CHECK(op_kind_of_text(text) == k);
		for (int j = 0; j < k; j++)
			CHECK(strcmp(op_name((enum op_kind)j), op_name((enum op_kind)k)));
		CHECK(strlen(op_letters((enum op_kind)k)) <= COV_ARGS);
		/* The example is of its kind, with one word per argument. */
		const char *ex = op_example((enum op_kind)k);
		int words = 1;
		for (const char *c = ex; *c; c++)
			words += *c == ' ';
		snprintf(text, sizeof(text), "op %s", ex);
		CHECK(op_kind_of_text(text) == k);
		CHECK(words == 1 + (int)strlen(op_letters((enum op_kind)k)));
	}
	CHECK(op_kind_of_text("op frobnicate") < 0 && op_kind_of_text("fp") < 0);
}

/* "all" is the table, "scope" the default scope, a bad name is reported. */
static void test_mask_parse(void)
{
	const char *bad = NULL;
	int badlen = 0;
	CHECK(op_mask_parse("all", &bad, &badlen) == OP_ALL_MASK);
	CHECK(op_mask_parse("scope", &bad, &badlen) == op_scope_mask());
	CHECK(!(op_scope_mask() & (OPB(STAT) | OPB(READ))));
	CHECK((op_scope_mask() & (OPB(REMOUNT) | OPB(SYNC) | OPB(FDATASYNC))) ==
	      (OPB(REMOUNT) | OPB(SYNC) | OPB(FDATASYNC)));
	CHECK(op_mask_parse("create,write", &bad, &badlen) == (OPB(CREATE) | OPB(WRITE)));
	CHECK(op_mask_parse("create,frob", &bad, &badlen) < 0 && badlen == 4 &&
	      !strncmp(bad, "frob", 4));
}

/* The enumeration interleaves kinds round robin and, with a view, keeps
 * one doomed candidate per kind. */
static void test_enumerate(void)
{
	struct op_pools p;
	op_pools_default(&p);
	struct op *ops = malloc(sizeof(*ops) * 4096);
	if (!CHECK(ops != NULL))
		return;
	int n = op_enumerate(OPB(CREATE) | OPB(UNLINK), &p, NULL, ops, 4096);
	CHECK(n == 2 * p.nfiles);
	CHECK(ops[0].kind == OP_CREATE && ops[1].kind == OP_UNLINK && ops[2].kind == OP_CREATE);
	struct op_view v = {0};
	n = op_enumerate(OPB(UNLINK) | OPB(STAT) | OPB(SYNC), &p, &v, ops, 4096);
	int unlinks = 0, syncs = 0;
	for (int i = 0; i < n; i++) {
		unlinks += ops[i].kind == OP_UNLINK;
		syncs += ops[i].kind == OP_SYNC && !strcmp(ops[i].text, "op sync");
	}
	CHECK(unlinks == 1 && syncs == 1); /* nothing exists: one unlink stands for all */
	/* A kind without a case of its own: its example at every path. */
	n = op_enumerate(OPB(FDATASYNC), &p, NULL, ops, 4096);
	CHECK(n == p.nfiles + p.ndirs && !strcmp(ops[0].text, "op fdatasync f0") &&
	      !strcmp(ops[p.nfiles].text, "op fdatasync d0"));
	/* setxattr: inline, past ext4's inode and toward a 1 KiB block. */
	n = op_enumerate(OPB(SETXATTR), &p, NULL, ops, 4096);
	CHECK(n == 3 * (p.nfiles + p.ndirs) && !strcmp(ops[0].text, "op setxattr f0 user.a 16 1") &&
	      !strcmp(ops[2].text, "op setxattr f0 user.a 400 1"));
	/* renameat2: files with every flag, directories without whiteout. */
	n = op_enumerate(OPB(RENAMEAT2), &p, NULL, ops, 4096);
	int pairs = p.nfiles * (p.nfiles - 1), dpairs = p.ndirs * (p.ndirs - 1);
	CHECK(n == 3 * pairs + 2 * dpairs && !strcmp(ops[0].text, "op renameat2 f0 f1 noreplace"));
	n = op_enumerate(OPB(READ), &p, NULL, ops, 4096);
	CHECK(n == p.nfiles * 25 && !strcmp(ops[0].text, "op read f0 0 4096"));
	free(ops);
}

/* Flag arguments (op_grammar.h): a comma list of the letter's words, or
 * its none word; a word of another letter is refused. */
static void test_flag_words(void)
{
	char why[256];
	CHECK(op_text_check("op renameat2 f0 f1 exchange", why, sizeof(why)) == 0);
	CHECK(op_text_check("op fallocate f0 punch_hole,keep_size 0 4096", why, sizeof(why)) == 0);
	CHECK(op_text_check("op fallocate f0 0 0 4096", why, sizeof(why)) == 0);
	CHECK(op_text_check("op write f0 0 4096 1 direct,sync", why, sizeof(why)) == 0);
	CHECK(op_text_check("op copyrange f0 f1 0 4096", why, sizeof(why)) == 0);
	CHECK(op_text_check("op mwrite f0 4095 2 7", why, sizeof(why)) == 0);
	CHECK(op_text_check("op write f0 0 1 1 excl", why, sizeof(why)) < 0);
	CHECK(op_text_check("op renameat2 f0 f1 exchange,", why, sizeof(why)) < 0);
	CHECK(op_text_check("op fallocate f0 - 0 1", why, sizeof(why)) < 0);
	CHECK(op_text_check("op renameat2 f0 f1", why, sizeof(why)) < 0);
}

/* Every candidate of the whole table's enumeration is one the agent runs,
 * and each word argument is in its letter's bin, so the minimizer can
 * rank it (an enumerated value outside the bins could not be simplified
 * to, nor ranked). */
/* Every kind op_generate (--branch K) draws is grammatical, with and
 * without a view: a kind without a case of its own in format_op gets one
 * value per argument letter, never a bare name the agent would refuse. */
static void test_generation_is_grammatical(void)
{
	struct op_pools p;
	op_pools_default(&p);
	struct op_view v = {.nfiles = 1, .ndirs = 1};
	snprintf(v.files[0], sizeof(v.files[0]), "f0");
	snprintf(v.dirs[0], sizeof(v.dirs[0]), "d0");
	uint64_t rng = 42;
	int bad = 0;
	for (int k = 0; k < OP_NKINDS; k++)
		for (int round = 0; round < 64; round++) {
			struct op o;
			char why[256];
			op_generate(&rng, 1u << k, &p, round % 2 ? &v : NULL, &o);
			CHECK(o.kind == (enum op_kind)k);
			if (op_text_check(o.text, why, sizeof(why)) && bad++ < 3)
				fprintf(stderr, "not grammatical: %s (%s)\n", o.text, why);
		}
	CHECK(bad == 0);
}

/* docs/trace.md's table of operations follows op_table.h row for row:
 * "| `NAME LETTERS...` | ARGS | ..." in the table's order, no other row. */
static void test_docs_table(void)
{
	FILE *f = fopen("docs/trace.md", "r");
	if (!CHECK(f != NULL))
		return;
	char line[2048];
	int k = 0, rows = 0;
	bool in_table = false;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "| operation | arguments |", 25)) {
			in_table = true;
			continue;
		}
		if (!in_table || !strncmp(line, "|---", 4))
			continue;
		if (line[0] != '|')
			break;
		rows++;
		char want[128], args[128] = "", *save = NULL;
		int n = snprintf(want, sizeof(want), "| `%s", op_name((enum op_kind)k));
		for (const char *l = op_letters((enum op_kind)k); *l; l++)
			n += snprintf(want + n, sizeof(want) - (size_t)n, " %c", *l);
		snprintf(want + n, sizeof(want) - (size_t)n, "` |");
		bool same = k < OP_NKINDS && !strncmp(line, want, strlen(want));
		/* the arguments' names; the table's "-" (not binned by coverage)
		 * stands for the name the page gives */
		sscanf(line + (same ? strlen(want) : 0), " %127[^|]", args);
		const char *names = k < OP_NKINDS ? op_args((enum op_kind)k) : "";
		char *w = strtok_r(args, " ", &save);
		for (const char *p = names; same && *p; p += strcspn(p, " "), p += *p == ' ') {
			size_t len = strcspn(p, " ");
			same = w &&
			       (!strncmp(p, "-", len) || (strlen(w) == len && !strncmp(w, p, len)));
			w = strtok_r(NULL, " ", &save);
		}
		if (!CHECK(same && !w))
			fprintf(stderr, "docs/trace.md row %d: %.60s, want %s %s\n", rows, line,
				want, names);
		k++;
	}
	fclose(f);
	CHECK(rows == OP_NKINDS);
}

static void test_enumeration_is_grammatical(void)
{
	struct op_pools p;
	op_pools_default(&p);
	struct op *ops = malloc(sizeof(*ops) * 4096);
	if (!CHECK(ops != NULL))
		return;
	int n = op_enumerate(OP_ALL_MASK, &p, NULL, ops, 4096), bad = 0;
	CHECK(n > 1000 && n < 4096);
	for (int i = 0; i < n; i++) {
		char why[256], copy[OP_TEXT_MAX];
		if (op_text_check(ops[i].text, why, sizeof(why)) && bad++ < 3)
			fprintf(stderr, "not grammatical: %s (%s)\n", ops[i].text, why);
		const char *letters = op_letters(ops[i].kind);
		snprintf(copy, sizeof(copy), "%s", ops[i].text);
		char *save, *w = strtok_r(copy, " ", &save);
		w = strtok_r(NULL, " ", &save);
		for (int a = 0; letters[a] && (w = strtok_r(NULL, " ", &save)); a++) {
			char l = letters[a];
			if (strchr("MCWFRIX", l) && op_value_rank(l, &p, w) < 0) {
				bad++;
			} else if (strchr("MCWFRIX", l)) {
				char back[64];
				int r = op_value_rank(l, &p, w);
				if ((op_value_at(l, &p, r, back, sizeof(back)) ||
				     strcmp(back, w)) &&
				    bad++ < 3)
					fprintf(stderr, "%s: '%s' is not in the bin of %c\n",
						ops[i].text, w, l);
			}
		}
	}
	CHECK(bad == 0);
	free(ops);
}

/* Coverage: sizes in power-of-two bins, paths by pool place, outcomes. */
static void test_coverage_bins(void)
{
	struct op_pools p;
	op_pools_default(&p);
	struct coverage c = {0}, d = {0};
	cov_add(&c, &p, "op write f1 4096 1 2 sync", "0");
	CHECK(c.in[OP_WRITE][0] == 1u << 1);  /* f1: file 1 */
	CHECK(c.in[OP_WRITE][1] == 1u << 13); /* 4096 = 2^12: bin 13 */
	CHECK(c.in[OP_WRITE][2] == 1u << 1);
	unsigned seed2 = c.in[OP_WRITE][3];
	CHECK(c.out[OP_WRITE] == 1u);
	cov_add(&d, &p, "op write d0 0 0 1 -", "EISDIR");
	CHECK(d.in[OP_WRITE][0] == 1u << 16 && d.in[OP_WRITE][1] == 1u);
	CHECK(d.out[OP_WRITE] == 1u << 4);
	cov_merge(&c, &d);
	CHECK(c.in[OP_WRITE][0] == (1u << 1 | 1u << 16) && c.out[OP_WRITE] == (1u | 1u << 4));
	struct coverage scope;
	cov_scope(&scope, OPB(TRUNCATE), &p);
	/* 0, 1, 4095, 4096 and 4097; 12289, 49153 and 1 MiB (boundaries) */
	CHECK(__builtin_popcount(scope.in[OP_TRUNCATE][1]) == 7);
	/* The data's seeds: the default scope's two, each its own bin. */
	struct coverage e = {0};
	cov_add(&e, &p, "op write f1 0 1 1 -", "0");
	cov_scope(&scope, OPB(WRITE), &p);
	CHECK(__builtin_popcount(scope.in[OP_WRITE][3]) == 2);
	CHECK(__builtin_popcount(seed2) == 1 && (seed2 & scope.in[OP_WRITE][3]));
	CHECK(e.in[OP_WRITE][3] != seed2 && (e.in[OP_WRITE][3] & scope.in[OP_WRITE][3]));
}

/* The agent's reply: results, fingerprints and the view, all disks. */
static void test_parse_reply(void)
{
	struct check_step s;
	char why[256];
	memset(&s, 0, sizeof(s));
	const char *log = "r 0 4096 0\nr 1 -1 ENOSPC\n"
			  "f 0 000102030405060708090a0b0c0d0e0f\n"
			  "f 1 ffffffffffffffffffffffffffffffff\nv f0:f d0:d d0/f1:f\n";
	CHECK(check_parse_reply(log, 2, CHECK_REPLY_R | CHECK_REPLY_F, &s, why, sizeof(why)) == 0);
	CHECK(s.ret[0] == 4096 && s.ret[1] == -1 && !strcmp(s.err[1], "ENOSPC"));
	CHECK(s.fp[0][15] == 0x0f && s.fp[1][0] == 0xff);
	CHECK(s.view.nfiles == 2 && s.view.ndirs == 1 && !strcmp(s.view.files[1], "d0/f1"));
	memset(&s, 0, sizeof(s));
	CHECK(check_parse_reply("r 0 0 0\nf 0 00\n", 1, CHECK_REPLY_R | CHECK_REPLY_F, &s, why,
				sizeof(why)) < 0);
	CHECK(check_parse_reply("r 0 0 0\n", 2, CHECK_REPLY_R | CHECK_REPLY_F, &s, why,
				sizeof(why)) < 0);
	CHECK(check_parse_reply("f 0 000102030405060708090a0b0c0d0e0f\n", 1, CHECK_REPLY_F, &s, why,
				sizeof(why)) == 0);
	CHECK(check_parse_reply("r 5 0 0\nf 5 000102030405060708090a0b0c0d0e0f\n", 1,
				CHECK_REPLY_R | CHECK_REPLY_F, &s, why,
				sizeof(why)) < 0); /* a disk that is not there */
	memset(&s, 0, sizeof(s));
	CHECK(check_parse_reply("r 0 0 0\nr 1 -1 EBUSY\n", 2, CHECK_REPLY_R, &s, why,
				sizeof(why)) == 0);
	CHECK(s.ret[1] == -1 && !strcmp(s.err[1], "EBUSY"));
	CHECK(check_parse_reply("r 0 0 0\n", 2, CHECK_REPLY_R, &s, why, sizeof(why)) < 0);
}

/* settime and utimes: their bins are INSTANT_TABLE's flagged instants
 * (settime: a rollback, 2038, 2106; utimes: 1969 and 2514 at every path);
 * --time's scope adds exactly them. */
static void test_time_ops(void)
{
	struct op ops[256];
	struct op_pools p;
	op_pools_default(&p);
	int n = op_enumerate(OPB(SETTIME), &p, NULL, ops, 256);
	CHECK(n == 3);
	CHECK(n == 3 && !strcmp(ops[0].text, "op settime @2147483648") &&
	      !strcmp(ops[1].text, "op settime @4294967296") &&
	      !strcmp(ops[2].text, "op settime -86400"));
	n = op_enumerate(OPB(UTIMES), &p, NULL, ops, 256);
	CHECK(n == 2 * (p.nfiles + p.ndirs));
	CHECK(n > 1 && !strcmp(ops[0].text, "op utimes f0 @-1") &&
	      !strcmp(ops[1].text, "op utimes f0 @17179869184"));
	CHECK(op_flag_mask(OPF_TIME) == (OPB(SETTIME) | OPB(UTIMES)));
	CHECK(!(op_scope_mask() & op_flag_mask(OPF_TIME)));
}

/* The host's reading of the agent's grammar (op_check.c): what the
 * checker generates passes, a hand-edited trace's slips do not. */
static void test_text_check(void)
{
	char why[256], text[OP_TEXT_MAX];
	for (int k = 0; k < OP_NKINDS; k++) {
		snprintf(text, sizeof(text), "op %s", op_example((enum op_kind)k));
		CHECK(op_text_check(text, why, sizeof(why)) == 0);
	}
	struct op ops[4096];
	struct op_pools p;
	op_pools_default(&p);
	int n = op_enumerate(OP_ALL_MASK, &p, NULL, ops, 4096);
	int bad = 0;
	for (int i = 0; i < n; i++)
		bad += op_text_check(ops[i].text, why, sizeof(why)) != 0;
	CHECK(n > 100 && bad == 0);
	static const char *const wrong[] = {"op write f0 zero 4096 1 sync",
					    "op write f0 0 4096 1",
					    "op write f0 0 4096 1 fsync",
					    "op create f0 0644",
					    "op create f0 0944 -",
					    "op create ../f0 0644 -",
					    "op chown f0 4294967295",
					    "op truncate f0 -1",
					    "op settime 2038",
					    "op fallocate f0 1 0 1",
					    "op remount now",
					    "op frobnicate f0",
					    "op",
					    "op write f0 0 2147483649 1 -"};
	for (size_t i = 0; i < sizeof(wrong) / sizeof(wrong[0]); i++)
		CHECK(op_text_check(wrong[i], why, sizeof(why)) < 0 && why[0]);
	CHECK(op_text_check("op write f0 zero 4096 1 sync", why, sizeof(why)) < 0 &&
	      strstr(why, "path off size seed flags"));
}

static const struct unit_test tests[] = {
    {"text_check", test_text_check},
    {"time_ops", test_time_ops},
    {"names_round_trip", test_names_round_trip},
    {"mask_parse", test_mask_parse},
    {"enumerate", test_enumerate},
    {"flag_words", test_flag_words},
    {"enumeration_is_grammatical", test_enumeration_is_grammatical},
    {"generation_is_grammatical", test_generation_is_grammatical},
    {"docs_table", test_docs_table},
    {"coverage_bins", test_coverage_bins},
    {"parse_reply", test_parse_reply},
};

UNIT_MAIN("test_ops", tests)
