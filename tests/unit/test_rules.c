/* tier: fast */
/* test_rules.c - the rules files (src/check/rules.c): the repository's
 * rules/ give the answers the hard-coded table gave before them (what
 * each filesystem cannot do, the fields the agent ignores, xfs's EEXIST
 * for ENOTEMPTY on rename); the parser takes comments and CRLF, refuses a
 * bad line with its file and line (unknown kind, operation, field or
 * errno; a rule without its reason or source; an attribute with no rule),
 * and the hash follows what decides a run, not the prose. Run from the
 * repository's root (make test-unit). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "check/rules.h"

static struct rules r;

static uint32_t unsupported(const char *fs)
{
	char err[512];
	const char *one[] = {fs};
	if (!CHECK(rules_load(&r, "rules", one, 1, err, sizeof(err)) == 0))
		printf("  %s\n", err);
	return rules_unsupported(&r, fs);
}

/* The answers of the old FS_TABLE (op_table.h) before the rules moved out. */
static void test_repo_rules(void)
{
	uint32_t fat = OPB(CHOWN) | OPB(CHGRP) | OPB(LINK) | OPB(SYMLINK) | OPB(CHMOD) |
		       OPB(SETXATTR) | OPB(REMOVEXATTR) | OPB(FALLOCATE);
	CHECK(unsupported("vfat") == fat && unsupported("exfat") == fat);
	CHECK(unsupported("ext2") == OPB(FALLOCATE) && unsupported("ext3") == OPB(FALLOCATE));
	CHECK(unsupported("jfs") == OPB(FALLOCATE));
	CHECK(unsupported("nilfs2") == (OPB(FALLOCATE) | OPB(SETXATTR) | OPB(REMOVEXATTR)));
	CHECK(unsupported("minix") == (OPB(FALLOCATE) | OPB(SETXATTR) | OPB(REMOVEXATTR)));
	CHECK(!unsupported("ext4") && !unsupported("xfs") && !unsupported("btrfs") &&
	      !unsupported("f2fs"));
	char list[128], err[512];
	const char *pair[] = {"ext4", "exfat"}, *xfs[] = {"ext4", "xfs"};
	CHECK(rules_load(&r, "rules", pair, 2, err, sizeof(err)) == 0);
	rules_ignore_list(&r, pair, 2, list, sizeof(list));
	CHECK(!strcmp(list, "mode,nlink,xattrs,roottime,dirsize"));
	rules_ignore_list(&r, pair, 1, list, sizeof(list)); /* ext4 alone: common.rules */
	CHECK(!strcmp(list, "dirsize"));
	CHECK(rules_load(&r, "rules", xfs, 2, err, sizeof(err)) == 0);
	rules_ignore_list(&r, xfs, 2, list, sizeof(list));
	CHECK(!strcmp(list, "dirsize"));
	rules_ignore_list(NULL, xfs, 2, list, sizeof(list)); /* no rules: nothing ignored */
	CHECK(!strcmp(list, "-"));
	/* xfs's EEXIST on rename, either side; not for rmdir, not between
	 * two filesystems neither of which has the rule. */
	int i = rules_errno_match(&r, OP_RENAME, "ext4", "ENOTEMPTY", "xfs", "EEXIST");
	CHECK(i >= 0 && strstr(r.r[i].where, "xfs.rules:"));
	CHECK(rules_errno_match(&r, OP_RENAME, "xfs", "EEXIST", "ext4", "ENOTEMPTY") == i);
	CHECK(rules_errno_match(&r, OP_RMDIR, "ext4", "ENOTEMPTY", "xfs", "EEXIST") < 0);
	CHECK(rules_errno_match(&r, OP_RENAME, "ext4", "ENOTEMPTY", "ext4", "EEXIST") < 0);
	CHECK(rules_errno_match(&r, OP_RENAME, "ext4", "ENOENT", "xfs", "EEXIST") < 0);
	CHECK(rules_errno_match(NULL, OP_RENAME, "ext4", "ENOTEMPTY", "xfs", "EEXIST") < 0);
	/* Every known filesystem has its file, and every file parses. */
	const char *all[] = {"ext2",   "ext3",	"ext4", "xfs",	 "btrfs", "f2fs",
			     "nilfs2", "minix", "vfat", "exfat", "jfs"};
	CHECK(rules_load(&r, "rules", all, 11, err, sizeof(err)) == 0);
	for (int k = 0; k < r.n; k++)
		CHECK(r.r[k].reason[0] && r.r[k].source[0]);
}

/* Parse text as file "t.rules" of fs "t": 0, or -1 with err. */
static int parse(const char *text, char *err, size_t cap)
{
	memset(&r, 0, sizeof(r));
	return rules_parse(&r, "t", "t.rules", text, err, cap);
}

static void bad(const char *text, const char *where, const char *what)
{
	char err[512] = "";
	bool ok = CHECK(parse(text, err, sizeof(err)) < 0) &&
		  CHECK(!strncmp(err, where, strlen(where))) && CHECK(strstr(err, what) != NULL);
	if (!ok)
		printf("  for %s: got '%s'\n", where, err);
}

static void test_parser(void)
{
	char err[512];
	CHECK(parse("# a comment\r\n\r\nunsupported chmod chown\r\n\treason: r\r\n  source: "
		    "s\r\n# end\n",
		    err, sizeof(err)) == 0);
	CHECK(r.n == 1 && r.r[0].ops == (OPB(CHMOD) | OPB(CHOWN)) && !strcmp(r.r[0].reason, "r") &&
	      !strcmp(r.r[0].where, "t.rules:3"));
	CHECK(parse("errno any EEXIST ENOTEMPTY\n reason: a\n source: b\n", err, sizeof(err)) ==
		  0 &&
	      r.r[0].ops == OP_ALL_MASK && r.r[0].nerrnos == 2);
	CHECK(parse("errno rename,rmdir EEXIST ENOTEMPTY\n reason: a\n source: b\n", err,
		    sizeof(err)) == 0 &&
	      r.r[0].ops == (OPB(RENAME) | OPB(RMDIR)));
	CHECK(parse("", err, sizeof(err)) == 0 && r.n == 0);
	bad("unsupported chmodd\n reason: a\n source: b\n",
	    "t.rules:1:", "unknown operation 'chmodd'");
	bad("\n\nignore modes\n reason: a\n source: b\n", "t.rules:3:", "unknown field 'modes'");
	bad("errno rename EEXIST EFOO\n reason: a\n source: b\n",
	    "t.rules:1:", "unknown errno 'EFOO'");
	bad("errno rename EEXIST\n reason: a\n source: b\n", "t.rules:1:", "two errnos");
	bad("errno frob EEXIST ENOTEMPTY\n reason: a\n source: b\n", "t.rules:1:", "'frob'");
	bad("frob chmod\n", "t.rules:1:", "unknown rule kind 'frob'");
	bad("frob chmod\n", "t.rules:1:", "(known: unsupported, ignore, errno, times, refuses;");
	bad("unsupported\n", "t.rules:1:", "names nothing");
	bad("ignore\n", "t.rules:1:", "'ignore' names nothing");
	bad("refuses write\n", "t.rules:1:", "'refuses OP[:WORD,...] ERRNO...'");
	bad("unsupported chmod\n reason: a\n", "t.rules:1:", "no source");
	bad("unsupported chmod\n source: a\n\nignore mode\n reason: r\n source: s\n",
	    "t.rules:1:", "no reason");
	bad("unsupported chmod\n reason: a\n reason: b\n source: c\n",
	    "t.rules:3:", "second reason");
	bad(" reason: a\n", "t.rules:1:", "no rule above");
	bad("unsupported chmod\n because: a\n", "t.rules:2:", "'reason: TEXT'");
	bad("unsupported chmod\n reason:\n", "t.rules:2:", "empty reason");
	bad("unsupported chmod\n reason: a\x01\n", "t.rules:2:", "control character");
}

/* OP:WORD rules: a filesystem refuses some flag words of an operation it
 * can do (the repository's: btrfs's collapse and insert range, renameat2
 * beyond noreplace on ext2, minix's O_DIRECT, vfat's whiteout); a run
 * leaves those calls out, keeping the rest in order. */
static void test_refusals(void)
{
	char err[512];
	const char *all[] = {"ext2", "ext4", "xfs", "btrfs", "minix", "vfat"};
	if (!CHECK(rules_load(&r, "rules", all, 6, err, sizeof(err)) == 0))
		printf("  %s\n", err);
	CHECK(!rules_takes(&r, "btrfs", "op fallocate f0 collapse_range 0 4096"));
	CHECK(!rules_takes(&r, "btrfs", "op fallocate f0 keep_size,insert_range 0 4096"));
	CHECK(rules_takes(&r, "btrfs", "op fallocate f0 punch_hole,keep_size 0 4096"));
	CHECK(rules_takes(&r, "xfs", "op fallocate f0 collapse_range 0 4096"));
	CHECK(!rules_takes(&r, "ext2", "op renameat2 f0 f1 noreplace,exchange"));
	CHECK(rules_takes(&r, "ext2", "op renameat2 f0 f1 noreplace"));
	CHECK(!rules_takes(&r, "minix", "op write f0 0 4096 1 direct"));
	CHECK(rules_takes(&r, "minix", "op write f0 0 4096 1 sync"));
	CHECK(rules_takes(&r, "vfat", "op renameat2 f0 f1 exchange") &&
	      !rules_takes(&r, "vfat", "op renameat2 f0 f1 whiteout"));
	CHECK(rules_takes(NULL, "btrfs", "op fallocate f0 collapse_range 0 4096"));
	CHECK(rules_refusing(&r, "btrfs") == OPB(FALLOCATE) &&
	      rules_refusing(&r, "minix") == (OPB(RENAMEAT2) | OPB(WRITE)) &&
	      !rules_refusing(&r, "xfs"));
	struct op ops[3] = {{OP_RENAMEAT2, "op renameat2 f0 f1 exchange"},
			    {OP_RENAMEAT2, "op renameat2 f0 f1 noreplace"},
			    {OP_FSYNC, "op fsync f0"}};
	const char *pair[] = {"ext4", "ext2"};
	CHECK(rules_filter(&r, pair, 2, ops, 3) == 2 && strstr(ops[0].text, "noreplace") &&
	      ops[1].kind == OP_FSYNC);
	CHECK(parse("unsupported fallocate:punch_hole,zero_range chmod\n reason: a\n source: b\n",
		    err, sizeof(err)) == 0 &&
	      r.r[0].ops == OPB(CHMOD) && r.r[0].nrefusals == 1 &&
	      r.r[0].refusals[0].letter == 'F');
	bad("unsupported fallocate:frob\n reason: a\n source: b\n",
	    "t.rules:1:", "not a comma list of fallocate's flag words");
	bad("unsupported chmod:0600\n reason: a\n source: b\n", "t.rules:1:", "no flags argument");
	bad("unsupported fallocate:\n reason: a\n source: b\n", "t.rules:1:", "flag words");
	bad("unsupported write:exchange\n reason: a\n source: b\n",
	    "t.rules:1:", "not a comma list of write's");
}

/* refuses rules: the calls and errnos a filesystem may fail where others
 * succeed (the repository's: reiserfs's direct I/O onto a packed tail). */
static void test_refuses(void)
{
	char err[512];
	const char *two[] = {"ext4", "reiserfs"};
	if (!CHECK(rules_load(&r, "rules", two, 2, err, sizeof(err)) == 0))
		printf("  %s\n", err);
	const char *direct = "op write f0 0 4096 1 direct";
	int i = rules_refusal_rule(&r, "reiserfs", direct, "EINVAL");
	CHECK(i >= 0 && r.r[i].kind == RULE_REFUSES);
	CHECK(rules_refusal_rule(&r, "reiserfs", "op write f0 0 4096 1 sync", "EINVAL") < 0);
	CHECK(rules_refusal_rule(&r, "reiserfs", direct, "EIO") < 0);
	CHECK(rules_refusal_rule(&r, "ext4", direct, "EINVAL") < 0);
	CHECK(rules_takes(&r, "reiserfs", direct)); /* the call stays in the scope */
	CHECK(parse("refuses truncate EPERM EFBIG\n reason: a\n source: b\n", err, sizeof(err)) ==
		  0 &&
	      r.r[0].ops == OPB(TRUNCATE) && r.r[0].nerrnos == 2);
	CHECK(rules_refusal_rule(&r, "t", "op truncate f0 1", "EFBIG") == 0);
	bad("refuses write:direct\n reason: a\n source: b\n", "t.rules:1:", "a refuses rule is");
	bad("refuses frob EINVAL\n reason: a\n source: b\n", "t.rules:1:", "'frob'");
	bad("refuses write:sideways EINVAL\n reason: a\n source: b\n",
	    "t.rules:1:", "not a comma list of write's");
	bad("refuses write EBOGUS\n reason: a\n source: b\n", "t.rules:1:", "'EBOGUS'");
}

/* The hash is of what decides a run: a rule changes it, prose does not. */
static void test_hash(void)
{
	char err[256];
	parse("unsupported chmod\n reason: a\n source: b\n", err, sizeof(err));
	rules_rehash(&r);
	uint64_t h = r.hash;
	parse("# other words\nunsupported   chmod\n reason: another\n source: elsewhere\n", err,
	      sizeof(err));
	rules_rehash(&r);
	CHECK(r.hash == h);
	parse("unsupported chown\n reason: a\n source: b\n", err, sizeof(err));
	rules_rehash(&r);
	CHECK(r.hash != h);
}

static const struct unit_test tests[] = {
    {"repo_rules", test_repo_rules}, {"parser", test_parser},	{"hash", test_hash},
    {"refusals", test_refusals},     {"refuses", test_refuses},
};

UNIT_MAIN("test_rules", tests)
