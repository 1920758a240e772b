/* rules.c - see rules.h: the reader of rules/FS.rules files and the
 * questions the checker asks of them. The grammar (docs/rules.md): a rule
 * is a head line at column 0 ("KIND ARGS...") and indented attribute lines
 * under it ("reason: TEXT", "source: TEXT"), both required; '#' starts a
 * comment line. Anything else is refused with its file and line. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <xxhash.h>

#include "../proto/op_grammar.h"
#include "rules.h"

#define RULES_FILE_MAX (1 << 20) /* a rules file is a page of text */

static const char *const field_names[] = {
#define RULE_FIELD_NAME(name) #name,
    RULE_FIELDS(RULE_FIELD_NAME)
#undef RULE_FIELD_NAME
};
#define NFIELDS RULE_NFIELDS

static const char *const kind_names[] = {
#define RULE_KIND_NAME(e, word) #word,
    RULE_KINDS(RULE_KIND_NAME)
#undef RULE_KIND_NAME
};

/* "unsupported, ignore, ...", with one ", " too many at its end. */
static const char kind_words[] = {
#define RULE_KIND_WORD(e, word) #word ", "
    RULE_KINDS(RULE_KIND_WORD)
#undef RULE_KIND_WORD
};

const char *rule_kind_name(enum rule_kind k)
{
	return (unsigned)k < RULE_NKINDS ? kind_names[k] : "?";
}

static const char *const time_names[] = {
#define RULE_TIME_NAME(name) #name,
    RULE_TIME_NAMES(RULE_TIME_NAME)
#undef RULE_TIME_NAME
};
#define NTIMES (sizeof(time_names) / sizeof(time_names[0]))

bool rules_time_field(unsigned times, const char *field)
{
	for (unsigned i = 0; i < NTIMES; i++)
		if ((times >> i & 1) && !strncmp(field, time_names[i], strlen(time_names[i])) &&
		    field[strlen(time_names[i])] == '=')
			return true;
	return false;
}

void rules_field_names(unsigned fields, char *out, size_t cap)
{
	size_t used = 0;
	out[0] = 0;
	for (unsigned i = 0; i < NFIELDS && used < cap; i++)
		if (fields >> i & 1)
			used += (size_t)snprintf(out + used, cap - used, "%s%s", used ? "," : "",
						 field_names[i]);
}

void rules_default_dir(char *out, size_t cap)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = 0;
	char *slash = strrchr(exe, '/');
	if (slash)
		*slash = 0;
	/* build/themis: ../rules; build/asan/themis: ../../rules. */
	static const char *const up[] = {"/../rules", "/../../rules"};
	for (int i = 0; n > 0 && i < 2; i++) {
		char dir[PATH_MAX + 16];
		snprintf(dir, sizeof(dir), "%s%s", exe, up[i]);
		if (!access(dir, R_OK) && realpath(dir, exe)) {
			snprintf(out, cap, "%s", exe);
			return;
		}
	}
	snprintf(out, cap, "rules");
}

/* ---- the parser ---- */

struct parse {
	struct rules *r;
	const char *fs, *name, *base; /* base: the file's name without its folder */
	struct rule *cur;	      /* the rule attributes attach to */
	int cur_line;
	char *err;
	size_t errlen;
};

__attribute__((format(printf, 3, 4))) static int fail(struct parse *p, int line, const char *fmt,
						      ...)
{
	int n = snprintf(p->err, p->errlen, "%s:%d: ", p->name, line);
	if (n > 0 && (size_t)n < p->errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* The rule before the next head or the end: both attributes given. */
static int close_rule(struct parse *p)
{
	if (!p->cur)
		return 0;
	const char *missing = !p->cur->reason[0] ? "reason" : !p->cur->source[0] ? "source" : NULL;
	p->cur = NULL;
	if (missing)
		return fail(p, p->cur_line,
			    "the rule '%s' has no %s: line (every rule needs an indented "
			    "'reason: ...' and 'source: ...' under it)",
			    p->r->r[p->r->n - 1].text, missing);
	return 0;
}

static const char *field_list(void)
{
	static char list[128];
	rules_field_names((1u << RULE_NFIELDS) - 1, list, sizeof(list));
	return list;
}

static bool errno_known(const char *name)
{
	for (int e = 1; e < 4096; e++) {
		const char *s = strerrorname_np(e);
		if (s && !strcmp(s, name))
			return true;
	}
	return false;
}

/* The operations' names, for a message. */
static const char *op_list(void)
{
	static char list[512];
	size_t used = 0;
	for (int k = 0; k < OP_NKINDS && used < sizeof(list); k++)
		used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s", k ? ", " : "",
					 op_name((enum op_kind)k));
	return list;
}

static int op_by_name(const char *name)
{
	char text[48];
	snprintf(text, sizeof(text), "op %s", name);
	return strlen(name) < 32 ? op_kind_of_text(text) : -1;
}

/* The letter of kind k's flags argument (C, W, F or R), or 0. */
static char flag_letter(int k)
{
	for (const char *l = op_letters((enum op_kind)k); *l; l++)
		if (op_is_flag_letter(*l))
			return *l;
	return 0;
}

/* OP:WORD,...: the calls of OP with one of these flag words. */
static int parse_refusal(struct parse *p, int line, char *tok, struct rule *r)
{
	char *colon = strchr(tok, ':');
	*colon = 0;
	int k = op_by_name(tok);
	if (k < 0)
		return fail(p, line, "unknown operation '%s' (known: %s)", tok, op_list());
	char letter = flag_letter(k);
	if (!letter)
		return fail(p, line, "%s has no flags argument: refuse it whole ('%s')", tok, tok);
	const char *words = colon + 1;
	if (!*words || strlen(words) >= sizeof(r->refusals[0].words) ||
	    !op_flags_parse(letter, words, NULL, NULL) || !strcmp(words, op_flag_none(letter)))
		return fail(p, line, "'%s' is not a comma list of %s's flag words (op_grammar.h)",
			    words, tok);
	if (r->nrefusals == RULE_REFUSALS_MAX)
		return fail(p, line, "more than %d OP:WORD refusals in one rule",
			    RULE_REFUSALS_MAX);
	struct rule_refusal *x = &r->refusals[r->nrefusals++];
	x->op = k;
	x->letter = letter;
	x->set = op_flag_set(letter, words);
	snprintf(x->words, sizeof(x->words), "%s", words);
	return 0;
}

/* words[1..n) of an unsupported rule: operation names, or OP:WORD,... */
static int parse_unsupported(struct parse *p, int line, char **w, int n, struct rule *r)
{
	if (n < 2)
		return fail(p, line, "'unsupported' names nothing: 'unsupported NAME...'");
	for (int i = 1; i < n; i++) {
		if (strchr(w[i], ':')) {
			if (parse_refusal(p, line, w[i], r))
				return -1;
			continue;
		}
		int k = op_by_name(w[i]);
		if (k < 0)
			return fail(p, line, "unknown operation '%s' (known: %s)", w[i], op_list());
		r->ops |= 1u << k;
	}
	return 0;
}

static int parse_ignore(struct parse *p, int line, char **w, int n, struct rule *r)
{
	if (n < 2)
		return fail(p, line, "'ignore' names nothing: 'ignore FIELD...'");
	for (int i = 1; i < n; i++) {
		unsigned f = 0;
		while (f < NFIELDS && strcmp(w[i], field_names[f]))
			f++;
		if (f == NFIELDS)
			return fail(p, line, "unknown field '%s' (known: %s)", w[i], field_list());
		r->fields |= 1u << f;
	}
	return 0;
}

/* OPS a comma list of operation names into *ops; 0 or -1 (said; `also`
 * heads the list of the names known, for a rule that takes more). */
static int parse_ops(struct parse *p, int line, char *list, uint32_t *ops, const char *also)
{
	for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
		int k = op_by_name(tok);
		if (k < 0)
			return fail(p, line, "unknown operation '%s' (known: %s%s)", tok, also,
				    op_list());
		*ops |= 1u << k;
	}
	return *ops ? 0 : fail(p, line, "no operation in '%s'", list);
}

/* A rule's errno names w[0..n) into r->errnos. */
static int parse_errnos(struct parse *p, int line, char **w, int n, struct rule *r)
{
	if (n > RULE_ERRNOS_MAX)
		return fail(p, line, "more than %d errnos in one rule", RULE_ERRNOS_MAX);
	for (int i = 0; i < n; i++) {
		if (!errno_known(w[i]) || strlen(w[i]) >= sizeof(r->errnos[0]))
			return fail(p, line,
				    "unknown errno '%s' (a name as errno(3) lists: EEXIST)", w[i]);
		snprintf(r->errnos[r->nerrnos++], sizeof(r->errnos[0]), "%s", w[i]);
	}
	return 0;
}

/* errno OPS ERRNO ERRNO...: OPS a comma list of operations or "any". */
static int parse_errno(struct parse *p, int line, char **w, int n, struct rule *r)
{
	if (n < 4)
		return fail(p, line,
			    "an errno rule is 'errno OP[,OP...]|any ERRNO ERRNO...' (two errnos "
			    "at least)");
	if (!strcmp(w[1], "any"))
		r->ops = OP_ALL_MASK;
	else if (parse_ops(p, line, w[1], &r->ops, "any, "))
		return -1;
	return parse_errnos(p, line, w + 2, n - 2, r);
}

/* refuses OP[:WORD,...] ERRNO...: the errnos of a call it may refuse. */
static int parse_refuses(struct parse *p, int line, char **w, int n, struct rule *r)
{
	if (n < 3)
		return fail(p, line, "a refuses rule is 'refuses OP[:WORD,...] ERRNO...'");
	if (strchr(w[1], ':')) {
		if (parse_refusal(p, line, w[1], r))
			return -1;
	} else {
		int k = op_by_name(w[1]);
		if (k < 0)
			return fail(p, line, "unknown operation '%s' (known: %s)", w[1], op_list());
		r->ops = 1u << k;
	}
	return parse_errnos(p, line, w + 2, n - 2, r);
}

/* times OP,... TIME...: TIME atime, mtime or ctime. */
static int parse_times(struct parse *p, int line, char **w, int n, struct rule *r)
{
	if (n < 3)
		return fail(p, line,
			    "a times rule is 'times OP[,OP...] TIME...' (atime, mtime, "
			    "ctime)");
	if (parse_ops(p, line, w[1], &r->ops, ""))
		return -1;
	for (int i = 2; i < n; i++) {
		unsigned t = 0;
		while (t < NTIMES && strcmp(w[i], time_names[t]))
			t++;
		if (t == NTIMES)
			return fail(p, line, "unknown time '%s' (known: atime, mtime, ctime)",
				    w[i]);
		r->times |= 1u << t;
	}
	return 0;
}

/* A head line (at column 0): a new rule. */
/* Each kind's parser, from the one list: parse_WORD for the head word. */
typedef int kind_parser(struct parse *p, int line, char **w, int n, struct rule *r);
static kind_parser *const kind_parsers[] = {
#define RULE_KIND_PARSER(e, word) parse_##word,
    RULE_KINDS(RULE_KIND_PARSER)
#undef RULE_KIND_PARSER
};

static int parse_head(struct parse *p, int line, char *text)
{
	if (close_rule(p))
		return -1;
	char *w[RULE_TEXT_MAX / 2], copy[RULE_TEXT_MAX];
	int n = 0;
	if (strlen(text) >= sizeof(copy))
		return fail(p, line, "a rule's line is longer than %d characters",
			    RULE_TEXT_MAX - 1);
	memcpy(copy, text, strlen(text) + 1);
	for (char *tok = strtok(copy, " \t"); tok; tok = strtok(NULL, " \t"))
		w[n++] = tok;
	if (!n) /* parse_line sends no blank line; a guard for the compiler */
		return fail(p, line, "an empty rule");
	if (p->r->n == RULES_MAX)
		return fail(p, line, "more than %d rules for one run's filesystems", RULES_MAX);
	struct rule *r = &p->r->r[p->r->n];
	memset(r, 0, sizeof(*r));
	size_t used = 0;
	for (int i = 0; i < n; i++)
		used += (size_t)snprintf(r->text + used, sizeof(r->text) - used, "%s%s",
					 i ? " " : "", w[i]);
	int k = 0;
	while (k < RULE_NKINDS && strcmp(w[0], kind_names[k]))
		k++;
	if (k == RULE_NKINDS)
		return fail(p, line,
			    "unknown rule kind '%s' (known: %.*s; a reason: or source: line is "
			    "indented under its rule)",
			    w[0], (int)sizeof(kind_words) - 3, kind_words);
	r->kind = (enum rule_kind)k;
	if (kind_parsers[k](p, line, w, n, r))
		return -1;
	snprintf(r->fs, sizeof(r->fs), "%s", p->fs);
	snprintf(r->where, sizeof(r->where), "%.30s:%d", p->base, line % 100000000);
	p->r->n++;
	p->cur = r;
	p->cur_line = line;
	return 0;
}

/* An indented line: an attribute of the rule above. */
static int parse_attribute(struct parse *p, int line, char *text)
{
	char *colon = strchr(text, ':');
	size_t key = colon ? (size_t)(colon - text) : 0;
	bool reason = key == 6 && !strncmp(text, "reason", 6);
	bool source = key == 6 && !strncmp(text, "source", 6);
	if (!reason && !source)
		return fail(p, line,
			    "an indented line is 'reason: TEXT' or 'source: TEXT', not '%.40s'",
			    text);
	if (!p->cur)
		return fail(p, line, "'%.6s:' with no rule above it", text);
	char *v = colon + 1;
	while (*v == ' ' || *v == '\t')
		v++;
	char *field = reason ? p->cur->reason : p->cur->source;
	if (!*v)
		return fail(p, line, "an empty %.6s", text);
	if (*field)
		return fail(p, line, "a second %.6s: for one rule", text);
	if (strlen(v) >= RULE_WORDS_MAX)
		return fail(p, line, "a %.6s longer than %d characters", text, RULE_WORDS_MAX - 1);
	snprintf(field, RULE_WORDS_MAX, "%s", v);
	return 0;
}

static int parse_line(struct parse *p, int line, char *s)
{
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = 0;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 && s[i] != '\t')
			return fail(p, line, "a control character in the line");
	char *t = s;
	while (*t == ' ' || *t == '\t')
		t++;
	if (!*t || *t == '#')
		return 0;
	return t == s ? parse_head(p, line, s) : parse_attribute(p, line, t);
}

int rules_parse(struct rules *r, const char *fs, const char *name, const char *text, char *err,
		size_t errlen)
{
	const char *slash = strrchr(name, '/');
	struct parse p = {r, fs, name, slash ? slash + 1 : name, NULL, 0, err, errlen};
	int line = 1;
	for (const char *l = text; *l; line++) {
		size_t len = strcspn(l, "\n");
		char buf[1024];
		if (len >= sizeof(buf))
			return fail(&p, line, "a line longer than %zu characters", sizeof(buf) - 1);
		if (memchr(l, 0, len))
			return fail(&p, line, "a NUL byte");
		memcpy(buf, l, len);
		buf[len] = 0;
		if (parse_line(&p, line, buf))
			return -1;
		l += len + (l[len] == '\n');
	}
	return close_rule(&p);
}

void rules_rehash(struct rules *r)
{
	XXH3_state_t *st = XXH3_createState();
	if (!st) {
		r->hash = 0;
		return;
	}
	XXH3_64bits_reset(st);
	for (int i = 0; i < r->n; i++) {
		const struct rule *x = &r->r[i];
		char b[256];
		int n =
		    snprintf(b, sizeof(b), "%s %s %s\n", x->fs, rule_kind_name(x->kind), x->text);
		XXH3_64bits_update(st, b, (size_t)n);
	}
	r->hash = XXH3_64bits_digest(st);
	XXH3_freeState(st);
}

/* dir/NAME.rules into r: 0, 1 absent (when optional), -1 with err. */
static int load_file(struct rules *r, const char *dir, const char *fs, bool optional, char *err,
		     size_t errlen)
{
	char path[RULES_PATH_MAX + 32];
	snprintf(path, sizeof(path), "%s/%s.rules", dir, fs);
	FILE *f = fopen(path, "r");
	if (!f) {
		if (optional && errno == ENOENT)
			return 1;
		snprintf(err, errlen, "%s: cannot read the %s rules: %s%s", path, fs,
			 strerror(errno),
			 optional ? "" : " (every filesystem has a rules file; --rules DIR)");
		return -1;
	}
	char *text = malloc(RULES_FILE_MAX + 1);
	size_t n = text ? fread(text, 1, RULES_FILE_MAX + 1, f) : 0;
	bool bad = !text || ferror(f) || n > RULES_FILE_MAX;
	fclose(f);
	if (bad) {
		snprintf(err, errlen, "%s: %s", path,
			 !text		      ? "out of memory"
			 : n > RULES_FILE_MAX ? "larger than 1 MiB"
					      : "read error");
		free(text);
		return -1;
	}
	text[n] = 0;
	int rc = rules_parse(r, fs, path, text, err, errlen);
	free(text);
	return rc;
}

int rules_load(struct rules *r, const char *dir, const char *const *fs, int nfs, char *err,
	       size_t errlen)
{
	memset(r, 0, sizeof(*r));
	if (strlen(dir) >= sizeof(r->dir)) {
		snprintf(err, errlen, "the rules folder's name is too long");
		return -1;
	}
	snprintf(r->dir, sizeof(r->dir), "%s", dir);
	if (load_file(r, dir, RULES_COMMON_NAME, true, err, errlen) < 0)
		return -1;
	for (int i = 0; i < nfs; i++) {
		bool seen = false;
		for (int j = 0; j < i; j++)
			seen |= !strcmp(fs[i], fs[j]);
		if (!seen && load_file(r, dir, fs[i], false, err, errlen))
			return -1;
	}
	rules_rehash(r);
	return 0;
}

bool rules_apply_to(const struct rules *r, int i, const char *fs)
{
	return !strcmp(r->r[i].fs, fs) || !strcmp(r->r[i].fs, RULES_COMMON_NAME);
}

uint32_t rules_refusing(const struct rules *r, const char *fs)
{
	uint32_t mask = 0;
	for (int i = 0; r && i < r->n; i++)
		for (int j = 0; r->r[i].kind == RULE_UNSUPPORTED && rules_apply_to(r, i, fs) &&
				j < r->r[i].nrefusals;
		     j++)
			mask |= 1u << r->r[i].refusals[j].op;
	return mask;
}

/* The flags argument (letter x's) of the operation text into out. */
static bool flags_arg(const char *text, int k, char letter, char *out, size_t cap)
{
	const char *letters = op_letters((enum op_kind)k);
	const char *a = text + 3 + strlen(op_name((enum op_kind)k));
	for (size_t i = 0; letters[i]; i++) {
		a += strspn(a, " ");
		size_t n = strcspn(a, " ");
		if (letters[i] == letter) {
			snprintf(out, cap, "%.*s", (int)n, a);
			return true;
		}
		a += n;
	}
	return false;
}

/* Whether the operation `text` (of kind k) is one of rule x's OP:WORD
 * refusals. */
static bool refused_call(const struct rule *x, int k, const char *text)
{
	for (int j = 0; j < x->nrefusals; j++) {
		const struct rule_refusal *f = &x->refusals[j];
		char arg[64];
		if (f->op == k && flags_arg(text, k, f->letter, arg, sizeof(arg)) &&
		    (op_flag_set(f->letter, arg) & f->set))
			return true;
	}
	return false;
}

bool rules_takes(const struct rules *r, const char *fs, const char *text)
{
	int k = op_kind_of_text(text);
	for (int i = 0; r && k >= 0 && i < r->n; i++)
		if (r->r[i].kind == RULE_UNSUPPORTED && rules_apply_to(r, i, fs) &&
		    refused_call(&r->r[i], k, text))
			return false;
	return true;
}

static bool names_errno(const struct rule *x, const char *e);

int rules_refusal_rule(const struct rules *r, const char *fs, const char *text, const char *err)
{
	int k = op_kind_of_text(text);
	for (int i = 0; r && k >= 0 && i < r->n; i++) {
		const struct rule *x = &r->r[i];
		if (x->kind == RULE_REFUSES && rules_apply_to(r, i, fs) && names_errno(x, err) &&
		    ((x->ops >> k & 1) || refused_call(x, k, text)))
			return i;
	}
	return -1;
}

int rules_filter(const struct rules *r, const char *const *fs, int nfs, struct op *ops, int n)
{
	/* At every node of a search: only the kinds some rule refuses words
	 * of are read (none, in most runs). */
	uint32_t refusing = 0;
	for (int f = 0; f < nfs; f++)
		refusing |= rules_refusing(r, fs[f]);
	if (!refusing)
		return n;
	int kept = 0;
	for (int i = 0; i < n; i++) {
		bool ok = true;
		for (int f = 0; f < nfs && ok && (refusing >> ops[i].kind & 1); f++)
			ok = rules_takes(r, fs[f], ops[i].text);
		if (ok)
			ops[kept++] = ops[i];
	}
	return kept;
}

uint32_t rules_unsupported(const struct rules *r, const char *fs)
{
	uint32_t mask = 0;
	for (int i = 0; r && i < r->n; i++)
		if (r->r[i].kind == RULE_UNSUPPORTED && rules_apply_to(r, i, fs))
			mask |= r->r[i].ops;
	return mask;
}

int rules_unsupported_rule(const struct rules *r, const char *fs, enum op_kind k)
{
	for (int i = 0; r && i < r->n; i++)
		if (r->r[i].kind == RULE_UNSUPPORTED && rules_apply_to(r, i, fs) &&
		    (r->r[i].ops >> k & 1))
			return i;
	return -1;
}

void rules_ignore_list(const struct rules *r, const char *const *fs, int nfs, char *out, size_t cap)
{
	unsigned fields = 0;
	for (int i = 0; r && i < r->n; i++)
		for (int k = 0; k < nfs && r->r[i].kind == RULE_IGNORE; k++)
			if (rules_apply_to(r, i, fs[k]))
				fields |= r->r[i].fields;
	rules_field_names(fields, out, cap);
	if (!out[0])
		snprintf(out, cap, "-");
}

static bool names_errno(const struct rule *x, const char *e)
{
	for (int i = 0; i < x->nerrnos; i++)
		if (!strcmp(x->errnos[i], e))
			return true;
	return false;
}

int rules_errno_match(const struct rules *r, int k, const char *fs_a, const char *ea,
		      const char *fs_b, const char *eb)
{
	if (!r || !strcmp(ea, eb) || k < 0 || k >= OP_NKINDS)
		return -1;
	for (int i = 0; i < r->n; i++) {
		const struct rule *x = &r->r[i];
		if (x->kind == RULE_ERRNO && (x->ops >> k & 1) &&
		    (rules_apply_to(r, i, fs_a) || rules_apply_to(r, i, fs_b)) &&
		    names_errno(x, ea) && names_errno(x, eb))
			return i;
	}
	return -1;
}

int rules_times_rule(const struct rules *r, const char *const *fs, int nfs, int k)
{
	for (int i = 0; r && k >= 0 && k < OP_NKINDS && i < r->n; i++)
		for (int j = 0; j < nfs && r->r[i].kind == RULE_TIMES && (r->r[i].ops >> k & 1);
		     j++)
			if (rules_apply_to(r, i, fs[j]))
				return i;
	return -1;
}
